"""CPU kernel of the random op (csrc/random.cpp): a fresh seed from the op's seed_fn on every
run, so pd.seed and SeedGenerators make the draws reproducible."""
from functools import partial

from paddle import _C
from paddle.devices.cpu import kernel
from paddle.lowlevel.ops.sampling import KINDS


@kernel("random")
def _random(node, ins, outs, ctx):
    attrs, out = node.attrs, outs[0]
    if attrs["inference_value"] is not None and not ctx.training:
        return partial(_C.fill, out, float(attrs["inference_value"]))
    code, a, b, seed_fn = KINDS.index(attrs["kind"]), attrs["a"], attrs["b"], attrs["seed_fn"]
    return lambda: _C.random_fill(out, code, a, b, seed_fn())
