"""Add, Multiply and Concatenate as ONNX nodes, in whatever layout their inputs share."""
from paddle.highlevel.layers.merge import Add, Concatenate, Multiply
from paddle.export.onnx.converter import CF, cf_axis, maps


def _common_layout(c, ins):
    """The first input's layout, and every input's name in it."""
    layout = c.tensor(ins[0]).layout
    return layout, [c.get(v, layout) for v in ins]


@maps(Add, Multiply)
def elementwise(c, layer, ins, outs, kwargs):
    layout, names = _common_layout(c, ins)
    if isinstance(layer, Add):
        y = c.node("Sum", names, layer.name)
    else:  # ONNX's Mul takes two inputs
        y = names[0]
        for other in names[1:]:
            y = c.node("Mul", [y, other], layer.name)
    c.set(outs[0], y, layout)


@maps(Concatenate)
def concatenate(c, layer, ins, outs, kwargs):
    layout, names = _common_layout(c, ins)
    rank = len(ins[0].shape)
    axis = layer.axis % rank
    if layout == CF and rank >= 3:
        axis = cf_axis(axis, rank)
    c.set(outs[0], c.node("Concat", names, layer.name, axis=axis), layout)
