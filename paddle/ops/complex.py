"""Keras's complex-number functions and `view` on paddle: `view` (a bitcast), `view_as_real`,
`view_as_complex`, `polar`, and `real`, `imag`, `conj`, `abs`, `angle` on complex values.

paddle's complex64 and complex128 are NumPy's layout: each value is a pair of float32 (or
float64) numbers, real part first. No elementwise kernel computes on complex values: a
complex tensor is seen as its float pairs by the `bitcast` view
(paddle/lowlevel/ops/shape.py; no copy), the real ops compute on those pairs, and the
pairs are seen as complex again. The gradients come from the real ops and from bitcast's
rule (between a complex dtype and its parts' float dtype it is the bitcast back), so a real
loss differentiates through polar, view_as_complex, real, imag, abs and angle. The
gradient with respect to a complex input is dL/d(re) + i dL/d(im) (JAX returns its
conjugate). Every other op refuses complex values where it is built (TypeError naming the
dtype: paddle/lowlevel/graph.py, check_complex).

Results keep 64-bit precision as the rest of pd.ops does (polar of float64 gives complex128
and view_as_real of complex128 float64, where Keras on JAX without x64 narrows to 32 bits);
view_as_complex gives complex64 whatever its input, as Keras casts to it on every backend.

Example:
    >>> import numpy as np, paddle as pd
    >>> z = pd.ops.view_as_complex(np.array([[3.0, 4.0]], np.float32))
    >>> z.dtype, pd.ops.abs(z).numpy().tolist(), pd.ops.view_as_real(pd.ops.conj(z)).numpy().tolist()
    ('complex64', [5.0], [[3.0, -4.0]])
"""
import numpy as np

from paddle.errors import at_user
from paddle.lowlevel import dtypes
from paddle.lowlevel.graph import COMPLEX_DTYPES, Variable, as_dtype, constant
from paddle.lowlevel.ops import special
from paddle.lowlevel.ops.math import abs as _real_abs
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.shape import COMPLEX_PARTS, bitcast, expand_dims, squeeze, stack
from paddle.ops.promotion import float_operands as _float_operands
from paddle.ops.promotion import tensor as _tensor

__all__ = ["view", "view_as_real", "view_as_complex", "polar", "abs", "absolute"]

_COMPLEX_OF = {v: k for k, v in COMPLEX_PARTS.items()}  # float32 -> complex64, ...


def is_complex(x):
    """Whether x (a Variable, array or number) holds complex values."""
    if isinstance(x, Variable):
        return x.dtype in COMPLEX_DTYPES
    return isinstance(x, complex) or np.asarray(x).dtype.kind == "c"


def complex_tensor(x, where):
    """x as a Variable, complex values kept complex: a NumPy array its own complex dtype,
    Python complex numbers complex64 (as Python floats give float32)."""
    if isinstance(x, Variable):
        return x
    array = np.asarray(x)
    if array.dtype.kind == "c":
        numpy_typed = isinstance(x, (np.ndarray, np.generic))
        return constant(array, dtype=array.dtype.name if numpy_typed else "complex64")
    return _tensor(x, where)


def view(x, dtype=None):
    """x's bytes read as `dtype` (Keras's `view`, NumPy's `ndarray.view`): the last axis
    scales by the ratio of the item sizes. No copy is made, and there is no gradient
    (except between a complex dtype and its parts' float dtype).

    Args:
        x: a tensor (or array).
        dtype: the dtype to read the bytes as; None keeps x's.

    Raises:
        ValueError: an unknown dtype, a scalar viewed as a dtype of another size, or a last
            axis whose bytes are not a multiple of the new item size.
        TypeError: a bool dtype on either side (a bool holds 0 or 1, not any byte).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.view(np.array([1, 2], np.int32), "float32").numpy().tolist()
        [1.401298464324817e-45, 2.802596928649634e-45]
        >>> pd.ops.view(np.array([1.0], np.float64), "int32").numpy().tolist()
        [0, 1072693248]
    """
    x = complex_tensor(x, "view")
    if dtype is None:
        return x
    try:
        name = dtypes.standardize_dtype(dtype)
    except ValueError:
        raise ValueError(at_user(f"view: expected a dtype (a name such as 'float32', or a "
                                 f"NumPy dtype), received {dtype!r}")) from None
    try:
        dtype = as_dtype(name, "view: dtype")
    except ValueError as e:
        raise ValueError(at_user(str(e))) from None
    return bitcast(x, dtype)


