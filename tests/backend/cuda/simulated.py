"""The CUDA backend's kernels run on the CPU with `xp = numpy` (no GPU needed).

`simulated_table()` is the CPU kernel table with every op the CUDA backend has replaced by
its CUDA prepare function, called with a context whose `xp` is NumPy: a plan built on it
runs the CUDA backend's host logic and its kernels' NumPy references. `run_node` prepares
one node's kernel directly on given inputs, on either backend, to compare the two.
"""
import numpy as np

import paddle as pd
from paddle.backend import cpu, cuda
from paddle.backend.cuda import (  # noqa: F401 (they register their kernels)
    nn_conv, nn_norm, nn_pool, nn_recurrent, optim, sampling)


class SimulatedContext:
    """The prepare functions' view of a run: NumPy as the array module."""

    xp = np

    def __init__(self, training):
        self.training = bool(training)


def simulated_table():
    table = dict(cpu.KERNELS)
    for name, prepare in cuda.KERNELS.items():
        table[name] = _simulated(prepare)
    return table


def _simulated(prepare):
    def run_prepared(node, ins, outs, ctx):
        return prepare(node, ins, outs, SimulatedContext(ctx.training))
    return run_prepared


def use_simulated_gpu(monkeypatch):
    """Make every plan built from now on (in this test) use the simulated CUDA kernels."""
    table = simulated_table()
    monkeypatch.setattr(pd.backend, "kernels_for", lambda device: table)


def concrete(node, feeds=None, training=False):
    """The node's input arrays (evaluated on the CPU) and fresh output arrays."""
    ins = [np.ascontiguousarray(a) for a in
           pd.eval(list(node.inputs), feeds or {}, training=training)] if node.inputs else []
    specs = node.op.infer(*[(a.shape, a.dtype.name) for a in ins], **node.attrs)
    specs = specs if isinstance(specs, list) else [specs]
    return ins, specs


def run_node(node, backend, feeds=None, training=False, ins=None, repeat=1):
    """Prepare the node's kernel of `backend` ('cpu' or 'cuda', simulated) on its concrete
    inputs, run it `repeat` times, and return (inputs, outputs)."""
    computed, specs = concrete(node, feeds, training)
    ins = [a.copy() for a in (computed if ins is None else ins)]
    outs = [np.full(s, np.nan if np.dtype(d).kind == "f" else -7, dtype=d) for s, d in specs]
    if backend == "cpu":
        run = cpu.KERNELS[node.op.name](node, ins, outs, type("Ctx", (), {
            "training": bool(training)})())
    else:
        run = cuda.KERNELS[node.op.name](node, ins, outs, SimulatedContext(training))
    for _ in range(repeat):
        run()
    return ins, outs
