"""count_runs: how often a CPU kernel ran, for the tests of what a plan computes
(test_executor.py, test_kept_values.py)."""
from paddle.devices import cpu


def count_runs(monkeypatch, op_name):
    """Counts the runs of `op_name`'s kernel (wraps its prepare function)."""
    runs = []
    prepare = cpu.KERNELS[op_name]

    def counting(node, ins, outs, ctx):
        fn = prepare(node, ins, outs, ctx)

        def run():
            runs.append(node.op.name)
            return fn()
        return run
    monkeypatch.setitem(cpu.KERNELS, op_name, counting)
    return runs
