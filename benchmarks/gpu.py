#!/usr/bin/env python3
"""Training step on one NVIDIA GPU: paddle beside PyTorch eager, PyTorch with CUDA graphs
(`torch.compile(mode="reduce-overhead")`) and JAX `jit`, in one run.

    python benchmarks/gpu.py                # mlp and cnn, batch 32 / 128 / 1024
    python benchmarks/gpu.py mlp            # one model
    BENCH_SECONDS=3 BENCH_ROUNDS=5 python benchmarks/gpu.py
    BENCH_FRAMEWORKS=paddle,torch,jax python benchmarks/gpu.py   # a subset of the peers

The models are those of ../shared/bench/compare.py: the MLP 784-512-512-10 and the small
CNN (conv 32 3x3, max-pool 2, conv 64 3x3, max-pool 2, dense 128, dense 10), Adam(1e-3),
softmax cross-entropy, float32, NHWC except PyTorch (NCHW). Every step takes NumPy inputs
and gives the loss back as a Python float, as a user's loop does (paddle:
`model.train_on_batch` with the model on `pd.set_device("gpu")`; the others copy the batch
to the device and read the loss back), so every figure includes one host-to-device copy
and one synchronization per step. Each framework runs in its own process; the processes
take turns in short rounds and the best round counts. Throughput is samples per second;
the ratios are paddle over each peer (above 1.0: paddle is faster).

After the table it says which of the issue's targets are met (the MLP at batch 32 and
128: >= 2x PyTorch eager and >= 1x JAX; the CNN at batch 128: >= 0.8x PyTorch eager). A
framework that fails on a case is reported beside the table and left out of that row.

Without a GPU (no CuPy, no driver, no device), it says so and exits without measuring.
`python benchmarks/gpu.py --simulated mlp` runs paddle alone on the simulated device
(NumPy): a check that the script works, which tests/benchmarks/ runs in CI.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

from models import paddle_model  # benchmarks/ is on sys.path: these scripts run from it

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "1.5"))
CASES = [(model, batch) for model in ("mlp", "cnn") for batch in (32, 128, 1024)]
# BENCH_FRAMEWORKS=paddle,torch,jax leaves out torch.compile's minutes of compiling.
FRAMEWORKS = os.environ.get("BENCH_FRAMEWORKS", "paddle,torch,torch_graphs,jax").split(",")


def data(model, batch, layout):
    rng = np.random.default_rng(0)
    shape = (batch, 784) if model == "mlp" else \
        (batch, 28, 28, 1) if layout == "nhwc" else (batch, 1, 28, 28)
    return rng.standard_normal(shape, dtype=np.float32), rng.integers(0, 10, batch).astype(np.int64)


def paddle_case(model, batch):
    import paddle as pd
    pd.set_device("gpu")
    net = paddle_model(model)
    x, y = data(model, batch, "nhwc")
    return lambda: float(np.asarray(net.train_on_batch(x, y)).ravel()[0])


def _torch_model(model):
    import torch.nn as nn
    if model == "mlp":
        return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                             nn.Linear(512, 10))
    return nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3),
                         nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(1600, 128),
                         nn.ReLU(), nn.Linear(128, 10))


def torch_case(model, batch, graphs=False):
    import torch
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    net = _torch_model(model).cuda()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3, capturable=graphs)
    lossf = torch.nn.CrossEntropyLoss()
    xn, yn = data(model, batch, "nchw")
    x = torch.empty(xn.shape, device="cuda")
    y = torch.empty(yn.shape, dtype=torch.int64, device="cuda")
    forward, update = (lambda: lossf(net(x), y)), opt.step
    if graphs:  # forward + backward and the Adam step, each replayed as CUDA graphs
        forward = torch.compile(forward, mode="reduce-overhead")
        update = torch.compile(opt.step, mode="reduce-overhead")

    def step():
        x.copy_(torch.from_numpy(xn))
        y.copy_(torch.from_numpy(yn))
        opt.zero_grad(set_to_none=True)
        loss = forward()
        loss.backward()
        update()
        return float(loss.item())
    return step


def jax_case(model, batch):
    import jax
    import jax.numpy as jnp
    import optax
    from jax import lax
    if jax.default_backend() != "gpu":
        raise ImportError("JAX has no GPU backend here (pip install jax[cuda12])")

    def dense(k, i, o):
        return {"w": jax.random.normal(k, (i, o)) * (2 / i) ** 0.5, "b": jnp.zeros(o)}

    def conv(k, i, o):
        return {"w": jax.random.normal(k, (3, 3, i, o)) * (2 / (9 * i)) ** 0.5, "b": jnp.zeros(o)}

    ks = jax.random.split(jax.random.PRNGKey(0), 4)
    mlp = model == "mlp"
    params = ([dense(ks[0], 784, 512), dense(ks[1], 512, 512), dense(ks[2], 512, 10)] if mlp
              else [conv(ks[0], 1, 32), conv(ks[1], 32, 64), dense(ks[2], 1600, 128),
                    dense(ks[3], 128, 10)])

    def pool(h):
        return lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def apply(p, h):
        if not mlp:
            for c in p[:2]:
                h = lax.conv_general_dilated(h, c["w"], (1, 1), "VALID",
                                             dimension_numbers=("NHWC", "HWIO", "NHWC"))
                h = pool(jax.nn.relu(h + c["b"]))
            h = h.reshape(h.shape[0], -1)
            p = p[2:]
        for d in p[:-1]:
            h = jax.nn.relu(h @ d["w"] + d["b"])
        return h @ p[-1]["w"] + p[-1]["b"]

    xn, yn = data(model, batch, "nhwc")
    tx = optax.adam(1e-3)
    state = [params, tx.init(params)]

    def loss_fn(p, x, y):
        return optax.softmax_cross_entropy_with_integer_labels(apply(p, x), y).mean()

    @jax.jit
    def train(p, o, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        upd, o = tx.update(g, o, p)
        return optax.apply_updates(p, upd), o, loss

    def step():  # NumPy in, a Python float out: what a user's loop pays
        state[0], state[1], loss = train(state[0], state[1], xn, yn)
        return float(loss)
    return step


# The targets: (model, batch, peer, lowest ratio of paddle over the peer).
TARGETS = [("mlp", 32, "torch", 2.0), ("mlp", 128, "torch", 2.0), ("mlp", 32, "jax", 1.0),
           ("mlp", 128, "jax", 1.0), ("cnn", 128, "torch", 0.8)]


def worker(fw, models, simulated=False):
    """Serve `fw`'s steps: a line 'model batch seconds' in, a JSON rate (or error) out. With
    `simulated`, paddle's "gpu" is the CUDA backend's code on NumPy (a check, no GPU)."""
    if simulated:
        from paddle.devices import cuda
        with cuda.simulated():
            return _serve(fw, models)
    return _serve(fw, models)


def _serve(fw, models):
    build = {"paddle": paddle_case, "torch": torch_case, "jax": jax_case,
             "torch_graphs": lambda m, b: torch_case(m, b, graphs=True)}[fw]
    try:
        steps = {(m, b): build(m, b) for m, b in CASES if m in models}
    except ImportError as e:
        print(json.dumps({"missing": str(e)}), flush=True)
        return
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        m, b, secs = line.split()
        step = steps[(m, int(b))]
        try:
            for _ in range(5):  # warm-up: compilation, graph capture, autotuning
                step()
            n, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < float(secs):
                step()
                n += 1
            reply = {"rate": int(b) * n / (time.perf_counter() - t0)}
        except Exception as e:  # noqa: BLE001 - reported in the table, not hidden
            reply = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(reply), flush=True)


def gpu_missing():
    """Why the benchmark cannot run here (None when paddle sees a usable GPU)."""
    from paddle.devices import cuda
    if not cuda.available:
        return "no usable NVIDIA GPU (CuPy missing, no driver or no device)"
    try:
        import paddle as pd
        pd.set_device("gpu")
        pd.set_device("cpu")
    except Exception as e:  # noqa: BLE001 - reported, not hidden
        return f"paddle cannot use the GPU: {e}"
    return None


def _ask(p, line):
    """Send a worker one line; its JSON reply, or an error when it died (its pipes closed)."""
    try:
        p.stdin.write(line)
        p.stdin.flush()
        reply = p.stdout.readline()
    except OSError:  # a broken pipe: it is gone
        reply = ""
    if reply:
        return json.loads(reply)
    for pipe in (p.stdin, p.stdout):
        try:
            pipe.close()
        except OSError:  # what was left to write to it cannot be
            pass
    return {"error": f"the worker died (exit {p.wait()})"}


def report(best, frameworks, models):
    """The table (samples/s of each framework, paddle's ratio over each peer) and the
    targets' verdicts, as lines; `best` maps (framework, model, batch) to the best rate
    (absent where a framework failed)."""
    peers = [fw for fw in frameworks if fw != "paddle"]
    lines = [f"{'model':<6} {'batch':>5} " + " ".join(f"{fw + '/s':>14}" for fw in frameworks)
             + "".join(f" {'vs ' + fw:>15}" for fw in peers)]
    ratio = {}
    for model, batch in CASES:
        if model not in models:
            continue
        rates = [best.get((fw, model, batch)) for fw in frameworks]
        ours = best.get(("paddle", model, batch))
        for fw in peers:
            if ours and best.get((fw, model, batch)):
                ratio[model, batch, fw] = ours / best[fw, model, batch]
        lines.append(f"{model:<6} {batch:>5} "
                     + " ".join(f"{r:14,.0f}" if r else f"{'failed':>14}" for r in rates)
                     + "".join(f" {ratio[model, batch, fw]:15.2f}"
                               if (model, batch, fw) in ratio else f" {'-':>15}"
                               for fw in peers))
    for model, batch, fw, low in TARGETS:
        if model in models and fw in peers:
            got = ratio.get((model, batch, fw))
            verdict = "no figure" if got is None else "met" if got >= low else "not met"
            lines.append(f"target {model} batch {batch}: paddle >= {low}x {fw}: "
                         f"{'-' if got is None else f'{got:.2f}x'}, {verdict}")
    return lines


def main(argv):
    simulated = "--simulated" in argv
    models = [a for a in argv if a != "--simulated"] or ["mlp", "cnn"]
    if simulated:
        print("benchmarks/gpu.py --simulated: paddle alone, on the GPU backend simulated on "
              "NumPy: a check that the script runs, not a measurement.")
    else:
        missing = gpu_missing()
        if missing:
            print(f"benchmarks/gpu.py: skipped: {missing}.")
            return 0
    procs = {}
    for fw in ["paddle"] if simulated else FRAMEWORKS:
        p = subprocess.Popen([sys.executable, __file__, "--worker", fw,
                              *(["--simulated"] if simulated else []), *models], text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        msg = json.loads(p.stdout.readline() or '{"missing": "worker died"}')
        if "ready" in msg:
            procs[fw] = p
        elif fw == "paddle":
            sys.exit(f"paddle could not run on the GPU: {msg['missing']}")
        else:
            print(f"({fw} left out: {msg['missing']})")
    frameworks = list(procs)
    best = {}
    for _ in range(ROUNDS):
        for model, batch in CASES:
            if model not in models:
                continue
            for fw, p in list(procs.items()):
                msg = _ask(p, f"{model} {batch} {SECONDS}\n")
                if "error" in msg:
                    print(f"({fw} failed at {model} batch {batch}: {msg['error']})", flush=True)
                    if p.poll() is not None:
                        del procs[fw]
                    continue
                best[fw, model, batch] = max(best.get((fw, model, batch), 0.0), msg["rate"])
    print("\n".join(report(best, frameworks, models)), flush=True)
    for p in procs.values():
        p.stdin.close()
        p.wait()
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        rest = sys.argv[3:]
        worker(sys.argv[2], [a for a in rest if a != "--simulated"], "--simulated" in rest)
    else:
        sys.exit(main(sys.argv[1:]))
