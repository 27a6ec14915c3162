"""Keras's `keras.ops.math` functions: segment reductions, top_k, in_top_k, logsumexp,
extract_sequences, cdist, rsqrt (the FFT, STFT, qr, solve and erfinv functions of that
namespace live in paddle/ops/fft.py and paddle/ops/linalg.py).

segment_sum adds rows with the scatter-add op (gather's adjoint); segment_max/min/prod
compare every row with every segment (rows x segments work). top_k takes the first k of
the stable descending order (a partial sort on the CPU) and gathers; its gradient goes
back to the chosen positions.

Example:
    >>> import paddle as pd
    >>> values, indices = pd.ops.top_k(pd.constant([1.0, 4.0, 2.0]), 2)
    >>> pd.eval(values).tolist(), pd.eval(indices).tolist()
    ([4.0, 2.0], [1, 2])
"""
import numpy as np

from paddle.errors import ShapeError
from paddle.lowlevel.graph import FLOATS, apply, constant
from paddle.lowlevel.op import OPS
from paddle.lowlevel.ops import math as _m
from paddle.lowlevel.ops import reduce as _r
from paddle.lowlevel.ops import shape as _s
from paddle.lowlevel.ops import sort as _o
from paddle.lowlevel.ops.math import cast, where
from paddle.ops._arrays import fail, floats, known, tensor
from paddle.ops.numpy_reduce import prod
from paddle.ops.numpy_math import logsumexp, rsqrt  # noqa: F401  (one implementation)

__all__ = ["cdist", "extract_sequences", "in_top_k", "logsumexp", "rsqrt", "segment_max",
           "segment_min", "segment_prod", "segment_sum", "top_k"]


def _segments(data, segment_ids, num_segments, where_):
    data, ids = tensor(data, where_), tensor(segment_ids, where_)
    if ids.dtype not in ("int32", "int64") or ids.ndim != 1:
        fail(TypeError, f"{where_}: expected 1-D integer segment_ids, received {ids.dtype} of "
                        f"shape {ids.shape}")
    if data.ndim < 1 or (data.shape[0] is not None and ids.shape[0] is not None and
                         data.shape[0] != ids.shape[0]):
        fail(ShapeError, f"{where_}: expected one segment id per row of data, received data "
                         f"of shape {data.shape} and {ids.shape[0]} ids")
    if not isinstance(num_segments, (int, np.integer)) or num_segments <= 0:
        fail(ValueError, f"{where_}: the number of segments must be known when the graph is "
                         f"built: expected num_segments > 0, received {num_segments!r}")
    return data, cast(ids, "int64"), int(num_segments)


