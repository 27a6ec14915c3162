"""Precision, Recall, F1Score/FBetaScore, AUC and the regression metrics (MAPE, MSLE,
KLDivergence, Poisson, LogCoshError, CosineSimilarity): NumPy transcriptions of Keras 3,
accumulation over batches, sample weights, use in fit, configs and bad arguments."""
import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

import paddle as pd
from paddle.highlevel import metrics

RNG = np.random.default_rng(37)
EPS = 1e-7


def np_counts(t, p, threshold=0.5, top_k=None, class_id=None, w=None):
    t = (t != 0).astype(float)
    w = np.ones(t.shape[0]) if w is None else w
    w = w.reshape((-1,) + (1,) * (t.ndim - 1)) * np.ones_like(t)
    if top_k is not None:
        kth = -np.sort(-p, axis=-1)[..., top_k - 1:top_k]
        keep = p >= kth
    else:
        keep = np.ones_like(p, bool)
    if class_id is not None:
        t, p, keep, w = t[..., class_id], p[..., class_id], keep[..., class_id], \
            w[..., class_id]
    pos = keep & ((p > threshold) if threshold is not None else True)
    return np.sum(w * t * pos), np.sum(w * (1 - t) * pos), np.sum(w * t * ~pos)


@pytest.mark.parametrize("kwargs", [{}, {"thresholds": 0.3}, {"top_k": 2},
                                    {"top_k": 1, "thresholds": 0.6}, {"class_id": 2},
                                    {"class_id": 1, "top_k": 2}])
def test_precision_recall_over_batches(kwargs):
    t = (RNG.uniform(size=(30, 4)) > 0.6).astype(np.float32)
    p = RNG.uniform(size=(30, 4)).astype(np.float32)
    w = RNG.uniform(size=30).astype(np.float32)
    threshold = kwargs.get("thresholds", None if "top_k" in kwargs else 0.5)
    tp, fp, fn = np_counts(t, p, threshold, kwargs.get("top_k"), kwargs.get("class_id"), w)
    prec, rec = metrics.Precision(**kwargs), metrics.Recall(**kwargs)
    for lo in range(0, 30, 10):
        prec.update_state(t[lo:lo + 10], p[lo:lo + 10], sample_weight=w[lo:lo + 10])
        rec.update_state(t[lo:lo + 10], p[lo:lo + 10], sample_weight=w[lo:lo + 10])
    assert prec.result() == pytest.approx(tp / (tp + fp), rel=1e-5)
    assert rec.result() == pytest.approx(tp / (tp + fn), rel=1e-5)
    prec.reset_state()
    assert prec.result() == 0.0


def np_fbeta(t, p, beta=1.0, average=None, threshold=None):
    pos = (p >= p.max(-1, keepdims=True)) if threshold is None else (p > threshold)
    pos = pos.astype(float)
    axis = None if average == "micro" else 0
    tp = np.sum(pos * t, axis)
    fp = np.sum(pos * (1 - t), axis)
    fn = np.sum((1 - pos) * t, axis)
    prec, rec = tp / (tp + fp + EPS), tp / (tp + fn + EPS)
    score = (1 + beta ** 2) * prec * rec / (beta ** 2 * prec + rec + EPS)
    if average == "weighted":
        support = np.sum(t, 0)
        return np.sum(score * support / (support.sum() + EPS))
    return score if average is None else np.mean(score)


@pytest.mark.parametrize("average", [None, "micro", "macro", "weighted"])
@pytest.mark.parametrize("threshold", [None, 0.4])
def test_f1_and_fbeta(average, threshold):
    t = (RNG.uniform(size=(40, 3)) > 0.5).astype(np.float32)
    p = RNG.uniform(size=(40, 3)).astype(np.float32)
    for beta, m in ((1.0, metrics.F1Score(average, threshold)),
                    (2.0, metrics.FBetaScore(average, 2.0, threshold))):
        m.update_state(t[:25], p[:25])
        m.update_state(t[25:], p[25:])
        np.testing.assert_allclose(m.result(), np_fbeta(t, p, beta, average, threshold),
                                   rtol=1e-5)


