"""pd.eval: minimal subgraphs, feeds, plan caching and specialization, buffer reuse,
results as copies, update ops, kernel errors, memory (no growth, dropped graphs freed)."""
import gc
import weakref

import numpy as np
import pytest

import paddle as pd
from paddle.devices import cpu
from paddle.lowlevel import executor

from lowlevel.kernel_counts import count_runs

RNG = np.random.default_rng(6)


# ---- the minimal subgraph ---------------------------------------------------------------

def test_runs_only_the_ops_the_targets_need(monkeypatch):
    runs = count_runs(monkeypatch, "exp")
    x = pd.data("x", shape=[None, 2])
    a = x * 2.0
    b = pd.exp(x)                                   # not needed by `a`
    c = pd.exp(a)
    pd.eval(a, {x: np.ones((3, 2))})
    assert runs == []
    pd.eval([a, c], {x: np.ones((3, 2))})
    assert runs == ["exp"]
    assert b.shape == (None, 2)


def test_a_target_that_needs_no_feed_runs_without_it():
    x = pd.data("x", shape=[None, 3])
    w = pd.Variable("w", shape=[3, 2], initializer="ones")
    y = x @ w
    w2 = w * 2.0
    np.testing.assert_array_equal(pd.eval(w2), np.full((3, 2), 2.0))
    np.testing.assert_array_equal(pd.eval(w2, {}), np.full((3, 2), 2.0))
    np.testing.assert_array_equal(w2.eval(), np.full((3, 2), 2.0))
    assert y.shape == (None, 2)


def test_a_missing_feed_names_the_input():
    x = pd.data("pixels", shape=[None, 3])
    y = pd.data("labels", shape=[None], dtype="int64")
    loss = pd.softmax_cross_entropy(x, y)
    with pytest.raises(pd.FeedError) as info:
        pd.eval(loss, {x: np.ones((2, 3))})
    msg = str(info.value)
    assert "'labels'" in msg and "(None,)" in msg and "int64" in msg
    assert "test_executor.py:" in msg                    # where the input was created
    with pytest.raises(pd.FeedError, match="'pixels'"):
        pd.eval(loss)
    assert isinstance(info.value, ValueError)


def test_namespaced_inputs_are_fed_by_full_name():
    with pd.namespace("enc"):
        x = pd.data("x", shape=[2])
    got = pd.eval(x * 3.0, {"enc/x": np.array([1.0, 2.0])})
    np.testing.assert_array_equal(got, [3.0, 6.0])


# ---- feeds ------------------------------------------------------------------------------

def test_feeds_by_variable_and_by_name():
    x = pd.data("x", shape=[None, 2])
    y = pd.data("y", shape=[None, 2])
    z = x - y
    a, b = np.array([[5.0, 6.0]]), np.array([[1.0, 2.0]])
    for feeds in ({x: a, y: b}, {"x": a, "y": b}, {x: a, "y": b}):
        np.testing.assert_array_equal(pd.eval(z, feeds), [[4.0, 4.0]])
    # A Variable key wins over a name for the same input.
    np.testing.assert_array_equal(pd.eval(z, {x: a, "x": b, y: b}), [[4.0, 4.0]])


def test_feeds_accept_lists_and_scalars():
    x = pd.data("x", shape=[None, 3])
    s = pd.data("s", shape=[])
    got = pd.eval(x * s, {x: [[1, 2, 3]], s: 2})
    np.testing.assert_array_equal(got, [[2.0, 4.0, 6.0]])
    assert got.dtype == np.float32


def test_float64_feed_into_float32_input_is_converted():
    x = pd.data("x", shape=[None, 2])
    a = np.array([[0.1, 1e-3]], dtype=np.float64)
    got = pd.eval(x * 1.0, {x: a})
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, a.astype(np.float32))
    i = pd.data("i", shape=[2], dtype="int32")
    got = pd.eval(i + 1, {i: np.array([1, 2], np.int64)})
    assert got.dtype == np.int32 and got.tolist() == [2, 3]


