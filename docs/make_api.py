#!/usr/bin/env python3
"""Writes docs/api.md, the API reference, from the docstrings of paddle's public names.

    python docs/make_api.py          # rewrite docs/api.md
    python docs/make_api.py --check  # exit 1 if docs/api.md is out of date (used by a test)
"""
import inspect
import os
import sys

import paddle as pd

def _classes(module, exclude=()):
    """The public classes a module defines (not constants, not names it imports, not a
    second name of a class: Keras's aliases such as MaxPool2D are listed in docs/keras.md)."""
    return sorted(n for n in dir(module) if n[:1].isupper() and n not in exclude
                  and inspect.isclass(getattr(module, n))
                  and getattr(module, n).__name__ == n)


SECTIONS = [
    ("Graph and evaluation", pd, ["data", "Variable", "constant", "namespace", "get_variable",
                                  "eval", "gradients", "seed", "set_device", "get_device",
                                  "set_num_threads", "get_num_threads"]),
    ("Layer functions", pd, ["fc"]),
    ("Creation (Keras's names)", pd, ["shape", "ones", "zeros", "full", "arange"]),
    ("Math", pd, ["add", "sub", "mul", "div", "pow", "neg", "abs", "exp", "log", "log1p",
                  "sqrt", "square", "maximum", "minimum", "clip", "sign", "erf", "where",
                  "cast", "equal", "not_equal", "greater", "greater_equal", "less",
                  "less_equal", "zeros_like", "ones_like", "broadcast_to", "matmul"]),
    ("Activations", pd, ["relu", "leaky_relu", "elu", "gelu", "sigmoid", "tanh", "softmax",
                         "log_softmax", "softplus", "silu"]),
    ("Reductions", pd, ["sum", "mean", "max", "min", "argmax"]),
    ("Shape", pd, ["reshape", "transpose", "flatten", "concat", "split", "stack", "squeeze",
                   "expand_dims", "slice", "gather", "one_hot", "pad"]),
    ("Neural-network ops", pd, ["conv2d", "conv2d_transpose", "conv1d", "max_pool2d",
                                "avg_pool2d", "global_avg_pool2d", "max_pool1d", "avg_pool1d",
                                "batch_norm", "layer_norm", "dropout", "embedding", "lstm",
                                "gru"]),
    ("Losses and metrics (ops)", pd, ["softmax_cross_entropy", "cross_entropy",
                                      "sigmoid_cross_entropy", "mse", "mae", "huber",
                                      "accuracy"]),
    ("Optimizers", pd.optimizers, ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad",
                                   "Adamax", "Nadam", "Lion", "Ftrl"]),
    ("Schedules", pd.optimizers.schedules, ["ExponentialDecay", "PiecewiseConstantDecay",
                                            "CosineDecay", "PolynomialDecay",
                                            "InverseTimeDecay", "CosineDecayRestarts"]),
    ("Initializers", pd.initializers, ["Constant", "Normal", "Uniform", "VarianceScaling",
                                       "Orthogonal", "get"]),
    ("Activations (pd.activations)", pd.activations, sorted(pd.activations.__all__)),
    ("Keras ops (pd.ops: every op above, and these spellings)", pd.ops,
     ["concatenate", "convert_to_tensor", "convert_to_numpy", "true_divide"]),
    ("Regularizers", pd.regularizers, ["Regularizer", "L1", "L2", "L1L2", "get", "serialize",
                                       "deserialize"]),
    ("Models", pd, ["Model", "Sequential", "Input", "load_model"]),
    ("Export (a Model method; see deployment.md)", pd.Model, ["export"]),
    ("pd.models", pd.models, ["clone_model", "model_from_json", "save_model"]),
    ("pd.saving", pd.saving, ["register_keras_serializable", "get_custom_objects",
                              "custom_object_scope", "serialize_keras_object",
                              "deserialize_keras_object", "get_registered_name",
                              "get_registered_object", "save_model", "load_weights",
                              "save_weights"]),
    ("Layers", pd.layers, _classes(pd.layers, exclude=("Layer", "InputSpec")) + ["Layer"]),
    ("Merge functions", pd.layers, ["add", "subtract", "multiply", "average", "maximum",
                                    "minimum", "concatenate", "dot"]),
    ("Losses", pd.losses, _classes(pd.losses, exclude=("Variable",)) + ["get"]),
    ("Metrics", pd.metrics, _classes(pd.metrics, exclude=("Variable",)) + ["get"]),
    ("Callbacks", pd.callbacks, ["Callback", "CallbackList", "History", "ProgbarLogger",
                                 "ModelCheckpoint", "BackupAndRestore", "EarlyStopping",
                                 "LearningRateScheduler", "ReduceLROnPlateau", "CSVLogger",
                                 "TerminateOnNaN", "LambdaCallback", "TensorBoard"]),
    ("Trainer and Inferencer", pd, ["Trainer", "Inferencer", "BeginEpochEvent",
                                    "EndEpochEvent", "BeginStepEvent", "EndStepEvent"]),
    ("Readers", pd.reader, ["batch", "shuffle", "buffered", "compose", "chain", "map_readers",
                            "xmap_readers", "firstn", "cache", "shard", "to_arrays",
                            "iter_batches"]),
    ("Distributed", pd.distributed, ["init", "rank", "size", "local_rank", "is_chief",
                                     "barrier", "allreduce", "broadcast", "active",
                                     "DistributedError", "CollectiveTimeout"]),
    ("Random (pd.random)", pd.random, ["normal", "uniform", "truncated_normal", "randint",
                                       "dropout", "SeedGenerator"]),
    ("Utilities (pd.utils)", pd.utils, ["to_categorical", "normalize", "pad_sequences",
                                        "PyDataset", "set_random_seed", "plot_model",
                                        "model_to_dot", "plot_history"]),
    ("Applications (pd.applications)", pd.applications, ["VGG16", "VGG19", "ResNet50",
                                                        "MobileNetV2"]),
    ("ImageNet preprocessing (pd.applications.imagenet_utils)", pd.applications.imagenet_utils,
     ["preprocess_input", "decode_predictions"]),
    ("Errors", pd, ["PaddleError", "ShapeError", "FeedError", "CheckpointError",
                    "ExportError"]),
]


