"""The high level: layers, models, compile/fit/evaluate/predict, losses, metrics, callbacks.

Everything here is built on paddle.lowlevel: a layer call builds low-level ops, and the
training loop runs the low-level plans of its loss, metrics and update ops.
"""
from paddle.highlevel import (  # noqa: F401
    callbacks, constraints, layers, losses, metrics, regularizers)
from paddle.highlevel.layers.base import Input  # noqa: F401
from paddle.highlevel.model import Model, Sequential  # noqa: F401
from paddle.highlevel.saving import load_model  # noqa: F401
