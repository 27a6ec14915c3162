"""Losses and accuracy: forward against NumPy (float32, float64), label layouts, labels
outside the class range (a Python exception at eval naming the label), gradients."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(5)
N, C = 6, 4
LOGITS = RNG.standard_normal((N, C)) * 2
LABELS = np.array([0, 3, 1, 2, 3, 0], dtype=np.int64)
TARGETS = RNG.uniform(0, 1, (N, C))


def np_log_softmax(a):
    s = a - a.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


def tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)


def inputs(dtype, label_dtype="int64"):
    return (pd.data("logits", shape=[None, C], dtype=dtype),
            pd.data("labels", shape=[None], dtype=label_dtype))


# ---- forward ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_cross_entropy(dtype):
    x, y = inputs(dtype)
    loss = pd.softmax_cross_entropy(x, y)
    assert loss.shape == (None,) and loss.dtype == dtype
    got = pd.eval(loss, {x: LOGITS.astype(dtype), y: LABELS})
    expected = -np_log_softmax(LOGITS.astype(dtype).astype(np.float64))[np.arange(N), LABELS]
    np.testing.assert_allclose(got, expected, **tol(dtype))


def test_softmax_cross_entropy_label_layouts():
    x = pd.data("logits", shape=[None, C], dtype="float64")
    expected = -np_log_softmax(LOGITS)[np.arange(N), LABELS]
    col = pd.data("col", shape=[None, 1], dtype="int64")            # (N, 1) labels
    i32 = pd.data("i32", shape=[None], dtype="int32")
    got = pd.eval([pd.softmax_cross_entropy(x, col), pd.softmax_cross_entropy(x, i32)],
                  {x: LOGITS, col: LABELS[:, None], i32: LABELS.astype(np.int32)})
    for g in got:
        np.testing.assert_allclose(g, expected, rtol=1e-12)
    # Extra leading axes: a sequence of class scores.
    seq = pd.data("seq", shape=[None, 3, C], dtype="float64")
    lab = pd.data("lab", shape=[None, 3], dtype="int64")
    a = RNG.standard_normal((2, 3, C))
    b = RNG.integers(0, C, (2, 3))
    got = pd.eval(pd.softmax_cross_entropy(seq, lab), {seq: a, lab: b})
    ref = -np.take_along_axis(np_log_softmax(a), b[..., None], -1)[..., 0]
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_softmax_cross_entropy_is_stable():
    x, y = inputs("float32")
    a = np.array([[1000.0, 0.0, -1000.0, 0.0]], np.float32)
    got = pd.eval(pd.softmax_cross_entropy(x, y), {x: a, y: np.array([2])})
    np.testing.assert_allclose(got, [2000.0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropy_from_probabilities(dtype):
    x, y = inputs(dtype)
    probs = np.exp(np_log_softmax(LOGITS)).astype(dtype)
    probs[0, LABELS[0]] = 0.0                              # clipped to epsilon, not inf
    loss = pd.cross_entropy(x, y)
    assert loss.shape == (None,)
    got = pd.eval(loss, {x: probs, y: LABELS})
    expected = -np.log(np.clip(probs[np.arange(N), LABELS].astype(np.float64), 1e-7, 1.0))
    np.testing.assert_allclose(got, expected, **tol(dtype))
    assert np.isfinite(got).all()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sigmoid_cross_entropy(dtype):
    x = pd.data("x", shape=[None, C], dtype=dtype)
    t = pd.data("t", shape=[None, C], dtype=dtype)
    a = np.concatenate([LOGITS, [[-500.0, 500.0, 0.0, 30.0]]]).astype(dtype)
    b = np.concatenate([TARGETS, [[1.0, 0.0, 0.5, 1.0]]]).astype(dtype)
    got = pd.eval(pd.sigmoid_cross_entropy(x, t), {x: a, t: b})
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    expected = np.maximum(a64, 0) - a64 * b64 + np.log1p(np.exp(-np.abs(a64)))
    np.testing.assert_allclose(got, expected, **tol(dtype))
    # Against the textbook formula where it is finite.
    p = 1 / (1 + np.exp(-LOGITS))
    textbook = -(TARGETS * np.log(p) + (1 - TARGETS) * np.log(1 - p))
    np.testing.assert_allclose(got[:N], textbook, rtol=1e-4 if dtype == "float32" else 1e-10)


def test_sigmoid_cross_entropy_with_number_labels():
    x = pd.data("x", shape=[3], dtype="float64")
    got = pd.eval(pd.sigmoid_cross_entropy(x, 1.0), {x: np.array([-1.0, 0.0, 2.0])})
    np.testing.assert_allclose(got, np.log1p(np.exp(-np.array([-1.0, 0.0, 2.0]))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["mse", "mae", "huber", "huber_0.5"])
def test_regression_losses(name, dtype):
    p = pd.data("p", shape=[None, C], dtype=dtype)
    t = pd.data("t", shape=[None, C], dtype=dtype)
    fn = {"mse": pd.mse, "mae": pd.mae, "huber": pd.huber,
          "huber_0.5": lambda a, b: pd.huber(a, b, delta=0.5)}[name]
    loss = fn(p, t)
    assert loss.shape == (None,) and loss.dtype == dtype
    a, b = LOGITS.astype(dtype), TARGETS.astype(dtype)
    got = pd.eval(loss, {p: a, t: b})
    e = a.astype(np.float64) - b.astype(np.float64)
    d = 0.5 if name == "huber_0.5" else 1.0
    expected = {"mse": (e ** 2).mean(-1), "mae": np.abs(e).mean(-1),
                "huber": np.where(np.abs(e) <= d, 0.5 * e ** 2, d * (np.abs(e) - 0.5 * d)).mean(-1),
                }.get(name.split("_")[0])
    np.testing.assert_allclose(got, expected, **tol(dtype))


def test_regression_losses_broadcast_targets():
    p = pd.data("p", shape=[None, C], dtype="float64")
    got = pd.eval(pd.mse(p, np.zeros(C)), {p: LOGITS})
    np.testing.assert_allclose(got, (LOGITS ** 2).mean(-1))


# ---- accuracy ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 10])
def test_accuracy(k, dtype):
    x, y = inputs(dtype)
    acc = pd.accuracy(x, y, k=k)
    assert acc.shape == () and acc.dtype == dtype
    got = pd.eval(acc, {x: LOGITS.astype(dtype), y: LABELS})
    top = np.argsort(-LOGITS, axis=-1)[:, :k]
    expected = np.mean([LABELS[i] in top[i] for i in range(N)])
    assert float(got) == pytest.approx(expected)


def test_accuracy_of_probabilities_and_ties():
    x, y = inputs("float64")
    probs = np.array([[0.5, 0.5, 0.0], [0.2, 0.3, 0.5]])
    x = pd.data("p", shape=[None, 3], dtype="float64")
    got = pd.eval(pd.accuracy(x, y), {x: probs, y: np.array([1, 2])})
    assert float(got) == 1.0                          # a tie at the top counts
    got = pd.eval(pd.accuracy(x, y), {x: probs, y: np.array([2, 0])})
    assert float(got) == 0.0


def test_accuracy_arguments():
    x, y = inputs("float32")
    with pytest.raises(ValueError, match="k"):
        pd.accuracy(x, y, k=0)
    with pytest.raises(TypeError, match="float"):
        pd.accuracy(pd.data("i", shape=[None, C], dtype="int64"), y)


# ---- labels outside the class range -----------------------------------------------------

@pytest.mark.parametrize("bad", [4, -1, 1000])
@pytest.mark.parametrize("name", ["softmax_cross_entropy", "cross_entropy", "accuracy"])
def test_label_outside_the_classes_names_it(name, bad):
    x, y = inputs("float32")
    loss = getattr(pd, name)(x, y)
    labels = LABELS.copy()
    labels[2] = bad
    with pytest.raises((ValueError, IndexError)) as info:
        pd.eval(loss, {x: LOGITS.astype(np.float32), y: labels})
    msg = str(info.value)
    assert str(bad) in msg and "test_losses.py:" in msg


def test_label_check_also_guards_the_gradient():
    x, y = inputs("float64")
    g, = pd.gradients(pd.mean(pd.softmax_cross_entropy(x, y)), [x])
    with pytest.raises((ValueError, IndexError), match="5"):
        pd.eval(g, {x: LOGITS, y: np.array([0, 1, 5, 0, 1, 2])})


# ---- shape and dtype errors -------------------------------------------------------------

def test_label_errors_at_construction():
    x, _ = inputs("float32")
    with pytest.raises(TypeError, match="integer"):
        pd.softmax_cross_entropy(x, pd.data("f", shape=[None], dtype="float32"))
    with pytest.raises(pd.ShapeError, match="test_losses.py:"):
        pd.softmax_cross_entropy(x, pd.data("w", shape=[None, 2], dtype="int64"))
    with pytest.raises(pd.ShapeError, match="test_losses.py:"):
        pd.softmax_cross_entropy(pd.data("s", shape=[5, C]), pd.data("l", shape=[4],
                                                                     dtype="int64"))
    with pytest.raises(pd.ShapeError, match="test_losses.py:"):
        pd.mse(x, pd.data("t", shape=[None, C + 1]))
    with pytest.raises(ValueError, match="known size"):
        pd.cross_entropy(pd.data("q", shape=[None, None]), pd.data("l2", shape=[None],
                                                                    dtype="int64"))


@pytest.mark.parametrize("name", ["softmax_cross_entropy", "accuracy"])
def test_batch_mismatch_found_with_the_fed_shapes(name):
    x, y = inputs("float32")
    with pytest.raises(pd.ShapeError, match="labels"):
        pd.eval(getattr(pd, name)(x, y), {x: LOGITS.astype(np.float32), y: LABELS[:4]})


# ---- gradients --------------------------------------------------------------------------

check = check_gradients  # with unknown_batch=True: None batch dims in pd.data

@pytest.mark.parametrize("unknown_batch", [False, True])
def test_softmax_cross_entropy_gradient(unknown_batch):
    check(pd.softmax_cross_entropy, [LOGITS, LABELS], unknown_batch=unknown_batch)
    check(lambda a, b: pd.mean(pd.softmax_cross_entropy(a, b)), [LOGITS, LABELS],
          unknown_batch=unknown_batch)


def test_softmax_cross_entropy_second_order():
    check_gradients(pd.softmax_cross_entropy, [LOGITS, LABELS], order=2)


@pytest.mark.parametrize("unknown_batch", [False, True])
def test_cross_entropy_gradient(unknown_batch):
    probs = RNG.uniform(0.1, 1.0, (N, C))
    check(pd.cross_entropy, [probs, LABELS], unknown_batch=unknown_batch)
    check(lambda a, b: pd.cross_entropy(pd.softmax(a), b), [LOGITS, LABELS],
          unknown_batch=unknown_batch)


@pytest.mark.parametrize("unknown_batch", [False, True])
def test_sigmoid_cross_entropy_gradient(unknown_batch):
    logits = np.where(np.abs(LOGITS) < 0.1, 0.5, LOGITS)      # away from the |x| kink
    check(pd.sigmoid_cross_entropy, [logits, TARGETS], unknown_batch=unknown_batch)


@pytest.mark.parametrize("unknown_batch", [False, True])
@pytest.mark.parametrize("name", ["mse", "mae", "huber"])
def test_regression_gradients(name, unknown_batch):
    a = LOGITS
    b = TARGETS
    e = a - b
    # Away from the kinks: |e| = 0 (mae, huber) and |e| = delta (huber).
    a = np.where(np.abs(e) < 0.1, b + 0.5, a)
    a = np.where(np.abs(np.abs(a - b) - 1.0) < 0.1, b + 1.5, a)
    check(getattr(pd, name), [a, b], unknown_batch=unknown_batch)


def test_sigmoid_cross_entropy_gradient_at_zero_logits():
    x = pd.data("x", shape=[3], dtype="float64")
    z = np.array([0.0, 0.25, 1.0])
    g, = pd.gradients(pd.sum(pd.sigmoid_cross_entropy(x, pd.constant(z, dtype="float64"))), [x])
    np.testing.assert_allclose(pd.eval(g, {x: np.zeros(3)}), 0.5 - z)
    check_gradients(pd.sigmoid_cross_entropy, [np.zeros((2, 3)), RNG.uniform(0, 1, (2, 3))])
