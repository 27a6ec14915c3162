"""The CUDA sources: found (in the installed package under CI), compiled by NVRTC for sm_90
(no GPU needed) with every kernel the Python side declares instantiated, and every op of
the CPU backend present in the CUDA backend. (test_kernels_gpu.py launches them.)"""
import numpy as np
import pytest

from paddle.backend import cuda  # noqa: F401 (its modules declare every kernel)
from paddle.backend.cuda import raw


def test_every_source_is_declared_and_found():
    declared = set(raw.DECLARED)
    assert declared <= set(raw.sources())
    assert set(raw.sources()) == declared, "a .cu file no kernel declaration uses"


@pytest.mark.skipif(not raw.nvrtc_available(),
                    reason="NVRTC not installed (pip install nvidia-cuda-nvrtc-cu12)")
@pytest.mark.parametrize("file", raw.sources())
def test_source_compiles_for_sm90(file):
    ptx = raw.compile_ptx(file, arch="sm_90")
    for expr in raw.DECLARED[file]:  # each instantiation is in the PTX as an entry point
        base = expr.split("<")[0]
        assert base in ptx, expr
    assert ".entry" in ptx


def test_a_broken_source_is_reported(tmp_path, monkeypatch):
    if not raw.nvrtc_available():
        pytest.skip("NVRTC not installed")
    (tmp_path / "bad.cu").write_text('#include "common.cuh"\n'
                                     'extern "C" __global__ void k(float* a) { a[0] = b; }\n')
    with open(raw.source_dir() + "/common.cuh") as f:
        (tmp_path / "common.cuh").write_text(f.read())
    monkeypatch.setattr(raw, "_DIRS", (str(tmp_path),))
    with pytest.raises(RuntimeError, match="bad.cu does not compile"):
        raw.compile_ptx("bad.cu")


def test_bind_checks_the_dtype():
    from paddle.backend.cuda.nn_pool import AVG_FORWARD
    with pytest.raises(TypeError, match="expected one of"):
        AVG_FORWARD.bind(np, np.int32, 1, None, None)


def test_every_cpu_kernel_has_a_cuda_kernel():
    from paddle.backend import cpu, cuda
    missing = sorted(set(cpu.KERNELS) - set(cuda.KERNELS))
    assert not missing, f"ops with a CPU kernel and no CUDA kernel: {missing}"
