"""dropout and embedding on the CUDA backend against the C++ kernels. (Their tests in
tests/lowlevel run on the simulated GPU too.)"""
import numpy as np
import pytest

import paddle as pd
from paddle import _C
from devices.cuda.simulated import run_node


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rate", [0.0, 0.3, 0.9])
def test_dropout_mask_is_the_cpp_mask_for_the_same_seed(rate, dtype):
    """The kernel draws what csrc/random.cpp's dropout draws for the seed in its device word."""
    from paddle import _C
    from devices.cuda.simulated import context
    from paddle.devices.cuda.sampling import DROPOUT, Stream
    x = np.random.default_rng(0).standard_normal(1000).astype(dtype)
    stream = Stream(context()[0], lambda: 12345)
    stream.refresh()
    y, mask = np.empty_like(x), np.empty_like(x)
    DROPOUT.bind(np, x.dtype, x.size, x, y, mask, stream.seed, x.size, rate)()
    y_cpu, mask_cpu = np.empty_like(x), np.empty_like(x)
    _C.dropout(x, y_cpu, mask_cpu, rate, 12345)
    np.testing.assert_array_equal(mask, mask_cpu)
    np.testing.assert_array_equal(y, y_cpu)


def test_dropout_draws_anew_each_run_the_cpus_mask():
    """One prepared kernel run twice: before each run the host wrote that run's seed from
    paddle's random state, the seed the CPU kernel takes, so the masks are the CPU's."""
    from devices.cuda.simulated import Prepared, backend
    x = np.ones((8, 64), np.float32)
    node = pd.dropout(pd.data("x", shape=(8, 64)), 0.5).node
    y, mask = np.empty_like(x), np.empty_like(x)
    pd.seed(9)
    prepared = Prepared(node, [x], [y, mask], backend("simulated"), training=True)
    prepared.run()
    first = mask.copy()
    prepared.run()
    assert not np.array_equal(first, mask)
    pd.seed(9)
    for want in (first, mask):
        cpu_y, cpu_mask = np.empty_like(x), np.empty_like(x)
        _C.dropout(x, cpu_y, cpu_mask, 0.5, pd.lowlevel.random_state.next_seed())
        np.testing.assert_array_equal(want, cpu_mask)
    np.testing.assert_array_equal(y, cpu_y)


def test_embedding_matches_cpp_and_checks_ids():
    table = pd.constant(np.random.default_rng(1).standard_normal((7, 3)), "float64")
    ids = pd.data("ids", shape=(2, 4), dtype="int64")
    node = pd.embedding(ids, table).node
    feeds = {ids: np.array([[0, 6, 3, 3], [1, 2, 5, 0]])}
    _, want = run_node(node, "cpu", feeds)
    _, got = run_node(node, "simulated", feeds)
    np.testing.assert_array_equal(got[0], want[0])
    bad = {ids: np.array([[0, 6, 3, 3], [1, 7, 5, -2]])}
    with pytest.raises(IndexError, match=r"embedding: id 7 at position 5 is outside the "
                                         r"table's 7 rows \[0, 7\): ids is \(2, 4\)"):
        run_node(node, "simulated", bad)
