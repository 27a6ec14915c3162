"""CUDA kernels of the random op, and the device-side seeds that it and dropout draw from
(csrc/cuda/sampling.cu).

A run of a random op draws from a seed in device memory with csrc/random.cpp's generator,
bit for bit. The seed is the one the CPU kernel takes at that run, `seed_fn()` (paddle's
random state for `seed=None` and dropout, a SeedGenerator's next seed, or a fixed
`seed=<int>`): a `ctx.before_run` hook calls it on the host before each run and writes it
into the device word when it changed. So a run captured in a CUDA graph draws new numbers
at each replay (the graph reads the seed from device memory, never a captured constant);
the GPU draws the CPU's numbers; `pd.seed(n)` repeats them; and restoring paddle's random
state (a checkpoint's, `load_model`) resumes training with the draws it would have made.

The NumPy references compute splitmix64 on uint64 arrays bit for bit as the kernels do.
"""
import numpy as np

from paddle.devices.cuda.raw import Kernel, sequence
from paddle.devices.cuda.table import kernel
from paddle.lowlevel.op import RANDOM_KINDS

_U = np.uint64
GOLDEN = _U(0x9E3779B97F4A7C15)
TWO_POW_53 = 9007199254740992.0


def splitmix64(z):
    """csrc/common.h's splitmix64 of each element of a uint64 array (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = np.asarray(z, dtype=_U) + GOLDEN
        z = (z ^ (z >> _U(30))) * _U(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> _U(27))) * _U(0x94D049BB133111EB)
        return z ^ (z >> _U(31))


def run_base(seed):
    """The base of a run's draws: splitmix64 of its seed (a uint64 array of one word)."""
    return splitmix64(seed[0:1])


def _unit(bits):
    return (bits >> _U(11)).astype(np.float64) / TWO_POW_53


def _std_normal(base, i):
    with np.errstate(over="ignore"):
        u1 = ((splitmix64(base + _U(2) * i) >> _U(11)).astype(np.float64) + 1.0) / TWO_POW_53
        u2 = _unit(splitmix64(base + _U(2) * i + _U(1)))
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def _truncated(base, i):
    z = np.zeros(i.shape)
    pending = np.ones(i.shape, bool)
    for attempt in range(64):
        with np.errstate(over="ignore"):
            stream = splitmix64(base ^ (_U(attempt) * _U(0xD1B54A32D192ED03)))
        draw = _std_normal(stream, i[pending])
        ok = (draw >= -2.0) & (draw <= 2.0)
        z[np.flatnonzero(pending)[ok]] = draw[ok]
        pending[np.flatnonzero(pending)[ok]] = False
        if not pending.any():
            break
    return z


def _gamma_stream(base, attempt, tag):
    with np.errstate(over="ignore"):
        return splitmix64(base ^ (_U(3 * attempt + tag + 1) * _U(0x9E6C63D0676A9A99)))


def _open_unit(bits):
    """(0, 1]: csrc/random.cpp's (bits >> 11 + 1) / 2**53."""
    return ((bits >> _U(11)).astype(np.float64) + 1.0) / TWO_POW_53


def _std_gamma(base, i, alpha):
    """csrc/random.cpp's std_gamma (Marsaglia and Tsang), vectorized over the elements."""
    shape = alpha + 1.0 if alpha < 1.0 else alpha
    d = shape - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    g = np.full(i.shape, d)
    pending = np.ones(i.shape, bool)
    for attempt in range(64):
        idx = i[pending]
        z = _std_normal(_gamma_stream(base, attempt, 1), idx)
        v = 1.0 + c * z
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            u = _open_unit(splitmix64(_gamma_stream(base, attempt, 2) + idx))
            v3 = v * v * v
            ok = (v > 0.0) & (np.log(u) < 0.5 * z * z + d - d * v3 + d * np.log(v3))
        rows = np.flatnonzero(pending)[ok]
        g[rows] = d * v3[ok]
        pending[rows] = False
        if not pending.any():
            break
    if alpha < 1.0:
        with np.errstate(over="ignore"):
            u = _open_unit(splitmix64(_gamma_stream(base, 64, 0) + i))
        g = g * np.power(u, 1.0 / alpha)
    return g


def _random_fill_ref(out, seed, n, kind, a, b):
    base, i = run_base(seed), np.arange(n, dtype=_U)
    with np.errstate(over="ignore"):
        if kind == 0:
            v = a + (b - a) * _unit(splitmix64(base + i))
        elif kind == 1:
            v = a + b * _std_normal(base, i)
        elif kind == 2:
            v = a + b * _truncated(base, i)
        elif kind == 3:
            v = np.floor(a + (b - a) * _unit(splitmix64(base + i)))
        elif kind == 6:
            v = b * _std_gamma(base, i, a)
        else:
            v = np.where(_unit(splitmix64(base + i)) >= a, b, 0.0)
    out.reshape(-1)[:n] = v.astype(out.dtype)


def _gamma_ref(out, alpha, seed, n):
    base, i = run_base(seed), np.arange(n, dtype=_U)
    a = alpha.reshape(-1)[:n].astype(np.float64)
    v = np.full(n, np.nan)
    for value in np.unique(a[np.isfinite(a) & (a > 0)]):  # std_gamma takes one shape
        rows = a == value
        v[rows] = _std_gamma(base, i[rows], float(value))
    out.reshape(-1)[:n] = v.astype(out.dtype)


