"""pd.datasets (Keras's keras.datasets) on small files in Keras's exact formats, in a
temporary KERAS_HOME, offline (the conftest forbids the network)."""
import gzip
import hashlib

import numpy as np
import pytest

import paddle as pd
from paddle.dataset import common, keras_files
from paddle.dataset.common import DatasetError


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    home = tmp_path / "keras_home"
    monkeypatch.setenv("KERAS_HOME", str(home))
    (home / "datasets").mkdir(parents=True)
    return home / "datasets"


def test_mnist_reads_keras_npz(keras_home):
    rng = np.random.default_rng(0)
    arrays = {"x_train": rng.integers(0, 256, (5, 28, 28), dtype=np.uint8),
              "y_train": np.arange(5, dtype=np.uint8),
              "x_test": rng.integers(0, 256, (2, 28, 28), dtype=np.uint8),
              "y_test": np.array([1, 2], np.uint8)}
    np.savez(keras_home / "mnist.npz", **arrays)
    (x_train, y_train), (x_test, y_test) = pd.datasets.mnist.load_data()
    assert x_train.dtype == np.uint8 and x_train.shape == (5, 28, 28)
    np.testing.assert_array_equal(x_test, arrays["x_test"])
    np.testing.assert_array_equal(y_train, arrays["y_train"])
    assert y_test.tolist() == [1, 2]


def test_mnist_offline_says_where_to_put_the_file(keras_home, offline):
    with pytest.raises(DatasetError) as info:
        pd.datasets.mnist.load_data()
    message = str(info.value)
    assert str(keras_home / "mnist.npz") in message and "mnist.npz" in message
    assert offline and offline[0][0].endswith("tf-keras-datasets/mnist.npz")


def test_truncated_and_pickled_npz_are_refused(keras_home):
    np.savez(keras_home / "mnist.npz", x_train=np.zeros((2, 28, 28), np.uint8),
             y_train=np.zeros(2, np.uint8), x_test=np.zeros((1, 28, 28), np.uint8),
             y_test=np.zeros(1, np.uint8))
    data = (keras_home / "mnist.npz").read_bytes()
    (keras_home / "mnist.npz").write_bytes(data[:len(data) // 2])
    with pytest.raises(DatasetError, match="truncated or not a NumPy .npz"):
        pd.datasets.mnist.load_data()
    np.savez(keras_home / "boston_housing.npz", x=np.array([[1], "a"], dtype=object),
             y=np.zeros(2))
    with pytest.raises(DatasetError, match="boston_housing"):
        pd.datasets.boston_housing.load_data()


def test_download_is_checked_against_keras_sha256(keras_home, monkeypatch):
    class Response:
        def __init__(self, payload):
            self.payload, self.headers = [payload, b""], {}

        def read(self, n=-1):
            return self.payload.pop(0)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(common, "urlopen", lambda url, timeout: Response(b"not mnist"))
    with pytest.raises(DatasetError, match="SHA-256"):
        pd.datasets.mnist.load_data()
    assert not (keras_home / "mnist.npz").exists()  # no half file left under the name
    assert keras_files.SHA256["mnist.npz"] != hashlib.sha256(b"not mnist").hexdigest()


def test_fashion_mnist_reads_the_gzipped_idx_files(keras_home, files):
    folder = keras_home / "fashion-mnist"
    folder.mkdir()
    images = np.arange(3 * 28 * 28, dtype=np.uint8).reshape(3, 28, 28)
    for prefix, n in (("train", 3), ("t10k", 2)):
        (folder / f"{prefix}-images-idx3-ubyte.gz").write_bytes(
            gzip.compress(files.idx_bytes(images[:n], 0x803)))
        (folder / f"{prefix}-labels-idx1-ubyte.gz").write_bytes(
            gzip.compress(files.idx_bytes(np.arange(n), 0x801)))
    (x_train, y_train), (x_test, y_test) = pd.datasets.fashion_mnist.load_data()
    assert x_train.shape == (3, 28, 28) and x_test.shape == (2, 28, 28)
    assert y_train.tolist() == [0, 1, 2] and y_test.dtype == np.uint8
    np.testing.assert_array_equal(x_test, images[:2])


def _cifar_archive(keras_home, files, inner, members, target):
    files.write_tar(keras_home / f"{target}_archive",
                    {f"{inner}/{name}": files.pickled(batch) for name, batch in members.items()})


def test_cifar10_from_keras_archive_and_extracted_folder(keras_home, files):
    batches = {f"data_batch_{i}": files.cifar_batch(2, first_label=i, seed=i)
               for i in range(1, 6)}
    batches["test_batch"] = files.cifar_batch(3, seed=9)
    _cifar_archive(keras_home, files, "cifar-10-batches-py", batches,
                   "cifar-10-batches-py-target")
    (x_train, y_train), (x_test, y_test) = pd.datasets.cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and x_train.dtype == np.uint8
    assert y_train.shape == (10, 1) and y_test.shape == (3, 1) and y_test.dtype == np.uint8
    # Keras: data (n, 3072) -> (n, 3, 32, 32) -> channels last
    first = batches["data_batch_1"][b"data"][0].reshape(3, 32, 32).transpose(1, 2, 0)
    np.testing.assert_array_equal(x_train[0], first)
    assert y_train[:, 0].tolist() == [(i + k) % 10 for i in range(1, 6) for k in range(2)]
    # Keras's extracted folder is read without the archive
    (keras_home / "cifar-10-batches-py-target_archive").unlink()
    folder = keras_home / "cifar-10-batches-py-target" / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    for name, batch in batches.items():
        (folder / name).write_bytes(files.pickled(batch))
    (again, _), _ = pd.datasets.cifar10.load_data()
    np.testing.assert_array_equal(again, x_train)


def test_cifar_refuses_code_in_a_pickle(keras_home, files):
    import pickle
    import os

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))
    folder = keras_home / "cifar-10-batches-py-target" / "cifar-10-batches-py"
    folder.mkdir(parents=True)
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        (folder / name).write_bytes(pickle.dumps({b"data": Evil()}))
    with pytest.raises(DatasetError, match="cannot be unpickled"):
        pd.datasets.cifar10.load_data()


