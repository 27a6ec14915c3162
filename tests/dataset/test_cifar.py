"""cifar: a tiny cifar-10-python.tar.gz with pickled dicts keyed b'data'/b'labels', as the real one."""
import pickle

import numpy as np
import pytest

from paddle.dataset import DatasetError, cifar

ROOT = "cifar-10-batches-py/"


@pytest.fixture
def tarball(data_home):
    return data_home / "cifar" / "cifar-10-python.tar.gz"


def standard_members(files):
    batches = {f"data_batch_{i}": files.cifar_batch(2, first_label=i, seed=i) for i in range(1, 6)}
    batches["test_batch"] = files.cifar_batch(3, seed=9)
    members = {ROOT + "batches.meta": files.pickled({b"label_names": [b"airplane"] * 10}),
               ROOT + "readme.html": b"<html></html>"}
    members.update({ROOT + name: files.pickled(batch) for name, batch in batches.items()})
    return batches, members


def test_train_and_test_sets(tarball, files):
    batches, members = standard_members(files)
    files.write_tar(tarball, members)
    train = list(cifar.train10()())
    assert len(train) == 10
    expected = np.concatenate([batches[f"data_batch_{i}"][b"data"] for i in range(1, 6)])
    np.testing.assert_allclose(np.array([x for x, _ in train]), expected / 255.0, rtol=1e-6)
    assert [y for _, y in train] == sum((batches[f"data_batch_{i}"][b"labels"] for i in range(1, 6)), [])
    image, label = train[0]
    assert image.shape == (3072,) and image.dtype == np.float32 and isinstance(label, int)
    test = list(cifar.test10()())
    assert [y for _, y in test] == batches["test_batch"][b"labels"]


def test_pickles_written_by_numpy_2_and_plain_tar(tarball, files):
    batch = files.cifar_batch(2)
    files.write_tar(tarball, {ROOT + "test_batch": files.pickled(batch, numpy1_names=False)}, mode="w")
    assert len(list(cifar.test10()())) == 2


def test_pickle_that_would_run_code_is_refused(tarball, files):
    evil = pickle.dumps({b"data": print, b"labels": []}, protocol=2)
    files.write_tar(tarball, {ROOT + "test_batch": evil})
    with pytest.raises(DatasetError, match=r"test_batch in .*cannot be unpickled: refusing to load (__builtin__|builtins)\.print"):
        list(cifar.test10()())


def test_not_a_tarball(tarball):
    tarball.parent.mkdir(parents=True)
    tarball.write_bytes(b"<html>404 not found</html>" * 20)
    with pytest.raises(DatasetError, match=r"cifar-10-python\.tar\.gz is not a readable tar archive"):
        list(cifar.train10()())


def test_truncated_tarball(tarball, files):
    _, members = standard_members(files)
    files.write_tar(tarball, members)
    data = tarball.read_bytes()
    tarball.write_bytes(data[: len(data) // 2])
    with pytest.raises(DatasetError, match=r"cifar-10-python\.tar\.gz"):
        list(cifar.train10()())


def test_missing_labels_key(tarball, files):
    batch = files.cifar_batch(2)
    del batch[b"labels"]
    files.write_tar(tarball, {ROOT + "data_batch_1": files.pickled(batch)})
    with pytest.raises(DatasetError, match=r"data_batch_1 in .* is not a CIFAR-10 batch: expected a dict with b'data' and b'labels'"):
        list(cifar.train10()())


def test_wrong_image_size(tarball, files):
    batch = files.cifar_batch(2)
    batch[b"data"] = batch[b"data"][:, :100]
    files.write_tar(tarball, {ROOT + "data_batch_1": files.pickled(batch)})
    with pytest.raises(DatasetError, match=r"uint8 array of shape \(2, 100\), expected uint8 of shape \(n, 3072\)"):
        list(cifar.train10()())


def test_labels_and_images_disagree(tarball, files):
    batch = files.cifar_batch(3)
    batch[b"labels"] = batch[b"labels"][:2]
    files.write_tar(tarball, {ROOT + "data_batch_1": files.pickled(batch)})
    with pytest.raises(DatasetError, match="holds 3 images but 2 labels"):
        list(cifar.train10()())


def test_no_such_batch(tarball, files):
    files.write_tar(tarball, {ROOT + "data_batch_1": files.pickled(files.cifar_batch(1))})
    with pytest.raises(DatasetError, match="holds no test_batch"):
        list(cifar.test10()())


def test_missing_tarball(data_home, offline):
    with pytest.raises(DatasetError) as caught:
        cifar.train10()
    assert str(data_home / "cifar" / "cifar-10-python.tar.gz") in str(caught.value)
    assert [url for url, _ in offline] == [cifar.URL]
