"""Embedding: integer ids -> rows of a learned table.

Example:
    >>> import paddle as pd
    >>> ids = pd.layers.Input(shape=(10,), dtype="int64")
    >>> pd.layers.Embedding(input_dim=1000, output_dim=16)(ids).shape
    (None, 10, 16)
"""
from paddle.lowlevel import initializers
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.nn import embedding
from paddle.highlevel import regularizers
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
                 **kwargs):
        super().__init__(embeddings_constraint=embeddings_constraint, **kwargs)
        self.mask_zero = check_flag(mask_zero, "mask_zero", "Embedding")
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.input_dim = check_positive(input_dim, "input_dim", "Embedding")
        self.output_dim = check_positive(output_dim, "output_dim", "Embedding")
        self.embeddings_initializer = initializers.get(embeddings_initializer)

    def build(self, input_shape):
        self.embeddings = self.add_weight("embeddings", (self.input_dim, self.output_dim),
                                          self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer)

    def call(self, inputs, training=False):
        if inputs.dtype not in ("int64", "int32"):
            # Keras casts float ids (a default float32 Input feeding Embedding) to integers.
            inputs = cast(inputs, "int64")
        return embedding(inputs, self.embeddings)

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return not_equal(inputs, constant(0, dtype=inputs.dtype))

    def get_config(self):
        return {**super().get_config(), "input_dim": self.input_dim,
                "output_dim": self.output_dim, "mask_zero": self.mask_zero,
                "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
                **regularizer_config(self, ("embeddings_regularizer",))}
