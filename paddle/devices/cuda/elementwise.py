"""CUDA kernels of the elementwise ops (paddle/lowlevel/ops/math.py and special.py): CuPy
ufuncs with `out=` (broadcasting as the CPU layouts do), fused ElementwiseKernels where the
CPU loop computes one expression (sigmoid, relu_grad, erf, erfc, erfinv, i0, i1, gelu_erf,
gelu_tanh), each with its NumPy reference, and the predicates (signbit)."""
import math

import numpy as np

from paddle.devices.cuda.table import HALF_NATIVE, kernel


def _sigmoid_reference(x, out):
    # csrc/elementwise.cpp: 1 / (1 + exp(-x)), the same operations in the same order.
    np.negative(x, out=out)
    np.exp(out, out=out)
    np.add(out, 1, out=out)
    np.divide(1, out, out=out)


def _erf_reference(x, out):
    # NumPy has no erf; math.erf is the C library's, as std::erf in csrc/elementwise.cpp.
    out[...] = np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x


def _erfc_reference(x, out):
    out[...] = np.vectorize(math.erfc, otypes=[x.dtype])(x) if x.size else x


def _erfinv_reference(x, out):
    # csrc/elementwise.cpp's erfinv_value: Giles' approximation, then (float64) two Newton
    # steps.
    y = x.astype(np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
        small, big = w - 2.5, np.sqrt(w) - 3.0
        p1, p2 = np.full_like(y, 2.81022636e-08), np.full_like(y, -0.000200214257)
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                  -0.00125372503, -0.00417768164, 0.246640727, 1.50140941):
            p1 = c + p1 * small
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                  -0.0076224613, 0.00943887047, 1.00167406, 2.83297682):
            p2 = c + p2 * big
        r = np.where(w < 5.0, p1, p2) * y
        erf = np.vectorize(math.erf, otypes=[np.float64])
        for _ in range(2 if x.dtype == np.float64 else 0):
            slope = 2.0 / math.sqrt(math.pi) * np.exp(-r * r)
            r = np.where(slope == 0.0, r, r - (erf(r) - y) / np.where(slope == 0, 1, slope)) \
                if r.size else r
        r = np.where(np.abs(y) < 1.0, r, np.where(y == 1.0, np.inf,
                                                  np.where(y == -1.0, -np.inf, np.nan)))
    out[...] = r


def _i0_reference(x, out):
    out[...] = np.i0(x.astype(np.float64))


def _i1_reference(x, out):
    # The power series sum (x/2)^(2k+1) / (k! (k+1)!), summed until its terms vanish.
    h = x.astype(np.float64) / 2.0
    term, total = h.copy(), h.copy()
    with np.errstate(all="ignore"):
        for k in range(1, 500):
            term = term * h * h / (k * (k + 1))
            total = total + term
            if not np.any(np.abs(term) > 1e-17 * np.abs(total)):
                break
    out[...] = total


def _gelu_erf_reference(x, out):
    # the simulated device's kernel: the CPU's expression, with erf as _erf_reference's
    erf = np.empty_like(x)
    _erf_reference(x * x.dtype.type(0.70710678118654752440), erf)
    out[...] = x.dtype.type(0.5) * x * (1 + erf)


def _gelu_tanh_reference(x, out):
    c = x.dtype.type(0.79788456080286535588)
    out[...] = x.dtype.type(0.5) * x * (1 + np.tanh(c * (x + x.dtype.type(0.044715) * x * x * x)))


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
    "erfc": (lambda cp: cp.ElementwiseKernel("T x", "T y", "y = erfc(x)", "paddle_erfc"),
             _erfc_reference),
    "erfinv": (lambda cp: cp.ElementwiseKernel("T x", "T y", "y = T(erfinv((double)x))",
                                               "paddle_erfinv"), _erfinv_reference),
    "i0": (lambda cp: cp.ElementwiseKernel("T x", "T y", "y = T(cyl_bessel_i0((double)x))",
                                           "paddle_i0"), _i0_reference),
    "i1": (lambda cp: cp.ElementwiseKernel("T x", "T y", "y = T(cyl_bessel_i1((double)x))",
                                           "paddle_i1"), _i1_reference),
    "gelu_erf": (lambda cp: cp.ElementwiseKernel(
        "T x", "T y", "y = T(0.5) * x * (T(1) + erf(x * T(0.70710678118654752440)))",
        "paddle_gelu_erf"), _gelu_erf_reference),
    "gelu_tanh": (lambda cp: cp.ElementwiseKernel(
        "T x", "T y", "y = T(0.5) * x * (T(1) + tanh(T(0.79788456080286535588) * "
        "(x + T(0.044715) * x * x * x)))", "paddle_gelu_tanh"), _gelu_tanh_reference),
}

