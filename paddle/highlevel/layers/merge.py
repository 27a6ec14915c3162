"""Merge layers: combine a list of Variables into one (Add, Multiply, Concatenate).

Example:
    >>> import paddle as pd
    >>> a, b = pd.layers.Input(shape=(4,)), pd.layers.Input(shape=(4,))
    >>> pd.layers.Add()([a, b]).shape, pd.layers.Concatenate()([a, b]).shape
    ((None, 4), (None, 8))
"""
from paddle.errors import ShapeError, at_user
from paddle.lowlevel.ops.shape import concat
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
    """Add / Multiply: inputs of one shape (None dims match anything), combined pairwise."""

    def build(self, input_shape):
        self._check_list(input_shape)
        first = input_shape[0]
        for shape in input_shape[1:]:
            if len(shape) != len(first) or any(
                    a is not None and b is not None and a != b for a, b in zip(first, shape)):
                raise ShapeError(at_user(f"{self.name}: expected inputs of one shape, "
                                         f"received shapes {input_shape}"))

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