def np_auc(t, p, num_thresholds=200, curve="ROC", method="interpolation", w=None,
           thresholds=None):
    """Keras 3's AUC on one flattened curve."""
    if thresholds is None:
        thresholds = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    th = np.array([-EPS] + list(thresholds) + [1 + EPS])
    t, p = (t != 0).ravel().astype(float), p.ravel()
    w = np.ones_like(t) if w is None else w
    above = p[:, None] > th[None, :]
    tp = np.sum(w[:, None] * t[:, None] * above, 0)
    fp = np.sum(w[:, None] * (1 - t[:, None]) * above, 0)
    tn = np.sum(w[:, None] * (1 - t[:, None]) * ~above, 0)
    fn = np.sum(w[:, None] * t[:, None] * ~above, 0)

    def div(a, b):
        return np.divide(a, b, out=np.zeros_like(a), where=b != 0)
    if curve == "PR" and method == "interpolation":
        dtp = tp[:-1] - tp[1:]
        pp = tp + fp
        dp = pp[:-1] - pp[1:]
        slope = div(dtp, np.maximum(dp, 0))
        intercept = tp[1:] - slope * pp[1:]
        ratio = np.where((pp[:-1] > 0) & (pp[1:] > 0), div(pp[:-1], np.maximum(pp[1:], 0)), 1)
        return np.sum(div(slope * (dtp + intercept * np.log(ratio)),
                          np.maximum(tp[1:] + fn[1:], 0)))
    recall = div(tp, tp + fn)
    x, y = (div(fp, fp + tn), recall) if curve == "ROC" else (recall, div(tp, tp + fp))
    heights = {"interpolation": (y[:-1] + y[1:]) / 2, "minoring": np.minimum(y[:-1], y[1:]),
               "majoring": np.maximum(y[:-1], y[1:])}[method]
    return np.sum((x[:-1] - x[1:]) * heights)


@pytest.mark.parametrize("curve", ["ROC", "PR"])
@pytest.mark.parametrize("method", ["interpolation", "minoring", "majoring"])
def test_auc_matches_keras_rules(curve, method):
    t = (RNG.uniform(size=(60,)) > 0.5).astype(np.float32)
    p = np.clip(t * 0.3 + RNG.uniform(size=60) * 0.7, 0, 1).astype(np.float32)
    w = RNG.uniform(size=60).astype(np.float32)
    m = metrics.AUC(num_thresholds=50, curve=curve, summation_method=method)
    for lo in (0, 20, 40):
        m.update_state(t[lo:lo + 20], p[lo:lo + 20], sample_weight=w[lo:lo + 20])
    assert m.result() == pytest.approx(np_auc(t, p, 50, curve, method, w), rel=1e-5)


def test_auc_close_to_exact_areas_and_options():
    t = (RNG.uniform(size=(500,)) > 0.5).astype(np.float32)
    p = np.clip(t * 0.25 + RNG.uniform(size=500) * 0.75, 0, 1)
    m = metrics.AUC(num_thresholds=1000)
    m.update_state(t, p)
    assert m.result() == pytest.approx(roc_auc_score(t, p), abs=2e-3)
    pr = metrics.AUC(num_thresholds=1000, curve="PR")
    pr.update_state(t, p)
    assert pr.result() == pytest.approx(average_precision_score(t, p), abs=2e-2)
    logits = metrics.AUC(from_logits=True)
    logits.update_state(t, np.log(p + 1e-6) - np.log1p(-p + 1e-6))
    plain = metrics.AUC()
    plain.update_state(t, p)
    assert logits.result() == pytest.approx(plain.result(), abs=1e-2)
    given = metrics.AUC(thresholds=[0.25, 0.5, 0.75])
    given.update_state(t, p)
    assert given.result() == pytest.approx(np_auc(t, p, thresholds=[0.25, 0.5, 0.75]),
                                           rel=1e-6)


def test_auc_multi_label():
    t = (RNG.uniform(size=(80, 3)) > 0.5).astype(np.float32)
    p = np.clip(t * 0.3 + RNG.uniform(size=(80, 3)) * 0.7, 0, 1).astype(np.float32)
    per = [np_auc(t[:, j], p[:, j], 100) for j in range(3)]
    m = metrics.AUC(num_thresholds=100, multi_label=True)
    m.update_state(t, p)
    assert m.result() == pytest.approx(np.mean(per), rel=1e-5)
    weighted = metrics.AUC(num_thresholds=100, multi_label=True, label_weights=[1, 0, 3])
    weighted.update_state(t, p)
    assert weighted.result() == pytest.approx((per[0] + 3 * per[2]) / 4, rel=1e-5)
    flat = metrics.AUC(num_thresholds=100)
    flat.update_state(t, p)
    assert flat.result() == pytest.approx(np_auc(t, p, 100), rel=1e-5)


