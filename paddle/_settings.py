"""Global settings read across paddle, as Keras's `keras.config` holds them: the default float
dtype (`floatx`), the fuzz factor (`epsilon`), the image data format, and switches for
tracebacks, unsafe deserialization, interactive logging and training limits.

The state lives here, in a module that imports nothing of paddle, so that errors,
initializers, layers, losses, metrics, the training loop and saving all read the one
value; `pd.config` and `pd.backend` are Keras's names for these functions. Each setter checks its argument and raises ValueError saying
what it expected.

Example:
    >>> from paddle import _settings as config
    >>> config.epsilon()
    1e-07
    >>> config.set_epsilon(1e-5); config.epsilon()
    1e-05
    >>> config.set_epsilon(1e-7)
"""
import numbers
import os

FLOATX_CHOICES = ("float32", "float64")  # paddle computes in these float dtypes only
DATA_FORMATS = ("channels_last", "channels_first")

_state = {
    "floatx": "float32",
    "epsilon": 1e-7,
    "image_data_format": "channels_last",
    "traceback_filtering": True,
    "unsafe_deserialization": False,
    "interactive_logging": True,
    "flash_attention": None,  # None: automatic, as Keras (paddle has no flash kernel)
    "max_epochs": None,
    "max_steps_per_epoch": None,
}


def floatx():
    """The default float dtype, as a string: 'float32' unless `set_floatx` changed it.

    Layers without a `dtype` argument create their weights in it, `pd.Input` defaults to
    it, and initializers called without a dtype produce it.

    Example:
        >>> import paddle as pd
        >>> pd.config.floatx()
        'float32'
    """
    return _state["floatx"]


def set_floatx(value):
    """Set the default float dtype: 'float32' or 'float64'.

    Keras also accepts 'float16' and 'bfloat16'; paddle's default dtype (of inputs,
    constants, initializers) stays float32 or float64, and half precision comes through
    the dtype policies instead (`pd.mixed_precision.set_global_policy("mixed_float16")`
    or "float16"), so those raise ValueError saying so.

    Example:
        >>> import paddle as pd
        >>> pd.config.set_floatx("float64")
        >>> pd.layers.Dense(2).dtype
        'float64'
        >>> pd.config.set_floatx("float32")
    """
    name = getattr(value, "name", value)
    if name in ("float16", "bfloat16", "half"):
        raise ValueError(f"set_floatx: expected 'float32' or 'float64', received {value!r}: "
                         f"paddle's floatx is not a half type; for half precision set a "
                         f"dtype policy, pd.mixed_precision.set_global_policy("
                         f"'mixed_float16') (or 'float16', 'bfloat16', 'mixed_bfloat16')")
    if name not in FLOATX_CHOICES:
        raise ValueError(f"set_floatx: expected one of {', '.join(FLOATX_CHOICES)}, "
                         f"received {value!r}")
    _state["floatx"] = str(name)


def epsilon():
    """The fuzz factor added to denominators and used to clip probabilities (1e-7).

    Losses (`binary_crossentropy` and the others that clip), metrics (F-scores, IoU),
    constraints and `Normalization` read it when they are built, as Keras's do.

    Example:
        >>> import paddle as pd
        >>> pd.config.epsilon()
        1e-07
    """
    return _state["epsilon"]


