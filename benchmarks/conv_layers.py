#!/usr/bin/env python3
"""Where the benchmark CNN's time goes: every kernel of its training step, per layer and per
pass, beside PyTorch and TensorFlow running the same layers, and its inference, in one run.

    python benchmarks/conv_layers.py                      # batch 32 and 128, predict 1/32/1024
    BENCH_BATCHES=128 BENCH_PREDICT=1024 python benchmarks/conv_layers.py

Run it in a venv with paddle, torch and tensorflow-cpu (both optional: a missing peer's
columns read '-'). The model is ../shared/bench/compare.py's CNN: conv32(3x3)-relu-maxpool-
conv64(3x3)-relu-maxpool-flatten-dense128-relu-dense10, softmax cross-entropy, Adam, NHWC
(PyTorch: NCHW), float32, through paddle's public API (train_on_batch, predict_on_batch).

What it prints:
  peak     the machine's single-precision matrix-product rate: a 2048^3 sgemm through
           paddle's matmul kernel (the same OpenBLAS, split over the same OpenMP threads).
  profile  each kernel of paddle's compiled training step, timed inside the step (the kernels
           run in plan order, so caches hold what they would), with its GFLOP/s, its share
           of the step and its fraction of the peak; beside it the same layer's pass run
           alone in PyTorch and TensorFlow (dx = input gradient, dw = filter gradient, with
           the bias gradient in paddle and PyTorch). Kernels without a peer counterpart
           (losses, the optimizer) show '-'.
  step     the whole train_on_batch / predict_on_batch, samples/s, each framework.

Each framework runs in its own process (thread pools never share one); they take turns in
short rounds and the best (for the per-kernel times: the median within a round, then the
best round) counts, because the machine is shared and noisy. The workers run without
OPENBLAS_CORETYPE (a pin these machines set that users' machines do not have);
BENCH_KEEP_ENV=1 keeps the environment as is.

On a shared, busy machine the wall-clock figures mostly measure the other processes; then

    OMP_NUM_THREADS=1 BENCH_CPU_TIME=1 python benchmarks/conv_layers.py

runs every framework on one thread and counts CPU time instead (see CLOCK below).
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "1.0"))
BATCHES = [int(b) for b in os.environ.get("BENCH_BATCHES", "32,128").split(",")]
PREDICT = [int(b) for b in os.environ.get("BENCH_PREDICT", "1,32,1024").split(",")]
FRAMEWORKS = ["paddle", "torch", "tf"]

# Layer geometry (input size, in and out channels, 3x3 valid convolutions, 2x2 pools).
CONVS = {"conv1": (28, 1, 32), "conv2": (13, 32, 64)}
POOLS = {"pool1": (26, 32), "pool2": (11, 64)}
PASSES = ["fwd", "dx", "dw"]  # forward, input gradient, filter (and bias) gradient


def conv_flops(name, batch):
    size, cin, cout = CONVS[name]
    return 2 * batch * (size - 2) ** 2 * cout * 9 * cin


def data(batch, nchw):
    rng = np.random.default_rng(0)
    shape = (batch, 1, 28, 28) if nchw else (batch, 28, 28, 1)
    return rng.standard_normal(shape, dtype=np.float32), rng.integers(0, 10, batch)


# BENCH_CPU_TIME=1 times CPU seconds of the whole process (all its threads) instead of wall
# seconds: on a shared machine, with OMP_NUM_THREADS=1, that is what a kernel costs, free of
# the time other processes hold the core (with several threads it would count spinning).
CLOCK = time.process_time if os.environ.get("BENCH_CPU_TIME") else time.perf_counter


def timed(fn, seconds):
    """Mean ms per call over `seconds` (of CLOCK), after three warm-up calls."""
    for _ in range(3):
        fn()
    n, t0 = 0, CLOCK()
    while CLOCK() - t0 < seconds:
        fn()
        n += 1
    return (CLOCK() - t0) / n * 1e3


# ---- paddle ------------------------------------------------------------------------------

def paddle_model():
    import paddle as pd
    L = pd.layers
    model = pd.Sequential([
        L.Input(shape=(28, 28, 1)), L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(2),
        L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(2), L.Flatten(),
        L.Dense(128, activation="relu"), L.Dense(10)])
    model.compile(optimizer=pd.optimizers.Adam(learning_rate=1e-3),
                  loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def kernel_label(node):
    """(row label, peer case or None, FLOPs per sample or 0) of one node of the CNN's plan."""
    name = node.op.name
    shapes = [tuple(v.shape) for v in node.inputs]
    if name.startswith("conv2d"):
        f = shapes[1] if name != "conv2d_backprop_filter" else None
        cin = f[2] if f else shapes[0][3]
        layer = "conv1" if cin == 1 else "conv2"
        p = {"conv2d": "fwd", "conv2d_backprop_input": "dx", "conv2d_backprop_filter": "dw"}[name]
        return f"{layer} {p}", f"{layer} {p}", conv_flops(layer, 1)
    if name in ("max_pool2d", "max_pool2d_grad"):
        layer = "pool1" if shapes[0][1] in (26, 13) and shapes[0][3] == 32 else "pool2"
        p = "fwd" if name == "max_pool2d" else "bwd"
        return f"{layer} {p}", f"{layer} {p}", 0
    if name in ("relu", "relu_grad") and len(shapes[0]) == 4:
        layer = "conv1" if shapes[0][3] == 32 else "conv2"
        return f"{layer} {name}", None, 0
    if name == "matmul":
        big = any(1600 in s for s in shapes)
        return f"dense{'1' if big else '2'} matmul", None, 2 * (1600 * 128 if big else 128 * 10)
    if node.op.stateful:
        return "optimizer (Adam)", None, 0
    if name in ("add", "relu", "relu_grad", "sum_to"):
        return "dense bias/relu", None, 0
    return "loss and the rest", None, 0


