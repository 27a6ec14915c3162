"""A metric against the result Keras 3 gives: updated over two batches (rows before and
after `cut`), reset and updated again, and its config through from_config and serialize."""
import numpy as np

from paddle.highlevel import metrics


def check_over_batches(make, t, p, w, expected, cut):
    m = make()
    _two_batches(m, t, p, w, cut)
    np.testing.assert_allclose(m.result(), expected, rtol=2e-5, atol=2e-6)
    m.reset_state()
    _two_batches(m, t, p, w, cut)  # a reset forgets the first pass: the same result again
    np.testing.assert_allclose(m.result(), expected, rtol=2e-5, atol=2e-6)
    config = m.get_config()
    assert type(m).from_config(config).get_config() == config
    again = metrics.get(metrics.serialize(m))
    assert type(again) is type(m) and again.get_config() == config


def _two_batches(m, t, p, w, cut):
    for rows in (slice(0, cut), slice(cut, None)):
        m.update_state(t[rows], p[rows], sample_weight=None if w is None else w[rows])
