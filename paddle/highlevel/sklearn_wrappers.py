"""scikit-learn estimators around paddle models (`pd.wrappers`), as Keras's
`keras.wrappers`: `SKLearnClassifier`, `SKLearnRegressor`, `SKLearnTransformer`.

Each takes a compiled model, or a function `model(X=..., y=..., **model_kwargs)` that
builds and compiles one for the data; `fit` trains a fresh copy (`pd.models.clone_model`)
unless `warm_start=True` keeps the weights of the previous fit. They work in scikit-learn's
pipelines, grid searches and `clone`. scikit-learn is an optional dependency: the classes
raise ImportError saying so when it is missing.

Example:
    >>> import numpy as np, paddle as pd
    >>> def make(X, y):
    ...     inp = pd.Input(shape=(X.shape[1],))
    ...     model = pd.Model(inp, pd.layers.Dense(y.shape[1], activation="softmax")(inp))
    ...     model.compile(optimizer="adam", loss="categorical_crossentropy")
    ...     return model
    >>> X = np.random.default_rng(0).normal(size=(40, 3)).astype("float32")
    >>> y = (X[:, 0] > 0).astype(int)
    >>> est = pd.wrappers.SKLearnClassifier(make, fit_kwargs={"epochs": 2, "verbose": 0})
    >>> est.fit(X, y).predict(X[:4]).shape
    (4,)
"""

OPTIONAL_REQUIREMENTS = ("sklearn",)  # the docstring examples need scikit-learn
import numpy as np

from paddle.highlevel.models.model import Model
from paddle.highlevel.saving.cloning import clone_model

try:  # optional dependency: scikit-learn (the `digits` extra)
    import sklearn
    import sklearn.pipeline
    import sklearn.preprocessing
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, TransformerMixin
    from sklearn.utils.multiclass import type_of_target
    from sklearn.utils.validation import check_is_fitted
except ImportError:  # the classes still import; constructing one says what is missing
    sklearn = None

    class BaseEstimator:
        pass

    class ClassifierMixin:
        pass

    class RegressorMixin:
        pass

    class TransformerMixin:
        pass


def _validate(estimator, X, y=None, reset=True):
    """scikit-learn's input checks (and `n_features_in_`), in the API of its version."""
    validate = getattr(sklearn.utils.validation, "validate_data", None)
    kwargs = {"reset": reset}
    if validate is not None:  # scikit-learn >= 1.6
        if y is None:
            return validate(estimator, X, **kwargs)
        return validate(estimator, X, y, multi_output=True, **kwargs)
    if y is None:
        return estimator._validate_data(X, **kwargs)
    return estimator._validate_data(X, y, multi_output=True, **kwargs)


class _TargetReshaper(TransformerMixin, BaseEstimator):
    """1-D targets to a column and back (OneHotEncoder wants 2-D input)."""

    def fit(self, y):
        self.ndim_ = y.ndim
        return self

    def transform(self, y):
        return y.reshape(-1, 1) if y.ndim == 1 else y

    def inverse_transform(self, y):
        check_is_fitted(self)
        return np.squeeze(y, axis=1) if self.ndim_ == 1 and y.ndim == 2 else y


class SKLBase(BaseEstimator):
    """Base of the scikit-learn wrappers.

    Args:
        model: a compiled `pd.Model`, or a callable `model(X=X, y=y, **model_kwargs)`
            returning one (compiled, with a loss and an optimizer).
        warm_start: keep training the model of the previous `fit` (else each `fit` starts
            from a clone of `model`, or a new model from the callable).
        model_kwargs: keyword arguments for the callable `model`.
        fit_kwargs: keyword arguments for `model.fit` (those given to `fit` win).
    """

    def __init__(self, model, warm_start=False, model_kwargs=None, fit_kwargs=None):
        if sklearn is None:
            raise ImportError(f"{type(self).__name__} requires scikit-learn: "
                              f"pip install scikit-learn (or paddle's `digits` extra)")
        self.model = model
        self.warm_start = warm_start
        self.model_kwargs = model_kwargs
        self.fit_kwargs = fit_kwargs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = True
        return tags

    def __sklearn_clone__(self):
        return type(self)(model=self.model, warm_start=self.warm_start,
                          model_kwargs=self.model_kwargs, fit_kwargs=self.fit_kwargs)

    @property
    def epoch_(self):
        """The epochs of the last fit."""
        history = getattr(self, "history_", None)
        return len(history.epoch) if history is not None else 0

    def _get_model(self, X, y):
        if self.warm_start and hasattr(self, "model_"):
            return self.model_
        if isinstance(self.model, Model):
            model = clone_model(self.model)  # fresh weights; compiled as the given one
            if self.model.compiled:
                model.compile_from_config(self.model.get_compile_config())
            return model
        if not callable(self.model):
            raise TypeError(f"{type(self).__name__}: expected model to be a pd.Model or a "
                            f"callable returning one, received {self.model!r}")
        return self.model(X=X, y=y, **(self.model_kwargs or {}))

    def fit(self, X, y, **kwargs):
        """Train on `X` (n_samples, n_features) and `y`; keyword arguments go to
        `model.fit`. Returns the estimator."""
        X, y = _validate(self, X, y, reset=True)
        y = self._process_target(y, reset=True)
        model = self._get_model(X, y)
        if not isinstance(model, Model) or not model.compiled or model.optimizer is None:
            raise RuntimeError(f"{type(self).__name__}: the model must be a compiled "
                               f"pd.Model with a loss and an optimizer, received {model!r}")
        self.history_ = model.fit(X, y, **{**(self.fit_kwargs or {}), **kwargs})
        self.model_ = model
        return self

    def predict(self, X):
        """The model's predictions for `X`, in the form of the targets."""
        check_is_fitted(self)
        X = _validate(self, X, reset=False)
        return self._reverse_process_target(self.model_.predict(X, verbose=0))

    def _process_target(self, y, reset=False):
        type_of_target(y, raise_unknown=True)
        if reset:
            self._target_encoder = _TargetReshaper().fit(y)
        return self._target_encoder.transform(y)

    def _reverse_process_target(self, y):
        return self._target_encoder.inverse_transform(y)


