"""CUDA kernels of dropout and embedding (paddle/lowlevel/ops/nn.py; csrc/cuda/sampling.cu,
embedding.cu).

Dropout draws its mask from a seed in device memory that the host writes before each run
(sampling.py). An embedding id outside the table is recorded on the device and reported
by the run's `check`, the same IndexError as on the CPU.
"""
import numpy as np

from paddle.devices.cuda.raw import Kernel, sequence
from paddle.devices.cuda.sampling import DROPOUT, stream_for
from paddle.devices.cuda.table import kernel
from paddle.lowlevel.random_state import next_seed


@kernel("dropout")
def _dropout(node, ins, outs, ctx):
    xp, x, (y, mask) = ctx.xp, ins[0], outs
    if not ctx.training:
        return sequence([lambda: xp.copyto(y, x), lambda: mask.fill(1)])
    rate = float(node.attrs["rate"])
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"dropout: rate must be in [0, 1), received {rate}")
    stream = stream_for(ctx, next_seed)
    draw = DROPOUT.bind(xp, x.dtype, x.size, x, y, mask, stream.seed, x.size, rate)
    return stream.run(draw)


def _shape_str(shape):
    return "(" + ", ".join(str(d) for d in shape) + (",)" if len(shape) == 1 else ")")


def _embedding_ref(ids, table, out, bad, flag, k, rows, dim):
    flat = ids.reshape(-1)
    outside = (flat < 0) | (flat >= rows)
    out.reshape(k, dim)[...] = np.where(outside[:, None], 0, table[np.clip(flat, 0, rows - 1)])
    if outside.any():
        bad[0] = min(int(bad[0]), int(np.flatnonzero(outside)[0]))
        flag[0] = 1


EMBEDDING = Kernel("embedding.cu", "embedding", _embedding_ref)


@kernel("embedding")
def _embedding(node, ins, outs, ctx):
    xp, (ids, table), out = ctx.xp, ins, outs[0]
    if ids.dtype != np.int64 or table.ndim != 2:
        raise TypeError(f"embedding: expected int64 ids and a 2-D table, received "
                        f"{ids.dtype} ids and a table of shape {_shape_str(table.shape)}")
    rows, dim, k = table.shape[0], table.shape[1], ids.size
    bad, flag = ctx.empty((1,), np.uint64), ctx.empty((1,), np.int32)
    lookup = EMBEDDING.bind(xp, table.dtype, k * max(dim, 1), ids, table, out, bad, flag, k,
                            rows, dim)

    def outside(bad_id, j):
        """csrc/nn/embedding.cpp's IndexError for the first id outside the table."""
        return IndexError(f"embedding: id {bad_id} at position {j} is outside the table's "
                          f"{rows} rows [0, {rows}): ids is {_shape_str(ids.shape)}, table is "
                          f"{_shape_str(table.shape)}")

    dev = ctx.device  # (not ctx, which holds the hooks that hold `error`: no cycle)

    def error():
        j = int(dev.download(bad)[0])
        return outside(int(dev.download(ids.reshape(-1)[j:j + 1])[0]), j)
    ctx.check(flag, error)
    ctx.check_indices(ids, rows, outside)
    return sequence([lambda: bad.fill(k), lambda: flag.fill(0), lookup])
