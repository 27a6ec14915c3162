"""The CUDA sources: found (in the installed package under CI), compiled by NVRTC for sm_90
(no GPU needed) with every kernel the Python side declares instantiated, and every op of
the CPU backend present in the CUDA backend. (test_kernels_gpu.py launches them.)"""
import sys
import types

import numpy as np
import pytest

from paddle.devices import cuda  # noqa: F401 (its modules declare every kernel)
from paddle.devices.cuda import raw


def test_every_source_is_declared_and_found():
    declared = set(raw.DECLARED)
    assert declared <= set(raw.sources())
    assert set(raw.sources()) == declared, "a .cu file no kernel declaration uses"


@pytest.mark.skipif(not raw.nvrtc_available(),
                    reason="NVRTC not installed (pip install nvidia-cuda-nvrtc-cu12)")
@pytest.mark.parametrize("major", sorted(raw.nvrtc_paths()) or [None])
@pytest.mark.parametrize("file", raw.sources())
def test_source_compiles_for_sm90(file, major):
    """With every NVRTC installed (CUDA 12's and 13's wheels, as CI installs them)."""
    ptx = raw.compile_ptx(file, arch="sm_90", major=major)
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
    from paddle.devices.cuda.pool import AVG_FORWARD
    with pytest.raises(TypeError, match="expected one of"):
        AVG_FORWARD.bind(np, np.int32, 1, None, None)


def test_every_cpu_kernel_has_a_cuda_kernel():
    from paddle.devices import cpu, cuda
    missing = sorted(name for name in cpu.KERNELS if name not in cuda.KERNELS)  # (by family too)
    assert not missing, f"ops with a CPU kernel and no CUDA kernel: {missing}"
    missing = sorted(set(cpu.KERNELS.families) - set(cuda.KERNELS.families))
    assert not missing, f"op families with a CPU kernel and no CUDA kernel: {missing}"


def test_nvrtc_is_found_in_both_wheel_layouts(tmp_path, monkeypatch):
    for lib in ("cuda_nvrtc/lib/libnvrtc.so.12", "cuda_nvrtc/lib/libnvrtc.alt.so.12",
                "cuda_nvrtc/lib/libnvrtc-builtins.so.12.9", "cu13/lib/libnvrtc.so.13",
                "cu13/lib/libnvrtc-builtins.so.13.0"):
        (tmp_path / lib).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / lib).write_bytes(b"")
    monkeypatch.setitem(sys.modules, "nvidia", types.SimpleNamespace(__path__=[str(tmp_path)]))
    monkeypatch.setattr(raw.ctypes.util, "find_library", lambda name: None)
    assert raw.nvrtc_paths() == {12: str(tmp_path / "cuda_nvrtc/lib/libnvrtc.so.12"),
                                 13: str(tmp_path / "cu13/lib/libnvrtc.so.13")}


def test_an_edited_header_changes_the_code_cupy_caches_by(tmp_path, monkeypatch):
    (tmp_path / "k.cu").write_text('#include "common.cuh"\n')
    (tmp_path / "common.cuh").write_text("#define ONE 1\n")
    monkeypatch.setattr(raw, "_DIRS", (str(tmp_path),))
    before = raw.module_source("k.cu")
    assert before.startswith('#include "common.cuh"\n')
    (tmp_path / "common.cuh").write_text("#define ONE 2\n")
    assert raw.module_source("k.cu") != before
    assert raw.module_source("k.cu") == raw.module_source("k.cu")


def test_missing_cuda_headers_say_what_to_install():
    def probe():
        raise RuntimeError("Failed to find CUDA headers: cuda_fp16.h: No such file")
    with pytest.raises(RuntimeError, match=r"device 'gpu:1': CuPy cannot compile its GPU "
                                           r"kernels \(RuntimeError: Failed to find CUDA headers.*"
                                           r"install the CUDA toolkit and set CUDA_PATH"):
        raw.check_compiler(probe, "gpu:1")
    raw.check_compiler(lambda: None, "gpu:0")  # a working compiler says nothing
