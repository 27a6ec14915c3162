"""digits: scikit-learn's 8x8 digits, split 80/20 with a fixed permutation."""
import sys

import numpy as np
import pytest

from paddle.dataset import digits
from paddle.lowlevel.random_state import seed


def test_missing_scikit_learn_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)  # makes the import fail
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        digits.train()


def test_train_and_test():
    pytest.importorskip("sklearn")
    train, test = list(digits.train()()), list(digits.test()())
    assert (len(train), len(test)) == (1437, 360)
    for image, label in train[:20] + test[:20]:
        assert image.shape == (64,) and image.dtype == np.float32
        assert 0.0 <= image.min() and image.max() <= 1.0
        assert isinstance(label, int) and 0 <= label <= 9
    assert max(float(image.max()) for image, _ in train) == 1.0
    assert sorted({label for _, label in test}) == list(range(10))


def test_split_is_fixed_and_ignores_the_global_seed():
    pytest.importorskip("sklearn")
    from sklearn.datasets import load_digits
    seed(1)
    first = [label for _, label in digits.train()()]
    seed(2)
    assert [label for _, label in digits.train()()] == first
    # The two parts are disjoint and together are the whole set.
    both = np.array([image for image, _ in list(digits.train()()) + list(digits.test()())])
    whole = (load_digits().data / 16).astype(np.float32)
    assert sorted(map(bytes, both)) == sorted(map(bytes, whole))