def test_non_contiguous_feeds():
    x = pd.data("x", shape=[None, 3], dtype="float64")
    a = np.arange(36.0).reshape(6, 6)[::2, 1::2]
    np.testing.assert_array_equal(pd.eval(x * 2.0, {x: a}), a * 2)
    np.testing.assert_array_equal(pd.eval(x @ np.eye(3), {x: a.T.copy().T}), a)


@pytest.mark.parametrize("value,match", [
    (np.ones((2, 4)), r"'x'.*\(None, 3\).*\(2, 4\)"),
    (np.ones(3), r"'x'.*\(None, 3\).*\(3,\)"),
    (np.ones((2, 3, 1)), r"'x'"),
    (np.ones((2, 3), dtype=complex), r"'x'.*complex"),
    ([["a", "b", "c"]], r"'x'"),
    ([[1, 2], [3]], r"'x'"),
    (None, r"'x'"),
    (object(), r"'x'"),
    ("abc", r"'x'"),
])
def test_bad_feed_values_name_the_input(value, match):
    x = pd.data("x", shape=[None, 3])
    with pytest.raises(pd.FeedError, match=match):
        pd.eval(x + 1.0, {x: value})


def test_bad_feed_dtype_names_the_input():
    i = pd.data("ids", shape=[None], dtype="int64")
    with pytest.raises(pd.FeedError, match=r"'ids'.*int64.*float64"):
        pd.eval(i + 1, {i: np.array([1.0, 2.0])})
    j = pd.data("small", shape=[2], dtype="int32")
    with pytest.raises(pd.FeedError, match=r"'small'.*int32"):
        pd.eval(j + 1, {j: np.array([2 ** 40, 1])})


def test_bad_feeds_and_targets():
    x = pd.data("x", shape=[2])
    w = pd.Variable("w", shape=[2])
    y = x + w
    with pytest.raises(TypeError, match="dict"):
        pd.eval(y, [np.ones(2)])
    with pytest.raises(pd.FeedError, match="'w'"):
        pd.eval(y, {x: np.ones(2), w: np.zeros(2)})
    with pytest.raises(pd.FeedError, match="only pd.data"):
        pd.eval(y, {x: np.ones(2), y: np.zeros(2)})
    with pytest.raises(TypeError, match="key 3"):
        pd.eval(y, {x: np.ones(2), 3: np.zeros(2)})
    with pytest.raises(TypeError, match="Variable"):
        pd.eval(np.ones(2))
    with pytest.raises(TypeError, match="int"):
        pd.eval([y, 3], {x: np.ones(2)})
    with pytest.raises(TypeError):
        pd.eval("y", {x: np.ones(2)})
    with pytest.raises(ValueError, match="tpu"):
        pd.eval(y, {x: np.ones(2)}, device="tpu")


def test_unused_feeds_are_allowed():
    x = pd.data("x", shape=[2])
    other = pd.data("other", shape=[5])
    got = pd.eval(x * 2.0, {x: np.ones(2), other: np.zeros(5), "other": np.zeros(5)})
    np.testing.assert_array_equal(got, [2.0, 2.0])


def test_a_feed_name_of_no_input_raises_naming_it():
    # Issue #28: a key that names no pd.data input at all was ignored without a word.
    x = pd.data("x", shape=[2])
    with pytest.raises(pd.FeedError, match=r"^eval: the feed key 'unrelated' names no pd.data "
                                           r"input; the targets need 'x' \(at "
                                           r"test_executor.py:\d+\)$"):
        pd.eval(x * 2.0, {x: np.ones(2), "unrelated": 1})


def test_a_misspelt_feed_name_raises_naming_it():
    # feeds={"xx": X, x: X} ignored "xx" without a word.
    x = pd.data("x", shape=[None, 2])
    feeds = {"xx": np.ones((1, 2)), x: np.ones((1, 2))}
    with pytest.raises(pd.FeedError, match=r"^eval: the feed key 'xx' names no pd.data input "
                                           r"\(did you mean 'x'\?\); the targets need 'x' "
                                           r"\(at test_executor.py:\d+\)$"):
        pd.eval(x * 2.0, feeds)


