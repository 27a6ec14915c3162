"""Metrics that average a loss (BinaryCrossentropy, CategoricalCrossentropy,
SparseCategoricalCrossentropy, Hinge, SquaredHinge, CategoricalHinge) and the regression
metrics (RootMeanSquaredError, Sum, R2Score, PearsonCorrelation, ConcordanceCorrelation):
results against Keras 3 over two weighted batches, the loss functions in pd.metrics,
reset_state, use in fit and inside a traced train_step, names, configs, bad input."""
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel import metrics

from metric_test import check_over_batches

RNG = np.random.default_rng(17)
P = RNG.uniform(0.05, 0.95, (6, 3)).round(3).astype(np.float32)
T01 = (RNG.uniform(size=(6, 3)) > 0.5).astype(np.float32)
S = RNG.normal(size=(6, 3)).round(3).astype(np.float32)
R = (S + RNG.normal(size=(6, 3)) * 0.5).round(3).astype(np.float32)
OH = np.eye(3, dtype=np.float32)[[0, 2, 1, 2, 0, 1]]
LAB = np.array([0, 2, 1, 2, 0, 1])
W = np.array([1.0, 0.5, 2.0, 0.0, 1.5, 1.0], np.float32)

# keras.metrics.<Class>(...) of Keras 3.15.1 (JAX backend) after update_state on rows 0-3
# and 4-5 with the weights W (None: no weights), result() rounded to 6 decimals.
CASES = [
    ("bce", lambda: metrics.BinaryCrossentropy(), T01, P, W, 0.603602),
    ("bce_logits_ls", lambda: metrics.BinaryCrossentropy(from_logits=True, label_smoothing=0.2),
     T01, S, W, 0.862459),
    ("cce", lambda: metrics.CategoricalCrossentropy(), OH, P, W, 1.353036),
    ("cce_logits_ls", lambda: metrics.CategoricalCrossentropy(from_logits=True,
                                                              label_smoothing=0.1),
     OH, S, W, 1.0662),
    ("scce", lambda: metrics.SparseCategoricalCrossentropy(), LAB, P, W, 1.353036),
    ("scce_logits", lambda: metrics.SparseCategoricalCrossentropy(from_logits=True), LAB, S, W,
     1.027744),
    ("hinge", lambda: metrics.Hinge(), T01, S, W, 1.157444),
    ("squared_hinge", lambda: metrics.SquaredHinge(), T01, S, W, 2.308113),
    ("categorical_hinge", lambda: metrics.CategoricalHinge(), OH, S, W, 1.2875),
    ("rmse", lambda: metrics.RootMeanSquaredError(), R, S, W, 0.421267),
    ("r2", lambda: metrics.R2Score(), R, S, W, 0.489196),
    ("r2_none", lambda: metrics.R2Score(class_aggregation=None), R, S, W,
     [0.870994, 0.740307, -0.143714]),
    ("r2_var", lambda: metrics.R2Score(class_aggregation="variance_weighted_average",
                                       num_regressors=2), R, S, W, 0.580732),
    ("r2_noweights", lambda: metrics.R2Score(), R, S, None, 0.581764),
    ("pearson", lambda: metrics.PearsonCorrelation(), R, S, W, 0.876685),
    ("pearson_axis0", lambda: metrics.PearsonCorrelation(axis=0), R, S, None, 0.250005),
    ("ccc", lambda: metrics.ConcordanceCorrelation(), R, S, W, 0.809753),
    ("ccc_noweights", lambda: metrics.ConcordanceCorrelation(), R, S, None, 0.777627),
]


@pytest.mark.parametrize("key, make, t, p, w, expected", CASES, ids=[c[0] for c in CASES])
def test_results_match_keras_over_batches_and_reset(key, make, t, p, w, expected):
    check_over_batches(make, t, p, w, expected, cut=4)


def test_sum_over_batches_with_weights():
    m = metrics.Sum()
    m.update_state(S[:4], sample_weight=W[:4])
    m.update_state(S[4:])
    # keras.metrics.Sum() on the same calls: -6.6905
    assert m.result() == pytest.approx(-6.6905, abs=1e-4)
    m.reset_state()
    assert m.result() == 0.0
    m.update_state(3.0)
    assert m.result() == 3.0


def test_loss_functions_are_in_metrics_as_keras():
    for name in ("binary_crossentropy", "binary_focal_crossentropy", "categorical_crossentropy",
                 "categorical_focal_crossentropy", "categorical_hinge", "hinge", "huber",
                 "kl_divergence", "log_cosh", "mean_absolute_error",
                 "mean_absolute_percentage_error", "mean_squared_error",
                 "mean_squared_logarithmic_error", "poisson",
                 "sparse_categorical_crossentropy", "squared_hinge"):
        assert getattr(pd.metrics, name) is getattr(pd.losses, name), name
    # keras.metrics.pearson_correlation / concordance_correlation of the first two rows
    np.testing.assert_allclose(pd.eval(pd.metrics.pearson_correlation(R[:2], S[:2])),
                               _np_pearson(R[:2], S[:2]), rtol=1e-5)
    out = pd.metrics.concordance_correlation([[0.0, 1.0, 0.5], [1.0, 1.0, 0.2]],
                                             [[0.1, 0.9, 0.5], [1.0, 0.9, 0.2]])
    np.testing.assert_allclose(pd.eval(out), [0.975609, 0.987654], rtol=1e-5)  # Keras's


def _np_pearson(t, p):
    t = t - t.mean(-1, keepdims=True)
    p = p - p.mean(-1, keepdims=True)
    return np.mean(t / t.std(-1, keepdims=True) * p / p.std(-1, keepdims=True), -1)


