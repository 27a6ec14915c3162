"""batch_norm's C++ kernels (csrc/nn/norm.cpp) called directly: every vector build."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import paddle as pd

NARROW_SCRIPT = """
import sys
import numpy as np
from paddle import _C
out = {}
for dtype in ("float32", "float64"):
    for c in (3, 37, 64):
        rng = np.random.default_rng(c)
        x = (rng.standard_normal((301, c)) * 2 + 5).astype(dtype)
        g = rng.standard_normal((301, c)).astype(dtype)
        scale, offset = (rng.standard_normal(c).astype(dtype) for _ in range(2))
        mm, mv = np.zeros(c, dtype), np.ones(c, dtype)
        y, dx = np.empty_like(x), np.empty_like(x)
        mean, inv_std, ds, do = (np.empty(c, dtype) for _ in range(4))
        _C.batch_norm(x, scale, offset, mm, mv, y, mean, inv_std, 301, c, 1, 0.5, 1e-3, True)
        _C.batch_norm_grad(x, scale, mean, inv_std, g, dx, ds, do, 301, c, 1, True)
        for k, v in dict(x=x, g=g, scale=scale, offset=offset, y=y, mm=mm, mv=mv, dx=dx,
                         ds=ds, do=do).items():
            out[f"{dtype}_{c}_{k}"] = v
np.savez(sys.argv[1], **out)
"""


@pytest.mark.parametrize("vector_bytes", ["16", "32", "64"])
def test_batch_norm_on_every_vector_build(tmp_path, vector_bytes):
    # The NHWC loops are built for several vector widths and run the widest the CPU has;
    # every build this CPU runs must agree with the reference, channel counts that fill
    # no vector, some vectors and a tail alike.
    paths = [str(Path(pd.__file__).parents[1])] + \
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    env = dict(os.environ, PADDLE_VECTOR_BYTES=vector_bytes,
               PYTHONPATH=os.pathsep.join(paths))
    subprocess.run([sys.executable, "-c", NARROW_SCRIPT, str(tmp_path / "out.npz")], env=env,
                   check=True, cwd=str(Path(pd.__file__).parents[1]))
    got = np.load(tmp_path / "out.npz")
    for dtype, tol in (("float32", 2e-5), ("float64", 1e-12)):
        for c in (3, 37, 64):
            r = {k: got[f"{dtype}_{c}_{k}"].astype(np.float64)
                 for k in ("x", "g", "scale", "offset", "y", "mm", "mv", "dx", "ds", "do")}
            x, g, scale = r["x"], r["g"], r["scale"]
            mu, var = x.mean(0), x.var(0)
            xhat = (x - mu) / np.sqrt(var + 1e-3)
            np.testing.assert_allclose(r["y"], xhat * scale + r["offset"], rtol=tol, atol=tol)
            np.testing.assert_allclose(r["mm"], 0.5 * mu, rtol=tol)
            np.testing.assert_allclose(r["mv"], 0.5 + 0.5 * var, rtol=tol)
            ds, do = (g * xhat).sum(0), g.sum(0)
            dx = scale / np.sqrt(var + 1e-3) * (g - do / len(x) - xhat * ds / len(x))
            np.testing.assert_allclose(r["ds"], ds, rtol=tol * 10, atol=tol * 10)
            np.testing.assert_allclose(r["do"], do, rtol=tol * 10, atol=tol * 10)
            np.testing.assert_allclose(r["dx"], dx, rtol=tol * 10, atol=tol * 10)
