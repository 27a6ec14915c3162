"""CUDA kernels of the elementwise ops (paddle/lowlevel/ops/math.py): CuPy ufuncs with
`out=` (broadcasting as the CPU layouts do), fused ElementwiseKernels where the CPU loop
computes one expression (sigmoid, relu_grad, erf), each with its NumPy reference."""
import math

import numpy as np

from paddle.devices.cuda.table import kernel


def _sigmoid_reference(x, out):
    # csrc/elementwise.cpp: 1 / (1 + exp(-x)), the same operations in the same order.
    np.negative(x, out=out)
    np.exp(out, out=out)
    np.add(out, 1, out=out)
    np.divide(1, out, out=out)


def _erf_reference(x, out):
    # NumPy has no erf; math.erf is the C library's, as std::erf in csrc/elementwise.cpp.
    out[...] = np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x


def _relu_grad_reference(y, g, out):
    # g where y > 0, else 0 (a NaN gradient where y <= 0 gives 0, as on the CPU).
    out[...] = 0
    np.copyto(out, g, where=np.greater(y, 0))


_FUSED = {
    "sigmoid": (lambda cp: cp.ElementwiseKernel("T x", "T y", "y = T(1) / (T(1) + exp(-x))",
                                                "paddle_sigmoid"), _sigmoid_reference),
    "erf": (lambda cp: cp.ElementwiseKernel("T x", "T y", "y = erf(x)", "paddle_erf"),
            _erf_reference),
    "relu_grad": (lambda cp: cp.ElementwiseKernel("T y, T g", "T out",
                                                  "out = y > T(0) ? g : T(0)",
                                                  "paddle_relu_grad"), _relu_grad_reference),
}

_UFUNCS = {"neg": "negative", "abs": "abs", "exp": "exp", "log": "log", "log1p": "log1p",
           "sqrt": "sqrt", "square": "square", "sign": "sign", "tanh": "tanh",
           "add": "add", "sub": "subtract", "mul": "multiply", "div": "divide", "pow": "power",
           "maximum": "maximum", "minimum": "minimum",
           "greater": "greater", "greater_equal": "greater_equal", "less": "less",
           "less_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}


def _fused(ctx, name):
    build, reference = _FUSED[name]
    return ctx.device.device_kernel(name, build, reference)


def _relu(node, ins, outs, ctx):
    # max(x, 0) lets NaN through, as the CPU's relu does.
    x, out, xp = ins[0], outs[0], ctx.xp
    zero = out.dtype.type(0)
    return lambda: xp.maximum(x, zero, out=out)


@kernel(family="unary")
@kernel(family="binary")
@kernel(family="compare")
def _elementwise(node, ins, outs, ctx):
    name, out = node.op.name, outs[0]
    if name == "relu":
        return _relu(node, ins, outs, ctx)
    if name in _FUSED:
        fn = _fused(ctx, name)
        return lambda: fn(*ins, out)
    ufunc = getattr(ctx.xp, _UFUNCS[name])
    return lambda: ufunc(*ins, out=out)


@kernel("where")
def _where(node, ins, outs, ctx):
    cond, a, b = ins
    out, xp = outs[0], ctx.xp

    def run():
        xp.copyto(out, b)
        xp.copyto(out, a, where=cond)
    return run


@kernel("cast")
def _cast(node, ins, outs, ctx):
    # To bool: x != 0 (NumPy's and CuPy's cast, as csrc's); otherwise C's conversion.
    x, out, xp = ins[0], outs[0], ctx.xp
    return lambda: xp.copyto(out, x, casting="unsafe")


@kernel("full_like")
def _full_like(node, ins, outs, ctx):
    out, value = outs[0], node.attrs["value"]
    return lambda: out.fill(value)


@kernel("broadcast_to")
def _broadcast_to(node, ins, outs, ctx):
    x, out, xp = ins[0], outs[0], ctx.xp
    return lambda: xp.copyto(out, x)
