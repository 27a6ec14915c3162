"""Windowed and global pooling as ONNX MaxPool / AveragePool / ReduceMean / ReduceMax."""
from paddle.highlevel.layers.pooling import (AveragePooling1D, AveragePooling2D,
                                             GlobalAveragePooling1D, GlobalAveragePooling2D,
                                             GlobalMaxPooling1D, GlobalMaxPooling2D,
                                             MaxPooling1D, MaxPooling2D)
from paddle.export.onnx.conv import layout_of, window_pads
from paddle.export.onnx.converter import KERAS, maps


@maps(MaxPooling1D, MaxPooling2D, AveragePooling1D, AveragePooling2D)
def pool(c, layer, ins, outs, kwargs):
    op = "MaxPool" if isinstance(layer, (MaxPooling1D, MaxPooling2D)) else "AveragePool"
    pads = window_pads(c, layer, ins[0].shape, layer.pool_size, layer.strides,
                       (1,) * len(layer.pool_size))
    attrs = {"count_include_pad": 0} if op == "AveragePool" else {}  # padding never counts
    y = c.node(op, [c.get(ins[0], layout_of(layer))], layer.name,
               kernel_shape=list(layer.pool_size), strides=list(layer.strides), pads=pads,
               **attrs)
    c.set(outs[0], y, layout_of(layer))


@maps(GlobalAveragePooling1D, GlobalAveragePooling2D, GlobalMaxPooling1D, GlobalMaxPooling2D)
def global_pool(c, layer, ins, outs, kwargs):
    op = "ReduceMax" if isinstance(layer, (GlobalMaxPooling1D, GlobalMaxPooling2D)) \
        else "ReduceMean"
    rank = len(ins[0].shape)
    layout = layout_of(layer)
    # channels first either way: the spatial axes are 2 ... rank - 1
    y = c.node(op, [c.get(ins[0], layout)], layer.name, axes=list(range(2, rank)),
               keepdims=int(layer.keepdims))
    c.set(outs[0], y, layout if layer.keepdims else KERAS)

