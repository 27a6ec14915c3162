#!/usr/bin/env python3
"""The first minute of paddle on a GPU: every step prints [ok] or [FAIL] and goes on, so
one run tells as much as possible; the exit status is the number of failed steps (0: all
passed). tools/gpu_check.sh runs it right after the build.

    python tools/gpu_smoke.py               # on a CUDA machine, from the repository root
    python tools/gpu_smoke.py --simulated   # without a GPU: the script's own logic (CI)

Steps: versions; CuPy compiles a kernel (it needs the CUDA headers); a CuPy sequence with
no product captured as a CUDA graph and replayed; every csrc/cuda/*.cu compiled by NVRTC
and loaded; paddle's products (cuBLAS called directly, paddle/devices/cuda/gemm.py) in
every layout, captured and replayed; an MLP, a CNN and an LSTM trained a few steps on the
GPU against the same steps on the CPU, each step one CUDA graph; the MLP's steps per second.
"""
import os
import sys
import time
import traceback
import types
import warnings

import numpy as np

try:
    import paddle  # noqa: F401 - the installed package, else the in-place build of this tree
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SIM = "--simulated" in sys.argv
T0 = time.time()
FAILED = []


def step(name, fn):
    try:
        result = fn()
        print(f"[ok]   {time.time() - T0:6.1f}s {name}: {result}", flush=True)
        return result
    except BaseException as e:  # noqa: BLE001 - report and go on
        FAILED.append(name)
        print(f"[FAIL] {time.time() - T0:6.1f}s {name}: {type(e).__name__}: {e}", flush=True)
        traceback.print_exc(limit=8)
        return None


def cupy_checks():
    import cupy
    rt = cupy.cuda.runtime
    step("versions", lambda: dict(cupy=cupy.__version__, numpy=np.__version__,
                                  runtime=rt.runtimeGetVersion(), driver=rt.driverGetVersion(),
                                  gpus=rt.getDeviceCount(), CUDA_PATH=os.environ.get("CUDA_PATH")))
    step("device", lambda: (str(rt.getDeviceProperties(0)["name"], "ascii", "replace"),
                            cupy.cuda.Device(0).compute_capability,
                            [round(m / 2**30, 1) for m in cupy.cuda.Device(0).mem_info]))
    step("CuPy compiles a kernel (needs the CUDA headers)",
         lambda: (cupy.arange(4, dtype=cupy.float32) * 2).get().tolist())
    twice = cupy.RawKernel(r'extern "C" __global__ void twice(float* x, long long n) {'
                           r' for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;'
                           r' i < n; i += (long long)blockDim.x * gridDim.x) x[i] *= 2.0f; }', "twice")

    def no_product():
        a = cupy.asarray(np.random.default_rng(0).standard_normal((256, 64), np.float32))
        out, total = cupy.empty_like(a), cupy.empty((), np.float32)
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            def body():
                cupy.multiply(a, 3, out=out)
                twice((4,), (256,), (out, np.int64(out.size)))
                cupy.sum(out, out=total)
            body()
            stream.synchronize()
            stream.begin_capture()
            body()
            graph = stream.end_capture()
            a.fill(1)
            graph.launch(stream)
            stream.synchronize()
        assert np.allclose(out.get(), 6) and float(total.get()) == 6 * a.size
        return "replayed graph read the new inputs"
    step("a CuPy sequence without products, captured and replayed", no_product)


def paddle_checks():
    import paddle as pd
    from paddle.devices import backend_for, cuda
    from paddle.devices.cuda import gemm, raw

    step("paddle sees the GPU", lambda: cuda.available or SIM or "no")
    context = cuda.simulated() if SIM else None
    if context:
        context.__enter__()
    dev = step("the GPU backend (CuPy compiles, a stream)", lambda: backend_for("gpu"))
    if not SIM:
        for f in raw.sources():
            step(f"NVRTC compiles and loads {f}", lambda f=f: sorted(
                raw._module(f, 0).get_function(e).attributes["num_regs"]
                for e in sorted(raw.DECLARED[f])))
    if dev is not None:
        step("products in every layout, captured and replayed", lambda: products(dev, gemm))
    for model in ("mlp", "cnn", "lstm"):
        step(f"{model}: GPU steps equal the CPU's, each step one CUDA graph",
             lambda model=model: train(pd, backend_for, model))
    if dev is not None:
        step("mlp speed", lambda: speed(pd, backend_for))
    if context:
        context.__exit__(None, None, None)


