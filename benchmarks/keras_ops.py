"""The Keras ops paddle added for issue #26 (`pd.ops`) beside the same `keras.ops`-style
functions of JAX (`jax.numpy` / `jax.nn` / `jax.scipy` under `jax.jit`), on the CPU, at
10^5-10^6 elements: the time of one call, best of a few rounds, and the ratio
paddle / JAX (the issue's target: at most 2).

    python benchmarks/keras_ops.py                          # paddle alone
    python benchmarks/keras_ops.py --jax /path/to/python-with-jax

paddle runs graph mode (one `pd.eval` of a `pd.data` input per call: the path a model's
step takes); JAX runs a jitted function on a device array, blocked until ready. Timings
only; one run on a quiet machine for figures to report (on a shared one, BENCH_CLOCK=cpu and
OMP_NUM_THREADS=1 time CPU seconds instead).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

N = int(os.environ.get("BENCH_N", "1000000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))
# BENCH_CLOCK=cpu times CPU time (time.process_time) instead of wall time: on a shared
# machine, with OMP_NUM_THREADS=1, it counts this process's own work only.
CLOCK = time.process_time if os.environ.get("BENCH_CLOCK") == "cpu" else time.perf_counter

# name: (paddle expression on x, JAX expression on x); x is float32 of N elements in
# (0.1, 1.1); reshaped to (1000, N // 1000) where the op needs a matrix.
CASES = {
    "sin": ("pd.ops.sin(x)", "jnp.sin(x)"),
    "arctan2": ("pd.ops.arctan2(x, x + 1.0)", "jnp.arctan2(x, x + 1.0)"),
    "logaddexp": ("pd.ops.logaddexp(x, x)", "jnp.logaddexp(x, x)"),
    "erfinv": ("pd.ops.erfinv(x - 0.6)", "jax.scipy.special.erfinv(x - 0.6)"),
    "gelu": ("pd.ops.nn.gelu(x)", "jax.nn.gelu(x)"),
    "sparse_plus": ("pd.ops.nn.sparse_plus(x)", "jax.nn.sparse_plus(x)"),
    "cumsum": ("pd.ops.cumsum(m, axis=1)", "jnp.cumsum(m, axis=1)"),
    "sort": ("pd.ops.sort(m, axis=1)", "jnp.sort(m, axis=1)"),
    "top_k": ("pd.ops.top_k(m, 10)[0]", "jax.lax.top_k(m, 10)[0]"),
    "median": ("pd.ops.median(m, axis=1)", "jnp.median(m, axis=1)"),
    "logsumexp": ("pd.ops.logsumexp(m, axis=1)", "jax.scipy.special.logsumexp(m, axis=1)"),
    "tile": ("pd.ops.tile(m, (1, 2))", "jnp.tile(m, (1, 2))"),
}


def _inputs():
    x = np.random.default_rng(0).uniform(0.1, 1.1, N).astype(np.float32)
    return x, x.reshape(1000, N // 1000)


def _best(fn):
    fn()
    times = []
    for _ in range(ROUNDS):
        start = CLOCK()
        fn()
        times.append(CLOCK() - start)
    return min(times)


def run_paddle():
    import paddle as pd
    from paddle.lowlevel import eager
    xs, ms = _inputs()
    out = {}
    with eager.tracing():
        x = pd.data("x", shape=[N])
        m = pd.data("m", shape=list(ms.shape))
        built = {name: eval(expr, {"pd": pd, "x": x, "m": m})  # noqa: S307 (our table)
                 for name, (expr, _) in CASES.items()}
    for name, y in built.items():
        feeds = {m: ms} if "m" in CASES[name][0].split("(", 1)[1] else {x: xs}
        out[name] = _best(lambda: pd.eval(y, feeds))
    return out


def run_jax():
    import jax
    import jax.numpy as jnp
    import jax.scipy.special  # noqa: F401
    xs, ms = _inputs()
    x, m = jnp.asarray(xs), jnp.asarray(ms)
    out = {}
    for name, (_, expr) in CASES.items():
        uses_m = "m" in expr.split("(", 1)[1]
        fn = jax.jit(eval(f"lambda {'m' if uses_m else 'x'}: {expr}",  # noqa: S307
                          {"jax": jax, "jnp": jnp}))
        arg = m if uses_m else x
        out[name] = _best(lambda: jax.block_until_ready(fn(arg)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jax", help="a Python with jax installed")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_paddle() if args.one == "paddle" else run_jax()))
        return
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    results = {}
    for name, python in [("paddle", sys.executable)] + ([("jax", args.jax)] if args.jax else []):
        out = subprocess.run([python, __file__, "--one", name], env=env, capture_output=True,
                             text=True, check=True).stdout
        results[name] = json.loads(out.strip().splitlines()[-1])
    print(f"{N} float32 elements; best of {ROUNDS}")
    print(f"{'op':12} {'paddle ms':>10} {'JAX ms':>8} {'ratio':>6}")
    for name in CASES:
        p = results["paddle"][name] * 1e3
        j = results.get("jax", {}).get(name)
        ratio = f"{p / (j * 1e3):6.2f}" if j else "     -"
        print(f"{name:12} {p:10.2f} {(j or 0) * 1e3:8.2f} {ratio}")


if __name__ == "__main__":
    main()
