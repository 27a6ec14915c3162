"""Areas layers.ctor and layers.input: every layer's constructor with bad arguments and
its call with bad inputs."""

import re

from .core import case


LAYER_CTORS = {
    "Dense": [
        "0",
        "-1",
        "1.5",
        "None",
        "'3'",
        "True",
        "2**40",
        "3, activation='nope'",
        "3, kernel_initializer='nope'",
        "3, use_bias='x'",
        "3, dtype='int64'",
        "3, name='a/b'",
        "3, name=5",
        "3, foo=1",
    ],
    "Activation": ["'nope'", "None", "5"],
    "Reshape": ["(-1, -1)", "(0,)", "(2.5,)", "None", "'ab'", "(-2, 3)", "(2**62, 2**62)"],
    "Permute": ["(0, 1)", "(1, 1)", "(2, 3)", "None", "(1.0, 2)"],
    "Lambda": ["None", "5"],
    "Conv1D": [
        "0, 3",
        "4, 0",
        "4, 3, strides=0",
        "4, 3, padding='full'",
        "4, 3, dilation_rate=0",
        "4, 3, groups=3",
        "4, 3, data_format='NWC'",
        "4, (3, 3)",
        "-1, 3",
        "4, 3.5",
    ],
    "Conv2D": [
        "0, 3",
        "4, 0",
        "4, 3, strides=0",
        "4, 3, padding='causal'",
        "4, 3, dilation_rate=-1",
        "4, 3, groups=3",
        "4, (3, 3, 3)",
        "4, 3, activation='nope'",
        "4.0, 3",
        "4, 3, strides=(1, 2, 3)",
        "4, 2**40",
        "None, 3",
    ],
    "Conv2DTranspose": [
        "0, 3",
        "4, 3, strides=0",
        "4, 3, output_padding=-1",
        "4, 3, strides=2, output_padding=2",
        "4, 3, output_padding=1",
        "4, 3, padding='causal'",
        "4, 3, dilation_rate=0",
    ],
    "DepthwiseConv2D": [
        "0",
        "3, depth_multiplier=0",
        "3, depth_multiplier=-1",
        "3, strides=0",
        "3, depth_multiplier=1.5",
    ],
    "MaxPooling1D": ["0", "-1", "2, strides=0", "2, padding='causal'", "(2, 2)"],
    "MaxPooling2D": [
        "0",
        "(2, 0)",
        "2, strides=-1",
        "2, padding=1",
        "2.5",
        "2, data_format='NHWC'",
    ],
    "AveragePooling1D": ["0", "2, strides=0"],
    "AveragePooling2D": ["0", "2, strides=0", "(2, 2, 2)"],
    "GlobalAveragePooling2D": ["data_format='x'", "keepdims='yes'"],
    "GlobalMaxPooling1D": ["data_format='x'"],
    "BatchNormalization": [
        "axis=1.5",
        "momentum=2.0",
        "momentum=-1",
        "epsilon=-1.0",
        "epsilon='a'",
        "axis=None",
        "momentum=float('nan')",
        "epsilon=0.0",
    ],
    "LayerNormalization": ["axis=1.5", "epsilon=-1.0", "axis=[]", "epsilon=None", "axis='a'"],
    "Dropout": ["1.0", "-0.5", "'a'", "None", "1.5", "float('nan')", "0.5, seed='x'",
                "0.5, noise_shape='ab'", "0.5, noise_shape=(None, 0)",
                "0.5, noise_shape=(None, 7)", "0.5, noise_shape=(None, 1, 1)"],
    "Embedding": [
        "0, 3",
        "5, 0",
        "-1, 3",
        "5.5, 3",
        "None, 3",
        "5, 3, embeddings_initializer='nope'",
        "2**40, 2**10",
    ],
    "LSTM": [
        "0",
        "-1",
        "2.5",
        "None",
        "4, activation='nope'",
        "4, recurrent_activation='nope'",
        "4, dropout=2.0",
        "4, return_sequences='x'",
        "4, implementation=3",
        "4, stateful='x'",
        "4, stateful=True",  # built on a (None, 5, 3) input: no batch size for the states
    ],
    "GRU": ["0", "-3", "4, reset_after='x'", "4, activation=None", "4, implementation='x'",
            "4, stateful=True"],
    "SimpleRNN": ["0", "4, activation='nope'", "4, implementation=1", "4, stateful=True"],
    "Bidirectional": [
        "pd.layers.Dense(3)",
        "None",
        "pd.layers.LSTM(3), merge_mode='bad'",
        "'lstm'",
    ],
    "Concatenate": ["axis=1.5", "axis='a'", "axis=None"],
    "Add": ["foo=1"],
    "MultiHeadAttention": [
        "0, 4",
        "2, 0",
        "-1, 4",
        "2, 4, dropout=1.5",
        "2.5, 4",
        "None, 4",
        "2, 4, value_dim=0",
    ],
    # host preprocessing layers (paddle/highlevel/layers/lookup.py, text_vectorization.py)
    "StringLookup": ["max_tokens=1", "num_oov_indices=-1", "output_mode='bits'",
                     "vocabulary=['a', 'a']", "sparse=True", "invert=True, output_mode='count'",
                     "pad_to_max_tokens=True", "vocabulary=[1, 2]", "encoding='latin-1'"],
    "IntegerLookup": ["vocabulary=['a']", "vocabulary_dtype='int32'", "max_tokens=0",
                      "vocabulary=[1, 1]", "oov_method='md5'"],
    "TextVectorization": ["standardize='upper'", "split='comma'", "ngrams=0",
                          "output_sequence_length=-1",
                          "output_mode='count', output_sequence_length=3", "ragged=True",
                          "vocabulary='/no/such/file'"],
    "Hashing": ["0", "None", "3, salt=1", "3, output_mode='tf_idf'", "3, sparse=True"],
    # 3-D convolutions and poolings, adaptive pools, ConvLSTM, spectral layers
    "Conv3D": ["0, 3", "4, (3, 3)", "4, 3, strides=0", "4, 3, padding='causal'",
               "4, 3, groups=3", "4, 9"],
    "Conv3DTranspose": ["0, 3", "4, 3, strides=2, output_padding=2", "4, 3, groups=2"],
    "MaxPooling3D": ["0", "(2, 2)", "2, strides=0", "2, padding='full'"],
    "AveragePooling3D": ["0", "2, data_format='NDHWC'"],
    "AdaptiveAveragePooling2D": ["0", "(2, 2, 2)", "None"],
    "AdaptiveMaxPooling1D": ["-1", "2.5"],
    "ConvLSTM2D": ["0, 3", "4, 3, strides=2, dilation_rate=2", "4, 3, dropout=2.0",
                   "4, 3, padding='causal'", "4, 9"],
    "SpectralNormalization": ["pd.layers.Dense(3), power_iterations=0", "'dense'",
                              "pd.layers.Flatten()"],
    "ReversibleEmbedding": ["0, 3", "5, 3, tie_weights='x'", "5, 3, logit_soft_cap=-1"],
    "MelSpectrogram": ["fft_length=0", "fft_length=64, sequence_length=128",
                       "window='kaiser'", "num_mel_bins=0"],
    "STFTSpectrogram": ["mode='x'", "frame_length=8, frame_step=9", "scaling='x'"],
}