def paddle_profile(model, batch, seconds):
    """{label: [ms, flops, peer case]} for one training step's kernels, run in plan order."""
    x, y = data(batch, nchw=False)
    model.train_on_batch(x, y)
    step = next(s for k, (s, _) in model._steps.items() if k[0] == "train")
    program = step.plan.specialized[next(iter(step.plan.specialized))]
    fns = program.compute + program.updates
    labels = [kernel_label(n) for n in program.nodes]
    times = [[] for _ in fns]
    clock = CLOCK
    t_end = clock() + seconds
    while clock() < t_end:
        for i, fn in enumerate(fns):
            t0 = clock()
            fn()
            times[i].append(clock() - t0)
    rows = {}
    for (label, peer, flops), t in zip(labels, times):
        row = rows.setdefault(label, [0.0, 0, peer])
        row[0] += float(np.median(t)) * 1e3
        row[1] += flops * batch
    return rows


def paddle_cases():
    import paddle as pd
    from paddle import _C
    cases = {}
    a = np.random.default_rng(0).standard_normal((2048, 2048), dtype=np.float32)
    c = np.empty_like(a)
    spec = np.array([1, 2048, 2048, 2048, 0, 0, 0, 0], dtype=np.int64)
    cases["peak"] = ("ms", lambda: _C.matmul(a, a, c, spec))
    for batch in BATCHES:
        model = paddle_model()
        x, y = data(batch, nchw=False)
        cases[f"profile {batch}"] = ("profile",
                                     lambda m=model, b=batch: paddle_profile(m, b, SECONDS))
        cases[f"train {batch}"] = ("ms", lambda m=model, x=x, y=y: m.train_on_batch(x, y))
    model = paddle_model()
    for batch in PREDICT:
        x, _ = data(batch, nchw=False)
        cases[f"predict {batch}"] = ("ms", lambda x=x: model.predict_on_batch(x))
    del pd
    return cases


# ---- PyTorch -----------------------------------------------------------------------------

def torch_cases():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    torch.manual_seed(0)
    cases = {}
    for batch in BATCHES:
        for name, (size, cin, cout) in CONVS.items():
            x = torch.randn(batch, cin, size, size)
            w, b = torch.randn(cout, cin, 3, 3), torch.randn(cout)
            g = torch.randn(batch, cout, size - 2, size - 2)
            grad = torch.ops.aten.convolution_backward

            def run(mask, x=x, w=w, g=g):
                return grad(g, x, w, [w.shape[0]], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                            mask)
            cases[f"{name} fwd {batch}"] = ("ms", lambda x=x, w=w, b=b: F.conv2d(x, w, b))
            cases[f"{name} dx {batch}"] = ("ms", lambda run=run: run([True, False, False]))
            cases[f"{name} dw {batch}"] = ("ms", lambda run=run: run([False, True, True]))
        for name, (size, c) in POOLS.items():
            x = torch.randn(batch, c, size, size)
            y, idx = F.max_pool2d(x, 2, return_indices=True)
            g = torch.randn_like(y)
            back = torch.ops.aten.max_pool2d_with_indices_backward
            cases[f"{name} fwd {batch}"] = (
                "ms", lambda x=x: F.max_pool2d(x, 2, return_indices=True))
            cases[f"{name} bwd {batch}"] = (
                "ms", lambda x=x, g=g, i=idx: back(g, x, [2, 2], [2, 2], [0, 0], [1, 1], False, i))
        model = torch_model()
        xn, yn = data(batch, nchw=True)
        xt, yt = torch.from_numpy(xn), torch.from_numpy(yn)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)

        def train(model=model, opt=opt, x=xt, y=yt):
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            loss.item()
        cases[f"train {batch}"] = ("ms", train)
    model = torch_model()
    for batch in PREDICT:
        x = torch.from_numpy(data(batch, nchw=True)[0])

        def infer(x=x):
            with torch.inference_mode():
                model(x).numpy()
        cases[f"predict {batch}"] = ("ms", infer)
    del nn
    return cases