_UFUNCS = {"neg": "negative", "abs": "abs", "exp": "exp", "log": "log", "log1p": "log1p",
           "sqrt": "sqrt", "square": "square", "sign": "sign", "tanh": "tanh",
           "add": "add", "sub": "subtract", "mul": "multiply", "div": "divide", "pow": "power",
           "maximum": "maximum", "minimum": "minimum",
           "greater": "greater", "greater_equal": "greater_equal", "less": "less",
           "less_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}

# paddle/lowlevel/ops/special.py: the ufuncs of the same names (rint: NumPy's round half to
# even, as the CPU's nearbyint).
_UFUNCS.update({name: name for name in (
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh",
    "arctanh", "exp2", "expm1", "log2", "log10", "floor", "ceil", "rint", "trunc", "cbrt",
    "arctan2", "hypot", "nextafter", "fmod", "remainder", "floor_divide", "bitwise_and",
    "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "gcd", "lcm", "logaddexp")})

# Ops whose NumPy ufunc warns on domain edges the CPU kernel defines (integer division by
# zero gives 0, log2 of 0 is -inf...): quiet there, where warnings are errors in the tests.
_QUIET = frozenset(("arcsin", "arccos", "arccosh", "arctanh", "log2", "log10", "fmod",
                    "remainder", "floor_divide"))


def _fused(ctx, name):
    build, reference = _FUSED[name]
    return ctx.device.device_kernel(name, build, reference)


def _relu(node, ins, outs, ctx):
    # max(x, 0) lets NaN through, as the CPU's relu does.
    x, out, xp = ins[0], outs[0], ctx.xp
    zero = out.dtype.type(0)
    return lambda: xp.maximum(x, zero, out=out)


@kernel(family="unary", half_native=HALF_NATIVE)
@kernel(family="binary", half_native=HALF_NATIVE)
@kernel(family="compare", half_native=HALF_NATIVE)
def _elementwise(node, ins, outs, ctx):
    name, out = node.op.name, outs[0]
    if name == "relu":
        return _relu(node, ins, outs, ctx)
    if name in _FUSED:
        fn = _fused(ctx, name)
        return lambda: fn(*ins, out)
    return _ufunc_call(ctx.xp, name, ins, out)


# The family kernel and relu_grad's, for the fused batch_norm kernels of norm.py.
ELEMENTWISE = _elementwise


def relu_grad_kernel(ctx):
    """relu_grad's kernel on ctx's device: fn(y, g, out)."""
    return _fused(ctx, "relu_grad")


def _ufunc_call(xp, name, ins, out):
    ufunc = getattr(xp, _UFUNCS[name])
    if name in _QUIET:
        def quiet():
            with np.errstate(all="ignore"):  # NumPy's (the simulated device); CuPy never warns
                ufunc(*ins, out=out)
        return quiet
    return lambda: ufunc(*ins, out=out)


def _signbit(x, out, xp):
    # The sign bit of floats (half included: CuPy's and NumPy's signbit read a NaN's sign
    # too, as the CPU's bit test), x < 0 for integers, never for bools.
    if x.dtype.kind == "b":
        return lambda: out.fill(False)
    if x.dtype.kind in "iu":
        zero = x.dtype.type(0)
        return lambda: xp.less(x, zero, out=out)
    return lambda: xp.signbit(x, out=out)


_PREDICATES = {"signbit": _signbit}


@kernel(family="predicate", half_native=HALF_NATIVE)
def _predicate(node, ins, outs, ctx):
    return _PREDICATES[node.op.name](ins[0], outs[0], ctx.xp)


@kernel("where", half_native=HALF_NATIVE)
def _where(node, ins, outs, ctx):
    cond, a, b = ins
    out, xp = outs[0], ctx.xp

    def run():
        xp.copyto(out, b)
        xp.copyto(out, a, where=cond)
    return run


@kernel("cast", half_native=HALF_NATIVE)
def _cast(node, ins, outs, ctx):
    # To bool: x != 0 (NumPy's and CuPy's cast, as csrc's); otherwise C's conversion.
    x, out, xp = ins[0], outs[0], ctx.xp
    return lambda: xp.copyto(out, x, casting="unsafe")


@kernel("full_like", half_native=HALF_NATIVE)
def _full_like(node, ins, outs, ctx):
    out, value = outs[0], node.attrs["value"]
    return lambda: out.fill(value)


@kernel("broadcast_to", half_native=HALF_NATIVE)
def _broadcast_to(node, ins, outs, ctx):
    x, out, xp = ins[0], outs[0], ctx.xp
    return lambda: xp.copyto(out, x)


# ---- fused elementwise programs (paddle/lowlevel/fusion/elementwise.py) --------------------
# A fused group runs as one ElementwiseKernel generated from its program: one C expression
# per op, each the same computation as the single-op kernel above (NaN through relu,
# maximum and minimum; relu_grad's 0 where y <= 0). Kernels are cached per device by their
# source. Ops without an expression here do not fuse on CUDA (`fusable`).
_EXPRESSIONS = {
    "neg": "(-{0})", "abs": "({0} < (({T})0) ? -{0} : {0})", "exp": "exp({0})",
    "log": "log({0})", "log1p": "log1p({0})", "sqrt": "sqrt({0})", "square": "({0} * {0})",
    "relu": "(({0} > (({T})0) || {0} != {0}) ? {0} : (({T})0))",
    "sigmoid": "((({T})1) / ((({T})1) + exp(-{0})))", "tanh": "tanh({0})", "erf": "erf({0})",
    "add": "({0} + {1})", "sub": "({0} - {1})", "mul": "({0} * {1})", "div": "({0} / {1})",
    "maximum": "(({0} > {1} || {0} != {0}) ? {0} : {1})",
    "minimum": "(({0} < {1} || {0} != {0}) ? {0} : {1})",
    "relu_grad": "({0} > (({T})0) ? {1} : (({T})0))",
    "greater": "({0} > {1})", "greater_equal": "({0} >= {1})", "less": "({0} < {1})",
    "less_equal": "({0} <= {1})", "equal": "({0} == {1})", "not_equal": "({0} != {1})",
    "where": "({0} ? {1} : {2})",
    "signbit": "signbit({0})",  # CUDA's, of float and double: fused in float dtypes only
}
# The operand kind of a slice read in place (paddle/lowlevel/fusion/elementwise.py STRIDED,
# csrc/elementwise.cpp kStrided).
_STRIDED = 3
_CTYPES = {"float32": "float", "float64": "double", "int32": "int", "int64": "long long",
           "bool": "bool"}


def _bool_results(program, in_dtypes):
    """Whether each instruction's result is bool: a comparison's, or a where's between bools
    (the fused program's logical ops)."""
    is_bool = {k: d == "bool" for k, d in enumerate(in_dtypes)}
    results = []
    for inst in program:
        b = inst.name in _COMPARES or inst.name in _PREDICATES or \
            (inst.name == "where" and is_bool[inst.sources[1]])
        is_bool[inst.dst] = b
        results.append(b)
    return results


def _fused_source(program, in_dtypes, out_dtype, compute):
    """(in_params, out_params, body) of the ElementwiseKernel running `program`."""
    t = _CTYPES[compute]
    names = {k: f"x{k}" for k in range(len(in_dtypes))}
    lines = []
    for k, (inst, is_bool) in enumerate(zip(program, _bool_results(program, in_dtypes))):
        expr = _EXPRESSIONS[inst.name].format(*(names[r] for r in inst.sources), T=t)
        if k == len(program) - 1:
            lines.append(f"y = {expr};")
        else:
            lines.append(f"{'bool' if is_bool else t} v{k} = {expr};")
            names[inst.dst] = f"v{k}"
    params = ", ".join(f"{d} x{k}" for k, d in enumerate(in_dtypes))
    return params, f"{out_dtype} y", "\n".join(lines)


_COMPARES = frozenset(("greater", "greater_equal", "less", "less_equal", "equal", "not_equal"))


def _fused_reference(program, in_dtypes, temps_shape, compute):
    """The simulated device's fused kernel: the program run instruction by instruction with
    the single-op kernels' own NumPy calls, on full-size temporaries (allocated here, when
    the kernel is prepared, none while it runs)."""
    temps = [np.empty(temps_shape, "bool" if is_bool else compute)
             for is_bool in _bool_results(program, in_dtypes)[:-1]]

    def run(*arrays):
        *ins, out = arrays
        regs = dict(enumerate(ins))
        for k, inst in enumerate(program):
            srcs = [regs[r] for r in inst.sources]
            dst = out if k == len(program) - 1 else temps[k]
            if inst.name == "where":
                np.copyto(dst, srcs[2])
                np.copyto(dst, srcs[1], where=np.broadcast_to(srcs[0], dst.shape))
            elif inst.name == "relu":
                np.maximum(srcs[0], dst.dtype.type(0), out=dst)
            elif inst.name in _PREDICATES:
                _PREDICATES[inst.name](srcs[0], dst, np)()
            elif inst.name in _FUSED:
                _FUSED[inst.name][1](*(np.broadcast_to(a, dst.shape) for a in srcs), dst)
            else:
                _ufunc_call(np, inst.name, srcs, dst)()
            regs[inst.dst] = dst
    return run


@kernel("fused_elementwise")
def _fused_elementwise(node, ins, outs, ctx):
    a, out = node.attrs, outs[0]
    program = a["program"]
    # A STRIDED input (a slice x[..., c] read in place) is the view of x's elements
    # c, c + step, ...: the kernel reads it with its strides.
    reads = np.asarray(a["reads"]).reshape(-1, 3)
    ins = [x.reshape(tuple(out.shape) + (int(step),))[..., int(offset)] if kind == _STRIDED else x
           for x, (kind, offset, step) in zip(ins, reads)]
    in_dtypes = tuple(x.dtype.name for x in ins)
    params, result, body = _fused_source(program, in_dtypes, out.dtype.name, a["dtype"])
    fn = ctx.device.device_kernel(
        ("fused_elementwise", params, result, body),
        lambda cp: cp.ElementwiseKernel(params, result, body, "paddle_fused_elementwise"),
        _fused_reference(program, in_dtypes, out.shape, a["dtype"]))
    return lambda: fn(*ins, out)


# Fusable on CUDA: the ops with an expression above, where the op's kernel is still one of
# this module's (a predicate in a float compute dtype: CUDA's signbit takes no integers).
_fused_elementwise.fusable = lambda name, dtype, prepare: (
    name in _EXPRESSIONS and (prepare in (_elementwise, _where) or
                              (prepare is _predicate and dtype in ("float32", "float64"))))


# ---- color conversions (paddle/lowlevel/ops/color.py) -----------------------------------
# One thread per pixel, the arithmetic of csrc/color.cpp (NaN through maximum and minimum as
# their kernels; eps: the dtype's).
_COLOR_PRELUDE = """
#define PD_MAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))
#define PD_MIN(a, b) (((a) < (b) || (a) != (a)) ? (a) : (b))
"""
_COLOR_BODIES = {
    "rgb_to_hsv": """
    const T eps = sizeof(T) == 4 ? (T)1.1920928955078125e-07 : (T)2.220446049250313e-16;
    T r = x[3 * i], g = x[3 * i + 1], b = x[3 * i + 2];
    r = fabs(r) < eps ? (T)0 : r; g = fabs(g) < eps ? (T)0 : g; b = fabs(b) < eps ? (T)0 : b;
    const T value = PD_MAX(PD_MAX(r, g), b), low = PD_MIN(PD_MIN(r, g), b);
    const T span = value - low;
    const T safe_value = value > (T)0 ? value : (T)1, safe_span = span > (T)0 ? span : (T)1;
    const T norm = (T)1 / ((T)6 * safe_span);
    T hue = value == g ? norm * (b - r) + (T)(2.0 / 6.0) : norm * (r - g) + (T)(4.0 / 6.0);
    hue = value == r ? norm * (g - b) : hue;
    y[3 * i] = (span > (T)0 ? hue : (T)0) + (hue < (T)0 ? (T)1 : (T)0);
    y[3 * i + 1] = value > (T)0 ? span / safe_value : (T)0;
    y[3 * i + 2] = value;
    """,
    "hsv_to_rgb": """
    const T hue = x[3 * i], saturation = x[3 * i + 1], value = x[3 * i + 2];
    const T dh = (hue - floor(hue)) * (T)6, rest = (T)1 - saturation;
    const T d[3] = {fabs(dh - (T)3) - (T)1, (T)2 - fabs(dh - (T)2), (T)2 - fabs(dh - (T)4)};
    for (int c = 0; c < 3; ++c) {
      const T clipped = PD_MIN(PD_MAX(d[c], (T)0), (T)1);
      y[3 * i + c] = value * (rest + saturation * clipped);
    }
    """,
}


def _np_max(a, b):
    return np.where((a > b) | (a != a), a, b)


def _np_min(a, b):
    return np.where((a < b) | (a != a), a, b)


def _rgb_to_hsv_reference(x, y, size):
    """The simulated device's kernel: the CUDA body's arithmetic in NumPy, in x's dtype."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        p = x.reshape(-1, 3)
        p = np.where(np.abs(p) < np.finfo(x.dtype).eps, t(0), p)
        r, g, b = p[:, 0], p[:, 1], p[:, 2]
        value, low = _np_max(_np_max(r, g), b), _np_min(_np_min(r, g), b)
        span = value - low
        safe_value, safe_span = np.where(value > 0, value, t(1)), np.where(span > 0, span, t(1))
        norm = t(1) / (t(6) * safe_span)
        hue = np.where(value == g, norm * (b - r) + t(2.0 / 6.0), norm * (r - g) + t(4.0 / 6.0))
        hue = np.where(value == r, norm * (g - b), hue)
        out = y.reshape(-1, 3)
        out[:, 0] = np.where(span > 0, hue, t(0)) + (hue < 0).astype(x.dtype)
        out[:, 1] = np.where(value > 0, span / safe_value, t(0))
        out[:, 2] = value


def _hsv_to_rgb_reference(x, y, size):
    """The simulated device's kernel: the CUDA body's arithmetic in NumPy, in x's dtype."""
    t = x.dtype.type
    with np.errstate(all="ignore"):
        p = x.reshape(-1, 3)
        hue, saturation, value = p[:, 0], p[:, 1], p[:, 2]
        dh = (hue - np.floor(hue)) * t(6)
        rest = t(1) - saturation
        out = y.reshape(-1, 3)
        for c, d in enumerate((np.abs(dh - t(3)) - t(1), t(2) - np.abs(dh - t(2)),
                               t(2) - np.abs(dh - t(4)))):
            out[:, c] = value * (rest + saturation * _np_min(_np_max(d, t(0)), t(1)))


_COLOR_REFERENCES = {"rgb_to_hsv": _rgb_to_hsv_reference, "hsv_to_rgb": _hsv_to_rgb_reference}


@kernel("rgb_to_hsv", "hsv_to_rgb")
def _color_convert(node, ins, outs, ctx):
    name, x, out = node.op.name, ins[0], outs[0]
    fn = ctx.device.device_kernel(
        ("color", name),
        lambda cp: cp.ElementwiseKernel("raw T x", "raw T y", _COLOR_BODIES[name],
                                        f"paddle_{name}", preamble=_COLOR_PRELUDE),
        _COLOR_REFERENCES[name])
    pixels = x.size // 3
    return lambda: fn(x, out, size=pixels)
