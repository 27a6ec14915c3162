"""Keras's `keras.distillation` (`pd.distillation`): `Distiller`, a model training a student
against a frozen teacher, and its losses `DistillationLoss`, `LogitsDistillation` and
`FeatureDistillation`. The code lives in paddle/highlevel/distillation.py.

Example:
    >>> import paddle as pd
    >>> sorted(n for n in dir(pd.distillation) if n[0].isupper())
    ['DistillationLoss', 'Distiller', 'FeatureDistillation', 'LogitsDistillation']
"""
from paddle.highlevel.distillation import (  # noqa: F401
    DistillationLoss, Distiller, FeatureDistillation, LogitsDistillation)
