"""The walk from a model's outputs to ONNX nodes, and what every layer mapping shares.

A model is exported layer call by layer call: each call's inputs are converted first, then
the mapping registered for the layer's class (`@maps(Dense)`, in the family modules beside
this one) adds ONNX nodes built with `onnx.helper`. Nested models are converted in place.
A plain op between layers, or a layer class without a mapping, is an `ExportError` naming
it and the model.

Layouts: paddle's convolutions and pools are channels-last (NHWC), ONNX's are NCHW. A
converted tensor remembers whether it holds the channels-last value as it is (`KERAS`) or
with its channels moved to axis 1 (`CF`). Convolutions and pools take and give `CF`;
elementwise layers (activations, batch norm, dropout, add, multiply, concatenate) work in
either; layers that depend on the axis order (Flatten, Reshape, Dense, ...) ask for
`KERAS`. A `Transpose` is added only where the layout changes, so a convnet gets one
at its input and one before its Flatten: transposes at the edges only.
"""
import numpy as np

from paddle.errors import ExportError  # noqa: F401  (raised by Converter.fail)

KERAS, CF = "keras", "cf"
MAPPERS = {}


def maps(*classes):
    """Registers the decorated function as the ONNX mapping of these layer classes."""
    def register(fn):
        for cls in classes:
            MAPPERS[cls] = fn
        return fn
    return register


def to_cf(rank):
    """The permutation taking a channels-last tensor of `rank` to channels-first."""
    return [0, rank - 1] + list(range(1, rank - 1))


def to_keras(rank):
    return [0] + list(range(2, rank)) + [1]


def cf_axis(axis, rank):
    """Where a channels-last tensor's `axis` sits in its channels-first form."""
    return to_cf(rank).index(axis % rank)


class Tensor:
    """A converted value: its ONNX name, layout and rank (and the other layout, cached)."""

    def __init__(self, name, layout, rank):
        self.name, self.layout, self.rank = name, layout, rank
        self.other = None


class Converter:
    """Collects nodes and initializers while the model's layer calls are converted."""

    def __init__(self, helper, numpy_helper, model):
        self.helper, self.numpy_helper = helper, numpy_helper
        self.model = model
        self.dtype = np.dtype(getattr(model, "dtype", "float32"))  # of constants it adds
        self.nodes, self.initializers = [], []
        self.values = {}        # id(Variable) -> Tensor
        self.keep = []          # the Variables keyed in values (ids must stay unique)
        self._names = set()
        self.scope = ""

    # ---- names, nodes and constants -----------------------------------------------------

    def fresh(self, hint):
        base = (self.scope + hint).replace(":", "_")
        name, i = base, 0
        while name in self._names:
            i += 1
            name = f"{base}_{i}"
        self._names.add(name)
        return name

    def node(self, op_type, inputs, hint, outputs=1, **attrs):
        """Adds a node; returns its output name (or list of names when outputs > 1)."""
        names = [self.fresh(f"{hint}/{op_type}" + (f":{i}" if outputs > 1 else ""))
                 for i in range(outputs)]
        self.nodes.append(self.helper.make_node(op_type, list(inputs), names,
                                                name=self.fresh(f"{hint}/{op_type}_node"),
                                                **attrs))
        return names if outputs > 1 else names[0]

    def const(self, array, hint, dtype=None):
        """An initializer holding `array` (cast to dtype if given)."""
        array = np.ascontiguousarray(array if dtype is None else np.asarray(array, dtype))
        name = self.fresh(hint)
        self.initializers.append(self.numpy_helper.from_array(array, name))
        return name

    def ints(self, values, hint):
        return self.const(np.asarray(values, np.int64), hint)

    # ---- values -------------------------------------------------------------------------

    def set(self, var, name, layout=KERAS):
        self.values[id(var)] = Tensor(name, layout, len(var.shape))
        self.keep.append(var)

    def tensor(self, var):
        return self.values[id(var)]

    def get(self, var, layout=KERAS):
        """The ONNX name of `var` in `layout`, adding one Transpose if it is held in the
        other (and remembering it, so it is never added twice)."""
        t = self.values[id(var)]
        if t.layout == layout or t.rank < 3:
            return t.name
        if t.other is None:
            perm = to_cf(t.rank) if layout == CF else to_keras(t.rank)
            t.other = self.node("Transpose", [t.name], t.name.rsplit("/", 1)[0], perm=perm)
        return t.other

    def fail(self, message):
        raise ExportError(f"export: {self.model.name}: {message}")