def torch_model():
    import torch.nn as nn
    return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(1600, 128), nn.ReLU(), nn.Linear(128, 10))


# ---- TensorFlow --------------------------------------------------------------------------

def tf_cases():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf
    if os.environ.get("OMP_NUM_THREADS"):  # as PyTorch and paddle read it
        threads = int(os.environ["OMP_NUM_THREADS"])
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(threads)
    rng = np.random.default_rng(0)
    cases = {}

    def const(*shape):
        return tf.constant(rng.standard_normal(shape).astype(np.float32))

    for batch in BATCHES:
        for name, (size, cin, cout) in CONVS.items():
            x, w, b = const(batch, size, size, cin), const(3, 3, cin, cout), const(cout)
            g = const(batch, size - 2, size - 2, cout)
            fwd = tf.function(
                lambda x=x, w=w, b=b: tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "VALID"), b))
            dx = tf.function(lambda x=x, w=w, g=g: tf.raw_ops.Conv2DBackpropInput(
                input_sizes=tf.shape(x), filter=w, out_backprop=g, strides=[1, 1, 1, 1],
                padding="VALID"))
            dw = tf.function(lambda x=x, w=w, g=g: (tf.raw_ops.Conv2DBackpropFilter(
                input=x, filter_sizes=tf.shape(w), out_backprop=g, strides=[1, 1, 1, 1],
                padding="VALID"), tf.raw_ops.BiasAddGrad(out_backprop=g)))
            cases[f"{name} fwd {batch}"] = ("ms", fwd)
            cases[f"{name} dx {batch}"] = ("ms", dx)
            cases[f"{name} dw {batch}"] = ("ms", dw)
        for name, (size, c) in POOLS.items():
            x = const(batch, size, size, c)
            y = tf.nn.max_pool2d(x, 2, 2, "VALID")
            g = const(*y.shape)
            cases[f"{name} fwd {batch}"] = ("ms", tf.function(
                lambda x=x: tf.nn.max_pool2d(x, 2, 2, "VALID")))
            cases[f"{name} bwd {batch}"] = ("ms", tf.function(
                lambda x=x, y=y, g=g: tf.raw_ops.MaxPoolGrad(
                    orig_input=x, orig_output=y, grad=g, ksize=[1, 2, 2, 1],
                    strides=[1, 2, 2, 1], padding="VALID")))
        cases[f"train {batch}"] = ("ms", tf_train(tf, batch))
    apply = tf_model(tf)[0]
    f = tf.function(apply)
    for batch in PREDICT:
        x = data(batch, nchw=False)[0]
        cases[f"predict {batch}"] = ("ms", lambda x=x: f(x).numpy())
    return cases


def tf_model(tf):
    rng = np.random.default_rng(0)

    def var(*shape):
        fan_in = int(np.prod(shape[:-1]))
        return tf.Variable(rng.standard_normal(shape).astype(np.float32) * (2 / fan_in) ** 0.5)

    shapes = [(3, 3, 1, 32), (32,), (3, 3, 32, 64), (64,), (1600, 128), (128,), (128, 10), (10,)]
    params = [var(*s) if len(s) > 1 else tf.Variable(np.zeros(s, np.float32)) for s in shapes]

    def apply(h):
        p = params
        for w, b in (p[0:2], p[2:4]):
            h = tf.nn.max_pool2d(tf.nn.relu(tf.nn.conv2d(h, w, 1, "VALID") + b), 2, 2, "VALID")
        h = tf.nn.relu(tf.reshape(h, (-1, 1600)) @ p[4] + p[5])
        return h @ p[6] + p[7]
    return apply, params


def tf_train(tf, batch):
    """compare.py's TensorFlow step: one tf.function, Adam written out."""
    apply, params = tf_model(tf)
    ms = [tf.Variable(tf.zeros_like(v)) for v in params]
    vs = [tf.Variable(tf.zeros_like(v)) for v in params]
    t = tf.Variable(0.0)
    xn, yn = data(batch, nchw=False)

    @tf.function
    def train(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, apply(x)))
        grads = tape.gradient(loss, params)
        t.assign_add(1.0)
        lr = 1e-3 * tf.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
        for p_, g, m, v in zip(params, grads, ms, vs):
            m.assign(0.9 * m + 0.1 * g)
            v.assign(0.999 * v + 0.001 * g * g)
            p_.assign_sub(lr * m / (tf.sqrt(v) + 1e-7))
        return loss

    return lambda: float(train(xn, yn))


