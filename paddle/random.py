"""`pd.random`: random tensors drawn inside the graph, as `keras.random`.

Each function returns a Variable whose values are drawn anew every time a plan runs it
(every training step), in C++ from a seed taken at that run:

- `seed=None`: from paddle's random state, so `pd.seed(n)` / `pd.utils.set_random_seed(n)`
  make the whole run reproducible;
- `seed=<int>`: the same seed every run, so the same values every run (as in Keras);
- `seed=SeedGenerator(...)`: the generator's next seed every run: a new draw each step,
  reproducible from the generator's own seed. Use one in a layer's `call`.

A shape may hold None for an axis whose size is only known at run time (the batch), as
`pd.shape(x)` gives it: the size is then taken, at run time, from the same axis of `like=`
(a Variable of the same rank), or, inside a layer's `call` or a custom `train_step` /
`test_step`, of the first input of the call (the step's data) with that rank and that axis
unknown; a None at axis 0 alone is the batch, read from axis 0 of an input of any rank.
`pd.shape(x)` itself, passed whole, takes its sizes from `x`. So Keras's
`normal(shape=(ops.shape(z)[0], 2), seed=self.seed_generator)` works in a `call` as is,
and `uniform(ops.shape(labels))` in a train_step (`pd.ones` / `pd.zeros` / `pd.full`
follow the same rule).

Example:
    >>> import numpy as np, paddle as pd
    >>> class Sampling(pd.layers.Layer):
    ...     def __init__(self, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.seed_generator = pd.random.SeedGenerator(1337)
    ...     def call(self, z_mean):
    ...         batch, dim = pd.shape(z_mean)       # (None, 2): the batch is known at run time
    ...         eps = pd.random.normal((batch, dim), seed=self.seed_generator)
    ...         return z_mean + eps
    >>> z = Sampling()(np.zeros((3, 2), np.float32))
    >>> z.shape, bool(np.all(z != 0))
    ((3, 2), True)
"""
import numbers

import numpy as np

from paddle.errors import at_user
from paddle.lowlevel import random_state as _state
from paddle.lowlevel.creation import VariableShape
from paddle.lowlevel.graph import (FLOATS, Variable, apply, as_dtype, as_variable,
                                   call_input_like, constant)
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops.math import cast, less, log
from paddle.lowlevel.ops.reduce import argmax, sum as reduce_sum
from paddle.lowlevel.ops.sampling import random as _draw, random_gamma, sizes_from
from paddle.lowlevel.ops.shape import expand_dims, gather

__all__ = ["SeedGenerator", "beta", "binomial", "categorical", "dropout", "gamma", "normal",
           "randint", "shuffle", "truncated_normal", "uniform"]


class SeedGenerator:
    """A stream of seeds for random ops: each run of an op that holds it takes the next one.

    Args:
        seed: an integer in [0, 2**63); None takes one from paddle's random state (so
            `pd.seed` before building the layer makes it reproducible).

    Example:
        >>> import paddle as pd
        >>> a, b = pd.random.SeedGenerator(3), pd.random.SeedGenerator(3)
        >>> [a.next() for _ in range(2)] == [b.next() for _ in range(2)]
        True
    """

    def __init__(self, seed=None, name=None, **kwargs):
        if kwargs:
            raise TypeError(f"SeedGenerator: unexpected arguments {', '.join(sorted(kwargs))}")
        if seed is None:
            seed = _state.next_seed()
        elif not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or \
                not 0 <= seed < 2 ** 63:
            raise ValueError(f"SeedGenerator: expected an integer seed in [0, 2**63) or None, "
                             f"received {seed!r}")
        self.seed = int(seed)
        self.name = name or "seed_generator"
        self._rng = np.random.default_rng(self.seed)

    def next(self):
        """The next seed of the stream (an int in [0, 2**63))."""
        return int(self._rng.integers(0, 2 ** 63 - 1))

    @property
    def state(self):
        """The stream's position (its NumPy bit generator state): saved and restored to
        resume a run where it stopped."""
        return self._rng.bit_generator.state

    @state.setter
    def state(self, value):
        self._rng.bit_generator.state = value

    def get_config(self):
        return {"seed": self.seed}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<SeedGenerator seed={self.seed}>"


def _seed_fn(seed, where):
    """The callable the random op calls on every run for its seed."""
    if seed is None:
        return _state.next_seed
    if isinstance(seed, SeedGenerator):
        return seed.next
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool) and 0 <= seed < 2 ** 63:
        fixed = int(seed)
        return lambda: fixed
    raise ValueError(at_user(f"{where}: expected seed as None, an integer in [0, 2**63) or a "
                             f"pd.random.SeedGenerator, received {seed!r}"))


