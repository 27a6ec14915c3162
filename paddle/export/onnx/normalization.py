"""BatchNormalization (inference form) and LayerNormalization as ONNX nodes."""
import numpy as np

from paddle.highlevel.layers.normalization import BatchNormalization, LayerNormalization
from paddle.export.onnx.converter import CF, KERAS, cf_axis, maps


@maps(BatchNormalization)
def batch_norm(c, layer, ins, outs, kwargs):
    """Inference: the moving statistics. ONNX's BatchNormalization wants the channels on
    axis 1, which they are for a channels-first value, a (batch, features) one or axis=1;
    on any other axis it is the same affine map as a Mul and an Add."""
    t = c.tensor(ins[0])
    rank, axis = t.rank, layer.axis % t.rank
    where = cf_axis(axis, rank) if t.layout == CF and rank >= 3 else axis
    mean, var = layer.moving_mean.val(), layer.moving_variance.val()
    gamma = layer.gamma.val() if layer.gamma is not None else np.ones_like(mean)
    beta = layer.beta.val() if layer.beta is not None else np.zeros_like(mean)
    if where == 1:
        args = [t.name] + [c.const(v, f"{layer.name}/{k}") for k, v in
                           (("gamma", gamma), ("beta", beta), ("moving_mean", mean),
                            ("moving_variance", var))]
        y = c.node("BatchNormalization", args, layer.name, epsilon=float(layer.epsilon))
    else:
        scale = gamma / np.sqrt(var + np.asarray(layer.epsilon, var.dtype))
        shift = beta - mean * scale
        shape = [-1] + [1] * (rank - 1 - where)  # broadcast along `where`
        y = c.node("Mul", [t.name, c.const(scale.reshape(shape), f"{layer.name}/scale")],
                   layer.name)
        y = c.node("Add", [y, c.const(shift.reshape(shape), f"{layer.name}/shift")],
                   layer.name)
    c.set(outs[0], y, t.layout)


@maps(LayerNormalization)
def layer_norm(c, layer, ins, outs, kwargs):
    x = c.get(ins[0], KERAS)
    rank = len(ins[0].shape)
    axes = list(layer._axes)
    shape = tuple(ins[0].shape[a] for a in axes)
    gamma = layer.gamma.val() if layer.gamma is not None else np.ones(shape, layer.dtype)
    beta = layer.beta.val() if layer.beta is not None else np.zeros(shape, layer.dtype)
    if axes == list(range(axes[0], rank)):  # the trailing axes: ONNX's own op
        y = c.node("LayerNormalization", [x, c.const(gamma, f"{layer.name}/gamma"),
                                          c.const(beta, f"{layer.name}/beta")],
                   layer.name, axis=axes[0], epsilon=float(layer.epsilon))
    else:  # other axes: the same statistics from reductions
        full = [ins[0].shape[a] if a in axes else 1 for a in range(1, rank)]
        mean = c.node("ReduceMean", [x], layer.name, axes=axes, keepdims=1)
        centred = c.node("Sub", [x, mean], layer.name)
        var = c.node("ReduceMean", [c.node("Mul", [centred, centred], layer.name)],
                     layer.name, axes=axes, keepdims=1)
        eps = c.const(np.asarray([layer.epsilon], gamma.dtype), f"{layer.name}/epsilon")
        y = c.node("Div", [centred, c.node("Sqrt", [c.node("Add", [var, eps], layer.name)],
                                           layer.name)], layer.name)
        y = c.node("Mul", [y, c.const(gamma.reshape(full), f"{layer.name}/gamma")], layer.name)
        y = c.node("Add", [y, c.const(beta.reshape(full), f"{layer.name}/beta")], layer.name)
    c.set(outs[0], y)
