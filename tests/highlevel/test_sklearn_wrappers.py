"""pd.wrappers: scikit-learn estimators around paddle models (skipped without
scikit-learn)."""
import numpy as np
import pytest

import paddle as pd

sklearn = pytest.importorskip("sklearn")
from sklearn.base import clone  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

RNG = np.random.default_rng(0)


def classifier(X, y, units=8):
    inp = pd.Input(shape=(X.shape[1],))
    hidden = pd.layers.Dense(units, activation="relu")(inp)
    model = pd.Model(inp, pd.layers.Dense(y.shape[1], activation="softmax")(hidden))
    model.compile(optimizer=pd.optimizers.Adam(0.05), loss="categorical_crossentropy")
    return model


def regressor(X, y):
    inp = pd.Input(shape=(X.shape[1],))
    model = pd.Model(inp, pd.layers.Dense(1)(inp))
    model.compile(optimizer=pd.optimizers.Adam(0.1), loss="mse")
    return model


def blobs(n=120):
    X = RNG.normal(size=(n, 2)).astype(np.float32)
    y = np.where(X[:, 0] > 0.5, "high", np.where(X[:, 0] < -0.5, "low", "mid"))
    return X, y


def test_classifier_learns_string_labels_in_a_pipeline():
    X, y = blobs()
    est = pd.wrappers.SKLearnClassifier(classifier, model_kwargs={"units": 16},
                                        fit_kwargs={"epochs": 40, "verbose": 0})
    pipe = make_pipeline(StandardScaler(), est).fit(X, y)
    assert pipe.score(X, y) > 0.85
    assert sorted(est.classes_.tolist()) == ["high", "low", "mid"]
    assert est.decision_function(X[:3]).shape == (3, 3) and est.n_features_in_ == 2
    assert est.epoch_ == 40


def test_regressor_and_clone():
    X = RNG.normal(size=(100, 3)).astype(np.float32)
    y = X @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3
    est = pd.wrappers.SKLearnRegressor(regressor, fit_kwargs={"epochs": 60, "verbose": 0})
    est.fit(X, y)
    assert est.predict(X).shape == (100,) and est.score(X, y) > 0.95
    twin = clone(est)
    assert twin.get_params()["fit_kwargs"] == {"epochs": 60, "verbose": 0}
    assert not hasattr(twin, "model_")


def test_transformer_and_a_compiled_model():
    X = RNG.normal(size=(32, 3)).astype(np.float32)
    inp = pd.Input(shape=(3,))
    model = pd.Model(inp, pd.layers.Dense(2)(inp))
    model.compile(optimizer="sgd", loss="mse")
    t = pd.wrappers.SKLearnTransformer(model, fit_kwargs={"verbose": 0})
    out = t.fit(X, np.zeros((32, 2), np.float32)).transform(X)
    assert out.shape == (32, 2) and t.model_ is not model  # a clone was trained


def test_warm_start_keeps_the_model():
    X, y = blobs(40)
    est = pd.wrappers.SKLearnClassifier(classifier, warm_start=True,
                                        fit_kwargs={"epochs": 1, "verbose": 0})
    first = est.fit(X, y).model_
    assert est.fit(X, y).model_ is first


def test_bad_input_says_what_was_expected():
    X, _ = blobs(10)
    with pytest.raises(ValueError, match="expected at least two classes"):
        pd.wrappers.SKLearnClassifier(classifier).fit(X, np.zeros(10))
    with pytest.raises(ValueError, match="expected binary or multiclass"):
        pd.wrappers.SKLearnClassifier(classifier).fit(X, RNG.normal(size=10))

    def uncompiled(X, y):
        inp = pd.Input(shape=(X.shape[1],))
        return pd.Model(inp, pd.layers.Dense(1)(inp))
    with pytest.raises(RuntimeError, match="must be a compiled pd.Model"):
        pd.wrappers.SKLearnRegressor(uncompiled).fit(X, np.zeros(10))
