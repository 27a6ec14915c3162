"""CUDA kernels of lstm and gru and their gradients: a cell kernel per time step
(csrc/cuda/recurrent.cu) with cuBLAS products between them, as csrc/nn/recurrent.cpp
computes them (the same gates saved for the backward pass, the same optional mask and
recurrent dropout).

Forward: one product projects the inputs of every step (x W); then per step the recurrent
product (previous h, times the recurrent dropout, by R) and the cell, which updates the
running state in place. Backward: per step in reverse, the cell's gradient, then the
product carrying it to the previous state; the weight gradients are a few large products
over all N * T steps at the end. Every buffer is allocated when the kernel is prepared, and
the transposed weights the products read are copied into them at the start of each run.
"""
import numpy as np

from paddle.devices.cpu.recurrent import GRU_CLASSIC, LSTM, cell_kind
from paddle.devices.cuda import gemm
from paddle.devices.cuda.raw import Kernel, sequence
from paddle.devices.cuda.table import kernel


def _sigmoid(v):
    return v.dtype.type(1) / (v.dtype.type(1) + np.exp(-v))


def _step(a, N, T_, width, t):
    """The (N, width) rows of step t in an (N, T, width) buffer (a view)."""
    return a.reshape(N, T_, width)[:, t]


def _kept(mask, N, T_, t):
    return None if mask is None else (mask.reshape(N, T_)[:, t] == 0)[:, None]


def _cell_ref(xw, b, rec, h, c, gates, hs, cs, mask, kind, N, T_, U, t):
    G = 4 if kind == LSTM else 3
    GU = G * U
    b = b.reshape(-1)
    pre = (_step(xw, N, T_, GU, t) + b[:GU]) + rec.reshape(N, GU)
    gt = _step(gates, N, T_, 4 * U, t)
    h2 = h.reshape(N, U)
    h_prev = h2.copy()
    kept = _kept(mask, N, T_, t)
    if kind == LSTM:
        c2 = c.reshape(N, U)
        c_prev = c2.copy()
        ig, fg = _sigmoid(pre[:, :U]), _sigmoid(pre[:, U:2 * U])
        cg, og = np.tanh(pre[:, 2 * U:3 * U]), _sigmoid(pre[:, 3 * U:])
        gt[...] = np.concatenate([ig, fg, cg, og], axis=1)
        c_new = fg * c_prev + ig * cg
        h_new = og * np.tanh(c_new)
        if kept is not None:
            h_new, c_new = np.where(kept, h_prev, h_new), np.where(kept, c_prev, c_new)
        c2[...] = c_new
        _step(cs, N, T_, U, t)[...] = c_new
    else:
        br = b[GU:2 * GU]
        rc = rec.reshape(N, GU)
        z = _sigmoid(pre[:, :U] + br[:U])
        rg = _sigmoid(pre[:, U:2 * U] + br[U:2 * U])
        rech = rc[:, 2 * U:] + br[2 * U:]
        hh = np.tanh((_step(xw, N, T_, GU, t)[:, 2 * U:] + b[2 * U:GU]) + rg * rech)
        gt[...] = np.concatenate([z, rg, hh, rech], axis=1)
        one = z.dtype.type(1)
        h_new = z * h_prev + (one - z) * hh
        if kept is not None:
            h_new = np.where(kept, h_prev, h_new)
    h2[...] = h_new
    _step(hs, N, T_, U, t)[...] = h_new


def _classic_gates_ref(xw, b, rec, hr, gates, rh, N, T_, U, t):
    b = b.reshape(-1)
    pre = (_step(xw, N, T_, 3 * U, t)[:, :2 * U] + b[:2 * U]) + rec.reshape(N, 2 * U)
    gt = _step(gates, N, T_, 4 * U, t)
    gt[:, :2 * U] = _sigmoid(pre)
    rh.reshape(N, U)[...] = gt[:, U:2 * U] * hr.reshape(N, U)


def _classic_state_ref(xw, b, rec, h, gates, hs, mask, N, T_, U, t):
    b = b.reshape(-1)
    gt = _step(gates, N, T_, 4 * U, t)
    hh = np.tanh((_step(xw, N, T_, 3 * U, t)[:, 2 * U:] + b[2 * U:3 * U]) + rec.reshape(N, U))
    gt[:, 2 * U:3 * U] = hh
    gt[:, 3 * U:] = 0
    h2 = h.reshape(N, U)
    z = gt[:, :U]
    h_new = z * h2 + (z.dtype.type(1) - z) * hh
    kept = _kept(mask, N, T_, t)
    if kept is not None:
        h_new = np.where(kept, h2, h_new)
    h2[...] = h_new
    _step(hs, N, T_, U, t)[...] = h_new


