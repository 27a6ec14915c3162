"""SpectralNormalization: a wrapper dividing its layer's kernel by the kernel's largest
singular value in training, estimated by power iteration (Miyato et al., 2018), as
Keras's `keras.layers.SpectralNormalization`.

Example:
    >>> import numpy as np, paddle as pd
    >>> layer = pd.layers.SpectralNormalization(pd.layers.Dense(3))
    >>> layer(np.ones((2, 4), np.float32)).shape, [w.name.split("/")[-1] for w in layer.weights]
    ((2, 3), ['kernel', 'vector_u', 'bias'])
"""
import numbers

from paddle import _settings as settings
from paddle.errors import at_user
from paddle.lowlevel import eager, initializers
from paddle.lowlevel.ops.control_flow import stop_gradient
from paddle.lowlevel.ops.math import cast, equal, minimum, sqrt, square, where
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import min as reduce_min
from paddle.lowlevel.ops.reduce import sum as reduce_sum
from paddle.lowlevel.ops.shape import reshape
from paddle.lowlevel.ops.state import assign
from paddle.highlevel.layers import state_updates
from paddle.highlevel.layers.base import InputSpec
from paddle.highlevel.layers.wrappers import Wrapper


def _normalize(x):
    """Keras's L2 `normalize(x, axis=None)`: x * min(rsqrt(sum(x^2)), 1 / epsilon)."""
    return x * minimum(1.0 / sqrt(reduce_sum(square(x))), 1.0 / settings.epsilon())


class SpectralNormalization(Wrapper):
    """Spectral normalization of the kernel (or embeddings) of `layer`.

    In a training call the layer runs with kernel / sigma, sigma the largest singular
    value of the kernel (as a (-1, out) matrix) estimated with `power_iterations` steps
    from the non-trainable "vector_u", which the step then stores (an all-zero kernel is
    left as it is). Outside training the layer runs with its kernel unchanged. As Keras's
    JAX trainer, the stored kernel itself is not overwritten with its normalized value.

    Args:
        layer: a layer with a `kernel` or `embeddings` weight (Dense, Conv2D, ...).
        power_iterations: iterations per training call (>= 1).

    Raises:
        ValueError: power_iterations < 1; a layer without kernel or embeddings (when built).

    Example:
        >>> import numpy as np, paddle as pd
        >>> sn = pd.layers.SpectralNormalization(pd.layers.Dense(2), power_iterations=2)
        >>> sn(np.ones((1, 3), np.float32), training=True).shape
        (1, 2)
    """

    branches_on_training = True  # training and inference run different graphs

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if not isinstance(power_iterations, numbers.Integral) or \
                isinstance(power_iterations, bool) or power_iterations <= 0:
            raise ValueError(f"SpectralNormalization: expected power_iterations as an integer "
                             f"> 0, received {power_iterations!r}")
        self.power_iterations = int(power_iterations)

    def build(self, input_shape):
        if not self.layer.built:
            self.layer.build(input_shape)
        self.input_spec = InputSpec(min_ndim=1, axes={-1: input_shape[-1]})
        name = "kernel" if getattr(self.layer, "kernel", None) is not None else \
            "embeddings" if getattr(self.layer, "embeddings", None) is not None else None
        if name is None:
            raise ValueError(at_user(f"{self.name}: {type(self.layer).__name__} object has "
                                     f"no attribute 'kernel' nor 'embeddings'"))
        self._kernel_name = name
        kernel = getattr(self.layer, name)
        # Keras's wrapper holds the kernel as a weight of its own too: its weights are
        # kernel, vector_u, then the layer's others, and its file has the kernel twice.
        self._weights.append(kernel)
        self.vector_u = self.add_weight("vector_u", (1, kernel.shape[-1]),
                                        initializers.TruncatedNormal(stddev=0.02),
                                        trainable=False)

    def normalized_weights(self, kernel):
        """(new vector_u, kernel / sigma), as Keras's `normalized_weights`."""
        weights = reshape(kernel, (-1, kernel.shape[-1]))
        u = self.vector_u
        for _ in range(self.power_iterations):
            v = _normalize(matmul(u, weights, transpose_b=True))
            u = _normalize(matmul(v, weights))
        u, v = stop_gradient(u), stop_gradient(v)
        sigma = matmul(matmul(v, weights), u, transpose_b=True)       # (1, 1)
        zero = equal(reduce_min(cast(equal(kernel, 0.0), kernel.dtype)), 1.0)  # all zeros
        new_u = where(zero, self.vector_u, u)
        sigma = where(zero, 1.0, reshape(sigma, ()))
        return new_u, kernel / sigma

    def call(self, inputs, training=False):
        if not training:
            return self.layer(inputs)
        kernel = getattr(self.layer, self._kernel_name)
        new_u, normalized = self.normalized_weights(kernel)
        # The layer reads its kernel attribute: it sees the normalized one for this call.
        setattr(self.layer, self._kernel_name, normalized)
        try:
            output = self.layer(inputs, training=training)
        finally:
            setattr(self.layer, self._kernel_name, kernel)
        if eager.is_concrete(new_u):
            self.vector_u.assign(new_u)
        else:
            state_updates.attach([output], [assign(self.vector_u, new_u)])
        return output

    def get_config(self):
        return {**super().get_config(), "power_iterations": self.power_iterations}