def _shape(shape, like, where):
    """shape as a tuple of ints >= 0 and Nones; a Variable stands for its own shape."""
    if isinstance(shape, Variable):
        like = shape if like is None else like
        shape = tuple(None if d is None else d for d in shape.shape)
    elif isinstance(shape, VariableShape):  # pd.shape(x): the sizes are x's
        like = shape.variable if like is None else like
    if isinstance(shape, numbers.Integral) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (list, tuple)) or not all(
            d is None or (isinstance(d, numbers.Integral) and not isinstance(d, bool) and d >= 0)
            for d in shape):
        raise ValueError(at_user(f"{where}: expected shape as a tuple of sizes >= 0 (None for "
                                 f"a size taken from like=), received {shape!r}"))
    shape = tuple(None if d is None else int(d) for d in shape)
    if like is not None:
        like = as_variable(like, where=where)
    elif None in shape:
        like = call_input_like(shape)
    if None in shape and (like is None or sizes_from(shape, like.shape) is None):
        got = "no like=" if like is None else f"like= of shape {like.shape}"
        raise ValueError(at_user(f"{where}: the shape {shape} has None sizes, which need like= "
                                 f"a Variable of rank {len(shape)}, or any rank when only axis 0 "
                                 f"(the batch) is None (or a layer call or train_step whose "
                                 f"input has one); received {got}"))
    return shape, like


def _float_dtype(dtype, where):
    dtype = as_dtype("float32" if dtype is None else dtype, where)
    if dtype not in FLOATS:
        raise ValueError(at_user(f"{where}: expected a float dtype, received {dtype!r}"))
    return dtype


def _real(value, name, where, ok=lambda v: True, expected="a finite number"):
    if not isinstance(value, numbers.Real) or isinstance(value, bool) or \
            not np.isfinite(value) or not ok(float(value)):
        raise ValueError(at_user(f"{where}: expected {name} {expected}, received {value!r}"))
    return float(value)


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, like=None):
    """Draws from a normal distribution.

    Args:
        shape: the output shape (ints; None where `like` gives the size), or a Variable
            (its shape).
        mean, stddev: the distribution's mean and standard deviation (>= 0).
        dtype: a float dtype (float32 by default).
        seed: None, an int or a `SeedGenerator` (see the module docstring).
        like: the Variable None sizes come from.

    Returns:
        A Variable, drawn anew on every run.

    Example:
        >>> import numpy as np, paddle as pd
        >>> v = pd.eval(pd.random.normal((20000,), mean=1.0, stddev=2.0, seed=0))
        >>> round(float(v.mean()), 1), round(float(v.std()), 1)
        (1.0, 2.0)
    """
    where = "pd.random.normal"
    shape, like = _shape(shape, like, where)
    return _draw(shape, "normal", _real(mean, "mean", where),
                 _real(stddev, "stddev", where, lambda v: v >= 0, "a finite number >= 0"),
                 _float_dtype(dtype, where), like, _seed_fn(seed, where))


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None, like=None):
    """Draws from a normal distribution, redrawn beyond two standard deviations (Keras's).

    Arguments as `normal`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> v = pd.eval(pd.random.truncated_normal((1000,), seed=1))
        >>> bool(np.abs(v).max() <= 2.0)
        True
    """
    where = "pd.random.truncated_normal"
    shape, like = _shape(shape, like, where)
    return _draw(shape, "truncated_normal", _real(mean, "mean", where),
                 _real(stddev, "stddev", where, lambda v: v >= 0, "a finite number >= 0"),
                 _float_dtype(dtype, where), like, _seed_fn(seed, where))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None, like=None):
    """Draws from the uniform distribution on [minval, maxval).

    Arguments as `normal`, with `minval < maxval` instead of mean and stddev.

    Example:
        >>> import numpy as np, paddle as pd
        >>> v = pd.eval(pd.random.uniform((1000,), minval=2.0, maxval=3.0, seed=1))
        >>> bool(v.min() >= 2.0 and v.max() < 3.0)
        True
    """
    where = "pd.random.uniform"
    shape, like = _shape(shape, like, where)
    lo, hi = _real(minval, "minval", where), _real(maxval, "maxval", where)
    if not lo < hi:
        raise ValueError(at_user(f"{where}: expected minval < maxval, received {minval!r} and "
                                 f"{maxval!r}"))
    return _draw(shape, "uniform", lo, hi, _float_dtype(dtype, where), like,
                 _seed_fn(seed, where))