def test_an_unfed_input_names_the_feed_keys_that_matched_nothing():
    x = pd.data("x", shape=[None, 2])
    with pytest.raises(pd.FeedError, match=r"which was not fed; the feed keys 'inputs' name no "
                                           r"pd.data input$"):
        pd.eval(x * 2.0, {"inputs": np.ones((1, 2))})


# ---- targets ----------------------------------------------------------------------------

def test_targets_single_list_tuple_leaves_and_repeats():
    x = pd.data("x", shape=[2])
    w = pd.Variable("w", shape=[2], initializer="ones")
    c = pd.constant([3.0, 4.0])
    y = x * w + c
    feeds = {x: np.array([1.0, 2.0])}
    assert isinstance(pd.eval(y, feeds), np.ndarray)
    got = pd.eval([y, w, c, x, y], feeds)
    assert isinstance(got, list) and len(got) == 5
    np.testing.assert_array_equal(got[0], [4.0, 6.0])
    np.testing.assert_array_equal(got[1], [1.0, 1.0])
    np.testing.assert_array_equal(got[2], [3.0, 4.0])
    np.testing.assert_array_equal(got[3], [1.0, 2.0])
    np.testing.assert_array_equal(got[4], got[0])
    assert got[0] is not got[4]
    assert isinstance(pd.eval((y, w), feeds), list)
    assert pd.eval([]) == []


def test_results_are_copies():
    x = pd.data("x", shape=[2], dtype="float64")
    w = pd.Variable("w", shape=[2], initializer="ones", dtype="float64")
    y = x * w
    feed = np.array([1.0, 2.0])
    r1, wv, xv = pd.eval([y, w, x], {x: feed})
    r1[:] = 100.0
    wv[:] = 100.0
    xv[:] = 100.0
    r2, wv2, xv2 = pd.eval([y, w, x], {x: feed})
    np.testing.assert_array_equal(r2, [1.0, 2.0])
    np.testing.assert_array_equal(wv2, [1.0, 1.0])
    np.testing.assert_array_equal(xv2, [1.0, 2.0])
    np.testing.assert_array_equal(w.val(), [1.0, 1.0])
    np.testing.assert_array_equal(feed, [1.0, 2.0])
    assert not np.shares_memory(r2, pd.eval(y, {x: feed}))


def test_feeds_are_read_at_each_eval():
    x = pd.data("x", shape=[2], dtype="float64")
    y = x + 1.0
    feed = np.array([1.0, 2.0])
    pd.eval(y, {x: feed})
    feed[0] = 10.0
    np.testing.assert_array_equal(pd.eval(y, {x: feed}), [11.0, 3.0])


def test_parameter_changes_are_seen_by_the_next_eval():
    x = pd.data("x", shape=[None, 2])
    w = pd.Variable("w", shape=[2, 2], initializer="ones")
    y = x @ w
    a = np.ones((1, 2), np.float32)
    np.testing.assert_array_equal(pd.eval(y, {x: a}), [[2.0, 2.0]])
    w.set_value(np.eye(2))
    np.testing.assert_array_equal(pd.eval(y, {x: a}), [[1.0, 1.0]])


def test_update_ops_evaluate_to_none():
    w = pd.Variable("w", shape=[2], initializer="ones")
    loss = pd.sum(w * w)
    step = pd.optimizers.SGD(learning_rate=0.25).minimize(loss)
    assert pd.eval(step) is None
    loss_v, none = pd.eval([loss, step])
    assert none is None
    assert float(loss_v) == pytest.approx(0.5)        # the loss before this step's update
    np.testing.assert_allclose(w.val(), [0.25, 0.25])


# ---- plans: compiled once, specialized per feed shape -----------------------------------

class Counter:
    def __init__(self, monkeypatch):
        self.plans, self.programs = 0, 0
        plan_cls, program_cls = executor.Plan, executor.Program
        counter = self

        class CountingPlan(plan_cls):
            def __init__(self, *a, **k):
                counter.plans += 1
                super().__init__(*a, **k)

        class CountingProgram(program_cls):
            def __init__(self, *a, **k):
                counter.programs += 1
                super().__init__(*a, **k)
        monkeypatch.setattr(executor, "Plan", CountingPlan)
        monkeypatch.setattr(executor, "Program", CountingProgram)