def _permutation_ref(out, seed, n):
    base = run_base(seed)
    flat = out.reshape(-1)
    flat[:n] = np.arange(n)
    if n > 1:
        with np.errstate(over="ignore"):
            draws = splitmix64(base + np.arange(n, dtype=_U))
        for i in range(n - 1, 0, -1):
            j = int(draws[i] % _U(i + 1))
            flat[i], flat[j] = flat[j], flat[i]


def _dropout_ref(x, y, mask, seed, n, rate):
    base = run_base(seed)
    threshold = _U(int(rate * TWO_POW_53))
    with np.errstate(over="ignore"):
        bits = splitmix64(base + np.arange(n, dtype=_U)) >> _U(11)
    keep = x.dtype.type(1.0 / (1.0 - rate))
    m = np.where((bits >= threshold) | (rate == 0.0), keep, x.dtype.type(0))
    mask.reshape(-1)[:n] = m
    np.multiply(x.reshape(-1)[:n], m, out=y.reshape(-1)[:n])


ALL = ("float32", "float64", "int32", "int64")
RANDOM_FILL = Kernel("sampling.cu", "random_fill", _random_fill_ref, dtypes=ALL)
PERMUTATION = Kernel("sampling.cu", "random_permutation", _permutation_ref,
                     dtypes=("int32", "int64"))
DROPOUT = Kernel("sampling.cu", "dropout", _dropout_ref)
GAMMA = Kernel("sampling.cu", "random_gamma", _gamma_ref)


class Stream:
    """The seed of a random op's runs, one uint64 in device memory (`seed`), written before
    each run from `seed_fn()` as the CPU kernel takes its seed (an upload only when the
    seed changed: a fixed seed is written once).

    Args:
        ctx: the prepare function's context (the device buffer and the hook come from it).
        seed_fn: the op's seed function, called once per run, on the host.
    """

    def __init__(self, ctx, seed_fn):
        self.device, self.seed_fn = ctx.device, seed_fn
        self.seed = ctx.empty((1,), np.uint64)
        self.host = np.zeros(1, np.uint64)
        self.written = None  # the seed the device word holds (None: none yet)
        ctx.before_run(self.refresh)

    def refresh(self):
        """Before a run: this run's seed into the device word."""
        seed = int(self.seed_fn()) % 2 ** 64
        if seed != self.written:
            self.host[0] = seed
            self.device.upload(self.seed, self.host)
            self.written = seed

    def run(self, draw):
        """The run of an op drawing with `draw` from this stream's seed."""
        run = sequence([draw])
        run.stream = self  # for tests and debugging: the seed behind the draws
        return run


def stream_for(ctx, seed_fn):
    """The device seed of an op whose CPU kernel calls `seed_fn()` at every run."""
    return Stream(ctx, seed_fn)


@kernel("random")
def _random(node, ins, outs, ctx):
    attrs, out, xp = node.attrs, outs[0], ctx.xp
    if attrs["inference_value"] is not None and not ctx.training:
        value = attrs["inference_value"]
        return lambda: out.fill(value)
    code, a, b = RANDOM_KINDS.index(attrs["kind"]), float(attrs["a"]), float(attrs["b"])
    _check_parameters(attrs["kind"], a, b, out.dtype)
    stream = stream_for(ctx, attrs["seed_fn"])
    if attrs["kind"] == "permutation":
        draw = PERMUTATION.bind(xp, out.dtype, 1, out, stream.seed, out.size)
    else:
        draw = RANDOM_FILL.bind(xp, out.dtype, out.size, out, stream.seed, out.size, code, a, b)
    return stream.run(draw)


@kernel("random_gamma")
def _random_gamma(node, ins, outs, ctx):
    alpha, out = ins[0], outs[0]
    if node.attrs["inference_value"] is not None and not ctx.training:
        value = node.attrs["inference_value"]
        return lambda: out.fill(value)
    stream = stream_for(ctx, node.attrs["seed_fn"])
    return stream.run(GAMMA.bind(ctx.xp, out.dtype, out.size, out, alpha, stream.seed,
                                 out.size))


def _check_parameters(kind, a, b, dtype):
    """csrc/random.cpp's checks, made once when the kernel is prepared."""
    if not (np.isfinite(a) and np.isfinite(b)):
        raise ValueError("random_fill: parameters must be finite")
    if kind == "randint" and not b > a:
        raise ValueError("random_fill: randint needs maxval > minval")
    if kind in ("normal", "truncated_normal") and b < 0:
        raise ValueError("random_fill: stddev must be >= 0")
    if kind == "keep_mask" and not 0 <= a < 1:
        raise ValueError("random_fill: the drop rate must be in [0, 1)")
    if kind == "gamma" and not (a > 0 and b > 0):
        raise ValueError("random_fill: gamma needs a shape and a scale > 0")
    dtype = np.dtype(dtype)
    if dtype.kind == "i":
        if kind not in ("randint", "permutation"):
            raise TypeError(f"random_fill: argument 'out' of dtype {dtype.name} can hold "
                            f"randint draws or a permutation only")
        info = np.iinfo(dtype)
        if kind == "randint" and not (a >= info.min and b <= -float(info.min)):
            raise ValueError(f"random_fill: randint bounds [{a}, {b}) do not fit in "
                             f"{dtype.name}")
