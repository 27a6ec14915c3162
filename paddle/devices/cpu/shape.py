"""CPU kernels of the shape ops that move data (paddle/lowlevel/ops/shape.py).

Views (reshape, flatten, squeeze, expand_dims) have no kernel: the plan aliases buffers.
"""
from functools import partial

from paddle import _C
from paddle.devices.cpu.layouts import contiguous_strides, copy_spec
from paddle.devices.cpu.table import kernel
from paddle.lowlevel.shapes import around


def _sequence(calls):
    if len(calls) == 1:
        return calls[0]
    return lambda: [c() for c in calls]


@kernel("transpose")
def _transpose(node, ins, outs, ctx):
    x, out = ins[0], outs[0]
    xs = contiguous_strides(x.shape)
    spec = copy_spec(out.shape, [xs[p] for p in node.attrs["perm"]], contiguous_strides(out.shape))
    return partial(_C.strided_copy, x, out, spec)


def _pieces(full_shape, axis, sizes):
    """(offset in elements, piece shape) of consecutive pieces along `axis`."""
    step = contiguous_strides(full_shape)[axis]
    offset = 0
    for s in sizes:
        yield offset, full_shape[:axis] + (s,) + full_shape[axis + 1:]
        offset += s * step


@kernel("concat")
def _concat(node, ins, outs, ctx):
    out = outs[0]
    axis = node.attrs["axis"] % out.ndim
    calls = []
    for x, (offset, shape) in zip(ins, _pieces(out.shape, axis, [x.shape[axis] for x in ins])):
        spec = copy_spec(shape, contiguous_strides(shape), contiguous_strides(out.shape), 0, offset)
        calls.append(partial(_C.strided_copy, x, out, spec))
    return _sequence(calls)


@kernel("split")
def _split(node, ins, outs, ctx):
    x = ins[0]
    axis = node.attrs["axis"] % x.ndim
    calls = []
    for out, (offset, shape) in zip(outs, _pieces(x.shape, axis, [o.shape[axis] for o in outs])):
        spec = copy_spec(shape, contiguous_strides(x.shape), contiguous_strides(shape), offset, 0)
        calls.append(partial(_C.strided_copy, x, out, spec))
    return _sequence(calls)


def _slice_view(shape, index):
    """(offset, shape, strides) of x[index] inside a contiguous x of `shape`."""
    strides = contiguous_strides(shape)
    offset, out_shape, out_strides = 0, [], []
    for d, (n, ix) in enumerate(zip(shape, index + ((None, None, 1),) * (len(shape) - len(index)))):
        if isinstance(ix, int):
            offset += (ix % n) * strides[d]
            continue
        start, stop, step = slice(*ix).indices(n)
        count = len(range(start, stop, step))
        offset += start * strides[d] if count else 0
        out_shape.append(count)
        out_strides.append(step * strides[d])
    return offset, out_shape, out_strides


@kernel("slice")
def _slice(node, ins, outs, ctx):
    x, out = ins[0], outs[0]
    offset, shape, strides = _slice_view(x.shape, node.attrs["index"])
    if not shape:
        shape, strides = [1], [1]
    spec = copy_spec(shape, strides, contiguous_strides(shape), offset, 0)
    return partial(_C.strided_copy, x, out, spec)


@kernel("slice_grad")
def _slice_grad(node, ins, outs, ctx):
    g, out = ins[0], outs[0]
    offset, shape, strides = _slice_view(out.shape, node.attrs["index"])
    if not shape:
        shape, strides = [1], [1]
    spec = copy_spec(shape, contiguous_strides(shape), strides, 0, offset)
    return _sequence([partial(_C.fill, out, 0.0), partial(_C.strided_copy, g, out, spec)])



@kernel("gather")
def _gather(node, ins, outs, ctx):
    x, idx = ins
    outer, n, inner = around(x.shape, node.attrs["axis"] % x.ndim)
    return partial(_C.gather, x, idx, outs[0], outer, n, inner)


@kernel("reverse")
def _reverse(node, ins, outs, ctx):
    # A strided copy reading the axis backwards (a negative source stride, from its last
    # element): no index array to read beside x.
    x = ins[0]
    outer, n, inner = around(x.shape, node.attrs["axis"] % x.ndim)
    spec = copy_spec((outer, n, inner), (n * inner, -inner, 1), (n * inner, inner, 1),
                     (n - 1) * inner, 0)
    return partial(_C.strided_copy, x, outs[0], spec)


@kernel("scatter_add")
def _scatter_add(node, ins, outs, ctx):
    g, idx, _ = ins
    out = outs[0]
    outer, n, inner = around(out.shape, node.attrs["axis"] % out.ndim)
    return partial(_C.scatter_add, g, idx, out, outer, n, inner)


@kernel("one_hot")
def _one_hot(node, ins, outs, ctx):
    depth, loss = node.attrs["depth"], node.attrs.get("labels_of")
    call = partial(_C.one_hot, ins[0], outs[0], depth)
    if loss is None:
        return call

    def run():  # a loss's class labels: say so, not only 'one_hot: index 2 ...'
        try:
            call()
        except IndexError as e:
            raise ValueError(f"{loss}: class labels must lie in [0, {depth}), the class axis "
                             f"of the scores ({e})") from None
    return run


@kernel("pad")
def _pad(node, ins, outs, ctx):
    x, out = ins[0], outs[0]
    os = contiguous_strides(out.shape)
    offset = sum(b * s for (b, _), s in zip(node.attrs["paddings"], os))
    spec = copy_spec(x.shape, contiguous_strides(x.shape), os, 0, offset)
    calls = [partial(_C.fill, out, node.attrs["constant_values"])]
    if x.size:
        calls.append(partial(_C.strided_copy, x, out, spec))
    return _sequence(calls)
