"""What the ImageNet models share, as Keras's `keras.applications.imagenet_utils`: input
preprocessing, decoding predictions, the checks of the model constructors, and finding
weights files.

Where Keras fetches a file (ImageNet weights, the class index of `decode_predictions`),
paddle reads it from Keras's cache folder (`$KERAS_HOME/models/`, by default
`~/.keras/models/`), where Keras itself leaves it, or downloads it there from Keras's
address as the data sets do (deadline, size cap), and checks it with Keras's hash; a file
that is neither there nor downloadable is a `pd.CheckpointError` naming the file, where it
comes from and where to put it.
"""
import hashlib
import json
import os
import re
import warnings

import numpy as np

from paddle.dataset.common import DatasetError, fetch_file
from paddle.dataset.keras_files import keras_home
from paddle.errors import CheckpointError
from paddle.highlevel import activations
from paddle.highlevel.layers.base import Input
from paddle.highlevel.saving.api import is_keras3_file
from paddle.highlevel.saving.hdf5_file import open_checkpoint
from paddle.lowlevel.graph import Variable
from paddle.utils.graph_utils import get_source_inputs

CLASS_INDEX_FILE = "imagenet_class_index.json"
CLASS_INDEX_URL = ("https://storage.googleapis.com/download.tensorflow.org/data/"
                   "imagenet_class_index.json")
CLASS_INDEX_HASH = "c2c37ea517e94d9795004a39431a14cb"  # md5, as Keras checks it
_class_index = None

_MEANS = {"caffe": (103.939, 116.779, 123.68), "torch": (0.485, 0.456, 0.406)}
_STDS = {"torch": (0.229, 0.224, 0.225)}


def preprocess_input(x, data_format=None, mode="caffe"):
    """Preprocess a batch of images (values in [0, 255]) as Keras's ImageNet models expect.

    Args:
        x: a NumPy array or a symbolic Variable, 3D or 4D, with 3 colour channels. A
            floating-point NumPy array is written over, as in Keras (pass `np.copy(x)` to
            keep it); other NumPy arrays are converted to float32 first.
        data_format: "channels_last" (the default, as Keras's) or "channels_first".
        mode: "caffe" (RGB to BGR, then the ImageNet mean pixel subtracted, no scaling),
            "tf" (scaled to [-1, 1]) or "torch" (scaled to [0, 1], then each channel
            normalized with ImageNet's mean and standard deviation).

    Returns:
        The preprocessed array (or Variable).

    Raises:
        ValueError: an unknown mode or data_format, or an input without 3 channels.

    Example:
        >>> import numpy as np
        >>> import paddle as pd
        >>> x = np.full((1, 2, 2, 3), 255.0, dtype="float32")
        >>> pd.applications.imagenet_utils.preprocess_input(x, mode="tf")[0, 0, 0]
        array([1., 1., 1.], dtype=float32)
    """
    if mode not in ("caffe", "tf", "torch"):
        raise ValueError(f"preprocess_input: expected mode 'caffe', 'tf' or 'torch', "
                         f"received mode={mode!r}")
    data_format = _data_format(data_format, "preprocess_input")
    if isinstance(x, Variable):
        return _preprocess_variable(x, data_format, mode)
    if not isinstance(x, np.ndarray):
        raise TypeError(f"preprocess_input: expected a NumPy array or a Variable of images, "
                        f"received {type(x).__name__}")
    axis = _channel_axis(x.shape, data_format)
    if not np.issubdtype(x.dtype, np.floating):
        x = x.astype("float32")
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
    else:  # caffe: a reversed view, so the channels of the array passed in change too
        x = np.flip(x, axis)
    shape = [1] * x.ndim
    shape[axis] = 3
    x -= np.asarray(_MEANS[mode], x.dtype).reshape(shape)
    if mode in _STDS:
        x /= np.asarray(_STDS[mode], x.dtype).reshape(shape)
    return x


def _preprocess_variable(x, data_format, mode):
    from paddle import ops  # pd.ops sits above the applications' floor (it re-exports them)
    axis = _channel_axis(x.shape, data_format)
    if mode == "tf":
        return x / 127.5 - 1.0
    if mode == "torch":
        x = x / 255.0
    else:
        x = ops.concatenate(ops.split(x, 3, axis=axis)[::-1], axis=axis)  # RGB to BGR
    shape = [1] * len(x.shape)
    shape[axis] = 3
    x = x - np.asarray(_MEANS[mode], "float32").reshape(shape)
    if mode in _STDS:
        x = x / np.asarray(_STDS[mode], "float32").reshape(shape)
    return x