def layer_ctor_cases():
    for layer, args_list in LAYER_CTORS.items():
        for args in args_list:
            expect = "either" if args in ("None",) and layer in ("Activation",) else "error"
            if (layer, args) in {
                ("GRU", "4, activation=None"),
                ("Conv2D", "None, 3"),
                ("BatchNormalization", "epsilon=0.0"),
                ("Conv2DTranspose", "4, 3, strides=2, output_padding=2"),
                ("Conv2DTranspose", "4, 3, output_padding=1"),
                ("Concatenate", "axis=None"),
            }:
                expect = "either"
            case(
                "layers.ctor",
                f"{layer}({args})",
                f"""
                layer = pd.layers.{layer}({args})
                # building on a plausible input makes deferred checks run too
                shape = {{"Dense": (None, 4), "Activation": (None, 4), "Reshape": (None, 4),
                          "Permute": (None, 2, 3), "Lambda": (None, 4), "Conv1D": (None, 10, 4),
                          "Conv2D": (None, 8, 8, 4), "Conv2DTranspose": (None, 5, 5, 4),
                          "DepthwiseConv2D": (None, 8, 8, 4), "MaxPooling1D": (None, 8, 3),
                          "MaxPooling2D": (None, 8, 8, 3), "AveragePooling1D": (None, 8, 3),
                          "AveragePooling2D": (None, 8, 8, 3), "GlobalAveragePooling2D": (None, 4, 4, 3),
                          "GlobalMaxPooling1D": (None, 4, 3), "BatchNormalization": (None, 4),
                          "LayerNormalization": (None, 4), "Dropout": (None, 4), "Embedding": (None, 3),
                          "LSTM": (None, 5, 3), "GRU": (None, 5, 3), "SimpleRNN": (None, 5, 3),
                          "Bidirectional": (None, 5, 3), "MultiHeadAttention": (None, 5, 8),
                          "Conv3D": (None, 6, 6, 6, 3), "Conv3DTranspose": (None, 4, 4, 4, 3),
                          "MaxPooling3D": (None, 4, 4, 4, 2), "AveragePooling3D": (None, 4, 4, 4, 2),
                          "AdaptiveAveragePooling2D": (None, 6, 6, 2),
                          "AdaptiveMaxPooling1D": (None, 6, 2), "ConvLSTM2D": (None, 3, 6, 6, 2),
                          "SpectralNormalization": (None, 4), "ReversibleEmbedding": (None, 3),
                          "MelSpectrogram": (None, 400), "STFTSpectrogram": (None, 64, 1)}}.get(
                          "{layer}")
                if "{layer}" in ("Concatenate", "Add"):
                    out = layer([pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(3,))])
                elif "{layer}" == "MultiHeadAttention":
                    q = pd.layers.Input(shape=(5, 8))
                    out = layer(q, q)
                else:
                    inp = pd.layers.Input(shape=shape[1:], dtype="int64" if "{layer}" in ("Embedding", "ReversibleEmbedding") else "float32")
                    out = layer(inp)
                model = pd.Model(inputs=inp if "{layer}" not in ("Concatenate", "Add", "MultiHeadAttention") else None,
                                 outputs=out) if False else None
                a = (np.ones((2,) + shape[1:], np.int64) if "{layer}" in ("Embedding", "ReversibleEmbedding") else
                     rnd(2, *shape[1:])) if shape else None
                if a is not None:
                    r = layer(a, training=True)
                    for v in (r if isinstance(r, list) else [r]):
                        finite(v)""",
                [layer, "".join(w for w in layer if w.isupper()).lower(), snake(layer)]
                + arg_words(args),
                expect,
            )


