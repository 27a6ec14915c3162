"""Keras's `keras.config` (`pd.config`): global settings and switches.

`floatx` (the default float dtype of layers, inputs and initializers: "float32" or
"float64", paddle having no half precision), `epsilon` (read by losses, metrics and
constraints when built), `image_data_format`, the dtype policy, the traceback-filtering,
unsafe-deserialization and interactive-logging switches, and the caps on `fit`'s epochs and
steps. `backend()` is "paddle": Keras programs that test `backend() == "jax"` take their
other branch, as on any backend but JAX. The state lives in paddle/_settings.py.

Example:
    >>> import paddle as pd
    >>> pd.config.backend(), pd.config.floatx(), pd.config.epsilon()
    ('paddle', 'float32', 1e-07)
"""
from paddle.highlevel.dtype_policies import dtype_policy, set_dtype_policy  # noqa: F401
from paddle._settings import (  # noqa: F401
    disable_flash_attention, disable_interactive_logging, disable_traceback_filtering,
    enable_flash_attention, enable_interactive_logging, enable_traceback_filtering,
    enable_unsafe_deserialization, epsilon, floatx, image_data_format,
    is_flash_attention_enabled, is_interactive_logging_enabled,
    is_traceback_filtering_enabled, max_epochs, max_steps_per_epoch, set_epsilon, set_floatx,
    set_image_data_format, set_max_epochs, set_max_steps_per_epoch)

BACKEND = "paddle"


def backend():
    """The name of the backend running Keras's API: "paddle".

    Example:
        >>> import paddle as pd
        >>> pd.config.backend()
        'paddle'
    """
    return BACKEND


def set_backend(backend):
    """Keras's switch between its backends. paddle is its own one backend: "paddle" is
    accepted (nothing changes), any other name raises ValueError.

    Example:
        >>> import paddle as pd
        >>> pd.config.set_backend("paddle")
    """
    if backend != BACKEND:
        raise ValueError(f"set_backend: paddle runs on its own kernels only; expected "
                         f"'paddle', received {backend!r} (use Keras itself for "
                         f"{backend!r})")


def is_nnx_enabled():
    """Whether Flax NNX is enabled for Keras's JAX backend: always False in paddle.

    Example:
        >>> import paddle as pd
        >>> pd.config.is_nnx_enabled()
        False
    """
    return False
