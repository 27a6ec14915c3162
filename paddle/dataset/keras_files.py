"""Keras's data sets (`pd.datasets`: `keras.datasets`) from Keras's own cache files.

Each `load_data` reads the file where Keras caches it, `$KERAS_HOME/datasets` (default
`~/.keras/datasets`), under Keras's file name and subfolder, so a machine that ever ran
Keras needs no download; a missing file is downloaded from Keras's address through
paddle's guarded download (`common.fetch_file`: a deadline, a size cap) and checked
against the SHA-256 that Keras's source publishes. Offline, the error says which file
to put where. Files are parsed without pickle where their format allows (`.npz` with
`allow_pickle=False`, IDX files through `mnist.read_idx`); CIFAR's pickled batches go
through the restricted unpickler of `paddle.dataset.cifar`, which builds plain arrays
and lists only.

The arrays are Keras's: dtypes, shapes, shuffles (NumPy's `RandomState(seed)` as Keras
does) and splits.

Example:
    >>> import os, tempfile, numpy as np
    >>> from paddle.dataset import keras_files
    >>> os.environ["KERAS_HOME"] = home = tempfile.mkdtemp()
    >>> keras_files.keras_datasets_dir() == os.path.join(home, "datasets")
    True
    >>> del os.environ["KERAS_HOME"]
"""
import io
import json
import os
import pickle
import tarfile
import zipfile

import numpy as np

from paddle.dataset import common, mnist
from paddle.dataset.cifar import _NDARRAY, _plain, _unpickle  # the restricted unpickler
from paddle.dataset.common import DatasetError

ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"
SHA256 = {  # Keras 3's published file hashes (keras/src/datasets/*.py)
    "mnist.npz": "731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
    "boston_housing.npz": "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5",
    "california_housing.npz":
        "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f",
    "cifar-10": "6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
    "cifar-100": "85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7",
}
CIFAR = {
    "cifar-10": ("cifar-10-batches-py-target", "cifar-10-batches-py",
                 "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"),
    "cifar-100": ("cifar-100-python-target", "cifar-100-python",
                  "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"),
}
_MAX_MEMBER_BYTES = 256 << 20  # a CIFAR-100 train batch is 155 MB


def keras_home():
    """Keras's cache folder: `$KERAS_HOME`, else `~/.keras`."""
    return os.path.abspath(os.path.expanduser(os.environ.get("KERAS_HOME") or
                                              os.path.join("~", ".keras")))


def keras_datasets_dir():
    """Where Keras caches its data sets: `<keras_home()>/datasets`."""
    return os.path.join(keras_home(), "datasets")


def _keras_file(name, subdir=None, sha256=None, url=None, what=None):
    name = _checked_name(name, what)
    folder = os.path.join(keras_datasets_dir(), subdir) if subdir else keras_datasets_dir()
    return common.fetch_file(os.path.join(folder, str(name)),
                             urls=(url or ORIGIN + str(name),), sha256=sha256, what=what)


def load_npz(path, keys, what):
    """{key: array} of a `.npz` file, read with allow_pickle=False; DatasetError naming
    the file when it is truncated, not an npz, or lacks a key."""
    try:
        # np.load on a path leaves the file open when the file is broken: open it here
        with common.reading(path), open(path, "rb") as raw, \
                np.load(raw, allow_pickle=False) as f:
            missing = [k for k in keys if k not in f.files]
            if missing:
                raise DatasetError(f"{what}: {path} lacks the arrays {missing} (it holds "
                                   f"{f.files}); delete it to download it again")
            return {k: f[k] for k in keys}
    except (ValueError, zipfile.BadZipFile, EOFError) as e:
        raise DatasetError(f"{what}: {path} is truncated or not a NumPy .npz file ({e}); "
                           "delete it to download it again") from None


def _split(x, y, test_split, seed, what):
    if not isinstance(test_split, (int, float)) or not 0 <= test_split < 1:
        raise ValueError(f"{what}: expected test_split in [0, 1), received {test_split!r}")
    rng = np.random.RandomState(seed)
    indices = np.arange(len(x))
    rng.shuffle(indices)
    x, y = x[indices], y[indices]
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))


