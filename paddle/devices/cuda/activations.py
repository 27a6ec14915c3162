"""CUDA kernels of the softmax family (paddle/lowlevel/ops/activations.py), written as the
CPU loops compute it (max, shifted exp, sum, one reciprocal), on scratch buffers made once
per program."""
from paddle.devices.cuda import elementwise, reduce
from paddle.devices.cuda.table import kernel


def rows(x):
    """x as a matrix of rows over its last axis (a view)."""
    cols = x.shape[-1]
    return x.reshape(-1, cols)


@kernel("softmax", "log_softmax")
def _softmax(node, ins, outs, ctx):
    x, y, xp = rows(ins[0]), rows(outs[0]), ctx.xp
    mx = ctx.empty((x.shape[0], 1), x.dtype)
    s = ctx.empty((x.shape[0], 1), x.dtype)
    one = x.dtype.type(1)
    if node.op.name == "log_softmax":
        def run():  # x - (max + log(sum(exp(x - max))))
            xp.max(x, axis=1, keepdims=True, out=mx)
            xp.subtract(x, mx, out=y)
            xp.exp(y, out=y)
            xp.sum(y, axis=1, keepdims=True, out=s)
            xp.log(s, out=s)
            xp.add(mx, s, out=s)
            xp.subtract(x, s, out=y)
        return run

    def run():  # exp(x - max) times one reciprocal of the row's sum
        xp.max(x, axis=1, keepdims=True, out=mx)
        xp.subtract(x, mx, out=y)
        xp.exp(y, out=y)
        xp.sum(y, axis=1, keepdims=True, out=s)
        xp.divide(one, s, out=s)
        xp.multiply(y, s, out=y)
    return run


@kernel("logsumexp")
def _logsumexp(node, ins, outs, ctx):
    x, xp = rows(ins[0]), ctx.xp
    out = outs[0].reshape(-1, 1)
    mx = ctx.empty((x.shape[0], 1), x.dtype)
    inf = ctx.empty((x.shape[0], 1), bool)
    e = ctx.empty(x.shape, x.dtype)
    zero = x.dtype.type(0)

    def run():  # max + log(sum(exp(x - max))), as the CPU loop; an infinite max shifts by 0
        xp.max(x, axis=1, keepdims=True, out=mx)
        xp.isinf(mx, out=inf)
        xp.copyto(mx, zero, where=inf)
        xp.subtract(x, mx, out=e)
        xp.exp(e, out=e)
        xp.sum(e, axis=1, keepdims=True, out=out)
        xp.log(out, out=out)
        xp.add(out, mx, out=out)
    return run


# Softmax's gradient, y * (g - sum(g * y)), as the fusion pass groups it
# (paddle/lowlevel/fusion/softmax.py). On CUDA the same launches as the single ops, on one
# scratch column instead of three full-size intermediates (a one-launch kernel would save
# the passes as on the CPU).
@kernel("fused_softmax_grad")
def _fused_softmax_grad(node, ins, outs, ctx):
    y, g, dx, xp = rows(ins[0]), rows(ins[1]), rows(outs[0]), ctx.xp
    s = ctx.empty((y.shape[0], 1), y.dtype)

    def run():
        xp.multiply(g, y, out=dx)
        xp.sum(dx, axis=1, keepdims=True, out=s)
        xp.subtract(g, s, out=dx)
        xp.multiply(dx, y, out=dx)
    return run


_fused_softmax_grad.fusable = lambda prepares: prepares == [
    elementwise.ELEMENTWISE, reduce._reduce, elementwise.ELEMENTWISE, elementwise.ELEMENTWISE]
