"""CUDA kernel of the update op: one fused launch per dtype updates every variable of an
optimizer in place (csrc/cuda/optim.cu), with csrc/optim.cpp's formulas.

The step's scalars (the learning rate from its schedule, bias corrections from the step
count) are computed on the host by the optimizer, as on the CPU, before each run
(`ctx.before_run`), and uploaded into a small device buffer the kernel reads; so the
launches themselves have nothing that changes per step and a CUDA graph can capture them.
The step count moves after the run (`ctx.after_run`). The slots are the device copies of
the optimizer's arrays (`ctx.state`). The kernel reads the updates' gate (`ctx.proceed()`)
and writes nothing in a run whose index checks failed.

In a world of several processes the gradients are first averaged over the ranks, as on the
CPU, through `ctx.collectives.averaging(node, grads, ctx.device)` (NCCL:
paddle/distributed/nccl.py; MPI on the device simulated on NumPy); the update then reads
the averaged copies. As on the CPU, the executor computes the gradients straight into the
buffer that averages them (`input_buffers`), so a step packs nothing.
"""
import numpy as np

from paddle.devices.context import gradient_buffers
from paddle.devices.cuda.raw import Kernel, sequence
from paddle.devices.cuda.table import kernel

ALGORITHMS = {"sgd": 0, "adam": 1, "rmsprop": 2, "adagrad": 3, "adamax": 4, "nadam": 5,
              "lion": 6, "ftrl": 7, "decay": 8, "adadelta": 9, "ema": 10,
              "lamb": None}  # (Lamb: kernels of its own, lamb_norms and lamb_apply)
COLUMNS = 5  # parameter, gradient, three slots
HYPER = 8  # scalars of an update; the decay factor, then EMA's two (momentum, overwrite) follow
EMA = HYPER + 1


def _typed(dtype, h):
    return [dtype.type(v) for v in h]


def _update_ref(table, offsets, tensors, total, hyper, algo, proceed):
    """NumPy version of apply_updates: `table` is, per tensor, [param, grad, slots...] as
    arrays (None where absent) instead of device pointers."""
    assert int(offsets[tensors]) == total
    if not proceed:
        return
    for t in range(tensors):
        arrays = [None if a is None else a.reshape(-1) for a in table[t]]
        assert arrays[0].size == int(offsets[t + 1] - offsets[t])
        _update_one(algo, hyper, *arrays)


def _update_one(algo, h, p, g, s0, s1, s2):
    T = p.dtype.type
    one, two = T(1), T(2)
    if algo == 0:
        lr, mu = T(h[0]), T(h[1])
        if h[3] == 0.0:
            p -= lr * g
        else:
            s0[...] = mu * s0 - lr * g
            p += (mu * s0 - lr * g) if h[2] != 0.0 else s0
    elif algo == 1:
        a, b1, b2, ep, wd = _typed(p.dtype, h[:5])
        if h[5] != 0.0:
            p -= wd * p
        s0 += (g - s0) * (one - b1)
        s1 += (g * g - s1) * (one - b2)
        v = s1
        if h[6] != 0.0:
            np.maximum(s2, s1, out=s2)
            v = s2
        p -= a * s0 / (np.sqrt(v) + ep)
    elif algo == 2:
        lr, r, mu, ep = _typed(p.dtype, h[:4])
        s0[...] = r * s0 + (one - r) * g * g
        denominator = s0 + ep
        if h[4] != 0.0:
            s2[...] = r * s2 + (one - r) * g
            denominator -= s2 * s2
        inc = lr * g / np.sqrt(denominator)
        if h[2] > 0.0:
            s1[...] = mu * s1 + inc
            p -= s1
        else:
            p -= inc
    elif algo == 3:
        s0 += g * g
        p -= T(h[0]) * g / np.sqrt(s0 + T(h[1]))
    elif algo == 4:
        scale, b1, b2, ep = _typed(p.dtype, h[:4])
        s0 += (g - s0) * (one - b1)
        s1[...] = np.maximum(b2 * s1, np.abs(g))
        p -= scale * s0 / (s1 + ep)
    elif algo == 5:
        lr, b1, b2, ep, cm, cg, vs = _typed(p.dtype, h[:7])
        s0 += (g - s0) * (one - b1)
        s1 += (g * g - s1) * (one - b2)
        p -= lr * (cm * s0 + cg * g) / (np.sqrt(s1 * vs) + ep)
    elif algo == 6:
        lr, b1, b2 = _typed(p.dtype, h[:3])
        p -= lr * np.sign(s0 * b1 + g * (one - b1))
        s0[...] = s0 * b2 + g * (one - b2)
    elif algo == 7:
        lr, pw, l1, l2r, shrink = _typed(p.dtype, h[:5])
        grad = g + two * shrink * p
        new_a = s0 + g * g
        new_pow = np.power(new_a, pw)
        s1 += grad - (new_pow - np.power(s0, pw)) / lr * p
        quadratic = new_pow / lr + two * l2r
        p[...] = (np.clip(s1, -l1, l1) - s1) / quadratic
        s0[...] = new_a
    elif algo == 9:
        lr, r, ep = _typed(p.dtype, h[:3])
        s0[...] = r * s0 + (one - r) * g * g
        delta = -(np.sqrt(s1 + ep) * g) / np.sqrt(s0 + ep)
        s1[...] = r * s1 + (one - r) * delta * delta
        p += lr * delta
    elif algo == 10:
        mu = T(h[0])
        s0[...] = mu * s0 + (one - mu) * p
        if h[1] != 0.0:
            p[...] = s0
    else:
        p -= p * T(h[0])


