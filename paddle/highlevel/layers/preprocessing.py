"""Preprocessing layers of numbers: Rescaling, Normalization (with `adapt`),
CategoryEncoding and Discretization (with `adapt`), as Keras's.

The statistics `adapt(data)` computes are NumPy work done once, before training; the layers
then apply them with graph ops, so they run inside a model like any other layer.

Example:
    >>> import numpy as np, paddle as pd
    >>> norm = pd.layers.Normalization()
    >>> norm.adapt(np.array([[0.0], [2.0]], np.float32))
    >>> norm(np.array([[1.0], [3.0]], np.float32)).tolist()
    [[0.0], [2.0]]
"""
import itertools
import numbers

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import FLOATS, Variable, constant
from paddle.lowlevel.ops.math import cast, greater_equal, maximum, sqrt
from paddle.lowlevel.ops.reduce import max as max_, sum as sum_
from paddle.lowlevel.ops.shape import expand_dims, one_hot, reshape, squeeze
from paddle.highlevel.layers.base import Layer

EPSILON = 1e-7  # Keras's backend.epsilon(): the floor of Normalization's std


def _as_float(x, dtype):
    return x if x.dtype == dtype else cast(x, dtype)


def _batches(data, where):
    """The batches of `adapt`'s data: one array, or each item of an iterable of arrays
    (a list, a generator, a PyDataset; (x, y) items give their x)."""
    if isinstance(data, Variable):
        data = data.val()
    if isinstance(data, np.ndarray) or np.isscalar(data):
        return [np.asarray(data)]
    if not hasattr(data, "__iter__") and not hasattr(data, "__getitem__"):
        raise TypeError(f"{where}: expected a NumPy array or an iterable of batches, "
                        f"received {type(data).__name__}")
    items = (data[i] for i in range(len(data))) if hasattr(data, "__len__") and \
        hasattr(data, "__getitem__") and not isinstance(data, (list, tuple)) else iter(data)
    first = next(items, None)
    if first is None:
        raise ValueError(f"{where}: received no batches to adapt to")
    out = []
    for batch in itertools.chain([first], items):
        if isinstance(batch, tuple):
            batch = batch[0]
        out.append(np.asarray(batch.val() if isinstance(batch, Variable) else batch))
    return out


class Rescaling(Layer):
    """`inputs * scale + offset`, cast to the layer's dtype (e.g. `Rescaling(1 / 255)` for
    pixels).

    Args:
        scale, offset: numbers, or sequences broadcast against the last axis (per channel).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.Rescaling(1 / 255)(np.array([[0, 255]], np.uint8)).tolist()
        [[0.0, 1.0]]
    """

    supports_masking = True

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = self._number(scale, "scale")
        self.offset = self._number(offset, "offset")

    @staticmethod
    def _number(value, name):
        array = np.asarray(value) if not isinstance(value, bool) else np.asarray("bad")
        if array.dtype.kind not in "iuf" or not np.all(np.isfinite(array)):
            raise ValueError(f"Rescaling: expected {name} to be a finite number or a sequence "
                             f"of them, received {value!r}")
        return float(value) if array.ndim == 0 else array.tolist()

    def call(self, inputs):
        x = _as_float(inputs, self.dtype)
        scale, offset = (np.asarray(v, self.dtype) if isinstance(v, list) else v
                         for v in (self.scale, self.offset))
        return x * scale + offset

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


