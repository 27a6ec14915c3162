#!/usr/bin/env python3
"""Low-level training throughput of the spec's MLP, and the executor's overhead per op.

    python benchmarks/mlp_lowlevel.py            # paddle, plus PyTorch and JAX if importable

Cases: `mlp` trains 784-512-512-10 (ReLU, softmax cross-entropy, Adam 1e-3) at batch 32
and 128 through pd.eval on the low-level API; `tiny` runs a chain of 100 additions on
4-element tensors and reports microseconds per op (the executor's dispatch cost). Each
framework runs in its own process; the processes take turns in short rounds and the best
round counts (the machine is shared and noisy), as in ../shared/bench/compare.py.
OPENBLAS_CORETYPE is removed from the workers' environment (BENCH_KEEP_ENV=1 keeps it).
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "1.5"))
CASES = [("mlp", 32), ("mlp", 128), ("tiny", 100)]
CHAIN = 100


def batch(n):
    rng = np.random.default_rng(0)
    return rng.standard_normal((n, 784), dtype=np.float32), rng.integers(0, 10, n)


def paddle_case(case, n):
    import paddle as pd
    if case == "tiny":
        a = pd.data("a", shape=[4])
        y = a
        for _ in range(CHAIN):
            y = y + 1.0
        feed = {a: np.zeros(4, np.float32)}
        return lambda: pd.eval(y, feed)
    x = pd.data("x", shape=[None, 784])
    label = pd.data("label", shape=[None], dtype="int64")
    h = pd.fc(x, 512, act="relu")
    h = pd.fc(h, 512, act="relu")
    loss = pd.mean(pd.softmax_cross_entropy(pd.fc(h, 10), label))
    step = pd.optimizers.Adam(learning_rate=1e-3).minimize(loss)
    xb, yb = batch(n)
    feed = {x: xb, label: yb}
    return lambda: float(pd.eval([loss, step], feed)[0])


def torch_case(case, n):
    import torch
    torch.manual_seed(0)
    if case == "tiny":
        a = torch.zeros(4)

        def chain():
            y = a
            for _ in range(CHAIN):
                y = y + 1.0
            return y.numpy()
        return chain
    model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 10))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    xb, yb = batch(n)
    x, y = torch.from_numpy(xb), torch.from_numpy(yb)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()
    return step


def jax_case(case, n):
    import jax
    import jax.numpy as jnp
    import optax
    if case == "tiny":
        f = jax.jit(lambda a: a + float(CHAIN))  # XLA folds the chain: no per-op figure
        return None
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    sizes = [(784, 512), (512, 512), (512, 10)]
    params = [{"w": jax.random.normal(k, s) * (2 / s[0]) ** 0.5, "b": jnp.zeros(s[1])}
              for k, s in zip(keys, sizes)]
    tx = optax.adam(1e-3)
    state = [params, tx.init(params)]

    def loss_fn(p, x, y):
        h = x
        for layer in p[:-1]:
            h = jax.nn.relu(h @ layer["w"] + layer["b"])
        logits = h @ p[-1]["w"] + p[-1]["b"]
        return optax.softmax_cross_entropy_with_integer_labels(logits, y).mean()

    @jax.jit
    def train(p, o, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        upd, o = tx.update(g, o, p)
        return optax.apply_updates(p, upd), o, loss

    xb, yb = batch(n)

    def step():
        state[0], state[1], loss = train(state[0], state[1], xb, yb)
        return float(loss)
    return step


def worker(fw):
    build = {"paddle": paddle_case, "torch": torch_case, "jax": jax_case}[fw]
    try:
        steps = {(c, n): build(c, n) for c, n in CASES}
    except ImportError as e:
        print(json.dumps({"missing": str(e)}), flush=True)
        return
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        c, n, secs = line.split()
        step = steps[(c, int(n))]
        if step is None:
            print(json.dumps({"rate": None}), flush=True)
            continue
        for _ in range(5):
            step()
        count, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < float(secs):
            step()
            count += 1
        elapsed = time.perf_counter() - t0
        rate = (int(n) * count / elapsed) if c == "mlp" else elapsed / count / CHAIN * 1e6
        print(json.dumps({"rate": rate}), flush=True)


def main():
    env = dict(os.environ)
    if not os.environ.get("BENCH_KEEP_ENV"):
        env.pop("OPENBLAS_CORETYPE", None)
    procs = {}
    for fw in ("paddle", "torch", "jax"):
        p = subprocess.Popen([sys.executable, __file__, "--worker", fw], text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env)
        msg = json.loads(p.stdout.readline() or '{"missing": "worker died"}')
        if "ready" in msg:
            procs[fw] = p
        elif fw == "paddle":
            sys.exit(f"paddle could not run: {msg['missing']}")
    best = {}
    for _ in range(ROUNDS):
        for c, n in CASES:
            for fw, p in procs.items():
                p.stdin.write(f"{c} {n} {SECONDS}\n")
                p.stdin.flush()
                rate = json.loads(p.stdout.readline())["rate"]
                if rate is None:
                    continue
                better = max if c == "mlp" else min
                best[fw, c, n] = better(best.get((fw, c, n), rate), rate)
    peers = [fw for fw in procs if fw != "paddle"]
    print(f"{'case':<14}" + "".join(f"{fw:>12}" for fw in procs)
          + "".join(f"{'vs ' + fw:>10}" for fw in peers))
    for c, n in CASES:
        label = f"mlp b{n} /s" if c == "mlp" else "tiny us/op"
        row = f"{label:<14}" + "".join(
            f"{best[fw, c, n]:12,.2f}" if (fw, c, n) in best else f"{'-':>12}" for fw in procs)
        for fw in peers:
            if (fw, c, n) in best:
                ratio = best["paddle", c, n] / best[fw, c, n]
                row += f"{ratio if c == 'mlp' else 1 / ratio:10.2f}"
            else:
                row += f"{'-':>10}"
        print(row, flush=True)
    for p in procs.values():
        p.stdin.close()
        p.wait()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2])
    else:
        main()
