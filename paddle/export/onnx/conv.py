"""Conv1D, Conv2D, DepthwiseConv2D, SeparableConv2D and Conv2DTranspose as ONNX Conv /
ConvTranspose, and ZeroPadding2D / Cropping2D as Pad / Slice beside them.

ONNX convolves channels-first tensors with (out, in / groups, *kernel) filters; paddle and
Keras keep channels last and kernels as (*kernel, in / groups, out). Kernels are transposed
once, here, into initializers; inputs come in channels-first form (`CF`) and outputs stay
in it, so consecutive convolutions and pools need no transposes between them.
"""
import numpy as np

from paddle.lowlevel.shapes import same_pads
from paddle.highlevel.layers.conv import Conv1D, Conv2D, Conv2DTranspose, DepthwiseConv2D
from paddle.highlevel.layers.conv_composed import SeparableConv2D
from paddle.highlevel.layers.reshaping import Cropping2D, ZeroPadding2D
from paddle.export.onnx.activations import apply_activation
from paddle.export.onnx.converter import CF, KERAS, maps


def layout_of(layer):
    return CF if layer.data_format == "channels_last" else KERAS


def spatial(layer, shape):
    return shape[1:-1] if layer.data_format == "channels_last" else shape[2:]


def window_pads(c, layer, in_shape, kernel, strides, dilations):
    """ONNX `pads` (all begins, then all ends) for 'valid', 'same' or 'causal'."""
    sizes = spatial(layer, in_shape)
    if layer.padding == "valid":
        return [0] * (2 * len(kernel))
    if layer.padding == "causal":
        return [(kernel[0] - 1) * dilations[0], 0]
    if None in sizes:
        c.fail(f"layer {layer.name!r}: padding 'same' needs known spatial sizes to be "
               f"exported, the input has shape {tuple(in_shape)}")
    pairs = [same_pads(n, k, s, d) for n, k, s, d in zip(sizes, kernel, strides, dilations)]
    return [p[0] for p in pairs] + [p[1] for p in pairs]


def finish(c, layer, y, out):
    layout = layout_of(layer)
    rank = len(out.shape) if layout == CF else None
    c.set(out, apply_activation(c, layer, y, rank), layout)


@maps(Conv1D, Conv2D, DepthwiseConv2D)
def conv(c, layer, ins, outs, kwargs):
    kernel = layer.kernel.val()
    groups = layer.groups
    if isinstance(layer, DepthwiseConv2D):
        kh, kw, channels, multiplier = kernel.shape
        kernel = kernel.reshape(kh, kw, 1, channels * multiplier)  # as the layer runs it
        groups = channels
    rank = kernel.ndim - 2
    weights = np.transpose(kernel, (rank + 1, rank) + tuple(range(rank)))
    args = [c.get(ins[0], layout_of(layer)), c.const(weights, f"{layer.name}/kernel")]
    if layer.bias is not None:
        args.append(c.const(layer.bias.val(), f"{layer.name}/bias"))
    pads = window_pads(c, layer, ins[0].shape, layer.kernel_size, layer.strides,
                       layer.dilation_rate)
    y = c.node("Conv", args, layer.name, kernel_shape=list(layer.kernel_size),
               strides=list(layer.strides), dilations=list(layer.dilation_rate),
               group=groups, pads=pads)
    finish(c, layer, y, outs[0])


@maps(Conv2DTranspose)
def conv_transpose(c, layer, ins, outs, kwargs):
    # The transposed convolution is the gradient of a convolution whose input has the
    # output's size: its pads are that convolution's, and output_padding makes up the rest.
    in_hw, out_hw = spatial(layer, ins[0].shape), spatial(layer, outs[0].shape)
    if None in in_hw or None in out_hw:
        c.fail(f"layer {layer.name!r}: Conv2DTranspose needs known spatial sizes to be "
               f"exported, the input has shape {tuple(ins[0].shape)}")
    begins, ends, extra = [], [], []
    for n, o, k, s, d in zip(in_hw, out_hw, layer.kernel_size, layer.strides,
                             layer.dilation_rate):
        before, after = same_pads(o, k, s, d) if layer.padding == "same" else (0, 0)
        full = s * (n - 1) + (k - 1) * d + 1
        begins.append(before)
        ends.append(after)
        extra.append(o - (full - before - after))
    if any(e < 0 for e in extra):
        c.fail(f"layer {layer.name!r}: no ONNX ConvTranspose padding gives its output size "
               f"{tuple(out_hw)} from {tuple(in_hw)}")
    weights = np.transpose(layer.kernel.val(), (3, 2, 0, 1))  # (in, out, kh, kw)
    args = [c.get(ins[0], layout_of(layer)), c.const(weights, f"{layer.name}/kernel")]
    if layer.bias is not None:
        args.append(c.const(layer.bias.val(), f"{layer.name}/bias"))
    y = c.node("ConvTranspose", args, layer.name, kernel_shape=list(layer.kernel_size),
               strides=list(layer.strides), dilations=list(layer.dilation_rate),
               pads=begins + ends, output_padding=extra)
    finish(c, layer, y, outs[0])


@maps(SeparableConv2D)
def separable_conv(c, layer, ins, outs, kwargs):
    """A grouped Conv (one group per input channel), then a 1x1 Conv with the bias."""
    depthwise = layer.depthwise_kernel.val()
    kh, kw, channels, multiplier = depthwise.shape
    depthwise = np.transpose(depthwise.reshape(kh, kw, 1, channels * multiplier), (3, 2, 0, 1))
    pads = window_pads(c, layer, ins[0].shape, layer.kernel_size, layer.strides,
                       layer.dilation_rate)
    y = c.node("Conv", [c.get(ins[0], layout_of(layer)),
                        c.const(depthwise, f"{layer.name}/depthwise_kernel")], layer.name,
               kernel_shape=list(layer.kernel_size), strides=list(layer.strides),
               dilations=list(layer.dilation_rate), group=channels, pads=pads)
    pointwise = np.transpose(layer.pointwise_kernel.val(), (3, 2, 0, 1))
    args = [y, c.const(pointwise, f"{layer.name}/pointwise_kernel")]
    if layer.bias is not None:
        args.append(c.const(layer.bias.val(), f"{layer.name}/bias"))
    y = c.node("Conv", args, layer.name, kernel_shape=[1, 1])
    finish(c, layer, y, outs[0])


@maps(ZeroPadding2D)
def zero_padding(c, layer, ins, outs, kwargs):
    (top, bottom), (left, right) = layer.padding
    layout = layout_of(layer)  # padded where the convolutions keep the data
    pads = [0, 0, top, left, 0, 0, bottom, right]
    y = c.node("Pad", [c.get(ins[0], layout), c.ints(pads, f"{layer.name}/pads")],
               layer.name, mode="constant")
    c.set(outs[0], y, layout)


@maps(Cropping2D)
def cropping(c, layer, ins, outs, kwargs):
    (top, bottom), (left, right) = layer.cropping
    layout = layout_of(layer)
    end = np.iinfo(np.int64).max
    args = [c.get(ins[0], layout), c.ints([top, left], f"{layer.name}/starts"),
            c.ints([-bottom if bottom else end, -right if right else end],
                   f"{layer.name}/ends"), c.ints([2, 3], f"{layer.name}/axes")]
    c.set(outs[0], c.node("Slice", args, layer.name), layout)