def snake(name):
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)).lower()


def arg_words(args):
    words = re.findall(r"([a-z_]+)=", args)
    return words + [
        "units",
        "filters",
        "kernel_size",
        "pool_size",
        "rate",
        "dims",
        "target_shape",
        "activation",
        "input_dim",
        "output_dim",
        "num_heads",
        "key_dim",
        "function",
        "axis",
        "layer",
        "callable",
    ]


LAYER_INPUTS = {  # layer constructor -> (good input shape, bad input shapes)
    "Dense(3)": ((4,), [()]),
    "Flatten()": ((2, 3), []),
    "Reshape((3, 2))": ((6,), [(5,), (7, 1)]),
    "Reshape((-1, 2))": ((6,), [(5,)]),
    "Permute((2, 1))": ((2, 3), [(2,), (2, 3, 4)]),
    "Conv1D(4, 3)": ((10, 2), [(10,), (2, 2), (10, 2, 1)]),
    "Conv2D(4, 3)": ((8, 8, 2), [(8, 8), (2, 2, 2), (8, 8, 2, 1)]),
    "Conv2D(4, 3, groups=2)": ((8, 8, 2), [(8, 8, 3)]),
    "Conv2DTranspose(4, 3)": ((5, 5, 2), [(5, 5)]),
    "DepthwiseConv2D(3)": ((8, 8, 2), [(8, 8), (2, 2, 2)]),
    "MaxPooling1D(2)": ((8, 3), [(8,), (1, 3)]),
    "MaxPooling2D(2)": ((8, 8, 3), [(8, 8), (1, 1, 3)]),
    "AveragePooling2D(3)": ((8, 8, 3), [(2, 2, 3)]),
    "GlobalAveragePooling1D()": ((8, 3), [(8,)]),
    "GlobalMaxPooling2D()": ((4, 4, 3), [(4, 3), (0, 0, 3)]),
    "BatchNormalization()": (
        (4,),
        [
            (),
        ],
    ),
    "BatchNormalization(axis=3)": ((4, 4), []),
    "LayerNormalization()": ((4,), []),
    "Dropout(0.5)": ((4,), []),
    "Embedding(5, 3)": ((4,), []),
    "LSTM(3)": ((5, 2), [(5,), (5, 2, 1), (0, 2)]),
    "GRU(3)": ((5, 2), [(5,), (0, 2)]),
    "SimpleRNN(3)": ((5, 2), [(5,), (0, 2)]),
    "Bidirectional(pd.layers.LSTM(3))": ((5, 2), [(5,)]),
    "Activation('softmax')": ((4,), [(0,)]),
    "Conv3D(4, 3)": ((6, 6, 6, 2), [(6, 6, 2), (2, 2, 2, 2)]),
    "MaxPooling3D(2)": ((4, 4, 4, 2), [(4, 4, 2), (1, 1, 1, 2)]),
    "AdaptiveMaxPooling3D(2)": ((4, 4, 4, 2), [(4, 4, 2)]),
    "ConvLSTM2D(2, 3)": ((3, 6, 6, 2), [(6, 6, 2), (3, 2, 2, 2)]),
    "STFTSpectrogram(frame_length=8)": ((32, 1), [(32,)]),
}


