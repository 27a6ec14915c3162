#!/usr/bin/env python3
"""Every convolution shape of ../shared/bench/workloads.py's resnet and resnet50 cases, each
pass (forward, input gradient dx, filter gradient dw) timed alone, paddle's kernels beside
PyTorch's (if a Python with torch is given), GFLOP/s of one thread's CPU time.

    OMP_NUM_THREADS=1 python benchmarks/conv_shapes.py                     # paddle only
    OMP_NUM_THREADS=1 BENCH_TORCH_PYTHON=/path/to/python python benchmarks/conv_shapes.py
    BENCH_CASES=resnet BENCH_ONLY=3x3 python benchmarks/conv_shapes.py     # some shapes

paddle's kernels are called through paddle._C directly, with the spec and workspace its
plan would prepare (paddle/devices/cpu/conv.py), so only the kernel is timed. PyTorch
runs torch.nn.functional.conv2d and torch.ops.aten.convolution_backward on NCHW tensors
(its oneDNN/native choice), one thread. Each figure is the best of BENCH_REPEATS calls'
CPU time (time.process_time), which counts only this process's work and so survives a
shared machine better than wall time. `count` is how often the shape occurs in one step.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

REPEATS = int(os.environ.get("BENCH_REPEATS", "7"))
PASSES = ["fwd", "dx", "dw"]

# (name, count per step, batch, input size, cin, cout, kernel, stride, padding)
RESNET = [
    ("stem 3x3 3>32", 1, 64, 32, 3, 32, 3, 1, "same"),
    ("3x3 32>32", 4, 64, 32, 32, 32, 3, 1, "same"),
    ("3x3/2 32>64", 1, 64, 32, 32, 64, 3, 2, "same"),
    ("1x1/2 32>64", 1, 64, 32, 32, 64, 1, 2, "same"),
    ("3x3 64>64", 3, 64, 16, 64, 64, 3, 1, "same"),
]
# Keras's ResNet50 (v1: the stride on the block's first 1x1), batch 8 as in the fit case.
RESNET50 = [
    ("stem 7x7/2 3>64", 1, 8, 230, 3, 64, 7, 2, "valid"),
    ("1x1 64>64 @56", 1, 8, 56, 64, 64, 1, 1, "valid"),
    ("3x3 64>64 @56", 3, 8, 56, 64, 64, 3, 1, "same"),
    ("1x1 64>256 @56", 4, 8, 56, 64, 256, 1, 1, "valid"),
    ("1x1 256>64 @56", 2, 8, 56, 256, 64, 1, 1, "valid"),
    ("1x1/2 256>128 @56", 1, 8, 56, 256, 128, 1, 2, "valid"),
    ("1x1/2 256>512 @56", 1, 8, 56, 256, 512, 1, 2, "valid"),
    ("3x3 128>128 @28", 4, 8, 28, 128, 128, 3, 1, "same"),
    ("1x1 128>512 @28", 4, 8, 28, 128, 512, 1, 1, "valid"),
    ("1x1 512>128 @28", 3, 8, 28, 512, 128, 1, 1, "valid"),
    ("1x1/2 512>256 @28", 1, 8, 28, 512, 256, 1, 2, "valid"),
    ("1x1/2 512>1024 @28", 1, 8, 28, 512, 1024, 1, 2, "valid"),
    ("3x3 256>256 @14", 6, 8, 14, 256, 256, 3, 1, "same"),
    ("1x1 256>1024 @14", 6, 8, 14, 256, 1024, 1, 1, "valid"),
    ("1x1 1024>256 @14", 5, 8, 14, 1024, 256, 1, 1, "valid"),
    ("1x1/2 1024>512 @14", 1, 8, 14, 1024, 512, 1, 2, "valid"),
    ("1x1/2 1024>2048 @14", 1, 8, 14, 1024, 2048, 1, 2, "valid"),
    ("3x3 512>512 @7", 3, 8, 7, 512, 512, 3, 1, "same"),
    ("1x1 512>2048 @7", 3, 8, 7, 512, 2048, 1, 1, "valid"),
    ("1x1 2048>512 @7", 2, 8, 7, 2048, 512, 1, 1, "valid"),
]
CASES = {"resnet": RESNET, "resnet50": RESNET50}
# BENCH_ONLY=3x3,stem keeps the shapes whose name contains one of these.
if os.environ.get("BENCH_ONLY"):
    CASES = {k: [s for s in v if any(w in s[0] for w in os.environ["BENCH_ONLY"].split(","))]
             for k, v in CASES.items()}


def out_size(size, k, s, padding):
    return -(-size // s) if padding == "same" else (size - k) // s + 1


def flops(shape):
    _, _, n, size, cin, cout, k, s, padding = shape
    o = out_size(size, k, s, padding)
    return 2.0 * n * o * o * cout * k * k * cin


def best_cpu_time(call):
    call()
    times = []
    for _ in range(REPEATS):
        t0 = time.process_time()
        call()
        times.append(time.process_time() - t0)
    return min(times)


def paddle_times(shapes):
    from paddle import _C
    from paddle.devices.cpu.conv import conv_spec
    rng = np.random.default_rng(0)
    out = []
    for shape in shapes:
        _, _, n, size, cin, cout, k, s, padding = shape
        o = out_size(size, k, s, padding)
        attrs = {"strides": (s, s), "dilation": (1, 1), "padding": padding, "groups": 1}
        x = rng.standard_normal((n, size, size, cin), dtype=np.float32)
        f = rng.standard_normal((k, k, cin, cout), dtype=np.float32)
        dy = rng.standard_normal((n, o, o, cout), dtype=np.float32)
        y, dx, df = np.empty_like(dy), np.empty_like(x), np.empty_like(f)
        none = np.empty(0, np.float32)
        spec = conv_spec(x.shape, f.shape, dy.shape, attrs, 4)
        ws, wsf = (np.empty(max(_C.conv2d_workspace(spec, grad), 1), np.float32)
                   for grad in (False, True))
        out.append([
            best_cpu_time(lambda: _C.conv2d(x, f, none, y, spec, ws)),
            best_cpu_time(lambda: _C.conv2d_backprop_input(dy, f, dx, spec, ws)),
            best_cpu_time(lambda: _C.conv2d_backprop_filter(x, dy, df, none, spec, wsf)),
        ])
    return out


def torch_times(shapes):
    import torch
    torch.set_num_threads(1)
    out = []
    with torch.no_grad():
        for shape in shapes:
            _, _, n, size, cin, cout, k, s, padding = shape
            o = out_size(size, k, s, padding)
            p = (k - 1) // 2 if padding == "same" else 0
            if padding == "same" and s > 1:  # TF's same pads (0, 1) at stride 2: pad by hand
                size_in = (o - 1) * s + k
                x = torch.randn(n, cin, size_in, size_in)
                p = 0
            else:
                x = torch.randn(n, cin, size, size)
            w = torch.randn(cout, cin, k, k)
            dy = torch.randn(n, cout, o, o)

            def bwd(mask):
                return torch.ops.aten.convolution_backward(
                    dy, x, w, None, [s, s], [p, p], [1, 1], False, [0, 0], 1, mask)
            out.append([
                best_cpu_time(lambda: torch.nn.functional.conv2d(x, w, None, s, p)),
                best_cpu_time(lambda: bwd([True, False, False])),
                best_cpu_time(lambda: bwd([False, True, False])),
            ])
    return out


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        shapes = [s for case in sys.argv[2].split(",") for s in CASES[case]]
        times = paddle_times(shapes) if sys.argv[3] == "paddle" else torch_times(shapes)
        print(json.dumps(times))
        return
    cases = os.environ.get("BENCH_CASES", "resnet,resnet50")
    shapes = [s for case in cases.split(",") for s in CASES[case]]
    here = os.path.abspath(__file__)
    runs = {"paddle": [sys.executable, here, "--worker", cases, "paddle"]}
    if os.environ.get("BENCH_TORCH_PYTHON"):
        runs["torch"] = [os.environ["BENCH_TORCH_PYTHON"], here, "--worker", cases, "torch"]
    res = {k: json.loads(subprocess.run(v, check=True, capture_output=True, text=True).stdout)
           for k, v in runs.items()}
    print("one thread, CPU time, GFLOP/s (paddle / torch); ms per step = count x (fwd+dx+dw)")
    print("| shape | count | fwd | dx | dw | paddle ms/step | torch ms/step |")
    print("|---|---|---|---|---|---|---|")
    total = {k: 0.0 for k in res}
    for i, shape in enumerate(shapes):
        gf = flops(shape) / 1e9
        cells = []
        for j in range(3):
            cell = f"{gf / res['paddle'][i][j]:.0f}"
            if "torch" in res:
                cell += f" / {gf / res['torch'][i][j]:.0f}"
            cells.append(cell)
        step = {k: shape[1] * sum(v[i]) * 1e3 for k, v in res.items()}
        for k in step:
            total[k] += step[k]
        print(f"| {shape[0]} (b{shape[2]}) | {shape[1]} | " + " | ".join(cells) +
              f" | {step['paddle']:.1f} | " + (f"{step['torch']:.1f} |" if "torch" in step
                                               else "- |"))
    print("total ms per step (convolutions only): " +
          ", ".join(f"{k} {v:.1f}" for k, v in total.items()))


if __name__ == "__main__":
    main()
