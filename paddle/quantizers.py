"""Keras's `keras.quantizers` (`pd.quantizers`): int8 quantization by the absolute maximum
(on arrays on the host, on tensors with ops), Keras's fake quantization, int4 packing, the
float8 rules, and the configs of `model.quantize` (int8, int4, float8, GPTQ and AWQ). The
code lives in paddle/highlevel/quantizers.py and
paddle/highlevel/quantization_config.py; the quantized layers in
paddle/highlevel/layers/quantization.py.

Example:
    >>> import numpy as np, paddle as pd
    >>> q, scale = pd.quantizers.AbsMaxQuantizer()(np.array([[1.0, -0.5]], "float32"))
    >>> q.tolist()
    [[127, -63]]
"""
from paddle.highlevel.quantization_config import (  # noqa: F401
    AWQConfig, Float8QuantizationConfig, GPTQConfig, Int4QuantizationConfig,
    Int8QuantizationConfig, QuantizationConfig)
from paddle.highlevel.quantizers import (  # noqa: F401
    AbsMaxQuantizer, Quantizer, abs_max_quantize, abs_max_quantize_grouped_with_zero_point,
    compute_float8_amax_history, compute_float8_scale, deserialize,
    fake_quant_with_min_max_vars, get, pack_int4, quantize_and_dequantize, serialize,
    unpack_int4)
