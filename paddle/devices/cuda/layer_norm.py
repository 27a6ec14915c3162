"""CUDA kernel of layer normalization's fused forward (paddle/lowlevel/fusion/layer_norm.py):
the single ops' launches in turn on rows of the normalized size, the values the plan does
not need in scratch buffers made once per program (a one-launch kernel, as on the CPU,
would save the passes)."""
from paddle.devices.cuda import elementwise, reduce
from paddle.devices.cuda.table import kernel

STATS = (0, 3, 4, 5)  # the row statistics among the slots (csrc/layer_norm.cpp's Slot)


@kernel("fused_layer_norm")
def _fused_layer_norm(node, ins, outs, ctx):
    a, xp = node.attrs, ctx.xp
    cols = a["cols"]
    x = ins[0].reshape(-1, cols)
    rows = x.shape[0]
    rest = list(ins[1:])
    scale = rest.pop(0).reshape(1, cols) if a["scale"] else None
    offset = rest.pop(0).reshape(1, cols) if a["offset"] else None
    last = 6 + (scale is not None) + (offset is not None)  # the root's slot
    given = {slot: out for (slot, write), out in zip(a["slots"], outs) if write}
    v = []
    for slot in range(last + 1):
        width = 1 if slot in STATS else cols
        v.append(given[slot].reshape(rows, width) if slot in given else
                 ctx.empty((rows, width), x.dtype))
    inverse = x.dtype.type(1.0 / cols)
    eps = x.dtype.type(a["eps"])

    def run():
        xp.sum(x, axis=1, keepdims=True, out=v[0])
        xp.multiply(v[0], inverse, out=v[0])
        xp.subtract(x, v[0], out=v[1])
        xp.multiply(v[1], v[1], out=v[2])
        xp.sum(v[2], axis=1, keepdims=True, out=v[3])
        xp.multiply(v[3], inverse, out=v[3])
        xp.add(v[3], eps, out=v[4])
        xp.sqrt(v[4], out=v[5])
        xp.divide(v[1], v[5], out=v[6])
        if scale is not None:
            xp.multiply(v[6], scale, out=v[7])
        if offset is not None:
            xp.add(v[7], offset, out=v[8])
    return run


_MEMBERS = {"sum": reduce._reduce, "sub": elementwise.ELEMENTWISE,
            "square": elementwise.ELEMENTWISE, "add": elementwise.ELEMENTWISE,
            "sqrt": elementwise.ELEMENTWISE, "div": elementwise.ELEMENTWISE,
            "mul": elementwise.ELEMENTWISE}
_ORDER = ["sum", "sub", "square", "sum", "add", "sqrt", "div", "mul", "add"]
_fused_layer_norm.fusable = lambda prepares: prepares == [
    _MEMBERS[name] for name in _ORDER[:len(prepares)]]


# x's gradient (fusion/layer_norm.py GRADIENT): dx = (gy - mean(gy) - y0 * mean(gy * y0))
# / d, by whole-array launches on two scratch columns and one full-size scratch buffer.
@kernel("fused_layer_norm_grad")
def _fused_layer_norm_grad(node, ins, outs, ctx):
    xp, cols = ctx.xp, node.attrs["cols"]
    gy, y0, dx = (a.reshape(-1, cols) for a in (ins[0], ins[1], outs[0]))
    d = ins[2].reshape(-1, 1)
    mg, mgy = (ctx.empty((gy.shape[0], 1), gy.dtype) for _ in range(2))
    t = ctx.empty(gy.shape, gy.dtype)
    inverse = gy.dtype.type(1.0 / cols)

    def run():
        xp.sum(gy, axis=1, keepdims=True, out=mg)
        xp.multiply(mg, inverse, out=mg)
        xp.multiply(gy, y0, out=t)
        xp.sum(t, axis=1, keepdims=True, out=mgy)
        xp.multiply(mgy, inverse, out=mgy)
        xp.multiply(y0, mgy, out=t)
        xp.subtract(gy, mg, out=dx)
        xp.subtract(dx, t, out=dx)
        xp.divide(dx, d, out=dx)
    return run


_GRAD_MEMBERS = {"div": elementwise.ELEMENTWISE, "mul": elementwise.ELEMENTWISE,
                 "add": elementwise.ELEMENTWISE, "neg": elementwise.ELEMENTWISE,
                 "sum_to": reduce._sum_to, "broadcast_to": elementwise._broadcast_to,
                 "count": reduce._count}
_fused_layer_norm_grad.fusable = lambda members: all(
    _GRAD_MEMBERS.get(name) is prepare for name, prepare in members)
