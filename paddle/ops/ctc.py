"""Connectionist temporal classification of `keras.ops.nn`: `ctc_loss` and `ctc_decode`
(greedy), as Keras on JAX computes them.

`ctc_loss` is optax's forward algorithm (Keras's JAX backend ports it): log-space
recursions over the time steps on (batch, labels) tensors, written with existing ops, so
its gradient comes from theirs. The time loop is unrolled into the graph (one small group
of ops per step, each over the whole batch and every label): no kernel of its own.
`ctc_decode` takes the best class per step, merges repeats, drops the blank and
left-aligns what is left (a product with a one-hot of each kept label's position).

Example:
    >>> import numpy as np, paddle as pd
    >>> logits = np.log(np.array([[[0.1, 0.9], [0.9, 0.1]]], np.float32))
    >>> loss = pd.ops.ctc_loss(np.array([[1]]), logits, np.array([1]), np.array([2]))
    >>> round(float(loss.numpy()[0]), 4)   # paths "1 _", "1 1", "_ 1": -log(0.81 + 0.09 + 0.01)
    0.0943
"""
import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import FLOATS, constant
from paddle.lowlevel.ops.activations import log_softmax
from paddle.lowlevel.ops.math import (abs as _abs, cast, equal, exp, less, log1p, maximum,
                                      not_equal, where)
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import argmax, max as _max, sum as _sum
from paddle.lowlevel.ops.shape import concat, expand_dims, one_hot, pad, squeeze
from paddle.lowlevel.shapes import is_int
from paddle.ops.convolutions import as_tensor

__all__ = ["ctc_decode", "ctc_loss"]

LOG_EPSILON = -1e5  # optax's and Keras's "log 0": finite, so no inf - inf in the gradient


def _logaddexp(a, b):
    return maximum(a, b) + log1p(exp(-_abs(a - b)))


def _lengths(x, batch, what, op):
    x = as_tensor(x)
    if x.dtype not in ("int32", "int64") or x.ndim != 1:
        raise TypeError(at_user(f"{op}: expected {what} as a 1-D integer tensor, received "
                                f"{x.dtype} of shape {x.shape}"))
    if x.shape[0] is not None and batch is not None and x.shape[0] != batch:
        raise ShapeError(at_user(f"{op}: expected {what} of shape ({batch},), received "
                                 f"{x.shape}"))
    return cast(x, "int64")


def _padding_mask(lengths, size, dtype):
    """(batch, size): 1.0 where position >= length."""
    positions = constant(np.arange(size, dtype=np.int64))
    return cast(less(expand_dims(lengths, -1) - 1, positions), dtype)


def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """CTC loss per sequence, as `keras.ops.ctc_loss`.

    Args:
        target: int labels (batch, max_label_length), padded past target_length.
        output: logits (batch, max_time, classes) (log-softmaxed here).
        target_length: (batch,) ints.
        output_length: (batch,) ints.
        mask_index: the blank class.

    Returns:
        (batch,) negative log-likelihoods, float32 (float64 for float64 logits).

    Raises:
        TypeError / ShapeError: integer targets and lengths, rank-3 logits with known time
            and class sizes, matching batch sizes.

    Example:
        >>> import numpy as np, paddle as pd
        >>> out = np.zeros((2, 5, 4), np.float32)
        >>> target, lengths = np.array([[1, 2], [3, 0]]), np.array([2, 1])
        >>> pd.ops.ctc_loss(target, out, lengths, np.array([5, 4])).shape
        (2,)
    """
    op = "ctc_loss"
    output = as_tensor(output)
    if output.dtype not in FLOATS:
        output = cast(output, "float32")
    target = as_tensor(target)
    if target.dtype not in ("int32", "int64") or target.ndim != 2:
        raise TypeError(at_user(f"{op}: expected target as 2-D integer labels (batch, "
                                f"max_label_length), received {target.dtype} of shape "
                                f"{target.shape}"))
    if output.ndim != 3 or output.shape[1] is None or output.shape[2] is None or \
            target.shape[1] is None:
        raise ShapeError(at_user(f"{op}: expected output (batch, time, classes) and target "
                                 f"(batch, labels) with known time, class and label sizes, "
                                 f"received {output.shape} and {target.shape}"))
    batch = output.shape[0]
    if target.shape[0] is not None and batch is not None and target.shape[0] != batch:
        raise ShapeError(at_user(f"{op}: target {target.shape} and output {output.shape} have "
                                 f"different batch sizes"))
    _, steps, classes = output.shape
    labels = target.shape[1]
    if not is_int(mask_index) or not 0 <= mask_index < classes:
        raise ValueError(at_user(f"{op}: expected mask_index in [0, {classes}), received "
                                 f"{mask_index!r}"))
    target_length = _lengths(target_length, batch, "target_length", op)
    output_length = _lengths(output_length, batch, "output_length", op)
    dtype = output.dtype
    target = cast(target, "int64")

    out_pad = _padding_mask(output_length, steps, dtype)              # (B, T)
    logprobs = log_softmax(output, axis=-1)
    repeat = cast(equal(target[:, :-1], target[:, 1:]), dtype)        # (B, N - 1)
    repeat = pad(repeat, ((0, 0), (0, 1)))
    phi = logprobs[:, :, mask_index]                                   # (B, T)
    hot = one_hot(target, depth=classes, dtype=dtype)                  # (B, N, C)
    emit = matmul(logprobs, hot, transpose_b=True)                     # (B, T, N)

    start = np.full((1, labels + 1), LOG_EPSILON)
    start[0, 0] = 0.0
    zeros = expand_dims(out_pad[:, 0], -1) * 0.0                       # (B, 1), for the batch
    prev_phi = zeros + constant(start, dtype=dtype)                    # (B, N + 1)
    prev_emit = zeros + constant(np.full((1, labels), LOG_EPSILON), dtype=dtype)

    def update_phi(phi_, added):
        return concat([phi_[:, :1], _logaddexp(phi_[:, 1:], added)], axis=-1)

    for t in range(steps):  # the recursion over time, unrolled (see the module doc)
        orig_phi = prev_phi
        prev_phi = update_phi(prev_phi, prev_emit + LOG_EPSILON * repeat)
        e, p = emit[:, t], expand_dims(phi[:, t], -1)
        next_emit = _logaddexp(prev_phi[:, :-1] + e, prev_emit + e)
        next_phi = update_phi(prev_phi + p, prev_emit + p + LOG_EPSILON * (1.0 - repeat))
        padded = expand_dims(out_pad[:, t], -1)
        prev_emit = padded * prev_emit + (1.0 - padded) * next_emit
        prev_phi = padded * orig_phi + (1.0 - padded) * next_phi
    last = update_phi(prev_phi, prev_emit)
    label_lengths = labels - cast(_sum(_padding_mask(target_length, labels, dtype), axis=1),
                                  "int64")
    pick = one_hot(label_lengths, depth=labels + 1, dtype=dtype)
    return -_sum(last * pick, axis=1)


