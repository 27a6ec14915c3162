"""The Python half of the C API: what each `pd_` function of `libpaddle_c` calls.

`libpaddle_c` (csrc/capi/paddle_c.cpp) turns C tensors into NumPy views, takes the
interpreter lock and calls these functions; everything about models (loading, checks,
steps, gradients) is decided here, on the same `Model` methods a Python user calls. An
exception raised here becomes a `pd_error`: `code_of` picks its code, `describe` its
message.

Example (what `pd_model_load` + `pd_model_predict` do):
    >>> import os, tempfile, numpy as np, paddle as pd
    >>> from paddle.capi import calls
    >>> path = os.path.join(tempfile.mkdtemp(), "m.h5")
    >>> pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)]).save(path)
    >>> m = calls.load(path)
    >>> [o.shape for o in m.predict([np.ones((4, 2), np.float32)])]
    [(4, 1)]
    >>> calls.code_of(FileNotFoundError("x")) == calls.NOT_FOUND
    True
"""
import os

import numpy as np

from paddle import devices
from paddle.errors import CheckpointError, ShapeError
from paddle.highlevel.training.checks import check_input as _check_input
from paddle.highlevel.saving.api import load_model
from paddle.highlevel.training.step import Step
from paddle.lowlevel import stored_state
from paddle.lowlevel.gradients import gradients
from paddle.lowlevel.graph import data, fresh_names

# The pd_error codes of paddle_c.h.
OK, INVALID_ARGUMENT, NOT_FOUND, SHAPE_ERROR, CHECKPOINT_ERROR, OUT_OF_MEMORY, INTERNAL = range(7)
# The pd_tensor dtypes of paddle_c.h, by code, and the codes by NumPy dtype.
DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32), np.dtype(np.int64))
DTYPE_NAMES = ("PD_FLOAT32", "PD_FLOAT64", "PD_INT32", "PD_INT64")


def code_of(exc):
    """The pd_error code for a Python exception: its `pd_code` if it carries one, else by
    class (the most specific paddle classes first)."""
    code = getattr(exc, "pd_code", None)
    if isinstance(code, int):
        return code
    for classes, code in ((ShapeError, SHAPE_ERROR), (CheckpointError, CHECKPOINT_ERROR),
                          ((FileNotFoundError, KeyError), NOT_FOUND),
                          (OSError, CHECKPOINT_ERROR),  # a file that cannot be written
                          (MemoryError, OUT_OF_MEMORY),
                          ((ValueError, TypeError, IndexError), INVALID_ARGUMENT)):
        if isinstance(exc, classes):
            return code
    return INTERNAL


def describe(exc):
    """'Class: message', as pd_error.msg carries it (a KeyError's message without quotes)."""
    text = exc.args[0] if isinstance(exc, KeyError) and len(exc.args) == 1 else exc
    return f"{type(exc).__name__}: {text}"


def _coded(exc, code):
    exc.pd_code = code
    return exc


def set_device(device):
    """pd_set_device: ValueError for a string that names no device, PD_NOT_FOUND for a
    device this machine does not have."""
    try:
        devices.set_device(device)
    except RuntimeError as e:  # a real device name, not available here
        raise _coded(e, NOT_FOUND)


def load(path):
    """pd_model_load: a LoadedModel over `pd.load_model(path)`. Loaded with a fresh name
    registry, so its parameters are named as in a new process ('dense/kernel', never
    'dense/kernel_1' because another model with those names is alive): every model loaded
    from one file has the same names."""
    try:
        with fresh_names():
            model = load_model(path)
        return LoadedModel(model)
    except CheckpointError as e:
        if not os.path.lexists(path):
            raise _coded(e, NOT_FOUND)
        raise