APPLY_UPDATES = Kernel("optim.cu", "apply_updates", _update_ref)
LAMB_BLOCK = 256  # threads of a lamb_norms block (PD_LAMB_BLOCK)
LAMB_BLOCKS = 4096  # at most this many blocks: a grid stride over the tensors beyond


def _lamb_r(h, m, v):
    T = m.dtype.type
    return m * T(h[4]) / (np.sqrt(v * T(h[5])) + T(h[3]))


def _lamb_norms_ref(table, offsets, tensors, hyper, norms, proceed):
    if not proceed:
        return
    for t in range(tensors):
        p, g, m, v = (a.reshape(-1) for a in table[t][:4])
        T = p.dtype.type
        m += (g - m) * (T(1) - T(hyper[1]))
        v += (g * g - v) * (T(1) - T(hyper[2]))
        r = _lamb_r(hyper, m, v).astype(np.float64)
        norms[2 * t] = np.sqrt(np.sum(p.astype(np.float64) ** 2))
        norms[2 * t + 1] = np.sqrt(np.sum(r * r))


def _lamb_apply_ref(table, offsets, tensors, total, hyper, norms, proceed):
    if not proceed:
        return
    for t in range(tensors):
        p, _, m, v = (a.reshape(-1) for a in table[t][:4])
        w_norm, r_norm = norms[2 * t], norms[2 * t + 1]
        ratio = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
        p -= p.dtype.type(hyper[0] * ratio) * _lamb_r(hyper, m, v)


LAMB_NORMS = Kernel("optim.cu", "lamb_norms", _lamb_norms_ref)
LAMB_APPLY = Kernel("optim.cu", "lamb_apply", _lamb_apply_ref)


def kernel_scalars(kind, args, has_velocity):
    """The kernel's `hyper` values from the optimizer's `hyper_args` for one step (the
    arguments of its csrc/optim.cpp function)."""
    if kind == "sgd":
        lr, momentum, nesterov = args
        return [lr, momentum, float(nesterov), float(has_velocity)]
    if kind == "adam":
        lr, b1, b2, eps, step, wd, amsgrad = args
        alpha = lr * np.sqrt(1 - b2 ** step) / (1 - b1 ** step)
        return [alpha, b1, b2, eps, lr * wd, float(wd > 0), float(amsgrad)]
    if kind == "rmsprop":
        lr, rho, momentum, eps, centered = args
        return [lr, rho, momentum, eps, float(centered)]
    if kind == "adagrad":
        return list(args)
    if kind == "adamax":
        lr, b1, b2, eps, step = args
        return [lr / (1 - b1 ** step), b1, b2, eps]
    if kind == "lamb":
        lr, b1, b2, eps, step = args
        return [lr, b1, b2, eps, 1 / (1 - b1 ** step), 1 / (1 - b2 ** step)]
    if kind in ("nadam", "lion", "adadelta"):
        return list(args)
    if kind == "ftrl":
        lr, lr_power, l1, l2, shrinkage, beta = args
        if not lr > 0:
            raise ValueError("Ftrl: the learning rate must be > 0")
        return [lr, -lr_power, l1, l2 + beta / (2.0 * lr), shrinkage]
    raise NotImplementedError(f"apply_updates: no CUDA update for the optimizer kernel {kind!r}")


