"""Merge layers: combine a list of Variables into one (Add, Subtract, Multiply, Average,
Maximum, Minimum, Concatenate, Dot), and Keras's functional forms (`add([a, b])`, ...).

Example:
    >>> import paddle as pd
    >>> a, b = pd.layers.Input(shape=(4,)), pd.layers.Input(shape=(4,))
    >>> pd.layers.Add()([a, b]).shape, pd.layers.Concatenate()([a, b]).shape
    ((None, 4), (None, 8))
    >>> pd.layers.concatenate([a, b]).shape, pd.layers.dot([a, b], axes=1).shape
    ((None, 8), (None, 1))
"""
import numbers

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.ops import math as ops_math
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import sum as reduce_sum
from paddle.lowlevel.ops.shape import concat, transpose
from paddle.highlevel.layers.base import Layer


class _Merge(Layer):
    """Base of the merge layers: checks it got a list of at least two inputs."""

    def _check_list(self, input_shape):
        if not isinstance(input_shape, list) or len(input_shape) < 2:
            got = f"{len(input_shape)} input" if isinstance(input_shape, list) else \
                f"a single input of shape {input_shape}"
            raise ValueError(at_user(f"{self.name}: expected a list of at least 2 inputs, "
                                     f"received {got}"))

    def call(self, inputs, training=False):
        # Checked on every call, not only in build: a Variable is indexable, so a single
        # input would otherwise be taken apart along its batch axis.
        if not isinstance(inputs, (list, tuple)):
            self._check_list(inputs.shape)
        return self._merge(list(inputs))


class _Elementwise(_Merge):
    """Add / Multiply: inputs of one rank whose sizes agree or are 1 on each axis (None
    matches anything), broadcast as Keras 3's merge layers do (a squeeze-and-excitation
    block multiplies (N, H, W, C) by (N, 1, 1, C)), combined pairwise."""

    def build(self, input_shape):
        self._check_list(input_shape)
        first = input_shape[0]
        for shape in input_shape[1:]:
            if len(shape) != len(first) or any(
                    a is not None and b is not None and a != b and 1 not in (a, b)
                    for a, b in zip(first, shape)):
                raise ShapeError(at_user(f"{self.name}: expected inputs of one rank whose "
                                         f"sizes agree or are 1 on each axis, received "
                                         f"shapes {input_shape}"))

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = self._combine(out, x)
        return out


class Add(_Elementwise):
    """The sum of a list of inputs of one shape.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.Add()([np.ones((2, 3), np.float32)] * 2)[0].tolist()
        [2.0, 2.0, 2.0]
    """

    @staticmethod
    def _combine(a, b):
        return a + b


class Multiply(_Elementwise):
    """The elementwise product of a list of inputs of one shape.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.Multiply()([np.full((1, 2), 3, np.float32)] * 2).tolist()
        [[9.0, 9.0]]
    """

    @staticmethod
    def _combine(a, b):
        return a * b


