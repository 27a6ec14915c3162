"""CPU kernel of the update op: one fused C++ call per run for all of an optimizer's
variables (paddle/lowlevel/optimizers.py). In a distributed world the gradients are first
averaged over the ranks, through `ctx.collectives` (paddle/distributed/gradients.py);
alone, nothing is added."""
from paddle import _C
from paddle.devices.context import gradient_buffers
from paddle.devices.cpu.table import kernel


@kernel("apply_updates")
def _apply_updates(node, ins, outs, ctx):
    opt, n = node.attrs["optimizer"], node.attrs["n"]
    params, grads = ins[:n], ins[n:2 * n]
    # LossScaleOptimizer's gate: a run whose gradients were not finite updates nothing
    gate = ins[2 * n] if node.attrs.get("gated") else None
    # Before the slots are read: a distributed update split between the ranks moves them
    # into shared memory the first time.
    shards = ctx.collectives.shards(node, ctx.device)
    # The slots through ctx.state: current on the host before each run (a GPU plan may
    # have updated them last), marked as written by the host after it.
    slot_lists = [[ctx.state(a, "slot") for a in slots]
                  for slots in opt.kernel_lists(node.inputs[:n])]
    # use_ema: the moving averages, updated after the step (Keras: before the constraints)
    averages = [ctx.state(opt.slots(v)["average"], "slot") for v in node.inputs[:n]] \
        if opt.use_ema else []
    update = getattr(_C, opt.kernel)
    decays = [opt.decays(v) for v in node.inputs[:n]]
    # Adam decays inside its own kernel when every variable decays; otherwise one C++ pass
    # over the decayed ones runs first (Keras 3: decay, then update).
    fused = opt.fused_weight_decay and all(decays)
    average = exchange = None
    if shards is not None:  # this rank averages and updates its share, then passes it on
        average, exchange, grads = shards.bind(params, grads)
        slot_lists = [shards.take(slots) for slots in slot_lists]
        averages = shards.take(averages) if averages else averages
        separate = [] if fused else shards.take(params, decays)
        params = shards.take(params)
    else:
        averaged = ctx.collectives.averaging(node, grads, ctx.device)
        if averaged is not None:
            average, grads = averaged  # the update reads the averaged copies
        separate = [] if fused else [p for p, d in zip(params, decays) if d]

    def run():
        if gate is not None and not gate[()]:
            return
        args = opt.hyper_args(opt.iterations + 1, fused) if opt.fused_weight_decay else \
            opt.hyper_args(opt.iterations + 1)
        if separate:
            _C.decay_weights(separate, opt.current_learning_rate() * opt.weight_decay)
        update(params, grads, *slot_lists, *args)
        if averages:
            _C.ema(params, averages, *opt.ema_scalars(opt.iterations + 1))
        opt.iterations += 1

    if average is None:
        return run

    def run_distributed():
        average()
        run()
        if exchange is not None:
            exchange()
    return run_distributed


# In a distributed run the gradients are computed straight into the buffer that averages
# them (the executor asks this before it allocates the plan's buffers).
_apply_updates.input_buffers = gradient_buffers


@kernel("average_over_ranks")
def _average_over_ranks(node, ins, outs, ctx):
    return ctx.collectives.average_kernel(node, ins, outs, ctx.device)


# The two host ops of the optimizers built from ops (paddle/lowlevel/composed_optimizers.py):
# no arithmetic, only the step's scalars from the optimizer and its step count.

@kernel("optimizer_scalar")
def _optimizer_scalar(node, ins, outs, ctx):
    opt, what, out = node.attrs["optimizer"], node.attrs["what"], outs[0]

    def run():  # per run: a schedule reads the step count as it is now
        out[()] = opt.step_scalar(what)
    return run


@kernel("count_step")
def _count_step(node, ins, outs, ctx):
    opt = node.attrs["optimizer"]
    gate = ins[0] if node.attrs.get("gated") else None

    def run():
        if gate is None or gate[()]:
            opt.iterations += 1
    return run