def _multiply_ref(a, m, out, n):
    np.multiply(a.reshape(-1)[:n], m.reshape(-1)[:n], out=out.reshape(-1)[:n])


def _cell_grad_ref(gates, hs, cs, h0, c0, dhs, dcs, dh, dc, dX, dcur, dRec, drcur, hprev, rh,
                   mask, rdrop, kind, N, T_, U, t):
    G = 4 if kind == LSTM else 3
    GU = G * U
    gt = _step(gates, N, T_, 4 * U, t)
    h_prev = h0.reshape(N, U) if t == 0 else _step(hs, N, T_, U, t - 1)
    hp = h_prev * rdrop.reshape(N, U) if rdrop is not None else h_prev
    _step(hprev, N, T_, U, t)[...] = hp
    dh2, dhs_t = dh.reshape(N, U), _step(dhs, N, T_, U, t)
    kept = _kept(mask, N, T_, t)
    kept = np.zeros((N, 1), bool) if kept is None else kept
    one = gt.dtype.type(1)
    dhv = dhs_t + dh2
    if kind == LSTM:
        dc2 = dc.reshape(N, U)
        dcs_t = 0 if dcs is None else _step(dcs, N, T_, U, t)
        ig, fg, cg, og = (gt[:, k * U:(k + 1) * U] for k in range(4))
        c_prev = c0.reshape(N, U) if t == 0 else _step(cs, N, T_, U, t - 1)
        tc = np.tanh(_step(cs, N, T_, U, t))
        dcv = dcs_t + dc2 + dhv * og * (one - tc * tc)
        d = np.concatenate([dcv * cg * ig * (one - ig), dcv * c_prev * fg * (one - fg),
                            dcv * ig * (one - cg * cg), dhv * tc * og * (one - og)], axis=1)
        new_dc = np.where(kept, dc2 + dcs_t, dcv * fg)
        new_dh = np.where(kept, dhv, 0)
        dc2[...] = new_dc
    else:
        z, rg, hh = gt[:, :U], gt[:, U:2 * U], gt[:, 2 * U:3 * U]
        dz = dhv * (h_prev - hh) * z * (one - z)
        dah = dhv * (one - z) * (one - hh * hh)
        new_dh = np.where(kept, dhv, dhv * z)
        if kind == GRU_CLASSIC:
            dr = np.zeros_like(dz)
            _step(rh, N, T_, U, t)[...] = np.where(kept, 0, rg * hp)
        else:
            dr = dah * gt[:, 3 * U:] * rg * (one - rg)
            drec = np.where(kept, 0, np.concatenate([dz, dr, dah * rg], axis=1))
            _step(dRec, N, T_, GU, t)[...] = drec
            drcur.reshape(N, GU)[...] = drec
        d = np.concatenate([dz, dr, dah], axis=1)
    d = np.where(kept, 0, d)
    _step(dX, N, T_, GU, t)[...] = d
    dcur.reshape(N, GU)[...] = d
    dh2[...] = new_dh


def _classic_grad_r_ref(gates, drh, hprev, dX, dcur, dp, mask, N, T_, U, t):
    rg = _step(gates, N, T_, 4 * U, t)[:, U:2 * U]
    kept = _kept(mask, N, T_, t)
    kept = np.zeros((N, 1), bool) if kept is None else kept
    drh = drh.reshape(N, U)
    one = rg.dtype.type(1)
    dr = np.where(kept, 0, drh * _step(hprev, N, T_, U, t) * rg * (one - rg))
    _step(dX, N, T_, 3 * U, t)[:, U:2 * U] = dr
    dcur.reshape(N, 3 * U)[:, U:2 * U] = dr
    dp.reshape(N, U)[...] = np.where(kept, 0, drh * rg)


def _carry_ref(dh, dp, rdrop, n):
    flat, add = dh.reshape(-1)[:n], dp.reshape(-1)[:n]
    flat += add * rdrop.reshape(-1)[:n] if rdrop is not None else add