class Normalization(Layer):
    """Shifts and scales inputs to mean 0 and variance 1: `(x - mean) / sqrt(variance)`
    (the std floored at 1e-7), with the statistics given or learned by `adapt(data)`;
    `invert=True` maps back: `mean + x * sqrt(variance)`.

    Args:
        axis: the axes that keep their own statistics (default -1: one mean and variance
            per feature); None for one mean and variance over everything.
        mean, variance: the statistics (numbers or arrays broadcast over the kept axes), or
            None to learn them with `adapt`.
        invert: apply the inverse transformation.

    Without `mean` and `variance`, the layer holds them as non-trainable weights `mean`,
    `variance` (and Keras's `count`), so `adapt` may run before or after the layer is
    used in a model.

    Example:
        >>> import numpy as np, paddle as pd
        >>> layer = pd.layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0])
        >>> layer(np.array([[3.0, 8.0]], np.float32)).tolist()
        [[1.0, 2.0]]
    """

    supports_masking = True

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        axes = () if axis is None else (axis,) if isinstance(axis, int) else axis
        if not isinstance(axes, (list, tuple)) or any(
                not isinstance(a, int) or isinstance(a, bool) for a in axes):
            raise ValueError(f"Normalization: expected axis as an int, a tuple of ints or "
                             f"None, received {axis!r}")
        self.axis = tuple(axes)
        if (mean is None) != (variance is None):
            raise ValueError(f"Normalization: expected both mean and variance or neither, "
                             f"received mean={mean!r}, variance={variance!r}")
        if mean is not None:
            m, v = np.asarray(mean, np.float64), np.asarray(variance, np.float64)
            if m.shape != v.shape:
                raise ValueError(f"Normalization: expected mean and variance of the same "
                                 f"shape, received {m.shape} and {v.shape}")
            if m.ndim > len(self.axis):
                raise ValueError(f"Normalization: expected mean of rank <= {len(self.axis)} "
                                 f"(the number of axes {self.axis}), received shape {m.shape}")
            if np.any(v < 0):
                raise ValueError(f"Normalization: expected variance >= 0, received "
                                 f"{variance!r}")
        self.input_mean, self.input_variance = mean, variance
        if not isinstance(invert, bool):
            raise ValueError(f"Normalization: expected invert to be True or False, received "
                             f"{invert!r}")
        self.invert = invert
        self._build_shape = None

    def build(self, input_shape):
        rank = len(input_shape)
        if any(not -rank <= a < rank for a in self.axis):
            raise ShapeError(at_user(f"{self.name}: axis {self.axis} is out of range for an "
                                     f"input of shape {tuple(input_shape)}"))
        self._keep = tuple(sorted(a % rank for a in self.axis))
        for a in self._keep:
            if input_shape[a] is None:
                raise ShapeError(at_user(f"{self.name}: expected the size of axis {a} to be "
                                         f"known, received shape {tuple(input_shape)}"))
        self._reduce = tuple(a for a in range(rank) if a not in self._keep)
        self._build_shape = tuple(input_shape)
        self._broadcast = tuple(input_shape[a] if a in self._keep else 1
                                for a in range(rank))
        stats_shape = tuple(input_shape[a] for a in self._keep)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight("mean", stats_shape, "zeros", trainable=False)
            self.adapt_variance = self.add_weight("variance", stats_shape, "ones",
                                                  trainable=False)
            self.count = self.add_weight("count", (), "zeros", dtype="int32",
                                         trainable=False)
            return
        expanded = [1] * rank
        m = np.asarray(self.input_mean, np.float64)
        for i in range(1, m.ndim + 1):  # the given statistics fill the last kept axes
            expanded[self._keep[-i]] = m.shape[-i]
        try:
            self._mean = np.broadcast_to(m.reshape(expanded), self._broadcast).astype(
                self.dtype)
            self._variance = np.broadcast_to(np.asarray(self.input_variance, np.float64)
                                             .reshape(expanded), self._broadcast).astype(
                self.dtype)
        except ValueError:
            raise ShapeError(at_user(f"{self.name}: mean of shape {m.shape} does not fit the "
                                     f"axes {self.axis} of an input of shape "
                                     f"{tuple(input_shape)}")) from None

    def adapt(self, data):
        """Set `mean` and `variance` to those of `data` (a NumPy array, or an iterable of
        batches: a list of arrays, a generator, a `pd.utils.PyDataset`), per position of
        the kept axes; batches are merged as Keras merges them."""
        if self.input_mean is not None:
            raise ValueError(f"{self.name}: the layer was given mean and variance; adapt "
                             "learns them only for a layer made without them")
        batches = _batches(data, f"{self.name}: adapt")
        shape = (None,) + batches[0].shape[1:] if batches[0].ndim else ()
        if not self.built:
            self.build(shape)
            self.built = True
        total_mean = total_var = None
        count = 0
        for batch in batches:
            batch = batch.astype(np.float64)
            if batch.ndim != len(self._build_shape) or any(
                    batch.shape[a] != self._build_shape[a] for a in self._keep):
                raise ShapeError(f"{self.name}: adapt expected batches of shape "
                                 f"{self._build_shape}, received {batch.shape}")
            mean = batch.mean(axis=self._reduce)
            var = batch.var(axis=self._reduce)
            n = int(np.prod([batch.shape[a] for a in self._reduce]))
            if total_mean is None:
                total_mean, total_var, count = mean, var, n
                continue
            count += n
            w = n / count
            new_mean = total_mean * (1 - w) + mean * w
            total_var = (total_var + (total_mean - new_mean) ** 2) * (1 - w) + \
                (var + (mean - new_mean) ** 2) * w
            total_mean = new_mean
        self.adapt_mean.set_value(np.asarray(total_mean, self.dtype))
        self.adapt_variance.set_value(np.asarray(total_var, self.dtype))

    def call(self, inputs):
        x = _as_float(inputs, self.dtype)
        if self.input_mean is not None:
            mean, std = self._mean, np.maximum(np.sqrt(self._variance), EPSILON)
        else:
            mean = reshape(self.adapt_mean, self._broadcast)
            std = maximum(sqrt(reshape(self.adapt_variance, self._broadcast)), EPSILON)
        return mean + x * std if self.invert else (x - mean) / std

    def get_config(self):
        def listed(v):
            return None if v is None else np.asarray(v).tolist()
        return {**super().get_config(), "axis": list(self.axis), "invert": self.invert,
                "mean": listed(self.input_mean), "variance": listed(self.input_variance)}


