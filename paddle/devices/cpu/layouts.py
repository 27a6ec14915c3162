"""Layouts and specs of the CPU kernels' C++ calls: strides of broadcast operands, the
int64 layout arrays of csrc/elementwise.cpp and csrc/copy.cpp, and the passes of a
reduction, computed once per plan from concrete shapes."""
import numpy as np


def contiguous_strides(shape):
    strides, acc = [], 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d
    return strides[::-1]


def broadcast_strides(out_shape, shape):
    """Element strides of an operand of `shape` read as `out_shape` (0 on broadcast dims)."""
    shape = (1,) * (len(out_shape) - len(shape)) + tuple(shape)
    strides = contiguous_strides(shape)
    return [0 if d == 1 and o != 1 else s for d, o, s in zip(shape, out_shape, strides)]


def merge_dims(shape, *stride_lists):
    """Drop size-1 dims and merge neighbours that are contiguous in every operand."""
    dims = [(d, [s[i] for s in stride_lists]) for i, d in enumerate(shape) if d != 1]
    if not dims:
        return [1], [[0] for _ in stride_lists]
    merged = [dims[0]]
    for d, st in dims[1:]:
        pd_, pst = merged[-1]
        if all(ps == s * d for ps, s in zip(pst, st)):
            merged[-1] = (pd_ * d, st)
        else:
            merged.append((d, st))
    return [d for d, _ in merged], [[st[k] for _, st in merged] for k in range(len(stride_lists))]


def layout(out_shape, *operand_shapes):
    """The int64 layout array of csrc/elementwise.cpp for a broadcasting op."""
    strides = [broadcast_strides(out_shape, s) for s in operand_shapes]
    shape, strides = merge_dims(out_shape, *strides)
    return np.array([len(shape), *shape, *[x for s in strides for x in s]], dtype=np.int64)


def copy_spec(shape, src_strides, dst_strides, src_offset=0, dst_offset=0):
    """The int64 spec of csrc/copy.cpp strided_copy."""
    shape, (ss, ds) = merge_dims(shape, src_strides, dst_strides)
    return np.array([len(shape), *shape, *ss, *ds, src_offset, dst_offset], dtype=np.int64)


def reduce_passes(shape, axes):
    """Split a reduction over `axes` into passes of (outer, red, inner), last group first."""
    groups = []  # (size, reduced)
    for i, d in enumerate(shape):
        if d == 1:
            continue
        flag = i in axes
        if groups and groups[-1][1] == flag:
            groups[-1] = (groups[-1][0] * d, flag)
        else:
            groups.append((d, flag))
    passes = []
    for gi in range(len(groups) - 1, -1, -1):
        size, flag = groups[gi]
        if not flag:
            continue
        outer = int(np.prod([g[0] for g in groups[:gi]])) if gi else 1
        inner = int(np.prod([g[0] for g in groups[gi + 1:] if not g[1]] or [1]))
        passes.append((outer, size, inner))
        groups[gi] = (1, False)
    return passes
