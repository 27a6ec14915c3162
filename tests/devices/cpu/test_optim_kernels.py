"""The fused Adam update (csrc/optim.cpp) called directly: lengths that fill no vector, some
vectors and a tail, one large enough to be split over the threads; weight decay and
amsgrad; float32 and float64; every vector build this CPU runs."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import paddle as pd

SIZES = (1, 7, 16, 37, 1000, 100_003)

SCRIPT = """
import sys
import numpy as np
from paddle import _C
out = {}
for dtype in ("float32", "float64"):
    for n in %r:
        for wd in (0.0, 0.25):
            for ams in (False, True):
                rng = np.random.default_rng(n)
                p, g, m = (rng.standard_normal(n).astype(dtype) for _ in range(3))
                v = np.abs(rng.standard_normal(n)).astype(dtype)
                vh = (v * rng.uniform(0.5, 1.5, n)).astype(dtype) if ams else np.empty(0, dtype)
                key = f"{dtype}_{n}_{wd}_{ams}"
                for k, a in dict(p=p, g=g, m=m, v=v, vh=vh).items():
                    out[f"{key}_{k}_in"] = a.copy()
                _C.adam([p], [g], [m], [v], [vh] if ams else [], 0.01, 0.9, 0.999, 1e-7, 3.0,
                        wd, ams)
                for k, a in dict(p=p, m=m, v=v, vh=vh).items():
                    out[f"{key}_{k}"] = a
np.savez(sys.argv[1], **out)
""" % (SIZES,)


def reference(p, g, m, v, vh, wd, ams, lr=0.01, b1=0.9, b2=0.999, eps=1e-7, step=3.0):
    """Keras 3's Adam step (AdamW's decoupled decay first) in float64."""
    alpha = lr * np.sqrt(1 - b2 ** step) / (1 - b1 ** step)
    p = p - lr * wd * p
    m = m + (g - m) * (1 - b1)
    v = v + (g * g - v) * (1 - b2)
    vh = np.maximum(vh, v) if ams else vh
    return p - alpha * m / (np.sqrt(vh if ams else v) + eps), m, v, vh


@pytest.mark.parametrize("vector_bytes", ["16", "32", "64"])
def test_adam_on_every_vector_build(tmp_path, vector_bytes):
    paths = [str(Path(pd.__file__).parents[1])] + \
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PADDLE_VECTOR_BYTES=vector_bytes, PYTHONPATH=os.pathsep.join(paths))
    subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "out.npz")], env=env,
                   check=True, cwd=str(Path(pd.__file__).parents[1]))
    got = np.load(tmp_path / "out.npz")
    for dtype, tol in (("float32", 2e-6), ("float64", 1e-14)):
        for n in SIZES:
            for wd in (0.0, 0.25):
                for ams in (False, True):
                    key = f"{dtype}_{n}_{wd}_{ams}"
                    inputs = [got[f"{key}_{k}_in"].astype(np.float64)
                              for k in ("p", "g", "m", "v", "vh")]
                    want = reference(*inputs, wd, ams)
                    for k, w in zip(("p", "m", "v", "vh"), want):
                        np.testing.assert_allclose(got[f"{key}_{k}"], w, rtol=tol, atol=tol,
                                                   err_msg=f"{key} {k}")


def test_adam_a_nan_second_moment_keeps_v_hat():
    # amsgrad's running maximum ignores a NaN v (the comparison is false), as before the
    # loop was vectorized; the parameter then moves by v_hat.
    p = np.zeros(33, np.float32)
    g = np.ones(33, np.float32)
    g[5] = np.nan
    m, v = np.zeros(33, np.float32), np.zeros(33, np.float32)
    vh = np.full(33, 4.0, np.float32)
    pd._C.adam([p], [g], [m], [v], [vh], 0.1, 0.9, 0.999, 1e-7, 1.0, 0.0, True)
    assert np.isnan(v[5]) and vh[5] == 4.0 and np.isnan(p[5])  # m[5] is NaN too
    assert np.all(vh[np.arange(33) != 5] == 4.0)