# ---- the race ------------------------------------------------------------------------------

def worker(framework):
    """Build every case once, then answer 'case' lines with ms (or a profile)."""
    build = {"paddle": paddle_cases, "torch": torch_cases, "tf": tf_cases}[framework]
    try:
        cases = build()
    except ImportError as e:
        print(json.dumps({"missing": str(e)}), flush=True)
        return
    print(json.dumps({"ready": sorted(cases)}), flush=True)
    for line in sys.stdin:
        kind, fn = cases[line.strip()]
        print(json.dumps({"ms": timed(fn, SECONDS)} if kind == "ms" else {"profile": fn()}),
              flush=True)


def ask(proc, case):
    proc.stdin.write(case + "\n")
    proc.stdin.flush()
    return json.loads(proc.stdout.readline())


def race():
    """Best ms per (framework, case), and the best-round profile per batch."""
    env = dict(os.environ)
    if not os.environ.get("BENCH_KEEP_ENV"):
        env.pop("OPENBLAS_CORETYPE", None)
    procs, offered = {}, {}
    for fw in FRAMEWORKS:
        p = subprocess.Popen([sys.executable, __file__, "--worker", fw], text=True, env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        msg = json.loads(p.stdout.readline() or '{"missing": "worker died"}')
        if "ready" in msg:
            procs[fw], offered[fw] = p, set(msg["ready"])
        elif fw == "paddle":
            sys.exit(f"paddle could not run: {msg['missing']}")
        else:
            print(f"(no {fw}: {msg['missing']})")
    cases = ["peak"] + [f"{c} {b}" for b in BATCHES for c in
                        [f"{layer} {p}" for layer in CONVS for p in PASSES]
                        + [f"{pool} {p}" for pool in POOLS for p in ("fwd", "bwd")]
                        + ["train", "profile"]] + [f"predict {b}" for b in PREDICT]
    best, profiles = {}, {}
    for _ in range(ROUNDS):
        for case in cases:
            for fw, p in procs.items():
                if case not in offered[fw]:
                    continue
                msg = ask(p, case)
                if "profile" in msg:
                    total = sum(r[0] for r in msg["profile"].values())
                    if total < profiles.get(case, (float("inf"),))[0]:
                        profiles[case] = (total, msg["profile"])
                else:
                    best[fw, case] = min(best.get((fw, case), float("inf")), msg["ms"])
    for p in procs.values():
        p.stdin.close()
        p.wait()
    return best, profiles


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def report(best, profiles):
    peak = 2 * 2048 ** 3 / (best["paddle", "peak"] * 1e-3) / 1e9
    print(f"peak: sgemm 2048^3 through paddle's matmul (OpenBLAS): {peak:.0f} GFLOP/s\n")
    for batch in BATCHES:
        total, rows = profiles[f"profile {batch}"]
        print(f"### training step, batch {batch}: kernels in plan order, {total:.2f} ms in "
              f"all (train_on_batch: {best['paddle', f'train {batch}']:.2f} ms)\n")
        print("| kernel | ms | GFLOP/s | share | of peak | PyTorch ms | TF ms |")
        print("|---|---|---|---|---|---|---|")
        for label, (ms, flops, peer) in rows.items():
            rate = flops / (ms * 1e-3) / 1e9 if flops else None
            peers = [best.get((fw, f"{peer} {batch}")) if peer else None for fw in ("torch", "tf")]
            print(f"| {label} | {ms:.3f} | {fmt(rate, '.0f')} | {ms / total:.0%} | "
                  f"{fmt(rate and rate / peak, '.0%')} | {fmt(peers[0], '.3f')} | "
                  f"{fmt(peers[1], '.3f')} |")
        print()
    print("### whole steps, samples/s (ratio: paddle / best peer)\n")
    print("| case | batch | paddle | PyTorch | TF | vs best peer |")
    print("|---|---|---|---|---|---|")
    for case, batches in (("train", BATCHES), ("predict", PREDICT)):
        for batch in batches:
            rates = {fw: batch / (best[fw, f"{case} {batch}"] * 1e-3)
                     for fw in FRAMEWORKS if (fw, f"{case} {batch}") in best}
            peers = {fw: r for fw, r in rates.items() if fw != "paddle"}
            top = max(peers, key=peers.get) if peers else None
            print(f"| cnn_{case} | {batch} | " + " | ".join(
                fmt(rates.get(fw), ",.0f") for fw in FRAMEWORKS) + " | "
                + (f"{rates['paddle'] / peers[top]:.2f} ({top})" if top else "-") + " |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2])
    else:
        report(*race())
