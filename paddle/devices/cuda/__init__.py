"""The CUDA backend: the CPU backend's ops on CuPy arrays, written against an array module.

Every prepare function here has the CPU backend's signature, `prepare(node, ins, outs, ctx)
-> run`, and reaches arrays only through `ctx.xp`: `cupy` on an NVIDIA GPU, `numpy` when
the backend is simulated on the CPU (tests and CI, which have no GPU). Library calls that
both modules share (reductions, elementwise ufuncs with `out=`) run unchanged
under either; a custom CUDA kernel (csrc/cuda/*.cu, through `cupy.RawKernel`) has a NumPy
reference beside it that the simulated run uses and that the GPU tests compare it against.

The contract of a kernel module (the CPU backend's, plus what a GPU needs):

- `prepare(node, ins, outs, ctx)` runs once per program (per feed shapes): ins and outs
  are arrays of `ctx.xp`; it checks, precomputes, allocates what it needs and returns
  `run`, a no-argument callable.
- `ctx` (paddle.devices.context.KernelContext) gives `xp`, `training`, `device`
  (`device.name`: 'gpu:N'), `node`, and: `ctx.empty(shape, dtype)` for scratch buffers;
  `ctx.state(host_array)` for the device copy of host state the kernel updates in place
  (optimizer slots; parameters and batch-norm statistics are inputs and already device
  arrays); `ctx.before_run(fn)` / `ctx.after_run(fn)` for host work around each run (a
  learning rate from a schedule written into a device scalar, an iteration counter);
  `ctx.check(flag, error)` for an input check without a host sync (the kernel writes a
  non-zero into the device buffer `flag`; after the run the executor raises `error()`
  naming the op), with `ctx.check_indices(idx, limit, error)` beside it for indices
  (where `idx` holds a feed's values, through reshapes and casts, the fed host array is
  checked before the run, so a bad label or token id stops the step before its updates);
  `ctx.proceed()` for a stateful kernel (an optimizer update, assign): a device bool it
  writes under, False in a run where such a check failed, so that run changes no
  parameter or slot; `ctx.not_capturable(reason)` for a kernel that can never be captured.
- `run` must be capturable in a CUDA graph (paddle/devices/cuda/graph.py): the calls of
  one run are recorded once and replayed, so inside `run`:
    * no host synchronization: no `.get()`, `float(x)`, `bool(x)`, `.item()`, `int(x)`,
      no `xp.nonzero`, boolean-mask indexing or anything whose result size depends on
      values;
    * no allocation: every output goes to a buffer made in prepare (`out=` arguments,
      `xp.copyto`); a call that returns a new array (`a + b`, `xp.take(...)` without
      `out`) allocates from CuPy's pool during the capture, and the replayed graph then
      writes memory the pool may have handed to someone else;
    * no CuPy cuBLAS call (`xp.matmul`, `xp.dot`, `tensordot`, `einsum`...): CuPy
      refuses cuBLAS while a stream is capturing. Every product goes through
      `gemm.product(ctx, a, b, out)`, which calls cuBLAS directly (cublas.py);
    * no per-step host values: a Python number read in `run` is frozen into the graph at
      its captured value. Values that change per step (a step count, a learning rate, a
      random seed) live in device buffers, written by `before_run` hooks or by kernels.
- Custom kernels (`cupy.ElementwiseKernel`, `ReductionKernel`, `RawKernel`) are built
  through `device_kernel` (compiled once per device, cached) and always have a NumPy
  reference that the simulated device runs. CUDA C kernels of csrc/cuda/*.cu are declared
  as `raw.Kernel(file, name, reference)` (paddle/devices/cuda/raw.py: compiled once per
  device with NVRTC, each beside a NumPy reference taking the same arguments).

Modules here fill the kernel table (table.py) for one family of ops each, as the CPU
backend's do, and are imported at the end of this file (add a new module there).

Tests run whole plans on the simulated device: `with cuda.simulated(): pd.eval(...,
device="gpu")` (or `pd.set_device("gpu")` inside the block; tests/lowlevel/conftest.py
runs the op test files listed in its DEVICE_FILES on cpu, simulated_gpu and gpu).

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.devices import cuda
    >>> x = pd.data("x", shape=[None, 2])
    >>> with cuda.simulated():
    ...     y = pd.eval(pd.relu(x - 1.0), {x: np.array([[0.0, 3.0]])}, device="gpu")
    >>> y.tolist()
    [[0.0, 2.0]]
"""
import contextlib

