"""TruePositives, FalsePositives, TrueNegatives, FalseNegatives, PrecisionAtRecall,
RecallAtPrecision, SensitivityAtSpecificity, SpecificityAtSensitivity, IoU, MeanIoU,
BinaryIoU, OneHotIoU, OneHotMeanIoU: results against Keras 3 over two batches,
reset_state, use in fit and in a traced train_step, names, configs, bad input."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import metrics

from metric_test import check_over_batches

RNG = np.random.default_rng(18)
P = RNG.uniform(size=(8, 3)).round(3).astype(np.float32)
T = (RNG.uniform(size=(8, 3)) > 0.5).astype(np.float32)
W = RNG.uniform(size=8).round(2).astype(np.float32)
P1, T1 = P[:, 0], T[:, 1]
LAB = RNG.integers(0, 4, size=(8, 5))
PL = RNG.integers(0, 4, size=(8, 5))
SC = RNG.uniform(size=(8, 5, 4)).round(3).astype(np.float32)
W2 = RNG.integers(0, 4, size=(8, 5)).astype(np.float32)  # whole weights: see IoU's note
OH = np.eye(4, dtype=np.float32)[LAB]

# keras.metrics.<Class>(...) of Keras 3.15.1 (JAX backend) after update_state on rows 0-4
# and 5-7 with the given weights (None: none), result() rounded to 6 decimals.
CASES = [
    ("tp", lambda: metrics.TruePositives(), T, P, W, 1.5),
    ("fp_list", lambda: metrics.FalsePositives(thresholds=[0.0, 0.25, 0.6, 1.0]), T, P, W,
     [3.67, 3.43, 2.5, 0.0]),
    ("tn_even", lambda: metrics.TrueNegatives(thresholds=[0.0, 0.5, 1.0]), T, P, W,
     [0.0, 1.17, 3.67]),
    ("fn_03", lambda: metrics.FalseNegatives(thresholds=0.3), T, P, None, 4.0),
    ("tp_1d", lambda: metrics.TruePositives(thresholds=[0.2, 0.7]), T1, P1, W, [0.13, 0.0]),
    ("sens_at_spec", lambda: metrics.SensitivityAtSpecificity(0.6), T, P, W, 0.36755),
    ("spec_at_sens", lambda: metrics.SpecificityAtSensitivity(0.7, num_thresholds=50), T, P, W,
     0.065395),
    ("prec_at_rec", lambda: metrics.PrecisionAtRecall(0.4), T, P, W, 0.468217),
    ("rec_at_prec", lambda: metrics.RecallAtPrecision(0.6, num_thresholds=20), T, P, None,
     0.181818),
    ("prec_at_rec_class", lambda: metrics.PrecisionAtRecall(0.5, class_id=1), T, P, W,
     0.101351),
    ("sens_at_spec_1", lambda: metrics.SensitivityAtSpecificity(0.3, num_thresholds=1), T, P, W,
     0.496689),
    ("iou", lambda: metrics.IoU(num_classes=4, target_class_ids=[0, 2]), LAB, PL, W2, 0.088235),
    ("mean_iou", lambda: metrics.MeanIoU(num_classes=4), LAB, PL, W2, 0.112441),
    ("mean_iou_ignore", lambda: metrics.MeanIoU(num_classes=4, ignore_class=3), LAB, PL, None,
     0.083916),
    ("mean_iou_scores", lambda: metrics.MeanIoU(num_classes=4, sparse_y_pred=False), LAB, SC,
     W2, 0.146057),
    ("binary_iou", lambda: metrics.BinaryIoU(), T, P, np.repeat(W2[:, :1], 3, 1), 0.191919),
    ("binary_iou_1", lambda: metrics.BinaryIoU(target_class_ids=[1], threshold=0.3), T, P, None,
     0.318182),
    ("one_hot_iou", lambda: metrics.OneHotIoU(num_classes=4, target_class_ids=[1, 3]), OH, SC,
     W2, 0.224545),
    ("one_hot_mean_iou", lambda: metrics.OneHotMeanIoU(num_classes=4), OH, SC, None, 0.138456),
    # class id 3 lies outside num_classes=3: those pairs are left out of the counts
    ("iou_out_of_range", lambda: metrics.MeanIoU(num_classes=3), LAB, PL, W2, 0.148148),
]


@pytest.mark.parametrize("key, make, t, p, w, expected", CASES, ids=[c[0] for c in CASES])
def test_results_match_keras_over_batches_and_reset(key, make, t, p, w, expected):
    check_over_batches(make, t, p, w, expected, cut=5)


def test_counts_against_numpy_with_per_element_weights():
    thresholds = [0.1, 0.5, 0.9]
    w = RNG.uniform(size=(8, 3))
    above = P[..., None] > np.array(thresholds)
    t = T[..., None] > 0
    wanted = {metrics.TruePositives: t & above, metrics.FalsePositives: ~t & above,
              metrics.TrueNegatives: ~t & ~above, metrics.FalseNegatives: t & ~above}
    for cls, hits in wanted.items():
        m = cls(thresholds=thresholds)
        m.update_state(T, P, sample_weight=w)
        np.testing.assert_allclose(m.result(), np.sum(hits * w[..., None], axis=(0, 1)),
                                   rtol=1e-5)


def test_iou_of_a_known_confusion_matrix():
    # rows: true class, columns: predicted class
    cm = np.array([[3.0, 1.0, 0.0], [2.0, 4.0, 1.0], [0.0, 0.0, 0.0]])
    t = np.repeat([0, 0, 1, 1, 1], [3, 1, 2, 4, 1])
    p = np.repeat([0, 1, 0, 1, 2], [3, 1, 2, 4, 1])
    m = metrics.MeanIoU(num_classes=3)
    m.update_state(t, p)
    np.testing.assert_allclose(m.total_cm, cm)
    iou = np.diag(cm) / (cm.sum(0) + cm.sum(1) - np.diag(cm))  # class 2: 0 / 1
    assert m.result() == pytest.approx(np.mean(iou), rel=1e-6)
    # (N,) weights on (N, H, W) ids weigh every pixel of their example (Keras refuses them)
    m = metrics.MeanIoU(num_classes=4)
    m.update_state(LAB[:2], PL[:2], sample_weight=np.array([2.0, 0.0]))
    full = metrics.MeanIoU(num_classes=4)
    full.update_state(LAB[:1], PL[:1], sample_weight=np.full((1, 5), 2.0))
    np.testing.assert_allclose(m.total_cm, full.total_cm)


def test_names_and_string_lookup():
    assert [m.name for m in (metrics.TruePositives(), metrics.FalseNegatives(),
                             metrics.PrecisionAtRecall(0.5), metrics.IoU(2, [0]),
                             metrics.MeanIoU(2), metrics.BinaryIoU(),
                             metrics.OneHotMeanIoU(2))] == [
        "true_positives", "false_negatives", "precision_at_recall", "io_u", "mean_io_u",
        "binary_io_u", "one_hot_mean_io_u"]
    for name, cls in [("true_positives", metrics.TruePositives),
                      ("false_positives", metrics.FalsePositives),
                      ("true_negatives", metrics.TrueNegatives),
                      ("false_negatives", metrics.FalseNegatives),
                      ("TrueNegatives", metrics.TrueNegatives)]:
        assert type(metrics.get(name)) is cls


def test_in_fit_and_evaluate():
    pd.seed(7)
    x = RNG.normal(size=(48, 4)).astype(np.float32)
    y = (x[:, :1] - x[:, 1:2] > 0).astype(np.float32)
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=pd.optimizers.SGD(0.0), loss="binary_crossentropy",
                  metrics=["true_positives", metrics.FalseNegatives(),
                           metrics.PrecisionAtRecall(0.5, num_thresholds=50),
                           metrics.BinaryIoU(target_class_ids=[1])])
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0).history
    pred = model.predict(x, verbose=0)
    for name, m in [("true_positives", metrics.TruePositives()),
                    ("false_negatives", metrics.FalseNegatives()),
                    ("precision_at_recall", metrics.PrecisionAtRecall(0.5, num_thresholds=50)),
                    ("binary_io_u", metrics.BinaryIoU(target_class_ids=[1]))]:
        m.update_state(y, pred)
        np.testing.assert_allclose(history[name], [m.result()] * 2, rtol=1e-5, atol=1e-6)
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert logs["true_positives"] == pytest.approx(history["true_positives"][-1])


class SegmentationModel(pd.Model):
    """A MeanIoU and a SensitivityAtSpecificity updated inside the traced train_step."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.iou = metrics.MeanIoU(num_classes=3, sparse_y_pred=False)
        self.sens = metrics.SensitivityAtSpecificity(0.5, num_thresholds=20, class_id=0)

    def train_step(self, data):
        x, y = data
        y_pred = self(x, training=True)
        loss = pd.losses.SparseCategoricalCrossentropy()(y, y_pred)
        self.optimizer.apply(pd.gradients(loss, self.trainable_variables),
                             self.trainable_variables)
        self.iou.update_state(y, y_pred)
        self.sens.update_state(pd.one_hot(pd.cast(y, "int64"), 3), y_pred)
        return {"iou": self.iou.result(), "sens": self.sens.result()}

    @property
    def metrics(self):
        return [self.iou, self.sens]


