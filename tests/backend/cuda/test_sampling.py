"""The CUDA backend's random streams: the NumPy references draw csrc/random.cpp's numbers
bit for bit at counter 0, the counter moves on the device, pd.seed restarts streams; and
the random tests of tests/test_random.py run again on the simulated GPU."""
import numpy as np
import pytest

import paddle as pd
import test_random as cpu_tests
from backend.cuda.simulated import Prepared, backend, context, run_node

from paddle import _C
from paddle.backend.cuda import sampling

globals().update({f"{n}_simulated": getattr(cpu_tests, n) for n in dir(cpu_tests)
                  if n.startswith("test_")})


@pytest.fixture(autouse=True)
def _on_simulated_gpu(simulated_gpu):
    """Every test here, tests/test_random.py's included, runs its plans on the simulated
    GPU."""


def _stream(key, moves=True):
    return sampling.Stream(context()[0], key, moves)


def test_splitmix64_is_csrc_common():
    # Known values of splitmix64 (seeded 0: the reference sequence of its author).
    z = sampling.splitmix64(np.array([0, 0x9E3779B97F4A7C15], dtype=np.uint64))
    assert [hex(int(v)) for v in z] == ["0xe220a8397b1dcdaf", "0x6e789e6aa1b965f4"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("kind,a,b", [(0, -2.0, 3.0), (1, 1.0, 2.0), (2, 0.0, 1.0),
                                      (3, -5.0, 7.0), (4, 0.3, 2.0)])
def test_fill_at_counter_zero_is_the_cpp_fill(kind, a, b, dtype):
    if np.dtype(dtype).kind == "i" and kind != 3:
        pytest.skip("integers hold randint draws only")
    key = 987654321
    out, want = np.empty(5000, dtype), np.empty(5000, dtype)
    stream = _stream(key)
    sampling.RANDOM_FILL.bind(np, out.dtype, out.size, out, stream.state, out.size, kind, a, b)()
    _C.random_fill(want, kind, a, b, key)
    if kind in (1, 2):  # log and cos of NumPy and of the C library may differ in the last bit
        np.testing.assert_allclose(out, want, rtol=1e-14, atol=1e-14)
    else:
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_permutation_is_the_cpp_permutation(dtype):
    stream = _stream(42)
    out, want = np.empty(257, dtype), np.empty(257, dtype)
    sampling.PERMUTATION.bind(np, out.dtype, 1, out, stream.state, out.size)()
    _C.random_fill(want, 5, 0.0, 0.0, 42)
    np.testing.assert_array_equal(out, want)
    assert sorted(out.tolist()) == list(range(257))


def test_counter_moves_only_for_streams():
    stream = _stream(1)
    stream.after_draw()()
    stream.after_draw()()
    assert stream.state.tolist() == [1, 2]
    assert _stream(1, moves=False).after_draw() is None


def test_seed_kinds():
    ctx, hooks = context()
    moving = sampling.stream_for(ctx, pd.random.SeedGenerator(3).next)
    fixed = sampling.stream_for(ctx, lambda: 11)
    following = sampling.stream_for(ctx, pd.lowlevel.random.next_seed)
    assert moving.moves and not moving.follows_pd_seed
    assert not fixed.moves and fixed.state.tolist() == [11, 0]
    assert following.moves and following.follows_pd_seed
    pd.seed(4)
    expected = pd.lowlevel.random.next_seed()
    pd.seed(4)
    assert following.reseeded
    following.refresh()
    assert following.state.tolist() == [expected, 0] and not following.reseeded


def test_only_streams_following_pd_seed_have_a_hook_before_the_run():
    free = pd.random.uniform((3,)).node
    fixed = pd.random.uniform((3,), seed=5).node
    dev = backend("simulated")
    assert len(Prepared(free, [], [np.empty(3, np.float32)], dev, True).hooks.before) == 1
    assert not Prepared(fixed, [], [np.empty(3, np.float32)], dev, True).hooks.before
    _, (a,) = run_node(fixed, "simulated")
    _, (b,) = run_node(fixed, "cpu")
    np.testing.assert_array_equal(a, b)  # a fixed seed draws the CPU's numbers


def test_pd_seed_repeats_a_prepared_streams_draws():
    node = pd.random.normal((6,)).node
    out = np.empty(6, np.float32)
    pd.seed(11)
    prepared = Prepared(node, [], [out], backend("simulated"), True)
    prepared.run()
    first = out.copy()
    prepared.run()
    second = out.copy()
    assert not np.array_equal(first, second)
    pd.seed(11)  # the next run re-keys the stream from the new state, counter 0
    prepared.run()
    np.testing.assert_array_equal(out, first)
    prepared.run()
    np.testing.assert_array_equal(out, second)