def mnist_load_data(path="mnist.npz"):
    """MNIST as Keras's `keras.datasets.mnist.load_data`: uint8 images (60000, 28, 28)
    and (10000, 28, 28), uint8 labels (60000,) and (10000,), from `mnist.npz`.

    Example (a small file in Keras's format, where Keras caches it):
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> os.environ["KERAS_HOME"] = home = tempfile.mkdtemp()
        >>> os.makedirs(os.path.join(home, "datasets"))
        >>> np.savez(os.path.join(home, "datasets", "mnist.npz"),
        ...          x_train=np.zeros((2, 28, 28), np.uint8), y_train=np.zeros(2, np.uint8),
        ...          x_test=np.zeros((1, 28, 28), np.uint8), y_test=np.ones(1, np.uint8))
        >>> (x_train, y_train), (x_test, y_test) = pd.datasets.mnist.load_data()
        >>> x_train.shape, x_train.dtype, y_test.tolist()
        ((2, 28, 28), dtype('uint8'), [1])
        >>> del os.environ["KERAS_HOME"]
    """
    f = load_npz(_keras_file(path, sha256=SHA256["mnist.npz"], url=ORIGIN + "mnist.npz",
                             what="mnist"),
                 ("x_train", "y_train", "x_test", "y_test"), "mnist")
    return (f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])


def fashion_mnist_load_data():
    """Fashion-MNIST as Keras's: its four gzipped IDX files in `datasets/fashion-mnist`;
    uint8 images (60000, 28, 28) / (10000, 28, 28) and uint8 labels."""
    arrays = []
    for stem in ("train-labels-idx1-ubyte", "train-images-idx3-ubyte",
                 "t10k-labels-idx1-ubyte", "t10k-images-idx3-ubyte"):
        path = _keras_file(stem + ".gz", subdir="fashion-mnist", what="fashion_mnist")
        images = "images" in stem
        arrays.append(mnist.read_idx(path, 0x803 if images else 0x801,
                                     (28, 28) if images else None))
    y_train, x_train, y_test, x_test = arrays
    for x, y, part in ((x_train, y_train, "train"), (x_test, y_test, "t10k")):
        if len(x) != len(y):
            raise DatasetError(f"fashion_mnist: the {part} files hold {len(x)} images but "
                               f"{len(y)} labels")
    return (x_train, y_train), (x_test, y_test)


def _cifar_batches(kind, names, what):
    """{name: unpickled batch dict} of CIFAR's batch files: from Keras's extracted folder
    when it is there, else from the archive (Keras's `<dir>_archive`, downloaded if
    missing), read member by member without extracting."""
    target, inner, url = CIFAR[kind]
    folder = os.path.join(keras_datasets_dir(), target, inner)
    if all(os.path.isfile(os.path.join(folder, n)) for n in names):
        out = {}
        for n in names:
            path = common.fetch_file(os.path.join(folder, n), urls=(), what=what)
            with open(path, "rb") as f:
                out[n] = _unpickle(f, path, n)
        return out
    archive = common.fetch_file(os.path.join(keras_datasets_dir(), f"{target}_archive"),
                                urls=(url,), sha256=SHA256[kind], what=what)
    found = {}
    with common.reading(archive):
        try:
            with tarfile.open(archive, "r:*") as tar:
                for member in tar:
                    name = os.path.basename(member.name)
                    if member.isfile() and name in names and \
                            os.path.dirname(member.name).endswith(inner):
                        if member.size > _MAX_MEMBER_BYTES:
                            raise DatasetError(f"{what}: {member.name} in {archive} declares "
                                               f"{member.size} bytes, more than a batch has")
                        found[name] = _unpickle(tar.extractfile(member), archive, member.name)
        except tarfile.TarError as e:
            raise DatasetError(f"{what}: {archive} is not a readable tar archive or is "
                               f"truncated ({e}); delete it to download it again") from None
    missing = [n for n in names if n not in found]
    if missing:
        raise DatasetError(f"{what}: {archive} lacks {inner}/{missing[0]}; is it "
                           f"{os.path.basename(url)}? Put it there, or the extracted "
                           f"files in {folder}")
    return found