class _Group:
    """The tensors of one dtype, as the kernel's table and offsets (on the device)."""

    def __init__(self, ctx, columns):
        self.dtype = columns[0][0].dtype
        sizes = [int(row[0].size) for row in columns]
        self.tensors, self.total = len(columns), int(sum(sizes))
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        if ctx.xp is np:  # the reference reads the arrays themselves
            self.table, self.offsets = columns, offsets
        else:
            pointers = np.array([[0 if a is None else a.data.ptr for a in row]
                                 for row in columns], dtype=np.uint64)
            self.table = ctx.empty(pointers.shape, np.uint64)
            self.offsets = ctx.empty(offsets.shape, np.int64)
            ctx.device.upload(self.table, pointers)
            ctx.device.upload(self.offsets, offsets)
            self.columns = columns  # the arrays the pointers point into stay alive

    def launch_lamb(self, ctx, hyper, proceed):
        """Lamb's two launches: moments and per-tensor norms, then the step."""
        xp = ctx.xp
        norms = np.zeros(2 * self.tensors) if xp is np else ctx.empty((2 * self.tensors,),
                                                                      np.float64)
        return sequence([
            LAMB_NORMS.bind(xp, self.dtype, LAMB_BLOCK, self.table, self.offsets, self.tensors,
                            hyper, norms, proceed, blocks=min(self.tensors, LAMB_BLOCKS)),
            LAMB_APPLY.bind(xp, self.dtype, self.total, self.table, self.offsets, self.tensors,
                            self.total, hyper, norms, proceed)])

    def launch(self, xp, hyper, algo, proceed):
        return APPLY_UPDATES.bind(xp, self.dtype, self.total, self.table, self.offsets,
                                  self.tensors, self.total, hyper, algo, proceed)


def _groups(ctx, rows):
    by_dtype = {}
    for row in rows:
        by_dtype.setdefault(np.dtype(row[0].dtype), []).append(row)
    return [_Group(ctx, r) for r in by_dtype.values()]


def _check(rows, opt):
    """csrc/optim.cpp's checks, once: floats, every list's array like its parameter."""
    for i, row in enumerate(rows):
        p = row[0]
        if p.dtype not in (np.float32, np.float64):
            raise TypeError(f"{opt.kernel}: argument 'params' at {i}: expected float32 or "
                            f"float64, received {p.dtype}")
        for a in row[1:]:
            if a is not None and (a.dtype != p.dtype or a.size != p.size or
                                  not a.flags.c_contiguous):
                raise ValueError(f"{opt.kernel}: the arrays of parameter {i} do not match it "
                                 f"(expected {p.dtype} of size {p.size}, C-contiguous)")