def _check_mode(value, modes, layer):
    if value not in modes:
        raise ValueError(f"{layer}: expected output_mode in {modes}, received {value!r}")
    return value


def _ids(inputs):
    return inputs if inputs.dtype not in FLOATS else cast(inputs, "int64")


def encode(ids, mode, depth, layer, count_weights=None):
    """Keras's categorical encodings of integer `ids` (batch, ...): one_hot adds an axis of
    `depth` (replacing a last axis of size 1); multi_hot and count reduce the tokens of each
    sample, (batch,) or (batch, tokens), to (batch, depth)."""
    if mode == "one_hot":
        if ids.ndim > 1 and ids.shape[-1] == 1:
            ids = squeeze(ids, [-1])
        return one_hot(ids, depth)
    if ids.ndim > 2:
        raise ShapeError(at_user(f"{layer}: {mode} encodes inputs of rank 1 or 2 (batch, "
                                 f"tokens), received shape {ids.shape}"))
    if ids.ndim == 1:
        ids = expand_dims(ids, -1)
    hot = one_hot(ids, depth)
    if mode == "multi_hot":
        return max_(hot, axis=1)
    if count_weights is not None:
        hot = hot * expand_dims(count_weights, -1)
    return sum_(hot, axis=1)


class CategoryEncoding(Layer):
    """Encodes integer ids in [0, num_tokens) as one-hot, multi-hot or count vectors.

    Args:
        num_tokens: the number of ids (the size of the encoding).
        output_mode: "multi_hot" (default; "binary" is the same): 1 at each id a sample
            holds; "count": how many times it holds each; "one_hot": a vector per id.
        sparse: False only (paddle has no sparse tensors).

    multi_hot and count take (batch,) or (batch, tokens) ids and give (batch, num_tokens);
    one_hot takes any rank (a last axis of size 1 is replaced). Call with
    `count_weights=` (the ids' shape) to sum weights instead of counting, in "count" mode.

    Example:
        >>> import numpy as np, paddle as pd
        >>> layer = pd.layers.CategoryEncoding(num_tokens=4, output_mode="count")
        >>> layer(np.array([[0, 1], [3, 3]])).tolist()
        [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 2.0]]
    """

    casts_integer_inputs = False

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        self.output_mode = _check_mode(output_mode, ("multi_hot", "count", "one_hot"),
                                       "CategoryEncoding")
        if not isinstance(num_tokens, numbers.Integral) or isinstance(num_tokens, bool) or \
                num_tokens < 1:
            raise ValueError(f"CategoryEncoding: expected num_tokens to be an integer >= 1, "
                             f"received {num_tokens!r}")
        if sparse:
            raise ValueError("CategoryEncoding: paddle has no sparse tensors, received "
                             "sparse=True")
        self.num_tokens, self.sparse = int(num_tokens), False

    def call(self, inputs, count_weights=None):
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError(f"{self.name}: count_weights is used in output_mode "
                                 f"'count' only, received it in {self.output_mode!r}")
            if isinstance(count_weights, np.ndarray):
                count_weights = constant(count_weights.astype(self.dtype))
            if tuple(count_weights.shape[1:]) != tuple(inputs.shape[1:]):
                raise ShapeError(at_user(f"{self.name}: expected count_weights of the ids' "
                                         f"shape {inputs.shape}, received "
                                         f"{count_weights.shape}"))
            count_weights = _as_float(count_weights, self.dtype)
        return encode(_ids(inputs), self.output_mode, self.num_tokens, self.name,
                      count_weights)

    def get_config(self):
        return {**super().get_config(), "num_tokens": self.num_tokens,
                "output_mode": self.output_mode, "sparse": self.sparse}