def set_epsilon(value):
    """Set the fuzz factor (a float > 0).

    Example:
        >>> import paddle as pd
        >>> pd.config.set_epsilon(1e-5); pd.config.epsilon()
        1e-05
        >>> pd.config.set_epsilon(1e-7)
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise ValueError(f"set_epsilon: expected a float > 0, received {value!r}")
    _state["epsilon"] = float(value)


def image_data_format():
    """The default image data format: 'channels_last' (paddle's image layers compute in it).

    Example:
        >>> import paddle as pd
        >>> pd.config.image_data_format()
        'channels_last'
    """
    return _state["image_data_format"]


def set_image_data_format(data_format):
    """Set the default image data format, 'channels_last' or 'channels_first'.

    Layers taking `data_format=None` read it when they are built.

    Example:
        >>> import paddle as pd
        >>> pd.config.set_image_data_format("channels_last")
    """
    value = str(data_format).lower() if isinstance(data_format, str) else data_format
    if value not in DATA_FORMATS:
        raise ValueError(f"set_image_data_format: expected one of {', '.join(DATA_FORMATS)}, "
                         f"received {data_format!r}")
    _state["image_data_format"] = value


def standardize_data_format(data_format, where="data_format"):
    """`data_format`, or the global one when None; ValueError for anything else."""
    if data_format is None:
        return image_data_format()
    value = data_format.lower() if isinstance(data_format, str) else data_format
    if value not in DATA_FORMATS:
        raise ValueError(f"{where}: expected one of {', '.join(DATA_FORMATS)} or None, "
                         f"received {data_format!r}")
    return value


def _switch(key, value=True):
    _state[key] = value


def enable_traceback_filtering():
    """Show paddle's errors from the user's line (the default).

    Example:
        >>> import paddle as pd
        >>> pd.config.enable_traceback_filtering()
        >>> pd.config.is_traceback_filtering_enabled()
        True
    """
    _switch("traceback_filtering", True)


def disable_traceback_filtering():
    """Show paddle's own line in the messages of its errors too (for debugging paddle
    itself): an error that names the user's line ('(at train.py:14)') adds the line of
    paddle that raised it ('(at train.py:14; in paddle/highlevel/layers/base.py:167)').

    Example:
        >>> import paddle as pd
        >>> pd.config.disable_traceback_filtering()
        >>> pd.config.is_traceback_filtering_enabled()
        False
        >>> pd.config.enable_traceback_filtering()
    """
    _switch("traceback_filtering", False)


def is_traceback_filtering_enabled():
    """Whether errors are located at the user's line only (True by default).

    Example:
        >>> import paddle as pd
        >>> pd.config.is_traceback_filtering_enabled()
        True
    """
    return _state["traceback_filtering"]


def enable_unsafe_deserialization():
    """Let `pd.load_model` load files holding Python bytecode (a `Lambda` layer's function)
    without `safe_mode=False`: only for files you trust, as in Keras.

    Example:
        >>> import paddle as pd
        >>> from paddle import _settings as config
        >>> pd.config.enable_unsafe_deserialization()
        >>> config.safe_mode_default()
        False
        >>> config._state["unsafe_deserialization"] = False  # back to safe, for the others
    """
    _switch("unsafe_deserialization", True)


def safe_mode_default():
    """What `load_model(safe_mode=None)` means: safe unless unsafe deserialization is on."""
    return not _state["unsafe_deserialization"]


def enable_interactive_logging():
    """Progress bars and messages go to the terminal (the default).

    Example:
        >>> import paddle as pd
        >>> pd.config.enable_interactive_logging()
        >>> pd.config.is_interactive_logging_enabled()
        True
    """
    _switch("interactive_logging", True)


def disable_interactive_logging():
    """Progress and callbacks' messages go to Python's `logging` (logger "paddle", level
    INFO) instead of the terminal, and no live bar is drawn, as Keras sends them to absl
    logging.

    Example:
        >>> import paddle as pd
        >>> pd.config.disable_interactive_logging()
        >>> pd.config.is_interactive_logging_enabled()
        False
        >>> pd.config.enable_interactive_logging()
    """
    _switch("interactive_logging", False)


def is_interactive_logging_enabled():
    """Whether progress is written to the terminal (True by default).

    Example:
        >>> import paddle as pd
        >>> pd.config.is_interactive_logging_enabled()
        True
    """
    return _state["interactive_logging"]


def disable_flash_attention():
    """Record that attention must not use flash attention. paddle has no flash-attention
    kernel, so attention computes the same either way.

    Example:
        >>> import paddle as pd
        >>> pd.config.disable_flash_attention(); pd.config.is_flash_attention_enabled()
        False
    """
    _switch("flash_attention", False)


def enable_flash_attention():
    """Let attention use flash attention where it can, as Keras's: the setting goes back to
    None (automatic, the default). As Keras on a CPU backend, automatic means the plain
    softmax(q k^T) v path (paddle has no flash-attention kernel); an explicit
    `flash_attention=True` still raises.

    Example:
        >>> import paddle as pd
        >>> pd.config.disable_flash_attention()
        >>> pd.config.enable_flash_attention(); pd.config.is_flash_attention_enabled() is None
        True
    """
    _switch("flash_attention", None)


def is_flash_attention_enabled():
    """None (automatic, the default) or False after `disable_flash_attention`: paddle never
    uses flash attention.

    Example:
        >>> import paddle as pd
        >>> pd.config.is_flash_attention_enabled() in (None, False)
        True
    """
    return _state["flash_attention"]


def _limit(value, where):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{where}: expected an integer >= 1 or None, received {value!r}")
    return int(value)


def max_epochs():
    """The cap on `fit`'s epochs (None: no cap; $KERAS_MAX_EPOCHS sets it too, as Keras).

    Example:
        >>> import paddle as pd
        >>> pd.config.max_epochs() is None or pd.config.max_epochs() >= 1
        True
    """
    if _state["max_epochs"] is not None:
        return _state["max_epochs"]
    env = os.environ.get("KERAS_MAX_EPOCHS")
    return int(env) if env else None


def set_max_epochs(max_epochs):
    """Cap the number of epochs `fit` runs, whatever its `epochs` (None: no cap); for quick
    runs of long programs, as Keras.

    Example:
        >>> import paddle as pd
        >>> pd.config.set_max_epochs(2); pd.config.max_epochs()
        2
        >>> pd.config.set_max_epochs(None)
    """
    _state["max_epochs"] = _limit(max_epochs, "set_max_epochs")


def max_steps_per_epoch():
    """The cap on `fit`'s steps per epoch (None: no cap; $KERAS_MAX_STEPS_PER_EPOCH too).

    Example:
        >>> import paddle as pd
        >>> pd.config.max_steps_per_epoch() is None or pd.config.max_steps_per_epoch() >= 1
        True
    """
    if _state["max_steps_per_epoch"] is not None:
        return _state["max_steps_per_epoch"]
    env = os.environ.get("KERAS_MAX_STEPS_PER_EPOCH")
    return int(env) if env else None


def set_max_steps_per_epoch(max_steps_per_epoch):
    """Cap the number of steps of each epoch of `fit` (None: no cap), as Keras.

    Example:
        >>> import paddle as pd
        >>> pd.config.set_max_steps_per_epoch(3); pd.config.max_steps_per_epoch()
        3
        >>> pd.config.set_max_steps_per_epoch(None)
    """
    _state["max_steps_per_epoch"] = _limit(max_steps_per_epoch, "set_max_steps_per_epoch")