def _data_format(data_format, who):
    if data_format is None:
        return "channels_last"
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"{who}: expected data_format 'channels_first' or 'channels_last', "
                         f"received data_format={data_format!r}")
    return data_format


def _channel_axis(shape, data_format):
    if len(shape) not in (3, 4):
        raise ValueError(f"preprocess_input: expected an image (3D) or a batch of images "
                         f"(4D), received shape {tuple(shape)}")
    axis = len(shape) - 3 if data_format == "channels_first" else len(shape) - 1
    if shape[axis] != 3:
        raise ValueError(f"preprocess_input: expected 3 colour channels on axis {axis} "
                         f"({data_format}), received shape {tuple(shape)}")
    return axis


def decode_predictions(preds, top=5):
    """The `top` ImageNet classes of each prediction, as Keras's `decode_predictions`.

    Args:
        preds: a NumPy array of shape (samples, 1000), an ImageNet model's predictions.
        top: how many classes to return for each sample.

    Returns:
        One list per sample of `(class_name, class_description, score)` tuples, best first.

    Raises:
        ValueError: `preds` is not of shape (samples, 1000), or `top` is not a positive
            integer.
        pd.CheckpointError: the class index (`imagenet_class_index.json`) is neither in
            Keras's cache folder (`$KERAS_HOME/models/`, by default `~/.keras/models/`)
            nor downloadable from Keras's address.
    """
    global _class_index
    preds = np.asarray(preds)
    if preds.ndim != 2 or preds.shape[1] != 1000:
        raise ValueError(f"decode_predictions: expected a batch of predictions, a 2D array "
                         f"of shape (samples, 1000), received shape {preds.shape}")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"decode_predictions: expected top to be a positive integer, "
                         f"received {top!r}")
    if _class_index is None:
        path = cached_file("decode_predictions", CLASS_INDEX_FILE, CLASS_INDEX_URL,
                           CLASS_INDEX_HASH, hint="")
        with open(path) as f:
            _class_index = json.load(f)
    results = []
    for pred in preds:
        best = np.argsort(pred, kind="stable")[::-1][:top]
        results.append([tuple(_class_index[str(i)]) + (pred[i],) for i in best])
    return results


# ---- finding files where Keras caches them ----------------------------------------------

def keras_cache_dir():
    """Keras's cache folder for models: `$KERAS_HOME/models`, else `~/.keras/models`."""
    return os.path.join(keras_home(), "models")


WEIGHTS_HINT = ("or pass the path of a weights file as weights=..., or use weights=None "
                "(random initialization)")


def cached_file(who, fname, origin, file_hash=None, hint=WEIGHTS_HINT):
    """The path of `fname` in Keras's cache, downloaded there from `origin` first when it
    is missing (through the data sets' guarded download: deadline, size cap, Keras's hash
    checked before the file takes its name), checked against Keras's `file_hash` (md5, or
    SHA-256 when 64 digits long, as Keras's `get_file` tells them).

    Raises:
        pd.CheckpointError: the file is missing and could not be downloaded (the message
            says where to put it), or its hash differs from the one Keras checks (an
            incomplete or different file).
    """
    path = os.path.join(keras_cache_dir(), fname)
    sha256 = file_hash if file_hash is not None and len(file_hash) == 64 else None
    md5 = file_hash if file_hash is not None and sha256 is None else None
    if not os.path.isfile(path):
        try:
            fetch_file(path, [origin], sha256=sha256, md5=md5, what=who)
        except DatasetError as e:
            raise CheckpointError(
                f"{who}: needs {fname}, which could not be downloaded from {origin} ({e}). "
                f"Put the file at {path} (Keras's cache: KERAS_HOME, else ~/.keras, where "
                f"Keras leaves it){', ' + hint if hint else ''}") from None
    digest = _sha256(path) if sha256 else _md5(path)
    if file_hash is not None and digest != file_hash:
        raise CheckpointError(f"{who}: {path} is not the file Keras downloads from {origin}: "
                              f"its {'sha256' if sha256 else 'md5'} is {digest}, expected "
                              f"{file_hash} (an incomplete or different file)")
    return path


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _md5(path):
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ---- what every model constructor checks ------------------------------------------------

