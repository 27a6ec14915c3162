"""CPU kernel of the update op: one fused C++ call per run for all of an optimizer's
variables (paddle/lowlevel/optimizers.py)."""
from paddle import _C
from paddle.backend.cpu import kernel


@kernel("apply_updates")
def _apply_updates(node, ins, outs, ctx):
    opt, n = node.attrs["optimizer"], node.attrs["n"]
    params, grads = ins[:n], ins[n:]
    slot_lists = opt.kernel_lists(node.inputs[:n])
    update = getattr(_C, opt.kernel)

    def run():
        args = opt.hyper_args(opt.iterations + 1)
        if opt.weight_decay and not opt.fused_weight_decay:  # Keras 3: decay, then update
            _C.decay_weights(params, opt.current_learning_rate() * opt.weight_decay)
        update(params, grads, *slot_lists, *args)
        opt.iterations += 1
    return run