def _cifar_arrays(batch, label_key, where):
    if not isinstance(batch, dict) or b"data" not in batch or label_key not in batch:
        keys = sorted(batch) if isinstance(batch, dict) else type(batch).__name__
        raise DatasetError(f"{where}: expected a dict with b'data' and {label_key!r}, found "
                           f"{keys}")
    data, labels = _plain(batch[b"data"]), _plain(batch[label_key])
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 or \
            data.shape[1] != 3072:
        raise DatasetError(f"{where}: b'data' is not a uint8 array of shape (n, 3072)")
    labels = np.asarray(labels)
    if labels.shape != (len(data),) or labels.dtype.kind not in "iu":
        raise DatasetError(f"{where}: expected {len(data)} integer labels, received shape "
                           f"{labels.shape} of {labels.dtype}")
    return data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), labels.astype(np.uint8)


def cifar10_load_data():
    """CIFAR-10 as Keras's: uint8 images (50000, 32, 32, 3) / (10000, 32, 32, 3) and
    uint8 labels (50000, 1) / (10000, 1)."""
    names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    batches = _cifar_batches("cifar-10", names, "cifar10")
    parts = [_cifar_arrays(batches[n], b"labels", f"cifar10: {n}") for n in names]
    x_train = np.concatenate([p[0] for p in parts[:5]])
    y_train = np.concatenate([p[1] for p in parts[:5]]).reshape(-1, 1)
    x_test, y_test = parts[5][0], parts[5][1].reshape(-1, 1)
    return (x_train, y_train), (x_test, y_test)


def cifar100_load_data(label_mode="fine"):
    """CIFAR-100 as Keras's: `label_mode` "fine" (100 classes) or "coarse" (20); uint8
    images (50000, 32, 32, 3) / (10000, 32, 32, 3), uint8 labels (n, 1).

    Example:
        >>> import paddle as pd
        >>> pd.datasets.cifar100.load_data(label_mode="medium")
        Traceback (most recent call last):
        ValueError: cifar100: expected label_mode 'fine' or 'coarse', received 'medium'
    """
    if label_mode not in ("fine", "coarse"):
        raise ValueError(f"cifar100: expected label_mode 'fine' or 'coarse', received "
                         f"{label_mode!r}")
    batches = _cifar_batches("cifar-100", ["train", "test"], "cifar100")
    key = f"{label_mode}_labels".encode()
    (x_train, y_train), (x_test, y_test) = (
        _cifar_arrays(batches[n], key, f"cifar100: {n}") for n in ("train", "test"))
    return (x_train, y_train.reshape(-1, 1)), (x_test, y_test.reshape(-1, 1))


def boston_housing_load_data(path="boston_housing.npz", test_split=0.2, seed=113):
    """Boston housing as Keras's: float64 features (n, 13) and prices, shuffled with
    `RandomState(seed)` and split at `1 - test_split`.

    Example:
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> os.environ["KERAS_HOME"] = home = tempfile.mkdtemp()
        >>> os.makedirs(os.path.join(home, "datasets"))
        >>> np.savez(os.path.join(home, "datasets", "boston_housing.npz"),
        ...          x=np.zeros((10, 13)), y=np.arange(10.0))
        >>> (x_train, y_train), (x_test, y_test) = pd.datasets.boston_housing.load_data()
        >>> x_train.shape, x_test.shape
        ((8, 13), (2, 13))
        >>> del os.environ["KERAS_HOME"]
    """
    f = load_npz(_keras_file(path, sha256=SHA256["boston_housing.npz"],
                             url=ORIGIN + "boston_housing.npz", what="boston_housing"),
                 ("x", "y"), "boston_housing")
    return _split(f["x"], f["y"], test_split, seed, "boston_housing")


def california_housing_load_data(version="large", path="california_housing.npz",
                                 test_split=0.2, seed=113):
    """California housing as Keras's: `version` "large" (20640 samples) or "small" (the
    first 600), 8 float features, shuffled with `RandomState(seed)` and split.

    Example:
        >>> import paddle as pd
        >>> pd.datasets.california_housing.load_data(version="tiny")
        Traceback (most recent call last):
        ValueError: california_housing: expected version 'small' or 'large', received 'tiny'
    """
    if version not in ("large", "small"):
        raise ValueError(f"california_housing: expected version 'small' or 'large', "
                         f"received {version!r}")
    f = load_npz(_keras_file(path, sha256=SHA256["california_housing.npz"],
                             url=ORIGIN + "california_housing.npz",
                             what="california_housing"), ("x", "y"), "california_housing")
    x, y = f["x"], f["y"]
    if version == "small":
        x, y = x[:600], y[:600]
    return _split(x, y, test_split, seed, "california_housing")


