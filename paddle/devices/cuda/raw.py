"""The CUDA C kernels of csrc/cuda/*.cu, each bound beside its NumPy reference.

A kernel is declared once at module level, `Kernel(file, name, reference)`, and bound to
the buffers of a program when an op is prepared: `kernel.bind(xp, dtype, threads, *args)`
returns the no-argument callable the plan runs. On a GPU (`xp` is CuPy) that callable
launches the kernel's instantiation for the dtype (`im2col<float>`) from the file's
`cupy.RawModule`, compiled once per device (NVRTC) and cached, on the current stream; with
`xp` NumPy (CI, tests, no GPU) it calls `reference(*args)`
instead, which computes the same outputs from the same arguments with the same index
arithmetic, written with NumPy. The `gpu` tests run both on the device and compare them.

Kernels are written to be captured into a CUDA graph: their arguments are fixed device
pointers and sizes bound here, they never allocate, and anything that changes from step to
step (a random counter, an optimizer's learning rate) is read from device memory.

Sources are found in the installed package (`paddle/devices/cuda/cu/`, copied there by
setup.py) or, in a development tree, in `csrc/cuda/`. `compile_ptx` compiles a source with
NVRTC alone (no GPU needed): tests use it to check that every source compiles.

Example:
    >>> import numpy as np
    >>> from paddle.devices.cuda import raw
    >>> "conv.cu" in raw.sources()
    True
    >>> from paddle.devices.cuda.pool import AVG_FORWARD
    >>> x, y = np.arange(8.0).reshape(1, 2, 2, 2), np.empty((1, 1, 1, 2))
    >>> spec = (1, 2, 2, 2, 1, 1, 2, 2, 2, 2, 0, 0)  # N H W C OH OW KH KW sh sw pt pl
    >>> AVG_FORWARD.bind(np, x.dtype, y.size, x, y, *spec)()  # the NumPy reference runs
    >>> y.ravel().tolist()
    [3.0, 4.0]
"""
import ctypes
import ctypes.util
import functools
import glob
import hashlib
import os
import re

import numpy as np

THREADS = 256  # threads per block
MAX_BLOCKS = 1 << 16  # kernels loop over their elements with a grid stride past this

_CTYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
           np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_HERE = os.path.dirname(os.path.abspath(__file__))
_DIRS = (os.path.join(_HERE, "cu"),  # an installed package
         os.path.normpath(os.path.join(_HERE, "..", "..", "..", "csrc", "cuda")))  # a checkout
DECLARED = {}  # file -> {name expression NVRTC instantiates}: what the modules declare


def source_dir():
    """The folder holding the .cu sources (installed copy first, then the checkout's)."""
    for d in _DIRS:
        if os.path.isdir(d) and glob.glob(os.path.join(d, "*.cu")):
            return d
    raise FileNotFoundError(f"paddle's CUDA sources (*.cu) are in none of {list(_DIRS)}: "
                            f"reinstall paddle")


def sources():
    """The names of the .cu files."""
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(source_dir(), "*.cu")))


def read_source(file):
    with open(os.path.join(source_dir(), file), encoding="utf-8") as f:
        return f.read()


def _options():
    return ("-std=c++14", f"-I{source_dir()}")


def module_source(file):
    """The code handed to CuPy for `file`: its source, then a comment with a digest of the
    headers beside it (common.cuh). CuPy caches compiled kernels by their code and options,
    not by what they include: without the digest, an edited header would keep being served
    the kernels compiled from the old one."""
    headers = hashlib.sha256()
    for path in sorted(glob.glob(os.path.join(source_dir(), "*.cuh"))):
        with open(path, "rb") as f:
            headers.update(os.path.basename(path).encode() + b"\0" + f.read() + b"\0")
    return f"{read_source(file)}\n// paddle headers: {headers.hexdigest()}\n"


@functools.lru_cache(maxsize=None)
def _module(file, device):
    """The file's RawModule on one device, compiled at its first use there."""
    import cupy  # optional: only a real GPU gets here
    with cupy.cuda.Device(device):
        return cupy.RawModule(code=module_source(file), options=_options(),
                              name_expressions=sorted(DECLARED.get(file, ())))


