"""pd.ops.ctc_loss against a brute-force sum over every alignment, its gradient, and
ctc_decode (greedy) against a NumPy reference; numbers once computed with Keras on JAX."""
import itertools

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

RNG = np.random.default_rng(5)


def collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def brute_ctc(logits, labels, steps, blank):
    """-log of the summed probability of every path of `steps` steps that collapses to
    `labels`."""
    logp = logits[:steps] - np.log(np.exp(logits[:steps]).sum(-1, keepdims=True))
    total = 0.0
    for path in itertools.product(range(logits.shape[-1]), repeat=steps):
        if collapse(path, blank) == list(labels):
            total += np.exp(sum(logp[t, c] for t, c in enumerate(path)))
    return -np.log(total)


@pytest.mark.parametrize("blank", [0, 2])
def test_ctc_loss_sums_every_alignment(device, blank):
    logits = RNG.standard_normal((3, 5, 3))
    labels = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 0]]) if blank == 2 else \
        np.array([[1, 1, 0], [2, 0, 0], [1, 2, 0]])
    target_length, output_length = np.array([2, 1, 2]), np.array([5, 4, 3])
    got = pd.ops.ctc_loss(labels, logits.astype(np.float32), target_length, output_length,
                          mask_index=blank).numpy()
    want = [brute_ctc(logits[b], labels[b, :target_length[b]], output_length[b], blank)
            for b in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-4)


def test_ctc_loss_value_from_keras():
    # keras.ops.ctc_loss([[1, 1]], log([[[.2, .5, .3]] * 3]), [2], [3]) on JAX gives 2.9957323:
    # the one path "1 _ 1"
    logits = np.log(np.array([[[0.2, 0.5, 0.3]] * 3], np.float32))
    got = pd.ops.ctc_loss(np.array([[1, 1]]), logits, np.array([2]), np.array([3]))
    np.testing.assert_allclose(got.numpy(), [np.float32(-np.log(0.5 * 0.2 * 0.5))], rtol=1e-5)


def test_ctc_loss_gradient():
    labels = np.array([[1, 2], [2, 0]])
    check_gradients(lambda x: pd.ops.ctc_loss(labels, x, np.array([2, 1]), np.array([4, 3])),
                    [RNG.standard_normal((2, 4, 3))])


def ref_greedy(x, lengths, blank, merge):
    out = -np.ones(x.shape[:2], np.int64)
    for b in range(x.shape[0]):
        best = x[b, :lengths[b]].argmax(-1)
        kept, prev = [], None
        for c in best:
            if c != blank and not (merge and c == prev):
                kept.append(c)
            prev = c
        out[b, :len(kept)] = kept
    scores = -np.array([x[b, :lengths[b]].max(-1).sum() for b in range(x.shape[0])])
    return out[None], scores[:, None]


@pytest.mark.parametrize("blank, merge", [(0, True), (2, False), (3, True)])
def test_ctc_decode_greedy(device, blank, merge):
    x = RNG.standard_normal((3, 8, 4)).astype(np.float32)
    lengths = np.array([8, 5, 1])
    decoded, scores = pd.ops.ctc_decode(x, lengths, merge_repeated=merge, mask_index=blank)
    want, want_scores = ref_greedy(x, lengths, blank, merge)
    assert decoded.dtype == "int32"
    np.testing.assert_array_equal(decoded.numpy(), want)
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-5)


def test_errors():
    out = np.zeros((2, 5, 4), np.float32)
    with pytest.raises(TypeError, match=r"ctc_loss: expected target as 2-D integer labels.*"
                                        r"float32.*\(at test_ctc.py:\d+\)"):
        pd.ops.ctc_loss(np.zeros((2, 3), np.float32), out, np.array([1, 1]), np.array([5, 5]))
    with pytest.raises(ValueError, match=r"mask_index in \[0, 4\), received 4"):
        pd.ops.ctc_loss(np.zeros((2, 3), np.int32), out, np.array([1, 1]), np.array([5, 5]),
                        mask_index=4)
    with pytest.raises(pd.ShapeError, match=r"output_length of shape \(2,\), received \(3,\)"):
        pd.ops.ctc_loss(np.zeros((2, 3), np.int32), out, np.array([1, 1]), np.array([5, 5, 5]))
    with pytest.raises(ValueError, match=r"only strategy 'greedy'"):
        pd.ops.ctc_decode(out, np.array([5, 5]), strategy="beam_search")