def test_cifar100_label_modes(keras_home, files):
    def batch(n):
        b = files.cifar_batch(n)
        del b[b"labels"]
        b[b"fine_labels"] = list(range(50, 50 + n))
        b[b"coarse_labels"] = list(range(n))
        return b
    _cifar_archive(keras_home, files, "cifar-100-python", {"train": batch(4), "test": batch(2)},
                   "cifar-100-python-target")
    (x, y), (xt, yt) = pd.datasets.cifar100.load_data()
    assert x.shape == (4, 32, 32, 3) and y[:, 0].tolist() == [50, 51, 52, 53]
    (_, coarse), _ = pd.datasets.cifar100.load_data(label_mode="coarse")
    assert coarse.shape == (4, 1) and coarse[:, 0].tolist() == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="label_mode"):
        pd.datasets.cifar100.load_data(label_mode="medium")


def test_housing_shuffle_and_split_as_keras(keras_home):
    x = np.arange(50 * 13, dtype=np.float64).reshape(50, 13)
    y = np.arange(50, dtype=np.float64)
    np.savez(keras_home / "boston_housing.npz", x=x, y=y)
    (x_train, y_train), (x_test, y_test) = pd.datasets.boston_housing.load_data()
    order = np.arange(50)
    np.random.RandomState(113).shuffle(order)
    assert y_train.tolist() == order[:40].tolist() and y_test.tolist() == order[40:].tolist()
    np.testing.assert_array_equal(x_train, x[order[:40]])
    np.savez(keras_home / "california_housing.npz", x=np.zeros((700, 8)), y=np.arange(700.0))
    (xs, ys), (xt, yt) = pd.datasets.california_housing.load_data(version="small",
                                                                  test_split=0.5, seed=1)
    assert xs.shape == (300, 8) and len(yt) == 300 and set(ys) | set(yt) == set(range(600))
    with pytest.raises(ValueError, match="version"):
        pd.datasets.california_housing.load_data(version="tiny")
