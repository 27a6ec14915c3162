"""Keras 3's post-training GPTQ and AWQ quantization (`model.quantize("gptq",
config=GPTQConfig(...))`, `model.quantize("awq", config=AWQConfig(...))`), computed on the
host with NumPy as Keras computes it with its ops: a one-off offline transformation of the
weights, not a kernel. The quantized layers then run through paddle ops (the Dense layer's
`_gptq_call`: the uint8 values unpacked with `cast`/`floor`, the groups' scales and zero
points gathered, AWQ's input-row scales divided out, one matmul). Where XLA (Keras's JAX
backend) divides by a broadcast value it multiplies by the reciprocal; the same is done
here, so the rounding ties of the quantization fall as Keras's and the integer weights are
Keras's to the bit (tests/highlevel/test_quantize_gptq.py).

The GPTQ steps are Keras's (keras/src/quantizers/gptq_core.py, gptq.py, quantizers.py):

1. `get_dataloader`: the calibration data (strings through `tokenizer.tokenize`, or token
   ids) joined into one stream of int32 tokens, tiled up to `num_samples *
   sequence_length`, and `num_samples` windows of `sequence_length` tokens taken at
   "strided" starts (an offset from Python's `hash(("gptq-calib", 42))`, as Keras's: it
   depends on PYTHONHASHSEED unless the stream holds exactly one window).
2. `apply_layerwise`: the windows through the structure's `pre_block_layers`; then,
   block after block of `sequential_blocks`, each Dense inside the block (a leaf)
   accumulates the Hessian `H = 2/N * sum x^T x` of its inputs over the calibration
   calls (its `call` wrapped for the pass, as Keras's `stream_hessians`), is quantized
   (`GPTQ.quantize_and_correct_layer`) and the block's outputs (the first of the batch)
   become the next block's inputs.
3. `quantize_and_correct_layer`: the Hessian's dead diagonal set to 1, `hessian_damping`
   times its mean diagonal added, inverted by LAPACK (`numpy.linalg.inv`, Keras's
   `linalg.inv`); then `gptq_quantize_matrix`: the columns of the transposed kernel (input
   rows) optionally permuted by decreasing Hessian diagonal (`activation_order`), taken in
   blocks of 128; each column is quantized with its group's scale and zero point (min-max
   over the group's still-compensated columns, asymmetric in [0, 2^bits - 1] or
   symmetric), and its error, divided by the inverse Hessian's diagonal, is subtracted from
   the block's later columns (times the inverse Hessian's row), the block's errors from
   all later columns after the block.

AWQ (keras/src/quantizers/awq_core.py, awq.py) takes the same windows and blocks; each
Dense leaf keeps the largest |x| of each input row over the calibration calls; then for
ratio i / num_grid_points (i = 0..num_grid_points) the input rows of the transposed kernel
are scaled by x_max ** ratio (over the geometric mean of the largest and smallest), quantized
to 4 bits asymmetrically (per output channel or in groups), unscaled, and the error weighted
by x_max^2; the scales of the least mean error are kept (`awq_scales`), and the kernel
scaled by them is quantized and packed two values a byte.

Example:
    >>> import numpy as np
    >>> from paddle.highlevel.gptq import compute_quantization_parameters
    >>> scale, zero, maxq = compute_quantization_parameters(
    ...     np.float32([[-1.0, 0.5, 2.0]]), bits=4, per_channel=True)
    >>> scale.tolist(), zero.tolist(), float(maxq)
    ([[0.20000001788139343]], [[5]], 15.0)
"""
import math

import numpy as np

from paddle.highlevel import quantizers
from paddle.highlevel.quantization_config import AWQConfig, GPTQConfig