def test_names_in_compile_and_default_names():
    for name, cls in [("binary_crossentropy", metrics.BinaryCrossentropy),
                      ("bce", metrics.BinaryCrossentropy),
                      ("categorical_crossentropy", metrics.CategoricalCrossentropy),
                      ("sparse_categorical_crossentropy",
                       metrics.SparseCategoricalCrossentropy),
                      ("hinge", metrics.Hinge), ("squared_hinge", metrics.SquaredHinge),
                      ("categorical_hinge", metrics.CategoricalHinge),
                      ("root_mean_squared_error", metrics.RootMeanSquaredError),
                      ("r2_score", metrics.R2Score),
                      ("pearson_correlation", metrics.PearsonCorrelation),
                      ("concordance_correlation", metrics.ConcordanceCorrelation),
                      ("RootMeanSquaredError", metrics.RootMeanSquaredError),
                      ("Sum", metrics.Sum)]:
        m = metrics.get(name)
        # a name logs as given (as "mae" does); a class name gives the default name
        assert type(m) is cls and m.name == (cls().name if name[0].isupper() else name), name
    assert [cls().name for cls in (metrics.RootMeanSquaredError, metrics.Sum, metrics.R2Score,
                                   metrics.Hinge)] == [
        "root_mean_squared_error", "sum", "r2_score", "hinge"]


def test_in_fit_the_epoch_results_are_the_metrics_over_all_predictions():
    pd.seed(5)
    x = RNG.normal(size=(40, 3)).astype(np.float32)
    y = (x @ np.array([[1.0, 0.0], [0.5, 1.0], [0.0, -1.0]], np.float32)).astype(np.float32)
    model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
    model.compile(optimizer=pd.optimizers.SGD(0.0), loss="mse",
                  metrics=[metrics.RootMeanSquaredError(), metrics.R2Score(),
                           metrics.PearsonCorrelation(), "hinge"])
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0).history
    pred = model.predict(x, verbose=0)
    for name, m in [("root_mean_squared_error", metrics.RootMeanSquaredError()),
                    ("r2_score", metrics.R2Score()),
                    ("pearson_correlation", metrics.PearsonCorrelation()),
                    ("hinge", metrics.Hinge())]:
        m.update_state(y, pred)
        np.testing.assert_allclose(history[name], [m.result()] * 2, rtol=1e-4)


class TracedModel(pd.Model):
    """Metrics of its own updated inside the traced train_step (Keras's custom-step way)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.r2 = metrics.R2Score()
        self.rmse = metrics.RootMeanSquaredError()

    def train_step(self, data):
        x, y = data
        y_pred = self(x, training=True)
        loss = pd.losses.MeanSquaredError()(y, y_pred)
        self.optimizer.apply(pd.gradients(loss, self.trainable_variables),
                             self.trainable_variables)
        self.r2.update_state(y, y_pred)
        self.rmse.update_state(y, y_pred)
        return {"r2": self.r2.result(), "rmse": self.rmse.result()}

    @property
    def metrics(self):
        return [self.r2, self.rmse]


def test_inside_a_traced_train_step():
    pd.seed(6)
    x = RNG.normal(size=(24, 3)).astype(np.float32)
    y = np.stack([x[:, 0] * 2.0, x[:, 1] - x[:, 2]], axis=1).astype(np.float32)
    inputs = pd.Input(shape=(3,))
    model = TracedModel(inputs, pd.layers.Dense(2)(inputs))
    model.compile(optimizer=pd.optimizers.SGD(0.0))
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0).history
    pred = model.predict(x, verbose=0)
    r2, rmse = metrics.R2Score(), metrics.RootMeanSquaredError()
    r2.update_state(y, pred)
    rmse.update_state(y, pred)
    np.testing.assert_allclose(history["rmse"], [rmse.result()] * 2, rtol=1e-4)
    np.testing.assert_allclose(history["r2"], [r2.result()] * 2, rtol=1e-4)


def test_bad_arguments():
    with pytest.raises(ValueError, match="R2Score: expected class_aggregation None, "
                                         "'uniform_average' or 'variance_weighted_average', "
                                         "received 'mean'"):
        metrics.R2Score(class_aggregation="mean")
    with pytest.raises(ValueError, match="R2Score: expected num_regressors as an integer >= 0, "
                                         "received -1"):
        metrics.R2Score(num_regressors=-1)
    with pytest.raises(ValueError, match="r2_score: expected 2D targets and predictions"):
        metrics.R2Score().update_state(np.ones(4), np.ones(4))
    with pytest.raises(ValueError, match="PearsonCorrelation: expected axis as an integer or a "
                                         "tuple of integers, received 'x'"):
        metrics.PearsonCorrelation(axis="x")
    with pytest.raises(ValueError, match="ConcordanceCorrelation: expected axis"):
        metrics.ConcordanceCorrelation(axis=1.5)
    with pytest.raises(ValueError, match=r"BinaryCrossentropy: expected label_smoothing as a "
                                         r"number in \[0.0, 1.0\], received 2"):
        metrics.BinaryCrossentropy(label_smoothing=2)
    with pytest.raises(ValueError, match="CategoricalCrossentropy: expected label_smoothing"):
        metrics.CategoricalCrossentropy(label_smoothing=None)
    with pytest.raises(pd.ShapeError, match="hinge: expected targets shaped like the "
                                            "predictions"):
        metrics.Hinge().update_state(np.ones((2, 3)), np.ones((2, 4)))
