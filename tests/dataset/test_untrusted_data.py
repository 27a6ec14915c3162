"""Data files and downloads from elsewhere: an IDX header whose dimensions overflow, a
server that trickles or never stops, partial downloads left by killed processes, crafted
CIFAR pickles, cached files that are no regular files, and gzip bombs.

Every crafted file is built here; those that crashed or filled the memory are read in a
fresh interpreter under an address-space limit (highlevel/saving/untrusted.py's run_probe)."""
import io
import os
import pickle
import struct
import time

import pytest

from highlevel.saving.untrusted import run_probe  # tests/ is on sys.path (tests/conftest.py)
from paddle.dataset import common, mnist
from paddle.dataset.common import DatasetError


def test_an_idx_header_whose_dimensions_overflow_is_a_dataset_error(tmp_path):
    path = tmp_path / "images-idx3-ubyte"
    # 2**32-1 cubed overflows int64: np.prod wrapped it to a small or negative size.
    path.write_bytes(struct.pack(">IIII", 0x803, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF) + b"\0" * 8)
    with pytest.raises(DatasetError, match="truncated or corrupt"):
        mnist.read_idx(str(path), 0x803)
    path.write_bytes(struct.pack(">IIII", 0x803, 1 << 31, 1 << 31, 4) + b"\0" * 16)
    with pytest.raises(DatasetError, match="truncated or corrupt"):
        mnist.read_idx(str(path), 0x803)


class Trickle(io.RawIOBase):
    """A response that sends a byte per read, `pause` seconds apart, without end."""

    def __init__(self, pause):
        self.pause = pause

    def readable(self):
        return True

    def read1(self, n=-1):
        time.sleep(self.pause)
        return b"x"

    read = read1


def test_a_trickling_download_ends_at_the_deadline(data_home, monkeypatch):
    monkeypatch.setattr(common, "DEADLINE_SECONDS", 0.5)
    monkeypatch.setattr(common, "urlopen", lambda url, timeout=None: Trickle(0.05))
    start = time.monotonic()
    with pytest.raises(DatasetError, match="took more than 0.5 s"):
        common.fetch("toy", "a.bin", urls=["http://slow/a.bin"])
    assert time.monotonic() - start < 5
    assert os.listdir(data_home / "toy") == []


def test_a_download_past_the_size_cap_is_refused(data_home, monkeypatch):
    monkeypatch.setattr(common, "MAX_DOWNLOAD_BYTES", 1000)
    monkeypatch.setattr(common, "urlopen", lambda url, timeout=None: Trickle(0))
    with pytest.raises(DatasetError, match="sent more than 1000 bytes"):
        common.fetch("toy", "a.bin", urls=["http://endless/a.bin"])
    assert os.listdir(data_home / "toy") == []


def test_an_announced_size_past_the_cap_is_refused_before_reading(data_home, monkeypatch):
    class Big(io.BytesIO):
        headers = {"Content-Length": str(10 ** 12)}

        def read1(self, n=-1):
            raise AssertionError("read after a refused Content-Length")
    monkeypatch.setattr(common, "urlopen", lambda url, timeout=None: Big(b""))
    with pytest.raises(DatasetError, match="announces 1000000000000 bytes"):
        common.fetch("toy", "a.bin", urls=["http://big/a.bin"])


def test_stale_partial_downloads_are_removed_and_fresh_ones_kept(data_home, monkeypatch):
    folder = data_home / "toy"
    folder.mkdir(parents=True)
    stale, fresh = folder / ".a.bin.0123456789ab.part", folder / ".a.bin.ba9876543210.part"
    for path in (stale, fresh):
        path.write_bytes(b"half")
    old = time.time() - 2 * 24 * 3600
    os.utime(stale, (old, old))
    monkeypatch.setattr(common, "urlopen", lambda url, timeout=None: io.BytesIO(b"whole"))
    common.fetch("toy", "a.bin", urls=["http://x/a.bin"])
    assert sorted(os.listdir(folder)) == sorted([".a.bin.ba9876543210.part", "a.bin"])


# ---- crafted CIFAR batches: every dtype and array state is checked before NumPy sees it --

MEMORY_LIMIT = 2 << 30
CIFAR_MEMBER = "cifar-10-batches-py/data_batch_1"


class Pickled:
    """An object that pickles as `function(*args)` with `state`, as the attacker writes."""

    def __init__(self, function, args, state=None):
        self.reduced = (function, args) if state is None else (function, args, state)

    def __reduce__(self):
        return self.reduced