def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1,
               merge_repeated=True, mask_index=0):
    """Decodes CTC outputs, as `keras.ops.ctc_decode` with strategy "greedy" (the best
    class per step; "beam_search" is not available here).

    Args:
        inputs: (batch, time, classes) scores.
        sequence_lengths: (batch,) ints.
        strategy: "greedy".
        merge_repeated: drop a label equal to the one before it.
        mask_index: the blank class.

    Returns:
        (decoded, scores): decoded int32 (1, batch, time), the labels left-aligned and -1
        after them; scores (batch, 1), minus the sum of each step's best score.

    Example:
        >>> import numpy as np, paddle as pd
        >>> x = np.eye(3, dtype=np.float32)[[1, 1, 0, 2, 2]][None]
        >>> decoded, _ = pd.ops.ctc_decode(x, np.array([5]))
        >>> decoded.numpy().tolist()
        [[[1, 2, -1, -1, -1]]]
    """
    op = "ctc_decode"
    if strategy != "greedy":
        raise ValueError(at_user(f"{op}: only strategy 'greedy' is supported here, received "
                                 f"{strategy!r}"))
    x = as_tensor(inputs)
    if x.dtype not in FLOATS:
        x = cast(x, "float32")
    if x.ndim != 3 or x.shape[1] is None or x.shape[2] is None:
        raise ShapeError(at_user(f"{op}: expected inputs (batch, time, classes) with known "
                                 f"time and class sizes, received {x.shape}"))
    steps, classes = x.shape[1:]
    if not is_int(mask_index) or not 0 <= mask_index < classes:
        raise ValueError(at_user(f"{op}: expected mask_index in [0, {classes}), received "
                                 f"{mask_index!r}"))
    lengths = _lengths(sequence_lengths, x.shape[0], "sequence_lengths", op)
    index = cast(argmax(x, axis=-1), "int64")                          # (B, T)
    scores = _max(x, axis=-1)
    padded = less(expand_dims(lengths, -1) - 1, constant(np.arange(steps, dtype=np.int64)))
    blank = constant(np.int64(mask_index))
    index = where(padded, blank, index)
    scores = where(padded, 0.0, scores)
    if merge_repeated and steps > 1:
        repeat = equal(index[:, 1:], index[:, :-1])
        repeat = concat([cast(repeat[:, :1], "int64") * 0, cast(repeat, "int64")], axis=1)
        index = where(equal(repeat, constant(np.int64(1))), blank, index)
    keep = cast(not_equal(index, blank), x.dtype)                      # (B, T)
    # each kept label's slot: the number of kept labels before it (a cumulative sum)
    slot = matmul(keep, constant(np.triu(np.ones((steps, steps))), dtype=x.dtype)) - 1.0
    slot = cast(maximum(slot, 0.0), "int64")
    moves = one_hot(slot, depth=steps, dtype=x.dtype) * expand_dims(keep, -1)   # (B, T, T)
    labels = expand_dims(cast(index, x.dtype) + 1.0, -2)               # (B, 1, T)
    decoded = cast(squeeze(matmul(labels, moves), -2), "int32") - 1
    return expand_dims(decoded, 0), -_sum(scores, axis=1, keepdims=True)
