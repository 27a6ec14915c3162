"""CUDA kernels of the softmax family (paddle/lowlevel/ops/activations.py), written as the
CPU loops compute it (max, shifted exp, sum, one reciprocal), on scratch buffers made once
per program."""
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