def test_in_fit_and_evaluate():
    pd.seed(0)
    x = RNG.normal(size=(200, 4)).astype(np.float32)
    y = (x[:, :1] + 0.5 * x[:, 1:2] > 0).astype(np.float32)
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=pd.optimizers.Adam(0.05), loss="binary_crossentropy",
                  metrics=["auc", "precision", "recall", metrics.F1Score(average="micro",
                                                                        threshold=0.5)])
    history = model.fit(x, y, batch_size=50, epochs=10, verbose=0)
    assert history.history["auc"][-1] > 0.95
    logs = model.evaluate(x, y, batch_size=64, verbose=0, return_dict=True)
    p = model.predict(x, verbose=0)
    assert logs["auc"] == pytest.approx(np_auc(y, p), rel=1e-4)
    tp, fp, fn = np_counts(y, p)
    assert logs["precision"] == pytest.approx(tp / (tp + fp), rel=1e-4)
    assert logs["recall"] == pytest.approx(tp / (tp + fn), rel=1e-4)
    assert logs["f1_score"] == pytest.approx(float(np_fbeta(y, p, 1.0, "micro", 0.5)),
                                             rel=1e-4)


REGRESSION = [
    (metrics.MeanAbsolutePercentageError, "mape",
     lambda t, p: 100 * np.mean(np.abs(t - p) / np.maximum(np.abs(t), EPS), -1)),
    (metrics.MeanSquaredLogarithmicError, "msle",
     lambda t, p: np.mean((np.log1p(p) - np.log1p(t)) ** 2, -1)),
    (metrics.KLDivergence, "kld",
     lambda t, p: np.sum(np.clip(t, EPS, 1) * np.log(np.clip(t, EPS, 1) / np.clip(p, EPS, 1)),
                         -1)),
    (metrics.Poisson, "poisson", lambda t, p: np.mean(p - t * np.log(p + EPS), -1)),
    (metrics.LogCoshError, "logcosh", lambda t, p: np.mean(np.log(np.cosh(p - t)), -1)),
    (metrics.CosineSimilarity, "cosine_similarity",
     lambda t, p: np.sum(t * p, -1) / np.linalg.norm(t, axis=-1) / np.linalg.norm(p, axis=-1)),
]


@pytest.mark.parametrize("cls, name, ref", REGRESSION, ids=[r[1] for r in REGRESSION])
def test_regression_metrics(cls, name, ref):
    t = RNG.uniform(0.1, 1, size=(20, 3))
    p = RNG.uniform(0.1, 1, size=(20, 3))
    w = RNG.uniform(size=20)
    m = cls()
    m.update_state(t[:12], p[:12], sample_weight=w[:12])
    m.update_state(t[12:], p[12:], sample_weight=w[12:])
    assert m.result() == pytest.approx(np.sum(ref(t, p) * w) / np.sum(w), rel=1e-5)
    assert type(metrics.get(name)) is cls and metrics.get(name).name == name
    assert cls.from_config(cls().get_config()).get_config() == cls().get_config()


def test_configs_round_trip_and_serialize():
    for m in (metrics.AUC(num_thresholds=7, curve="PR", multi_label=True, label_weights=[1, 2]),
              metrics.AUC(thresholds=[0.2, 0.8]), metrics.Precision(0.3, top_k=2, class_id=1),
              metrics.Recall(), metrics.F1Score("macro", 0.5), metrics.FBetaScore("weighted", 0.5)):
        again = metrics.get(metrics.serialize(m))
        assert type(again) is type(m) and again.get_config() == m.get_config()


@pytest.mark.parametrize("make, match", [
    (lambda: metrics.Precision(thresholds=1.5), r"Precision: expected thresholds in \[0, 1\]"),
    (lambda: metrics.Recall(top_k=0), r"Recall: expected top_k >= 1 or None"),
    (lambda: metrics.Recall(class_id=-1), r"Recall: expected class_id as an integer >= 0"),
    (lambda: metrics.F1Score(average="mean"), r"F1Score: expected average None, 'micro'"),
    (lambda: metrics.FBetaScore(beta=0), r"FBetaScore: expected beta > 0"),
    (lambda: metrics.AUC(num_thresholds=1), r"AUC: expected num_thresholds as an integer > 1"),
    (lambda: metrics.AUC(curve="roc"), r"AUC: expected curve 'ROC' or 'PR'"),
    (lambda: metrics.AUC(summation_method="trapezoid"), r"AUC: expected summation_method"),
    (lambda: metrics.AUC(thresholds=[0.5, 2.0]), r"AUC: expected thresholds in \[0, 1\]"),
    (lambda: metrics.CosineSimilarity(axis=None), r"CosineSimilarity: expected an integer"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_shapes():
    with pytest.raises(ValueError, match=r"f1_score: expected \(batch, classes\) predictions"):
        metrics.F1Score().update_state(np.ones(4), np.ones(4))
    with pytest.raises(ValueError, match=r"precision: class_id 5 is outside the 3 classes"):
        metrics.Precision(class_id=5).update_state(np.ones((2, 3)), np.ones((2, 3)))
