"""Keras's `keras.quantizers` (`pd.quantizers`): int8 quantization by the absolute maximum
and the float8 scaling rules, on the host (NumPy arrays: paddle's graph has no int8 or
float8 dtypes). `model.quantize` and Keras's int4, GPTQ and AWQ configurations are not
available. The code lives in paddle/highlevel/quantizers.py.

Example:
    >>> import numpy as np, paddle as pd
    >>> q, scale = pd.quantizers.AbsMaxQuantizer()(np.array([[1.0, -0.5]], "float32"))
    >>> q.tolist()
    [[127, -63]]
"""
from paddle.highlevel.quantizers import (  # noqa: F401
    AbsMaxQuantizer, Quantizer, abs_max_quantize, compute_float8_amax_history,
    compute_float8_scale, deserialize, get, serialize)
