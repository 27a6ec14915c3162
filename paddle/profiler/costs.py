"""What one kernel call costs in arithmetic and memory: `flops(op, ins, outs, attrs)` and
`bytes_moved(ins, outs, dtype)`, from the shapes a program was prepared with.

FLOPs count multiply and add as two for the products (matmul, the convolutions and their
adjoints, the recurrent layers) and one per output element for elementwise ops (one per
input element for reductions); ops whose work is not a count of that kind (copies,
reshapes, gathers, random draws) have none (None). Bytes are the inputs read plus the
outputs written once: a lower bound of the memory traffic.

Example:
    >>> from paddle.profiler.costs import bytes_moved, flops
    >>> flops("matmul", [(32, 784), (784, 512)], [(32, 512)], {})
    25690112
    >>> bytes_moved([(32, 784), (784, 512)], [(32, 512)], "float32")
    1771520
"""
import math

import numpy as np

ELEMENTWISE = {
    "neg", "abs", "exp", "log", "log1p", "sqrt", "square", "sign", "relu", "sigmoid", "tanh",
    "erf", "add", "sub", "mul", "div", "pow", "maximum", "minimum", "relu_grad", "where",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_not", "softplus", "elu", "gelu", "selu", "leaky_relu", "silu",
    "clip", "dropout", "floor", "ceil", "round", "rsqrt", "reciprocal", "sin", "cos"}
REDUCTIONS = {"sum", "mean", "max", "min", "sum_to", "count", "argmax", "argmin", "prod"}
PER_ELEMENT = {  # a few passes over each element
    "softmax": 5, "log_softmax": 5, "softmax_cross_entropy": 6, "batch_norm": 6,
    "batch_norm_grad": 10, "layer_norm": 8, "layer_norm_grad": 12, "apply_updates": 10}


# The fused kernels that run a product (paddle/lowlevel/fusion/): the product's op (a pad
# folded into a convolution runs the convolution's own kernel: conv2d[pad+conv2d]).
FUSED_PRODUCTS = {"fused_conv": "conv2d", "fused_matmul": "matmul", "conv2d": "conv2d"}


def _size(shape):
    return math.prod(int(d) for d in shape)


def flops(op, ins, outs, attrs):
    """Floating-point operations of one call of `op` (None where not counted). A fused
    product (fused_conv[conv2d+relu], fused_matmul[matmul+add+relu]) counts its product's."""
    product = FUSED_PRODUCTS.get(op.split("[")[0]) if "[" in op else None
    if product:
        return flops(product, ins[:2], outs[:1], attrs)
    if op == "matmul" and len(ins) == 2 and outs:
        a = ins[0]
        k = a[-2] if attrs.get("transpose_a") and len(a) > 1 else a[-1]
        return 2 * _size(outs[0]) * int(k)
    if op == "conv2d" and len(ins) >= 2 and outs:  # each output: a KH x KW x C/groups window
        return 2 * _size(outs[0]) * _size(ins[1][:3])
    if op in ("conv2d_backprop_input", "conv2d_transpose") and len(ins) >= 2:
        return 2 * _size(ins[0]) * _size(ins[1][:3])  # the same product, read backwards
    if op == "conv2d_backprop_filter" and len(ins) >= 2 and outs:
        return 2 * _size(ins[1]) * _size(outs[0][:3])
    if op in ("lstm", "gru", "lstm_grad", "gru_grad") and len(ins) >= 3:
        x, w = ins[0], ins[1]
        if len(x) == 3 and len(w) == 2:
            n, t, f = (int(d) for d in x)
            gates = int(w[1])
            units = int(ins[2][0])
            forward = 2 * n * t * gates * (f + units)
            return forward * (2 if op.endswith("_grad") else 1)
        return None
    if op in ELEMENTWISE and outs:
        return _size(outs[0])
    if op in REDUCTIONS and ins:
        return _size(ins[0])
    if op in PER_ELEMENT and ins:
        return PER_ELEMENT[op] * _size(ins[0])
    return None


def bytes_moved(ins, outs, dtype):
    """Bytes read (every input) and written (every output), assuming one dtype."""
    try:
        item = np.dtype(dtype).itemsize
    except TypeError:
        item = 4
    return item * (sum(_size(s) for s in ins) + sum(_size(s) for s in outs))