class Discretization(Layer):
    """Buckets numbers by boundaries: the bucket index of x is the number of boundaries
    <= x (Keras's `digitize`), returned as int32 ids ("int") or encoded ("one_hot",
    "multi_hot", "count", as CategoryEncoding with len(bin_boundaries) + 1 tokens).

    Args:
        bin_boundaries: the sorted boundaries, or None to learn `num_bins` buckets with
            `adapt(data)` (approximate quantiles, Keras's algorithm).
        num_bins: the number of buckets `adapt` makes.
        epsilon: the quantile error tolerance of `adapt` (default 0.01).
        output_mode: "int" (default), "one_hot", "multi_hot" or "count".
        sparse: False only.

    The boundaries are fixed into the graph when the layer is called: `adapt` first.

    Example:
        >>> import numpy as np, paddle as pd
        >>> layer = pd.layers.Discretization(bin_boundaries=[0.0, 1.0, 2.0])
        >>> layer(np.array([[-1.5, 0.0, 0.5, 1.0, 2.5]], np.float32)).tolist()
        [[0, 1, 1, 2, 3]]
    """

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
                 sparse=False, dtype=None, name=None, **kwargs):
        super().__init__(name=name, dtype=dtype or "float32", **kwargs)
        self.output_mode = _check_mode(output_mode, ("int", "one_hot", "multi_hot", "count"),
                                       "Discretization")
        if sparse:
            raise ValueError("Discretization: paddle has no sparse tensors, received "
                             "sparse=True")
        if (bin_boundaries is None) == (num_bins is None):
            raise ValueError(f"Discretization: expected either bin_boundaries or num_bins, "
                             f"received bin_boundaries={bin_boundaries!r}, "
                             f"num_bins={num_bins!r}")
        if num_bins is not None and (not isinstance(num_bins, numbers.Integral) or
                                     isinstance(num_bins, bool) or num_bins < 1):
            raise ValueError(f"Discretization: expected num_bins to be an integer >= 1, "
                             f"received {num_bins!r}")
        if not isinstance(epsilon, numbers.Real) or isinstance(epsilon, bool) or \
                not 0 < epsilon < 1:
            raise ValueError(f"Discretization: expected epsilon in (0, 1), received "
                             f"{epsilon!r}")
        if bin_boundaries is not None:
            b = np.asarray(bin_boundaries, np.float64) if not isinstance(
                bin_boundaries, (str, bytes)) else np.asarray([np.nan])
            if b.ndim != 1 or not np.all(np.isfinite(b)) or np.any(np.diff(b) < 0):
                raise ValueError(f"Discretization: expected bin_boundaries as a sorted list "
                                 f"of finite numbers, received {bin_boundaries!r}")
            bin_boundaries = b.tolist()
        self.bin_boundaries, self.num_bins = bin_boundaries, num_bins
        self.epsilon, self.sparse = float(epsilon), False

    def adapt(self, data, steps=None):
        """Learn `num_bins` buckets of about equal counts from `data` (an array or an
        iterable of batches; `steps` limits how many batches are read)."""
        if self.num_bins is None:
            raise ValueError(f"{self.name}: adapt needs a layer made with num_bins, not "
                             "bin_boundaries")
        if self._inbound:
            raise ValueError(f"{self.name}: adapt before the layer is called on Variables "
                             "(its boundaries are fixed into the graph it builds)")
        self._eager = {}
        summary = np.zeros((2, 0), np.float32)  # float32 as Keras's, so the bins match
        for i, batch in enumerate(_batches(data, f"{self.name}: adapt")):
            if steps is not None and i >= steps:
                break
            summary = _merge(_summarize(batch.astype(np.float32), self.epsilon), summary,
                             self.epsilon)
        self.bin_boundaries = _compress(summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError(f"{self.name}: give bin_boundaries or call adapt(data) before "
                             "using the layer")
        x = _as_float(inputs, self.dtype)
        bounds = constant(np.asarray(self.bin_boundaries, self.dtype))
        above = cast(greater_equal(expand_dims(x, -1), bounds), self.dtype)
        ids = cast(sum_(above, axis=-1), "int32")
        if self.output_mode == "int":
            return ids
        return encode(ids, self.output_mode, len(self.bin_boundaries) + 1, self.name)

    def get_config(self):
        return {**super().get_config(), "bin_boundaries": self.bin_boundaries,
                "num_bins": self.num_bins, "epsilon": self.epsilon,
                "output_mode": self.output_mode, "sparse": self.sparse}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        boundaries = config.pop("bin_boundaries", None)
        if config.get("num_bins") is None:
            return cls(bin_boundaries=boundaries, **config)
        layer = cls(**config)  # an adapted layer: its learned boundaries
        layer.bin_boundaries = boundaries
        return layer


# ---- Keras's approximate quantiles (discretization.py): the same steps, the same bins. ----

def _summarize(values, epsilon):
    """(2, k): every step-th sorted value, each weighted by the step."""
    values = np.sort(np.reshape(values, [-1]))
    step = max(values.size * epsilon, 1)
    boundaries = values[int(step - 1)::int(step)]
    return np.stack([boundaries, np.ones_like(boundaries) * step])


def _merge(a, b, epsilon):
    merged = np.concatenate((a, b), axis=1)
    return _compress(np.take(merged, np.argsort(merged[0]), axis=1), epsilon)


def _compress(summary, epsilon):
    """Interpolate the cumulative weights at every epsilon-th fraction."""
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum = summary[1].cumsum()
    fractions = cum / cum[-1]
    bins = np.interp(percents, fractions, summary[0])
    cum = np.interp(percents, fractions, cum)
    return np.stack((bins, cum - np.concatenate((np.array([0]), cum[:-1]))))
