"""CIFAR-10: 50,000 training and 10,000 test colour images of 32x32 pixels in 10 classes.

Reads the standard Python tarball `$PADDLE_DATA_HOME/cifar/cifar-10-python.tar.gz`
(downloading it when missing), whose pickled batches `data_batch_1`..`data_batch_5` and
`test_batch` hold dicts with `b"data"` (uint8, one row of 3072 values per image: the red,
green then blue planes) and `b"labels"`. Samples are `(image, label)`: a float32 vector of
3072 scaled to [0, 1], and an int in 0..9.
"""
import codecs
import os
import pickle
import tarfile
import zlib

import numpy as np

from paddle.dataset import common
from paddle.dataset.common import DatasetError

URL = "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"
MD5 = "c58f30108f718f92721af3b95e74349a"
FILENAME = "cifar-10-python.tar.gz"

_PIXELS = 32 * 32 * 3
_SCALED = np.arange(256, dtype=np.float32) / 255  # pixel value -> float32, exact

# The functions array pickles call, as this NumPy names them.
_RECONSTRUCT = np.zeros(1).__reduce__()[0]
_SCALAR = np.int64(0).__reduce__()[0]


def train10():
    """The CIFAR-10 training set (50,000 samples) as a reader creator.

    Batches are read in the order the tarball stores them.

    Returns:
        A reader creator yielding `(float32 array of shape (3072,) in [0, 1], int label)`.

    Raises:
        DatasetError: the tarball is missing and cannot be downloaded (now), or it is
            corrupt, truncated or lacks the expected batches (when iterated).

    Example:
        >>> from paddle import dataset
        >>> image, label = next(dataset.cifar.train10()())  # doctest: +SKIP
        >>> image.shape, image.dtype  # doctest: +SKIP
        ((3072,), dtype('float32'))
    """
    return _reader("data_batch")


def test10():
    """The CIFAR-10 test set (10,000 samples) as a reader creator.

    Returns:
        A reader creator yielding `(float32 array of shape (3072,) in [0, 1], int label)`.

    Raises:
        DatasetError: as for `train10`.

    Example:
        >>> from paddle import dataset
        >>> sum(1 for _ in dataset.cifar.test10()())  # doctest: +SKIP
        10000
    """
    return _reader("test_batch")


def _reader(prefix):
    path = common.fetch("cifar", FILENAME, urls=(URL,), md5=MD5)

    def cifar_reader():
        found = False
        for name, batch in _batches(path, prefix):
            found = True
            data, labels = _check_batch(batch, path, name)
            for image, label in zip(data, labels):
                yield _SCALED[image], int(label)
        if not found:
            raise DatasetError(f"cifar: {path} holds no {prefix}* member; is it the Python "
                               f"version of CIFAR-10 ({FILENAME})?")

    return cifar_reader


def _batches(path, prefix):
    """Yield (member name, unpickled dict) for each member of the tarball named prefix*."""
    # Only the tar reading and unpickling are guarded: the `yield` stays outside, so errors
    # of the consumer are never mistaken for a broken file.
    with common.reading(path):
        try:
            archive = tarfile.open(path, "r:*")
        except tarfile.TarError as error:
            raise DatasetError(f"cifar: {path} is not a readable tar archive: {error}") from error
    with archive:
        members = iter(archive)
        while True:
            with common.reading(path):
                try:
                    member = next(members, None)
                except (tarfile.TarError, zlib.error) as error:
                    raise DatasetError(f"cifar: {path} is truncated or corrupt: {error}") from error
                if member is None:
                    return
                if not (member.isfile() and os.path.basename(member.name).startswith(prefix)):
                    continue
                batch = _unpickle(archive.extractfile(member), path, member.name)
            yield member.name, batch


def _unpickle(stream, path, name):
    try:
        return _ArraysOnlyUnpickler(stream, encoding="bytes").load()
    except Exception as error:  # noqa: BLE001 (a broken pickle raises almost anything)
        raise DatasetError(f"cifar: {name} in {path} cannot be unpickled: {error}") from error


class _ArraysOnlyUnpickler(pickle.Unpickler):
    """An unpickler that builds NumPy arrays and plain containers, and nothing else.

    Unpickling may call any function the file names; a data file found in a cache folder
    must not be able to run code, so only what array pickles need is allowed.
    """

    _ALLOWED = {
        # The official files were written by Python 2 with NumPy 1 (numpy.core); NumPy 2
        # writes numpy._core. Both map to the functions this NumPy uses.
        ("numpy.core.multiarray", "_reconstruct"): _RECONSTRUCT,
        ("numpy._core.multiarray", "_reconstruct"): _RECONSTRUCT,
        ("numpy.core.multiarray", "scalar"): _SCALAR,
        ("numpy._core.multiarray", "scalar"): _SCALAR,
        ("numpy", "ndarray"): np.ndarray,
        ("numpy", "dtype"): np.dtype,
        # Python 3 writes bytes as _codecs.encode(text, "latin1") in protocol 2.
        ("_codecs", "encode"): codecs.encode,
    }

    def find_class(self, module, name):
        try:
            return self._ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}: a CIFAR batch "
                                         f"holds only NumPy arrays and lists") from None


def _check_batch(batch, path, name):
    """The (data, labels) of an unpickled batch, after checking their types and sizes."""
    where = f"cifar: {name} in {path}"
    if not isinstance(batch, dict) or b"data" not in batch or b"labels" not in batch:
        keys = sorted(batch) if isinstance(batch, dict) else type(batch).__name__
        raise DatasetError(f"{where} is not a CIFAR-10 batch: expected a dict with b'data' and "
                           f"b'labels', found {keys}")
    data, labels = batch[b"data"], batch[b"labels"]
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 \
            or data.shape[1] != _PIXELS:
        description = f"{data.dtype} array of shape {data.shape}" if isinstance(data, np.ndarray) \
            else type(data).__name__
        raise DatasetError(f"{where}: b'data' is a {description}, expected uint8 of shape (n, {_PIXELS})")
    if not isinstance(labels, (list, np.ndarray)):
        raise DatasetError(f"{where}: b'labels' is a {type(labels).__name__}, expected a list")
    if len(labels) != len(data):
        raise DatasetError(f"{where} holds {len(data)} images but {len(labels)} labels")
    return data, labels