def check_weights(who, weights, include_top, classes):
    """Keras's checks of `weights` and `classes`: None, "imagenet" or an existing file."""
    path_like = isinstance(weights, (str, os.PathLike)) and weights != "imagenet"
    if not (weights is None or weights == "imagenet" or
            (path_like and os.path.isfile(weights))):
        raise ValueError(f"{who}: expected weights to be None (random initialization), "
                         f"'imagenet' (pre-training on ImageNet) or the path of a weights "
                         f"file to load, received weights={weights!r}")
    if isinstance(classes, bool) or not isinstance(classes, (int, np.integer)) or classes < 1:
        raise ValueError(f"{who}: expected classes to be a positive integer, received "
                         f"classes={classes!r}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(f"{who}: with weights='imagenet' and include_top=True, classes "
                         f"must be 1000, received classes={classes}")


def check_pooling(who, pooling):
    if pooling not in (None, "avg", "max"):
        raise ValueError(f"{who}: expected pooling None, 'avg' or 'max', received "
                         f"pooling={pooling!r}")


def obtain_input_shape(who, input_shape, default_size, min_size, require_flatten,
                       weights=None):
    """The model's input shape (channels_last), from `input_shape` or the defaults, with
    Keras's checks (`imagenet_utils.obtain_input_shape`)."""
    if input_shape is not None:
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) != 3 or not all(
                d is None or (isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                              and d > 0) for d in input_shape):
            raise ValueError(f"{who}: expected input_shape to be a tuple of three positive "
                             f"integers (height, width, channels), received "
                             f"input_shape={input_shape!r}")
        input_shape = tuple(input_shape)
    if weights != "imagenet" and input_shape:
        if input_shape[-1] not in (1, 3):
            warnings.warn(f"{who}: this model usually expects 1 or 3 input channels, "
                          f"received input_shape={input_shape}", stacklevel=3)
        default_shape = (default_size, default_size, input_shape[-1])
    else:
        default_shape = (default_size, default_size, 3)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and input_shape != default_shape:
            raise ValueError(f"{who}: with include_top=True and weights='imagenet', "
                             f"input_shape must be {default_shape}, received "
                             f"input_shape={input_shape}")
        return default_shape
    if input_shape:
        if input_shape[-1] != 3 and weights == "imagenet":
            raise ValueError(f"{who}: ImageNet weights need 3 input channels, received "
                             f"input_shape={input_shape}")
        if any(d is not None and d < min_size for d in input_shape[:2]):
            raise ValueError(f"{who}: the input must be at least {min_size}x{min_size}, "
                             f"received input_shape={input_shape}")
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(f"{who}: with include_top=True the input_shape must be static, "
                         f"received input_shape={input_shape}")
    return input_shape


def image_input(who, input_tensor, input_shape):
    """(the Variable the network starts from, the model's inputs). `input_tensor` is a
    symbolic Variable (a `pd.Input`, or ops and layers on Inputs): the model's inputs are
    then the Inputs it comes from, as Keras's `get_source_inputs`."""
    if input_tensor is None:
        x = Input(shape=input_shape)
        return x, x
    if not isinstance(input_tensor, Variable):
        raise TypeError(f"{who}: expected input_tensor to be a symbolic Variable (the "
                        f"output of pd.Input or of layers on it), received "
                        f"{type(input_tensor).__name__}; paddle has no Keras "
                        f"Input(tensor=...): pass input_shape instead")
    if len(input_tensor.shape) != 4:
        raise ValueError(f"{who}: expected input_tensor to be a batch of images (rank 4), "
                         f"received shape {input_tensor.shape}")
    sources = get_source_inputs(input_tensor)
    return input_tensor, sources[0] if len(sources) == 1 else sources


def correct_pad(inputs, kernel_size):
    """((top, bottom), (left, right)) zero padding before a strided "valid" convolution,
    as Keras's `correct_pad` (channels_last)."""
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    size = inputs.shape[1:3]
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def validate_activation(who, classifier_activation, weights):
    """With pretrained weights only None and softmax fit the top layer (as Keras)."""
    fn = activations.get(classifier_activation)
    if weights is not None and fn not in (activations.get("softmax"), activations.get(None)):
        raise ValueError(f"{who}: with pretrained weights, classifier_activation must be None "
                         f"or 'softmax', received "
                         f"classifier_activation={classifier_activation!r}")


