"""One node's kernel prepared and run directly, on the CPU or on the CUDA backend (simulated
on NumPy, or a real GPU), to compare the two kernels on the same inputs.

`run_node` makes the node's concrete inputs (evaluated on the CPU), prepares its kernel on
the chosen backend through the KernelContext the executor makes, and runs it as the runner
does: the `before_run` hooks, the call, the deferred checks, the `after_run` hooks.
"""
import contextlib

import numpy as np

import paddle as pd
from paddle.devices import CPU, cuda
from paddle.devices.context import KernelContext
from paddle.devices.runner import Hooks


def backend(name):
    """The backend object of 'cpu', 'simulated' (the CUDA backend on NumPy) or 'gpu'."""
    if name == "cpu":
        return CPU
    with cuda.simulated() if name == "simulated" else contextlib.nullcontext():
        return cuda.backend(0)


def concrete(node, feeds=None, training=False):
    """The node's input arrays (evaluated on the CPU) and its outputs' (shape, dtype)."""
    ins = [np.ascontiguousarray(a) for a in
           pd.eval(list(node.inputs), feeds or {}, training=training, device="cpu")] \
        if node.inputs else []
    specs = node.op.infer(*[(a.shape, a.dtype.name) for a in ins], **node.attrs)
    return ins, specs if isinstance(specs, list) else [specs]


class Prepared:
    """A node's kernel prepared on a backend: `run()` is one run with its hooks."""

    def __init__(self, node, ins, outs, dev, training=False):
        self.dev, self.hooks = dev, Hooks()
        self.ctx = KernelContext(dev, bool(training), node, self.hooks, 0)
        with dev.activated():
            self.call = dev.kernels[node.op.name](node, ins, outs, self.ctx)

    def run(self):
        with self.dev.activated():
            for fn in self.hooks.before:
                fn()
            self.call()
            for _, flag, error in self.hooks.checks:
                if self.dev.download(flag).any():
                    raise error()
            for fn in self.hooks.after:
                fn()


def run_node(node, name, feeds=None, training=False, repeat=1, seed=None):
    """Run the node's kernel of backend `name` ('cpu', 'simulated', 'gpu') `repeat` times on
    its concrete inputs; (inputs, outputs) come back as NumPy arrays. With `seed`, pd.seed
    runs first (random keys drawn when the kernel is prepared are then the same)."""
    dev = backend(name)
    ins, specs = concrete(node, feeds, training)
    xp = dev.xp
    with dev.activated():  # on the device's stream, in order with the kernel (a copy on
        # CUDA's default stream could land after a kernel on a non-blocking stream ran)
        ins = [xp.asarray(a.copy()) for a in ins]
        outs = [xp.asarray(np.full(s, np.nan if np.dtype(d).kind == "f" else -7, dtype=d))
                for s, d in specs]
    if seed is not None:
        pd.seed(seed)
    prepared = Prepared(node, ins, outs, dev, training)
    for _ in range(repeat):
        prepared.run()
    host = [dev.download(a) for a in ins], [dev.download(a) for a in outs]
    return host


def context(name="simulated", node=None, training=True):
    """(ctx, hooks): a KernelContext on backend `name` for code that takes one directly (a
    random stream); `node` names it in messages (a random op by default)."""
    node = node or pd.random.uniform((1,), seed=0).node
    hooks = Hooks()
    return KernelContext(backend(name), training, node, hooks, 0), hooks