import numpy as np

from paddle.devices import default, half
from paddle.devices.cuda import raw
from paddle.devices.cuda.runner import DeviceRunner
from paddle.devices.cuda.table import KERNELS
from paddle.lowlevel.shapes import check_fits, check_fits_device


def _gpu_visible():
    try:  # CuPy is optional: the package imports and runs on the CPU without it.
        import cupy  # optional dependency
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:  # no CuPy, no driver, no device
        return False


available = _gpu_visible()  # a real GPU can be used (the `gpu` tests run only then)


_SIMULATED = []  # the number of simulated devices while `simulated()` is active


@contextlib.contextmanager
def simulated(devices=1):
    """Run the 'gpu' devices on the CPU with NumPy as the array module, for tests and CI.

    Inside the block, 'gpu' and 'gpu:N' (N < devices) resolve to a simulated device: the
    CUDA backend's own code runs (its prepare functions, device buffers, uploads and
    downloads, the device copies of parameters and slots, the runner with its deferred
    checks); only the arrays are NumPy's, and there is no CUDA graph. Plans built inside
    keep running simulated; the default device is restored on exit.

    Example:
        >>> import paddle as pd
        >>> from paddle.devices import cuda
        >>> with cuda.simulated():
        ...     pd.set_device("gpu")
        ...     pd.get_device()
        'gpu:0'
        >>> pd.get_device()
        'cpu'
    """
    if not isinstance(devices, int) or devices < 1:
        raise ValueError(f"simulated: expected a positive number of devices, received "
                         f"{devices!r}")
    before = default.get_device()
    _SIMULATED.append(devices)
    try:
        yield
    finally:
        _SIMULATED.pop()
        default.restore(before)


_BACKENDS = {}


def backend(index, as_given="gpu"):
    """The backend of GPU `index` (simulated inside `simulated()`); RuntimeError naming the
    device (as the user wrote it) when it cannot be used."""
    sim = _SIMULATED[-1] if _SIMULATED else 0
    found = _BACKENDS.get((index, sim > 0))
    if found is not None:
        return found
    if sim:
        if index >= sim:
            raise RuntimeError(f"device {as_given!r}: expected a GPU index below {sim} (the "
                               f"simulated devices), received {index}")
        dev = CudaBackend(index, np, None)
    else:
        dev = _real_backend(index, as_given)
    _BACKENDS[(index, sim > 0)] = dev
    return dev


def _real_backend(index, as_given):
    try:
        import cupy  # optional: only a real GPU gets here
    except Exception as e:
        raise RuntimeError(f"device {as_given!r}: expected CuPy for the GPU backend, but it "
                           f"cannot be imported ({type(e).__name__}: {e}); install "
                           "paddle-graph[gpu] on a machine with an NVIDIA GPU, or use 'cpu'") \
            from None
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # no driver, or a driver too old for this CuPy
        raise RuntimeError(f"device {as_given!r}: expected a working NVIDIA driver, CUDA "
                           f"reports: {e}") from None
    if index >= count:
        raise RuntimeError(f"device {as_given!r}: expected a GPU index below {count} (the "
                           f"GPUs visible here), received {index}")
    with cupy.cuda.Device(index):
        stream = cupy.cuda.Stream(non_blocking=True)
        raw.check_compiler(lambda: (cupy.arange(2, dtype=np.float32) * 2).sum(), as_given)
    return CudaBackend(index, cupy, stream)


def host_copy_for(buffer, host):
    """`host` as a C-contiguous array of `buffer`'s dtype and shape, as CuPy's `set` takes
    it (np.ascontiguousarray would turn a 0-d array into shape (1,), which `set` refuses)."""
    return np.asarray(host, dtype=buffer.dtype, order="C").reshape(buffer.shape)


