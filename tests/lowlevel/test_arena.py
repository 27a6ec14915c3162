"""The planner's arena: every intermediate and workspace an offset into one buffer, two
buffers sharing bytes only when their lifetimes do not meet; programs without control flow
share their backend's arena. Results must not change: each test compares against the same
program planned with no reuse at all."""
import numpy as np
import pytest

import paddle as pd
from paddle.lowlevel import executor

RNG = np.random.default_rng(29)


def span(a):
    return executor.memory_span(a)


def check_no_live_overlap(program):
    """No two buffers of `program` whose lifetimes meet share a byte."""
    items = [(program.intervals[k][:2], span(b)) for k, b in program.buffers.items()]
    items.sort(key=lambda it: it[1])
    for i, ((f1, l1), (s1, e1)) in enumerate(items):
        for (f2, l2), (s2, e2) in items[i + 1:]:
            if s2 >= e1:
                break  # sorted by start: nothing later overlaps this one in memory
            assert not (f1 <= l2 and f2 <= l1), ("live buffers share memory", (f1, l1), (f2, l2))


def check_lifetimes(plan, program):
    """Each buffer's lifetime, recomputed from the program's nodes (fused ones included):
    it starts at the node that writes it and covers every node that reads it or a view of
    it."""
    storage = {}
    for t, node in enumerate(program.order):
        for n, i in enumerate(node.inputs):
            if n in node.op.shape_only:
                continue  # its values are not read
            s = storage.get(executor._key(i))
            if s in program.intervals:
                first, last = program.intervals[s][:2]
                assert first <= t <= last, (node.op.name, t, first, last)
        for own in executor._output_keys(node):
            if own in program.intervals:
                assert program.intervals[own][0] == t
                storage[own] = own
            else:  # a view (its input's storage) or a placed buffer
                storage[own] = storage.get(executor._key(node.inputs[0]))


def no_reuse(lives):
    """The plan with no sharing at all: each buffer its own bytes."""
    offsets, size = {}, 0
    for key, (_, _, shape, dtype) in lives.items():
        offsets[key] = size
        size += executor.nbytes_of(shape, dtype)
    return offsets, size


def conv_net(dtype):
    """A small training step: convolutions, batch norm, a residual add, views (reshape,
    transpose), Adam; targets: the loss, a view of an activation, and the update."""
    x = pd.data("x", shape=[None, 8, 8, 3], dtype=dtype)
    y = pd.data("y", shape=[None], dtype="int64")
    w1 = pd.Variable("w1", shape=[3, 3, 3, 8], dtype=dtype, initializer="glorot_uniform")
    w2 = pd.Variable("w2", shape=[3, 3, 8, 8], dtype=dtype, initializer="glorot_uniform")
    wd = pd.Variable("wd", shape=[8 * 4 * 4, 5], dtype=dtype, initializer="glorot_uniform")
    mm = pd.Variable("mm", shape=[8], dtype=dtype, initializer="zeros", trainable=False)
    mv = pd.Variable("mv", shape=[8], dtype=dtype, initializer="ones", trainable=False)
    h = pd.relu(pd.batch_norm(pd.conv2d(x, w1, padding="same"), None, None, mm, mv))
    h = pd.relu(pd.conv2d(h, w2, padding="same") + h)
    h = pd.conv2d(h, w2, strides=2, padding="same")
    flat = pd.reshape(h, [-1, 8 * 4 * 4])
    logits = flat @ wd
    loss = pd.mean(pd.softmax_cross_entropy(logits, y))
    step = pd.optimizers.Adam(learning_rate=0.01).minimize(loss)
    return x, y, [loss, pd.transpose(h, [0, 3, 1, 2]), step], [w1, w2, wd, mm, mv]


def train(dtype, steps=3, seed=3):
    pd.seed(seed)
    x, y, targets, weights = conv_net(dtype)
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((4, 8, 8, 3)).astype(dtype)
    ys = rng.integers(0, 5, 4)
    outs = [pd.eval(targets, {x: xs, y: ys}, training=True)[:2] for _ in range(steps)]
    plan = executor.plan_for(targets, True, None)
    return outs, [w.val().copy() for w in weights], plan


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_results_are_those_of_a_plan_without_reuse(dtype, monkeypatch):
    outs, weights, plan = train(dtype)
    program = next(iter(plan.specialized.values()))
    check_no_live_overlap(program)
    check_lifetimes(plan, program)
    # The arena is smaller than the sum of its buffers (the point of it) ...
    assert program.arena.nbytes < no_reuse(program.intervals)[1]
    monkeypatch.setattr(executor, "arena_offsets", no_reuse)
    ref_outs, ref_weights, _ = train(dtype)
    for got, want in zip(outs, ref_outs):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    for g, w in zip(weights, ref_weights):
        np.testing.assert_array_equal(g, w)


def test_convolution_workspaces_are_in_the_arena():
    _, _, plan = train("float32", steps=1)
    program = next(iter(plan.specialized.values()))
    spaces = [k for k in program.buffers if k[0] == "workspace"]
    convs = [n for n in plan.nodes if n.op.name.startswith("conv2d")]
    assert len(spaces) == len(convs) > 0
    lo, hi = span(program.arena)
    for k in spaces:
        start, end = span(program.buffers[k])
        assert lo <= start < end <= hi


