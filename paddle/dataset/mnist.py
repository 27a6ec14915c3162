"""MNIST handwritten digits: 60,000 training and 10,000 test images of 28x28 pixels.

Reads the four standard IDX files from `$PADDLE_DATA_HOME/mnist/`, gzipped
(`train-images-idx3-ubyte.gz`, ...) or not (`train-images-idx3-ubyte`, ...), downloading
the gzipped ones when none is there. Samples are `(image, label)`: the image a float32
vector of 784 pixels scaled to [-1, 1], the label an int in 0..9.
"""
import io
import math
import struct

import numpy as np

from paddle.dataset import common
from paddle.dataset.common import DatasetError

URLS = ("https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/")

# MD5 sums of the official gzipped files.
MD5 = {
    "train-images-idx3-ubyte": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
    "train-labels-idx1-ubyte": "d53e105ee54ea40749a09fcbcd1e9432",
    "t10k-images-idx3-ubyte": "9fb629c4189551a2d022fa330f9573f3",
    "t10k-labels-idx1-ubyte": "ec29112dd5afa0611ce80d1b7f02629c",
}

# IDX magic numbers: two zero bytes, 0x08 for unsigned bytes, then the number of dimensions.
_IMAGES_MAGIC = 0x00000803
_LABELS_MAGIC = 0x00000801
_SIDE = 28

# Pixel value -> scaled float32, computed once: indexing this table is exact and fast.
_SCALED = np.arange(256, dtype=np.float32) / 255 * 2 - 1


def train():
    """The MNIST training set (60,000 samples) as a reader creator.

    Returns:
        A reader creator yielding `(float32 array of shape (784,) in [-1, 1], int label)`.

    Raises:
        DatasetError: a file is missing and cannot be downloaded (now), or a file is
            corrupt, truncated or not an IDX file of the right kind (when iterated).

    Example:
        >>> from paddle import dataset, reader
        >>> images, labels = next(reader.iter_batches(reader.batch(dataset.mnist.train(), 32)))  # doctest: +SKIP
        >>> images.shape, labels.dtype  # doctest: +SKIP
        ((32, 784), dtype('int64'))
    """
    return _reader("train")


def test():
    """The MNIST test set (10,000 samples) as a reader creator.

    Returns:
        A reader creator yielding `(float32 array of shape (784,) in [-1, 1], int label)`.

    Raises:
        DatasetError: as for `train`.

    Example:
        >>> from paddle import dataset
        >>> image, label = next(dataset.mnist.test()())  # doctest: +SKIP
        >>> image.shape, image.min() >= -1.0, 0 <= label <= 9  # doctest: +SKIP
        ((784,), True, True)
    """
    return _reader("t10k")


def _reader(prefix):
    images_path = _fetch(f"{prefix}-images-idx3-ubyte")
    labels_path = _fetch(f"{prefix}-labels-idx1-ubyte")

    def mnist_reader():
        images = read_idx(images_path, _IMAGES_MAGIC, item_shape=(_SIDE, _SIDE))
        labels = read_idx(labels_path, _LABELS_MAGIC)
        if len(images) != len(labels):
            raise DatasetError(f"mnist: {images_path} holds {len(images)} images but "
                               f"{labels_path} holds {len(labels)} labels")
        for image, label in zip(images.reshape(len(images), -1), labels):
            yield _SCALED[image], int(label)

    return mnist_reader


def _fetch(stem):
    return common.fetch("mnist", stem + ".gz", urls=[base + stem + ".gz" for base in URLS],
                        md5=MD5[stem], alternatives=(stem,))


def read_idx(path, magic, item_shape=None):
    """Read an IDX file of unsigned bytes, gzipped or not, into a uint8 array.

    The header is read first, and then exactly the bytes it declares: a gzipped file is
    decompressed no further than that (a small file declaring a few labels cannot expand
    to gigabytes), and a declared size beyond what the file can hold is refused before
    any data is read.

    Args:
        path: the file.
        magic: the expected magic number: 0x803 for images (3 dimensions), 0x801 for labels.
        item_shape: when given, the dimensions after the first that the header must declare
            (checked before the data is read).

    Returns:
        A uint8 array with the dimensions the header declares.

    Raises:
        DatasetError: the file is unreadable, has another magic number or item shape, or
            holds fewer or more bytes than its header declares.

    Example:
        >>> import os, struct, tempfile
        >>> from paddle.dataset import mnist
        >>> path = os.path.join(tempfile.mkdtemp(), "labels-idx1-ubyte")
        >>> with open(path, "wb") as f:
        ...     _ = f.write(struct.pack(">II", 0x801, 3) + bytes([7, 2, 1]))
        >>> mnist.read_idx(path, 0x801).tolist()
        [7, 2, 1]
    """
    with common.reading(path), common.open_maybe_gzip(path) as (stream, capacity):
        shape, header = _read_header(stream, path, magic)
        if item_shape is not None and shape[1:] != tuple(item_shape):
            raise DatasetError(f"mnist: {path} holds {_kind(magic)} of {shape[1:]} pixels, "
                               f"expected {tuple(item_shape)}")
        expected = math.prod(shape)  # Python ints: np.prod would wrap around for huge dims
        if expected > capacity - header:
            raise DatasetError(f"mnist: {path} is truncated or corrupt: its header declares "
                               f"{shape} = {expected} bytes of data, the file holds "
                               f"{_at_most(stream, capacity - header)}")
        data = common.read_exactly(stream, expected)
        if len(data) != expected:
            raise DatasetError(f"mnist: {path} is truncated or corrupt: its header declares "
                               f"{shape} = {expected} bytes of data, the file holds {len(data)}")
        if stream.read(1):
            raise DatasetError(f"mnist: {path} is corrupt: it holds more than the {expected} "
                               f"bytes of data its header declares {shape}")
    return np.frombuffer(data, dtype=np.uint8).reshape(shape)


def _read_header(stream, path, magic):
    """(declared shape, header size in bytes) of an IDX stream, read up to its data."""
    head = common.read_exactly(stream, 4)
    if len(head) < 4:
        raise DatasetError(f"mnist: {path} is not an IDX file: {len(head)} bytes, too short "
                           f"for a header")
    found, = struct.unpack(">I", head)
    if found != magic:
        raise DatasetError(f"mnist: {path} has magic number {found:#06x}, expected {magic:#06x} "
                           f"(an IDX file of {_kind(magic)})")
    ndim = magic & 0xFF
    header = 4 + 4 * ndim
    dims = common.read_exactly(stream, header - 4)
    if len(dims) < header - 4:
        raise DatasetError(f"mnist: {path} is truncated: {4 + len(dims)} bytes, the header "
                           f"alone needs {header}")
    return struct.unpack(f">{ndim}I", dims), header


def _at_most(stream, capacity):
    """How much data a stream of at most `capacity` bytes holds, for a message."""
    return capacity if isinstance(stream, io.BufferedReader) else f"at most {capacity} (gzipped)"


def _kind(magic):
    return "images" if magic == _IMAGES_MAGIC else "labels" if magic == _LABELS_MAGIC else "bytes"