def randint(shape, minval, maxval, dtype="int32", seed=None, like=None):
    """Integers drawn uniformly from [minval, maxval).

    Arguments as `normal`; dtype 'int32' (Keras's default) or 'int64', or a float dtype.

    Example:
        >>> import numpy as np, paddle as pd
        >>> v = pd.eval(pd.random.randint((1000,), 0, 3, seed=1))
        >>> v.dtype.name, sorted(set(v.tolist()))
        ('int32', [0, 1, 2])
    """
    where = "pd.random.randint"
    shape, like = _shape(shape, like, where)
    for name, v in (("minval", minval), ("maxval", maxval)):
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise ValueError(at_user(f"{where}: expected an integer {name}, received {v!r}"))
    if not minval < maxval:
        raise ValueError(at_user(f"{where}: expected minval < maxval, received {minval!r} and "
                                 f"{maxval!r}"))
    dtype = as_dtype(dtype, where)
    if dtype == "bool":
        raise ValueError(at_user(f"{where}: expected an integer or float dtype, received bool"))
    return _draw(shape, "randint", int(minval), int(maxval), dtype, like,
                 _seed_fn(seed, where))


def gamma(shape, alpha, dtype=None, seed=None, like=None):
    """Draws from the gamma distribution of shape `alpha` and scale 1 (Keras's
    `keras.random.gamma`; mean alpha, variance alpha), in C++ (Marsaglia and Tsang's method).

    Args:
        shape: the output shape (ints; None where `like` gives the size), or a Variable.
        alpha: the shape parameter: a number > 0, or a tensor (array or Variable) of them
            broadcasting to `shape` (a draw per element; NaN where a value is not > 0, as
            JAX's sampler).
        dtype: a float dtype (float32 by default).
        seed: None, an int or a `SeedGenerator` (see the module docstring).
        like: the Variable None sizes come from.

    Example:
        >>> import numpy as np, paddle as pd
        >>> v = pd.eval(pd.random.gamma((20000,), alpha=3.0, seed=0))
        >>> round(float(v.mean()), 1), bool(v.min() > 0)
        (3.0, True)
        >>> v = pd.eval(pd.random.gamma((20000, 2), alpha=np.array([1.0, 9.0]), seed=0))
        >>> [round(float(m)) for m in v.mean(axis=0)]
        [1, 9]
    """
    where = "pd.random.gamma"
    shape, like = _shape(shape, like, where)
    return _gamma(shape, like, alpha, "alpha", _float_dtype(dtype, where),
                  _seed_fn(seed, where), where)


def _gamma(shape, like, alpha, name, dtype, seed_fn, where, inference_value=None):
    """Gamma(alpha) draws of `shape`: the random op's gamma kind for a number, the
    random_gamma op (a draw per element) for a tensor of shapes."""
    if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool):
        alpha = _real(alpha, name, where, lambda v: v > 0, "a finite number > 0")
        return _draw(shape, "gamma", alpha, 1.0, dtype, like, seed_fn,
                     inference_value=inference_value)
    if not isinstance(alpha, Variable):
        array = np.asarray(alpha)
        if array.dtype.kind not in "iuf":
            raise ValueError(at_user(f"{where}: expected {name} a number > 0 or a tensor of "
                                     f"them, received {alpha!r}"))
        alpha = constant(array.astype(dtype))
    elif alpha.dtype != dtype:
        alpha = cast(alpha, dtype)
    if None in shape:
        template = apply(OPS["full_like"], [like], {"value": 0.0, "shape": shape,
                                                    "dtype": dtype})
    else:
        template = constant(np.zeros(shape), dtype=dtype)
    a_shape = alpha.shape
    if len(a_shape) > len(shape) or any(
            a not in (1, None) and s is not None and a != s
            for a, s in zip(a_shape[::-1], shape[::-1])):
        raise ValueError(at_user(f"{where}: expected {name} to broadcast to the shape "
                                 f"{shape}, received {name} of shape {alpha.shape}"))
    return random_gamma(alpha + template, seed_fn, inference_value)