def test_inside_a_traced_train_step():
    pd.seed(8)
    x = RNG.normal(size=(30, 2)).astype(np.float32)
    y = ((x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0)).astype(np.int64)
    inputs = pd.Input(shape=(2,))
    model = SegmentationModel(inputs, pd.layers.Dense(3, activation="softmax")(inputs))
    model.compile(optimizer=pd.optimizers.SGD(0.0))
    history = model.fit(x, y, batch_size=10, epochs=2, verbose=0).history
    pred = model.predict(x, verbose=0)
    iou = metrics.MeanIoU(num_classes=3, sparse_y_pred=False)
    iou.update_state(y, pred)
    sens = metrics.SensitivityAtSpecificity(0.5, num_thresholds=20, class_id=0)
    sens.update_state(np.eye(3)[y], pred)
    np.testing.assert_allclose(history["iou"], [iou.result()] * 2, rtol=1e-5)
    np.testing.assert_allclose(history["sens"], [sens.result()] * 2, rtol=1e-5)


def test_bad_arguments_name_the_class_the_argument_and_the_value():
    with pytest.raises(ValueError, match=r"TruePositives: expected thresholds as a number in "
                                         r"\[0, 1\] or a list of them, received 1.5"):
        metrics.TruePositives(thresholds=1.5)
    with pytest.raises(ValueError, match="FalsePositives: expected thresholds"):
        metrics.FalsePositives(thresholds=[0.2, "x"])
    with pytest.raises(ValueError, match=r"PrecisionAtRecall: expected recall in \[0, 1\], "
                                         r"received 2"):
        metrics.PrecisionAtRecall(2)
    with pytest.raises(ValueError, match="RecallAtPrecision: expected num_thresholds as an "
                                         "integer > 0, received 0"):
        metrics.RecallAtPrecision(0.5, num_thresholds=0)
    with pytest.raises(ValueError, match="SpecificityAtSensitivity: expected class_id"):
        metrics.SpecificityAtSensitivity(0.5, class_id=-1)
    with pytest.raises(ValueError, match="sensitivity_at_specificity: class_id 5 is outside "
                                         "the 3 classes"):
        metrics.SensitivityAtSpecificity(0.5, class_id=5).update_state(T, P)
    with pytest.raises(ValueError, match=r"IoU: expected target_class_ids as class ids in "
                                         r"\[0, 3\), received \[0, 3\]"):
        metrics.IoU(num_classes=3, target_class_ids=[0, 3])
    with pytest.raises(ValueError, match="MeanIoU: expected num_classes as an integer >= 1, "
                                         "received 0"):
        metrics.MeanIoU(num_classes=0)
    with pytest.raises(ValueError, match="MeanIoU: expected ignore_class"):
        metrics.MeanIoU(num_classes=2, ignore_class="void")
    with pytest.raises(ValueError, match="BinaryIoU: expected threshold as a number"):
        metrics.BinaryIoU(threshold=None)
    with pytest.raises(pd.ShapeError, match=r"mean_io_u: the target ids: expected targets "
                                            r"shaped like the predictions: predictions are "
                                            r"\(6,\), targets are \(4,\)"):
        metrics.MeanIoU(num_classes=2).update_state(np.zeros(4), np.zeros(6))
    with pytest.raises(ValueError, match="io_u: expected as many target ids as predicted ids, "
                                         "received 4 and 6"):
        metrics.IoU(2, [0]).batch_values(pd.constant(np.zeros(4)), pd.constant(np.zeros(6)))
    with pytest.raises(ValueError, match="one_hot_mean_io_u: axis 2 is outside the 2 axes"):
        metrics.OneHotMeanIoU(num_classes=2, axis=2).update_state(np.eye(2), np.eye(2))
