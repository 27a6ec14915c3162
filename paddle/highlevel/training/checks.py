"""Checks of a batch before a step runs it: not empty, and class labels that are whole
numbers inside the classes of the model's output. Each error names the position in the
user's own array and says that nothing was run.

Example:
    >>> import numpy as np
    >>> from paddle.highlevel.training.checks import _check_label_range
    >>> _check_label_range(np.array([0, 3]), "y", "sparse_categorical_crossentropy", (None, 3))
    Traceback (most recent call last):
        ...
    ValueError: sparse_categorical_crossentropy: label 3 at position 1 is outside the 3 classes [0, 3) of the model's output (shape (None, 3)): y[1] is 3; class labels run from 0 to 2
"""
import numpy as np

from paddle.errors import ShapeError, at_user


_DOING = {"train": "training", "test": "evaluating", "predict": "predicting"}


def _check_not_empty(x, kind):
    """A batch of no samples is refused before anything runs: the step would count an
    optimizer iteration and update nothing, and its mean loss would divide by zero."""
    if len(x[0]) == 0:
        name = "x" if len(x) == 1 else "x[0]"
        raise ValueError(f"{_DOING[kind]} on an empty batch: {name} has shape "
                         f"{tuple(x[0].shape)} (0 samples); expected at least one sample "
                         "(nothing was run or changed)")


def _check_whole_labels(labels, k, loss_name):
    """Float class labels must be whole numbers: the loss casts them to int64."""
    if labels.dtype.kind != "f" or not labels.size:
        return
    whole = np.equal(labels, np.floor(labels))  # False for NaN and inf too
    if not whole.all():
        bad = float(labels[~whole][0])
        raise ValueError(f"{loss_name}: expected class indices as targets, received {bad!r} "
                         f"in target {k} (a {labels.dtype} array); it would be truncated")


def _target_name(k, count):
    return "y" if count == 1 else f"y[{k}]"


def _check_label_range(labels, name, loss_name, shape, context=""):
    """Class labels must index the class axis of the model's output. Checked on the labels
    as the user gave them (`name` says how they reach them: "y", "validation_data[1]"), so
    that the message is in their terms: the kernel's would give a position inside a
    shuffled batch, or name an internal op (one_hot)."""
    classes = shape[-1] if shape else None
    if not isinstance(classes, int) or not labels.size or labels.dtype.kind not in "iuf":
        return
    outside = (labels < 0) | (labels >= classes)
    if not outside.any():
        return
    index = np.unravel_index(int(np.argmax(outside)), labels.shape)
    position = ", ".join(str(int(i)) for i in index)
    bad = labels[index].item()
    raise ValueError(
        f"{loss_name}: label {bad} at position {position} is outside the {classes} classes "
        f"[0, {classes}) of the model's output (shape {tuple(shape)}): {name}[{position}] "
        f"is {bad}{context}; class labels run from 0 to {classes - 1}")


def check_input(model, expected, shape):
    """ShapeError naming the model, the input and the first axis that does not fit."""
    if len(shape) != len(expected.shape):
        detail = f"expected rank {len(expected.shape)}, received rank {len(shape)}"
    else:
        bad = [i for i, (a, b) in enumerate(zip(expected.shape, shape))
               if a is not None and b is not None and a != b]
        if not bad:
            return
        detail = f"axis {bad[0]} should be {expected.shape[bad[0]]}, received {shape[bad[0]]}"
    raise ShapeError(at_user(f"{model.name}: input {expected.name!r} expects shape "
                             f"{expected.shape}, received {shape} ({detail})"))


def check_text(model, expected, array):
    """TypeError when text meets a numeric input or numbers meet a string input."""
    text = array.dtype.kind in "USO"
    if text and expected.dtype != "string":
        raise TypeError(at_user(
            f"x: expected numeric data, received an array of strings for the input "
            f"{expected.name!r} ({expected.dtype}) of {model.name}; a model reads text "
            "through an input made with pd.Input(dtype='string')"))
    if not text and expected.dtype == "string":
        raise TypeError(at_user(
            f"x: expected strings for the string input {expected.name!r} of {model.name}, "
            f"received an array of {array.dtype}"))
