"""The GPTQ and AWQ comparison model, built alike in Keras 3 and paddle (`make(lib, weights)`),
and its quantization with a GPTQConfig or AWQConfig of `case` (`quantize(lib, ...)`). Run with a Keras
3.15.1 Python (`python gptq_keras.py in.npz out.npz`, KERAS_BACKEND=jax) it writes
Keras's quantized weights and predictions for tests/highlevel/test_quantize_gptq.py."""
import sys
import warnings

import numpy as np

V, D, L = 20, 8, 16  # vocabulary, width, calibration window
# name: (weight_bits, group_size, symmetric, activation_order)
CASES = {"4bit_g4_order": (4, 4, False, True), "8bit_channel_sym": (8, -1, True, False),
         "3bit_g8": (3, 8, False, False), "2bit_g5_sym_order": (2, 5, True, True),
         # AWQ: (group_size, num_grid_points)
         "awq_g4": (4, 20), "awq_channel": (-1, 20), "awq_g5_grid7": (5, 7)}


class Tokenizer:
    def tokenize(self, text):
        return np.array([ord(c) % V for c in text], np.int32)


def inputs():
    rng = np.random.default_rng(3)

    def r(*shape):
        return np.round(rng.normal(size=shape), 2).astype("float32")
    return dict(E=r(V, D), W1=r(D, 12), B1=r(12), W2=r(12, D), B2=r(D), W3=r(D, 5),
                B3=r(5), data=rng.integers(0, V, size=L).astype("int32"),
                x=rng.integers(0, V, size=(2, L)).astype("int32"))


def make(lib, w):
    """Embedding -> a block (a functional model: Dense(12, relu), Dense(8)) -> Dense(5)."""
    emb = lib.layers.Embedding(V, D)
    d1, d2 = lib.layers.Dense(12, activation="relu"), lib.layers.Dense(D)
    blk_in = lib.Input(shape=(L, D))
    block = lib.Model(blk_in, d2(d1(blk_in)))
    head = lib.layers.Dense(5)
    inp = lib.Input(shape=(L,), dtype="int32")
    model = lib.Model(inp, head(block(emb(inp))))
    for variable, value in ((emb.embeddings, w["E"]), (d1.kernel, w["W1"]),
                            (d1.bias, w["B1"]), (d2.kernel, w["W2"]), (d2.bias, w["B2"]),
                            (head.kernel, w["W3"]), (head.bias, w["B3"])):
        variable.assign(value)
    return model, emb, block, (d1, d2, head)


def quantize(lib, model, emb, block, case, dataset, filters=None):
    structure = {"pre_block_layers": [emb], "sequential_blocks": [block]}
    if case.startswith("awq"):
        group, grid = CASES[case]
        mode, config = "awq", lib.quantizers.AWQConfig(
            dataset=dataset, tokenizer=Tokenizer(), num_samples=1, sequence_length=L,
            group_size=group, num_grid_points=grid, quantization_layer_structure=structure)
    else:
        bits, group, symmetric, order = CASES[case]
        mode, config = "gptq", lib.quantizers.GPTQConfig(
            dataset=dataset, tokenizer=Tokenizer(), num_samples=1, sequence_length=L,
            weight_bits=bits, group_size=group, symmetric=symmetric, activation_order=order,
            quantization_layer_structure=structure)
    with warnings.catch_warnings():  # Embedding, InputLayer: no gptq or awq form
        warnings.simplefilter("ignore")
        model.quantize(mode, config=config, filters=filters)


def results(model, layers, x):
    out = {"y": np.asarray(model.predict(x, verbose=0))}
    for name, layer in zip(("d1", "d2"), layers):
        for key, attr in (("q", "quantized_kernel"), ("s", "kernel_scale"),
                          ("z", "kernel_zero"), ("g", "g_idx"), ("a", "awq_scales")):
            if getattr(layer, attr, None) is None:
                continue
            out[f"{name}_{key}"] = np.asarray(getattr(layer, attr))
    out["policy"] = np.array(layers[0].dtype_policy.name)
    return out


if __name__ == "__main__":
    import keras
    w = inputs()
    found = {}
    for case in CASES:
        model, emb, block, layers = make(keras, w)
        quantize(keras, model, emb, block, case, [w["data"]])
        found.update({f"{case}/{k}": v for k, v in results(model, layers, w["x"]).items()})
    np.savez(sys.argv[2], **found)
