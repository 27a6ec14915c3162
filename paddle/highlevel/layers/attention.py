"""MultiHeadAttention, GroupedQueryAttention, Attention and AdditiveAttention, as Keras's (same arguments, weight
shapes and results).

Built from matmul, softmax, transpose, reshape and a sum. With known sequence lengths (the
usual case) each projection is one product of all the rows, (N * T, dim) @ (dim, heads *
key_dim), split into heads by a reshape and a transpose, and the output projection is one
product of the heads side by side, (N * T, heads * value_dim) @ (heads * value_dim, out):
the weight gradients are then single products over all the rows and the input gradients
need no sum over heads. With a sequence length of None (no reshape can split its axis)
the projections multiply the sequence, given a head axis, by each head's kernel at once:
(N, 1, T, dim) @ (heads, dim, key_dim) broadcasts to (N, heads, T, key_dim), and the heads'
outputs are summed. The two forms compute the same values up to rounding.

Example:
    >>> import paddle as pd
    >>> q, v = pd.layers.Input(shape=(5, 16)), pd.layers.Input(shape=(7, 16))
    >>> pd.layers.MultiHeadAttention(num_heads=2, key_dim=8)(q, v).shape
    (None, 5, 16)
"""
import math

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.graph import constant
from paddle.lowlevel.ops.activations import softmax
from paddle.lowlevel.ops.math import cast, tanh
from paddle.lowlevel.random_state import next_seed
from paddle.random import SeedGenerator, keep_mask
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.reduce import sum as reduce_sum
from paddle.lowlevel.ops.shape import expand_dims, reshape, transpose
from paddle.highlevel.layers.base import Layer, check_flag
from paddle.highlevel.layers.conv import check_positive
from paddle.highlevel.layers.regularization import Dropout

# What Keras adds to the scores of masked positions (float32): exp() of it is exactly 0.
LARGE_NEGATIVE = -1e9


