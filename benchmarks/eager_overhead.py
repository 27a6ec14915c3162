#!/usr/bin/env python3
"""Per-call overhead of eager execution on tiny arrays: paddle beside NumPy, PyTorch eager
and JAX eager (no jit), in one run (best of several rounds, microseconds per call).

Cases: add of two 8-element float32 arrays, sum of 8 values, a 4x4 matmul, a Dense(4)
layer call on one 4-feature sample (Keras's layer; torch.nn.Linear; for JAX and NumPy
the same matmul + bias written out), and a model call: a 2-layer MLP (4 -> 8 relu -> 4) on
an (8, 4) batch (a Keras Sequential; torch.nn.Sequential of Linear, ReLU, Linear; for
JAX and NumPy the same products, bias adds and relu written out). Inputs are each
framework's own tensors, made once, so what is timed is the call. Frameworks that do not
import are left out.

    PYTHONPATH=$PWD /work/kvenv/bin/python benchmarks/eager_overhead.py
"""
import os
import timeit

import numpy as np

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
NUMBER = int(os.environ.get("BENCH_NUMBER", "2000"))


def numpy_cases():
    a, b = np.ones(8, np.float32), np.ones(8, np.float32)
    m = np.ones((4, 4), np.float32)
    w, bias, x = np.ones((4, 4), np.float32), np.zeros(4, np.float32), np.ones((1, 4), np.float32)
    w1, b1 = np.ones((4, 8), np.float32), np.zeros(8, np.float32)
    w2, b2, x8 = np.ones((8, 4), np.float32), np.zeros(4, np.float32), np.ones((8, 4), np.float32)
    return {"add8": lambda: a + b, "sum8": lambda: a.sum(), "matmul4x4": lambda: m @ m,
            "dense4": lambda: x @ w + bias,
            "mlp8x4": lambda: np.maximum(x8 @ w1 + b1, 0) @ w2 + b2}


def paddle_cases():
    import paddle as pd
    t = pd.ops.convert_to_tensor
    a, b = t(np.ones(8, np.float32), "float32"), t(np.ones(8, np.float32), "float32")
    m = t(np.ones((4, 4), np.float32), "float32")
    dense = pd.layers.Dense(4)
    x = t(np.ones((1, 4), np.float32), "float32")
    dense(x)
    mlp = pd.Sequential([pd.Input((4,)), pd.layers.Dense(8, activation="relu"),
                         pd.layers.Dense(4)])
    x8 = t(np.ones((8, 4), np.float32), "float32")
    return {"add8": lambda: a + b, "sum8": lambda: pd.ops.sum(a),
            "matmul4x4": lambda: pd.ops.matmul(m, m), "dense4": lambda: dense(x),
            "mlp8x4": lambda: mlp(x8)}


def torch_cases():
    import torch
    torch.set_num_threads(1)
    a, b = torch.ones(8), torch.ones(8)
    m = torch.ones(4, 4)
    linear, x = torch.nn.Linear(4, 4), torch.ones(1, 4)
    mlp = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
    x8 = torch.ones(8, 4)

    def dense():
        with torch.no_grad():
            return linear(x)

    def model():
        with torch.no_grad():
            return mlp(x8)
    return {"add8": lambda: a + b, "sum8": lambda: torch.sum(a),
            "matmul4x4": lambda: torch.matmul(m, m), "dense4": dense, "mlp8x4": model}


def jax_cases():
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax.numpy as jnp
    a, b = jnp.ones(8, jnp.float32), jnp.ones(8, jnp.float32)
    m = jnp.ones((4, 4), jnp.float32)
    w, bias, x = jnp.ones((4, 4)), jnp.zeros(4), jnp.ones((1, 4))
    w1, b1, w2, b2 = jnp.ones((4, 8)), jnp.zeros(8), jnp.ones((8, 4)), jnp.zeros(4)
    x8 = jnp.ones((8, 4))

    def block(f):
        return lambda: f().block_until_ready()
    return {"add8": block(lambda: a + b), "sum8": block(lambda: jnp.sum(a)),
            "matmul4x4": block(lambda: jnp.matmul(m, m)),
            "dense4": block(lambda: x @ w + bias),
            "mlp8x4": block(lambda: jnp.maximum(x8 @ w1 + b1, 0) @ w2 + b2)}


def best_us(fn):
    for _ in range(NUMBER // 10):  # warm up: caches, first-call compilation
        fn()
    return min(timeit.timeit(fn, number=NUMBER) for _ in range(ROUNDS)) / NUMBER * 1e6


def main():
    results = {}
    for name, make in (("numpy", numpy_cases), ("paddle", paddle_cases),
                       ("torch", torch_cases), ("jax", jax_cases)):
        try:
            cases = make()
        except ImportError as e:
            print(f"({name} left out: {e})")
            continue
        results[name] = {case: best_us(fn) for case, fn in cases.items()}
    names = list(results)
    print(f"{'case':<11}" + "".join(f"{n + ' us':>12}" for n in names) +
          ("   paddle/torch" if "torch" in results and "paddle" in results else ""))
    for case in results["numpy"]:
        row = f"{case:<11}" + "".join(f"{results[n][case]:>12.2f}" for n in names)
        if "torch" in results and "paddle" in results:
            row += f"{results['paddle'][case] / results['torch'][case]:>15.2f}"
        print(row)


if __name__ == "__main__":
    main()
