"""`pd.ops.nn`'s cross-entropies (Keras's `binary_crossentropy`, `categorical_crossentropy`,
`sparse_categorical_crossentropy`): per element or per row, no reduction.

Example:
    >>> import numpy as np, paddle as pd
    >>> pd.ops.nn.binary_crossentropy(np.array([0.0]), np.array([0.5])).numpy().round(6).tolist()
    [0.693147]
"""
import numpy as np

from paddle.errors import ShapeError
from paddle.lowlevel.graph import FLOATS, as_variable, constant
from paddle.lowlevel.ops import activations as _act
from paddle.lowlevel.ops.math import cast, equal, log, maximum, minimum
from paddle.lowlevel.ops.reduce import sum
from paddle.lowlevel.ops.shape import expand_dims, squeeze, transpose
from paddle.lowlevel.shapes import located
from paddle.ops.promotion import EPSILON
from paddle.ops.promotion import axis_of as _axis
from paddle.ops.promotion import float_operands as _float_operands


def _same_shape(where, target, output):
    if target.shape != output.shape:
        with located():
            raise ShapeError(f"{where}: expected target and output of one shape, received "
                             f"target.shape={target.shape}, output.shape={output.shape}")


def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy of probabilities (clipped to [1e-7, 1 - 1e-7]) or
    logits (Keras's `keras.ops.binary_crossentropy`; no reduction).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.binary_crossentropy(np.array([1.0], np.float64), np.array([0.5])).numpy().round(6).tolist()
        [0.693147]
    """
    target, output = _float_operands("binary_crossentropy", target, output)
    _same_shape("binary_crossentropy", target, output)
    if from_logits:
        return target * _act.softplus(-output) + (1.0 - target) * _act.softplus(output)
    output = minimum(maximum(output, EPSILON), 1.0 - EPSILON)
    return -(target * log(output) + (1.0 - target) * log(1.0 - output))


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of one-hot (or soft) targets along `axis`; probabilities are
    renormalized and clipped to [1e-7, 1 - 1e-7] (Keras's `categorical_crossentropy`).

    Example:
        >>> import numpy as np, paddle as pd
        >>> t, p = np.array([[0.0, 1.0]]), np.array([[0.5, 0.5]])
        >>> pd.ops.nn.categorical_crossentropy(t, p).numpy().round(6).tolist()
        [0.693147]
    """
    target, output = _float_operands("categorical_crossentropy", target, output)
    _same_shape("categorical_crossentropy", target, output)
    if output.ndim < 1:
        with located():
            raise ShapeError("categorical_crossentropy: expected target and output of rank "
                             ">= 1, received scalars")
    a = _axis("categorical_crossentropy", axis, output)
    return -sum(target * _log_prob(output, a, from_logits), axis=a)


def _log_prob(output, axis, from_logits):
    if from_logits:
        return _act.log_softmax(output, axis=axis)
    output = output / sum(output, axis=axis, keepdims=True)
    return log(minimum(maximum(output, EPSILON), 1.0 - EPSILON))


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of integer class ids (shaped like output without `axis`, or with a
    trailing 1) against probabilities or logits (Keras's `sparse_categorical_crossentropy`;
    ids outside the classes contribute 0, as Keras on JAX).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.nn.sparse_categorical_crossentropy(np.array([1]), np.array([[0.5, 0.5]])).numpy().round(6).tolist()
        [0.693147]
    """
    (output,) = _float_operands("sparse_categorical_crossentropy", output)
    target = as_variable(target, where="sparse_categorical_crossentropy")
    if target.dtype in FLOATS:
        target = cast(target, "int32")
    if target.ndim == output.ndim and target.ndim and target.shape[-1] == 1:
        target = squeeze(target, -1)
    if output.ndim < 1:
        with located():
            raise ShapeError("sparse_categorical_crossentropy: expected output of rank >= 1, "
                             "received a scalar")
    a = _axis("sparse_categorical_crossentropy", axis, output)
    expected = output.shape[:a] + output.shape[a + 1:]
    if target.ndim != len(expected) or any(t is not None and e is not None and t != e
                                           for t, e in zip(target.shape, expected)):
        with located():
            raise ShapeError(f"sparse_categorical_crossentropy: expected target of shape "
                             f"{expected} (output without axis {axis}), received "
                             f"target.shape={target.shape}, output.shape={output.shape}")
    if output.shape[a] is None:
        with located():
            raise ShapeError(f"sparse_categorical_crossentropy: expected a known number of "
                             f"classes (axis {axis}), received output.shape={output.shape}")
    # one-hot rows (zeros for ids outside the classes, as Keras on JAX) along axis a
    ids = constant(np.arange(output.shape[a]), dtype=target.dtype)
    hot = cast(equal(expand_dims(target, -1), ids), output.dtype)
    if a != output.ndim - 1:
        perm = list(range(target.ndim))
        perm.insert(a, target.ndim)
        hot = transpose(hot, perm)
    return -sum(hot * _log_prob(output, a, from_logits), axis=a)