# ---- IMDB and Reuters: ragged sequences, stored by NumPy as pickled object arrays ----

TEXT_SHA256 = {
    "imdb.npz": "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
    "reuters.npz": "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916",
}
WORD_INDEX_MD5 = {  # Keras publishes MD5s for these two
    "imdb_word_index.json": "bfafd718b763782e994055a2d397834f",
    "reuters_word_index.json": "4d44cc38712099c9e383dc6e5f11a921",
}
REUTERS_LABELS = (
    "cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply",
    "coffee", "sugar", "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas",
    "cpi", "money-fx", "interest", "gnp", "meal-feed", "alum", "oilseed", "gold", "tin",
    "strategic-metal", "livestock", "retail", "ipi", "iron-steel", "rubber", "heat", "jobs",
    "lei", "bop", "zinc", "orange", "pet-chem", "dlr", "gas", "silver", "wpi", "hog", "lead")
_MAX_NPY_BYTES = 1 << 30


class _ObjectDtype:
    """The pickled `numpy.dtype("O8")` of an object array; any other dtype is refused."""

    def __init__(self, code, align=False, copy=False):
        code = code.decode("ascii") if isinstance(code, bytes) else code
        if code not in ("O8", "O4", "O"):
            raise pickle.UnpicklingError(f"refusing the dtype {str(code)[:20]!r}: an IMDB or "
                                         "Reuters array holds lists of integers only")

    def __setstate__(self, state):
        if not isinstance(state, tuple) or len(state) not in (8, 9) or \
                any(v is not None for v in state[2:5]):
            raise pickle.UnpicklingError(f"refusing the dtype state {str(state)[:80]}")


class _SequencesArray(np.ndarray):
    """An object array whose pickled items are checked to be lists of ints."""

    def __setstate__(self, state):
        if not isinstance(state, tuple) or len(state) not in (4, 5):
            raise pickle.UnpicklingError("expected an object array's state")
        shape, dtype, _, items = state[-4:]
        if not isinstance(dtype, _ObjectDtype) or not isinstance(shape, tuple) or \
                len(shape) != 1 or not isinstance(items, list) or len(items) != shape[0]:
            raise pickle.UnpicklingError("expected a 1-D object array of sequences")
        for item in items:
            if not isinstance(item, list) or not all(type(w) is int for w in item):
                raise pickle.UnpicklingError(f"expected lists of integers, received "
                                             f"{type(item).__name__} {str(item)[:40]}")
        super().__setstate__((1, shape, np.dtype(object), False, items))


def _sequences_reconstruct(subtype, shape, typecode):
    if subtype is not _NDARRAY:
        raise pickle.UnpicklingError("expected numpy.ndarray to rebuild")
    return np.ndarray.__new__(_SequencesArray, (0,), object)


class _SequencesUnpickler(pickle.Unpickler):
    """Unpickles NumPy object arrays of lists of ints and nothing else (the three globals
    an object array's pickle names, each replaced by a checking stand-in)."""

    ALLOWED = {("numpy.core.multiarray", "_reconstruct"): _sequences_reconstruct,
               ("numpy._core.multiarray", "_reconstruct"): _sequences_reconstruct,
               ("numpy", "ndarray"): _NDARRAY, ("numpy", "dtype"): _ObjectDtype}

    def find_class(self, module, name):
        try:
            return self.ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}: the file holds "
                                         "only arrays of integer sequences") from None


