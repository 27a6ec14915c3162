"""Losses (per example: reduce with pd.mean) and the accuracy metric.

Example:
    >>> import numpy as np, paddle as pd
    >>> logits = pd.constant([[2.0, 0.0], [0.0, 2.0]])
    >>> labels = pd.constant(np.array([0, 1]))
    >>> round(float(pd.eval(pd.mean(pd.softmax_cross_entropy(logits, labels)))), 4)
    0.1269
    >>> float(pd.eval(pd.accuracy(logits, labels)))
    1.0
"""
from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import FLOATS, apply, as_variable
from paddle.lowlevel.op import OPS, Op, fmt_shape, register
from paddle.lowlevel.shapes import is_int, real_number
from paddle.lowlevel.ops.activations import softmax, softplus
from paddle.lowlevel.ops.math import abs, cast, clip, log, minimum, square
from paddle.lowlevel.ops.reduce import mean, sum
from paddle.lowlevel.ops.shape import expand_dims, match_shape, one_hot, squeeze


def _check_label_shape(op, scores, labels):
    """Shape rule shared by the ops that read class labels: labels are scores without the
    class axis (run again with the fed shapes, where None dims become known)."""
    if len(labels[0]) != len(scores[0]) - 1 or any(
            a is not None and b is not None and a != b for a, b in zip(labels[0], scores[0])):
        op.fail("labels must have the shape of the scores without the class axis",
                ("scores", scores[0]), ("labels", labels[0]))


def _class_labels(op, scores, labels):
    """Integer labels shaped like scores without the class axis ((N, 1) is accepted)."""
    if scores.ndim < 1:
        raise ShapeError(at_user(f"{op}: expected scores with a class axis (rank >= 1), "
                                 f"received a scalar"))
    labels = as_variable(labels, where=op)
    if labels.dtype not in ("int64", "int32"):
        raise TypeError(at_user(f"{op}: expected integer class labels, received {labels.dtype}"))
    if labels.dtype == "int32":
        labels = cast(labels, "int64")
    if labels.ndim == scores.ndim and labels.shape[-1] == 1:
        labels = squeeze(labels, -1)
    rank_ok = labels.ndim == scores.ndim - 1
    if not rank_ok or any(a is not None and b is not None and a != b
                          for a, b in zip(labels.shape, scores.shape[:-1])):
        raise ShapeError(at_user(f"{op}: labels must have the shape of the scores without the "
                                 f"class axis: scores is {fmt_shape(scores.shape)}, labels is "
                                 f"{fmt_shape(labels.shape)}"))
    return labels


@register
class SoftmaxCrossEntropy(Op):
    name = "softmax_cross_entropy"

    def infer(self, logits, labels):
        if logits[1] not in FLOATS:
            raise TypeError(f"softmax_cross_entropy: expected float logits, received {logits[1]}")
        if len(logits[0]) < 1:
            self.fail("expected logits of rank >= 1", ("logits", logits[0]))
        _check_label_shape(self, logits, labels)
        return logits[0][:-1], logits[1]

    def grad(self, node, g):
        logits, labels = node.inputs
        depth = logits.shape[-1]
        if depth is None:
            raise NotImplementedError("softmax_cross_entropy: gradient needs a known class count")
        diff = softmax(logits) - one_hot(labels, depth, logits.dtype)
        return [diff * expand_dims(g[0], -1), None]


def softmax_cross_entropy(logits, labels):
    """Per-example cross-entropy of integer labels against unnormalized scores.

    Args:
        logits: float (..., classes).
        labels: integer (...,) class indices in [0, classes); checked at eval.
    Returns:
        float (...,) losses.
    """
    logits = as_variable(logits, where="softmax_cross_entropy")
    labels = _class_labels("softmax_cross_entropy", logits, labels)
    return apply(OPS["softmax_cross_entropy"], [logits, labels])