class CudaBackend:
    """A GPU: CuPy buffers on device `index`, the kernels of this package, a CUDA graph per
    program (simulated: NumPy buffers, the same kernels, op by op)."""

    is_host = False
    kernels = KERNELS

    def __init__(self, index, xp, stream):
        self.index, self.xp, self.stream = index, xp, stream
        self.simulated = xp is np
        self.name = f"gpu:{index}"
        self._kernels = {}
        self._capacity = None  # the device's total memory in bytes, read at first use

    def activated(self):
        """A context in which CuPy works on this device and its stream (simulated: NumPy
        computes silently, as a GPU and the C++ kernels do: inf and NaN, no warnings)."""
        if self.simulated:
            return np.errstate(all="ignore")
        stack = contextlib.ExitStack()
        stack.enter_context(self.xp.cuda.Device(self.index))
        stack.enter_context(self.stream)
        return stack

    def empty(self, shape, dtype, where):
        dtype = np.dtype(dtype)
        if self.simulated:
            check_fits(shape, dtype, where)
            return np.empty(shape, dtype)
        if self._capacity is None:
            self._capacity = int(self.xp.cuda.Device(self.index).mem_info[1])
        check_fits_device(shape, dtype, where, self.name, self._capacity)
        if half.is_half(dtype):
            self.check_half(dtype.name, where)
        try:
            with self.activated():
                return self.xp.empty(shape, dtype)
        except self.xp.cuda.memory.OutOfMemoryError as e:
            raise MemoryError(f"{where}: out of memory on device {self.name} for an array of "
                              f"shape {tuple(shape)} ({dtype.name}) ({e})") from None

    def check_half(self, name, where):
        """TypeError, naming the device, `where` (the op) and what is needed, when this GPU
        or this CuPy cannot compute in the half type `name` (never a silent float32)."""
        major, minor = self.capability()
        need = (8, 0) if name == "bfloat16" else (5, 3)
        if (major, minor) < need:
            raise TypeError(f"{where}: {name} on {self.name} needs a GPU of compute "
                            f"capability {need[0]}.{need[1]} or newer (this one is "
                            f"{major}.{minor}); use the 'float32' policy on it, or run on the "
                            f"CPU, which computes {name} through float32")
        if name == "bfloat16":
            try:
                self.xp.empty(0, np.dtype(name))
            except (TypeError, ValueError) as e:
                raise TypeError(f"{where}: bfloat16 on {self.name} needs CuPy >= 14 with "
                                f"ml_dtypes (pip install 'cupy-cuda13x>=14' ml_dtypes): {e}") \
                    from None

    def capability(self):
        """(major, minor) compute capability of the GPU."""
        found = getattr(self, "_capability", None)
        if found is None:
            cc = str(self.xp.cuda.Device(self.index).compute_capability)  # e.g. "90"
            found = self._capability = (int(cc[:-1]), int(cc[-1]))
        return found

    def upload(self, buffer, host):
        if self.simulated:
            np.copyto(buffer, host)
        else:
            buffer.set(host_copy_for(buffer, host), stream=self.stream)

    def download(self, buffer):
        if self.simulated:
            return buffer.copy()
        host = buffer.get(stream=self.stream)
        self.stream.synchronize()
        return host

    def download_into(self, host, buffer):
        if self.simulated:
            np.copyto(host, buffer)
        else:
            buffer.get(stream=self.stream, out=host)
            self.stream.synchronize()

    def runner(self, compute, updates, results, hooks):
        return DeviceRunner(self, compute, updates, results, hooks)

    def graph_memory(self):
        """A CUDA graph's private memory pool, and the context that allocates from it."""
        pool = self.xp.cuda.MemoryPool()
        return pool, self.xp.cuda.using_allocator(pool.malloc)

    def device_kernel(self, key, build, reference):
        """A custom kernel, built once per device: `build(cupy)` on a GPU (an
        ElementwiseKernel, ReductionKernel, RawKernel...), `reference` when simulated."""
        if self.simulated:
            return reference
        found = self._kernels.get(key)
        if found is None:
            with self.activated():
                found = self._kernels[key] = build(self.xp)
        return found

    def __repr__(self):
        return f"<backend {self.name}{' (simulated)' if self.simulated else ''}>"


from paddle.devices.cuda import (  # noqa: E402,F401
    activations, control_flow, conv, elementwise, fft, layer_norm, linalg, losses, matmul,
    nn, norm, optim, pool, recurrent, reduce, sampling, shape, sort, state)