class SKLearnClassifier(ClassifierMixin, SKLBase):
    """A scikit-learn classifier around a paddle model. The labels (binary or multiclass,
    any values) are one-hot encoded for the model, so its output has one unit per class
    (softmax) and its loss is categorical; `predict` gives labels back, `classes_` lists
    them.

    Args:
        model, warm_start, model_kwargs, fit_kwargs: see `SKLBase`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> def make(X, y):
        ...     inp = pd.Input(shape=(X.shape[1],))
        ...     out = pd.layers.Dense(y.shape[1], activation="softmax")(inp)
        ...     model = pd.Model(inp, out)
        ...     model.compile(optimizer="adam", loss="categorical_crossentropy")
        ...     return model
        >>> X = np.zeros((6, 2), "float32"); y = np.array(["a", "b", "c"] * 2)
        >>> est = pd.wrappers.SKLearnClassifier(make, fit_kwargs={"verbose": 0}).fit(X, y)
        >>> est.classes_.tolist(), est.predict(X).shape
        (['a', 'b', 'c'], (6,))
    """

    def decision_function(self, X):
        """The model's raw outputs (class scores) for `X`."""
        check_is_fitted(self)
        X = _validate(self, X, reset=False)
        return self.model_.predict(X, verbose=0)

    def _process_target(self, y, reset=False):
        target_type = type_of_target(y, raise_unknown=True)
        if target_type not in ("binary", "multiclass"):
            raise ValueError(f"{type(self).__name__}: expected binary or multiclass targets, "
                             f"received targets of type {target_type}")
        if reset:
            self._target_encoder = sklearn.pipeline.make_pipeline(
                _TargetReshaper(), sklearn.preprocessing.OneHotEncoder(sparse_output=False),
            ).fit(y)
            self.classes_ = np.unique(y)
            if len(self.classes_) == 1:
                raise ValueError(f"{type(self).__name__}: expected at least two classes, "
                                 f"received only {self.classes_[0]!r}")
        return self._target_encoder.transform(y)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True
        return tags


class SKLearnRegressor(RegressorMixin, SKLBase):
    """A scikit-learn regressor around a paddle model: `y` (n_samples,) or (n_samples,
    n_outputs) is fitted as it is; `predict` has its shape.

    Args:
        model, warm_start, model_kwargs, fit_kwargs: see `SKLBase`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> def make(X, y):
        ...     inp = pd.Input(shape=(X.shape[1],))
        ...     model = pd.Model(inp, pd.layers.Dense(1)(inp))
        ...     model.compile(optimizer="sgd", loss="mse")
        ...     return model
        >>> X = np.ones((8, 2), "float32"); y = np.ones(8, "float32")
        >>> pd.wrappers.SKLearnRegressor(make, fit_kwargs={"verbose": 0}).fit(X, y).predict(X).shape
        (8,)
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True
        return tags


class SKLearnTransformer(TransformerMixin, SKLBase):
    """A scikit-learn transformer around a paddle model: `fit` trains it on (X, y),
    `transform(X)` is its prediction (an encoder's features, say).

    Args:
        model, warm_start, model_kwargs, fit_kwargs: see `SKLBase`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> def make(X, y):
        ...     inp = pd.Input(shape=(X.shape[1],))
        ...     model = pd.Model(inp, pd.layers.Dense(2)(inp))
        ...     model.compile(optimizer="sgd", loss="mse")
        ...     return model
        >>> X = np.ones((8, 3), "float32")
        >>> t = pd.wrappers.SKLearnTransformer(make, fit_kwargs={"verbose": 0})
        >>> t.fit(X, np.zeros((8, 2), "float32")).transform(X).shape
        (8, 2)
    """

    def transform(self, X):
        """The model's outputs for `X`."""
        check_is_fitted(self)
        X = _validate(self, X, reset=False)
        return self.model_.predict(X, verbose=0)
