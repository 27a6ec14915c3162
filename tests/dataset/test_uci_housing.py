"""uci_housing: a tiny housing.data in the real layout, normalized and split as PaddlePaddle did."""
import numpy as np
import pytest

from paddle.dataset import DatasetError, uci_housing


def table(n=10, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(0, 100, size=(n, 14)).round(4)


def write_housing(data_home, rows):
    folder = data_home / "uci_housing"
    folder.mkdir(parents=True, exist_ok=True)
    # The real file: fixed-width columns with leading spaces, one house per line.
    text = "".join(" " + " ".join(f"{v:8.4f}" for v in row) + "\n" for row in rows)
    (folder / "housing.data").write_text(text)
    return folder / "housing.data"


def test_split_and_normalization(data_home):
    raw = table(10)
    write_housing(data_home, raw)
    train, test = list(uci_housing.train()()), list(uci_housing.test()())
    assert len(train) == 8 and len(test) == 2
    features = raw[:, :13]
    expected = (features - features.mean(0)) / (features.max(0) - features.min(0))
    got = np.array([f for f, _ in train + test])
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    for f, price in train + test:
        assert f.shape == (13,) and f.dtype == np.float32
        assert price.shape == (1,) and price.dtype == np.float32
    np.testing.assert_allclose([p[0] for _, p in train], raw[:8, 13], rtol=1e-6)
    np.testing.assert_allclose([p[0] for _, p in test], raw[8:, 13], rtol=1e-6)


def test_constant_column_does_not_divide_by_zero(data_home):
    raw = table(5)
    raw[:, 3] = 1.0  # CHAS is 0/1: a cut-down file may hold only one value
    write_housing(data_home, raw)
    features = np.array([f for f, _ in uci_housing.train()()])
    assert np.isfinite(features).all() and (features[:, 3] == 0).all()


def test_blank_lines_are_skipped(data_home):
    path = write_housing(data_home, table(5))
    path.write_text(path.read_text() + "\n   \n")
    assert len(list(uci_housing.train()())) == 4


def test_short_line_names_file_and_line(data_home):
    path = write_housing(data_home, table(5))
    lines = path.read_text().splitlines()
    lines[2] = " ".join(lines[2].split()[:13])
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DatasetError, match=r"line 3 of .*housing\.data holds 13 values, expected 14"):
        list(uci_housing.train()())


def test_non_number(data_home):
    path = write_housing(data_home, table(3))
    path.write_text(path.read_text().replace(path.read_text().split()[5], "n/a", 1))
    with pytest.raises(DatasetError, match=r"line 1 of .*not a number"):
        list(uci_housing.test()())


def test_empty_file(data_home):
    write_housing(data_home, [])
    with pytest.raises(DatasetError, match="holds no data"):
        list(uci_housing.train()())


def test_missing_file(data_home, offline):
    with pytest.raises(DatasetError) as caught:
        uci_housing.test()
    assert str(data_home / "uci_housing" / "housing.data") in str(caught.value)
    assert len(offline) == 2
