"""The data cache: where files go, downloads (faked), checksums, and errors that name the file."""
import gzip
import hashlib
import io
import os
from pathlib import Path

import pytest

from paddle.dataset import common
from paddle.dataset.common import DatasetError
from paddle.errors import PaddleError


def test_dataset_error_is_a_paddle_error_and_an_os_error():
    assert issubclass(DatasetError, PaddleError)
    assert issubclass(DatasetError, OSError)


def test_data_home_follows_the_environment(data_home, monkeypatch):
    assert common.data_home() == str(data_home)
    monkeypatch.delenv("PADDLE_DATA_HOME")
    assert common.data_home() == os.path.expanduser(os.path.join("~", ".cache", "paddle", "dataset"))


def test_fetch_uses_a_present_file_without_network(data_home):
    (data_home / "toy").mkdir(parents=True)
    (data_home / "toy" / "a.bin").write_bytes(b"anything")
    path = common.fetch("toy", "a.bin", urls=["http://example.invalid/a.bin"], md5="0" * 32)
    assert path == str(data_home / "toy" / "a.bin")


def test_fetch_accepts_an_alternative_name(data_home):
    (data_home / "toy").mkdir(parents=True)
    (data_home / "toy" / "a.bin").write_bytes(b"raw")
    assert common.fetch("toy", "a.bin.gz", urls=["http://x/a.bin.gz"], alternatives=("a.bin",)) \
        == str(data_home / "toy" / "a.bin")


def test_fetch_without_urls_says_where_to_put_the_file(data_home):
    with pytest.raises(DatasetError) as caught:
        common.fetch("toy", "a.bin")
    assert str(data_home / "toy" / "a.bin") in str(caught.value)


def test_fetch_offline_names_url_error_and_full_path(data_home, offline):
    with pytest.raises(DatasetError) as caught:
        common.fetch("toy", "a.gz", urls=["http://one/a.gz", "http://two/a.gz"], alternatives=("a",))
    message = str(caught.value)
    assert "http://one/a.gz" in message and "http://two/a.gz" in message
    assert "name resolution" in message
    assert str(data_home / "toy" / "a.gz") in message and str(data_home / "toy" / "a") in message
    assert [url for url, _ in offline] == ["http://one/a.gz", "http://two/a.gz"]
    assert all(timeout is not None and timeout <= 60 for _, timeout in offline)
    assert os.listdir(data_home / "toy") == []  # no partial file left


def fake_server(monkeypatch, payload):
    monkeypatch.setattr(common, "urlopen", lambda url, timeout=None: io.BytesIO(payload))


def test_fetch_downloads_and_checks_md5(data_home, monkeypatch, capsys):
    payload = b"the real file"
    fake_server(monkeypatch, payload)
    path = common.fetch("toy", "a.bin", urls=["http://x/a.bin"], md5=hashlib.md5(payload).hexdigest())
    assert Path(path).read_bytes() == payload
    assert os.listdir(data_home / "toy") == ["a.bin"]
    assert "Downloading http://x/a.bin" in capsys.readouterr().err


def test_fetch_rejects_a_download_with_the_wrong_md5(data_home, monkeypatch):
    fake_server(monkeypatch, b"an error page")
    with pytest.raises(DatasetError, match=r"MD5 .*expected 0{32}"):
        common.fetch("toy", "a.bin", urls=["http://x/a.bin"], md5="0" * 32)
    assert os.listdir(data_home / "toy") == []


def test_fetch_downloads_without_a_known_md5(data_home, monkeypatch):
    fake_server(monkeypatch, b"unchecked")
    assert Path(common.fetch("toy", "a.bin", urls=["http://x/a.bin"])).read_bytes() == b"unchecked"


def test_read_maybe_gzip_reads_both_forms(tmp_path):
    (tmp_path / "plain").write_bytes(b"data")
    (tmp_path / "packed").write_bytes(gzip.compress(b"data"))
    assert common.read_maybe_gzip(tmp_path / "plain") == common.read_maybe_gzip(tmp_path / "packed") == b"data"


def test_read_maybe_gzip_corrupt_and_truncated(tmp_path):
    packed = gzip.compress(bytes(range(256)) * 100)
    (tmp_path / "cut.gz").write_bytes(packed[: len(packed) // 2])
    with pytest.raises(DatasetError, match=r"cannot read .*cut\.gz"):
        common.read_maybe_gzip(tmp_path / "cut.gz")
    (tmp_path / "bad.gz").write_bytes(packed[:10] + b"\xff" * 50 + packed[60:])
    with pytest.raises(DatasetError, match=r"bad\.gz"):
        common.read_maybe_gzip(tmp_path / "bad.gz")


def test_read_maybe_gzip_missing_file(tmp_path):
    with pytest.raises(DatasetError, match="nothere"):
        common.read_maybe_gzip(tmp_path / "nothere")