def segment_sum(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """The sum of the rows of data in each segment (rows of ids outside [0, num_segments)
    raise when the graph runs); empty segments give 0.

    Example:
        >>> import paddle as pd
        >>> data, ids = pd.constant([1.0, 2.0, 3.0]), pd.constant([0, 0, 1])
        >>> pd.eval(pd.ops.segment_sum(data, ids, 2)).tolist()
        [3.0, 3.0]
    """
    data, ids, n = _segments(data, segment_ids, num_segments, "segment_sum")
    compute = data.dtype if data.dtype in FLOATS else "float64"
    rows = cast(data, compute)
    like = apply(OPS["full_like"], [rows], {"value": 0.0, "dtype": compute,
                                             "shape": (n,) + tuple(data.shape[1:])})
    out = apply(OPS["scatter_add"], [rows, ids, like], {"axis": 0})
    return cast(out, data.dtype if data.dtype != "bool" else "int32")


def _masked(data, ids, n, fill):
    """(n, rows, ...) copies of data, with `fill` where a row is not in the segment."""
    member = _m.equal(_s.reshape(ids, [1, -1]),
                      _s.reshape(constant(np.arange(n, dtype=np.int64)), [-1, 1]))
    member = _s.reshape(member, [n, -1] + [1] * (data.ndim - 1))
    wide = _s.expand_dims(data, 0)
    filler = _m.zeros_like(wide) + cast(constant(fill), data.dtype)
    return where(member, wide + _m.zeros_like(cast(member, data.dtype)), filler + _m.zeros_like(
        cast(member, data.dtype)))


def _extreme_fill(dtype, largest):
    if dtype in FLOATS:
        return -np.inf if largest else np.inf
    info = np.iinfo(dtype)
    return int(info.min if largest else info.max)


def segment_max(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """The largest row of data in each segment (-inf, or the smallest integer, for empty
    segments, as Keras on JAX).

    Example:
        >>> import paddle as pd
        >>> data, ids = pd.constant([1.0, 5.0, 3.0]), pd.constant([0, 0, 2])
        >>> pd.eval(pd.ops.segment_max(data, ids, 3)).tolist()
        [5.0, -inf, 3.0]
    """
    data, ids, n = _segments(data, segment_ids, num_segments, "segment_max")
    return _r.max(_masked(data, ids, n, _extreme_fill(data.dtype, True)), axis=1)


def segment_min(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """The smallest row of data in each segment (inf, or the largest integer, when empty).

    Example:
        >>> import paddle as pd
        >>> data, ids = pd.constant([1.0, 5.0, 3.0]), pd.constant([0, 0, 1])
        >>> pd.eval(pd.ops.segment_min(data, ids, 2)).tolist()
        [1.0, 3.0]
    """
    data, ids, n = _segments(data, segment_ids, num_segments, "segment_min")
    return _r.min(_masked(data, ids, n, _extreme_fill(data.dtype, False)), axis=1)


def segment_prod(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """The product of the rows of data in each segment (1 when empty).

    Example:
        >>> import paddle as pd
        >>> data, ids = pd.constant([2.0, 5.0, 3.0]), pd.constant([0, 0, 1])
        >>> pd.eval(pd.ops.segment_prod(data, ids, 2)).tolist()
        [10.0, 3.0]
    """
    data, ids, n = _segments(data, segment_ids, num_segments, "segment_prod")
    return prod(_masked(data, ids, n, 1), axis=1)


def top_k(x, k, sorted=True):  # noqa: A002
    """(values, int32 indices) of the k largest elements along the last axis, largest first
    (ties: the lower index first).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.top_k(pd.constant([[3, 1, 2]]), 2)[1]).tolist()
        [[0, 2]]
    """
    x = tensor(x, "top_k")
    if x.ndim < 1:
        fail(ShapeError, "top_k: expected a tensor of rank >= 1, received a scalar")
    n = x.shape[-1]
    if not isinstance(k, (int, np.integer)) or k < 0 or (n is not None and k > n):
        fail(ValueError, f"top_k: expected 0 <= k <= {n} (the last axis), received {k!r}")
    index = _o.argsort(cast(x, "int32") if x.dtype == "bool" else x, x.ndim - 1,
                       descending=True, k=int(k))
    return _o.take_along_axis(x, index, x.ndim - 1), cast(index, "int32")


def in_top_k(targets, predictions, k):
    """Whether each target class is among the k largest predictions of its row (bool; a
    tie with the k-th largest counts as in).

    Example:
        >>> import paddle as pd
        >>> scores = pd.constant([[1.0, 2.0], [3.0, 4.0]])
        >>> pd.eval(pd.ops.in_top_k(pd.constant([0, 1]), scores, 1)).tolist()
        [False, True]
    """
    targets, predictions = tensor(targets, "in_top_k"), tensor(predictions, "in_top_k")
    if predictions.ndim != 2 or targets.ndim != 1:
        fail(ShapeError, f"in_top_k: expected 1-D targets and 2-D predictions, received "
                         f"shapes {targets.shape} and {predictions.shape}")
    if targets.dtype not in ("int32", "int64"):
        fail(TypeError, f"in_top_k: expected integer targets, received {targets.dtype}")
    kth = top_k(predictions, k)[0][:, int(k) - 1:int(k)]
    chosen = _o.take_along_axis(predictions, _s.expand_dims(cast(targets, "int64"), 1), 1)
    return _s.squeeze(_m.greater_equal(chosen, kth), 1)


def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of `sequence_length` samples every `sequence_stride` along the last axis:
    shape (..., frames, sequence_length), through one gather.

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.extract_sequences(pd.constant([1, 2, 3, 4, 5]), 2, 2)).tolist()
        [[1, 2], [3, 4]]
    """
    x = tensor(x, "extract_sequences")
    for name, v in (("sequence_length", sequence_length), ("sequence_stride", sequence_stride)):
        if not isinstance(v, (int, np.integer)) or v <= 0:
            fail(ValueError, f"extract_sequences: expected {name} > 0, received {v!r}")
    if x.ndim < 1:
        fail(ShapeError, "extract_sequences: expected a tensor of rank >= 1, received a scalar")
    n = known(x, [x.ndim - 1], "extract_sequences")[0]
    if n < sequence_length:
        fail(ValueError, f"extract_sequences: a signal of {n} samples is shorter than "
                         f"sequence_length={sequence_length}")
    frames = (n - sequence_length) // sequence_stride + 1
    index = np.arange(frames)[:, None] * sequence_stride + np.arange(sequence_length)[None, :]
    return _s.gather(x, constant(index.astype(np.int64)), axis=x.ndim - 1)


def cdist(x, y):
    """Euclidean distances between the rows of x and of y over their last axis: shape
    (..., rows of x, rows of y).

    Example:
        >>> import paddle as pd
        >>> pd.eval(pd.ops.cdist(pd.constant([[0.0, 0.0]]), pd.constant([[3.0, 4.0]]))).tolist()
        [[5.0]]
    """
    x, y = floats(tensor(x, "cdist")), floats(tensor(y, "cdist"))
    if x.ndim < 2 or y.ndim < 2:
        fail(ValueError, f"cdist: expected inputs of rank >= 2, received shapes {x.shape} and "
                         f"{y.shape}")
    if x.shape[-1] is not None and y.shape[-1] is not None and x.shape[-1] != y.shape[-1]:
        fail(ValueError, f"cdist: the last axes differ: shapes {x.shape} and {y.shape}")
    d = _s.expand_dims(x, x.ndim - 1) - _s.expand_dims(y, y.ndim - 2)
    return _m.sqrt(_r.sum(d * d, axis=-1))
