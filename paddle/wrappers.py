"""Keras's `keras.wrappers` (`pd.wrappers`): scikit-learn estimators around paddle models,
`SKLearnClassifier`, `SKLearnRegressor` and `SKLearnTransformer` (scikit-learn is an
optional dependency). The code lives in paddle/highlevel/sklearn_wrappers.py.

Example:
    >>> import paddle as pd
    >>> sorted(n for n in dir(pd.wrappers) if n.startswith("SKLearn"))
    ['SKLearnClassifier', 'SKLearnRegressor', 'SKLearnTransformer']
"""

OPTIONAL_REQUIREMENTS = ("sklearn",)  # the docstring examples need scikit-learn
from paddle.highlevel.sklearn_wrappers import (  # noqa: F401
    SKLearnClassifier, SKLearnRegressor, SKLearnTransformer)