def products(dev, gemm):
    """gemm.product on transposed, sliced and broadcast views, eager then replayed."""
    xp, rng = dev.xp, np.random.default_rng(0)
    r = lambda *s: xp.asarray(rng.standard_normal(s).astype(np.float32))  # noqa: E731
    big = r(96, 96)
    cases = [(r(128, 64), r(64, 32)), (r(64, 128).T, r(32, 64).T),
             (big[3:40, 5:70], big[1:66, 2:50]), (r(4, 16, 8), r(8, 24)),
             (r(3, 1, 5, 6), r(1, 2, 6, 7))]
    ctx = types.SimpleNamespace(xp=xp, device=dev, node=None,
                                empty=lambda s, d: dev.empty(tuple(s), np.dtype(d), "smoke"))
    outs = [xp.empty(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1]),
                     np.float32) for a, b in cases]
    steps = [gemm.product(ctx, a, b, out) for (a, b), out in zip(cases, outs)]
    host = lambda x: x if dev.simulated else x.get()  # noqa: E731
    with dev.activated():
        for run in steps:
            run()
        if not dev.simulated:
            dev.stream.synchronize()
            dev.stream.begin_capture()
            for run in steps:
                run()
            graph = dev.stream.end_capture()
            for a, _ in cases:
                a *= 2  # views too: the graph must read the new values
            graph.launch(dev.stream)
            dev.stream.synchronize()
    worst = max(float(np.max(np.abs(host(out) - np.matmul(host(a), host(b)))))
                for (a, b), out in zip(cases, outs))
    assert worst < 1e-3, worst
    return f"{len(cases)} layouts, largest difference {worst:.1e}"


def network(pd, model, tag):
    pd.seed(0)
    rng = np.random.default_rng(0)
    with pd.namespace(f"smoke_{model}_{tag}"):
        if model == "mlp":
            x = pd.data(f"x_{tag}", shape=[None, 784])
            h = pd.fc(pd.fc(x, size=512, act="relu"), size=512, act="relu")
            xb = rng.standard_normal((128, 784)).astype(np.float32)
        elif model == "cnn":
            from paddle.lowlevel.ops.conv import conv2d
            from paddle.lowlevel.ops.pool import max_pool2d
            x = pd.data(f"x_{tag}", shape=[None, 28, 28, 1])
            h = max_pool2d(pd.relu(conv2d(x, pd.Variable("f1", [3, 3, 1, 32]))), 2)
            h = max_pool2d(pd.relu(conv2d(h, pd.Variable("f2", [3, 3, 32, 64]))), 2)
            h = pd.reshape(h, [-1, 5 * 5 * 64])
            xb = rng.standard_normal((64, 28, 28, 1)).astype(np.float32)
        else:
            from paddle.lowlevel.ops.recurrent import lstm
            x = pd.data(f"x_{tag}", shape=[None, 12, 16])
            h = lstm(x, pd.Variable("w", [16, 128]), pd.Variable("r", [32, 128]),
                     pd.Variable("b", [128]))
            xb = rng.standard_normal((32, 12, 16)).astype(np.float32)
        y = pd.data(f"y_{tag}", shape=[None], dtype="int64")
        logits = pd.fc(h, size=10)
    loss = pd.mean(pd.softmax_cross_entropy(logits, y))
    update = pd.optimizers.Adam(learning_rate=1e-3).minimize(loss)
    return (loss, update), {x: xb, y: rng.integers(0, 10, len(xb))}


def train(pd, backend_for, model, steps=5):
    losses = {}
    for device in ("cpu", "gpu"):
        targets, feeds = network(pd, model, device)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a step that falls back to op by op warns: fail
            losses[device] = [float(pd.eval(list(targets), feeds, device=device)[0])
                              for _ in range(steps)]
    gpu = backend_for("gpu")
    plan = next(p for t in targets for p in t.__dict__.get("_plans", {}).values()
                if p.device is gpu)
    capture = next(iter(plan.specialized.values())).runner.capture
    if capture is not None and (capture.graph is None or capture.fallback is not None):
        raise AssertionError(f"the step is not one CUDA graph: {capture.fallback}")
    if not np.allclose(losses["gpu"], losses["cpu"], rtol=2e-4, atol=1e-5):
        raise AssertionError(f"gpu losses {losses['gpu']} != cpu losses {losses['cpu']}")
    return f"losses {[round(v, 5) for v in losses['gpu']]}" + \
        ("" if capture is None else f", one graph, {capture.runs} runs")


def speed(pd, backend_for):
    targets, feeds = network(pd, "mlp", "speed")
    for _ in range(3):
        pd.eval(list(targets), feeds, device="gpu")
    n, t = 0, time.perf_counter()
    while time.perf_counter() - t < (0.2 if SIM else 2.0):
        pd.eval(list(targets), feeds, device="gpu")
        n += 1
    return f"{n / (time.perf_counter() - t):.0f} steps/s (MLP 784-512-512-10, batch 128, Adam)"


if __name__ == "__main__":
    if not SIM:
        cupy_checks()
    paddle_checks()
    print(f"smoke done in {time.time() - T0:.1f}s: {len(FAILED)} failed"
          + (f" ({'; '.join(FAILED)})" if FAILED else ""), flush=True)
    sys.exit(min(len(FAILED), 100))