class MultiHeadAttention(Layer):
    """Scaled dot-product attention over several heads, with learned projections.

    Called as `mha(query, value, key=None, attention_mask=None, training=False,
    return_attention_scores=False, use_causal_mask=False)` on (batch, T, dim) queries and
    (batch, S, dim_v) values (the key defaults to the value). Weights in Keras order:
    query/kernel (dim, heads, key_dim), query/bias (heads, key_dim), key/..., value/kernel
    (dim_v, heads, value_dim), value/bias, attention_output/kernel (heads, value_dim, out),
    attention_output/bias (out,).

    Args:
        num_heads: number of attention heads.
        key_dim: size of each head for the query and key.
        value_dim: size of each head for the value (default key_dim).
        dropout: dropout rate on the attention probabilities (training only).
        use_bias: whether the projections have biases.
        output_shape: size of the output's last axis (default: the query's).
        kernel_initializer, bias_initializer: names or initializer objects.

    Example:
        >>> import numpy as np, paddle as pd
        >>> mha = pd.layers.MultiHeadAttention(num_heads=2, key_dim=4)
        >>> x = np.ones((1, 3, 6), np.float32)
        >>> out, scores = mha(x, x, return_attention_scores=True)
        >>> out.shape, scores.shape
        ((1, 3, 6), (1, 2, 3, 3))
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", **kwargs):
        super().__init__(**kwargs)
        self.num_heads = check_positive(num_heads, "num_heads", "MultiHeadAttention")
        self.key_dim = check_positive(key_dim, "key_dim", "MultiHeadAttention")
        self.value_dim = check_positive(value_dim, "value_dim", "MultiHeadAttention") \
            if value_dim is not None else key_dim
        if not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ValueError(f"MultiHeadAttention: expected a dropout rate in [0, 1), "
                             f"received {dropout!r}")
        self.dropout = float(dropout)
        # Keras's MultiHeadAttention owns a Dropout layer for the attention probabilities
        # (made here, so it takes the next "dropout_N" name just as in Keras, and the
        # layers made after it are named as Keras names them).
        self._dropout_layer = Dropout(self.dropout)
        self.use_bias = check_flag(use_bias, "use_bias", "MultiHeadAttention")
        if isinstance(output_shape, (tuple, list)) and len(output_shape) == 1:
            output_shape = output_shape[0]
        self.output_shape = check_positive(output_shape, "output_shape (an int)",
                                           "MultiHeadAttention") \
            if output_shape is not None else None
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    def __call__(self, query, value=None, key=None, attention_mask=None, training=None,
                 return_attention_scores=False, use_causal_mask=False):
        # Everything that is a tensor travels as the list input [query, value, key(, mask)]:
        # the base records inputs (not keyword arguments) for functional-model replay, and
        # replays the list through this same method.
        if value is None and isinstance(query, (list, tuple)):
            packed = list(query)
            if len(packed) == 2:
                packed.append(packed[1])
        else:
            if value is None:
                raise TypeError(at_user(f"{self.name}: expected a query and a value, "
                                        "received a query only"))
            packed = [query, value, value if key is None else key]
            if attention_mask is not None:
                packed.append(attention_mask)
        if len(packed) not in (3, 4):
            raise ValueError(at_user(f"{self.name}: expected [query, value, key, mask] inputs, "
                                     f"received {len(packed)}"))
        return super().__call__(packed, training=training,
                                return_attention_scores=bool(return_attention_scores),
                                use_causal_mask=bool(use_causal_mask))

    def build(self, input_shape):
        query, value, key = input_shape[:3]
        self.check_shapes(input_shape)
        heads, kd, vd = self.num_heads, self.key_dim, self.value_dim
        out = self.output_shape or query[-1]
        weights = [("query", (query[-1], heads, kd)), ("key", (key[-1], heads, kd)),
                   ("value", (value[-1], heads, vd))]
        self.projections = {}
        for name, shape in weights:
            kernel = self.add_weight(f"{name}/kernel", shape, self.kernel_initializer)
            bias = self.add_weight(f"{name}/bias", shape[1:], self.bias_initializer) \
                if self.use_bias else None
            self.projections[name] = (kernel, bias)
        self.output_kernel = self.add_weight("attention_output/kernel", (heads, vd, out),
                                             self.kernel_initializer)
        self.output_bias = self.add_weight("attention_output/bias", (out,),
                                           self.bias_initializer) if self.use_bias else None

    def check_shapes(self, shapes):
        """Rank-3 query/value/key with known features, matching the weights once built; key
        and value of one length; a mask of shape (batch, T, S)."""
        query, value, key = shapes[:3]
        built = getattr(self, "projections", None)
        for label, shape in (("query", query), ("value", value), ("key", key)):
            want = built[label][0].shape[0] if built else None
            if len(shape) != 3 or shape[-1] is None or (want and shape[-1] != want):
                raise ShapeError(at_user(f"{self.name}: expected the {label} of shape (batch, "
                                         f"length, {want or 'features'}), received {shape}"))
        if None not in (key[1], value[1]) and key[1] != value[1]:
            raise ShapeError(at_user(f"{self.name}: the key and the value must have one "
                                     f"length, received {key} and {value}"))
        if len(shapes) == 4:
            mask = shapes[3]
            if len(mask) != 3 or any(a is not None and b is not None and a != b
                                     for a, b in zip(mask[1:], (query[1], value[1]))):
                raise ShapeError(at_user(f"{self.name}: expected an attention_mask of shape "
                                         f"(batch, {query[1]}, {value[1]}), received {mask}"))

    def project(self, x, name, scale=None):
        """(N, L, dim) -> (N, heads, L, size) through a (dim, heads, size) kernel, times
        `scale` if given (applied to the kernel and the bias, not to the result: the same
        values up to rounding, on a few weights instead of every activation)."""
        kernel, bias = self.projections[name]
        if scale is not None:
            kernel = kernel * scale
            bias = bias * scale if bias is not None else None
        dim, heads, size = kernel.shape
        length = x.shape[1]
        if length is None:  # no reshape can split the rows: a head axis broadcasts
            y = matmul(expand_dims(x, 1), transpose(kernel, (1, 0, 2)))
            if bias is not None:
                y = y + reshape(bias, (heads, 1, size))
            return y
        y = matmul(x, reshape(kernel, (dim, heads * size)))           # (N, L, heads * size)
        if bias is not None:
            y = y + reshape(bias, (heads * size,))
        return transpose(reshape(y, (-1, length, heads, size)), (0, 2, 1, 3))

    def call(self, inputs, training=False, return_attention_scores=False,
             use_causal_mask=False):
        self.check_shapes([x.shape for x in inputs])
        query, value, key = inputs[:3]
        q = self.project(query, "query", 1.0 / math.sqrt(self.key_dim))
        k, v = self.project(key, "key"), self.project(value, "value")
        return self.attend(q, k, v, inputs, return_attention_scores, use_causal_mask)

    def attend(self, q, k, v, inputs, return_attention_scores, use_causal_mask):
        """The attention of projected (N, heads, T, key_dim) queries on (N, heads, S, ...)
        keys and values, through the output projection."""
        query, value = inputs[0], inputs[1]
        scores = matmul(q, k, transpose_b=True)                       # (N, heads, T, S)
        mask = self.mask(inputs[3] if len(inputs) == 4 else None, use_causal_mask,
                         query.shape[1], value.shape[1])
        if mask is not None:
            scores = scores + (1.0 - mask) * LARGE_NEGATIVE
        probs = softmax(scores, axis=-1)
        attended = self._dropout_layer(probs)  # rate 0 returns probs itself
        heads = matmul(attended, v)                                   # (N, heads, T, vd)
        out = self.merge_heads(heads, query.shape[1])
        if self.output_bias is not None:
            out = out + self.output_bias
        return [out, probs] if return_attention_scores else out

    def merge_heads(self, heads, length):
        """The einsum "nhtv,hvo->nto": (N, heads, T, vd) through the output kernel."""
        count, vd, out = self.output_kernel.shape
        if length is None:  # each head through its slice of the kernel, summed over heads
            return reduce_sum(matmul(heads, self.output_kernel), axis=1)
        rows = reshape(transpose(heads, (0, 2, 1, 3)), (-1, length, count * vd))
        return matmul(rows, reshape(self.output_kernel, (count * vd, out)))

    def mask(self, attention_mask, causal, t, s):
        """1 where a query may attend a key, as a float (N or 1, 1, T, S) Variable, or None."""
        mask = None
        if attention_mask is not None:
            mask = attention_mask if attention_mask.dtype == self.dtype else \
                cast(attention_mask, self.dtype)
            mask = expand_dims(mask, 1)
        if causal:
            if t is None or s is None:
                raise ShapeError(at_user(f"{self.name}: use_causal_mask needs known query and "
                                         f"value lengths, received {t} and {s}"))
            lower = constant(np.tril(np.ones((1, 1, t, s))), dtype=self.dtype)
            mask = lower if mask is None else mask * lower
        return mask

    def get_config(self):
        return {**super().get_config(), "num_heads": self.num_heads, "key_dim": self.key_dim,
                "value_dim": self.value_dim, "dropout": self.dropout,
                "use_bias": self.use_bias, "output_shape": self.output_shape,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer)}



class Attention(Layer):
    """Dot-product attention (Luong style), Keras's `Attention`: called on `[query, value]`
    or `[query, value, key]` of shapes (batch, Tq, dim), (batch, Tv, dim_v),
    (batch, Tv, dim), it returns `softmax(scores) @ value`, (batch, Tq, dim_v).

    scores are `query @ key^T` ("dot", times a learned `scale` with use_scale=True) or
    `concat_score_weight * sum(tanh(scale * (query + key)))` ("concat"). Call arguments:
    `mask=[query_mask, value_mask]` (boolean (batch, Tq) / (batch, Tv); taken from the
    inputs' masks when not given: Embedding(mask_zero=True)), `return_attention_scores`
    (also return the (batch, Tq, Tv) probabilities), `use_causal_mask` (position i
    attends positions <= i only; needs known lengths), `training`.

    Args:
        use_scale: learn a scalar scale of the scores.
        score_mode: "dot" or "concat".
        dropout: dropout rate on the attention probabilities (training only).
        seed: an int for a layer-own sequence of dropout masks, or None.

    Example:
        >>> import numpy as np, paddle as pd
        >>> q = np.array([[[1.0, 0.0]]], np.float32)
        >>> v = np.array([[[1.0, 0.0], [0.0, 1.0]]], np.float32)
        >>> out, scores = pd.layers.Attention()([q, v], return_attention_scores=True)
        >>> [round(float(s), 4) for s in scores[0, 0]]
        [0.7311, 0.2689]
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        where = type(self).__name__
        self.use_scale = check_flag(use_scale, "use_scale", where)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"{where}: expected score_mode 'dot' or 'concat', received "
                             f"{score_mode!r}")
        self.score_mode = score_mode
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or \
                not 0 <= dropout < 1:
            raise ValueError(f"{where}: expected a dropout rate in [0, 1), received "
                             f"{dropout!r}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or
                                 seed < 0):
            raise ValueError(f"{where}: expected an integer seed >= 0 or None, received "
                             f"{seed!r}")
        self.dropout, self.seed = float(dropout), seed
        self._seed_fn = SeedGenerator(seed).next if seed is not None else next_seed

    def _inputs(self, shapes):
        """[query, value(, key)] shapes: rank 3, features known, key of value's length."""
        if not isinstance(shapes, list) or len(shapes) not in (2, 3):
            raise ValueError(at_user(f"{self.name}: expected the inputs as a list [query, "
                                     f"value] or [query, value, key], received {shapes!r}"))
        query, value = shapes[:2]
        key = shapes[2] if len(shapes) == 3 else value
        for label, shape in (("query", query), ("value", value), ("key", key)):
            if len(shape) != 3 or shape[-1] is None:
                raise ShapeError(at_user(f"{self.name}: expected the {label} of shape (batch, "
                                         f"length, features), received {shape}"))
        if query[-1] != key[-1]:
            raise ShapeError(at_user(f"{self.name}: expected the query and the key to have "
                                     f"the same features, received {query} and {key}"))
        if None not in (key[1], value[1]) and key[1] != value[1]:
            raise ShapeError(at_user(f"{self.name}: the key and the value must have one "
                                     f"length, received {key} and {value}"))
        return query, value, key

    def build(self, input_shape):
        self._inputs(input_shape)
        self.scale = self.add_weight("scale", (), "ones") if self.use_scale else None
        self.concat_score_weight = self.add_weight("concat_score_weight", (), "ones") \
            if self.score_mode == "concat" else None

    def scores(self, query, key):
        if self.score_mode == "dot":
            scores = matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        pairs = expand_dims(query, -2) + expand_dims(key, -3)   # (N, Tq, Tv, dim)
        if self.scale is not None:
            pairs = pairs * self.scale
        return self.concat_score_weight * reduce_sum(tanh(pairs), axis=-1)

    def call(self, inputs, mask=None, training=False, return_attention_scores=False,
             use_causal_mask=False):
        self._inputs([x.shape for x in inputs])
        query, value = inputs[:2]
        key = inputs[2] if len(inputs) == 3 else value
        masks = list(mask) if isinstance(mask, (list, tuple)) else [mask, None]
        q_mask, v_mask = (masks + [None, None])[:2]
        scores = self.scores(query, key)
        keep = None
        if v_mask is not None:
            keep = expand_dims(cast(v_mask, scores.dtype), -2)          # (N, 1, Tv)
        if use_causal_mask:
            t, s = query.shape[1], key.shape[1]
            if t is None or s is None:
                raise ShapeError(at_user(f"{self.name}: use_causal_mask needs known query and "
                                         f"key lengths, received {t} and {s}"))
            lower = constant(np.tril(np.ones((1, t, s))), dtype=scores.dtype)
            keep = lower if keep is None else keep * lower
        if keep is not None:  # Keras subtracts 1e9 from the scores of masked positions
            scores = scores - (1.0 - keep) * 1e9
        probs = softmax(scores, axis=-1)
        weights = probs
        if self.dropout > 0:
            weights = probs * keep_mask(probs, self.dropout, (None,) * 3, self._seed_fn,
                                        training_only=True)
        out = matmul(weights, value)
        if q_mask is not None:
            out = out * expand_dims(cast(q_mask, out.dtype), -1)
        return [out, probs] if return_attention_scores else out

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            return mask[0]
        return None

    def get_config(self):
        return {**super().get_config(), "use_scale": self.use_scale,
                "score_mode": self.score_mode, "dropout": self.dropout, "seed": self.seed}