def test_plan_is_compiled_once_and_reused(monkeypatch):
    counter = Counter(monkeypatch)
    x = pd.data("x", shape=[None, 3])
    y = pd.tanh(x * 2.0)
    z = pd.sum(y)
    a = np.ones((4, 3), np.float32)
    for _ in range(5):
        pd.eval(y, {x: a})
    assert (counter.plans, counter.programs) == (1, 1)
    pd.eval([y, z], {x: a})                    # another set of targets: its own plan
    pd.eval([y, z], {x: a})
    assert (counter.plans, counter.programs) == (2, 2)
    pd.eval(y, {x: a}, training=True)          # training mode is its own plan too
    assert counter.plans == 3


def test_another_batch_size_specializes_again_and_stays_correct(monkeypatch):
    counter = Counter(monkeypatch)
    x = pd.data("x", shape=[None, 3], dtype="float64")
    w = pd.Variable("w", shape=[3, 4], dtype="float64")
    y = pd.softmax(pd.tanh(x @ w) + 1.0)
    ref = {}
    for n in (2, 7, 2, 1, 7, 0):
        a = RNG.standard_normal((n, 3))
        h = np.tanh(a @ w.val()) + 1.0
        e = np.exp(h - h.max(-1, keepdims=True)) if n else h
        expected = e / e.sum(-1, keepdims=True) if n else h
        got = pd.eval(y, {x: a})
        assert got.shape == (n, 4)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
        ref[n] = True
    assert counter.plans == 1
    assert counter.programs == len(ref)        # one per distinct batch size, reused after


def test_many_batch_sizes_keep_a_bounded_cache():
    x = pd.data("x", shape=[None, 2], dtype="float64")
    y = x * 3.0
    for n in range(1, 30):
        np.testing.assert_array_equal(pd.eval(y, {x: np.ones((n, 2))}), np.full((n, 2), 3.0))
    plans = [p for t in (y,) for p in t.__dict__.get("_plans", {}).values()]
    assert plans and all(len(p.specialized) <= executor.MAX_SPECIALIZATIONS for p in plans)


def test_buffer_reuse_on_a_deep_chain():
    """Buffers are recycled once their last reader ran: results must match NumPy exactly
    even with skip connections, views, broadcasting and several outputs alive."""
    x = pd.data("x", shape=[None, 8], dtype="float64")
    ws = [RNG.standard_normal((8, 8)) * 0.4 for _ in range(30)]
    h = x
    skip = x
    ref_outs = []
    outs = []
    for i, w in enumerate(ws):
        h = pd.tanh(h @ w) + skip * 0.5
        if i % 5 == 0:
            skip = h
            outs.append(pd.reshape(h, [-1, 2, 4]))
        if i % 7 == 3:
            h = pd.transpose(pd.transpose(h) * 1.0)
    mid = pd.sum(outs[0], axis=1)
    targets = [h, mid] + outs
    a = RNG.standard_normal((5, 8))
    got = pd.eval(targets, {x: a})
    # NumPy, step by step.
    hn, sk = a, a
    for i, w in enumerate(ws):
        hn = np.tanh(hn @ w) + sk * 0.5
        if i % 5 == 0:
            sk = hn
            ref_outs.append(hn.reshape(-1, 2, 4))
        if i % 7 == 3:
            hn = (hn.T * 1.0).T
    refs = [hn, ref_outs[0].sum(1)] + ref_outs
    for g, r in zip(got, refs):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)
    # And again, from the cached program, on another batch.
    a2 = RNG.standard_normal((3, 8))
    np.testing.assert_allclose(pd.eval(h, {x: a2}), _chain(a2, ws), rtol=1e-10, atol=1e-12)


def _chain(a, ws):
    hn, sk = a, a
    for i, w in enumerate(ws):
        hn = np.tanh(hn @ w) + sk * 0.5
        if i % 5 == 0:
            sk = hn
    return hn


