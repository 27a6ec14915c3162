"""Embedding: integer ids -> rows of a learned table; ReversibleEmbedding also projects
back to the vocabulary (a product with the transposed table).

Example:
    >>> import paddle as pd
    >>> ids = pd.layers.Input(shape=(10,), dtype="int64")
    >>> pd.layers.Embedding(input_dim=1000, output_dim=16)(ids).shape
    (None, 10, 16)
"""
import numbers

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel import initializers
from paddle.lowlevel.ops.math import tanh
from paddle.lowlevel.graph import FLOATS
from paddle.lowlevel.ops.matmul import matmul
from paddle.lowlevel.ops.shape import reshape, transpose
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.nn import embedding
from paddle.highlevel import quantizers, regularizers
from paddle.highlevel.layers import quantization
from paddle.highlevel.quantization_config import (
    QuantizationConfig, block_size_for_layer, config_argument, serialize_config)
from paddle.lowlevel.graph import constant
from paddle.lowlevel.ops.math import not_equal
from paddle.highlevel.layers.base import Layer, check_flag, regularizer_config
from paddle.highlevel.layers.conv import check_positive


class Embedding(Layer):
    """Looks up a row of the table "embeddings" (input_dim, output_dim) for each id.

    Ids outside [0, input_dim) raise an IndexError when the model runs. The gradient adds
    into the rows that were looked up. Float ids (a default float32 `Input`) are cast to
    integers first, as Keras does.

    Args:
        input_dim: number of rows (the vocabulary size).
        output_dim: size of each row.
        embeddings_initializer: name or initializer object (default "uniform":
            Uniform(-0.05, 0.05), as Keras).
        embeddings_regularizer: a `pd.regularizers` name, object or callable for the table.
        embeddings_constraint: a `pd.constraints` name, object or callable, applied to the
            table after each optimizer update.
        mask_zero: id 0 is padding: the output carries a mask (ids != 0) that recurrent
            layers, losses and metrics honour (as Keras). input_dim must then count id 0.

    Example:
        >>> import numpy as np, paddle as pd
        >>> emb = pd.layers.Embedding(5, 2)
        >>> emb(np.array([[0, 4, 4]])).shape
        (1, 3, 2)
    """

    casts_integer_inputs = False  # ids are integers; float ids are cast the other way
    weight_constraints = {"embeddings_constraint": "embeddings"}

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 quantization_config=None, **kwargs):
        super().__init__(embeddings_constraint=embeddings_constraint, **kwargs)
        self.quantization_config = config_argument(quantization_config, type(self).__name__)
        self.mask_zero = check_flag(mask_zero, "mask_zero", "Embedding")
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.input_dim = check_positive(input_dim, "input_dim", "Embedding")
        self.output_dim = check_positive(output_dim, "output_dim", "Embedding")
        self.embeddings_initializer = initializers.get(embeddings_initializer)

    def build(self, input_shape):
        shape = (self.input_dim, self.output_dim)
        if self.quantization_mode:  # a quantized layer rebuilt (loading): its int8 table
            self.quantized_build(shape, self.quantization_mode, self.quantization_config)
            return
        self.embeddings = self.add_weight("embeddings", shape, self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer)

    def call(self, inputs, training=False):
        if inputs.dtype not in ("int64", "int32"):
            # Keras casts float ids (a default float32 Input feeding Embedding) to integers.
            inputs = cast(inputs, "int64")
        return embedding(inputs, self.embeddings)

    # ---- int8 and int4 (paddle/highlevel/layers/quantization.py) -----------------------

    def quantize(self, mode=None, type_check=True, config=None):
        """Quantize the table, as Keras's `Embedding.quantize`: to int8 with a float32 scale
        per row (one scale per id, along output_dim), or to int4 (two values a byte along
        output_dim) with a scale per row, or per row and group of `block_size` columns
        with a zero point.

        Example:
            >>> import numpy as np, paddle as pd
            >>> emb = pd.layers.Embedding(10, 4)
            >>> _ = emb(np.array([[1, 2]]))
            >>> emb.quantize("int8")
            >>> emb.embeddings.dtype, emb.embeddings_scale.shape
            ('int8', (10,))
            >>> emb = pd.layers.Embedding(10, 4)
            >>> _ = emb(np.array([[1, 2]]))
            >>> emb.quantize("int4")
            >>> emb.embeddings.shape, emb.embeddings_scale.shape, emb.g_idx.shape
            ((10, 2), (10, 1), (4,))
        """
        if type_check and type(self) is not Embedding:
            raise self._not_implemented_error(self.quantize)
        if mode not in ("int8", "int4"):  # Keras's Embedding has no float8 form
            raise self._quantization_mode_error(mode)
        self.quantization_config = config
        zero = None
        table = self.embeddings.val()
        block_size = block_size_for_layer(self, config) if mode == "int4" else None
        if mode == "int4" and block_size is not None and block_size != -1:
            # groups along output_dim: Keras quantizes the transposed table
            values, scale, zero = quantizers.abs_max_quantize_grouped_with_zero_point(
                np.transpose(table), block_size=block_size)
            values, scale, zero = (np.ascontiguousarray(np.transpose(a))
                                   for a in (values, scale, zero))
        else:
            default = quantizers.AbsMaxQuantizer(axis=-1, value_range=(-8, 7)) \
                if mode == "int4" else quantizers.AbsMaxQuantizer(axis=-1)
            quantizer = QuantizationConfig.weight_quantizer_or_default(config, default)
            values, scale = quantizer(table, to_numpy=True)
            scale = np.squeeze(scale, axis=-1)
        if mode == "int4":
            values = quantizers.pack_int4(values, axis=-1)[0]
        self._drop_weight(self.embeddings)
        self.quantized_build((self.input_dim, self.output_dim), mode, config)
        self._embeddings.set_value(values)
        self.embeddings_scale.set_value(scale)
        if zero is not None:
            self.embeddings_zero.set_value(zero)
        self._set_quantized_policy(mode, block_size)

    def quantized_build(self, embeddings_shape, mode, config=None):
        if mode == "int8":
            self._embeddings = self.embeddings = self._int8_weight("embeddings",
                                                                   embeddings_shape)
            # one scale per row: output_dim is reduced (Keras: input_dim is usually larger)
            self.embeddings_scale = self._scale_weight("embeddings_scale", (self.input_dim,))
        elif mode == "int4":
            self._int4_build(embeddings_shape, config)
        else:
            raise self._quantization_mode_error(mode)
        self._is_quantized = True

    def _int4_build(self, embeddings_shape, config):
        input_dim, output_dim = embeddings_shape
        self._embeddings = self.embeddings = self._int8_weight(
            "embeddings", (input_dim, (output_dim + 1) // 2))
        block_size = block_size_for_layer(self, config)
        self._int4_block_size = None if block_size == -1 else block_size
        if self._int4_block_size is None:
            self.embeddings_scale = self._scale_weight("embeddings_scale", (input_dim,))
            return
        shape = (input_dim, -(-output_dim // block_size))
        self.embeddings_scale = self._scale_weight("embeddings_scale", shape)
        self.embeddings_zero = self._int8_weight("embeddings_zero", shape)
        self.g_idx = self._group_index_weight("g_idx", output_dim, block_size)

    def _int8_call(self, inputs, training=None):
        # Keras's take of the int8 rows, cast and divided by each row's scale. Only cast
        # reads int8 here, so the table is read as floats first (a float32 copy of it in the
        # run's arena), then the rows are gathered: the same values.
        if inputs.dtype not in ("int64", "int32"):
            inputs = cast(inputs, "int64")
        table = cast(self._embeddings, self.compute_dtype)
        scale = embedding(inputs, reshape(self.embeddings_scale, (self.input_dim, 1)))
        return embedding(inputs, table) / scale

    def _int4_call(self, inputs, training=None):
        # Keras's: the rows of the unpacked table, divided by each row's scale, or with
        # groups, each row's scales and zero points spread over its columns by g_idx.
        if inputs.dtype not in ("int64", "int32"):
            inputs = cast(inputs, "int64")
        table = quantization.int4_values(self._embeddings, self.output_dim,
                                         self.compute_dtype)
        rows = embedding(inputs, table)
        if self._int4_block_size is None:
            return rows / embedding(inputs, reshape(self.embeddings_scale,
                                                    (self.input_dim, 1)))
        scale = embedding(inputs, self.embeddings_scale)
        zero = embedding(inputs, cast(self.embeddings_zero, scale.dtype))
        return quantization.dequantize_with_groups(rows, scale, zero, self.g_idx,
                                                   group_axis=-1)

    def _saved_weights(self):
        if not self.quantization_mode:
            return super()._saved_weights()
        return [w for w in (self._embeddings, self.embeddings_scale,
                            getattr(self, "embeddings_zero", None), getattr(self, "g_idx", None))
                if w is not None]

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return not_equal(inputs, constant(0, dtype=inputs.dtype))

    def get_config(self):
        config = {**super().get_config(), "input_dim": self.input_dim,
                  "output_dim": self.output_dim, "mask_zero": self.mask_zero,
                  "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
                  **regularizer_config(self, ("embeddings_regularizer",))}
        if self.quantization_config is not None:
            config["quantization_config"] = serialize_config(self.quantization_config)
        return config


class ReversibleEmbedding(Embedding):
    """An Embedding that can also project back to the vocabulary, as Keras's: called with
    `reverse=True` on (..., output_dim) values it gives (..., input_dim) logits, a product
    with the transposed table (tie_weights=True) or with a table of its own,
    "reverse_embeddings" (output_dim, input_dim).

    Args:
        input_dim, output_dim, embeddings_initializer, embeddings_regularizer,
            embeddings_constraint, mask_zero: as Embedding.
        tie_weights: share the table between both directions (default True).
        reverse_dtype: None (the layer's dtype) or "float32" / "float64" for the reverse
            product.
        logit_soft_cap: None, or c > 0: reverse logits become tanh(logits / c) * c.

    Example:
        >>> import numpy as np, paddle as pd
        >>> emb = pd.layers.ReversibleEmbedding(100, 8)
        >>> hidden = emb(np.array([[1, 2, 3]]))
        >>> hidden.shape, emb(hidden, reverse=True).shape
        ((1, 3, 8), (1, 3, 100))
    """

    def __init__(self, input_dim, output_dim, tie_weights=True,
                 embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero=False, reverse_dtype=None,
                 logit_soft_cap=None, **kwargs):
        super().__init__(input_dim, output_dim, embeddings_initializer=embeddings_initializer,
                         embeddings_regularizer=embeddings_regularizer,
                         embeddings_constraint=embeddings_constraint, mask_zero=mask_zero,
                         **kwargs)
        cls = type(self).__name__
        self.tie_weights = check_flag(tie_weights, "tie_weights", cls)
        if reverse_dtype not in (None, "float32", "float64"):
            raise ValueError(f"{cls}: expected reverse_dtype None, 'float32' or 'float64', "
                             f"received {reverse_dtype!r}")
        self.reverse_dtype = reverse_dtype
        if logit_soft_cap is not None and (not isinstance(logit_soft_cap, numbers.Real) or
                                           isinstance(logit_soft_cap, bool) or
                                           logit_soft_cap <= 0):
            raise ValueError(f"{cls}: expected logit_soft_cap None or a number > 0, "
                             f"received {logit_soft_cap!r}")
        self.logit_soft_cap = logit_soft_cap
        self._reversed = False

    def build(self, input_shape):
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(
                "reverse_embeddings", (self.output_dim, self.input_dim),
                self.embeddings_initializer)

    def call(self, inputs, training=False, reverse=False):
        # compute_mask, which runs next, needs to know the direction (no mask in reverse).
        self._reversed = bool(reverse)
        if not reverse:
            return super().call(inputs, training)
        if inputs.dtype not in FLOATS or inputs.ndim < 1 or \
                inputs.shape[-1] not in (None, self.output_dim):
            raise ShapeError(at_user(f"{self.name}: reverse=True expects float values whose "
                                     f"last axis is output_dim={self.output_dim}, received "
                                     f"{inputs.dtype} of shape {inputs.shape}"))
        kernel = transpose(self.embeddings, (1, 0)) if self.tie_weights else \
            self.reverse_embeddings
        if self.reverse_dtype is not None:
            inputs, kernel = cast(inputs, self.reverse_dtype), cast(kernel, self.reverse_dtype)
        elif inputs.dtype != kernel.dtype:
            inputs = cast(inputs, kernel.dtype)
        logits = matmul(inputs, kernel)
        if self.logit_soft_cap is not None:
            cap = float(self.logit_soft_cap)
            logits = tanh(logits / cap) * cap
        return logits

    def compute_mask(self, inputs, mask=None):
        return None if self._reversed else super().compute_mask(inputs, mask)

    def get_config(self):
        return {**super().get_config(), "tie_weights": self.tie_weights,
                "reverse_dtype": self.reverse_dtype, "logit_soft_cap": self.logit_soft_cap}
