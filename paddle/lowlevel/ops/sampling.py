"""The random op: a tensor of draws (uniform, normal, truncated normal, integers) made anew on
every run, from a seed its `seed_fn` gives at that run.

`pd.random` (paddle/random.py) is the public face; this module holds the op. The output's
shape is fixed when the graph is built, except for axes given as None, which take their size
from the matching axis of a `like` input at run time (noise for a batch of any size).

Example:
    >>> import paddle as pd
    >>> from paddle.lowlevel.ops.sampling import random
    >>> x = pd.data("x", shape=[None, 3])
    >>> random((None, 1), "uniform", 0.0, 1.0, like=x, seed_fn=lambda: 7).shape
    (None, 1)
"""
from paddle.lowlevel.graph import DTYPES, FLOATS, STORAGE_DTYPES, apply, as_dtype
from paddle.lowlevel.op import OPS, RANDOM_KINDS, Op, register
from paddle.lowlevel.shapes import sizes_from

@register
class Random(Op):
    """Draws of `kind` with parameters (a, b); with `inference_value` set, a plan that is not a
    training one fills that value instead (noise layers are identities at inference)."""

    name = "random"

    def infer(self, *like, shape, dtype, kind, a, b, seed_fn, inference_value=None,
              like_axis=None):
        out = list(shape)
        if like_axis is not None:  # a 1-D output as long as one axis of `like`
            if not like or len(shape) != 1 or not -len(like[0][0]) <= like_axis < len(like[0][0]):
                self.fail(f"like_axis {like_axis} needs a 1-D shape and an input with that axis",
                          *(("like", s) for s, _ in like))
            return (like[0][0][like_axis],), dtype
        if None not in shape:
            return tuple(out), dtype
        sized = sizes_from(shape, like[0][0]) if like else None
        if sized is None:
            self.fail(f"the shape {tuple(shape)} has None sizes, which need an input of the "
                      f"same rank to take them from (or, for axis 0 alone, any input's axis "
                      f"0: the batch)", *(("like", s) for s, _ in like))
        return sized, dtype

    def grad(self, node, g):
        return [None] * len(node.inputs)


RANDINT_DTYPES = tuple(d for d in DTYPES if d not in STORAGE_DTYPES)  # randint's dtypes


def random(shape, kind, a, b, dtype="float32", like=None, seed_fn=None, inference_value=None,
           like_axis=None):
    """A Variable of draws (see the module docstring); `seed_fn()` gives each run's seed.

    Args:
        shape: sizes (ints >= 0), None where the size comes from `like` at run time.
        kind: one of RANDOM_KINDS (paddle/lowlevel/op.py).
        a, b: (minval, maxval) for uniform and randint, (mean, stddev) for the normals,
            (rate, kept value) for keep_mask.
        dtype: a float dtype ('int32' / 'int64' for randint).
        like: the Variable None axes take their sizes from.
        seed_fn: a callable returning a seed (an int in [0, 2**64)).
        inference_value: fill this outside training runs (None: draw in every run).
        like_axis: for a 1-D output, the axis of `like` whose size it has.
    """
    if kind not in RANDOM_KINDS:
        raise ValueError(f"random: expected a kind in {RANDOM_KINDS}, received {kind!r}")
    dtype = as_dtype(dtype, "random")
    if dtype not in (RANDINT_DTYPES if kind == "randint" else ("int32", "int64")
                     if kind == "permutation" else FLOATS):
        raise ValueError(f"random: {kind} cannot make {dtype} values")
    attrs = {"shape": tuple(shape), "dtype": dtype, "kind": kind, "a": float(a), "b": float(b),
             "seed_fn": seed_fn, "inference_value": inference_value, "like_axis": like_axis}
    return apply(OPS["random"], [] if like is None else [like], attrs)


@register
class RandomGamma(Op):
    """Gamma(alpha, 1) draws, one per element of the shape tensor `alpha` (a run-time value:
    Keras's gamma and beta take tensors of parameters); `inference_value` as Random's."""

    name = "random_gamma"

    def infer(self, alpha, *, seed_fn, inference_value=None):
        if alpha[1] not in FLOATS:
            self.fail("expected a float shape parameter alpha", ("alpha", alpha[0]))
        return alpha

    def grad(self, node, g):
        return [None]


def random_gamma(alpha, seed_fn, inference_value=None):
    """Gamma(alpha[i], 1) draws shaped like the float Variable `alpha` (NaN where alpha is not
    > 0); `seed_fn()` gives each run's seed."""
    return apply(OPS["random_gamma"], [alpha], {"seed_fn": seed_fn,
                                                "inference_value": inference_value})