class Concatenate(_Merge):
    """Joins a list of inputs along `axis` (the other axes must agree).

    Args:
        axis: the axis to join along (default -1, the features); not the batch axis.

    Example:
        >>> import paddle as pd
        >>> a, b = pd.layers.Input(shape=(2, 3)), pd.layers.Input(shape=(2, 5))
        >>> pd.layers.Concatenate(axis=-1)([a, b]).shape
        (None, 2, 8)
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise ValueError(f"Concatenate: expected an integer axis, received {axis!r}")
        self.axis = axis

    def build(self, input_shape):
        self._check_list(input_shape)
        rank = len(input_shape[0])
        if not -rank <= self.axis < rank or self.axis % rank == 0:
            raise ShapeError(at_user(f"{self.name}: axis {self.axis} is not a non-batch axis "
                                     f"of inputs of rank {rank}"))
        a = self.axis % rank
        for shape in input_shape:
            if len(shape) != rank or any(
                    p is not None and q is not None and p != q
                    for i, (p, q) in enumerate(zip(shape, input_shape[0])) if i != a):
                raise ShapeError(at_user(f"{self.name}: expected inputs that agree on every "
                                         f"axis but {self.axis}, received shapes {input_shape}"))

    def _merge(self, inputs):
        return concat(inputs, axis=self.axis)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class Subtract(_Elementwise):
    """The difference of exactly two inputs of one shape: inputs[0] - inputs[1].

    Example:
        >>> import numpy as np, paddle as pd
        >>> a, b = np.full((1, 2), 5, np.float32), np.ones((1, 2), np.float32)
        >>> pd.layers.Subtract()([a, b]).tolist()
        [[4.0, 4.0]]
    """

    def build(self, input_shape):
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError(at_user(f"{self.name}: expected exactly 2 inputs, received "
                                     f"{len(input_shape)}"))

    @staticmethod
    def _combine(a, b):
        return a - b


class Average(_Elementwise):
    """The elementwise mean of a list of inputs of one shape.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.layers.Average()([np.zeros((1, 2), np.float32), np.ones((1, 2), np.float32)]).tolist()
        [[0.5, 0.5]]
    """

    def _merge(self, inputs):
        return super()._merge(inputs) * (1.0 / len(inputs))

    @staticmethod
    def _combine(a, b):
        return a + b


class Maximum(_Elementwise):
    """The elementwise maximum of a list of inputs of one shape."""

    @staticmethod
    def _combine(a, b):
        return ops_math.maximum(a, b)


class Minimum(_Elementwise):
    """The elementwise minimum of a list of inputs of one shape."""

    @staticmethod
    def _combine(a, b):
        return ops_math.minimum(a, b)


class Dot(_Merge):
    """Dot products of two inputs along `axes`, example by example (Keras's batch_dot), for
    inputs of rank 2 or 3.

    (batch, d) with (batch, d) gives (batch, 1); (batch, n, d) with (batch, m, d) and
    axes=2 gives (batch, n, m); (batch, d, n) with (batch, d, m) and axes=1 gives
    (batch, n, m).

    Args:
        axes: one axis for both inputs, or (axis of the first, axis of the second); not 0.
        normalize: L2-normalize both inputs along their axes first (cosine similarities).

    Example:
        >>> import numpy as np, paddle as pd
        >>> a = np.array([[1.0, 2.0]], np.float32); b = np.array([[3.0, 4.0]], np.float32)
        >>> pd.layers.Dot(axes=1)([a, b]).tolist()
        [[11.0]]
    """

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        pair = (axes, axes) if isinstance(axes, numbers.Integral) else axes
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not all(
                isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in pair):
            raise ValueError(f"Dot: expected axes as an int or a pair of ints, received "
                             f"{axes!r}")
        self.axes = axes if isinstance(axes, numbers.Integral) else list(axes)
        self._pair = tuple(int(a) for a in pair)
        if not isinstance(normalize, bool):
            raise ValueError(f"Dot: expected normalize to be True or False, received "
                             f"{normalize!r}")
        self.normalize = normalize

    def build(self, input_shape):
        self._check_list(input_shape)
        if len(input_shape) != 2:
            raise ValueError(at_user(f"{self.name}: expected exactly 2 inputs, received "
                                     f"{len(input_shape)}"))
        a, b = input_shape
        if len(a) not in (2, 3) or len(b) not in (2, 3) or len(a) != len(b):
            raise ShapeError(at_user(f"{self.name}: expected two inputs of rank 2 or two of "
                                     f"rank 3, received shapes {a} and {b}"))
        axes = [ax % len(s) if -len(s) <= ax < len(s) else None
                for ax, s in zip(self._pair, (a, b))]
        if None in axes or 0 in axes:
            raise ShapeError(at_user(f"{self.name}: axes {self.axes} are not non-batch axes of "
                                     f"inputs of shapes {a} and {b}"))
        da, db = a[axes[0]], b[axes[1]]
        if da is not None and db is not None and da != db:
            raise ShapeError(at_user(f"{self.name}: the dot axes differ in size: {da} (axis "
                                     f"{axes[0]} of {a}) and {db} (axis {axes[1]} of {b})"))
        self._axes = axes

    def _merge(self, inputs):
        x, y = inputs
        ax, ay = self._axes
        if self.normalize:
            x, y = _l2_normalize(x, ax), _l2_normalize(y, ay)
        if x.ndim == 2:
            return reduce_sum(x * y, axis=1, keepdims=True)
        x = x if ax == 2 else transpose(x, (0, 2, 1))  # (batch, n, d)
        y = y if ay == 1 else transpose(y, (0, 2, 1))  # (batch, d, m)
        return matmul(x, y)

    def get_config(self):
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def _l2_normalize(x, axis):
    norm_sq = reduce_sum(x * x, axis=axis, keepdims=True)
    return x / ops_math.sqrt(ops_math.maximum(norm_sq, 1e-12))


def _functional(cls, doc_name):
    def merge(inputs, **kwargs):
        return cls(**kwargs)(inputs)
    merge.__name__ = merge.__qualname__ = doc_name
    merge.__doc__ = (f"`pd.layers.{cls.__name__}(**kwargs)(inputs)`, Keras's functional form "
                     f"of the {cls.__name__} layer.")
    return merge


add = _functional(Add, "add")
subtract = _functional(Subtract, "subtract")
multiply = _functional(Multiply, "multiply")
average = _functional(Average, "average")
maximum = _functional(Maximum, "maximum")
minimum = _functional(Minimum, "minimum")


def concatenate(inputs, axis=-1, **kwargs):
    """`pd.layers.Concatenate(axis, **kwargs)(inputs)`, Keras's functional form.

    Example:
        >>> import paddle as pd
        >>> a, b = pd.layers.Input(shape=(2, 3)), pd.layers.Input(shape=(2, 5))
        >>> pd.layers.concatenate([a, b]).shape
        (None, 2, 8)
    """
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs, axes=-1, normalize=False, **kwargs):
    """`pd.layers.Dot(axes, normalize, **kwargs)(inputs)`, Keras's functional form.

    Example:
        >>> import paddle as pd
        >>> a, b = pd.layers.Input(shape=(5, 4)), pd.layers.Input(shape=(7, 4))
        >>> pd.layers.dot([a, b], axes=2).shape
        (None, 5, 7)
    """
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
