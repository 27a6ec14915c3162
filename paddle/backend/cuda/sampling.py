"""CUDA kernels of the random op, and the device-side random streams that dropout shares
(csrc/cuda/sampling.cu).

A stream is a key and a counter in device memory: a run draws from (key, counter) with
csrc/random.cpp's generator, then a one-thread kernel advances the counter, so a run
captured in a CUDA graph draws new numbers at each replay with no value from the host. The
key is taken from the op's `seed_fn` when the kernel is prepared:

- `seed_fn` is paddle's random state (`seed=None`, dropout): the key is its next seed;
  after `pd.seed(n)` each such stream, before its next run (a `ctx.before_run` hook),
  takes a new key from the new state and restarts its counter, so runs after `pd.seed(n)`
  repeat;
- a SeedGenerator's `next`: the key is its next seed, the counter moves every run;
- anything else that gives the same seed twice (`seed=<int>`): the counter never moves and
  every run draws the same numbers, those of the CPU kernel for that seed.

The NumPy references compute splitmix64 on uint64 arrays bit for bit as the kernels do.
"""
import weakref

import numpy as np

from paddle.backend.cuda import kernel
from paddle.backend.cuda.raw import Kernel, sequence
from paddle.lowlevel import random as paddle_random
from paddle.lowlevel.ops.sampling import KINDS

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


def run_base(state):
    """The stream's base for this run: splitmix64(key + counter * golden ratio)."""
    with np.errstate(over="ignore"):
        return splitmix64(state[0:1] + state[1:2] * GOLDEN)


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


def _random_fill_ref(out, state, n, kind, a, b):
    base, i = run_base(state), np.arange(n, dtype=_U)
    with np.errstate(over="ignore"):
        if kind == 0:
            v = a + (b - a) * _unit(splitmix64(base + i))
        elif kind == 1:
            v = a + b * _std_normal(base, i)
        elif kind == 2:
            v = a + b * _truncated(base, i)
        elif kind == 3:
            v = np.floor(a + (b - a) * _unit(splitmix64(base + i)))
        else:
            v = np.where(_unit(splitmix64(base + i)) >= a, b, 0.0)
    out.reshape(-1)[:n] = v.astype(out.dtype)


def _permutation_ref(out, state, n):
    base = run_base(state)
    flat = out.reshape(-1)
    flat[:n] = np.arange(n)
    if n > 1:
        with np.errstate(over="ignore"):
            draws = splitmix64(base + np.arange(n, dtype=_U))
        for i in range(n - 1, 0, -1):
            j = int(draws[i] % _U(i + 1))
            flat[i], flat[j] = flat[j], flat[i]


def _dropout_ref(x, y, mask, state, n, rate):
    base = run_base(state)
    threshold = _U(int(rate * TWO_POW_53))
    with np.errstate(over="ignore"):
        bits = splitmix64(base + np.arange(n, dtype=_U)) >> _U(11)
    keep = x.dtype.type(1.0 / (1.0 - rate))
    m = np.where((bits >= threshold) | (rate == 0.0), keep, x.dtype.type(0))
    mask.reshape(-1)[:n] = m
    np.multiply(x.reshape(-1)[:n], m, out=y.reshape(-1)[:n])


def _advance_ref(state):
    with np.errstate(over="ignore"):
        state[1:2] += _U(1)


ALL = ("float32", "float64", "int32", "int64")
RANDOM_FILL = Kernel("sampling.cu", "random_fill", _random_fill_ref, dtypes=ALL)
PERMUTATION = Kernel("sampling.cu", "random_permutation", _permutation_ref,
                     dtypes=("int32", "int64"))
DROPOUT = Kernel("sampling.cu", "dropout", _dropout_ref)
ADVANCE = Kernel("sampling.cu", "advance", _advance_ref, dtypes=None)


class Stream:
    """A random stream's state ([key, counter], uint64) in device memory.

    Args:
        ctx: the prepare function's context (device buffers and uploads come from it).
        key: the first key.
        moves: whether the counter moves after each run's draws.
    """

    follows_pd_seed = False  # re-keyed from paddle's random state after pd.seed

    def __init__(self, ctx, key, moves):
        self.ctx, self.xp, self.moves = ctx, ctx.xp, moves
        self.state = ctx.empty((2,), np.uint64)
        self.reseeded = False  # pd.seed ran since the last draw: take a new key first
        self.restart(key)

    def restart(self, key):
        """Key `key`, counter 0 (an upload from the host, between runs)."""
        self.ctx.device.upload(self.state, np.array([int(key) % 2 ** 64, 0], dtype=np.uint64))

    def refresh(self):
        """Before a run: after pd.seed, a new key from paddle's new random state."""
        if self.reseeded:
            self.reseeded = False
            self.restart(paddle_random.next_seed())

    def run(self, draw):
        """The run of an op drawing with `draw` from this stream: the draws, then the counter
        moved on the device; a stream following pd.seed refreshes its key before runs."""
        if self.follows_pd_seed:
            self.ctx.before_run(self.refresh)
        advance = self.after_draw()
        run = sequence([draw] if advance is None else [draw, advance])
        run.stream = self  # for tests and debugging: the key and counter behind the draws
        return run

    def after_draw(self):
        """The launch moving the counter after a run's draws (None for a fixed seed)."""
        return ADVANCE.bind(self.xp, None, 1, self.state) if self.moves else None


_FOLLOWING_PD_SEED = weakref.WeakSet()  # the streams keyed from paddle's random state


def _mark_reseeded():
    for stream in list(_FOLLOWING_PD_SEED):
        stream.reseeded = True


paddle_random._after_seed.append(_mark_reseeded)


def stream_for(ctx, seed_fn):
    """The device stream of an op whose CPU kernel calls `seed_fn()` at every run."""
    from paddle.random import SeedGenerator
    if seed_fn is paddle_random.next_seed:
        stream = Stream(ctx, seed_fn(), True)
        stream.follows_pd_seed = True
        _FOLLOWING_PD_SEED.add(stream)
        return stream
    if isinstance(getattr(seed_fn, "__self__", None), SeedGenerator):
        return Stream(ctx, seed_fn(), True)
    first, second = seed_fn(), seed_fn()
    return Stream(ctx, first, first != second)


@kernel("random")
def _random(node, ins, outs, ctx):
    attrs, out, xp = node.attrs, outs[0], ctx.xp
    if attrs["inference_value"] is not None and not ctx.training:
        value = attrs["inference_value"]
        return lambda: out.fill(value)
    code, a, b = KINDS.index(attrs["kind"]), float(attrs["a"]), float(attrs["b"])
    _check_parameters(attrs["kind"], a, b, out.dtype)
    stream = stream_for(ctx, attrs["seed_fn"])
    if attrs["kind"] == "permutation":
        draw = PERMUTATION.bind(xp, out.dtype, 1, out, stream.state, out.size)
    else:
        draw = RANDOM_FILL.bind(xp, out.dtype, out.size, out, stream.state, out.size, code, a, b)
    return stream.run(draw)


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
    dtype = np.dtype(dtype)
    if dtype.kind == "i":
        if kind not in ("randint", "permutation"):
            raise TypeError(f"random_fill: argument 'out' of dtype {dtype.name} can hold "
                            f"randint draws or a permutation only")
        info = np.iinfo(dtype)
        if kind == "randint" and not (a >= info.min and b <= -float(info.min)):
            raise ValueError(f"random_fill: randint bounds [{a}, {b}) do not fit in "
                             f"{dtype.name}")
