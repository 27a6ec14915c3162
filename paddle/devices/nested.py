"""The kernels of the control-flow ops (paddle/lowlevel/ops/control_flow.py), one for
every device: they run the subgraphs the ops carry (a branch, a loop's predicate and
body) through the subgraphs' own plans, on the device of the plan that runs them.

A subgraph is an object of the low level; a kernel only calls its `run(arrays,
training, device)`, which returns host arrays, so nothing here imports the low level.
The shapes need no check per step: the op's shape rule ran again at the concrete shapes
when the plan was specialized, and a body that keeps its carries' shapes there keeps them
at every step (a subgraph's shapes follow from its inputs' alone).
Which branch runs, and how often a body does, is decided on the host from the values
computed so far: on a GPU these kernels read the device (a sync) and so cannot be
captured in a CUDA graph (`ctx.not_capturable`); the plan around them runs op by op.
`paddle/devices/cpu/control_flow.py` and `paddle/devices/cuda/control_flow.py` register
them in their backends' tables.
"""
import numpy as np

from paddle.errors import ShapeError
from paddle.lowlevel.op import fmt_shape

_WHY = "a control-flow op decides on the host which subgraph runs next"


def _host(dev, buffer):
    """The value of a buffer as a host array (the buffer itself when it is one: the
    subgraph's plan copies its feeds into buffers of its own)."""
    return buffer if isinstance(buffer, np.ndarray) else dev.download(buffer)


def _store(dev, outs, values):
    for out, value in zip(outs, values):
        if out.shape != value.shape:
            raise ShapeError(f"a branch gave an output of shape {fmt_shape(value.shape)} "
                             f"where {fmt_shape(out.shape)} was expected")
        dev.upload(out, value)


def prepare_switch(node, ins, outs, ctx):
    """Run the branch the index (input 0, clamped) names on its inputs."""
    dev, training = ctx.device, ctx.training
    branches, selects = node.attrs["branches"], node.attrs["selects"]
    last = len(branches) - 1
    ctx.not_capturable(_WHY)

    def run():
        k = min(max(int(_host(dev, ins[0])), 0), last)
        results = branches[k].run([_host(dev, ins[i]) for i in selects[k]], training, dev)
        _store(dev, outs, results)
    return run


def prepare_while_loop(node, ins, outs, ctx):
    """Run the body while the predicate holds (at most `maximum_iterations` times)."""
    dev, training = ctx.device, ctx.training
    attrs = node.attrs
    cond, body, limit = attrs["cond"], attrs["body"], attrs["maximum_iterations"]
    n = len(attrs["names"])
    ctx.not_capturable(_WHY)

    def run():
        carries = [_host(dev, ins[i]) for i in range(n)]
        cond_rest = [_host(dev, ins[i]) for i in attrs["cond_select"][n:]]
        body_rest = [_host(dev, ins[i]) for i in attrs["body_select"][n:]]
        steps = 0
        while limit is None or steps < limit:
            if not bool(cond.run(carries + cond_rest, training, dev)[0]):
                break
            carries, steps = body.run(carries + body_rest, training, dev), steps + 1
        _store(dev, outs, carries)
    return run


def prepare_scan(node, ins, outs, ctx):
    """Run the body once per step; stack the ys and the carries each step received."""
    dev, training = ctx.device, ctx.training
    attrs = node.attrs
    body, nc, nx = attrs["body"], attrs["n_carries"], attrs["n_xs"]
    ny = len(outs) - 2 * nc
    steps = ins[nc].shape[0] if nx else attrs["length"]
    order = range(steps - 1, -1, -1) if attrs["reverse"] else range(steps)
    # Stacks are written in place on the host (the CPU's own buffers), else uploaded after.
    stacks = [o if isinstance(o, np.ndarray) else np.empty(o.shape, o.dtype)
              for o in outs[nc:]]
    ctx.not_capturable(_WHY)

    def run():
        carries = [_host(dev, ins[i]) for i in range(nc)]
        xs = [_host(dev, ins[i]) for i in range(nc, nc + nx)]
        rest = [_host(dev, b) for b in ins[nc + nx:]]
        history = stacks[ny:]
        for t in order:
            for stack, c in zip(history, carries):
                stack[t] = c
            got = body.run(carries + [x[t] for x in xs] + rest, training, dev)
            carries = got[:nc]
            for stack, y in zip(stacks[:ny], got[nc:]):
                stack[t] = y
        _store(dev, outs[:nc], carries)
        for out, stack in zip(outs[nc:], stacks):
            if stack is not out:
                dev.upload(out, stack)
    return run