def test_a_long_chain_of_elementwise_ops():
    x = pd.data("x", shape=[None, 16], dtype="float64")
    y = x
    for i in range(300):
        y = y * 0.99 + 0.01 if i % 2 else pd.abs(y) - 0.001
    a = RNG.standard_normal((4, 16))
    expected = a.copy()
    for i in range(300):
        expected = expected * 0.99 + 0.01 if i % 2 else np.abs(expected) - 0.001
    np.testing.assert_allclose(pd.eval(y, {x: a}), expected, rtol=1e-12)


# ---- errors from kernels ----------------------------------------------------------------

def test_kernel_errors_name_the_op_and_where_it_was_built():
    ids = pd.data("ids", shape=[None], dtype="int64")
    table = pd.Variable("table", shape=[4, 2])
    rows = pd.gather(table, ids)
    with pytest.raises(IndexError) as info:
        pd.eval(rows, {ids: np.array([0, 9])})
    msg = str(info.value)
    assert "index 9" in msg and "gather" in msg and "test_executor.py:" in msg
    # The plan stays usable after a failed run.
    np.testing.assert_array_equal(pd.eval(rows, {ids: np.array([1])}), table.val()[[1]])


def test_shape_errors_with_the_fed_shapes_name_where_the_op_was_built():
    x = pd.data("x", shape=[None, 3])
    y = pd.data("y", shape=[None, 3])
    z = x + y
    with pytest.raises(pd.ShapeError) as info:
        pd.eval(z, {x: np.ones((2, 3)), y: np.ones((5, 3))})
    assert "add" in str(info.value) and "test_executor.py:" in str(info.value)


# ---- memory -----------------------------------------------------------------------------

def _rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    raise AssertionError("no VmRSS")


def _small_model(i, rng):
    x = pd.data("x", shape=[None, 16])
    y = pd.data("y", shape=[None], dtype="int64")
    with pd.namespace(f"model{i}"):
        h = pd.fc(x, size=32, act="relu")
        logits = pd.fc(h, size=4)
    loss = pd.mean(pd.softmax_cross_entropy(logits, y))
    step = pd.optimizers.Adam(learning_rate=1e-3).minimize(loss)
    feeds = {x: rng.standard_normal((8, 16)).astype(np.float32),
             y: rng.integers(0, 4, 8)}
    pd.eval([loss, step], feeds)
    pd.eval(logits, feeds)
    return loss


def test_building_many_models_does_not_grow_memory():
    rng = np.random.default_rng(0)
    for i in range(20):                       # warm-up: allocator pools, caches
        _small_model(i, rng)
    gc.collect()
    before = _rss_mb()
    for i in range(200):
        _small_model(i, rng)
    gc.collect()
    grown = _rss_mb() - before
    assert grown < 30, f"RSS grew by {grown:.1f} MB over 200 models"
    assert not [n for n in pd.lowlevel.graph.NAMES.params.keys() if n.startswith("model")]


def test_dropped_graphs_are_freed_without_the_garbage_collector():
    gc.collect()
    gc.disable()
    try:
        rng = np.random.default_rng(1)
        loss = _small_model(0, rng)
        w = pd.get_variable("model0/fc_0/w")
        refs = [weakref.ref(loss), weakref.ref(w)]
        del loss, w
        assert [r() for r in refs] == [None, None]
        with pytest.raises(KeyError):
            pd.get_variable("model0/fc_0/w")
        # A parameter evaluated on its own, and a constant.
        p = pd.Variable("p", shape=[3, 3])
        p.eval()
        c = pd.constant([1.0, 2.0])
        pd.eval([c * 2.0, p])
        refs = [weakref.ref(p), weakref.ref(c)]
        del p, c
        assert [r() for r in refs] == [None, None]
    finally:
        gc.enable()


def test_targets_are_read_before_the_updates_of_the_same_call():
    w = pd.Variable("w_before_update", shape=[2], initializer="ones")
    step = pd.optimizers.SGD(learning_rate=0.5).minimize(pd.sum(w * w))
    value, same, _ = pd.eval([w, w * 1.0, step])
    np.testing.assert_array_equal(value, [1.0, 1.0])
    np.testing.assert_array_equal(same, value)
    np.testing.assert_array_equal(w.val(), [0.0, 0.0])


