"""A sweep over the ops paddle added for `keras.ops` (issue #26), beside the same Keras
functions under `jax.jit` (Keras 3 on its JAX backend), on the CPU, at 10^6 (and 10^5)
float32 elements: the time of one call (the mean of a round of calls, best of a few
rounds), and the ratio paddle / JAX (the issue's target: at most 2).

    python benchmarks/keras_ops.py                          # paddle alone (curated cases)
    python benchmarks/keras_ops.py --jax /path/to/python-with-keras-and-jax
    python benchmarks/keras_ops.py --jax ... --only "sparse_plus|logsumexp" --sizes 100000

Which ops: every function of `keras.ops` (and `keras.ops.nn`/`keras.ops.numpy`) that maps one
float32 array, or two, to an array of the same shape (found by calling each on a small
array in the JAX process: the unary and binary elementwise functions, the activations,
softmax-like ops), plus a table of reductions, cumulative ops, sorting and selection,
indexing, losses-like ops and image ops (`keras.ops.image` on a 256x256x3 batch) with their
arguments. Each case is one expression over `ops`, run once with `ops = pd.ops` and once
with `ops = keras.ops` under `jax.jit`.

paddle runs graph mode: one `pd.eval` of `pd.data` inputs per call (the "eval" column,
which also copies each input in and the result out: about 0.25 ms each way for 4 MB), and
the same program's kernel calls alone (the "op" column: what an op costs inside a model's
step, where its input and result stay in the arena). JAX runs a jitted function on device
arrays, blocked until ready (its input and result stay on the device: the "op" column is
what compares). Timings only; on a shared machine run with BENCH_CLOCK=cpu and
OMP_NUM_THREADS=1 (CPU seconds of this process, both sides).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))
# BENCH_CLOCK=cpu times CPU time (time.process_time) instead of wall time: on a shared
# machine, with OMP_NUM_THREADS=1, it counts this process's own work only.
CLOCK = time.process_time if os.environ.get("BENCH_CLOCK") == "cpu" else time.perf_counter

# name: an expression over `ops` and the inputs (see _inputs): x, y (float32, N elements, in
# (0.1, 0.9)), m, m2 (x, y as (1000, N / 1000)), b (bool, N), i (int32 indices into x),
# im (int32 column indices of m's shape), k (int32 class ids of m's rows), t (one-hot rows of
# m's shape), s10 (x as (N / 10, 10)), img (float32 images (N / 196608, 256, 256, 3)).
CASES = {
    # reductions
    "sum(m, axis=1)": "ops.sum(m, axis=1)",
    "sum": "ops.sum(x)",
    "mean(m, axis=0)": "ops.mean(m, axis=0)",
    "max(m, axis=1)": "ops.max(m, axis=1)",
    "prod(m, axis=1)": "ops.prod(m, axis=1)",
    "std(m, axis=1)": "ops.std(m, axis=1)",
    "var": "ops.var(x)",
    "argmax(m, axis=1)": "ops.argmax(m, axis=1)",
    "argmin": "ops.argmin(x)",
    "any(b)": "ops.any(b)",
    "count_nonzero": "ops.count_nonzero(b)",
    "logsumexp(m, axis=1)": "ops.logsumexp(m, axis=1)",
    "logsumexp": "ops.logsumexp(x)",
    "median(m, axis=1)": "ops.median(m, axis=1)",
    "quantile(m, 0.3, axis=1)": "ops.quantile(m, 0.3, axis=1)",
    "norm(m, axis=1)": "ops.norm(m, axis=1)",
    "moments(m, [1])": "ops.moments(m, axes=[1])[1]",
    "average(m, axis=1)": "ops.average(m, axis=1)",
    # cumulative
    "cumsum(m, axis=1)": "ops.cumsum(m, axis=1)",
    "cumsum": "ops.cumsum(x)",
    "cumprod(m, axis=1)": "ops.cumprod(m, axis=1)",
    "diff(m, axis=1)": "ops.diff(m, axis=1)",
    # sorting and selection
    "sort(m, axis=1)": "ops.sort(m, axis=1)",
    "argsort(m, axis=1)": "ops.argsort(m, axis=1)",
    "top_k(m, 10)": "ops.top_k(m, 10)[0]",
    "argpartition(m, 10)": "ops.argpartition(m, 10, axis=1)",
    # indexing and shape
    "take(x, i)": "ops.take(x, i)",
    "take_along_axis": "ops.take_along_axis(m, im, axis=1)",
    "where(b, x, y)": "ops.where(b, x, y)",
    "where(x > .5, x, 0)": "ops.where(x > 0.5, x, 0.0)",
    "select": "ops.select([x < 0.3, x > 0.7], [x, y], 0.0)",
    "tile(m, (1, 2))": "ops.tile(m, (1, 2))",
    "tile(m, (2, 1))": "ops.tile(m, (2, 1))",
    "repeat(m, 2, axis=1)": "ops.repeat(m, 2, axis=1)",
    "pad(m, 1)": "ops.pad(m, ((1, 1), (1, 1)))",
    "pad(m, 1, reflect)": "ops.pad(m, ((1, 1), (1, 1)), mode='reflect')",
    "roll(m, 3, axis=1)": "ops.roll(m, 3, axis=1)",
    "flip(m, axis=1)": "ops.flip(m, axis=1)",
    "transpose(m)": "ops.transpose(m)",
    "concatenate": "ops.concatenate([m, m2], axis=1)",
    "stack": "ops.stack([x, y])",
    "clip": "ops.clip(x, 0.2, 0.8)",
    "isin(x, 10 values)": "ops.isin(x, m2[0, :10])",
    "one_hot(k, 1000)": "ops.one_hot(k, N // 1000)",
    "triu(m)": "ops.triu(m)",
    # activations and losses-like ops (the probe adds the elementwise ones)
    "logaddexp(x, x)": "ops.logaddexp(x, x)",
    "softmax(m)": "ops.softmax(m)",
    "log_softmax(m)": "ops.log_softmax(m)",
    "sparsemax(s10)": "ops.sparsemax(s10)",
    "glu(m)": "ops.glu(m)",
    "celu": "ops.celu(x)",
    "gelu(exact)": "ops.gelu(x, approximate=False)",
    "leaky_relu": "ops.leaky_relu(x, 0.2)",
    "threshold": "ops.threshold(x, 0.5, 0.0)",
    "normalize(m)": "ops.normalize(m)",
    "layer_normalization": "ops.layer_normalization(m)",
    "rms_normalization": "ops.rms_normalization(m)",
    "binary_crossentropy": "ops.binary_crossentropy(y, x)",
    "categorical_crossentropy": "ops.categorical_crossentropy(t, m)",
    "sparse_ce": "ops.sparse_categorical_crossentropy(k, m)",
    # image ops on 256x256x3 images
    "image.resize(128)": "ops.image.resize(img, (128, 128))",
    "image.rgb_to_grayscale": "ops.image.rgb_to_grayscale(img)",
    "image.rgb_to_hsv": "ops.image.rgb_to_hsv(img)",
    "image.hsv_to_rgb": "ops.image.hsv_to_rgb(img)",
    "image.gaussian_blur": "ops.image.gaussian_blur(img)",
    "image.extract_patches(8)": "ops.image.extract_patches(img, 8)",
    "image.sobel_edges": "ops.image.sobel_edges(img)",
    "image.pad_images": "ops.image.pad_images(img, 2, 2, 2, 2)",
}
INPUTS = ("x", "y", "m", "m2", "b", "i", "im", "k", "t", "s10", "img")
# Functions the probe would take for elementwise but that are not compute ops.
NOT_OPS = {"convert_to_tensor", "convert_to_numpy", "stop_gradient", "copy", "shape",
           "ndim", "size", "cast", "saturate_cast", "array", "asarray", "empty_like",
           "ones_like", "zeros_like", "full_like", "is_tensor", "vectorize", "real", "conj",
           "conjugate", "isreal", "dtype", "identity", "view",
           # (these compare every pair along the axis / of the two arrays: CASES has them at
           # sizes that fit)
           "sparsemax", "isin"}


def _inputs(n):
    rng = np.random.default_rng(0)
    cols = n // 1000
    x = rng.uniform(0.1, 0.9, n).astype(np.float32)
    y = rng.uniform(0.1, 0.9, n).astype(np.float32)
    k = rng.integers(0, cols, 1000).astype(np.int32)
    img_n = max(1, n // (256 * 256 * 3))
    return {"x": x, "y": y, "m": x.reshape(1000, cols), "m2": y.reshape(1000, cols),
            "b": x > 0.5, "i": rng.integers(0, n, n).astype(np.int32),
            "im": rng.integers(0, cols, (1000, cols)).astype(np.int32), "k": k,
            "t": np.eye(cols, dtype=np.float32)[k], "s10": x.reshape(n // 10, 10),
            "img": rng.uniform(0, 1, (img_n, 256, 256, 3)).astype(np.float32)}


def _uses(expr):
    return [v for v in INPUTS if re.search(rf"\b{v}\b", expr.split("ops.", 1)[1])]


def _best(fn):
    """The best of ROUNDS rounds, each the mean of enough calls to fill about 20 ms. One call
    per round is not enough with BENCH_CLOCK=cpu: the CPU time of a process's other threads
    (XLA's pool runs JAX's work there) is added at their scheduler events, so a single
    call read right after it ends can miss most of its own cost, and the best of a few
    such reads was a tenth of the mean (take(x, i) at 10^6: 0.14 ms against 2.1)."""
    fn()
    start = time.perf_counter()
    fn()
    calls = max(1, min(1000, int(0.02 / max(time.perf_counter() - start, 1e-6))))
    times = []
    for _ in range(ROUNDS):
        start = CLOCK()
        for _ in range(calls):
            fn()
        times.append((CLOCK() - start) / calls)
    return min(times)


def probe_keras():
    """The same-shape functions of one or two float32 arrays in keras.ops (and its nn and
    numpy namespaces), as {name: expression}, found by calling each on small arrays."""
    import keras
    import numpy as onp
    x = onp.linspace(0.1, 0.9, 12, dtype="float32")  # 1-D, as the sweep's x
    found, seen = {}, set()
    for module in (keras.ops, keras.ops.nn, keras.ops.numpy):
        for name in sorted(dir(module)):
            fn = getattr(module, name)
            if name.startswith("_") or name in NOT_OPS or not callable(fn) or id(fn) in seen:
                continue
            seen.add(id(fn))
            for args, expr in (((x,), f"ops.{name}(x)"), ((x, x[::-1]), f"ops.{name}(x, y)")):
                try:
                    out = fn(*args)
                except Exception:
                    continue
                if getattr(out, "shape", None) == x.shape and name not in found:
                    found[name] = expr
                break
    return found


def run_paddle(cases, n):
    import paddle as pd
    from paddle.lowlevel import eager, executor
    values = _inputs(n)
    out = {}
    for name, expr in cases.items():
        uses = _uses(expr)
        try:
            with eager.tracing():
                args = {v: pd.data(v, shape=list(values[v].shape), dtype=values[v].dtype.name)
                        for v in uses}
                y = eval(expr, {"ops": pd.ops, "N": n, **args})  # noqa: S307 (our table)
                y = y if isinstance(y, pd.Variable) else pd.ops.convert_to_tensor(y)
            feeds = {args[v]: values[v] for v in uses}
            whole = _best(lambda: pd.eval(y, feeds))
            # (none where the result is an input: hstack of one 1-D array is that array)
            plan = executor.plan_for([y], False, None)
            program = next(iter(plan.specialized.values()), None)
            calls = program.runner.compute if program is not None else []
            if program is not None:
                # A run lends a large fed array to the kernels instead of copying it into
                # the program's buffer (paddle/lowlevel/lent_feeds.py): the calls alone
                # read that buffer, so it gets the values here.
                for buf, v in zip(program.feeds, plan.data):
                    np.copyto(buf, feeds[v])

            def kernels():
                for fn in calls:
                    fn()
            out[name] = (whole, _best(kernels))
        except Exception as e:  # noqa: BLE001 (a missing or failing op is reported)
            out[name] = f"{type(e).__name__}: {str(e)[:60]}"
    return out


def run_jax(cases, n):
    import jax
    import keras
    values = _inputs(n)
    out = {}
    for name, expr in cases.items():
        uses = _uses(expr)
        try:
            fn = jax.jit(eval(f"lambda {', '.join(uses)}: {expr}",  # noqa: S307
                              {"ops": keras.ops, "N": n}))
            args = [jax.numpy.asarray(values[v]) for v in uses]
            out[name] = _best(lambda: jax.block_until_ready(fn(*args)))
        except Exception as e:  # noqa: BLE001
            out[name] = f"{type(e).__name__}: {str(e)[:60]}"
    return out


def _child(python, role, cases, n):
    # (PYTHONPATH as set, else this checkout: another build of paddle can be timed.)
    env = dict(os.environ, KERAS_BACKEND="jax", PYTHONPATH=os.environ.get("PYTHONPATH") or
               os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([python, __file__, "--role", role, "--n", str(n)],
                         input=json.dumps(cases), env=env, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"{role} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _ms(t):
    return f"{t * 1e3:.3f}" if isinstance(t, float) else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jax", help="a Python with keras and jax installed")
    parser.add_argument("--sizes", default="1000000,100000", help="element counts")
    parser.add_argument("--only", help="a regular expression: the cases whose names match")
    parser.add_argument("--jax-results", help="a JSON file of JAX's times: read if it "
                        "exists (to time another paddle build against the same run), "
                        "else written")
    parser.add_argument("--paddle-results", help="a JSON file of paddle's times: read if "
                        "it exists (to print a table again), else written")
    parser.add_argument("--role", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role:
        cases = json.loads(sys.stdin.read())
        if args.role == "probe":
            print(json.dumps(probe_keras()))
        else:
            print(json.dumps((run_paddle if args.role == "paddle" else run_jax)(cases, args.n)))
        return
    stored = {}
    if args.jax_results and os.path.exists(args.jax_results):
        with open(args.jax_results) as f:
            stored = json.load(f)
    cases = stored.get("cases") or (dict(_child(args.jax, "probe", {}, 0), **CASES)
                                    if args.jax else dict(CASES))
    if args.only:
        cases = {k: v for k, v in cases.items() if re.search(args.only, k)}
    mine = {}
    if args.paddle_results and os.path.exists(args.paddle_results):
        with open(args.paddle_results) as f:
            mine = json.load(f)
    for n in [int(s) for s in args.sizes.split(",")]:
        paddle = mine.get(str(n)) or _child(sys.executable, "paddle", cases, n)
        if args.paddle_results and str(n) not in mine:
            mine[str(n)] = paddle
            with open(args.paddle_results, "w") as f:
                json.dump(mine, f)
        jax = stored.get(str(n)) or (_child(args.jax, "jax", cases, n) if args.jax else {})
        if args.jax_results and not stored.get(str(n)) and jax:
            stored.update({"cases": cases, str(n): jax})
            with open(args.jax_results, "w") as f:
                json.dump(stored, f)
        print(f"\n{n} elements; best of {ROUNDS}; "
              f"{'CPU' if CLOCK is time.process_time else 'wall'} time")
        print(f"{'op':28} {'eval ms':>8} {'op ms':>8} {'JAX ms':>8} {'op/JAX':>7}")
        rows = []
        for name in cases:
            p, j = paddle.get(name), jax.get(name)
            if not isinstance(p, list):
                print(f"{name:28} paddle: {p}")
                continue
            ratio = p[1] / j if isinstance(j, float) and j > 0 else None
            rows.append((ratio or 0.0, name, p, j))
        for ratio, name, p, j in sorted(rows, reverse=True):
            note = "" if isinstance(j, float) or not j else f"  JAX: {j}"
            print(f"{name:28} {_ms(p[0]):>8} {_ms(p[1]):>8} {_ms(j):>8} "
                  f"{ratio:7.2f}{note}" if ratio else
                  f"{name:28} {_ms(p[0]):>8} {_ms(p[1]):>8} {_ms(j):>8}       -{note}")


if __name__ == "__main__":
    main()
