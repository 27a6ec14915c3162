"""CPU kernel of the random op (csrc/random.cpp): a fresh seed from the op's seed_fn on every
run, so pd.seed and SeedGenerators make the draws reproducible."""
from functools import partial

from paddle import _C
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.op import RANDOM_KINDS


@kernel("random")
def _random(node, ins, outs, ctx):
    attrs, out = node.attrs, outs[0]
    if attrs["inference_value"] is not None and not ctx.training:
        return partial(_C.fill, out, float(attrs["inference_value"]))
    code, seed_fn = RANDOM_KINDS.index(attrs["kind"]), attrs["seed_fn"]
    a, b = attrs["a"], attrs["b"]
    return lambda: _C.random_fill(out, code, a, b, seed_fn())


@kernel("random_gamma")
def _random_gamma(node, ins, outs, ctx):
    alpha, out = ins[0], outs[0]
    if node.attrs["inference_value"] is not None and not ctx.training:
        return partial(_C.fill, out, float(node.attrs["inference_value"]))
    seed_fn = node.attrs["seed_fn"]
    return lambda: _C.random_gamma(out, alpha, seed_fn())