def test_activations_on_integers_say_to_cast():
    x = pd.data("int_input", shape=[3], dtype="int64")
    for fn in (pd.leaky_relu, pd.elu, pd.gelu, pd.softplus, pd.silu):
        with pytest.raises(TypeError, match="pd.cast"):
            fn(x)


# ---- outputs placed in buffers a kernel asks for (input_buffers) -----------------------

def asking_for(monkeypatch, op_name, buffers_of):
    """Gives `op_name`'s prepare function an `input_buffers(node, device)` attribute (as the update
    op has in a distributed run); records the input arrays each prepared node received."""
    prepare = cpu.KERNELS[op_name]
    received = []

    def wrapped(node, ins, outs, ctx):
        received.append(list(ins))
        return prepare(node, ins, outs, ctx)
    wrapped.input_buffers = buffers_of
    monkeypatch.setitem(cpu.KERNELS, op_name, wrapped)
    return received


def test_an_output_is_computed_in_the_buffer_its_reader_asks_for(monkeypatch):
    x = pd.data("x", shape=[3, 2])
    a = x * 2.0
    place = np.full((3, 2), -1.0, np.float32)
    received = asking_for(monkeypatch, "exp", lambda node, device: {0: place})
    out = pd.eval(pd.exp(a), {x: np.ones((3, 2), np.float32)})
    assert received[0][0] is place
    np.testing.assert_array_equal(place, np.full((3, 2), 2.0))    # `a` was written there
    np.testing.assert_allclose(out, np.exp(2.0) * np.ones((3, 2)), rtol=1e-6)


def test_placement_is_skipped_where_it_cannot_hold(monkeypatch):
    x = pd.data("x", shape=[3, 2])
    wrong_shape = np.zeros((2, 3), np.float32)
    received = asking_for(monkeypatch, "exp", lambda node, device: {0: wrong_shape})
    np.testing.assert_allclose(pd.eval(pd.exp(x * 2.0), {x: np.ones((3, 2), np.float32)}),
                               np.exp(2.0) * np.ones((3, 2)), rtol=1e-6)
    assert received[0][0] is not wrong_shape and not wrong_shape.any()
    leaf = np.zeros((3, 2), np.float32)            # a fed input is the caller's, not placed
    received = asking_for(monkeypatch, "exp", lambda node, device: {0: leaf})
    pd.eval(pd.exp(x), {x: np.ones((3, 2), np.float32)})
    assert received[-1][0] is not leaf and not leaf.any()


def test_two_readers_asking_for_overlapping_buffers_get_one(monkeypatch):
    x = pd.data("x", shape=[4])
    shared = np.zeros(4, np.float32)
    received = asking_for(monkeypatch, "exp", lambda node, device: {0: shared})
    first, second = pd.exp(x * 2.0), pd.exp(x * 3.0)
    out = pd.eval([first, second], {x: np.ones(4, np.float32)})
    placed = [ins[0] is shared for ins in received]
    assert placed.count(True) == 1                  # the second would overwrite the first
    np.testing.assert_allclose(out[0], np.exp(2.0) * np.ones(4), rtol=1e-6)
    np.testing.assert_allclose(out[1], np.exp(3.0) * np.ones(4), rtol=1e-6)


def test_a_cast_to_its_own_dtype_runs_no_kernel():
    # A layer that returns its input (Dropout at rate 0) returns a same-dtype cast of it:
    # the plan gives it the input's buffer, as a view.
    inp = pd.layers.Input(shape=(3,))
    dense = pd.layers.Dense(3)
    out = pd.layers.Dropout(0.0)(dense(inp))
    assert out.node.op.name == "cast" and out.dtype == out.node.inputs[0].dtype
    model = pd.Model(inp, out)
    xs = np.ones((2, 3), np.float32)
    with pd.profiler.profile() as prof:
        got = model.predict_on_batch(xs)
    assert "cast" not in {e.op for e in prof.events}
    np.testing.assert_array_equal(got, dense(xs))
