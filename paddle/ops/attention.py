"""`pd.ops.nn.dot_product_attention`: Keras's attention over (batch, time, heads, depth),
with grouped-query heads, bias, masks and causal masking, composed from matmul and softmax.

Example:
    >>> import numpy as np, paddle as pd
    >>> q = np.zeros((1, 1, 2, 4), np.float32)
    >>> pd.ops.nn.dot_product_attention(q, q, q + 1.0).shape
    (1, 1, 2, 4)
"""
import math

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import as_variable, constant
from paddle.lowlevel.ops import activations as _act
from paddle.lowlevel.ops.math import abs, cast, where
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.shape import concat, expand_dims, reshape, transpose
from paddle.lowlevel.shapes import located
from paddle.ops.promotion import float_operands as _float_operands
from paddle.ops.promotion import number as _number


def dot_product_attention(query, key, value, bias=None, mask=None, scale=None,
                          is_causal=False, flash_attention=None, attn_logits_soft_cap=None):
    """softmax(query . key * scale + bias, masked) . value over 4-D inputs laid out as
    (batch, time, heads, depth), as Keras's `keras.ops.dot_product_attention`.

    Args:
        query: (B, T, N, H). key: (B, S, K, H) and value: (B, S, K, Hv), where K divides N
            (grouped-query attention when K < N).
        bias: broadcastable to (B, N, T, S), added to the logits.
        mask: bool, broadcastable to (B, N, T, S): False hides a key from a query.
        scale: multiplies the logits (default 1 / sqrt(H)).
        is_causal: hide the keys after each query (query t sees keys s <= t).
        flash_attention: None or False (True asks for a fused GPU kernel paddle lacks).
        attn_logits_soft_cap: if set, logits become logits / (1 + |logits| / cap), the
            formula Keras documents (Keras's JAX CPU path ignores it).

    Returns:
        (B, T, N, Hv).

    Example:
        >>> import numpy as np, paddle as pd
        >>> q = np.zeros((1, 2, 1, 4), np.float32)
        >>> v = np.arange(8, dtype=np.float32).reshape(1, 2, 1, 4)
        >>> pd.ops.nn.dot_product_attention(q, q, v).numpy()[0, :, 0].tolist()
        [[2.0, 3.0, 4.0, 5.0], [2.0, 3.0, 4.0, 5.0]]
    """
    if flash_attention:
        raise ValueError(at_user("dot_product_attention: flash_attention=True needs a fused "
                                 "attention kernel, which paddle does not have: pass None or "
                                 "False"))
    q, k, v = _float_operands("dot_product_attention", query, key, value)
    for label, t in (("query", q), ("key", k), ("value", v)):
        if t.ndim != 4:
            with located():
                raise ShapeError(f"dot_product_attention: expected 4-D query, key and value "
                                 f"(batch, time, heads, depth), received {label}.shape="
                                 f"{t.shape}")
    n, kh = q.shape[2], k.shape[2]
    if None in (n, kh) or n % kh or k.shape[2] != v.shape[2] or q.shape[3] != k.shape[3]:
        with located():
            raise ShapeError(f"dot_product_attention: expected query heads divisible by key "
                             f"heads, equal key and value heads and equal query and key "
                             f"depths, received query.shape={q.shape}, key.shape={k.shape}, "
                             f"value.shape={v.shape}")
    if scale is None:
        if q.shape[3] is None:
            with located():
                raise ShapeError(f"dot_product_attention: expected a known depth to derive "
                                 f"the scale, received query.shape={q.shape}")
        scale = 1.0 / math.sqrt(q.shape[3])
    scale = _number(scale, "scale", "dot_product_attention")
    groups = n // kh
    if groups > 1:  # each key head serves `groups` query heads: repeat it
        k = _repeat_heads(k, groups)
        v = _repeat_heads(v, groups)
    logits = matmul(transpose(q, (0, 2, 1, 3)), transpose(k, (0, 2, 3, 1))) * scale
    if attn_logits_soft_cap is not None:
        cap = _number(attn_logits_soft_cap, "attn_logits_soft_cap", "dot_product_attention")
        logits = logits / (abs(logits) * (1.0 / cap) + 1.0)
    if bias is not None:
        (b,) = _float_operands("dot_product_attention", bias)
        logits = logits + cast(b, logits.dtype)
    keep = None
    if mask is not None:
        keep = as_variable(mask, where="dot_product_attention")
        keep = keep if keep.dtype == "bool" else cast(keep, "bool")
    if is_causal:
        t, s = q.shape[1], k.shape[1]
        if t is None or s is None:
            with located():
                raise ShapeError(f"dot_product_attention: is_causal needs known query and key "
                                 f"lengths, received query.shape={q.shape}, key.shape={k.shape}")
        causal = constant(np.tril(np.ones((t, s), bool)))
        keep = causal if keep is None else where(keep, causal, False)
    if keep is not None:
        logits = where(keep, logits, -0.7 * float(np.finfo(logits.dtype).max))
    probs = _act.softmax(logits, axis=-1)
    return transpose(matmul(probs, transpose(v, (0, 2, 1, 3))), (0, 2, 1, 3))


def _repeat_heads(t, groups):
    """(B, S, K, H) -> (B, S, K * groups, H), each head repeated `groups` times in a row."""
    b, s, kh, h = t.shape
    if b is None and s is None:
        with located():
            raise ShapeError(f"dot_product_attention: grouped heads need a known batch size or "
                             f"key length, received key.shape={t.shape}")
    stacked = concat([expand_dims(t, 3)] * groups, axis=3)
    return reshape(stacked, [b, s, kh * groups, h])