class AdditiveAttention(Attention):
    """Additive attention (Bahdanau style), Keras's `AdditiveAttention`: scores are
    `sum(scale * tanh(query + key))` over the features, with a learned `scale` per feature
    (use_scale=True, the default); otherwise as `Attention` (same call arguments).

    Args:
        use_scale: learn the per-feature scale (glorot_uniform initialized, as Keras).
        dropout: dropout rate on the attention probabilities (training only).
        seed: an int for a layer-own sequence of dropout masks, or None.

    Example:
        >>> import paddle as pd
        >>> q, v = pd.layers.Input(shape=(4, 8)), pd.layers.Input(shape=(6, 8))
        >>> pd.layers.AdditiveAttention()([q, v]).shape
        (None, 4, 8)
    """

    def __init__(self, use_scale=True, dropout=0.0, seed=None, **kwargs):
        kwargs.pop("score_mode", None)
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)

    def build(self, input_shape):
        query = self._inputs(input_shape)[0]
        self.scale = self.add_weight("scale", (query[-1],), "glorot_uniform") \
            if self.use_scale else None

    def scores(self, query, key):
        pairs = tanh(expand_dims(query, -2) + expand_dims(key, -3))   # (N, Tq, Tv, dim)
        return reduce_sum(pairs * self.scale if self.scale is not None else pairs, axis=-1)

    def get_config(self):
        config = super().get_config()
        del config["score_mode"]
        return config