def cross_entropy(probs, labels, epsilon=1e-7):
    """Per-example cross-entropy of integer labels against probabilities (clipped away from
    0 so the log stays finite), as the seeds' `cross_entropy`."""
    probs = as_variable(probs, where="cross_entropy")
    if probs.dtype not in FLOATS:  # failed in clip as 'maximum: dtypes differ'
        raise TypeError(at_user(f"cross_entropy: expected float probabilities, received "
                                f"{probs.dtype}"))
    epsilon = real_number(epsilon, "epsilon", "cross_entropy")
    labels = _class_labels("cross_entropy", probs, labels)
    if probs.shape[-1] is None:
        raise ValueError(at_user(f"cross_entropy: the class axis must have a known size, "
                                 f"received probabilities of shape {probs.shape}"))
    labels = match_shape(labels, probs, "cross_entropy", class_axis=True)  # with fed sizes too
    onehot = apply(OPS["one_hot"], [labels], {"depth": probs.shape[-1], "dtype": probs.dtype,
                                              "labels_of": "cross_entropy"})
    picked = sum(onehot * probs, axis=-1)
    return -log(clip(picked, epsilon, 1.0))


def sigmoid_cross_entropy(logits, labels):
    """Elementwise binary cross-entropy of float labels in [0, 1] against logits."""
    logits = as_variable(logits, where="sigmoid_cross_entropy")
    labels = _targets(labels, logits, "sigmoid_cross_entropy")
    # softplus(x) - x z, the stable form; its gradient is sigmoid(x) - z everywhere, 0 included.
    return softplus(logits) - logits * labels


def _targets(y_true, y_pred, where):
    """y_true as a Variable; of y_pred's rank, it must have y_pred's shape, fed sizes included
    (a batch of 1 target would broadcast against every prediction). Other ranks broadcast
    as NumPy's do (a scalar target)."""
    y_pred = as_variable(y_pred, where=where)
    y_true = as_variable(y_true, like=y_pred, where=where)
    if y_true.ndim != y_pred.ndim:
        return y_true
    return match_shape(y_true, y_pred, where)


def mse(y_pred, y_true):
    """Mean squared error over the last axis (per example)."""
    return mean(square(y_pred - _targets(y_true, y_pred, "mse")), axis=-1)


def mae(y_pred, y_true):
    """Mean absolute error over the last axis (per example)."""
    return mean(abs(y_pred - _targets(y_true, y_pred, "mae")), axis=-1)


def huber(y_pred, y_true, delta=1.0):
    """Huber loss over the last axis: quadratic within `delta` (> 0), linear beyond."""
    delta = real_number(delta, "delta", "huber")
    if not delta > 0:  # delta <= 0 gives negative or zero losses
        raise ValueError(f"huber: expected delta > 0, received {delta!r}")
    err = abs(y_pred - _targets(y_true, y_pred, "huber"))
    quad = minimum(err, delta)
    return mean(quad * quad * 0.5 + (err - quad) * delta, axis=-1)


@register
class InTopK(Op):
    name = "in_top_k"

    def infer(self, scores, labels, k=1):
        if scores[1] not in FLOATS:
            raise TypeError(f"accuracy: expected float scores, received {scores[1]}")
        _check_label_shape(self, scores, labels)
        return scores[0][:-1], scores[1]

    def grad(self, node, g):
        return [None, None]


def accuracy(logits_or_probs, labels, k=1):
    """Fraction of examples whose label is among the k highest scores (a float scalar)."""
    scores = as_variable(logits_or_probs, where="accuracy")
    if scores.dtype not in FLOATS:
        raise TypeError(f"accuracy: expected float scores, received {scores.dtype}")
    labels = _class_labels("accuracy", scores, labels)
    if not is_int(k) or k < 1:
        raise ValueError(f"accuracy: expected k >= 1, received {k!r}")
    return mean(apply(OPS["in_top_k"], [scores, labels], {"k": k}))