def summary(obj):
    # The object's own docstring: a subclass without one must not show its base's.
    doc = inspect.cleandoc(obj.__doc__) if getattr(obj, "__doc__", None) else ""
    return doc.split("\n\n")[0].replace("\n", " ").strip() or "(no docstring)"


def signature(name, obj):
    try:
        return f"{name}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return name


def render():
    lines = ["# API reference", "",
             "Generated from the docstrings by `python docs/make_api.py`; every name is "
             "reached as `pd.<name>` (or `pd.<module>.<name>` where the section says so). "
             "Docstrings hold runnable examples; guides: [low level](lowlevel.md), "
             "[high level](highlevel.md), [data](data.md), [callbacks](callbacks.md), "
             "[saving](saving.md), [trainer](trainer.md), [monitoring](monitoring.md), "
             "[deployment](deployment.md).", ""]
    for title, module, names in SECTIONS:
        prefix = "pd." if module is pd else f"pd.{module.__name__.split('.')[-1]}."
        if module.__name__.startswith("paddle.applications."):  # a module of a package
            prefix = module.__name__.replace("paddle.", "pd.", 1) + "."
        lines += [f"## {title}", ""]
        for name in names:
            obj = getattr(module, name)
            lines.append(f"- `{prefix}{signature(name, obj)}`: {summary(obj)}")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api.md")
    text = render()
    if sys.argv[1:] == ["--check"]:
        with open(path) as f:
            sys.exit(0 if f.read() == text else 1)
    with open(path, "w") as f:
        f.write(text)
