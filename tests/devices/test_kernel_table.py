"""The kernel table: kernels by op name, or by an op's family, never by op class."""
import numpy as np
import pytest

import paddle as pd
from paddle.devices import cpu
from paddle.devices.kernel_table import KernelTable
from paddle.lowlevel.op import OPS


def test_an_op_without_a_kernel_of_its_name_runs_on_its_familys():
    table = KernelTable()

    @table.kernel(family="binary")
    def binary(node, ins, outs, ctx):
        return lambda: None
    assert OPS["add"].family == "binary"
    assert "add" in table and table["add"] is binary and table.get("add") is binary
    assert "exp" not in table and table.get("exp") is None  # a unary op: no family kernel
    with pytest.raises(KeyError):
        table["exp"]


def test_a_kernel_of_the_ops_own_name_comes_before_its_familys():
    table = KernelTable()

    @table.kernel(family="unary")
    def unary(node, ins, outs, ctx):
        return lambda: None

    @table.kernel("exp")
    def exp(node, ins, outs, ctx):
        return lambda: None
    assert table["exp"] is exp and table["neg"] is unary


def test_a_family_must_be_one_the_ops_know():
    with pytest.raises(ValueError, match="expected a family in .*'unary'.*received 'unry'"):
        KernelTable().kernel(family="unry")


def test_every_op_of_a_family_has_a_cpu_kernel():
    for name, op in OPS.items():
        if op.family is not None:
            assert name in cpu.KERNELS, name
    x = pd.data("kt_x", shape=[2])
    assert pd.eval(pd.greater(x, 0.5), {x: np.float32([0.0, 1.0])}).tolist() == [False, True]
