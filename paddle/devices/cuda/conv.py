"""CUDA kernels of conv2d and its two adjoints: im2col / col2im (csrc/cuda/conv.cu) around
cuBLAS products (`gemm.product`, capturable, into buffers allocated when the kernel is
prepared).

CuPy 14 wraps no cuDNN; docs/gpu.md says why im2col + cuBLAS was chosen over NVIDIA's cuDNN
frontend and what is to be measured. The geometry is csrc/nn/conv.cpp's spec. Images are
unrolled a chunk at a time so the column buffer stays under COLUMN_BYTES; with groups, each
group is one product on its own columns and filter columns (copied together once per run).
A 1x1 convolution with stride 1 and no padding needs no columns: its input is the matrix.
"""
import numpy as np

from paddle.devices.cpu.conv import conv_spec
from paddle.devices.cuda import elementwise, gemm
from paddle.devices.cuda.raw import Kernel, sequence
from paddle.devices.cuda.table import kernel

COLUMN_BYTES = 1 << 26  # 64 MiB of columns per chunk of images


def _taps(OH, KH, sh, dh, pt, H):
    """Per tap kh: the input row each output row reads (clipped) and whether it is inside."""
    for kh in range(KH):
        ih = np.arange(OH) * sh - pt + kh * dh
        yield kh, np.clip(ih, 0, H - 1), (ih >= 0) & (ih < H)


def _im2col_ref(x, cols, n0, images, g, H, W, C, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl, cg):
    src = x.reshape(-1, H, W, C)[n0:n0 + images, :, :, g * cg:(g + 1) * cg]
    out = cols.reshape(-1)[:images * OH * OW * KH * KW * cg].reshape(images, OH, OW, KH, KW, cg)
    for kh, ih, row_in in _taps(OH, KH, sh, dh, pt, H):
        for kw, iw, col_in in _taps(OW, KW, sw, dw, pl, W):
            inside = (row_in[:, None] & col_in[None, :])[None, :, :, None]
            out[:, :, :, kh, kw, :] = np.where(inside, src[:, ih][:, :, iw], 0)


def _readers(H, KH, sh, dh, pt, OH):
    """Per tap kh: the output row whose window reads each input row there, and whether one
    does (the kernel's `reader`)."""
    for kh in range(KH):
        start = np.arange(H) + pt - kh * dh
        oh = start // sh
        yield kh, np.clip(oh, 0, OH - 1), (start >= 0) & (start % sh == 0) & (oh < OH)


def _col2im_ref(cols, dx, n0, images, g, H, W, C, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl, cg):
    src = cols.reshape(-1)[:images * OH * OW * KH * KW * cg].reshape(images, OH, OW, KH, KW, cg)
    total = np.zeros((images, H, W, cg), dx.dtype)
    for kh, oh, row_ok in _readers(H, KH, sh, dh, pt, OH):
        for kw, ow, col_ok in _readers(W, KW, sw, dw, pl, OW):
            ok = (row_ok[:, None] & col_ok[None, :])[None, :, :, None]
            total += np.where(ok, src[:, :, :, kh, kw, :][:, oh][:, :, ow], 0)
    dx.reshape(-1, H, W, C)[n0:n0 + images, :, :, g * cg:(g + 1) * cg] = total


IM2COL = Kernel("conv.cu", "im2col", _im2col_ref)
COL2IM = Kernel("conv.cu", "col2im", _col2im_ref)