def test_offsets_never_overlap_for_random_lifetimes():
    for trial in range(20):
        lives = {}
        for k in range(int(RNG.integers(1, 60))):
            first = int(RNG.integers(0, 40))
            last = first + int(RNG.integers(0, 10))
            lives[k] = (first, last, (int(RNG.integers(0, 300)),), RNG.choice(["float32", "int8"]))
        offsets, size = executor.arena_offsets(lives)
        need = {k: executor.nbytes_of(*v[2:]) for k, v in lives.items()}
        for a in lives:
            assert offsets[a] % executor.ALIGN == 0 and offsets[a] + need[a] <= size
            for b in lives:
                if a < b and lives[a][0] <= lives[b][1] and lives[b][0] <= lives[a][1]:
                    assert offsets[a] + need[a] <= offsets[b] or \
                        offsets[b] + need[b] <= offsets[a], (trial, a, b)
        # Never larger than no reuse; at least what is live at the busiest step.
        peak = max(sum(need[k] for k, v in lives.items() if v[0] <= t <= v[1])
                   for t in range(50))
        assert peak <= size <= sum(need.values())


def test_train_and_predict_programs_share_one_arena_and_keep_their_results():
    pd.seed(1)
    x = pd.data("x", shape=[None, 6])
    w = pd.Variable("w", shape=[6, 6], initializer="glorot_uniform")
    h = pd.tanh(x @ w)
    out = pd.tanh(h @ w) * 2.0
    loss = pd.mean(out * out)
    step = pd.optimizers.SGD(learning_rate=0.1).minimize(loss)
    a = RNG.standard_normal((5, 6)).astype("float32")
    b = RNG.standard_normal((3, 6)).astype("float32")
    predicted = pd.eval(out, {x: b})
    predict_plan = executor.plan_for([out], False, None)
    first_predict = next(iter(predict_plan.specialized.values()))
    pd.eval([loss, step], {x: a})
    train_program = next(iter(executor.plan_for([loss, step], False, None).specialized.values()))
    if train_program.arena.nbytes > first_predict.arena.nbytes:
        # The training program needed a larger arena: the predict program, on the smaller
        # one, was evicted, to be prepared again on the larger one.
        assert not predict_plan.specialized
    pd.eval(out, {x: b})
    predict_program = next(iter(predict_plan.specialized.values()))
    assert predict_program.arena is train_program.arena
    # Interleaved runs: each sees only its own feeds and the current weights.
    before = w.val().copy()
    again = pd.eval(out, {x: b})
    expect = np.tanh(np.tanh(b @ before) @ before) * 2.0
    np.testing.assert_allclose(again, expect, rtol=1e-5, atol=1e-6)
    assert not np.array_equal(predicted, again)  # the step changed w
    pd.eval([loss, step], {x: a})
    np.testing.assert_allclose(pd.eval(out, {x: b}),
                               np.tanh(np.tanh(b @ w.val()) @ w.val()) * 2.0,
                               rtol=1e-5, atol=1e-6)


def test_a_program_with_control_flow_has_an_arena_of_its_own():
    x = pd.data("x", shape=[None, 4])
    y = pd.ops.cond(pd.sum(x) > 0.0, lambda: pd.exp(x) + 1.0, lambda: x * 2.0)
    z = pd.exp(x) * 3.0
    a = RNG.standard_normal((2, 4)).astype("float32")
    np.testing.assert_allclose(pd.eval(y, {x: np.abs(a)}), np.exp(np.abs(a)) + 1.0, rtol=1e-6)
    np.testing.assert_allclose(pd.eval(y, {x: -np.abs(a)}), -2.0 * np.abs(a), rtol=1e-6)
    np.testing.assert_allclose(pd.eval(z, {x: a}), np.exp(a) * 3.0, rtol=1e-6)
    outer = next(iter(executor.plan_for([y], False, None).specialized.values()))
    plain = next(iter(executor.plan_for([z], False, None).specialized.values()))
    assert any(n.op.runs_programs for n in outer.nodes)
    lo, hi = span(outer.arena)
    start, end = span(plain.arena)
    assert end <= lo or hi <= start  # the branches' programs may share; the outer does not


def test_an_input_read_only_for_its_shape_is_not_kept_alive():
    # The gradient of `h + c` for c is sum_to(g, like=c): it needs c's shape, not c, so c
    # (and the big h that made it) are free once the forward has read them.
    x = pd.data("x", shape=[None, 64], dtype="float64")
    w = pd.Variable("w", shape=[64], dtype="float64", initializer="ones")
    h = pd.exp(x)
    c = pd.sum(h * 2.0, axis=0) * w                     # (64,): broadcast against (n, 64)
    loss = pd.sum(pd.tanh(h + c))
    grad = pd.gradients(loss, [w])[0]
    a = RNG.standard_normal((32, 64)) * 0.1
    got = pd.eval(grad, {x: a})
    plan = executor.plan_for([grad], False, None)
    program = next(iter(plan.specialized.values()))
    check_no_live_overlap(program)
    check_lifetimes(plan, program)
    sums = [t for t, n in enumerate(plan.nodes) if n.op.name == "sum_to"
            and n.inputs[1] is c]
    assert sums
    assert program.intervals[executor._key(c)][1] < sums[0]
    # The values: those of a plan without reuse.
    hn = np.exp(a)
    cn = (hn * 2.0).sum(0)
    gh = 1.0 - np.tanh(hn + cn) ** 2
    np.testing.assert_allclose(got, (gh.sum(0) * (hn * 2.0).sum(0)), rtol=1e-10)
