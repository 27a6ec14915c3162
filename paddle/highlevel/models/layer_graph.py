"""A model as a graph of layers: its inputs and layer calls, and which feeds which.

The drawings (`pd.utils.plot_model`), TensorBoard's graph view and the ONNX exporter read
a model through this one description rather than each walking Variables themselves. Plain
low-level ops between two layers (`x * 2.0` in a functional model) are looked through: the
edge goes from the layer (or input) that produced their operand.

Example:
    >>> import paddle as pd
    >>> inp = pd.Input(shape=(4,), name="features")
    >>> a = pd.layers.Dense(3, name="left")(inp)
    >>> b = pd.layers.Dense(3, name="right")(inp)
    >>> model = pd.Model(inp, pd.layers.Add(name="join")([a, b]))
    >>> [(n.name, [p.name for p in n.parents]) for n in layer_graph(model).nodes]
    [('features', []), ('left', ['features']), ('right', ['features']), ('join', ['left', 'right'])]
"""
from paddle.lowlevel.graph import Variable
from paddle.highlevel.layers.base import tensor_arguments


class GraphNode:
    """One model input or one layer of a model.

    Attributes:
        name: the layer's name or the input Variable's name.
        layer: the Layer (None for a model input).
        class_name: the layer's class name ("InputLayer" for an input, as Keras draws it).
        input_shapes, output_shapes: shapes of the first call's inputs and outputs.
        parents: the GraphNodes feeding it, in input order, without repeats.
        calls: the layer's call indices (into `layer._inbound`) that belong to this model.
    """

    def __init__(self, name, layer, class_name, input_shapes, output_shapes):
        self.name, self.layer, self.class_name = name, layer, class_name
        self.input_shapes, self.output_shapes = input_shapes, output_shapes
        self.parents = []
        self.calls = []

    def __repr__(self):
        return f"<GraphNode {self.name} ({self.class_name})>"


class LayerGraph:
    """`nodes` in data-flow order (inputs first), `inputs` and `outputs` (GraphNodes)."""

    def __init__(self, model, nodes, inputs, outputs):
        self.model, self.nodes, self.inputs, self.outputs = model, nodes, inputs, outputs


def model_io(model, who):
    """(inputs, outputs) Variables of a model that has a graph; ValueError naming the model
    and `who` otherwise (a Sequential without an input shape, a subclassed model never
    called)."""
    if getattr(model, "functional", False):
        return model.inputs, model.outputs
    graphs = getattr(model, "_graphs", None)
    if graphs:
        return graphs.get(False) or next(iter(graphs.values()))
    raise ValueError(f"{who}: the model {model.name!r} is not built: it has no input shape "
                     "yet. Start it with pd.layers.Input(shape=...), build it with "
                     "model.build(input_shape), or call it on data first")


def producers(model):
    """{id(Variable): (layer, call index, output index)} for the outputs of every call of the
    model's layers. A subclassed model's call returns its last layer's output Variable
    itself, whose `_history` then names the model: this map still finds the layer."""
    found = {}
    for layer in model.layers:
        for call, (ins, outs, _) in enumerate(layer._inbound):
            for k, v in enumerate(outs):
                if not any(v is x for x in ins):  # an identity call made nothing
                    found.setdefault(id(v), (layer, call, k))
    return found


def producer(var, model, produced):
    """(layer, call index, output index) of the layer call that made `var`, or None.

    `_history` names the last layer that returned `var`: a subclassed model returning its
    layer's output, or a layer returning its input as it is (`Activation("linear")`), takes
    it over; the layer that made it is then found in `produced` (see `producers`)."""
    history = getattr(var, "_history", None)
    if history is None:
        return None
    layer, call, _ = history
    if layer is model or any(v is var for v in layer._inbound[call][0]):
        return produced.get(id(var))
    return history


def sources(var, model, produced=None):
    """The (kind, object) pairs `var` comes from: ("layer", (layer, call, output index)) or
    ("input", Variable), looking through plain ops; parameters and constants are skipped."""
    produced = producers(model) if produced is None else produced
    found, stack, seen = [], [var], set()
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        history = producer(v, model, produced)
        if history is not None:
            found.append(("layer", history))
        elif v.kind == "data":
            found.append(("input", v))
        elif v.node is not None:
            stack.extend(reversed(v.node.inputs))
    return found


def layer_graph(model, who="layer_graph"):
    """The LayerGraph of a built model (functional, Sequential or subclassed and called)."""
    inputs, outputs = model_io(model, who)
    produced = producers(model)
    by_key = {}
    order = []

    def input_node(var):
        key = ("input", id(var))
        if key not in by_key:
            by_key[key] = GraphNode(var.name, None, "InputLayer", [var.shape], [var.shape])
            order.append(by_key[key])
        return by_key[key]

    def visit(var):
        """The GraphNodes `var` comes from, visiting their own parents first."""
        nodes = []
        for kind, what in sources(var, model, produced):
            if kind == "input":
                nodes.append(input_node(what))
                continue
            layer, call, _ = what
            key = ("layer", id(layer))
            node = by_key.get(key)
            if node is None or call not in node.calls:
                ins, outs, kwargs = layer._inbound[call]
                parents = [p for v in list(ins) + tensor_arguments(kwargs)
                           if isinstance(v, Variable) for p in visit(v)]
                if node is None:
                    node = GraphNode(layer.name, layer, type(layer).__name__,
                                     [v.shape for v in ins], [v.shape for v in outs])
                    by_key[key] = node
                    order.append(node)
                node.calls.append(call)
                for p in parents:
                    if p not in node.parents:
                        node.parents.append(p)
            nodes.append(node)
        return nodes

    for var in inputs:
        input_node(var)
    out_nodes = []
    for var in outputs:
        for node in visit(var):
            if node not in out_nodes:
                out_nodes.append(node)
    return LayerGraph(model, order, [by_key[("input", id(v))] for v in inputs], out_nodes)