def expression(name, dtype):
    """The name NVRTC knows a kernel's version for `dtype` by (`im2col<float>`), or the
    plain name of an untyped kernel (dtype None)."""
    if dtype is None:
        return name
    ctype = _CTYPES.get(np.dtype(dtype))
    if ctype is None:
        raise TypeError(f"{name}: a CUDA kernel for {np.dtype(dtype).name} does not exist")
    return f"{name}<{ctype}>"


def function(file, name, dtype):
    """The compiled `cupy.RawKernel` of `name` for `dtype` on the current device."""
    import cupy  # optional: only a real GPU gets here
    return _module(file, cupy.cuda.Device().id).get_function(expression(name, dtype))


def _device_arg(a):
    """A kernel argument as CUDA receives it: arrays as pointers, Python numbers as 64-bit
    (every kernel takes `long long` sizes and `double` scalars)."""
    if isinstance(a, (bool, np.bool_, int, np.integer)):
        return np.int64(a)
    if isinstance(a, (float, np.floating)):
        return np.float64(a)
    return a


def blocks_for(threads):
    return max(1, min(-(-int(threads) // THREADS), MAX_BLOCKS))


class Kernel:
    """One kernel of a .cu file and its NumPy reference (same arguments, same outputs).

    Args:
        file: the source in csrc/cuda/.
        name: the kernel's name there (a template over the element type unless
            `dtypes` is None).
        reference: the NumPy function computing the same outputs from the same arguments.
        dtypes: the element types it is instantiated for.
    """

    def __init__(self, file, name, reference, dtypes=("float32", "float64")):
        self.file, self.name, self.reference = file, name, reference
        self.dtypes = None if dtypes is None else tuple(np.dtype(d) for d in dtypes)
        names = [name] if dtypes is None else [expression(name, d) for d in dtypes]
        DECLARED.setdefault(file, set()).update(names)

    def bind(self, xp, dtype, threads, *args, blocks=None):
        """The callable that runs the kernel on these arguments.

        Args:
            xp: numpy (the reference runs) or cupy (the kernel is launched).
            dtype: the element type picking the kernel's version (ignored if untyped).
            threads: elements the kernel walks (its grid-stride loop's bound); with
                `blocks` given, threads per block instead.
            args: device arrays and numbers, in the kernel's parameter order.
            blocks: launch exactly this many blocks (kernels with a block per channel).
        """
        if self.dtypes is not None and np.dtype(dtype) not in self.dtypes:
            raise TypeError(f"{self.name}: expected one of "
                            f"{[d.name for d in self.dtypes]}, received {np.dtype(dtype).name}")
        if xp is np:
            return functools.partial(self.reference, *args)
        if (blocks is None and threads == 0) or blocks == 0:
            return _nothing
        fn = function(self.file, self.name, None if self.dtypes is None else dtype)
        grid = (int(blocks),) if blocks is not None else (blocks_for(threads),)
        block = (int(threads),) if blocks is not None else (THREADS,)
        return functools.partial(fn, grid, block, tuple(_device_arg(a) for a in args))


def _nothing():
    pass


def check_compiler(probe, device):
    """Run `probe()` (a small CuPy kernel): CuPy compiles its own kernels (elementwise,
    reductions) at run time and needs the CUDA runtime's headers for it. RuntimeError naming
    the device and what to install when it cannot, before any op fails with a compiler log."""
    try:
        probe()
    except Exception as e:  # noqa: BLE001 - CuPy's compiler errors have no common base
        text = f"{type(e).__name__}: {e}"
        headers = re.search(r"header|\.h\b|include|CUDA_PATH|CUDA root", text, re.I)
        need = ("the CUDA runtime headers (cuda_runtime.h, cuda_fp16.h): install the CUDA "
                "toolkit and set CUDA_PATH to it, or pip install nvidia-cuda-runtime (CUDA 13) "
                "or nvidia-cuda-runtime-cu12 (CUDA 12); see docs/gpu.md") if headers else \
            "a working CuPy for this driver (see docs/gpu.md)"
        raise RuntimeError(f"device {device!r}: CuPy cannot compile its GPU kernels ({text}); "
                           f"it needs {need}") from None


# ---- NVRTC alone: compile a source to PTX without a GPU ---------------------------------

def nvrtc_paths():
    """{CUDA major: path} of the libnvrtc libraries found: NVIDIA's wheels (CUDA 12's
    nvidia/cuda_nvrtc/lib, CUDA 13's nvidia/cu13/lib), then the system's."""
    found = []
    try:
        import nvidia  # optional: NVIDIA's wheels (nvidia-*-cu12/13), where installed
        for base in nvidia.__path__:
            found += sorted(glob.glob(os.path.join(base, "*", "lib", "libnvrtc.so.*")))
    except ImportError:
        pass
    system = ctypes.util.find_library("nvrtc")
    if system:
        found.append(system)
    paths = {}
    for path in found:
        match = re.search(r"libnvrtc\.so\.(\d+)", os.path.basename(path))
        if ".alt." in path or "builtins" in path or not match:
            continue
        paths.setdefault(int(match.group(1)), path)
    return paths


@functools.lru_cache(maxsize=None)
def _load(path):
    try:
        return ctypes.CDLL(path)
    except OSError:
        return None


def _nvrtc(major=None):
    """libnvrtc of CUDA `major` (None: the newest found), or None if absent."""
    paths = nvrtc_paths()
    for found in sorted(paths, reverse=True):
        if major is None or found == major:
            lib = _load(paths[found])
            if lib is not None:
                return lib
    return None


def nvrtc_available():
    return _nvrtc() is not None


def nvrtc_version(major=None):
    """(major, minor) of the NVRTC `compile_ptx` uses (or of CUDA `major`'s)."""
    lib = _nvrtc(major)
    if lib is None:
        return None
    got = (ctypes.c_int(), ctypes.c_int())
    lib.nvrtcVersion(ctypes.byref(got[0]), ctypes.byref(got[1]))
    return got[0].value, got[1].value


def compile_ptx(file, arch="sm_90", major=None):
    """PTX text of csrc/cuda/`file` compiled by NVRTC for `arch`, with every instantiation
    the Python side declares; RuntimeError with the compiler's log if it does not compile.
    Needs libnvrtc (of CUDA `major`; None: the newest installed), not a GPU."""
    source, name = read_source(file), file
    lib = _nvrtc(major)
    if lib is None:
        raise RuntimeError(f"compile_ptx: NVRTC{'' if major is None else f' {major}'} was not "
                           f"found (pip install nvidia-cuda-nvrtc for CUDA 13, "
                           f"nvidia-cuda-nvrtc-cu12 for CUDA 12)")
    prog = ctypes.c_void_p()
    status = lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0,
                                    None, None)
    if status:
        raise RuntimeError(f"compile_ptx: nvrtcCreateProgram failed ({status}) for {name}")
    try:
        for expr in sorted(DECLARED.get(file, ())):
            if lib.nvrtcAddNameExpression(prog, expr.encode()):
                raise RuntimeError(f"compile_ptx: {file}: cannot declare {expr}")
        options = [f"--gpu-architecture={arch}".encode(), *(o.encode() for o in _options())]
        argv = (ctypes.c_char_p * len(options))(*options)
        status = lib.nvrtcCompileProgram(prog, len(options), argv)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        if status:
            raise RuntimeError(f"{name} does not compile for {arch}:\n"
                               f"{log.value.decode(errors='replace')}")
        lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
        ptx = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetPTX(prog, ptx)
        return ptx.value.decode()
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


# ---- what prepare functions share ---------------------------------------------------------

def sequence(steps):
    """One callable running `steps` (callables, fixed when prepared) in order."""
    steps = tuple(s for s in steps if s is not _nothing)

    def run():
        for step in steps:
            step()
    return run