def compute_quantization_parameters(x, *, bits, symmetric=False, per_channel=False,
                                    group_size=-1):
    """Keras's `compute_quantization_parameters` (unsigned): the float32 scale, uint8 zero
    point and float32 maxq of a [out_features, in_features] float32 matrix, shaped
    [out_features, n_groups] (per channel with groups), else [out_features, 1].

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel.gptq import compute_quantization_parameters
        >>> s, z, _ = compute_quantization_parameters(np.float32([[-1, 1, 3, 4]]), bits=2,
        ...                                           per_channel=True, group_size=2)
        >>> s.tolist(), z.tolist()
        ([[0.6666666865348816, 0.3333333432674408]], [[2, 0]])
    """
    x = np.asarray(x, np.float32)
    if x.ndim != 2 or x.size == 0:
        raise ValueError(f"compute_quantization_parameters: expected a non-empty "
                         f"[out_features, in_features] matrix, received shape {x.shape}")
    out_features, in_features = x.shape
    n_groups = (in_features + group_size - 1) // group_size \
        if per_channel and group_size > 0 else 1
    if n_groups > 1:
        pad = (-in_features) % group_size
        if pad:
            x = np.pad(x, [(0, 0), (0, pad)])
        grouped = x.reshape(out_features, n_groups, group_size)
        min_values, max_values = grouped.min(axis=2), grouped.max(axis=2)
    else:
        rows = x.reshape(out_features, -1) if per_channel else x.reshape(1, -1)
        min_values, max_values = rows.min(axis=1), rows.max(axis=1)
    if symmetric:
        max_abs = np.maximum(np.abs(min_values), max_values)
        min_values = np.where(min_values < 0, -max_abs, min_values)
        max_values = max_abs
    same = min_values == max_values
    min_values = np.where(same, min_values - np.float32(1), min_values)
    max_values = np.where(same, max_values + np.float32(1), max_values)
    maxq = np.float32(2 ** bits - 1)
    scale = (max_values - min_values) * _reciprocal(maxq)
    scale = np.where(scale <= 0, np.float32(1e-8), scale).astype(np.float32)
    if symmetric:
        zero = np.full_like(scale, (maxq + 1) / 2)
    else:
        zero = np.round(-min_values / scale)
    if n_groups == 1:
        if per_channel:
            scale, zero = scale.reshape(-1, 1), zero.reshape(-1, 1)
        else:
            scale = np.tile(scale.reshape(1, 1), (out_features, 1))
            zero = np.tile(zero.reshape(1, 1), (out_features, 1))
    # XLA's float -> uint8 conversion saturates: the same here
    return scale, np.clip(zero, 0, 255).astype(np.uint8), maxq


def _reciprocal(value):
    """1 / value in float32: XLA (Keras's JAX backend) divides by a broadcast scalar as a
    product with its reciprocal, which the quantization's rounding ties see."""
    return np.float32(1) / np.float32(value)


def quantize_with_zero_point(x, scale, zero, maxq):
    """Keras's: round(x / scale + zero) clipped to [0, maxq], as floats.

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel.gptq import quantize_with_zero_point
        >>> quantize_with_zero_point(np.float32([[0.5], [9.0]]), np.float32([[0.25]]),
        ...                          np.uint8([[2]]), np.float32(15)).tolist()
        [[4.0], [15.0]]
    """
    safe = np.where(scale == 0, np.float32(1e-8), scale)
    q = np.round(x / safe + zero.astype(scale.dtype))
    return np.clip(q, 0, maxq)


def dequantize_with_zero_point(q, scale, zero):
    """Keras's: scale * (q - zero).

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel.gptq import dequantize_with_zero_point
        >>> dequantize_with_zero_point(np.float32([[4.0]]), np.float32([[0.25]]),
        ...                            np.uint8([[2]])).tolist()
        [[0.5]]
    """
    return scale * (q - zero.astype(scale.dtype))


def _stable_permutation(metric):
    n = metric.shape[0]
    jitter = np.arange(n, dtype=np.int32).astype(np.float32) / np.float32(n)
    return np.argsort(-(metric + jitter * np.float32(1e-12)), kind="stable")


