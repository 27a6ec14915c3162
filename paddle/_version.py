"""paddle's version, in a module of its own so the files that record it (saved models)
import it without importing the whole package."""
__version__ = "0.1.0"


def version():
    """paddle's version, as Keras's `keras.version()` gives Keras's.

    Example:
        >>> import paddle as pd
        >>> pd.version() == pd.__version__
        True
    """
    return __version__