def load_sequences_npz(path, keys, what):
    """{key: array} of an `.npz` whose arrays are numbers (read without pickle) or 1-D
    object arrays of integer lists (read by `_SequencesUnpickler`); DatasetError naming
    the file otherwise."""
    out = {}
    try:
        with common.reading(path), zipfile.ZipFile(path) as archive:
            for key in keys:
                try:
                    info = archive.getinfo(key + ".npy")
                except KeyError:
                    raise DatasetError(f"{what}: {path} lacks the array {key!r}; delete it "
                                       "to download it again") from None
                if info.file_size > _MAX_NPY_BYTES:
                    raise DatasetError(f"{what}: {key} in {path} declares {info.file_size} "
                                       "bytes, more than a data set array may have")
                with archive.open(info) as raw:
                    member = io.BytesIO(raw.read())
                version = np.lib.format.read_magic(member)
                if version[0] == 1:
                    shape, _, dtype = np.lib.format.read_array_header_1_0(member)
                else:
                    shape, _, dtype = np.lib.format.read_array_header_2_0(member)
                if dtype.hasobject:
                    out[key] = _SequencesUnpickler(member).load().view(np.ndarray)
                else:
                    member.seek(0)
                    out[key] = np.lib.format.read_array(member, allow_pickle=False)
    except DatasetError:
        raise
    except (ValueError, zipfile.BadZipFile, EOFError, pickle.UnpicklingError,
            TypeError) as e:
        raise DatasetError(f"{what}: {path} is truncated, not a NumPy .npz of sequences, "
                           f"or holds more than integer sequences ({e}); delete it to "
                           "download it again") from None
    return out


def _shift(xs, start_char, index_from):
    """Keras's word ids: shifted by index_from, start_char first (when not None)."""
    if start_char is not None:
        return [[start_char] + [w + index_from for w in x] for x in xs]
    return [[w + index_from for w in x] for x in xs]


def _drop_long(xs, labels, maxlen, what):
    """Keras's `remove_long_seq`: keep the sequences shorter than maxlen."""
    kept = [k for k, x in enumerate(xs) if len(x) < maxlen]
    if not kept:
        raise ValueError(f"{what}: after dropping the sequences of maxlen={maxlen} or more, "
                         "none is left; increase maxlen")
    return [xs[k] for k in kept], np.asarray(labels)[kept]


def _cut(xs, num_words, skip_top, oov_char):
    """Ids outside [skip_top, num_words) become oov_char (dropped when it is None)."""
    if not num_words:
        num_words = max(max(x) for x in xs if x)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    return [[w for w in x if skip_top <= w < num_words] for x in xs]


def _object_array(rows):
    out = np.empty(len(rows), dtype=object)
    out[:] = rows
    return out


