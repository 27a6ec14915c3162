#!/usr/bin/env python3
"""Convolution speed: the benchmark CNN's two conv layers and its whole training step,
paddle's low level against PyTorch, in one run.

    python benchmarks/conv_layers.py                 # batch 32 and 128
    BENCH_BATCHES=128 python benchmarks/conv_layers.py

Cases (NHWC for paddle, NCHW for PyTorch, float32):
  conv1       conv 1->32 3x3 on 28x28: forward, and forward + filter gradient (its input
              is data, so no input gradient, in either framework)
  conv2       conv 32->64 3x3 on 13x13: forward, and forward + input and filter gradients
              (both layers without bias; the loss is the sum of the output, so only
              scalars and the filters' gradient leave either framework)
  cnn_train   conv32-relu-maxpool-conv64-relu-maxpool-flatten-dense128-relu-dense10,
              softmax cross-entropy, one Adam step (paddle: pd.eval([loss, step]), conv
              biases fused with pd.conv2d(..., bias=b) as PyTorch's Conv2d does)

Each framework runs in its own process (thread pools never share one); they take turns
in short rounds and the best round counts, as in ../shared/bench/compare.py, because the
machine is shared and noisy. The figure that matters is the ratio (above 1: paddle is
faster). PyTorch is optional: without it only paddle's times are printed. The workers run
without OPENBLAS_CORETYPE (a pin these machines set that users' machines do not have);
BENCH_KEEP_ENV=1 keeps the environment as is.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "1.0"))
BATCHES = [int(b) for b in os.environ.get("BENCH_BATCHES", "32,128").split(",")]
CASES = [("conv1", "fwd"), ("conv1", "fwd+bwd"), ("conv2", "fwd"), ("conv2", "fwd+bwd"),
         ("cnn_train", "step")]
LAYERS = {"conv1": (28, 1, 32), "conv2": (13, 32, 64)}  # input size, in, out channels


def inputs(batch, size, channels, nchw):
    rng = np.random.default_rng(0)
    shape = (batch, channels, size, size) if nchw else (batch, size, size, channels)
    return rng.standard_normal(shape, dtype=np.float32), rng.integers(0, 10, batch)


# ---- paddle ------------------------------------------------------------------------------

def paddle_steps(batch):
    import paddle as pd
    steps = {}
    for name, (size, cin, cout) in LAYERS.items():
        x, _ = inputs(batch, size, cin, nchw=False)
        xv = pd.data(f"{name}_x", shape=[None, size, size, cin])
        w = pd.Variable(f"{name}_w", shape=[3, 3, cin, cout])
        # Scalars out, as PyTorch's tensors stay inside it: eval would copy a big result.
        total = pd.sum(pd.conv2d(xv, w))
        if name == "conv1":
            targets = [total, *pd.gradients(total, [w])]
        else:
            gx, gw = pd.gradients(total, [xv, w])
            targets = [total, gw, pd.sum(gx)]
        steps[name, "fwd"] = (lambda t=total, xv=xv, x=x: pd.eval(t, {xv: x}))
        steps[name, "fwd+bwd"] = (lambda t=targets, xv=xv, x=x: pd.eval(t, {xv: x}))

    x, labels = inputs(batch, 28, 1, nchw=False)
    xv = pd.data("image", shape=[None, 28, 28, 1])
    yv = pd.data("label", shape=[None], dtype="int64")

    def conv(h, cin, cout, name):
        w = pd.Variable(f"{name}/w", shape=[3, 3, cin, cout], initializer="he_uniform")
        b = pd.Variable(f"{name}/b", shape=[cout])
        return pd.max_pool2d(pd.relu(pd.conv2d(h, w, bias=b)), 2)

    h = conv(conv(xv, 1, 32, "c1"), 32, 64, "c2")
    h = pd.fc(pd.flatten(h), size=128, act="relu")
    logits = pd.fc(h, size=10)
    loss = pd.mean(pd.softmax_cross_entropy(logits, yv))
    update = pd.optimizers.Adam(learning_rate=1e-3).minimize(loss)
    steps["cnn_train", "step"] = lambda: float(pd.eval([loss, update],
                                                       {xv: x, yv: labels}, training=True)[0])
    return steps


# ---- PyTorch -----------------------------------------------------------------------------

def torch_steps(batch):
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    steps = {}
    for name, (size, cin, cout) in LAYERS.items():
        x = torch.from_numpy(inputs(batch, size, cin, nchw=True)[0])
        x.requires_grad_(name == "conv2")
        layer = nn.Conv2d(cin, cout, 3, bias=False)

        def fwd(layer=layer, x=x):
            with torch.no_grad():
                layer(x).sum().item()

        def fwd_bwd(layer=layer, x=x):
            layer.zero_grad(set_to_none=True)
            x.grad = None
            total = layer(x).sum()
            total.backward()
            total.item()
        steps[name, "fwd"], steps[name, "fwd+bwd"] = fwd, fwd_bwd

    model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(1600, 128), nn.ReLU(), nn.Linear(128, 10))
    xn, yn = inputs(batch, 28, 1, nchw=True)
    x, y = torch.from_numpy(xn), torch.from_numpy(yn)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    lossf = nn.CrossEntropyLoss()

    def train():
        opt.zero_grad(set_to_none=True)
        loss = lossf(model(x), y)
        loss.backward()
        opt.step()
        loss.item()
    steps["cnn_train", "step"] = train
    return steps


# ---- the fair race -------------------------------------------------------------------------

def worker(framework):
    """Build every case once, then answer 'batch case mode seconds' lines with ms/step."""
    build = {"paddle": paddle_steps, "torch": torch_steps}[framework]
    try:
        steps = {(b, *k): f for b in BATCHES for k, f in build(b).items()}
    except ImportError as e:
        print(json.dumps({"missing": str(e)}), flush=True)
        return
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        batch, case, mode, secs = line.split()
        step = steps[int(batch), case, mode]
        for _ in range(3):
            step()
        n, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < float(secs):
            step()
            n += 1
        print(json.dumps({"ms": (time.perf_counter() - t0) / n * 1e3}), flush=True)


def main():
    env = dict(os.environ)
    if not os.environ.get("BENCH_KEEP_ENV"):
        env.pop("OPENBLAS_CORETYPE", None)
    procs = {}
    for fw in ("paddle", "torch"):
        p = subprocess.Popen([sys.executable, __file__, "--worker", fw], text=True, env=env,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        msg = json.loads(p.stdout.readline() or '{"missing": "worker died"}')
        if "ready" in msg:
            procs[fw] = p
        elif fw == "paddle":
            sys.exit(f"paddle could not run: {msg['missing']}")
        else:
            print(f"(no {fw}: {msg['missing']})")
    best = {}
    for _ in range(ROUNDS):
        for batch in BATCHES:
            for case, mode in CASES:
                for fw, p in procs.items():
                    p.stdin.write(f"{batch} {case} {mode} {SECONDS}\n")
                    p.stdin.flush()
                    ms = json.loads(p.stdout.readline())["ms"]
                    key = (fw, batch, case, mode)
                    best[key] = min(best.get(key, float("inf")), ms)
    fws = list(procs)
    print(f"{'case':<10} {'mode':<8} {'batch':>5} " + " ".join(f"{fw + ' ms':>10}" for fw in fws)
          + (f" {'speedup':>8}" if "torch" in procs else ""))
    for batch in BATCHES:
        for case, mode in CASES:
            row = [best[fw, batch, case, mode] for fw in fws]
            ratio = f" {row[1] / row[0]:8.2f}" if "torch" in procs else ""
            print(f"{case:<10} {mode:<8} {batch:>5} " + " ".join(f"{ms:10.2f}" for ms in row)
                  + ratio, flush=True)
    for p in procs.values():
        p.stdin.close()
        p.wait()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2])
    else:
        main()