@kernel("apply_updates")
def _apply_updates(node, ins, outs, ctx):
    xp, opt, n = ctx.xp, node.attrs["optimizer"], node.attrs["n"]
    params, grads = list(ins[:n]), list(ins[n:2 * n])
    gate = ins[2 * n] if node.attrs.get("gated") else None  # LossScaleOptimizer's
    if opt.kernel not in ALGORITHMS:
        raise NotImplementedError(f"apply_updates: no CUDA update for {type(opt).__name__}")
    slot_lists = [[ctx.state(a, "slot") for a in lst]
                  for lst in opt.kernel_lists(node.inputs[:n])]
    averaged = ctx.collectives.averaging(node, grads, ctx.device)
    if averaged is not None:
        average, grads = averaged  # the update reads the averaged copies
    slots = [[lst[i] if lst else None for lst in slot_lists] for i in range(n)]
    rows = [[p, g] + s + [None] * (COLUMNS - 2 - len(s)) for p, g, s in zip(params, grads, slots)]
    _check(rows, opt)
    decayed = [p for p, v in zip(params, node.inputs[:n]) if opt.decays(v)]
    # Adam decays inside its own kernel when every variable decays; otherwise a pass over the
    # decayed ones runs first (Keras 3: decay, then update).
    fused = opt.fused_weight_decay and len(decayed) == n
    separate = [[p, None, None, None, None] for p in decayed] if decayed and not fused else []
    has_velocity = bool(slot_lists and slot_lists[0])
    # use_ema: the moving averages, updated after the step (Keras: before the constraints)
    averaged_rows = [[p, None, ctx.state(opt.slots(v)["average"], "slot"), None, None]
                     for p, v in zip(params, node.inputs[:n])] if opt.use_ema else []

    # The step's scalars: HYPER values of the update, then the decay factor.
    hyper = ctx.empty((EMA + 2,), np.float64)
    host = np.zeros(EMA + 2)
    dev = ctx.device  # (the hooks hold these closures, and ctx holds the hooks: no cycle)

    def step_scalars():
        args = opt.hyper_args(opt.iterations + 1, fused) if opt.fused_weight_decay else \
            opt.hyper_args(opt.iterations + 1)
        values = kernel_scalars(opt.kernel, args, has_velocity)
        host[:len(values)] = values
        if separate:
            host[HYPER] = opt.current_learning_rate() * opt.weight_decay
        if averaged_rows:
            momentum, overwrite = opt.ema_scalars(opt.iterations + 1)
            host[EMA:] = momentum, float(overwrite)
        dev.upload(hyper, host)

    def counted():
        opt.iterations += 1

    ctx.before_run(step_scalars)
    ctx.after_run(counted)
    proceed = ctx.proceed()
    launches = [average] if averaged is not None else []
    if gate is not None:  # the update runs where the checks passed and the gate is True
        gated, checked = ctx.empty((), bool), proceed
        launches.append(lambda: xp.logical_and(checked, gate, out=gated))
        proceed = gated
    launches += [g.launch(xp, hyper[HYPER:], ALGORITHMS["decay"], proceed)
                 for g in _groups(ctx, separate)]
    if opt.kernel == "lamb":
        launches += [g.launch_lamb(ctx, hyper, proceed) for g in _groups(ctx, rows)]
    else:
        launches += [g.launch(xp, hyper, ALGORITHMS[opt.kernel], proceed)
                     for g in _groups(ctx, rows)]
    launches += [g.launch(xp, hyper[EMA:], ALGORITHMS["ema"], proceed)
                 for g in _groups(ctx, averaged_rows)]
    return sequence(launches)


# In a distributed run the gradients are computed straight into the buffer that averages
# them (the executor asks this before it allocates the plan's buffers).
_apply_updates.input_buffers = gradient_buffers


@kernel("average_over_ranks")
def _average_over_ranks(node, ins, outs, ctx):
    return ctx.collectives.average_kernel(node, ins, outs, ctx.device)


# The two host ops of the optimizers built from ops (paddle/lowlevel/composed_optimizers.py),
# as csrc has none: the step's scalar written into a device word before each run (the
# launch copies it, so a CUDA graph captures it), and the step count moved after the run.

@kernel("optimizer_scalar")
def _optimizer_scalar(node, ins, outs, ctx):
    xp, opt, what, out = ctx.xp, node.attrs["optimizer"], node.attrs["what"], outs[0]
    word, host, dev = ctx.empty((), np.float32), np.zeros((), np.float32), ctx.device

    def refresh():
        host[()] = opt.step_scalar(what)
        dev.upload(word, host)
    ctx.before_run(refresh)
    return sequence([lambda: xp.copyto(out, word)])


@kernel("count_step")
def _count_step(node, ins, outs, ctx):
    opt, dev = node.attrs["optimizer"], ctx.device
    gate = ins[0] if node.attrs.get("gated") else None

    def counted():  # a skipped step (LossScaleOptimizer's gate) counts nothing, as on the CPU
        if gate is None or bool(dev.download(gate)):
            opt.iterations += 1
    ctx.after_run(counted)
    return sequence([])
