"""CUDA kernel of assign (paddle/lowlevel/ops/state.py): a broadcasting copy into the
parameter's device copy, which the executor then marks as the current one. The copy is
masked by the updates' gate (`ctx.proceed()`): a run whose index checks failed assigns
nothing."""
from paddle.devices.cuda.table import kernel


@kernel("assign")
def _assign(node, ins, outs, ctx):
    target, value = ins
    xp = ctx.xp
    proceed = ctx.proceed()
    return lambda: xp.copyto(target, value, where=proceed)