def imdb_load_data(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113,
                   start_char=1, oov_char=2, index_from=3, **kwargs):
    """IMDB reviews as Keras's `keras.datasets.imdb.load_data`: object arrays of word-id
    lists (25000,) each and int labels, each part shuffled with `RandomState(seed)`; words
    shifted by `index_from`, `start_char` first, ids outside [skip_top, num_words) become
    `oov_char` (or are dropped), sequences of `maxlen` or more dropped.

    Example:
        >>> import paddle as pd
        >>> pd.datasets.imdb.load_data(nb_words=10)
        Traceback (most recent call last):
        TypeError: imdb: unknown arguments ['nb_words']
    """
    if kwargs:
        raise TypeError(f"imdb: unknown arguments {sorted(kwargs)}")
    f = load_sequences_npz(_keras_file(path, sha256=TEXT_SHA256["imdb.npz"],
                                       url=ORIGIN + "imdb.npz", what="imdb"),
                           ("x_train", "y_train", "x_test", "y_test"), "imdb")
    rng = np.random.RandomState(seed)
    parts = []
    for x, y in ((f["x_train"], f["y_train"]), (f["x_test"], f["y_test"])):
        if len(x) != len(y):
            raise DatasetError(f"imdb: {path} holds {len(x)} reviews but {len(y)} labels")
        indices = np.arange(len(x))
        rng.shuffle(indices)
        parts.append((x[indices], y[indices]))
    (x_train, y_train), (x_test, y_test) = parts
    x_train, x_test = (_shift(x, start_char, index_from) for x in (x_train, x_test))
    if maxlen:
        x_train, y_train = _drop_long(x_train, y_train, maxlen, "imdb")
        x_test, y_test = _drop_long(x_test, y_test, maxlen, "imdb")
    xs = _cut(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([y_train, y_test])
    n = len(x_train)
    return (_object_array(xs[:n]), labels[:n]), (_object_array(xs[n:]), labels[n:])


def imdb_get_word_index(path="imdb_word_index.json"):
    """IMDB's {word: index} (Keras's `keras.datasets.imdb.get_word_index`), from
    `imdb_word_index.json` in Keras's cache (downloaded when missing, MD5-checked).

    Example:
        >>> import os, tempfile, paddle as pd
        >>> os.environ["KERAS_HOME"] = home = tempfile.mkdtemp()
        >>> os.makedirs(os.path.join(home, "datasets"))
        >>> with open(os.path.join(home, "datasets", "imdb_word_index.json"), "w") as f:
        ...     _ = f.write('{"the": 1}')
        >>> pd.datasets.imdb.get_word_index()
        {'the': 1}
        >>> del os.environ["KERAS_HOME"]
    """
    return _word_index(path, "imdb_word_index.json", "imdb")


def reuters_load_data(path="reuters.npz", num_words=None, skip_top=0, maxlen=None,
                      test_split=0.2, seed=113, start_char=1, oov_char=2, index_from=3):
    """Reuters newswires as Keras's `keras.datasets.reuters.load_data`: one shuffle with
    `RandomState(seed)`, Keras's word-id conventions (as imdb's), split at
    `1 - test_split`; object arrays of lists and int labels (46 topics).

    Example:
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> os.environ["KERAS_HOME"] = home = tempfile.mkdtemp()
        >>> os.makedirs(os.path.join(home, "datasets"))
        >>> x = np.empty(5, dtype=object)
        >>> x[:] = [[1, 2], [3], [4, 5, 6], [7], [8]]
        >>> np.savez(os.path.join(home, "datasets", "reuters.npz"), x=x, y=np.arange(5))
        >>> (x_train, y_train), (x_test, y_test) = pd.datasets.reuters.load_data()
        >>> len(x_train), len(x_test), x_train.dtype
        (4, 1, dtype('O'))
        >>> del os.environ["KERAS_HOME"]
    """
    f = load_sequences_npz(_keras_file(path, sha256=TEXT_SHA256["reuters.npz"],
                                       url=ORIGIN + "reuters.npz", what="reuters"),
                           ("x", "y"), "reuters")
    xs, labels = f["x"], f["y"]
    rng = np.random.RandomState(seed)
    indices = np.arange(len(xs))
    rng.shuffle(indices)
    xs, labels = _shift(xs[indices], start_char, index_from), labels[indices]
    if maxlen:
        xs, labels = _drop_long(xs, labels, maxlen, "reuters")
    xs = _cut(xs, num_words, skip_top, oov_char)
    cut = int(len(xs) * (1 - test_split))
    return (_object_array(xs[:cut]), np.array(labels[:cut])), \
        (_object_array(xs[cut:]), np.array(labels[cut:]))


def reuters_get_word_index(path="reuters_word_index.json"):
    """Reuters' {word: index} (Keras's `keras.datasets.reuters.get_word_index`), as
    `imdb_get_word_index` reads imdb's.

    Example:
        >>> import paddle as pd
        >>> pd.datasets.reuters.get_word_index(path="../index.json")
        Traceback (most recent call last):
        ValueError: reuters: expected path as a file name inside Keras's cache folder ...
    """
    return _word_index(path, "reuters_word_index.json", "reuters")


def reuters_get_label_names():
    """The 46 Reuters topics in label order (Keras's `get_label_names`).

    Example:
        >>> import paddle as pd
        >>> pd.datasets.reuters.get_label_names()[:3]
        ('cocoa', 'grain', 'veg-oil')
    """
    return REUTERS_LABELS


def _word_index(path, name, what):
    path = common.fetch_file(
        os.path.join(keras_datasets_dir(), _checked_name(path, what)), urls=(ORIGIN + name,),
        md5=WORD_INDEX_MD5[name], what=what)
    try:
        with common.reading(path), open(path, encoding="utf-8") as f:
            index = json.load(f)
    except (ValueError, UnicodeDecodeError) as e:
        raise DatasetError(f"{what}: {path} is not a JSON word index ({e}); delete it to "
                           "download it again") from None
    if not isinstance(index, dict) or not all(
            isinstance(k, str) and type(v) is int for k, v in index.items()):
        raise DatasetError(f"{what}: {path} is not a {{word: index}} JSON object")
    return index


def _checked_name(name, what):
    if not isinstance(name, (str, os.PathLike)) or not str(name) or os.sep in str(name):
        raise ValueError(f"{what}: expected path as a file name inside Keras's cache folder "
                         f"({keras_datasets_dir()}), received {name!r}")
    return str(name)