def gptq_quantize_matrix(weights_transpose, inv_hessian, *, blocksize=128, group_size=-1,
                         activation_order=False, order_metric=None,
                         compute_scale_zero=None):
    """Keras's `gptq_quantize_matrix`: the GPTQ error-compensated quantization of a
    [out_features, in_features] float32 matrix with the inverse Hessian of its inputs.
    Returns (int32 values [out, in], float32 scales [out, groups], uint8 zero points
    [out, groups], float32 g_idx [in]: i / group_size, Keras's fractional group index).

    Example:
        >>> import functools, numpy as np
        >>> from paddle.highlevel.gptq import (compute_quantization_parameters,
        ...                                    gptq_quantize_matrix)
        >>> find = functools.partial(compute_quantization_parameters, bits=4,
        ...                          per_channel=True)
        >>> q, s, z, g = gptq_quantize_matrix(np.float32([[1.0, -1.0]]),
        ...                                   np.eye(2, dtype=np.float32),
        ...                                   compute_scale_zero=find)
        >>> q.tolist(), g.tolist()
        ([[14, 0]], [0.0, 0.5])
    """
    w = np.array(weights_transpose, np.float32)
    inv_hessian = np.asarray(inv_hessian, np.float32)
    in_features = w.shape[1]
    if activation_order:
        if order_metric is None:
            order_metric = np.float32(1) / (np.diagonal(inv_hessian) + np.float32(1e-12))
        else:
            order_metric = np.asarray(order_metric, np.float32)
            order_metric = np.where(np.isfinite(order_metric), order_metric,
                                    np.float32(0))
        perm = _stable_permutation(order_metric)
        inv_perm = np.argsort(perm, kind="stable")
        w = w[:, perm]
        inv_hessian = inv_hessian[perm][:, perm]
    weights_buffer = w
    quantized = np.zeros(w.shape, np.int32)
    scale_chunks, zero_chunks = [], []
    effective_group = in_features if group_size == -1 else group_size
    for block_start in range(0, in_features, blocksize):
        block_end = min(block_start + blocksize, in_features)
        block_weights = weights_buffer[:, block_start:block_end].copy()
        block_error = np.zeros_like(block_weights)
        block_inv = inv_hessian[block_start:block_end, block_start:block_end]
        cached_start, cached = -1, None
        for j in range(block_end - block_start):
            column_index = block_start + j
            column = block_weights[:, j]
            if effective_group != in_features:
                group_start = (column_index // effective_group) * effective_group
                if group_start != cached_start:
                    group_end = min(group_start + effective_group, in_features)
                    cached = compute_scale_zero(weights_buffer[:, group_start:group_end])
                    scale_chunks.append(cached[0])
                    zero_chunks.append(cached[1])
                    cached_start = group_start
            elif cached is None:
                cached = compute_scale_zero(weights_buffer)
                scale_chunks.append(cached[0])
                zero_chunks.append(cached[1])
                cached_start = 0
            scale, zero, maxq = cached
            q = quantize_with_zero_point(column[:, None], scale, zero, maxq)
            quantized[:, column_index] = q[:, 0].astype(np.int32)
            dequantized = dequantize_with_zero_point(q, scale, zero)[:, 0]
            err = (column - dequantized) * _reciprocal(block_inv[j, j])
            block_error[:, j] = err
            if j < block_end - block_start - 1:
                block_weights[:, j + 1:] -= err[:, None] * block_inv[j, j + 1:][None, :]
        if block_end < in_features:
            update = block_error @ inv_hessian[block_start:block_end, block_end:]
            weights_buffer = np.concatenate(
                [weights_buffer[:, :block_end], weights_buffer[:, block_end:] - update],
                axis=1)
    g_idx = np.arange(in_features, dtype=np.int32).astype(np.float32) * \
        _reciprocal(effective_group)
    if activation_order:
        g_idx = g_idx[inv_perm]
        quantized = quantized[:, inv_perm]
    if not scale_chunks:
        scale, zero, _ = compute_scale_zero(w)
    else:
        scale = np.concatenate(scale_chunks, axis=1)
        zero = np.concatenate(zero_chunks, axis=1)
    return quantized, scale, zero, g_idx



def _float_kernel(layer, algorithm):
    """The float kernel of the Dense `layer` that GPTQ or AWQ quantizes, as a float32
    array (the one kept aside while the layer holds its quantized weights, else its own)."""
    kernel = getattr(layer, "_gptq_float_kernel", None)
    if kernel is None:
        kernel = getattr(layer, "kernel", None)
    if kernel is None or len(kernel.shape) != 2:
        raise TypeError(f"Unsupported layer type for {algorithm}: {type(layer)} (paddle "
                        f"quantizes Dense layers with {algorithm})")
    return np.asarray(kernel.val(), np.float32)

class GPTQ:
    """Keras's `GPTQ` of one Dense layer: the running Hessian of its inputs
    (`update_hessian_with_batch`) and the quantization of its kernel
    (`quantize_and_correct_layer`), written into the layer's GPTQ weights.

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.highlevel.gptq import GPTQ
        >>> layer = pd.layers.Dense(2)
        >>> _ = layer(np.ones((1, 3), "float32"))
        >>> gptq = GPTQ(layer, pd.quantizers.GPTQConfig(None, None))
        >>> gptq.update_hessian_with_batch(np.eye(3, dtype="float32"))
        >>> np.diagonal(gptq.hessian).tolist()
        [0.6666666865348816, 0.6666666865348816, 0.6666666865348816]
    """

    def __init__(self, layer, config):
        self.layer = layer
        self.config = config
        self.kernel = _float_kernel(layer, "GPTQ")
        self.rows, self.columns = self.kernel.shape
        self.hessian = np.zeros((self.rows, self.rows), np.float32)
        self.num_samples = 0

    def find_params(self, x):
        c = self.config
        return compute_quantization_parameters(x, bits=c.weight_bits, symmetric=c.symmetric,
                                               per_channel=c.per_channel,
                                               group_size=c.group_size)

    def observe(self, input_batch):
        self.update_hessian_with_batch(input_batch)

    def quantize(self):
        self.quantize_and_correct_layer()

    def update_hessian_with_batch(self, input_batch):
        """Fold a batch of inputs (rank >= 2, features last) into the running Hessian
        2/N * sum x^T x."""
        x = np.asarray(input_batch)
        if x.ndim < 2:
            raise ValueError(f"Input tensor must have rank >= 2 (got rank {x.ndim}).")
        if x.size == 0:
            raise ValueError("Input tensor cannot be empty.")
        x = x.reshape(-1, x.shape[-1]).astype(np.float32)
        if x.shape[-1] != self.rows:
            raise ValueError(f"Hessian dimensions ({self.rows}) do not match input "
                             f"features ({x.shape[-1]}).")
        new, prev = x.shape[0], self.num_samples
        total = prev + new
        gram = x.T @ x
        gram = (gram + gram.T) / np.float32(2)
        if prev > 0:
            self.hessian = self.hessian * np.float32(prev / total)
        self.hessian = self.hessian + np.float32(2.0 / total) * gram
        self.num_samples = total

    def quantize_and_correct_layer(self, blocksize=128):
        """Quantize the kernel with error compensation and write the layer's weights."""
        hessian = self.hessian
        diagonal = np.diagonal(hessian).copy()
        dead = diagonal == 0
        diagonal = np.where(dead, np.float32(1), diagonal)
        matrix = hessian + np.diag(np.where(dead, np.float32(1), np.float32(0)))
        mean = np.cumsum(diagonal, dtype=np.float32)[-1] * _reciprocal(diagonal.shape[0])
        damping = np.float32(self.config.hessian_damping) * mean
        diagonal = diagonal + damping
        matrix = matrix - np.diag(np.diagonal(matrix)) + np.diag(diagonal)
        inverse = np.linalg.inv(matrix.astype(np.float32)).astype(np.float32)  # LAPACK
        quantized, scale, zero, g_idx = gptq_quantize_matrix(
            self.kernel.T, inverse, blocksize=blocksize, group_size=self.config.group_size,
            activation_order=self.config.activation_order,
            order_metric=np.diagonal(matrix), compute_scale_zero=self.find_params)
        quantized = quantized.astype(np.uint8)
        if self.config.weight_bits == 4:
            quantized = quantizers.pack_int4(quantized, axis=0, dtype="uint8")[0]
        self.layer._gptq_calibrated(quantized, scale, zero, g_idx)


def awq_search_optimal_scales(weights, activation_magnitudes, *, num_grid_points=20,
                              group_size=-1):
    """Keras's AWQ grid search: for ratio i / num_grid_points, the input rows scaled by
    x_max ** ratio (normalized by the geometric mean of their extremes), quantized to 4
    bits, unscaled, and the error weighted by x_max^2; the scales of the least error
    (the first of equal ones).

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel.gptq import awq_search_optimal_scales
        >>> awq_search_optimal_scales(np.float32([[1.0, -1.0]]), np.float32([1.0, 1.0]),
        ...                           num_grid_points=2).tolist()
        [1.0, 1.0]
    """
    weights = np.asarray(weights, np.float32)
    in_features = weights.shape[1]
    x_max = np.asarray(activation_magnitudes, np.float32)
    x_max = np.where(x_max < np.float32(1e-8), np.float32(1), x_max)
    best_loss, best_scales = None, np.ones((in_features,), np.float32)
    groups = None if group_size == -1 else np.arange(in_features) // group_size
    for i in range(num_grid_points + 1):
        ratio = i / num_grid_points
        scales = np.ones_like(x_max) if ratio == 0 else \
            np.power(x_max, np.float32(ratio)).astype(np.float32)
        scales = np.maximum(scales, np.float32(1e-4))
        mean = np.maximum(np.sqrt(scales.max() * scales.min()), np.float32(1e-8))
        scales = scales * _reciprocal(mean)
        scaled = weights * scales
        dequantized = _awq_round_trip(scaled, group_size, groups)[0]
        reconstructed = dequantized * (np.float32(1) / scales)
        loss = np.mean(np.square(weights - reconstructed) * np.square(x_max),
                       dtype=np.float32)
        if best_loss is None or loss < best_loss:
            best_loss, best_scales = loss, scales
    return best_scales


def _awq_round_trip(scaled, group_size, groups):
    """AWQ's 4-bit asymmetric quantization of `scaled` (per output channel, or in groups
    of input rows): (dequantized, values, scale, zero)."""
    scale, zero, maxq = compute_quantization_parameters(
        scaled, bits=4, symmetric=False, per_channel=True, group_size=group_size)
    if groups is None:  # [out, in] by [out, 1]: XLA's product with the reciprocal
        q = np.clip(np.round(scaled * (np.float32(1) / np.where(
            scale == 0, np.float32(1e-8), scale)) + zero.astype(np.float32)), 0, maxq)
        return dequantize_with_zero_point(q, scale, zero), q, scale, zero
    scale_map, zero_map = scale[:, groups], zero[:, groups]
    q = quantize_with_zero_point(scaled, scale_map, zero_map, maxq)
    return dequantize_with_zero_point(q, scale_map, zero_map), q, scale, zero


def awq_quantize_matrix(weights_transpose, activation_magnitudes, *, num_grid_points=20,
                        group_size=-1):
    """Keras's `awq_quantize_matrix`: (values [out, in], scales [out, groups], uint8 zero
    points, the input rows' AWQ scales [in], float32 g_idx [in]: i // group_size).

    Example:
        >>> import numpy as np
        >>> from paddle.highlevel.gptq import awq_quantize_matrix
        >>> q, s, z, a, g = awq_quantize_matrix(np.float32([[1.0, -1.0]]),
        ...                                     np.float32([1.0, 1.0]), num_grid_points=2)
        >>> q.astype(int).tolist(), z.tolist(), g.tolist()
        ([[14, 0]], [[7]], [0.0, 0.0])
    """
    weights = np.asarray(weights_transpose, np.float32)
    in_features = weights.shape[1]
    awq_scales = awq_search_optimal_scales(weights, activation_magnitudes,
                                           num_grid_points=num_grid_points,
                                           group_size=group_size)
    groups = None if group_size == -1 else np.arange(in_features) // group_size
    _, q, scale, zero = _awq_round_trip(weights * awq_scales, group_size, groups)
    g_idx = np.zeros((in_features,), np.float32) if groups is None else \
        groups.astype(np.float32)
    return q, scale, zero, awq_scales, g_idx


class AWQ:
    """Keras's `AWQ` of one Dense layer: the largest input magnitude of each input row
    over the calibration calls (`update_activation_magnitudes`), then the scale search
    and the 4-bit quantization of its kernel (`quantize_layer`), written into the layer's
    AWQ weights.

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.highlevel.gptq import AWQ
        >>> layer = pd.layers.Dense(2)
        >>> _ = layer(np.ones((1, 3), "float32"))
        >>> awq = AWQ(layer, pd.quantizers.AWQConfig(None, None))
        >>> awq.update_activation_magnitudes(np.float32([[1, -4, 2], [-3, 0, 1]]))
        >>> awq.activation_magnitudes.tolist()
        [3.0, 4.0, 2.0]
    """

    def __init__(self, layer, config):
        self.layer = layer
        self.config = config
        self.kernel = _float_kernel(layer, "AWQ")
        self.rows, self.columns = self.kernel.shape
        self.activation_magnitudes = np.zeros((self.rows,), np.float32)
        self.num_samples = 0

    def observe(self, input_batch):
        self.update_activation_magnitudes(input_batch)

    def quantize(self):
        self.quantize_layer()

    def update_activation_magnitudes(self, input_batch):
        """Fold a batch of inputs (features last) into the running maxima of |x|."""
        x = np.asarray(input_batch)
        if x.size == 0:
            raise ValueError("Input tensor cannot be empty.")
        x = x.reshape(-1, x.shape[-1]).astype(np.float32)
        self.activation_magnitudes = np.maximum(self.activation_magnitudes,
                                                np.abs(x).max(axis=0))
        self.num_samples += x.shape[0]

    def quantize_layer(self):
        """Search the scales, quantize the kernel, write the layer's weights."""
        q, scale, zero, awq_scales, g_idx = awq_quantize_matrix(
            self.kernel.T, self.activation_magnitudes,
            num_grid_points=self.config.num_grid_points, group_size=self.config.group_size)
        packed = quantizers.pack_int4(q.astype(np.uint8), axis=0, dtype="uint8")[0]
        self.layer._gptq_calibrated(packed, scale, zero, g_idx, awq_scales)


def get_dataloader(tokenizer, sequence_length, dataset, num_samples=128, *,
                   strategy="strided", seed=42, stride=None, eos_id=None):
    """Keras's calibration windows: (num_samples, 1, sequence_length) int32 token ids.

    Example:
        >>> from paddle.highlevel.gptq import get_dataloader
        >>> get_dataloader(None, 3, [[1, 2, 3]], num_samples=1).tolist()
        [[[1, 2, 3]]]
    """
    if not hasattr(dataset, "__iter__") or isinstance(dataset, (str, bytes)):
        raise TypeError("The `dataset` argument must be an iterable (e.g., a list of "
                        "strings, a generator, or a NumPy array). Got type: "
                        f"{type(dataset).__name__}. Please pass the loaded dataset directly.")
    items = list(dataset)
    if not items:
        raise ValueError("Provided dataset is empty.")
    pieces = []
    if isinstance(items[0], str):
        if not callable(getattr(tokenizer, "tokenize", None)):
            raise TypeError(f"GPTQ: the dataset holds strings, so the tokenizer must have a "
                            f"`tokenize(text)` method; received {tokenizer!r}")
        for i, text in enumerate(items):
            pieces.append(np.asarray(tokenizer.tokenize(text)).reshape(-1))
            if eos_id is not None and i < len(items) - 1:
                pieces.append(np.array([eos_id], np.int32))
    else:
        for item in items:
            tokens = np.asarray(item).reshape(-1)
            if tokens.dtype.kind not in "iu" and not (
                    tokens.dtype.kind == "f" and np.all(np.mod(tokens, 1) == 0)):
                raise TypeError(f"GPTQ: expected the dataset's items to be strings or token "
                                f"ids (integers), received an item of dtype {tokens.dtype}")
            pieces.append(tokens.astype(np.int32, copy=False))
    tokens = np.concatenate(pieces).astype(np.int32, copy=False)
    required = num_samples * sequence_length
    if tokens.size < required:
        tokens = np.tile(tokens, math.ceil(required / max(1, tokens.size)))
    max_start = tokens.size - sequence_length
    if max_start < 0:
        raise ValueError(f"Not enough tokens to form one sample of length {sequence_length} "
                         f"(have {tokens.size}).")
    if strategy == "random":
        starts = np.random.default_rng(seed).integers(0, max_start + 1, size=num_samples,
                                                      dtype=np.int64)
    elif strategy == "linspace":
        starts = np.linspace(0, max_start, num_samples, dtype=np.int64)
    elif strategy == "strided":
        if stride is None:
            stride = max(1, (max_start + 1) // num_samples)
        offset = abs(hash(("gptq-calib", seed))) % (max_start + 1) if max_start > 0 else 0
        starts = (offset + np.arange(num_samples, dtype=np.int64) * stride) % (max_start + 1)
    else:
        raise ValueError(f"Unknown strategy: {strategy}")
    windows = np.lib.stride_tricks.sliding_window_view(tokens, sequence_length)
    return windows[starts].astype(np.int32)[:, None, :]


def _dense_leaves(block, accepts):
    """The Dense leaves of `block` (itself included) that `accepts` takes, by path."""
    found = {}
    for layer in [block] + block._nested_layers():
        if layer._nested_layers() or not getattr(layer, "_gptq_supported", False):
            continue
        if accepts(layer):
            found[getattr(layer, "path", layer.name)] = layer
    return found


def _capture(layer, state):
    """Keras's `stream_hessians` / `stream_activations` hook: the layer's inputs folded
    into its GPTQ Hessian or AWQ activation magnitudes."""
    original = layer.call

    def hook(*args, **kwargs):
        inputs = args[0] if args else kwargs["inputs"]
        state.observe(np.asarray(inputs).reshape(-1, state.rows))
        return original(*args, **kwargs)
    return hook


def _first(outputs):
    return outputs[0]


def check_structure(structure):
    """Keras's checks of a quantization structure: a dict whose "sequential_blocks" is a
    non-empty list of layers (and "pre_block_layers" a list of layers)."""
    from_where = "the quantization structure"
    if not isinstance(structure, dict):
        raise ValueError("For 'gptq' mode, a valid quantization structure must be provided "
                         "either via `config.quantization_layer_structure` or by overriding "
                         "`model.get_quantization_layer_structure(mode)`. The structure "
                         "should be a dictionary with keys 'pre_block_layers' and "
                         f"'sequential_blocks'. Received: {structure!r}")
    if not structure.get("sequential_blocks"):
        raise ValueError("No sequential blocks found in the provided structure to quantize.")
    for key in ("pre_block_layers", "sequential_blocks"):
        layers = structure.get(key, [])
        if not isinstance(layers, (list, tuple)) or not all(callable(x) for x in layers):
            raise TypeError(f"{from_where}: expected {key!r} a list of layers, received "
                            f"{layers!r}")


def apply_layerwise(dataloader, config, structure, accepts):
    """Keras's `apply_gptq_layerwise` and `apply_awq_layerwise`: the blocks quantized one
    after the other on the calibration windows (see the module's docstring)."""
    kind = AWQ if isinstance(config, AWQConfig) else GPTQ
    check_structure(structure)
    pre_layers = list(structure.get("pre_block_layers", []))
    blocks = list(structure["sequential_blocks"])
    inputs = []
    for batch in dataloader:
        batch = np.asarray(batch, np.int32)
        for layer in pre_layers:
            batch = layer(batch)
        inputs.append(batch)
    num_samples = min(config.num_samples, len(inputs))
    for index, block in enumerate(blocks):
        leaves = _dense_leaves(block, accepts)
        if leaves:
            objects = {name: kind(layer, config) for name, layer in leaves.items()}
            try:
                for name, layer in leaves.items():
                    layer.call = _capture(layer, objects[name])
                for i in range(num_samples):
                    x = inputs[i]
                    block(x[None] if len(x.shape) == 2 else x)
            finally:
                for layer in leaves.values():
                    del layer.call
            for state in objects.values():
                state.quantize()
        if index < len(blocks) - 1:
            outputs = []
            for i in range(num_samples):
                x = inputs[i]
                outputs.append(_first(block(x[None] if len(x.shape) == 2 else x)))
            inputs = outputs


def quantize_model(config, structure, accepts):
    """Keras's `gptq_quantize` / `awq_quantize`: the checks, the calibration windows, the
    layerwise pass."""
    name = "GPTQ" if isinstance(config, GPTQConfig) else "AWQ"
    if not isinstance(config, (GPTQConfig, AWQConfig)):
        raise ValueError(f"GPTQ and AWQ quantization need a `GPTQConfig` or `AWQConfig`, "
                         f"received {config!r}")
    if config.dataset is None or config.tokenizer is None:
        raise ValueError(f"{name} quantization requires a dataset and a tokenizer. Please "
                         f"provide them in the `{name}Config`.")
    dataloader = get_dataloader(config.tokenizer, config.sequence_length, config.dataset,
                                num_samples=config.num_samples)
    apply_layerwise(dataloader[:config.num_samples], config, structure, accepts)
