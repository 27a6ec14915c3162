"""CUDA kernels of the fused losses and metrics (paddle/lowlevel/ops/losses.py):
softmax_cross_entropy and in_top_k, whose labels are checked on the device."""
import numpy as np

from paddle.devices.cuda.activations import rows
from paddle.devices.cuda.checks import index_check, label_outside, take
from paddle.devices.cuda.table import kernel


def _picked(ctx, x, labels, check_name):
    """A callable writing x[r, labels[r]] into a buffer (returned too), with the check of
    the labels against the class axis."""
    xp = ctx.xp
    rows, cols = x.shape
    flat_labels = labels.reshape(-1)
    base = ctx.empty((rows,), "int64")
    ctx.device.upload(base, np.arange(rows, dtype=np.int64) * cols)
    where = ctx.empty((rows,), "int64")
    picked = ctx.empty((rows,), x.dtype)
    check = index_check(ctx, flat_labels, cols, label_outside(check_name, cols))
    flat_x = x.reshape(-1)

    def run():
        check()
        xp.add(base, flat_labels, out=where)
        take(xp, flat_x, where, 0, picked)
    return run, picked


@kernel("softmax_cross_entropy")
def _softmax_xent(node, ins, outs, ctx):
    # loss[r] = logsumexp(x[r]) - x[r, label[r]]
    x, xp = rows(ins[0]), ctx.xp
    loss = outs[0].reshape(-1)
    pick, picked = _picked(ctx, x, ins[1], "softmax_cross_entropy")
    shifted = ctx.empty(x.shape, x.dtype)
    mx = ctx.empty((x.shape[0],), x.dtype)
    s = ctx.empty((x.shape[0],), x.dtype)

    def run():
        pick()
        xp.max(x, axis=1, out=mx)
        xp.subtract(x, mx[:, None], out=shifted)
        xp.exp(shifted, out=shifted)
        xp.sum(shifted, axis=1, out=s)
        xp.log(s, out=s)
        xp.add(mx, s, out=s)
        xp.subtract(s, picked, out=loss)
    return run


@kernel("in_top_k")
def _in_top_k(node, ins, outs, ctx):
    # 1 where fewer than k scores of the row are above the label's (ties count for it).
    x, xp, k = rows(ins[0]), ctx.xp, node.attrs["k"]
    out = outs[0].reshape(-1)
    pick, picked = _picked(ctx, x, ins[1], "accuracy")
    above = ctx.empty(x.shape, bool)
    count = ctx.empty((x.shape[0],), "int64")
    hit = ctx.empty((x.shape[0],), bool)

    def run():
        pick()
        xp.greater(x, picked[:, None], out=above)
        xp.sum(above, axis=1, out=count)
        xp.less(count, k, out=hit)
        xp.copyto(out, hit, casting="unsafe")
    return run
