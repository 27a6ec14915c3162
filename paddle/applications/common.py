"""What the model constructors ported from Keras (`keras/src/applications/*.py`) call where
Keras calls its backend and file utilities: the checks and file handling of
`imagenet_utils`, under the names and signatures of Keras's call sites, so the ported
architectures read as Keras's.

Example:
    >>> from paddle.applications import common
    >>> common.obtain_input_shape(None, default_size=224, min_size=32,
    ...                           data_format="channels_last", require_flatten=False)
    (None, None, 3)
"""
import contextlib
import itertools
import os

from paddle.applications import imagenet_utils

from paddle.lowlevel.graph import Variable
from paddle.utils.graph_utils import get_source_inputs  # noqa: F401  (Keras: operation_utils)

WHO = "pd.applications"
_UIDS = {}


def backend():
    """The backend's name, as `keras.backend.backend()`."""
    return "paddle"


def is_keras_tensor(x):
    """Whether `x` is symbolic (a Variable of the graph): Keras's KerasTensor test."""
    return isinstance(x, Variable)


def get_uid(prefix=""):
    """1, 2, 3, ... for each `prefix` (unique layer-name suffixes, as Keras's)."""
    counter = _UIDS.setdefault(prefix, itertools.count(1))
    return next(counter)


def name_scope(name):
    """Keras groups a block's ops under a name scope; paddle's layers carry their own
    names, so the scope adds nothing here."""
    return contextlib.nullcontext()


def exists(path):
    return isinstance(path, (str, os.PathLike)) and os.path.exists(path)


def obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten,
                       weights=None):
    """Keras's `imagenet_utils.obtain_input_shape` (channels_last only)."""
    if data_format not in (None, "channels_last"):
        raise ValueError(f"{WHO}: paddle builds channels_last images only, received "
                         f"data_format={data_format!r}")
    return imagenet_utils.obtain_input_shape(WHO, input_shape, default_size, min_size,
                                             require_flatten, weights)


def validate_activation(classifier_activation, weights):
    imagenet_utils.validate_activation(WHO, classifier_activation, weights)


def get_file(fname, origin, cache_subdir="models", file_hash=None, **kwargs):
    """Keras's cached weights file `fname`, downloaded from `origin` when missing and
    checked against Keras's hash: `imagenet_utils.cached_file`."""
    if cache_subdir != "models":
        raise ValueError(f"{WHO}: weights are read from Keras's 'models' cache folder, "
                         f"received cache_subdir={cache_subdir!r}")
    return imagenet_utils.cached_file(WHO, fname, origin, file_hash)


def load_weights(model, path):
    """Load a weights file into a ported model (Keras's legacy files matched by layer
    name): `imagenet_utils.load_weights`."""
    return imagenet_utils.load_weights(model, WHO, path)
