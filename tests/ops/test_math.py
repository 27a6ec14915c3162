"""pd.ops's keras.ops.math functions (paddle/ops/math.py): segment reductions, top_k,
in_top_k, logsumexp, extract_sequences, cdist, rsqrt; values against NumPy on every device
and bad input named at the user's line."""
import numpy as np
import pytest

import paddle as pd
from paddle import ops
from paddle.errors import ShapeError

RNG = np.random.default_rng(11)
DATA = RNG.standard_normal((6, 3)).astype(np.float32)
IDS = np.array([0, 2, 0, 3, 2, 0], np.int32)


def _segments(reduce, empty):
    out = np.full((5, 3), empty, np.float32)
    for s in range(5):
        rows = DATA[IDS == s]
        if len(rows):
            out[s] = reduce(rows, axis=0)
    return out


CASES = {
    "segment_sum": (lambda: ops.segment_sum(DATA, IDS, 5), _segments(np.sum, 0.0)),
    "segment_max": (lambda: ops.segment_max(DATA, IDS, 5), _segments(np.max, -np.inf)),
    "segment_min": (lambda: ops.segment_min(DATA, IDS, 5), _segments(np.min, np.inf)),
    "segment_prod": (lambda: ops.segment_prod(DATA, IDS, 5), _segments(np.prod, 1.0)),
    "segment_sum_int": (lambda: ops.segment_sum(np.array([1, 2, 3], np.int32),
                                                np.array([1, 1, 0]), 2), np.int32([3, 3])),
    "segment_max_int": (lambda: ops.segment_max(np.array([1, 2, 3], np.int32),
                                                np.array([1, 1, 1]), 2),
                        np.int32([np.iinfo(np.int32).min, 3])),
    "top_k_values": (lambda: ops.top_k(DATA, 2)[0], -np.sort(-DATA, axis=1)[:, :2]),
    "top_k_indices": (lambda: ops.top_k(DATA.T, 4)[1],
                      np.argsort(-DATA.T, axis=1, kind="stable")[:, :4].astype(np.int32)),
    "top_k_ties": (lambda: ops.top_k(np.array([1, 3, 3, 2]), 3)[1], np.int32([1, 2, 3])),
    "in_top_k": (lambda: ops.in_top_k(np.array([0, 1]), np.array([[1.0, 2.0, 3.0],
                                                                 [3.0, 3.0, 1.0]]), 1),
                 np.array([False, True])),
    "in_top_k_2": (lambda: ops.in_top_k(np.array([2, 0, 1]), DATA[:3], 2),
                   np.array([(DATA[i] > DATA[i, t]).sum() < 2 for i, t in
                             enumerate([2, 0, 1])])),
    "logsumexp": (lambda: ops.logsumexp(DATA, axis=1),
                  np.log(np.exp(DATA.astype(np.float64)).sum(1))),
    "logsumexp_inf": (lambda: ops.logsumexp(np.array([-np.inf, -np.inf], np.float32)),
                      np.float32(-np.inf)),
    "logsumexp_keep": (lambda: ops.logsumexp(DATA, keepdims=True),
                       np.log(np.exp(DATA.astype(np.float64)).sum(keepdims=True))),
    "extract_sequences": (lambda: ops.extract_sequences(DATA.T, 3, 2),
                          np.stack([DATA.T[:, 0:3], DATA.T[:, 2:5]], axis=1)),
    "cdist": (lambda: ops.cdist(DATA[:4], DATA[2:]),
              np.sqrt(((DATA[:4, None] - DATA[None, 2:]) ** 2).sum(-1))),
    "rsqrt": (lambda: ops.rsqrt(np.abs(DATA) + 1.0), 1.0 / np.sqrt(np.abs(DATA) + 1.0)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_numpy(name, device):
    build, expected = CASES[name]
    got = pd.eval(build())
    expected = np.asarray(expected)
    assert got.shape == expected.shape
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, expected)


def test_a_segment_id_outside_raises_when_run():
    with pytest.raises(IndexError, match="outside"):
        pd.eval(ops.segment_sum(DATA, np.array([0, 1, 9, 0, 0, 0]), 3))


BAD = [
    (lambda: ops.segment_sum(DATA, IDS[:4], 5), ShapeError, "segment_sum: expected one"),
    (lambda: ops.segment_max(DATA, DATA[:, 0], 5), TypeError, "segment_max: expected 1-D"),
    (lambda: ops.top_k(DATA, -1), ValueError, "top_k: expected 0 <= k <= 3"),
    (lambda: ops.in_top_k(IDS, DATA[0], 1), ShapeError, "in_top_k: expected 1-D targets"),
    (lambda: ops.extract_sequences(DATA, 4, 1), ValueError, "extract_sequences: a signal"),
    (lambda: ops.cdist(DATA, DATA[:, :2]), ValueError, "cdist: the last axes differ"),
    (lambda: ops.logsumexp(DATA, axis=3), ShapeError, "logsumexp: axis 3 is out of range"),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_input_names_the_users_line(case):
    build, error, message = BAD[case]
    with pytest.raises(error, match=message + r".*\(at test_math.py:\d+\)"):
        build()
