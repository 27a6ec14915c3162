"""CIFAR-10: 50,000 training and 10,000 test colour images of 32x32 pixels in 10 classes.

Reads the standard Python tarball `$PADDLE_DATA_HOME/cifar/cifar-10-python.tar.gz`
(downloading it when missing), whose pickled batches `data_batch_1`..`data_batch_5` and
`test_batch` hold dicts with `b"data"` (uint8, one row of 3072 values per image: the red,
green then blue planes) and `b"labels"`. Samples are `(image, label)`: a float32 vector of
3072 scaled to [0, 1], and an int in 0..9.
"""
import codecs
import math
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

# The function scalar pickles call, as this NumPy names it.
_SCALAR = np.int64(0).__reduce__()[0]
# A batch member holds 10,000 images of 3,072 bytes (about 31 MB); one past this is not a
# CIFAR-10 batch, and is refused before it is decompressed.
_MAX_MEMBER_BYTES = 64 << 20


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
                if member.size > _MAX_MEMBER_BYTES:
                    raise DatasetError(f"cifar: {member.name} in {path} declares {member.size} "
                                       f"bytes, more than the {_MAX_MEMBER_BYTES} of a CIFAR-10 "
                                       f"batch")
                batch = _unpickle(archive.extractfile(member), path, member.name)
            yield member.name, batch


def _unpickle(stream, path, name):
    try:
        return _ArraysOnlyUnpickler(stream, encoding="bytes").load()
    except Exception as error:  # noqa: BLE001 (a broken pickle raises almost anything)
        raise DatasetError(f"cifar: {name} in {path} cannot be unpickled: {error}") from error


class _ArraysOnlyUnpickler(pickle.Unpickler):
    """An unpickler that builds NumPy arrays of plain numbers and plain containers, and
    nothing else.

    Unpickling may call any function the file names; a data file found in a cache folder
    must not be able to run code, so only what array pickles need is allowed. Even those
    are not handed to NumPy as they are: a dtype's pickled state can describe fields at
    any offset, of any type (NumPy trusts it and crashes on it), so dtypes and arrays are
    made by `_PickledDtype` and `_PickledArray`, which check every state first.
    """

    def find_class(self, module, name):
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name}: a CIFAR batch "
                                         f"holds only NumPy arrays and lists") from None


_PLAIN_KINDS = "biufc"   # bool, signed and unsigned ints, floats, complex
_BYTE_ORDERS = "<>|="


def _text(value):
    """A pickled str (bytes when Python 2 wrote it, as unpickled with encoding="bytes")."""
    return value.decode("ascii") if isinstance(value, bytes) else value


class _PickledDtype:
    """What a pickle's `numpy.dtype(code, align, copy)` call and its state describe: a
    dtype of plain numbers only (no fields, sub-arrays, objects or strings), in native or
    the declared byte order, made once everything is checked."""

    def __init__(self, code, align=False, copy=False):
        code = _text(code)
        if not isinstance(code, str) or len(code) > 8:
            raise pickle.UnpicklingError(f"expected a dtype code such as 'u1', received "
                                         f"{str(code)[:40]!r}")
        try:
            dtype = np.dtype(code)
        except (TypeError, ValueError) as error:
            raise pickle.UnpicklingError(f"unknown dtype code {code!r}: {error}") from None
        if dtype.kind not in _PLAIN_KINDS or dtype.fields is not None or \
                dtype.subdtype is not None:
            raise pickle.UnpicklingError(f"refusing the dtype {code!r}: a CIFAR batch holds "
                                         f"plain numbers only")
        self.dtype = dtype

    def __setstate__(self, state):
        """Check NumPy's dtype state (version, byte order, sub-array, names, fields, item
        size, alignment, flags[, metadata]) and apply its byte order."""
        if not isinstance(state, tuple) or len(state) not in (8, 9) or state[0] not in (3, 4):
            raise pickle.UnpicklingError(f"expected a dtype state of 8 or 9 items (version 3 "
                                         f"or 4), received {str(state)[:80]}")
        order, subarray, names, fields, size, alignment, flags = state[1:8]
        order = _text(order)
        if order not in tuple(_BYTE_ORDERS) or subarray is not None or names is not None or \
                fields is not None or state[8:] not in ((), (None,)):
            raise pickle.UnpicklingError(f"refusing the dtype state {str(state)[:80]}: a CIFAR "
                                         f"batch holds plain numbers only (no fields, "
                                         f"sub-arrays or metadata)")
        if size not in (-1, self.dtype.itemsize) or alignment not in (-1, self.dtype.alignment) \
                or type(flags) is not int:
            raise pickle.UnpicklingError(f"the dtype state {str(state)[:80]} does not describe "
                                         f"{self.dtype} (item size {self.dtype.itemsize})")
        if order in "<>":
            self.dtype = self.dtype.newbyteorder(order)