def crafted_dtype(code, state):
    import numpy as np
    return Pickled(np.dtype, (code, False, True), state)


def crafted_array(shape, dtype, data):
    import numpy as np
    return Pickled(np.zeros(1).__reduce__()[0], (np.ndarray, (0,), b"b"), (1, shape, dtype, False, data))


def crafted_batches():
    """{case: (pickle bytes, what the refusal says)}."""
    import numpy as np
    plain = (3, "|", None, None, None, -1, -1, 0)
    field_is_an_int = crafted_dtype("V8", (3, "|", None, ("a",), {"a": 5}, 8, 1, 16))
    offset_past_item = crafted_dtype("V1", (3, "|", None, ("a",), {"a": (np.dtype("u1"), 100)}, 1, 1, 16))
    cases = {
        # The file: a field entry that is the int 5 (NumPy crashed formatting it).
        "field entry is an int": (field_is_an_int, "refusing the dtype 'V8'"),
        "field offset past the item": (offset_past_item, "refusing the dtype 'V1'"),
        "object dtype": (crafted_dtype("O", (3, "|", None, None, None, -1, -1, 63)), "refusing the dtype 'O'"),
        "sub-array dtype": (crafted_dtype("(2,)u1", plain), "refusing the dtype"),
        "fields in a numeric dtype's state": (
            crafted_dtype("u1", (3, "|", None, ("a",), {"a": (np.dtype("u1"), 0)}, 1, 1, 16)),
            "refusing the dtype state"),
        "item size that is not the dtype's": (crafted_dtype("u1", (3, "|", None, None, None, 64, 1, 0)),
                                              "does not describe uint8"),
        "array bytes short of its shape": (crafted_array((10, 3072), crafted_dtype("u1", plain), b"\0" * 100),
                                           "needs 30720 bytes, the pickle holds 100"),
        "negative dimension": (crafted_array((-1, 3072), crafted_dtype("u1", plain), b"\0"),
                               "expected an array shape of non-negative ints"),
        "ndarray called directly": (Pickled(np.ndarray, ((1 << 20, 1 << 20),)), "refusing to call numpy.ndarray"),
    }
    return {name: (pickle.dumps({b"data": obj, b"labels": [0]}, protocol=2), message)
            for name, (obj, message) in cases.items()}


def test_crafted_cifar_batches_are_refused_without_a_crash(data_home, files):
    """Each crafted batch, read by train10 in a fresh interpreter under a memory limit:
    a DatasetError saying what was refused, never a signal."""
    cases = crafted_batches()
    folders = {}
    for i, (name, (data, _)) in enumerate(cases.items()):
        folder = data_home / f"case{i}"
        files.write_tar(folder / "cifar" / "cifar-10-python.tar.gz", {CIFAR_MEMBER: data})
        folders[name] = str(folder)
    output = run_probe(f"""
        import os
        from paddle.dataset import cifar, DatasetError
        for name, folder in {folders!r}.items():
            os.environ["PADDLE_DATA_HOME"] = folder
            try:
                list(cifar.train10()())
            except DatasetError as e:
                print(name, "->", "DatasetError:", e)
            else:
                print(name, "->", "LOADED")
    """, limit=MEMORY_LIMIT, timeout=120)
    for name, (_, message) in cases.items():
        line = next(l for l in output.splitlines() if l.startswith(name + " ->"))
        assert "DatasetError:" in line and "cannot be unpickled" in line and message in line, line


def test_a_checked_cifar_batch_keeps_its_values_and_byte_order(tarball_path, files):
    import numpy as np
    from paddle.dataset import cifar
    batch = files.cifar_batch(3)
    batch[b"labels"] = np.array([1, 2, 3], dtype=">i8")  # a big-endian array, as declared
    files.write_tar(tarball_path, {CIFAR_MEMBER: files.pickled(batch)})
    got = list(cifar.train10()())
    assert [label for _, label in got] == [1, 2, 3]
    np.testing.assert_array_equal(np.array([x for x, _ in got]), batch[b"data"] / np.float32(255))


def test_a_cifar_member_larger_than_a_batch_is_refused_before_it_is_read(tarball_path, files, monkeypatch):
    from paddle.dataset import cifar
    monkeypatch.setattr(cifar, "_MAX_MEMBER_BYTES", 1000)
    files.write_tar(tarball_path, {CIFAR_MEMBER: files.pickled(files.cifar_batch(2))})
    with pytest.raises(DatasetError, match=r"data_batch_1 in .* declares \d+ bytes, more than the 1000"):
        list(cifar.train10()())