class GroupedQueryAttention(MultiHeadAttention):
    """Grouped-query attention, as Keras's (exported as `pd.layers.GroupQueryAttention`,
    Keras's public name; the class keeps Keras's own name, which configs and default layer
    names use): `num_query_heads` query heads share
    `num_key_value_heads` key/value heads (each key/value head serves
    `num_query_heads // num_key_value_heads` consecutive query heads).

    Called as `gqa(query, value, key=None, attention_mask=None, training=None,
    return_attention_scores=False, use_causal_mask=False)`; the output has the query's
    feature size. Weights in Keras's order and shapes: query/kernel (dim, query heads,
    head_dim), query/bias, key/kernel (dim, kv heads, head_dim), key/bias, value/...,
    attention_output/kernel (query heads, head_dim, dim), attention_output/bias. Built from
    the same ops as MultiHeadAttention; the key/value heads are repeated by a product with
    a constant 0/1 matrix (exact).

    Args:
        head_dim: size of each head.
        num_query_heads: number of query heads.
        num_key_value_heads: number of key/value heads; divides num_query_heads.
        dropout: dropout rate on the attention probabilities (training only).
        use_bias: whether the projections have biases.
        flash_attention: None or False (paddle has no flash-attention kernel; True raises).
        kernel_initializer, bias_initializer: names or initializer objects.

    Example:
        >>> import numpy as np, paddle as pd
        >>> gqa = pd.layers.GroupQueryAttention(head_dim=4, num_query_heads=4,
        ...                                     num_key_value_heads=2)
        >>> x = np.ones((1, 3, 6), np.float32)
        >>> out, scores = gqa(x, x, return_attention_scores=True)
        >>> out.shape, scores.shape, gqa.projections["key"][0].shape
        ((1, 3, 6), (1, 4, 3, 3), (6, 2, 4))
    """

    def __init__(self, head_dim, num_query_heads, num_key_value_heads, dropout=0.0,
                 use_bias=True, flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", **kwargs):
        where = "GroupedQueryAttention"
        check_positive(num_key_value_heads, "num_key_value_heads", where)
        check_positive(num_query_heads, "num_query_heads", where)
        if num_query_heads % num_key_value_heads:
            raise ValueError(f"{where}: num_query_heads must be a multiple of "
                             f"num_key_value_heads, received {num_query_heads} and "
                             f"{num_key_value_heads}")
        if flash_attention:
            raise ValueError(f"{where}: paddle has no flash-attention kernel; expected "
                             f"flash_attention None or False, received {flash_attention!r}")
        super().__init__(num_heads=num_query_heads, key_dim=head_dim, value_dim=head_dim,
                         dropout=dropout, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer, **kwargs)
        self.num_key_value_heads = num_key_value_heads
        self.flash_attention = flash_attention

    def build(self, input_shape):
        query, value, key = input_shape[:3]
        self.check_shapes(input_shape)
        heads, kv, dim = self.num_heads, self.num_key_value_heads, self.key_dim
        weights = [("query", (query[-1], heads, dim)), ("key", (key[-1], kv, dim)),
                   ("value", (value[-1], kv, dim))]
        self.projections = {}
        for name, shape in weights:
            kernel = self.add_weight(f"{name}/kernel", shape, self.kernel_initializer)
            bias = self.add_weight(f"{name}/bias", shape[1:], self.bias_initializer) \
                if self.use_bias else None
            self.projections[name] = (kernel, bias)
        self.output_kernel = self.add_weight("attention_output/kernel", (heads, dim, query[-1]),
                                             self.kernel_initializer)
        self.output_bias = self.add_weight("attention_output/bias", (query[-1],),
                                           self.bias_initializer) if self.use_bias else None

    def repeat_heads(self, x):
        """(N, kv heads, S, d) -> (N, query heads, S, d), each kv head repeated in place."""
        repeats = self.num_heads // self.num_key_value_heads
        if repeats == 1:
            return x
        select = constant(np.repeat(np.eye(self.num_key_value_heads), repeats, axis=1),
                          dtype=x.dtype)                               # (kv, heads)
        moved = matmul(transpose(x, (0, 2, 3, 1)), select)            # (N, S, d, heads)
        return transpose(moved, (0, 3, 1, 2))

    def call(self, inputs, training=False, return_attention_scores=False,
             use_causal_mask=False):
        self.check_shapes([x.shape for x in inputs])
        query, value, key = inputs[:3]
        q = self.project(query, "query", 1.0 / math.sqrt(self.key_dim))
        k = self.repeat_heads(self.project(key, "key"))
        v = self.repeat_heads(self.project(value, "value"))
        return self.attend(q, k, v, inputs, return_attention_scores, use_causal_mask)

    def get_config(self):
        config = super().get_config()
        for key in ("num_heads", "key_dim", "value_dim", "output_shape"):
            config.pop(key)
        return {**config, "head_dim": self.key_dim, "num_query_heads": self.num_heads,
                "num_key_value_heads": self.num_key_value_heads,
                "flash_attention": self.flash_attention}
