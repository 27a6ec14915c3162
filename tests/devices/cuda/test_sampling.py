"""The CUDA backend's random draws: the NumPy references draw csrc/random.cpp's numbers bit
for bit from a seed in device memory, which the host writes before each run from the op's
seed function, as the CPU kernel takes its seed (so the GPU draws the CPU's numbers); and
the random tests of tests/test_random.py run again on the simulated GPU."""
import numpy as np
import pytest

import paddle as pd
import test_random as cpu_tests
from devices.cuda.simulated import Prepared, backend, context, run_node

from paddle import _C
from paddle.devices.cuda import sampling

globals().update({f"{n}_simulated": getattr(cpu_tests, n) for n in dir(cpu_tests)
                  if n.startswith("test_")})


@pytest.fixture(autouse=True)
def _on_simulated_gpu(simulated_gpu):
    """Every test here, tests/test_random.py's included, runs its plans on the simulated
    GPU."""


def _stream(seed):
    """A stream with a fixed seed, written into its device word."""
    stream = sampling.Stream(context()[0], lambda: seed)
    stream.refresh()
    return stream


def test_splitmix64_is_csrc_common():
    # Known values of splitmix64 (seeded 0: the reference sequence of its author).
    z = sampling.splitmix64(np.array([0, 0x9E3779B97F4A7C15], dtype=np.uint64))
    assert [hex(int(v)) for v in z] == ["0xe220a8397b1dcdaf", "0x6e789e6aa1b965f4"]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("kind,a,b", [(0, -2.0, 3.0), (1, 1.0, 2.0), (2, 0.0, 1.0),
                                      (3, -5.0, 7.0), (4, 0.3, 2.0), (6, 0.4, 1.0),
                                      (6, 3.0, 2.0)])
def test_fill_is_the_cpp_fill(kind, a, b, dtype):
    if np.dtype(dtype).kind == "i" and kind != 3:
        pytest.skip("integers hold randint draws only")
    key = 987654321
    out, want = np.empty(5000, dtype), np.empty(5000, dtype)
    stream = _stream(key)
    sampling.RANDOM_FILL.bind(np, out.dtype, out.size, out, stream.seed, out.size, kind, a, b)()
    _C.random_fill(want, kind, a, b, key)
    if kind in (1, 2, 6):  # log, pow and cos of NumPy and of the C library may differ in the last bit
        np.testing.assert_allclose(out, want, rtol=1e-14, atol=1e-14)
    else:
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_of_a_tensor_of_shapes_is_the_cpp_gamma(dtype):
    alpha = np.random.default_rng(0).choice([0.2, 1.0, 3.5, -1.0, np.nan], 3000).astype(dtype)
    out, want = np.empty(3000, dtype), np.empty(3000, dtype)
    stream = _stream(77)
    sampling.GAMMA.bind(np, out.dtype, out.size, out, alpha, stream.seed, out.size)()
    _C.random_gamma(want, alpha, 77)
    np.testing.assert_allclose(out, want, rtol=1e-6 if dtype == "float32" else 1e-13)
    assert np.array_equal(np.isnan(want), ~(alpha > 0))  # NaN where the shape is not > 0


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_permutation_is_the_cpp_permutation(dtype):
    stream = _stream(42)
    out, want = np.empty(257, dtype), np.empty(257, dtype)
    sampling.PERMUTATION.bind(np, out.dtype, 1, out, stream.seed, out.size)()
    _C.random_fill(want, 5, 0.0, 0.0, 42)
    np.testing.assert_array_equal(out, want)
    assert sorted(out.tolist()) == list(range(257))


def test_the_seed_is_written_before_each_run_and_uploaded_only_when_it_changes(monkeypatch):
    ctx, hooks = context()
    uploads = []
    upload = type(ctx.device).upload

    def counted(dev, buf, host):
        uploads.append(int(host[0]))
        upload(dev, buf, host)
    monkeypatch.setattr(type(ctx.device), "upload", counted)
    generator = pd.random.SeedGenerator(3)
    moving = sampling.stream_for(ctx, generator.next)
    fixed = sampling.stream_for(ctx, lambda: 11)
    assert hooks.before == [moving.refresh, fixed.refresh]  # host work before each run
    same = pd.random.SeedGenerator(3)
    expected = [same.next() for _ in range(3)]
    for want in expected:
        for fn in hooks.before:
            fn()
        assert moving.seed.tolist() == [want] and fixed.seed.tolist() == [11]
    assert uploads == [expected[0], 11] + expected[1:]  # the fixed seed once


@pytest.mark.parametrize("seed", [None, 5])
def test_the_gpu_draws_the_cpus_numbers(seed):
    """A random op's seed is the one the CPU kernel takes at the same run, so its draws are
    the CPU's (here `seed=None`: paddle's random state after pd.seed, over three runs)."""
    x = pd.random.uniform((4, 5), seed=seed)
    gpu = [pd.eval(x) for _ in [pd.seed(2)] + [0] * 2]
    cpu = [pd.eval(x, device="cpu") for _ in [pd.seed(2)] + [0] * 2]
    for a, b in zip(gpu, cpu):
        np.testing.assert_array_equal(a, b)
    assert (seed is None) != np.array_equal(gpu[0], gpu[1])


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
    pd.seed(11)  # the next run's seed comes from the new state
    prepared.run()
    np.testing.assert_array_equal(out, first)
    prepared.run()
    np.testing.assert_array_equal(out, second)
