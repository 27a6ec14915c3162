"""Dataset tests run offline in a temporary PADDLE_DATA_HOME, with files they write themselves."""
import gzip
import io
import pickle
import socket
import struct
import tarfile

import numpy as np
import pytest

from paddle.dataset import common


class NetworkAccess(Exception):
    """Raised when a test tries to reach the network; no code path may swallow it."""


def _no_network(*args, **kwargs):
    raise NetworkAccess(f"a dataset test tried to use the network: {args!r}")


@pytest.fixture(autouse=True)
def data_home(tmp_path, monkeypatch):
    """An empty PADDLE_DATA_HOME, and no way out to the network."""
    home = tmp_path / "paddle_data"
    monkeypatch.setenv("PADDLE_DATA_HOME", str(home))
    monkeypatch.setattr(common, "urlopen", _no_network)
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    monkeypatch.setattr(socket.socket, "connect_ex", _no_network)
    return home


@pytest.fixture
def offline(monkeypatch):
    """urlopen failing the way it does on a machine without network access."""
    import urllib.error
    attempts = []

    def fail(url, timeout=None):
        attempts.append((url, timeout))
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(common, "urlopen", fail)
    return attempts


# Writers of small files in the real formats.

def idx_bytes(array, magic):
    """An IDX file of unsigned bytes: big-endian magic, one big-endian size per dimension."""
    array = np.asarray(array, dtype=np.uint8)
    return struct.pack(f">I{array.ndim}I", magic, *array.shape) + array.tobytes()


def write_mnist(folder, prefix, images, labels, gz=True):
    folder.mkdir(parents=True, exist_ok=True)
    for kind, array, magic in (("images-idx3", images, 0x803), ("labels-idx1", labels, 0x801)):
        data = idx_bytes(array, magic)
        name = f"{prefix}-{kind}-ubyte"
        if gz:
            (folder / (name + ".gz")).write_bytes(gzip.compress(data))
        else:
            (folder / name).write_bytes(data)


def cifar_batch(n, first_label=0, seed=0):
    rng = np.random.default_rng(seed)
    return {
        b"batch_label": b"testing batch",
        b"labels": [(first_label + i) % 10 for i in range(n)],
        b"data": rng.integers(0, 256, size=(n, 3072), dtype=np.uint8),
        b"filenames": [b"img_%d.png" % i for i in range(n)],
    }


def write_tar(path, members, mode="w:gz"):
    """A tarball of {name: bytes}, in the given order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, mode) as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def pickled(obj, numpy1_names=True):
    """A protocol-2 pickle; with numpy1_names, naming numpy.core as the official files do."""
    data = pickle.dumps(obj, protocol=2)
    if numpy1_names:
        data = data.replace(b"numpy._core.multiarray", b"numpy.core.multiarray")
    return data


@pytest.fixture
def files():
    """The writers above, for tests to build their data files."""
    import types
    return types.SimpleNamespace(idx_bytes=idx_bytes, write_mnist=write_mnist, cifar_batch=cifar_batch,
                                 write_tar=write_tar, pickled=pickled)
