"""A backend's kernel table: op name -> `prepare(node, ins, outs, ctx) -> run`.

A kernel module registers its prepare functions under op names (`@kernel("matmul")`) or
under an op family (`@kernel(family="unary")`: every op whose class says `family =
"unary"`, paddle/lowlevel/op.py), so that it never imports op classes: an op without a
kernel of its own name is looked up by its family when first asked for, and kept under its
name from then on.

Example:
    >>> from paddle.devices.kernel_table import KernelTable
    >>> table = KernelTable()
    >>> @table.kernel(family="unary")
    ... def prepare(node, ins, outs, ctx):
    ...     return lambda: None
    >>> table["exp"] is prepare, "exp" in table, "matmul" in table
    (True, True, False)
"""
from paddle.lowlevel.op import FAMILIES, OPS


class KernelTable(dict):
    """The kernels of one backend, by op name (a dict), with its family kernels beside."""

    def __init__(self, half=None):
        super().__init__()
        self.families = {}
        self.half = half  # None, or what makes a prepare function run half nodes (half.py)

    def kernel(self, *names, family=None, half_native=()):
        """The decorator that registers a prepare function under op names, or a family.
        With a `half` wrapper (`half(prepare, native)`), the function registered is the
        wrapped one, which runs nodes with half buffers on float32 ones, except for the
        half dtypes of `half_native` (names), which the kernel computes in itself."""
        if family is not None and family not in FAMILIES:
            raise ValueError(f"kernel: expected a family in {FAMILIES}, received {family!r}")

        def register(prepare):
            kept = prepare
            if self.half is not None:
                prepare = self.half(prepare, half_native)
            for name in names:
                self[name] = prepare
            if family is not None:
                self.families[family] = prepare
            return kept
        return register

    def __missing__(self, name):
        op = OPS.get(name)
        prepare = self.families.get(getattr(op, "family", None))
        if prepare is None:
            raise KeyError(name)
        self[name] = prepare
        return prepare

    def __contains__(self, name):
        return self.get(name) is not None

    def get(self, name, default=None):
        try:
            return self[name]
        except KeyError:
            return default