CELL = Kernel("recurrent.cu", "rnn_cell", _cell_ref)
CLASSIC_GATES = Kernel("recurrent.cu", "gru_classic_gates", _classic_gates_ref)
CLASSIC_STATE = Kernel("recurrent.cu", "gru_classic_state", _classic_state_ref)
MULTIPLY = Kernel("recurrent.cu", "multiply", _multiply_ref)
CELL_GRAD = Kernel("recurrent.cu", "rnn_cell_grad", _cell_grad_ref)
CLASSIC_GRAD_R = Kernel("recurrent.cu", "gru_classic_grad_r", _classic_grad_r_ref)
CARRY = Kernel("recurrent.cu", "rnn_carry", _carry_ref)


class _Net:
    """Sizes, optional operands and workspaces of one lstm / gru node."""

    def __init__(self, node, ctx, x, r, rest):
        self.ctx, self.xp = ctx, ctx.xp
        xp = self.xp
        self.kind = cell_kind(node)
        self.N, self.T, self.F = x.shape
        self.U = r.shape[0]
        self.G = 4 if self.kind == LSTM else 3
        self.GU = self.G * self.U
        self.null = None if xp is np else 0  # an absent optional pointer
        rest = list(rest)
        count = 2 if self.kind == LSTM else 1
        if node.attrs["has_state"]:
            self.states = [rest.pop(0) for _ in range(count)]
        else:  # zeros, made once and never written
            zero = ctx.empty((self.N, self.U), x.dtype)
            zero.fill(0)
            self.states = [zero] * count
        self.mask = rest.pop(0) if node.attrs.get("has_mask") else self.null
        self.rdrop = rest.pop(0) if node.attrs.get("has_rdrop") else self.null
        self.dtype = x.dtype

    def buffer(self, *shape):
        return self.ctx.empty(shape, self.dtype)

    def launch(self, k, threads, *args):
        return k.bind(self.xp, self.dtype, threads, *args)

    def product(self, a, b, out):
        return gemm.product(self.ctx, a, b, out)

    def copy(self, dst, src):
        xp = self.xp
        return lambda: xp.copyto(dst, src)


@kernel("lstm", "gru")
def _rnn(node, ins, outs, ctx):
    x, w, r, b = ins[:4]
    net = _Net(node, ctx, x, r, ins[4:])
    N, T_, U, GU = net.N, net.T, net.U, net.GU
    if net.kind == LSTM:
        hs, cs, gates = outs
    else:
        (hs, gates), cs = outs, net.null
    xw = net.buffer(N * T_, GU)
    h = net.buffer(N, U)
    c = net.buffer(N, U) if net.kind == LSTM else net.null
    steps = [net.product(x.reshape(N * T_, net.F), w, xw), net.copy(h, net.states[0])]
    if net.kind == LSTM:
        steps.append(net.copy(c, net.states[1]))
    hr = h
    if net.rdrop is not net.null:
        hr = net.buffer(N, U)  # the previous h times the recurrent dropout
    if net.kind == GRU_CLASSIC:
        r_zr, r_h = net.buffer(U, 2 * U), net.buffer(U, U)
        rec, rh, rec_h = net.buffer(N, 2 * U), net.buffer(N, U), net.buffer(N, U)
        steps += [net.copy(r_zr, r[:, :2 * U]), net.copy(r_h, r[:, 2 * U:])]
    else:
        rec = net.buffer(N, GU)
    for t in range(T_):
        if hr is not h:
            steps.append(net.launch(MULTIPLY, N * U, h, net.rdrop, hr, N * U))
        if net.kind != GRU_CLASSIC:
            steps += [net.product(hr, r, rec),
                      net.launch(CELL, N * U, xw, b, rec, h, c, gates, hs, cs, net.mask,
                                 net.kind, N, T_, U, t)]
        else:
            steps += [net.product(hr, r_zr, rec),
                      net.launch(CLASSIC_GATES, N * U, xw, b, rec, hr, gates, rh, N, T_, U, t),
                      net.product(rh, r_h, rec_h),
                      net.launch(CLASSIC_STATE, N * U, xw, b, rec_h, h, gates, hs, net.mask,
                                 N, T_, U, t)]
    return sequence(steps)


