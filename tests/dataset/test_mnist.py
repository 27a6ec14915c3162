"""mnist: IDX files, gzipped or raw, written by the test into a temporary PADDLE_DATA_HOME."""
import gzip

import numpy as np
import pytest

from paddle import reader
from paddle.dataset import DatasetError, mnist


def images_and_labels(n, seed=0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, 28, 28), dtype=np.uint8)
    images[0, 0, :3] = [0, 255, 51]
    return images, (np.arange(n) * 3 % 10).astype(np.uint8)


@pytest.fixture
def mnist_dir(data_home):
    return data_home / "mnist"


def test_train_reads_gzipped_idx(mnist_dir, files):
    images, labels = images_and_labels(5)
    files.write_mnist(mnist_dir, "train", images, labels, gz=True)
    samples = list(mnist.train()())
    assert len(samples) == 5
    for (image, label), raw, expected in zip(samples, images, labels):
        assert image.shape == (784,) and image.dtype == np.float32
        assert isinstance(label, int) and label == expected
        np.testing.assert_allclose(image, raw.reshape(-1) / 255.0 * 2 - 1, rtol=0, atol=1e-6)
    first = samples[0][0]
    assert first[0] == -1.0 and first[1] == 1.0
    assert first.min() >= -1.0 and first.max() <= 1.0


def test_test_reads_raw_idx(mnist_dir, files):
    images, labels = images_and_labels(3, seed=1)
    files.write_mnist(mnist_dir, "t10k", images, labels, gz=False)
    samples = list(mnist.test()())
    assert [label for _, label in samples] == labels.tolist()


def test_passes_are_repeatable_and_batch_into_arrays(mnist_dir, files):
    files.write_mnist(mnist_dir, "train", *images_and_labels(5))
    train = mnist.train()
    x, y = next(reader.iter_batches(reader.batch(train, 4)))
    assert x.shape == (4, 784) and x.dtype == np.float32 and y.dtype == np.int64
    assert len(list(train())) == len(list(train())) == 5


def test_missing_files_say_where_to_put_them(mnist_dir, offline):
    with pytest.raises(DatasetError) as caught:
        mnist.train()
    message = str(caught.value)
    assert str(mnist_dir / "train-images-idx3-ubyte.gz") in message
    assert str(mnist_dir / "train-images-idx3-ubyte") in message
    assert "could not be downloaded" in message
    assert all(url.endswith("train-images-idx3-ubyte.gz") for url, _ in offline)


def test_swapped_files_report_the_magic_number(mnist_dir, files):
    images, labels = images_and_labels(2)
    files.write_mnist(mnist_dir, "train", images, labels)
    (mnist_dir / "train-images-idx3-ubyte.gz").write_bytes(gzip.compress(files.idx_bytes(labels, 0x801)))
    with pytest.raises(DatasetError, match=r"train-images-idx3-ubyte\.gz has magic number 0x0801, expected 0x0803"):
        list(mnist.train()())


def test_truncated_idx(mnist_dir, files):
    images, labels = images_and_labels(4)
    files.write_mnist(mnist_dir, "t10k", images, labels, gz=False)
    path = mnist_dir / "t10k-images-idx3-ubyte"
    path.write_bytes(path.read_bytes()[:-100])
    with pytest.raises(DatasetError, match=r"t10k-images-idx3-ubyte is truncated or corrupt: .*3136 bytes of data, the file holds 3036"):
        list(mnist.test()())


def test_header_too_short(mnist_dir, files):
    files.write_mnist(mnist_dir, "t10k", *images_and_labels(1), gz=False)
    (mnist_dir / "t10k-labels-idx1-ubyte").write_bytes(b"\x00\x00")
    with pytest.raises(DatasetError, match="too short for a header"):
        list(mnist.test()())
    (mnist_dir / "t10k-labels-idx1-ubyte").write_bytes(b"\x00\x00\x08\x01\x00")
    with pytest.raises(DatasetError, match="the header alone needs 8"):
        list(mnist.test()())


def test_truncated_gzip(mnist_dir, files):
    files.write_mnist(mnist_dir, "train", *images_and_labels(20))
    path = mnist_dir / "train-images-idx3-ubyte.gz"
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(DatasetError, match=r"cannot read .*train-images-idx3-ubyte\.gz"):
        list(mnist.train()())


def test_images_and_labels_disagree_in_count(mnist_dir, files):
    images, labels = images_and_labels(4)
    files.write_mnist(mnist_dir, "train", images, labels[:3])
    with pytest.raises(DatasetError, match="holds 4 images but .* holds 3 labels"):
        list(mnist.train()())


def test_images_of_the_wrong_size(mnist_dir, files):
    files.write_mnist(mnist_dir, "train", np.zeros((2, 8, 8), np.uint8), np.zeros(2, np.uint8))
    with pytest.raises(DatasetError, match=r"images of \(8, 8\) pixels, expected \(28, 28\)"):
        list(mnist.train()())
