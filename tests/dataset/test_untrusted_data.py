"""Data files and downloads from elsewhere: an IDX header whose dimensions overflow, a
server that trickles or never stops, and partial downloads left by killed processes."""
import io
import os
import struct
import time

import pytest

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
