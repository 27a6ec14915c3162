"""Half precision at the device seam: float16 and bfloat16 buffers, and how a kernel that
computes in float32 runs a node whose inputs or outputs are half.

float16 is NumPy's. bfloat16 is `ml_dtypes`'s (the package JAX, TensorFlow and Keras use;
NumPy has no bfloat16): without it installed a bfloat16 dtype raises, naming the package.

A C++ kernel of paddle computes in float32 or float64. For a node with a half input or
output, the CPU kernel table (and the GPU's for the ops that have no half kernel: all but
the products, through cuBLAS with float32 accumulation, and the elementwise ops) prepares
the float32 kernel on float32 scratch buffers: before each run the half inputs are
converted to float32 (exact: every half value is a float32), the float32 kernel runs, and
its results are rounded to the half type (round to nearest even) into the node's own
buffers. That is what XLA does on a CPU for Keras on JAX under "mixed_float16": it
upcasts each half op to float32 and rounds its result back. So every op output is a
true half value, as on a GPU, and only the arithmetic inside one op is float32.

Example:
    >>> import numpy as np
    >>> from paddle.devices import half
    >>> half.is_half(np.dtype("float16")), half.is_half(np.dtype("float32"))
    (True, False)
"""
import functools

import numpy as np

try:  # optional dependency: bfloat16 arrays (NumPy has none)
    import ml_dtypes
except ImportError:  # pragma: no cover - exercised where ml_dtypes is absent
    ml_dtypes = None

HALF = ("float16", "bfloat16")
INSTALL_BFLOAT16 = "pip install ml_dtypes (paddle's bfloat16 arrays are ml_dtypes.bfloat16)"


def bfloat16_available():
    """Whether bfloat16 arrays can be made here (ml_dtypes is installed)."""
    return ml_dtypes is not None


def check_available(name, where):
    """Raise TypeError, naming `where`, when the half dtype `name` cannot be made here."""
    if name == "bfloat16" and ml_dtypes is None:
        raise TypeError(f"{where}: bfloat16 needs the ml_dtypes package, which is not "
                        f"installed; {INSTALL_BFLOAT16}")


def is_half(dtype):
    """Whether a NumPy dtype (or a dtype name) is float16 or bfloat16."""
    name = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    return name in HALF


def _scratch(buffer, ctx):
    """A float32 buffer of a half buffer's shape, made on the device with the op named if
    it cannot be (the buffer itself when it is not half)."""
    return ctx.empty(buffer.shape, np.float32) if is_half(buffer.dtype) else buffer


def _copy(dst, src, xp):
    # unsafe: float32 -> half is a rounding (what the node's dtype asks for), and
    # bfloat16 is a NumPy "V" kind, which no safe or same_kind rule covers. Beyond the half
    # range the result is inf, as a GPU gives it, silently (NumPy would warn; CuPy never).
    with np.errstate(over="ignore", invalid="ignore"):
        xp.copyto(dst, src, casting="unsafe")


class in_float32:  # noqa: N801 - used as a function: in_float32(prepare)
    """`prepare` (a kernel's prepare function) for nodes whose buffers may be half: a node
    without half buffers is prepared as it is; one with them is prepared on float32
    scratch buffers, with the conversions described in this module's docstring. A
    node that writes its inputs (assign, an optimizer's update, batch normalization's
    moving statistics) writes its half inputs back. Other
    attributes (`input_buffers`) are the wrapped function's, read when asked for."""

    def __init__(self, prepare, native=()):
        self.prepare = prepare
        self.native = tuple(native)  # half dtypes the kernel computes in itself
        functools.update_wrapper(self, prepare, updated=())

    def __getattr__(self, name):  # attributes set on the kernel after it was registered
        return getattr(self.__dict__["prepare"], name)

    def __call__(self, node, ins, outs, ctx):
        halves = {np.dtype(b.dtype).name for b in list(ins) + list(outs) if is_half(b.dtype)}
        if not halves or halves <= set(self.native):
            return self.prepare(node, ins, outs, ctx)
        xp = ctx.xp
        ins32 = [_scratch(b, ctx) for b in ins]
        outs32 = [_scratch(b, ctx) for b in outs]
        run = self.prepare(node, ins32, outs32, ctx)
        up = [(s, b) for s, b in zip(ins32, ins) if s is not b]
        down = [(b, s) for s, b in zip(outs32, outs) if s is not b]
        if getattr(node.op, "stateful", False) or getattr(node.op, "writes_inputs", False):
            down += [(b, s) for s, b in up]

        def run_half():
            for s, b in up:
                _copy(s, b, xp)
            run()
            for b, s in down:
                _copy(b, s, xp)
        return run_half