@pytest.fixture
def tarball_path(data_home):
    return data_home / "cifar" / "cifar-10-python.tar.gz"


# ---- cached files are checked as downloads are --------------------------------------------

def test_a_cached_file_that_is_not_a_regular_file_is_refused(data_home):
    folder = data_home / "toy"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "a.bin")
    with pytest.raises(DatasetError, match=r"a\.bin is not a regular file"):
        common.fetch("toy", "a.bin", urls=["http://x/a.bin"])
    os.remove(folder / "a.bin")
    os.symlink("/dev/zero", folder / "a.bin")
    with pytest.raises(DatasetError, match=r"a\.bin is not a regular file"):
        common.fetch("toy", "a.bin", urls=["http://x/a.bin"])


def test_a_cached_file_past_the_download_cap_is_refused(data_home, monkeypatch):
    monkeypatch.setattr(common, "MAX_DOWNLOAD_BYTES", 1000)
    folder = data_home / "toy"
    folder.mkdir(parents=True)
    (folder / "a.bin").write_bytes(b"x" * 1001)
    with pytest.raises(DatasetError, match=r"a\.bin holds 1001 bytes, more than the 1000"):
        common.fetch("toy", "a.bin")


# ---- gzip bombs: decompression bounded by what the IDX header declares -------------------

def gzip_bomb_labels(tmp_path, declared, zeros):
    """A gzipped IDX labels file declaring `declared` labels and holding `zeros` bytes."""
    import zlib
    path = tmp_path / "train-labels-idx1-ubyte.gz"
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # the gzip format
    with open(path, "wb") as f:
        f.write(packer.compress(struct.pack(">II", 0x801, declared)))
        block = bytes(1 << 20)
        for _ in range(zeros >> 20):
            f.write(packer.compress(block))
        f.write(packer.flush())
    return path


def test_an_mnist_gzip_bomb_is_refused_after_the_declared_bytes(tmp_path):
    """The issue's file: 5 labels declared, 512 MB of zeros behind them in a few hundred
    KB; read under a 1 GB address-space limit in a fresh interpreter."""
    path = gzip_bomb_labels(tmp_path, declared=5, zeros=512 << 20)
    assert path.stat().st_size < 1 << 20
    output = run_probe(f"""
        import resource
        from paddle.dataset import mnist, DatasetError
        try:
            mnist.read_idx({str(path)!r}, 0x801)
        except DatasetError as e:
            print("DatasetError:", e)
        print("peak MB", int(next(line.split()[1] for line in open("/proc/self/status")
                                 if line.startswith("VmHWM"))) >> 10)  # this process's own
    """, limit=1 << 30, timeout=120)
    assert "holds more than the 5 bytes of data its header declares (5,)" in output, output
    peak = int(output.split("peak MB")[1].split()[0])
    assert peak < 300, output


def test_an_idx_header_declaring_more_than_gzip_can_hold_is_refused_before_reading(tmp_path):
    import gzip
    path = tmp_path / "images-idx3-ubyte.gz"
    path.write_bytes(gzip.compress(struct.pack(">IIII", 0x803, 60000, 28, 28) + bytes(100)))
    with pytest.raises(DatasetError, match=r"truncated or corrupt: its header declares .*47040000 "
                                           r"bytes of data, the file holds at most \d+ \(gzipped\)"):
        mnist.read_idx(str(path), 0x803)


def test_an_idx_item_shape_is_checked_before_the_data_is_read(tmp_path):
    path = tmp_path / "images-idx3-ubyte"
    path.write_bytes(struct.pack(">IIII", 0x803, 1, 4000, 4000))  # no data at all
    with pytest.raises(DatasetError, match=r"holds images of \(4000, 4000\) pixels, expected \(28, 28\)"):
        mnist.read_idx(str(path), 0x803, item_shape=(28, 28))


def test_read_maybe_gzip_stops_past_its_cap(tmp_path):
    import gzip
    (tmp_path / "big.gz").write_bytes(gzip.compress(bytes(10_000)))
    with pytest.raises(DatasetError, match=r"big\.gz holds more than 1000 bytes"):
        common.read_maybe_gzip(tmp_path / "big.gz", max_bytes=1000)
    assert common.read_maybe_gzip(tmp_path / "big.gz", max_bytes=10_000) == bytes(10_000)