def weights_path(who, weights, fname, origin, file_hash):
    """The file to load: Keras's cached `fname` for "imagenet" (checked before the model is
    built, so a missing file fails at once), the path given, or None."""
    if weights == "imagenet":
        return cached_file(who, fname, origin, file_hash)
    return None if weights is None else os.fspath(weights)


def load_weights(model, who, path):
    """Load the weights file at `path` (None: nothing) into `model`.

    Keras's ImageNet files are legacy HDF5 files whose layers Keras pairs with the model's
    in its own topological order, which is not paddle's `model.layers` order where the
    graph branches (ResNet's shortcuts); they are therefore matched by layer name (the
    names are Keras's), after checking that the file has every layer with weights and no
    other. A layer Keras names only by a counter (EfficientNet's `normalization`) takes the
    next free number in a process that built one before (`normalization_1`): such names
    are paired by their name without the counter, in order. Keras 3 files (`.keras`,
    `.weights.h5`) are found by name anyway."""
    if path is None:
        return model
    if is_keras3_file(path):
        model.load_weights(path)
        return model
    with open_checkpoint(path, full=False) as saved:
        theirs = [name for name, values in saved.layers if values]
        mine = [layer.name for layer in model.layers if layer.weights]
        pairs = _pair_names(mine, theirs)
        missing = [n for n in mine if n not in pairs]
        extra = [n for n in theirs if n not in pairs.values()]
        if missing or extra:
            raise CheckpointError(f"{who}: {path} does not hold the weights of this model "
                                  f"({model.name!r}): layers missing from the file: "
                                  f"{missing[:5]}{' ...' if len(missing) > 5 else ''}; "
                                  f"layers of the file not in the model: {extra[:5]}"
                                  f"{' ...' if len(extra) > 5 else ''}")
        renamed = {mine_name: file_name for mine_name, file_name in pairs.items()
                   if mine_name != file_name}
        values = dict(saved.layers)
        # Read the renamed layers' values now (their shapes checked), set them after the
        # others loaded by name.
        read = {name: [saved.read(dset, tuple(w.shape)) for (_, dset), w in
                       zip(values[renamed[name]], model.get_layer(name).weights)]
                for name in renamed}
    if renamed:
        for name, arrays in read.items():
            layer = model.get_layer(name)
            if len(arrays) != len(layer.weights):
                raise CheckpointError(f"{who}: {path}: layer {renamed[name]!r} holds "
                                      f"{len(values[renamed[name]])} weights, the model's "
                                      f"{name!r} {len(layer.weights)}")
    model.load_weights(path, by_name=True)
    for name, arrays in read.items():
        model.get_layer(name).set_weights(arrays)
    return model


def _pair_names(mine, theirs):
    """{model layer name: file layer name}: equal names, then names equal without a
    trailing counter (`_1`), in order."""
    pairs = {n: n for n in mine if n in set(theirs)}
    left_theirs = [n for n in theirs if n not in pairs]
    for name in (n for n in mine if n not in pairs):
        base = re.sub(r"_\d+$", "", name)
        match = next((t for t in left_theirs if re.sub(r"_\d+$", "", t) == base), None)
        if match is not None:
            pairs[name] = match
            left_theirs.remove(match)
    return pairs


# ---- the docstrings of each model module's preprocess_input (as Keras's) ------------------

PREPROCESS_INPUT_DOC = """Preprocesses a batch of images (or one image) for this model.

    Args:
        x: a float NumPy array or a Variable, 3-D or 4-D with 3 colour channels last,
            values in [0, 255].
        data_format: None or "channels_last" (the only layout paddle builds).{mode}

    Returns:
        The preprocessed images, float32.
        {ret}

    Raises:
        {error}
    """
PREPROCESS_INPUT_RET_DOC_TF = "The inputs pixel values are scaled between -1 and 1, sample-wise."
PREPROCESS_INPUT_RET_DOC_TORCH = ("The input pixels values are scaled between 0 and 1 and each "
                                  "channel is normalized with respect to the ImageNet dataset.")
PREPROCESS_INPUT_RET_DOC_CAFFE = ("The images are converted from RGB to BGR, then each color "
                                  "channel is zero-centered with respect to the ImageNet "
                                  "dataset, without scaling.")
PREPROCESS_INPUT_ERROR_DOC = "ValueError: an unknown `data_format`."
