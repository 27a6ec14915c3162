"""The gradient checker itself: it passes on correct rules and fails on a wrong one."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle.lowlevel.op import OPS


def test_matmul_and_softmax_pass():
    rng = np.random.default_rng(0)
    check_gradients(lambda x, w: pd.softmax(pd.matmul(x, w)),
                    [rng.standard_normal((3, 4)), rng.standard_normal((4, 5))])


def test_second_order_of_tanh():
    check_gradients(lambda x: pd.tanh(x) * x, [np.linspace(-1, 1, 6)], order=2)


def test_checker_catches_a_wrong_rule(monkeypatch):
    monkeypatch.setattr(type(OPS["exp"]), "dx", staticmethod(lambda x, y, g: g * y * 2.0))
    with pytest.raises(AssertionError):
        check_gradients(pd.exp, [np.linspace(-1, 1, 5)])