def view_as_real(x):
    """A complex tensor as a real one with a last axis of 2 (real part, imaginary part),
    as `keras.ops.view_as_real`: complex64 gives float32, complex128 float64. Real inputs
    are read as complex numbers with zero imaginary parts.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.view_as_real(np.array([1 + 2j, 3 + 4j], np.complex64)).numpy().tolist()
        [[1.0, 2.0], [3.0, 4.0]]
    """
    x = complex_tensor(x, "view_as_real")
    if x.dtype not in COMPLEX_DTYPES:
        (x,) = _float_operands("view_as_real", x)
        return stack([x, x * 0.0], axis=-1)
    # (..., n) complex -> (..., n, 1) -> the bitcast doubles the last axis: (..., n, 2)
    return bitcast(expand_dims(x, -1), COMPLEX_PARTS[x.dtype])


def view_as_complex(x):
    """A real tensor with a last axis of 2 (real part, imaginary part) as a complex one of
    shape x.shape[:-1], as `keras.ops.view_as_complex`: complex64 whatever x's dtype (Keras
    casts to complex64 on every backend; `view(x, "complex128")` keeps float64 pairs).

    Raises:
        ValueError: the last axis is not of size 2 (Keras's message).

    Example:
        >>> import numpy as np, paddle as pd
        >>> z = pd.ops.view_as_complex(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
        >>> z.dtype, z.shape, z.numpy().tolist()
        ('complex64', (2,), [(1+2j), (3+4j)])
    """
    x = complex_tensor(x, "view_as_complex")
    if x.dtype in COMPLEX_DTYPES or len(x.shape) < 1 or x.shape[-1] not in (2, None):
        what = f"dtype {x.dtype}" if x.dtype in COMPLEX_DTYPES else f"shape {x.shape}"
        raise ValueError(at_user(f"view_as_complex: last dimension of input must be size 2 "
                                 f"(real and imaginary) of a real tensor. Received {what}"))
    return pairs_as_complex(x if x.dtype == "float32" else cast(x, "float32"))


def pairs_as_complex(x):
    """A float32 (float64) tensor of shape (..., 2) as complex64 (complex128) of shape
    x.shape[:-1]: a bitcast, no copy."""
    return squeeze(bitcast(x, _COMPLEX_OF[x.dtype]), -1)


def polar(abs_, angle):
    """The complex numbers abs_ * (cos(angle) + i sin(angle)), as `keras.ops.polar` (torch's
    polar): float64 operands give complex128, other dtypes complex64.

    Example:
        >>> import numpy as np, paddle as pd
        >>> z = pd.ops.polar(np.array([2.0], np.float32), np.array([np.pi], np.float32))
        >>> z.dtype, pd.ops.real(z).numpy().tolist()
        ('complex64', [-2.0])
    """
    for name, value in (("abs_", abs_), ("angle", angle)):
        if is_complex(value):
            raise TypeError(at_user(f"polar: expected `{name}` as a real tensor, received "
                                    f"complex values"))
    r, t = _float_operands("polar", abs_, angle)
    return pairs_as_complex(stack([r * special.cos(t), r * special.sin(t)], axis=-1))


def real_part(x):
    """The real parts of a complex Variable (float32 or float64)."""
    return view_as_real(x)[..., 0]


def imag_part(x):
    """The imaginary parts of a complex Variable (float32 or float64)."""
    return view_as_real(x)[..., 1]


def conjugate(x):
    """The complex conjugates of a complex Variable: the pairs' second halves negated."""
    sign = np.array([1.0, -1.0], COMPLEX_PARTS[x.dtype])
    return pairs_as_complex(view_as_real(x) * sign)


def complex_angle(x):
    """The arguments of a complex Variable's values, in [-pi, pi]."""
    return special.arctan2(imag_part(x), real_part(x))


def abs(x):
    """The absolute value; of complex values, the modulus sqrt(re^2 + im^2), computed
    without overflow (float32 from complex64, float64 from complex128), as `keras.ops.abs`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.ops.abs(np.array([3 + 4j, -1j], np.complex64)).numpy().tolist()
        [5.0, 1.0]
        >>> pd.ops.abs(np.array([-2.5], np.float32)).numpy().tolist()
        [2.5]
    """
    if is_complex(x):
        x = complex_tensor(x, "abs")
        return special.hypot(real_part(x), imag_part(x))
    return _real_abs(x)


absolute = abs