def beta(shape, alpha, beta, dtype=None, seed=None, like=None):  # noqa: F811 - Keras's names
    """Draws from the beta distribution of parameters `alpha` and `beta` (Keras's
    `keras.random.beta`): `X / (X + Y)` of two gamma draws X ~ Gamma(alpha), Y ~ Gamma(beta),
    as Keras computes it.

    Args:
        shape: the output shape (ints; None where `like` gives the size), or a Variable.
        alpha, beta: the parameters, numbers > 0 or tensors of them (as `gamma`).
        dtype, seed, like: as `gamma` (the two gamma draws take two seeds of `seed`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> v = pd.eval(pd.random.beta((20000,), alpha=2.0, beta=6.0, seed=0))
        >>> round(float(v.mean()), 2), bool(v.min() >= 0 and v.max() <= 1)
        (0.25, True)
    """
    where = "pd.random.beta"
    shape, like = _shape(shape, like, where)
    dtype = _float_dtype(dtype, where)
    seed_fn = _seed_fn(seed, where)
    if isinstance(seed, numbers.Integral):  # a fixed seed: two different fixed streams
        seed_fn, other = (lambda: int(seed)), (lambda: (int(seed) + 1) % 2 ** 63)
    else:
        other = seed_fn
    x = _gamma(shape, like, alpha, "alpha", dtype, seed_fn, where)
    y = _gamma(shape, like, beta, "beta", dtype, other, where)
    return x / (x + y)


def binomial(shape, counts, probabilities, dtype=None, seed=None, like=None):
    """Draws from the binomial distribution (Keras's `keras.random.binomial`): the number of
    successes in `counts` trials of probability `probabilities`, counted from `counts`
    uniform draws per element (exact for every count; the memory is counts times the
    output's).

    Args:
        shape: the output shape (ints; None where `like` gives the size), or a Variable.
        counts: the number of trials, an integer >= 0 (a float holding one is accepted).
        probabilities: the success probability, a number in [0, 1].
        dtype: a float dtype (float32 by default), as Keras's.
        seed, like: as `normal`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> v = pd.eval(pd.random.binomial((20000,), counts=10, probabilities=0.3, seed=0))
        >>> round(float(v.mean()), 1), float(v.min()) >= 0, float(v.max()) <= 10
        (3.0, True, True)
    """
    where = "pd.random.binomial"
    shape, like = _shape(shape, like, where)
    n = _real(counts, "counts", where, lambda v: v >= 0 and v == int(v),
              "an integer number of trials >= 0")
    p = _real(probabilities, "probabilities", where, lambda v: 0 <= v <= 1, "in [0, 1]")
    dtype = _float_dtype(dtype, where)
    if n == 0:
        return _draw(shape, "uniform", 0.0, 1.0, dtype, like, _seed_fn(seed, where)) * 0.0
    trials = _draw(shape + (int(n),), "uniform", 0.0, 1.0, dtype,
                   None if like is None else expand_dims(like, -1) if None in shape[1:]
                   else like, _seed_fn(seed, where))
    return reduce_sum(cast(less(trials, p), dtype), axis=-1)


def categorical(logits, num_samples, dtype="int32", seed=None):
    """Draws class indices from the categorical distributions of each row of `logits`
    (Keras's `keras.random.categorical`): the index of the largest `logits + Gumbel noise`,
    which is distributed as softmax(logits).

    Args:
        logits: a (batch, classes) float Variable or array of unnormalized log-probabilities;
            the batch may be unknown (None).
        num_samples: the number of draws per row, an integer >= 1.
        dtype: 'int32' (default) or 'int64'.
        seed: None, an int or a `SeedGenerator`.

    Returns:
        A (batch, num_samples) Variable of indices in [0, classes).

    Example:
        >>> import numpy as np, paddle as pd
        >>> logits = np.log(np.array([[0.1, 0.9], [0.5, 0.5]], np.float32))
        >>> v = pd.eval(pd.random.categorical(logits, 4000, seed=0))
        >>> v.shape, [round(float(m), 1) for m in v.mean(axis=1)]
        ((2, 4000), [0.9, 0.5])
    """
    where = "pd.random.categorical"
    x = as_variable(logits, where=where)
    if x.ndim != 2 or x.dtype not in FLOATS:
        raise ValueError(at_user(f"{where}: expected logits as a 2-D float tensor (batch, "
                                 f"classes), received shape {x.shape} of dtype {x.dtype}"))
    if x.shape[1] is None:
        raise ValueError(at_user(f"{where}: expected logits with a known number of classes, "
                                 f"received shape {x.shape}"))
    if not isinstance(num_samples, numbers.Integral) or isinstance(num_samples, bool) or \
            num_samples < 1:
        raise ValueError(at_user(f"{where}: expected num_samples as an integer >= 1, "
                                 f"received {num_samples!r}"))
    dtype = as_dtype(dtype, where)
    if dtype not in ("int32", "int64"):
        raise ValueError(at_user(f"{where}: expected dtype 'int32' or 'int64', received "
                                 f"{dtype!r}"))
    # Uniform draws in (0, 1): the smallest float above 0 keeps log(-log(u)) finite.
    tiny = float(np.finfo(x.dtype).tiny)
    u = _draw((x.shape[0], int(num_samples), x.shape[1]), "uniform", tiny, 1.0, x.dtype, x,
              _seed_fn(seed, where))
    noisy = expand_dims(x, 1) - log(-log(u))
    return cast(argmax(noisy, axis=-1), dtype)