@kernel("lstm_grad", "gru_grad")
def _rnn_grad(node, ins, outs, ctx):
    xp = ctx.xp
    if cell_kind(node) == LSTM:
        # dcs is an input only when a gradient reaches the cell states (else a null pointer).
        x, w, r, hs, cs, gates, dhs = ins[:7]
        has_dcs = node.attrs.get("has_dcs", True)
        dcs = ins[7] if has_dcs else None
        rest, (dx, dw, dr, db, dh0, dc0) = (ins[8:] if has_dcs else ins[7:]), outs
    else:
        x, w, r, hs, gates, dhs = ins[:6]
        rest, (dx, dw, dr, db, dh0) = ins[6:], outs
    net = _Net(node, ctx, x, r, rest)
    kind, N, T_, U, GU, F = net.kind, net.N, net.T, net.U, net.GU, net.F
    null = net.null
    if kind != LSTM:
        cs = dcs = dc0 = null
    elif dcs is None:
        dcs = null
    h0, c0 = net.states[0], (net.states[1] if kind == LSTM else null)
    dX, hprev = net.buffer(N * T_, GU), net.buffer(N * T_, U)
    dRec, drcur = (net.buffer(N * T_, GU), net.buffer(N, GU)) if kind != LSTM and \
        kind != GRU_CLASSIC else (null, null)
    rh = net.buffer(N * T_, U) if kind == GRU_CLASSIC else null
    dh, dp, dcur = net.buffer(N, U), net.buffer(N, U), net.buffer(N, GU)
    dc = net.buffer(N, U) if kind == LSTM else null
    rt, wt = net.buffer(GU, U), net.buffer(GU, F)
    steps = [net.copy(rt, r.T), net.copy(wt, w.T), lambda: dh.fill(0)]
    if kind == LSTM:
        steps.append(lambda: dc.fill(0))
    if kind == GRU_CLASSIC:
        # R^T keeping only the rows of z and r, or only those of h~: a product with the
        # whole (N, 3U) step gradient then reads only the columns it should.
        rt_zr, rt_h, drh, extra = net.buffer(GU, U), net.buffer(GU, U), net.buffer(N, U), \
            net.buffer(N, U)
        steps += [net.copy(rt_zr, r.T), lambda: rt_zr[2 * U:].fill(0),
                  net.copy(rt_h, r.T), lambda: rt_h[:2 * U].fill(0)]
    for t in reversed(range(T_)):
        steps.append(net.launch(CELL_GRAD, N * U, gates, hs, cs, h0, c0, dhs, dcs, dh, dc, dX,
                                dcur, dRec, drcur, hprev, rh, net.mask, net.rdrop, kind, N,
                                T_, U, t))
        if kind == LSTM:
            steps.append(net.product(dcur, rt, dp))
        elif kind == GRU_CLASSIC:
            steps += [net.product(dcur, rt_h, drh),
                      net.launch(CLASSIC_GRAD_R, N * U, gates, drh, hprev, dX, dcur, dp,
                                 net.mask, N, T_, U, t),
                      net.product(dcur, rt_zr, extra),
                      _add(xp, dp, extra)]
        else:
            steps.append(net.product(drcur, rt, dp))
        steps.append(net.launch(CARRY, N * U, dh, dp, net.rdrop, N * U))
    steps.append(net.copy(dh0, dh))
    if kind == LSTM:
        steps.append(net.copy(dc0, dc))
    x2, flat_db, dr2 = x.reshape(N * T_, F), db.reshape(-1), dr.reshape(U, GU)
    steps += [net.product(x2.T, dX, dw.reshape(F, GU)), net.product(dX, wt, dx.reshape(N * T_, F)),
              lambda: xp.sum(dX, axis=0, out=flat_db[:GU])]
    if kind == LSTM:
        steps.append(net.product(hprev.T, dX, dr2))
    elif kind == GRU_CLASSIC:
        by_h, by_rh = net.buffer(U, GU), net.buffer(U, GU)
        steps += [net.product(hprev.T, dX, by_h), net.product(rh.T, dX, by_rh),
                  net.copy(dr2[:, :2 * U], by_h[:, :2 * U]), net.copy(dr2[:, 2 * U:], by_rh[:, 2 * U:])]
    else:
        steps += [net.product(hprev.T, dRec, dr2),
                  lambda: xp.sum(dRec, axis=0, out=flat_db[GU:])]
    return sequence(steps)


def _add(xp, total, part):
    return lambda: xp.add(total, part, out=total)
