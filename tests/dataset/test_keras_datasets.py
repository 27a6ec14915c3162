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


def _ragged(rows):
    out = np.empty(len(rows), dtype=object)
    out[:] = [list(r) for r in rows]
    return out


def _keras_imdb(x_train, y_train, x_test, y_test, num_words=None, skip_top=0, maxlen=None,
                seed=113, start_char=1, oov_char=2, index_from=3):
    """Keras 3.15's imdb.load_data steps after reading the file (keras/src/datasets/imdb.py),
    written out to check paddle's against."""
    rng = np.random.RandomState(seed)
    indices = np.arange(len(x_train))
    rng.shuffle(indices)
    x_train, y_train = x_train[indices], y_train[indices]
    indices = np.arange(len(x_test))
    rng.shuffle(indices)
    x_test, y_test = x_test[indices], y_test[indices]
    x_train = [[start_char] + [w + index_from for w in x] for x in x_train]
    x_test = [[start_char] + [w + index_from for w in x] for x in x_test]
    if maxlen:
        keep = [i for i, x in enumerate(x_train) if len(x) < maxlen]
        x_train, y_train = [x_train[i] for i in keep], y_train[keep]
        keep = [i for i, x in enumerate(x_test) if len(x) < maxlen]
        x_test, y_test = [x_test[i] for i in keep], y_test[keep]
    xs = x_train + x_test
    labels = np.concatenate([y_train, y_test])
    num_words = num_words or max(max(x) for x in xs)
    xs = [[w if skip_top <= w < num_words else oov_char for w in x] for x in xs]
    n = len(x_train)
    return (xs[:n], labels[:n]), (xs[n:], labels[n:])


def test_imdb_reads_pickled_sequences_safely(keras_home):
    rng = np.random.default_rng(1)
    rows = [rng.integers(1, 30, rng.integers(1, 9)).tolist() for _ in range(12)]
    arrays = dict(x_train=_ragged(rows[:8]), y_train=np.arange(8) % 2,
                  x_test=_ragged(rows[8:]), y_test=np.arange(4) % 2)
    np.savez(keras_home / "imdb.npz", **arrays)
    for kwargs in ({}, {"num_words": 10, "skip_top": 4}, {"maxlen": 6}):
        (x_train, y_train), (x_test, y_test) = pd.datasets.imdb.load_data(**kwargs)
        (ex_train, ey_train), (ex_test, ey_test) = _keras_imdb(
            arrays["x_train"], arrays["y_train"], arrays["x_test"], arrays["y_test"], **kwargs)
        assert x_train.dtype == object and [list(x) for x in x_train] == ex_train
        assert [list(x) for x in x_test] == ex_test
        assert y_train.tolist() == ey_train.tolist() and y_test.tolist() == ey_test.tolist()


def test_imdb_refuses_a_pickle_with_code(keras_home):
    import os
    import pickle
    import zipfile

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))
    np.savez(keras_home / "imdb.npz", x_train=_ragged([[1]]), y_train=np.zeros(1),
             x_test=_ragged([[1]]), y_test=np.zeros(1))
    with zipfile.ZipFile(keras_home / "imdb.npz") as z:
        members = {n: z.read(n) for n in z.namelist()}
    header_end = members["x_train.npy"].index(b"\n") + 1
    members["x_train.npy"] = members["x_train.npy"][:header_end] + pickle.dumps(Evil())
    with zipfile.ZipFile(keras_home / "imdb.npz", "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    with pytest.raises(DatasetError, match="refusing to load posix.system"):
        pd.datasets.imdb.load_data()


def test_reuters_and_word_indexes(keras_home):
    rows = [[1, 2, 3], [4, 5], [6], [7, 8, 9, 10], [2, 2]]
    np.savez(keras_home / "reuters.npz", x=_ragged(rows), y=np.arange(5))
    (x_train, y_train), (x_test, y_test) = pd.datasets.reuters.load_data(test_split=0.4)
    order = np.arange(5)
    np.random.RandomState(113).shuffle(order)
    assert y_train.tolist() == order[:3].tolist() and y_test.tolist() == order[3:].tolist()
    assert list(x_train[0]) == [1] + [w + 3 for w in rows[order[0]]]
    assert len(pd.datasets.reuters.get_label_names()) == 46
    (keras_home / "imdb_word_index.json").write_text('{"the": 1, "and": 2}')
    assert pd.datasets.imdb.get_word_index() == {"the": 1, "and": 2}
    (keras_home / "reuters_word_index.json").write_text('["not", "a", "dict"]')
    with pytest.raises(DatasetError, match="word: index"):
        pd.datasets.reuters.get_word_index()
