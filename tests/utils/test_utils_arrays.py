"""pd.utils: to_categorical, normalize, pad_sequences (Keras semantics) and set_random_seed."""
import random

import numpy as np
import pytest

import paddle as pd


def test_to_categorical():
    out = pd.utils.to_categorical(np.array([2, 0, 1]))
    np.testing.assert_array_equal(out, np.eye(3, dtype=np.float32)[[2, 0, 1]])
    assert out.dtype == np.float32
    assert pd.utils.to_categorical([1], num_classes=4).tolist() == [[0, 1, 0, 0]]
    # a trailing axis of 1 is dropped; other shapes keep their axes
    assert pd.utils.to_categorical(np.array([[1], [0]])).shape == (2, 2)
    assert pd.utils.to_categorical(np.zeros((2, 3), np.int64), 5).shape == (2, 3, 5)
    assert pd.utils.to_categorical(np.array([1.0, 0.0])).tolist() == [[0, 1], [1, 0]]


@pytest.mark.parametrize("labels, kwargs, match", [
    ([0, 3], {"num_classes": 3}, r"label 3 is outside \[0, 3\)"),
    ([-1], {}, "expected labels >= 0, received -1"),
    ([0.5], {}, "expected whole-number labels, received 0.5"),
    (["a"], {}, "expected integer labels"),
    ([0], {"num_classes": 0}, "expected num_classes as a positive integer"),
    ([0], {"num_classes": 2.5}, "expected num_classes as a positive integer"),
])
def test_to_categorical_errors(labels, kwargs, match):
    with pytest.raises(ValueError, match="to_categorical: " + match):
        pd.utils.to_categorical(labels, **kwargs)


def test_normalize():
    x = np.array([[3.0, 4.0], [0.0, 0.0], [1.0, -1.0]])
    np.testing.assert_allclose(pd.utils.normalize(x), x / np.maximum(
        np.linalg.norm(x, axis=-1, keepdims=True), 1e-300) * (np.abs(x).sum(-1, keepdims=True) > 0))
    np.testing.assert_allclose(pd.utils.normalize(x, axis=0, order=1),
                               x / np.abs(x).sum(0, keepdims=True))
    assert pd.utils.normalize(np.array([[1, 1]])).dtype == np.float32
    with pytest.raises(ValueError, match="normalize: expected an axis"):
        pd.utils.normalize(x, axis=2)
    with pytest.raises(ValueError, match="normalize: expected order >= 1"):
        pd.utils.normalize(x, order=0)


def _keras_pad(seqs, maxlen, padding, truncating, value):
    """A plain reference of Keras's rules."""
    maxlen = max(len(s) for s in seqs) if maxlen is None else maxlen
    out = np.full((len(seqs), maxlen), value, np.int32)
    for i, s in enumerate(seqs):
        if not s:
            continue
        kept = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        if padding == "pre":
            out[i, maxlen - len(kept):] = kept
        else:
            out[i, :len(kept)] = kept
    return out


@pytest.mark.parametrize("padding", ["pre", "post"])
@pytest.mark.parametrize("truncating", ["pre", "post"])
@pytest.mark.parametrize("maxlen", [None, 2, 5])
def test_pad_sequences(padding, truncating, maxlen):
    seqs = [[1, 2, 3, 4], [5], [], [6, 7]]
    got = pd.utils.pad_sequences(seqs, maxlen=maxlen, padding=padding, truncating=truncating,
                                 value=9)
    np.testing.assert_array_equal(got, _keras_pad(seqs, maxlen, padding, truncating, 9))
    assert got.dtype == np.int32


def test_pad_sequences_dtype_items_and_zero_length():
    got = pd.utils.pad_sequences([[0.5], [1.5, 2.5]], dtype="float32", value=-1.0)
    np.testing.assert_array_equal(got, np.array([[-1.0, 0.5], [1.5, 2.5]], np.float32))
    vectors = [np.ones((2, 3)), np.zeros((1, 3))]
    got = pd.utils.pad_sequences(vectors, padding="post", dtype="float32")
    assert got.shape == (2, 2, 3) and got[1, 1].tolist() == [0, 0, 0]
    assert pd.utils.pad_sequences([[1, 2]], maxlen=0).shape == (1, 0)
    assert pd.utils.pad_sequences([]).shape == (0, 0)


@pytest.mark.parametrize("kwargs, match", [
    ({"padding": "middle"}, "expected padding 'pre' or 'post', received 'middle'"),
    ({"truncating": "end"}, "expected truncating 'pre' or 'post'"),
    ({"maxlen": -1}, "expected maxlen as an integer >= 0"),
    ({"maxlen": 2.0}, "expected maxlen as an integer >= 0"),
    ({"value": "x"}, "dtype int32 does not hold the text padding value .x."),
])
def test_pad_sequences_errors(kwargs, match):
    with pytest.raises(ValueError, match="pad_sequences: " + match):
        pd.utils.pad_sequences([[1, 2]], **kwargs)


def test_pad_sequences_bad_sequences():
    with pytest.raises(ValueError, match="expected a list of sequences, received int"):
        pd.utils.pad_sequences(3)
    with pytest.raises(ValueError, match="expected sequence 1 to be a list or an array"):
        pd.utils.pad_sequences([[1], 2])
    with pytest.raises(ValueError, match=r"sequence 1 has items of shape \(2,\)"):
        pd.utils.pad_sequences([np.ones((1, 3)), np.ones((1, 2))])


def test_set_random_seed_seeds_python_numpy_and_paddle():
    def draw():
        w = pd.Variable("seeded", shape=[3], initializer="glorot_uniform")
        return random.random(), np.random.rand(), w.val(), \
            pd.eval(pd.random.normal((4,)))
    pd.utils.set_random_seed(11)
    first = draw()
    pd.utils.set_random_seed(11)
    second = draw()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    for bad in (-1, 2 ** 32, 1.5, True, "3"):
        with pytest.raises(ValueError, match="set_random_seed: expected an integer"):
            pd.utils.set_random_seed(bad)
