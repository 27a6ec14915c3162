"""pd.profiler: what a profile records of each kernel call (op, layer, line, shapes, FLOPs,
bytes), its table and traces, the fit callbacks that profile chosen batches, the runs it
leaves untouched outside, and the same results profiled or not, on the CPU and the
simulated GPU."""
import gzip
import json
import os

import numpy as np
import pytest

import paddle as pd
from paddle.devices import cuda, runner
from paddle.profiler import costs


def _model():
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(6, 6, 1)),
                           pd.layers.Conv2D(4, 3, activation="relu", name="conv"),
                           pd.layers.Flatten(), pd.layers.Dense(3, name="out")])
    model.compile(optimizer="adam",
                  loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    rng = np.random.default_rng(0)
    return model, rng.random((8, 6, 6, 1)).astype(np.float32), rng.integers(0, 3, 8)


@pytest.mark.parametrize("device", ["cpu", "simulated_gpu"])
def test_each_kernel_call_is_recorded_with_its_layer_line_shapes_and_cost(device):
    with cuda.simulated():
        pd.set_device("gpu" if device == "simulated_gpu" else "cpu")
        try:
            model, x, y = _model()
            model.train_on_batch(x, y)  # built and warmed up outside the profile
            with pd.profiler.profile() as prof:
                model.train_on_batch(x, y)
                model.train_on_batch(x, y)
        finally:
            pd.set_device("cpu")
    assert prof.runs == 2 and not runner.RECORDERS
    seen = {(e.op, e.layer) for e in prof.events}
    # conv2d + relu run as one node (paddle/lowlevel/fusion/conv.py); so do relu's gradient
    # and the product that passes the output layer's gradient back (fusion/matmul.py)
    assert {("fused_conv[conv2d+relu]", "conv"), ("conv2d_backprop_filter", "conv"),
            ("fused_matmul[matmul+relu_grad]", "conv"),
            ("matmul", "out"), ("apply_updates", "optimizer"),
            ("softmax_cross_entropy", "loss")} <= seen
    # the output layer's product runs with its bias (fused_matmul[matmul+add]); its kernel's
    # gradient, x^T @ g, is a matmul of the same cost
    assert ("fused_matmul[matmul+add]", "out") in seen
    grad = next(e for e in prof.events if e.op == "matmul" and e.inputs == [(8, 64), (8, 3)])
    assert grad.flops == 2 * 8 * 64 * 3 and grad.bytes == 4 * (8 * 64 + 64 * 3 + 8 * 3)
    assert grad.location.startswith("test_profiler.py:")
    assert grad.device == ("gpu:0" if device == "simulated_gpu" else "cpu")
    assert all(e.end >= e.start for e in prof.events)
    assert {e.run for e in prof.events} == {1, 2}


def test_a_profiled_step_computes_what_an_unprofiled_one_does():
    results = []
    for profiled in (False, True):
        model, x, y = _model()
        if profiled:
            with pd.profiler.profile():
                losses = [float(model.train_on_batch(x, y)) for _ in range(3)]
        else:
            losses = [float(model.train_on_batch(x, y)) for _ in range(3)]
        results.append((losses, [w.copy() for w in model.get_weights()]))
    assert results[0][0] == results[1][0]
    for a, b in zip(results[0][1], results[1][1]):
        np.testing.assert_array_equal(a, b)


def test_nothing_is_recorded_outside_a_profile_even_after_an_error():
    model, x, y = _model()
    with pytest.raises(RuntimeError, match="inside"):
        with pd.profiler.profile() as prof:
            raise RuntimeError("inside")
    assert not runner.RECORDERS
    model.train_on_batch(x, y)
    assert prof.events == [] and prof.runs == 0


def test_the_table_puts_the_most_time_first_and_shares_add_up():
    model, x, y = _model()
    with pd.profiler.profile(peak_flops=1e12, peak_bandwidth=1e11) as prof:
        for _ in range(2):
            model.train_on_batch(x, y)
    rows = prof.summary()
    assert [r["seconds"] for r in rows] == sorted((r["seconds"] for r in rows), reverse=True)
    assert sum(r["share"] for r in rows) == pytest.approx(1.0)
    assert sum(r["calls"] for r in rows) == len(prof.events)
    text = prof.table(limit=5)
    lines = text.splitlines()
    assert lines[0].startswith("paddle profile: 2 run(s)") and "1000 GFLOP/s" in lines[0]
    # (the table cuts op names at 24 characters: fused_matmul[matmul+relu_grad] among them)
    assert lines[2].split()[0] == rows[0]["op"][:24] and len(lines) == 2 + 5 + 1
    assert lines[-1].startswith(f"... {len(rows) - 5} more groups")


def test_the_chrome_trace_and_the_tensorboard_trace(tmp_path):
    model, x, y = _model()
    with pd.profiler.profile() as prof:
        model.train_on_batch(x, y)
    with open(prof.export_chrome_trace(tmp_path / "trace.json")) as f:
        trace = json.load(f)["traceEvents"]
    assert len(trace) == len(prof.events)
    assert all(e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0 for e in trace)
    conv = next(e for e in trace if e["name"] == "fused_conv[conv2d+relu]")
    assert conv["cat"] == "conv" and conv["args"]["inputs"][0] == [8, 6, 6, 1]
    path = prof.export_tensorboard(tmp_path / "logs")
    parts = os.path.relpath(path, tmp_path / "logs").split(os.sep)
    assert parts[:2] == ["plugins", "profile"] and parts[3].endswith(".trace.json.gz")
    with gzip.open(path, "rt") as f:
        assert len(json.load(f)["traceEvents"]) == len(trace)


def test_the_callback_profiles_the_chosen_batches_of_fit(tmp_path, capsys):
    model, x, y = _model()
    cb = pd.callbacks.ProfilerCallback(batches=(2, 4), trace=str(tmp_path / "t.json"))
    model.fit(np.tile(x, (4, 1, 1, 1)), np.tile(y, 4), batch_size=4, epochs=1, verbose=0,
              callbacks=[cb])
    assert cb.profile.runs == 3  # batches 2, 3 and 4 of 8
    assert os.path.exists(tmp_path / "t.json")
    assert capsys.readouterr().out.startswith("paddle profile: 3 run(s)")


def test_tensorboards_profile_batch_writes_the_trace(tmp_path):
    pytest.importorskip("tensorboard")
    model, x, y = _model()
    tb = pd.callbacks.TensorBoard(str(tmp_path), profile_batch=2)
    model.fit(x, y, batch_size=2, epochs=1, verbose=0, callbacks=[tb])
    assert tb.profile.runs == 1
    found = [f for _, _, files in os.walk(tmp_path / "train" / "plugins" / "profile")
             for f in files]
    assert len(found) == 1 and found[0].endswith(".trace.json.gz")


@pytest.mark.parametrize("batches", [0, (3, 2), (1, 2, 3), "x", 1.5, True])
def test_bad_batch_choices_say_what_is_expected(batches):
    with pytest.raises(ValueError, match=r"ProfilerCallback: expected a batch number >= 1 or "
                                         r"a pair \(first, last\)"):
        pd.callbacks.ProfilerCallback(batches=batches)


def test_gradients_are_filed_under_the_layer_whose_op_they_differentiate():
    from paddle.lowlevel.graph import building_scope
    x = pd.data("scope_x", shape=[None, 3])
    with building_scope("block"), building_scope("inner"):
        y = pd.tanh(x)
    with building_scope("reduce"):
        total = pd.sum(y)
    (dx,) = pd.gradients(total, [x])
    assert y.node.scope == "block/inner" and total.node.scope == "reduce"
    forward = {id(n) for n in _nodes(total)}
    by_scope = {}
    for n in _nodes(dx):
        if id(n) not in forward:
            by_scope.setdefault(n.scope, set()).add(n.op.name)
    assert {"square", "mul"} <= by_scope["block/inner"]  # g * (1 - tanh^2)
    assert "reduce" in by_scope and set(by_scope) <= {"block/inner", "reduce", None}


def _nodes(v):
    from paddle.lowlevel.executor import topological_nodes
    return topological_nodes([v])


def test_costs_of_the_products():
    assert costs.flops("conv2d", [(2, 8, 8, 3), (3, 3, 3, 16)], [(2, 6, 6, 16)], {}) == \
        2 * 2 * 6 * 6 * 16 * 27
    assert costs.flops("conv2d_backprop_input", [(2, 6, 6, 16), (3, 3, 3, 16)],
                       [(2, 8, 8, 3)], {}) == 2 * 2 * 6 * 6 * 16 * 27
    assert costs.flops("conv2d_backprop_filter", [(2, 8, 8, 3), (2, 6, 6, 16)],
                       [(3, 3, 3, 16)], {}) == 2 * 2 * 6 * 6 * 16 * 27
    assert costs.flops("matmul", [(5, 7), (5, 3)], [(7, 3)], {"transpose_a": True}) == \
        2 * 7 * 3 * 5
    # fused with their bias and relu: the product's count
    assert costs.flops("fused_conv[conv2d+relu]", [(2, 8, 8, 3), (3, 3, 3, 16), (16,)],
                       [(2, 6, 6, 16)], {}) == 2 * 2 * 6 * 6 * 16 * 27
    assert costs.flops("fused_conv[conv2d+add+relu]",
                       [(2, 8, 8, 3), (3, 3, 3, 16), (2, 6, 6, 16)],
                       [(2, 6, 6, 16)], {}) == 2 * 2 * 6 * 6 * 16 * 27
    assert costs.flops("conv2d[pad+conv2d]", [(2, 4, 4, 3), (3, 3, 3, 16)],
                       [(2, 6, 6, 16)], {}) == 2 * 2 * 6 * 6 * 16 * 27
    assert costs.flops("fused_matmul[matmul+add+relu]", [(7, 5), (5, 3), (3,)],
                       [(7, 3), (7, 3)], {}) == 2 * 7 * 3 * 5
    assert costs.flops("lstm", [(4, 10, 8), (8, 64), (16, 64), (64,)], [(4, 10, 16)], {}) \
        == 2 * 4 * 10 * 64 * (8 + 16)
    assert costs.flops("reshape", [(4, 4)], [(16,)], {}) is None


def test_the_table_by_op_and_by_layer():
    model, x, y = _model()
    with pd.profiler.profile(peak_flops=1e12, peak_bandwidth=1e11) as prof:
        model.train_on_batch(x, y)
    by_op = {r["op"]: r for r in prof.summary("op")}
    assert by_op["matmul"]["calls"] == sum(1 for e in prof.events if e.op == "matmul")
    # one matmul left unfused (the output kernel's gradient): its shapes; an op called at
    # several shapes lists none
    assert by_op["matmul"]["layer"] == "out" and by_op["matmul"]["shapes"] == [(8, 64), (8, 3)]
    assert by_op["mul"]["calls"] == 2 and by_op["mul"]["shapes"] == []
    by_layer = {r["layer"]: r for r in prof.summary("layer")}
    assert by_layer["conv"]["op"] == "(several)" and by_layer["conv"]["calls"] > 1
    assert sum(r["seconds"] for r in by_layer.values()) == pytest.approx(
        sum(e.seconds for e in prof.events))
    # the table's first row is the summary's first op (a long fused name is cut to the column)
    first = prof.table(group_by="op").splitlines()[2].split()[0]
    assert first and prof.summary("op")[0]["op"].startswith(first)
    with pytest.raises(ValueError, match="expected group_by one of"):
        prof.summary("node")