def layer_input_cases():
    for ctor, (good, bads) in LAYER_INPUTS.items():
        name = ctor.split("(")[0]
        who = [name, snake(name), "input", "expected"]
        for bad in bads:
            case(
                "layers.input",
                f"{ctor}-shape{bad}",
                f"""
                layer = pd.layers.{ctor}
                layer(pd.layers.Input(shape={bad!r}))
                r = layer(np.ones((2,) + {bad!r}, np.float32))
                finite(r)""",
                who,
            )
        if name in ("Embedding", "BatchNormalization") and "axis=3" in ctor:
            case(
                "layers.input",
                f"{ctor}-axis-out",
                f"pd.layers.{ctor}(pd.layers.Input(shape={good!r}))",
                who,
            )
            continue
        case(
            "layers.input",
            f"{ctor}-rebuilt-other-width",
            f"""
            layer = pd.layers.{ctor}
            layer(pd.layers.Input(shape={good!r}))
            layer(pd.layers.Input(shape={tuple(good[:-1]) + (good[-1] + 1,)!r}))""",
            who,
            (
                "either"
                if name
                in (
                    "Flatten",
                    "Dropout",
                    "Activation",
                    "GlobalAveragePooling1D",
                    "GlobalMaxPooling2D",
                    "MaxPooling1D",
                    "MaxPooling2D",
                    "AveragePooling2D",
                    "MaxPooling3D",
                    "AdaptiveMaxPooling3D",
                    "STFTSpectrogram",  # each channel alone, as Keras's: any count
                    "Permute",
                    "Embedding",
                )
                else "error"
            ),
        )
        if name != "Embedding":
            case(
                "layers.input",
                f"{ctor}-int-array",
                f"""
                layer = pd.layers.{ctor}
                r = layer(np.ones((2,) + {good!r}, np.int64))""",
                who + ["float", "int64", "dtype"],
                "either",
            )
            case(
                "layers.input",
                f"{ctor}-object-array",
                f"""
                layer = pd.layers.{ctor}
                layer(np.array([[object()] * {good[-1]}] * 2))""",
                who + ["object", "numbers"],
            )
            case(
                "layers.input",
                f"{ctor}-zero-batch",
                f"""
                layer = pd.layers.{ctor}
                r = layer(np.ones((0,) + {good!r}, np.float32))
                check(r.shape[0] == 0, str(r.shape))""",
                who,
                "either",
            )
            case(
                "layers.input",
                f"{ctor}-list-input",
                f"""
                layer = pd.layers.{ctor}
                layer([[1.0] * {good[-1]}])""",
                who + ["Variable", "array"],
            )
    case(
        "layers.input",
        "Embedding-ids-out",
        """
        layer = pd.layers.Embedding(5, 3)
        layer(np.array([[0, 5]]))""",
        ["embedding", "id"],
    )
    case(
        "layers.input",
        "Embedding-float-ids",
        """
        layer = pd.layers.Embedding(5, 3)
        r = layer(np.array([[0.0, 1.5]], np.float32))""",
        ["embedding", "id", "int"],
    )
    case(
        "layers.input",
        "Embedding-negative-ids",
        """
        layer = pd.layers.Embedding(5, 3)
        layer(np.array([[-1, 2]]))""",
        ["embedding", "id"],
    )
    case(
        "layers.input",
        "Concatenate-shapes",
        """
        pd.layers.Concatenate()([pd.layers.Input(shape=(3, 2)), pd.layers.Input(shape=(4, 2))])""",
        ["concatenate", "concat"],
    )
    case(
        "layers.input",
        "Concatenate-one",
        "pd.layers.Concatenate()(pd.layers.Input(shape=(3,)))",
        ["concatenate", "list"],
    )
    case(
        "layers.input",
        "Concatenate-fed-batch",
        """
        a, b = pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(3,))
        m = pd.Model([a, b], pd.layers.Concatenate()([a, b]))
        m.predict([np.ones((2, 3), np.float32), np.ones((3, 3), np.float32)])""",
        ["concat", "samples", "batch", "input"],
    )
    case(
        "layers.input",
        "Add-shapes",
        """
        pd.layers.Add()([pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(4,))])""",
        ["add"],
    )
    case("layers.input", "Add-empty", "pd.layers.Add()([])", ["add"])
    case(
        "layers.input",
        "Multiply-one",
        "pd.layers.Multiply()([pd.layers.Input(shape=(3,))])",
        ["multiply"],
    )
    case(
        "layers.input",
        "MultiHeadAttention-dims",
        """
        mha = pd.layers.MultiHeadAttention(2, 4)
        mha(pd.layers.Input(shape=(5, 8)), pd.layers.Input(shape=(6, 7)), pd.layers.Input(shape=(7, 7)))""",
        ["multi_head_attention", "value", "key", "MultiHeadAttention"],
    )
    case(
        "layers.input",
        "MultiHeadAttention-mask-shape",
        """
        mha = pd.layers.MultiHeadAttention(2, 4)
        q = np.ones((2, 5, 8), np.float32)
        mha(q, q, attention_mask=np.ones((2, 3, 3), bool))""",
        ["multi_head_attention", "mask", "MultiHeadAttention"],
    )
    case(
        "layers.input",
        "Lambda-returns-none",
        """
        pd.layers.Lambda(lambda x: None)(pd.layers.Input(shape=(3,)))
        """,
        ["lambda", "Variable"],
        "either",
    )
    for layer, states in (("LSTM", "[h, h]"), ("GRU", "h")):
        case(
            "layers.input",
            f"{layer}-initial-state-fed-batch",
            f"""
            x, h = pd.layers.Input(shape=(5, 3)), pd.layers.Input(shape=(4,))
            out = pd.layers.{layer}(4)(x, initial_state={states})
            model = pd.Model([x, h], out)
            model.predict([rnd(6, 5, 3), rnd(2, 4)])""",
            [layer.lower(), "state", "samples", "x[1]"],
        )
        case(
            "layers.input",
            f"{layer}-initial-state-units",
            f"""
            x, h = pd.layers.Input(shape=(5, 3)), pd.layers.Input(shape=(3,))
            pd.layers.{layer}(4)(x, initial_state={states})""",
            [layer.lower(), "state"],
        )
    case(
        "layers.input",
        "MultiHeadAttention-fed-batch",
        """
        q, v = pd.layers.Input(shape=(5, 8)), pd.layers.Input(shape=(6, 8))
        model = pd.Model([q, v], pd.layers.MultiHeadAttention(2, 4)(q, v))
        model.predict_on_batch([rnd(2, 5, 8), rnd(3, 6, 8)])""",
        ["multi_head_attention", "samples", "x[1]", "matmul"],
    )
    case(
        "layers.input",
        "Embedding-model-float-feed",
        """
        i = pd.layers.Input(shape=(3,), dtype="int64")
        model = pd.Model(i, pd.layers.Embedding(5, 2)(i))
        model.predict(np.array([[0.5, 1.0, 2.0]]))""",
        ["int64", "input", "cast"],
    )
    case(
        "layers.input",
        "Embedding-model-ids-out",
        """
        i = pd.layers.Input(shape=(3,), dtype="int64")
        model = pd.Model(i, pd.layers.Embedding(5, 2)(i))
        model.predict(np.array([[0, 1, 9]]))""",
        ["embedding", "id"],
    )
    case("layers.input", "Input-shape-neg", "pd.layers.Input(shape=(-1, 3))", ["input", "shape"])
    case("layers.input", "Input-shape-float", "pd.layers.Input(shape=(2.5,))", ["input", "shape"])
    case(
        "layers.input",
        "Input-shape-none",
        "pd.layers.Input(shape=None)",
        ["input", "shape"],
        "either",
    )
    case(
        "layers.input",
        "Input-dtype-bad",
        "pd.layers.Input(shape=(2,), dtype='float16')",
        ["input", "dtype"],
    )
    case(
        "layers.input",
        "Input-batch-size-neg",
        "pd.layers.Input(shape=(2,), batch_size=-1)",
        ["input", "shape", "batch_size"],
    )
    case(
        "layers.input",
        "set_weights-count",
        "pd.layers.Dense(2)(pd.layers.Input(shape=(3,)))\n"
        "l = pd.layers.Dense(2); l(pd.layers.Input(shape=(3,))); l.set_weights([np.ones((3, 2))])",
        ["set_weights", "dense"],
    )
    case(
        "layers.input",
        "set_weights-dtype",
        """
        l = pd.layers.Dense(2); l(pd.layers.Input(shape=(3,)))
        l.set_weights([np.array([['a'] * 2] * 3), np.zeros(2)])""",
        ["set_value", "set_weights", "dense"],
    )