class Geometry:
    """A convolution's sizes (csrc/nn/conv.cpp's spec) and its chunks of images."""

    def __init__(self, x_shape, f_shape, y_shape, attrs, itemsize):
        spec = [int(v) for v in conv_spec(x_shape, f_shape, y_shape, attrs, itemsize)]
        (self.N, self.H, self.W, self.C, self.OH, self.OW, self.CO, self.KH, self.KW, self.sh,
         self.sw, self.dh, self.dw, self.pt, self.pl, self.groups) = spec[:16]
        self.cg, self.cog = self.C // self.groups, self.CO // self.groups
        self.Kg = self.KH * self.KW * self.cg
        self.P = self.N * self.OH * self.OW  # output positions
        self.pointwise = (self.KH == self.KW == 1 and self.sh == self.sw == 1 and
                          self.pt == self.pl == 0 and self.groups == 1 and
                          (self.OH, self.OW) == (self.H, self.W))
        per_image = self.OH * self.OW * self.Kg * itemsize
        self.images = max(1, min(self.N, COLUMN_BYTES // max(per_image, 1)))
        self.chunks = [(n0, min(self.images, self.N - n0))
                       for n0 in range(0, self.N, self.images)]
        self.rows = self.images * self.OH * self.OW  # positions per full chunk

    def params(self):
        return (self.H, self.W, self.C, self.OH, self.OW, self.KH, self.KW, self.sh, self.sw,
                self.dh, self.dw, self.pt, self.pl, self.cg)

    def columns(self, ctx, dtype):
        return ctx.empty((self.rows, self.Kg), dtype)

    def unroll(self, xp, x, cols, n0, images, g):
        return IM2COL.bind(xp, x.dtype, images * self.OH * self.OW * self.Kg, x, cols, n0,
                           images, g, *self.params())

    def roll(self, xp, cols, dx, n0, images, g):
        return COL2IM.bind(xp, dx.dtype, images * self.H * self.W * self.cg, cols, dx, n0,
                           images, g, *self.params())

    def group_filters(self, ctx, w, transposed=False):
        """(buffer, copy): the filters as one contiguous (Kg, cog) matrix per group (or
        (cog, Kg) transposed), and the step that fills it from w."""
        by_group = w.reshape(self.Kg, self.groups, self.cog).transpose(1, 0, 2)
        if transposed:
            by_group = by_group.transpose(0, 2, 1)
        buf, xp = ctx.empty(by_group.shape, w.dtype), ctx.xp
        return buf, lambda: xp.copyto(buf, by_group)


@kernel("conv2d")
def _conv2d(node, ins, outs, ctx):
    xp, (x, f), bias, y = ctx.xp, ins[:2], (ins[2] if len(ins) > 2 else None), outs[0]
    geo = Geometry(x.shape, f.shape, y.shape, node.attrs, x.itemsize)
    y2 = y.reshape(geo.P, geo.CO)
    steps = []
    if geo.P == 0:
        return sequence(steps)
    if geo.pointwise:
        steps.append(gemm.product(ctx, x.reshape(geo.P, geo.C), f.reshape(geo.C, geo.CO), y2))
    else:
        cols = geo.columns(ctx, x.dtype)
        if geo.groups == 1:
            wg = [f.reshape(geo.Kg, geo.CO)]
        else:
            wbuf, copy = geo.group_filters(ctx, f)
            wg, part = list(wbuf), ctx.empty((geo.rows, geo.cog), x.dtype)
            steps.append(copy)
        for n0, images in geo.chunks:
            r0, rows = n0 * geo.OH * geo.OW, images * geo.OH * geo.OW
            for g in range(geo.groups):
                steps.append(geo.unroll(xp, x, cols, n0, images, g))
                if geo.groups == 1:
                    steps.append(gemm.product(ctx, cols[:rows], wg[0], y2[r0:r0 + rows]))
                else:
                    steps.append(gemm.product(ctx, cols[:rows], wg[g], part[:rows]))
                    steps.append(_copy(xp, y2[r0:r0 + rows, g * geo.cog:(g + 1) * geo.cog],
                                       part[:rows]))
    if bias is not None:
        steps.append(lambda: xp.add(y2, bias, out=y2))
    return sequence(steps)


def _copy(xp, dst, src):
    return lambda: xp.copyto(dst, src)


@kernel("conv2d_backprop_input", "conv2d_transpose")
def _backprop_input(node, ins, outs, ctx):
    xp, (dy, f), dx = ctx.xp, ins[:2], outs[0]
    geo = Geometry(dx.shape, f.shape, dy.shape, node.attrs, dy.itemsize)
    dy2 = dy.reshape(geo.P, geo.CO)
    if geo.P == 0:
        return sequence([])
    wbuf, copy = geo.group_filters(ctx, f, transposed=True)  # (groups, cog, Kg)
    steps = [copy]
    if geo.pointwise:
        steps.append(gemm.product(ctx, dy2, wbuf[0], dx.reshape(geo.P, geo.C)))
        return sequence(steps)
    cols = geo.columns(ctx, dy.dtype)
    part = None if geo.groups == 1 else ctx.empty((geo.rows, geo.cog), dy.dtype)
    for n0, images in geo.chunks:
        r0, rows = n0 * geo.OH * geo.OW, images * geo.OH * geo.OW
        for g in range(geo.groups):
            if geo.groups == 1:
                source = dy2[r0:r0 + rows]
            else:  # this group's columns of dy, made contiguous for the product
                steps.append(_copy(xp, part[:rows], dy2[r0:r0 + rows,
                                                        g * geo.cog:(g + 1) * geo.cog]))
                source = part[:rows]
            steps.append(gemm.product(ctx, source, wbuf[g], cols[:rows]))
            steps.append(geo.roll(xp, cols, dx, n0, images, g))
    return sequence(steps)


@kernel("conv2d_backprop_filter")
def _backprop_filter(node, ins, outs, ctx):
    xp, (x, dy), df = ctx.xp, ins[:2], outs[0]
    db = outs[1] if len(outs) > 1 else None
    geo = Geometry(x.shape, df.shape, dy.shape, node.attrs, x.itemsize)
    dy2 = dy.reshape(geo.P, geo.CO)
    steps = []
    if geo.P == 0:
        steps.append(lambda: df.fill(0))
        if db is not None:
            steps.append(lambda: db.fill(0))
        return sequence(steps)
    if db is not None:
        steps.append(lambda: xp.sum(dy2, axis=0, out=db))
    if geo.pointwise:
        steps.append(gemm.product(ctx, x.reshape(geo.P, geo.C).T, dy2, df.reshape(geo.C, geo.CO)))
        return sequence(steps)
    cols = geo.columns(ctx, x.dtype)
    # One (Kg, cog) sum per group; the first chunk writes it, later ones add theirs.
    acc = ctx.empty((geo.groups, geo.Kg, geo.cog), x.dtype)
    partial = ctx.empty((geo.Kg, geo.cog), x.dtype) if len(geo.chunks) > 1 else None
    part = None if geo.groups == 1 else ctx.empty((geo.rows, geo.cog), x.dtype)
    for i, (n0, images) in enumerate(geo.chunks):
        r0, rows = n0 * geo.OH * geo.OW, images * geo.OH * geo.OW
        for g in range(geo.groups):
            steps.append(geo.unroll(xp, x, cols, n0, images, g))
            if geo.groups == 1:
                source = dy2[r0:r0 + rows]
            else:
                steps.append(_copy(xp, part[:rows], dy2[r0:r0 + rows,
                                                        g * geo.cog:(g + 1) * geo.cog]))
                source = part[:rows]
            if i == 0:
                steps.append(gemm.product(ctx, cols[:rows].T, source, acc[g]))
            else:
                steps.append(gemm.product(ctx, cols[:rows].T, source, partial))
                steps.append(_accumulate(xp, acc[g], partial))
    by_group = df.reshape(geo.Kg, geo.groups, geo.cog).transpose(1, 0, 2)
    steps.append(_copy(xp, by_group, acc))
    return sequence(steps)


def _accumulate(xp, total, part):
    return lambda: xp.add(total, part, out=total)


# conv2d + relu, conv2d + add and conv2d + add + relu as the fusion pass groups them
# (paddle/lowlevel/fusion/conv.py; with an add, the residual is the last input). On CUDA it
# runs the convolution's launches, then the add and relu in place on its output: no launch
# is saved (an epilogue in csrc/cuda/conv.cu would), but the group stays one node on every
# device.
@kernel("fused_conv")
def _fused_conv(node, ins, outs, ctx):
    y, xp = outs[0], ctx.xp
    zero = y.dtype.type(0)
    members = node.op.members
    steps = [_conv2d(node, ins[:-1] if "add" in members else ins, outs, ctx)]
    if "add" in members:
        residual = ins[-1]
        steps.append(lambda: xp.add(y, residual, out=y))
    if "relu" in members:
        # max(y, 0) lets NaN through, as relu's kernel does
        steps.append(lambda: xp.maximum(y, zero, out=y))
    return sequence(steps)


_fused_conv.fusable = lambda prepares: prepares in (
    [_conv2d, elementwise.ELEMENTWISE],
    [_conv2d, elementwise.ELEMENTWISE, elementwise.ELEMENTWISE])
