"""The node that stands for a fused group in a program's node list (never in the graph).

Example:
    >>> from paddle.lowlevel.fusion.node import FusedOp
    >>> FusedOp("fused_elementwise", ["add", "relu"]).name
    'fused_elementwise[add+relu]'
"""


class FusedOp:
    """The op of a fused node: `kernel` is the backend's kernel name, `name` says what it
    runs (profiles and error messages show it)."""

    view = False
    stateful = False
    writes_inputs = False
    family = None

    def __init__(self, kernel, members):
        self.kernel = kernel
        self.members = tuple(members)
        self.name = f"{kernel}[{'+'.join(members)}]"

    def aliases(self, inputs, outputs):
        return False

    def __repr__(self):
        return f"<FusedOp {self.name}>"


class FusedNode:
    """A fused group: its inputs (the Variables read from outside the group), its program
    (`attrs`), and `root`, the group's last node, whose outputs it computes: consumers and
    targets find them under the root, and the node takes the root's location, layer and
    mode. `members` are the graph nodes it replaces, in run order."""

    __slots__ = ("op", "inputs", "attrs", "root", "members")

    def __init__(self, op, inputs, attrs, root, members):
        self.op = op
        self.inputs = tuple(inputs)
        self.attrs = attrs
        self.root = root
        self.members = tuple(members)

    @property
    def outputs_ref(self):
        return self.root.outputs_ref

    @property
    def outputs(self):
        return self.root.outputs

    @property
    def location(self):
        return self.root.location

    @property
    def mode(self):
        return self.root.mode

    @property
    def scope(self):
        return self.root.scope

    def __repr__(self):
        return f"<FusedNode {self.op.name} at {self.location or '?'}>"
