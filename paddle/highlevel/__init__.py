"""The high level: layers, models, compile/fit/evaluate/predict, losses, metrics, callbacks.

Everything here is built on paddle.lowlevel: a layer call builds low-level ops, and the
training loop runs the low-level plans of its loss, metrics and update ops.
"""
from paddle.highlevel import (  # noqa: F401
    callbacks, constraints, layers, losses, metrics, regularizers)
from paddle.highlevel.layers.base import Input  # noqa: F401
from paddle.highlevel.models.model import Model  # noqa: F401
from paddle.highlevel.models.sequential import Sequential  # noqa: F401
from paddle.highlevel.saving.api import load_model  # noqa: F401