def dropout(inputs, rate, noise_shape=None, seed=None):
    """Zero each element with probability `rate` and scale the rest by 1 / (1 - rate), on
    every run (Keras's `keras.random.dropout`: unlike `pd.dropout` and the Dropout layer, it
    does not depend on training).

    Args:
        inputs: a float Variable.
        rate: the drop probability, in [0, 1).
        noise_shape: the mask's shape, broadcast against the input (e.g. `(None, 1, C)` to
            drop whole channels of a sequence); None sizes are the input's. Default: the
            input's shape.
        seed: None, an int or a `SeedGenerator`.

    Returns:
        A Variable shaped like inputs; the gradient flows through the kept elements.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.constant(np.ones((2, 3, 4), np.float32))
        >>> y = pd.eval(pd.random.dropout(x, 0.5, noise_shape=(None, 1, 4), seed=3))
        >>> bool(np.all(y == y[:, :1, :])), sorted(set(y.ravel().tolist())) <= [0.0, 2.0]
        (True, True)
    """
    where = "pd.random.dropout"
    x = as_variable(inputs, where=where)
    if x.dtype not in FLOATS:
        raise ValueError(at_user(f"{where}: expected a float input, received {x.dtype}"))
    rate = _real(rate, "rate", where, lambda v: 0 <= v < 1, "in [0, 1)")
    if noise_shape is None:
        noise_shape = (None,) * x.ndim
    if not isinstance(noise_shape, (list, tuple)) or len(noise_shape) != x.ndim:
        raise ValueError(at_user(f"{where}: expected noise_shape with one size per axis of "
                                 f"the input {x.shape}, received {noise_shape!r}"))
    for axis, (n, d) in enumerate(zip(noise_shape, x.shape)):
        if n is not None and n != 1 and d is not None and n != d:
            raise ValueError(at_user(f"{where}: noise_shape {tuple(noise_shape)} does not "
                                     f"broadcast against the input {x.shape} (axis {axis})"))
    if rate == 0:
        return x
    return x * keep_mask(x, rate, noise_shape, _seed_fn(seed, where))


def shuffle(x, axis=0, seed=None):
    """x with its slices along `axis` in a random order, a new order on every run (Keras's
    `keras.random.shuffle`). The order is a permutation drawn in C++; the values are gathered
    with it, so the gradient flows back to where each slice came from.

    Args:
        x: a Variable (or an array) of rank >= 1; the axis may have an unknown size (the
            batch): the permutation takes its length at run time.
        axis: the axis to shuffle.
        seed: None, an int or a `SeedGenerator`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = pd.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
        >>> y = pd.eval(pd.random.shuffle(x, seed=1))
        >>> sorted(y[:, 0].tolist()), bool(np.all(y[:, 1] == y[:, 0] + 1))
        ([0.0, 2.0, 4.0], True)
    """
    where = "pd.random.shuffle"
    x = as_variable(x, where=where)
    if x.ndim < 1:
        raise ValueError(at_user(f"{where}: expected an input of rank >= 1, received a scalar"))
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool) or \
            not -x.ndim <= axis < x.ndim:
        raise ValueError(at_user(f"{where}: expected an axis of an input of shape {x.shape}, "
                                 f"received {axis!r}"))
    axis = int(axis) % x.ndim
    order = _draw((x.shape[axis],), "permutation", 0.0, 0.0, "int64", x,
                  _seed_fn(seed, where), like_axis=axis)
    return gather(x, order, axis=axis)


def keep_mask(x, rate, noise_shape, seed_fn, training_only=False):
    """Dropout's mask for x: 1 / (1 - rate) with probability 1 - rate, else 0, of
    noise_shape (None sizes from x); all ones outside training runs with training_only."""
    return _draw(tuple(noise_shape), "keep_mask", rate, 1.0 / (1.0 - rate), x.dtype, x,
                 seed_fn, 1.0 if training_only else None)
