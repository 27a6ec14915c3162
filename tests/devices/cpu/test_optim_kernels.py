"""The fused Adam update (csrc/optim.cpp) called directly: every vector build, against a
NumPy reference of Keras 3's formulas (plain, AdamW's decay, amsgrad)."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import paddle as pd

SCRIPT = """
import sys
import numpy as np
from paddle import _C
out = {}
for dtype in ("float32", "float64"):
    for case, (wd, ams) in {"plain": (0.0, False), "decay": (0.01, False),
                            "amsgrad": (0.0, True)}.items():
        rng = np.random.default_rng(3)
        ps = [rng.standard_normal(n).astype(dtype) for n in (1, 37, 5000)]
        gs = [rng.standard_normal(p.size).astype(dtype) for p in ps]
        ms = [rng.standard_normal(p.size).astype(dtype) * 0.1 for p in ps]
        vs = [np.abs(rng.standard_normal(p.size)).astype(dtype) for p in ps]
        hs = [v * 1.5 for v in vs] if ams else []
        for i, a in enumerate(ps + gs + ms + vs + hs):
            out[f"{dtype}_{case}_in{i}"] = a.copy()
        _C.adam(ps, gs, ms, vs, hs, 1e-2, 0.9, 0.999, 1e-7, 3.0, wd, ams)
        for i, a in enumerate(ps + ms + vs + hs):
            out[f"{dtype}_{case}_out{i}"] = a
np.savez(sys.argv[1], **out)
"""


def reference(p, g, m, v, h, wd, lr=1e-2, b1=0.9, b2=0.999, eps=1e-7, step=3.0):
    alpha = lr * np.sqrt(1 - b2 ** step) / (1 - b1 ** step)
    p = p - lr * wd * p
    m = m + (g - m) * (1 - b1)
    v = v + (g * g - v) * (1 - b2)
    h = np.maximum(h, v) if h is not None else None
    return p - alpha * m / (np.sqrt(v if h is None else h) + eps), m, v, h


@pytest.mark.parametrize("vector_bytes", ["16", "32", "64"])
def test_adam_on_every_vector_build(tmp_path, vector_bytes):
    # The update's loop is built for several vector widths (PD_VECTOR_VARIANTS) and runs
    # the widest the CPU has; every build this CPU runs must agree with the reference.
    paths = [str(Path(pd.__file__).parents[1])] + \
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PADDLE_VECTOR_BYTES=vector_bytes,
               PYTHONPATH=os.pathsep.join(paths))
    subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "out.npz")], env=env,
                   check=True, cwd=str(Path(pd.__file__).parents[1]))
    got = np.load(tmp_path / "out.npz")
    for dtype, tol in (("float32", 1e-6), ("float64", 1e-14)):
        for case, wd in (("plain", 0.0), ("decay", 0.01), ("amsgrad", 0.0)):
            k = 5 if case == "amsgrad" else 4
            ins = [got[f"{dtype}_{case}_in{i}"].astype(np.float64) for i in range(3 * k)]
            outs = [got[f"{dtype}_{case}_out{i}"] for i in range(3 * (k - 1))]
            for j in range(3):
                h = ins[12 + j] if k == 5 else None
                want = reference(ins[j], ins[3 + j], ins[6 + j], ins[9 + j], h, wd)
                for w, o in zip(want, outs[j::3]):
                    assert o.dtype == dtype
                    np.testing.assert_allclose(o, w, rtol=tol, atol=tol)