class _PickledArray(np.ndarray):
    """An array made from its pickled state once the state is checked: a dtype from
    `_PickledDtype`, a shape of non-negative ints, and exactly the bytes it needs."""

    def __setstate__(self, state):
        if not isinstance(state, tuple) or len(state) not in (4, 5):
            raise pickle.UnpicklingError(f"expected an array state (version, shape, dtype, "
                                         f"fortran order, bytes), received {str(state)[:80]}")
        shape, dtype, fortran, data = state[-4:]
        if not isinstance(dtype, _PickledDtype):
            raise pickle.UnpicklingError(f"expected the array's dtype, received "
                                         f"{type(dtype).__name__}")
        if not isinstance(shape, tuple) or \
                not all(type(n) is int and 0 <= n < 1 << 40 for n in shape):
            raise pickle.UnpicklingError(f"expected an array shape of non-negative ints, "
                                         f"received {str(shape)[:80]}")
        if not isinstance(data, bytes) or fortran not in (True, False):
            raise pickle.UnpicklingError(f"expected an array's data as bytes, received "
                                         f"{type(data).__name__}")
        needed = math.prod(shape) * dtype.dtype.itemsize
        if len(data) != needed:
            raise pickle.UnpicklingError(f"an array of shape {shape} and dtype {dtype.dtype} "
                                         f"needs {needed} bytes, the pickle holds {len(data)}")
        super().__setstate__((1, shape, dtype.dtype, bool(fortran), data))


class _ArrayClass:
    """Stands for numpy.ndarray in a pickle: `_reconstruct`'s first argument only, never
    called (numpy.ndarray(shape) would allocate whatever the file asks)."""

    def __call__(self, *args, **kwargs):
        raise pickle.UnpicklingError("refusing to call numpy.ndarray: a CIFAR batch's arrays "
                                     "are rebuilt by _reconstruct from their bytes")


_NDARRAY = _ArrayClass()


def _reconstruct(subtype, shape, typecode):
    """NumPy's `_reconstruct`: an empty array whose state the pickle sets next."""
    if subtype is not _NDARRAY:
        raise pickle.UnpicklingError(f"expected numpy.ndarray to rebuild, received {subtype!r}")
    return np.ndarray.__new__(_PickledArray, (0,), np.uint8)


def _scalar(dtype, data):
    """NumPy's `scalar`: one number of a checked dtype from exactly its bytes."""
    if not isinstance(dtype, _PickledDtype) or not isinstance(data, bytes) or \
            len(data) != dtype.dtype.itemsize:
        raise pickle.UnpicklingError(f"expected a NumPy scalar's dtype and "
                                     f"{getattr(getattr(dtype, 'dtype', None), 'itemsize', '?')} "
                                     f"bytes, received {type(dtype).__name__} and "
                                     f"{str(data)[:40]}")
    return _SCALAR(dtype.dtype, data)


_ALLOWED = {
    # The official files were written by Python 2 with NumPy 1 (numpy.core); NumPy 2
    # writes numpy._core. Both map to the checked versions above.
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct,
    ("numpy.core.multiarray", "scalar"): _scalar,
    ("numpy._core.multiarray", "scalar"): _scalar,
    ("numpy", "ndarray"): _NDARRAY,
    ("numpy", "dtype"): _PickledDtype,
    # Python 3 writes bytes as _codecs.encode(text, "latin1") in protocol 2.
    ("_codecs", "encode"): codecs.encode,
}


def _check_batch(batch, path, name):
    """The (data, labels) of an unpickled batch, after checking their types and sizes."""
    where = f"cifar: {name} in {path}"
    if not isinstance(batch, dict) or b"data" not in batch or b"labels" not in batch:
        keys = sorted(batch) if isinstance(batch, dict) else type(batch).__name__
        raise DatasetError(f"{where} is not a CIFAR-10 batch: expected a dict with b'data' and "
                           f"b'labels', found {keys}")
    data, labels = _plain(batch[b"data"]), _plain(batch[b"labels"])
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


def _plain(value):
    """An unpickled array as a plain ndarray (the checked subclass it was made as)."""
    return value.view(np.ndarray) if isinstance(value, np.ndarray) else value