class LoadedModel:
    """A loaded model as the C API sees it: batches in, arrays and losses out, parameters
    and the gradients of the last forward/backward pass by name."""

    def __init__(self, model):
        self.model = model
        self.inputs = list(model.inputs)
        self._dtypes = [np.dtype(v.dtype) for v in self.inputs]
        self.num_outputs = len(model.outputs)
        self.param_names = [w.name for w in model.trainable_weights]
        self._by_name = {}
        for w in model.trainable_weights + model.non_trainable_weights:
            self._by_name.setdefault(w.name, []).append(w)
        self._grad_steps = {}
        self._grads = None

    # ---- batches ----------------------------------------------------------------------

    def predict(self, x, n_outputs=None):
        """pd_model_predict: the model's outputs for one batch, C-contiguous."""
        if n_outputs is not None and n_outputs != self.num_outputs:
            raise ValueError(f"pd_model_predict: the model has {self.num_outputs} outputs, "
                             f"received n_outputs = {n_outputs}")
        self._check_batch("pd_model_predict", x, [])
        out = self.model.predict_on_batch(x)
        out = [out] if self.num_outputs == 1 else out
        return [_exportable(a, "pd_model_predict") for a in out]

    def train(self, x, y):
        """pd_model_train_on_batch: one optimizer step; the loss before it."""
        self._check_batch("pd_model_train_on_batch", x, y)
        self._check_compiled("pd_model_train_on_batch")
        return _loss(self.model.train_on_batch(x, y))

    def evaluate(self, x, y):
        """pd_model_evaluate: the loss of one batch in inference mode."""
        self._check_batch("pd_model_evaluate", x, y)
        self._check_compiled("pd_model_evaluate")
        return _loss(self.model.test_on_batch(x, y))

    def forward_backward(self, x, y):
        """pd_model_forward_backward: the training loss and the gradient of every trainable
        parameter, kept for get_grad; no parameter, slot or moving statistic changes."""
        where = "pd_model_forward_backward"
        self._check_batch(where, x, y)
        self._check_compiled(where)
        step, weights = self._grad_step(x, y)
        # A training run updates batch-normalization moving statistics in place: put back
        # before another thread's predict can see them.
        with stored_state.LOCK:
            saved = [(w, w.val()) for w in self.model.non_trainable_weights]
            try:
                values = step(x + y + [np.ones(len(x[0]), np.float32)])
            finally:
                for w, value in saved:
                    w.set_value(value)
        self._grads = dict(zip(weights, values[1:]))
        return float(values[0])

    def _grad_step(self, x, y):
        """A Step fetching the loss and the gradients, built once per batch signature from
        the same loss terms `train_on_batch` builds."""
        key = (tuple((a.shape[1:], a.dtype.kind) for a in x),
               tuple((a.shape[1:], a.dtype.kind) for a in y))
        found = self._grad_steps.get(key)
        if found is None:
            model = self.model
            inputs, outputs = model.graph(training=True, example=x)
            for v, a in zip(inputs, x):
                _check_input(model, v, a.shape)
            ys = model._targets_for(outputs, y)
            sw = data("sample_weight", (None,), "float32")
            total, _, _ = model._loss_terms(ys, outputs, sw)
            weights = model.trainable_weights
            pairs = [(w, g) for w, g in zip(weights, gradients(total, weights))
                     if g is not None]
            step = Step(list(inputs) + ys + [sw], [total] + [g for _, g in pairs], True)
            found = self._grad_steps[key] = (step, [w for w, _ in pairs])
        return found

    def _check_batch(self, where, x, y):
        """The C API's own checks: as many inputs as the model has, each with the input's
        dtype (no silent cast of C memory), one batch size for every array, at least one
        sample. Plain loops: this runs on every call."""
        if len(x) != len(self._dtypes):
            raise ValueError(f"{where}: the model has {len(self.inputs)} inputs, received "
                             f"n_inputs = {len(x)}")
        n = None
        for i, a in enumerate(x):
            want = self._dtypes[i]
            if a.dtype != want and not (want == np.int64 and a.dtype == np.int32):
                raise ValueError(f"{where}: input {i} ({self.inputs[i].name!r}) is "
                                 f"{_pd_name(want)}, received {_pd_name(a.dtype)}")
            if a.ndim == 0 or n is not None and a.shape[0] != n:
                self._batch_error(where, x, y)
            n = a.shape[0]
        for a in y:
            if a.ndim == 0 or a.shape[0] != n:
                self._batch_error(where, x, y)
        if n == 0:
            raise ValueError(f"{where}: the batch is empty (0 samples); expected at least "
                             "one sample (nothing was run or changed)")

    @staticmethod
    def _batch_error(where, x, y):
        named = [(f"x[{i}]", a) for i, a in enumerate(x)] + \
            [(f"y[{i}]", a) for i, a in enumerate(y)]
        for name, a in named:
            if a.ndim == 0:
                raise ShapeError(f"{where}: {name} has rank 0; expected a batch (rank >= 1)")
        raise ShapeError(f"{where}: every array needs the same batch size: "
                         + ", ".join(f"{name} has {len(a)}" for name, a in named))

    def _check_compiled(self, where):
        if not self.model.compiled:
            raise ValueError(f"{where}: the model was saved without compile() (no loss or "
                             "optimizer in the file); compile it before model.save")

    # ---- parameters -------------------------------------------------------------------

    def _param(self, name, where):
        found = self._by_name.get(name)
        if not found:
            raise KeyError(f"{where}: the model has no parameter named {name!r}; its "
                           f"trainable parameters are {self.param_names}")
        if len(found) > 1:
            raise ValueError(f"{where}: {len(found)} parameters are named {name!r}")
        return found[0]

    def get_param(self, name):
        """pd_model_get_param: a C-contiguous copy of the value."""
        return _exportable(self._param(name, "pd_model_get_param").val(), "pd_model_get_param")

    def set_param(self, name, value):
        """pd_model_set_param: copies value in (shape checked, dtype cast same-kind)."""
        w = self._param(name, "pd_model_set_param")
        if value.shape != w.shape:
            raise ShapeError(f"pd_model_set_param: {name!r} has shape {w.shape}, received "
                             f"{value.shape}")
        if value.dtype.kind != np.dtype(w.dtype).kind and \
                not (value.dtype.kind in "iu" and np.dtype(w.dtype).kind == "f"):
            raise ValueError(f"pd_model_set_param: {name!r} is {_pd_name(w.dtype)}, received "
                             f"{_pd_name(value.dtype)}")
        w.set_value(value)

    def get_grad(self, name):
        """pd_model_get_grad: the gradient from the last forward_backward."""
        w = self._param(name, "pd_model_get_grad")
        if name not in self.param_names:
            raise ValueError(f"pd_model_get_grad: {name!r} is not trainable; it has no "
                             "gradient")
        if self._grads is None:
            raise ValueError("pd_model_get_grad: no gradients yet; call "
                             "pd_model_forward_backward first")
        grad = self._grads.get(w)
        if grad is None:  # the loss does not reach this parameter
            grad = np.zeros(w.shape, w.dtype)
        return _exportable(grad, "pd_model_get_grad")

    def save(self, path):
        """pd_model_save: model.save(path)."""
        self.model.save(path)


def _loss(result):
    """The loss from train_on_batch/test_on_batch (a list when there are metrics)."""
    return float(result[0] if isinstance(result, list) else result)


def _pd_name(dtype):
    dtype = np.dtype(dtype)
    return DTYPE_NAMES[DTYPES.index(dtype)] if dtype in DTYPES else str(dtype)


def _exportable(array, where):
    """A C-contiguous array of one of the four C dtypes (bool outputs become int32)."""
    if type(array) is np.ndarray and array.dtype in DTYPES and array.flags.c_contiguous \
            and array.ndim <= 8:
        return array  # the usual case, on every call
    array = np.asarray(array)
    if array.dtype == bool:
        array = array.astype(np.int32)
    if array.dtype not in DTYPES:
        raise TypeError(f"{where}: a {array.dtype} result has no pd_tensor dtype")
    if array.ndim > 8:
        raise ValueError(f"{where}: a result of rank {array.ndim}; a pd_tensor holds 8 axes")
    return np.ascontiguousarray(array)
