"""The fusion pass (paddle/lowlevel/fusion/): which nodes it merges (unit tests on small node
lists), and that a fused program computes what the unfused one does (PADDLE_FUSION=0):
forward values and gradients, training steps of small models, broadcasting, int and bool
dtypes, NaN and inf, buffers, error messages and profiles; on every device (conftest)."""
import numpy as np
import pytest

import paddle as pd
from paddle.devices import cpu
from paddle.devices.cpu import conv as cpu_conv
from paddle.devices.kernel_table import KernelTable
from paddle.lowlevel import executor, fusion
from paddle.lowlevel.fusion import elementwise
from paddle.lowlevel.fusion.elementwise import FULL, LAST_AXIS, SCALAR, STRIDED, operand_shape


# ---- helpers --------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def _fusion_as_the_environment_says():
    """Each test leaves the switch as it found it (tests turn it with fusion.set_enabled)."""
    yield
    fusion.set_enabled(None)


def _known(nodes, feeds):
    """(shape, dtype) of every value of `nodes` by the executor's keys, `feeds` giving the
    concrete shapes of the pd.data inputs (as Program._infer does)."""
    known = {}
    for n in nodes:
        for v in n.inputs:
            if v.node is None:
                shape = feeds[v].shape if v in feeds else np.shape(v._value)
                known[id(v)] = (tuple(shape), v.dtype)
        out = n.op.infer(*(known[executor._key(v)] for v in n.inputs), **n.attrs)
        for k, (shape, dtype) in enumerate(out if isinstance(out, list) else [out]):
            known[(id(n), k)] = (tuple(shape), dtype)
    return known


def _fused(targets, feeds, kernels=cpu.KERNELS):
    """The node list the pass makes of `targets`' plan."""
    nodes = executor.topological_nodes(targets)
    kept = {executor._key(t) for t in targets}
    return fusion.fuse(nodes, _known(nodes, feeds), kept, executor.late_nodes(nodes), kernels)


def _names(nodes):
    return [n.op.name for n in nodes]


def _fused_and_unfused(run):
    """run() with fusion on, then off (fusion.set_enabled): (fused result, unfused result,
    fused ops, unfused ops), the ops being those of the kernels each run called, in order
    (pd.profiler's events; a fused kernel is named "fused_...[member+...]")."""
    results, ops = [], []
    for flag in (True, False):
        fusion.set_enabled(flag)
        with pd.profiler.profile() as prof:
            results.append(run())
        ops.append([e.op for e in prof.events])
    fusion.set_enabled(None)
    return (*results, *ops)


def _both(targets, feeds, **kw):
    """pd.eval of `targets` fused and unfused (_fused_and_unfused)."""
    return _fused_and_unfused(lambda: pd.eval(targets, feeds, **kw))


def _assert_same(a, b, rtol=0.0):
    for x, y in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
        assert x.dtype == y.dtype and x.shape == y.shape
        if rtol:
            np.testing.assert_allclose(x, y, rtol=rtol, atol=rtol)
        else:
            np.testing.assert_array_equal(x, y)


# ---- the pass on small node lists (CPU kernel table) ----------------------------------------

def test_operand_shapes_the_fused_kernel_reads():
    assert operand_shape((2, 4), (2, 4)) == FULL
    assert operand_shape((4,), (2, 4)) == LAST_AXIS
    assert operand_shape((1, 1, 4), (3, 2, 4)) == LAST_AXIS
    assert operand_shape((), (2, 4)) == SCALAR and operand_shape((1, 1), (2, 4)) == SCALAR
    assert operand_shape((2, 1), (2, 4)) is None        # along another axis: no fusion
    assert operand_shape((2, 4), (3, 2, 4)) is None


def test_a_chain_becomes_one_node_named_after_its_ops_at_its_last_ops_line():
    x = pd.data("fx", shape=[None, 3])
    b = pd.constant(np.ones(3, np.float32))
    y = pd.relu(x * 2.0 + b)
    nodes = _fused([y], {x: np.zeros((4, 3), np.float32)})
    assert _names(nodes) == ["fused_elementwise[mul+add+relu]"]
    node = nodes[0]
    assert node.root is y.node and node.location == y.node.location
    assert node.scope == y.node.scope and node.keys == [(id(y.node), 0)]
    assert [i.kind for i in node.attrs["program"]] == [elementwise.BINARY, elementwise.BINARY,
                                                       elementwise.UNARY]
    assert list(node.attrs["shapes"]) == [FULL, SCALAR, LAST_AXIS]
    assert node.attrs["temps"] == 1  # one register, reused along the chain
    assert node.attrs["program"][-1].dst == node.attrs["registers"] - 1


def test_a_value_read_twice_or_wanted_as_a_target_stays_materialized():
    x = pd.data("fx2", shape=[None, 3])
    a = x * 2.0
    twice = pd.exp(a) + a          # a has two readers: the exp and the add
    feeds = {x: np.zeros((2, 3), np.float32)}
    assert _names(_fused([twice], feeds)) == ["mul", "fused_elementwise[exp+add]"]
    t = pd.exp(x)
    u = pd.relu(t - 1.0)
    assert _names(_fused([t, u], feeds)) == ["exp", "fused_elementwise[sub+relu]"]
    assert _names(_fused([u], feeds)) == ["fused_elementwise[exp+sub+relu]"]


def test_other_broadcasts_and_single_ops_are_left_alone():
    x = pd.data("fx3", shape=[None, 3])
    col = pd.data("fcol", shape=[None, 1])
    feeds = {x: np.zeros((2, 3), np.float32), col: np.zeros((2, 1), np.float32)}
    assert _names(_fused([pd.relu(x * col)], feeds)) == ["mul", "relu"]
    assert _names(_fused([pd.exp(x)], feeds)) == ["exp"]
    # a smaller intermediate (a scalar computed from scalars) runs as itself
    s = pd.data("fs", shape=[])
    feeds[s] = np.zeros((), np.float32)
    assert _names(_fused([pd.relu(x * (s + 1.0))], feeds)) == ["add", "fused_elementwise[mul+relu]"]


def test_a_comparison_feeds_a_where_inside_one_group_and_registers_keep_their_width():
    x = pd.data("fx4", shape=[None, 5])
    y = pd.where(pd.greater(x * 3.0, 1.0), pd.exp(x), x - 1.0)
    (node,) = _fused([y], {x: np.zeros((2, 5), np.float32)})
    assert node.op.name == "fused_elementwise[mul+greater+exp+sub+where]"
    program = node.attrs["program"]
    compare = next(i for i in program if i.kind == elementwise.COMPARE)
    later = [i.dst for i in program[program.index(compare) + 1:-1]]
    assert compare.dst not in later  # the bool register is never a float one


def test_the_update_phase_and_replaced_kernels_are_not_fused():
    w = pd.Variable("fw", shape=[3], initializer="ones")
    x = pd.data("fx5", shape=[3])
    loss = pd.sum(pd.relu(w * x + 1.0))
    step = pd.optimizers.SGD(0.1).minimize(loss)
    nodes = executor.topological_nodes([loss, step])
    late = executor.late_nodes(nodes)
    fused = fusion.fuse(nodes, _known(nodes, {x: np.ones(3, np.float32)}), set(), late,
                        cpu.KERNELS)
    assert all(id(n) in late for n in fused[len(fused) - len(late):])
    assert "fused_elementwise[mul+add+relu]" in _names(fused)
    table = KernelTable()
    table.update(cpu.KERNELS)
    table.families = cpu.KERNELS.families
    table["relu"] = lambda node, ins, outs, ctx: None  # a stand-in kernel of relu's own
    y = pd.relu(x * 2.0 + 1.0)
    assert _names(_fused([y], {x: np.ones(3, np.float32)}, table)) == \
        ["fused_elementwise[mul+add]", "relu"]


def test_no_fused_kernel_no_fusion():
    x = pd.data("fx6", shape=[3])
    y = pd.relu(x + 1.0)
    assert _names(fusion.fuse(executor.topological_nodes([y]), {}, set(), set(), {})) == \
        ["add", "relu"]


def test_the_switch(monkeypatch):
    monkeypatch.setenv("PADDLE_FUSION", "0")
    fusion.set_enabled(None)
    assert not fusion.enabled()
    monkeypatch.setenv("PADDLE_FUSION", "1")
    assert not fusion.enabled()           # the environment is read once
    fusion.set_enabled(None)
    assert fusion.enabled()
    fusion.set_enabled(False)
    assert not fusion.enabled()
    fusion.set_enabled(True)
    assert fusion.enabled()
    with pytest.raises(TypeError, match="expected True, False or None, received 0"):
        fusion.set_enabled(0)
    fusion.set_enabled(None)


# ---- fused against unfused, on each device ---------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3, 5), (7, 300), (2, 3, 1500), (40_000,), (1,), (0, 4)])
def test_chains_with_biases_and_scalars_compute_what_the_ops_do(dtype, shape):
    rng = np.random.default_rng(0)
    x = pd.data("cx", shape=[None] * len(shape), dtype=dtype)
    bias = pd.constant(rng.standard_normal(shape[-1:]).astype(dtype))
    half = pd.constant(np.asarray(0.5, dtype))
    h = pd.tanh(x * half + bias)
    y = pd.where(h > 0.1, pd.sigmoid(h) * 3.0, pd.maximum(h, -0.2) - bias)
    z = pd.relu(pd.exp(-pd.square(x)) - 0.3) / (pd.abs(x) + 1.0)
    feeds = {x: rng.standard_normal(shape).astype(dtype) * 2}
    fused, plain, ran, ran_plain = _both([y, z], feeds)
    _assert_same(fused, plain)
    if np.prod(shape):
        # h has three readers: y is two groups, z one
        assert sum(op.startswith("fused_elementwise[") for op in ran) == 3, ran
        assert len(ran) < len(ran_plain)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_chains_and_bool_outputs(dtype, device):
    rng = np.random.default_rng(1)
    x = pd.data("ix", shape=[None, 4], dtype=dtype)
    v = pd.data("iv", shape=[4], dtype=dtype)
    y = pd.relu(pd.square(x - v) - 7)
    flag = pd.greater(pd.abs(x * 2) + v, 5)  # a bool result
    fdiv = pd.ops.floor_divide(x * 3, v) + 1  # integer division by zero gives 0
    feeds = {x: rng.integers(-9, 9, (6, 4)).astype(dtype), v: np.array([1, -2, 3, 0], dtype)}
    fused, plain, ran, _ = _both([y, flag, fdiv], feeds)
    _assert_same(fused, plain)
    assert fused[1].dtype == np.bool_ and fused[2][:, 3].tolist() == [1] * 6
    # CUDA fuses the ops it has an expression for: floor_divide is not one
    assert sum(op.startswith("fused_elementwise[") for op in ran) == \
        (3 if device == "cpu" else 2), ran


def test_bool_chains_fuse_with_the_values_they_compare(device):
    # The logical ops are a where between bools (and, or) or a comparison of bools (xor,
    # not): a chain that compares values and combines the results is one node, its bool
    # registers beside the compute dtype's; a chain of bools only is not fused.
    rng = np.random.default_rng(4)
    x = pd.data("bx", shape=[None, 6])
    y = pd.data("by", shape=[None, 6])
    m = pd.data("bm", shape=[None, 6], dtype="bool")
    sign = pd.ops.signbit(x)
    close = pd.ops.isclose(x, y, equal_nan=True)
    logic = pd.ops.logical_xor(pd.ops.logical_or(x > 0.5, m), pd.ops.logical_not(y < x))
    picked = pd.where(pd.ops.logical_and(x > 0, m), x, y * 2.0)  # bools inside a T result
    bools = pd.ops.logical_or(pd.ops.logical_and(m, pd.ops.logical_not(m)), m)
    xv = rng.standard_normal((9, 6)).astype(np.float32)
    xv[:, 0] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, -3.0, 2.0]
    xv[1, 3] = -np.nan  # its sign bit is set
    yv = xv + rng.standard_normal((9, 6)).astype(np.float32) * 1e-6
    yv[:, 1] = xv[:, 0]
    yv[:, 2] = [np.nan, -0.0, -np.inf, -np.inf, np.nan, 1e-40, 1.0, np.inf, 2.0]
    feeds = {x: xv, y: yv, m: rng.random((9, 6)) < 0.5}
    fused, plain, ran, _ = _both([sign, close, logic, picked, bools], feeds)
    _assert_same(fused, plain)
    np.testing.assert_array_equal(fused[0], np.signbit(xv))
    np.testing.assert_array_equal(fused[1], np.isclose(xv, yv, equal_nan=True))
    groups = [sorted(op[len("fused_elementwise["):-1].split("+")) for op in ran
              if op.startswith("fused_elementwise[")]
    # signbit is one op of its own now (a bit test), alone: not a group
    assert len(groups) == 3 and "signbit" in ran, ran


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_signbit_runs_inside_a_group(dtype, device):
    # The predicate reads T values into a bool, as a comparison does: it joins a group
    # inside (a where's condition) and as its root, with -0.0 and NaNs of both signs.
    # CUDA's signbit takes no integers: there integer groups leave it out.
    rng = np.random.default_rng(6)
    x = pd.data("gx", shape=[None, 5], dtype=dtype)
    v = pd.data("gv", shape=[5], dtype=dtype)
    picked = pd.where(pd.ops.signbit(x * 2 - v), x, -x)
    root = pd.ops.signbit(-(x + v))
    if dtype.startswith("float"):
        xv = rng.standard_normal((7, 5)).astype(dtype)
        xv[:, 0] = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, -1e-40]
        vv = np.array([0.0, 0.5, -0.5, 0.0, -0.0], dtype)
    else:
        xv = rng.integers(-9, 9, (7, 5)).astype(dtype)
        xv[0, :2] = np.iinfo(dtype).min, np.iinfo(dtype).max
        vv = np.array([0, 3, -3, 1, -1], dtype)
    fused, plain, ran, _ = _both([picked, root], {x: xv, v: vv})
    _assert_same(fused, plain)
    with np.errstate(over="ignore"):  # int wraps, as the kernels'
        np.testing.assert_array_equal(fused[0], np.where(np.signbit(xv * 2 - vv), xv, -xv))
        np.testing.assert_array_equal(fused[1], np.signbit(-(xv + vv)))
    groups = [op for op in ran if op.startswith("fused_elementwise[")]
    if device == "cpu" or dtype.startswith("float"):
        assert len(groups) == 2 and all("signbit" in op for op in groups), ran
    else:
        assert ran.count("signbit") == 2, ran


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_channel_slice_read_once_is_read_in_place(monkeypatch, dtype, device):
    # x[..., c] (or x[..., c:c + 1]) read by one group only: the group reads x's elements
    # c, c + 3, ... (STRIDED) and the slice is not run; a slice with two readers stays.
    rng = np.random.default_rng(5)
    x = pd.data("sx", shape=[None, 7, 3], dtype=dtype)
    m = pd.data("sm", shape=[None, 7, 3], dtype="bool")
    y = pd.exp(x[..., 1]) * 2.0 + x[..., 2]
    z = pd.where(m[..., 0:1], pd.abs(x[:, :, 0:1]), -1.0)  # a bool slice, keeping the axis
    shared = x[..., 2]
    u, v = shared * 3.0 + 1.0, pd.exp(shared) - 1.0
    xv = rng.standard_normal((1500, 7, 3)).astype(dtype)
    xv[0, 0] = [np.nan, np.inf, -0.0]
    feeds = {x: xv, m: rng.random((1500, 7, 3)) < 0.5}
    fused, plain, ran, ran_plain = _both([y, z, u, v], feeds)
    _assert_same(fused, plain)
    np.testing.assert_allclose(fused[0], np.exp(xv[..., 1]) * 2 + xv[..., 2], rtol=1e-6,
                               atol=1e-5 if dtype == "float32" else 1e-12)
    assert ran_plain.count("slice") == 5 and ran.count("slice") == 1, ran
    (node,) = [n for n in _fused([y], {x: xv}) if n.op.name.startswith("fused_elementwise")]
    assert list(node.attrs["shapes"]) == [STRIDED, SCALAR, STRIDED]
    assert node.attrs["reads"].tolist() == [STRIDED, 1, 3, SCALAR, 0, 1, STRIDED, 2, 3]
    assert node.inputs[0] is x and node.inputs[2] is x


def test_the_fused_kernel_checks_bool_operands():
    # csrc/elementwise.cpp checks each instruction's operands before any block runs: a
    # comparison or a where takes two T or two bools, never one of each.
    x = np.array([1.0, -2.0, 0.0, 3.0], np.float32)
    m = np.array([True, False, True, True])
    shapes = np.array([FULL, FULL, SCALAR], np.int64)
    zero = np.zeros(1, np.float32)
    out = np.empty(4, bool)
    # registers: x 0, m 1, zero 2, t 3, out 4; t = x > 0, out = where(m, t, m) (and)
    program = np.array([2, 0, 3, 0, 2, 0, 3, 0, 4, 1, 3, 1], np.int64)
    pd._C.fused_elementwise([x, m, zero], shapes, program, 1, 11, out, 4)
    np.testing.assert_array_equal(out, [True, False, False, True])
    for bad in ([2, 0, 3, 0, 1, 0, 3, 0, 4, 1, 3, 1],    # x > m
                [2, 0, 3, 0, 2, 0, 3, 0, 4, 1, 3, 0]):   # where(m, t, x)
        with pytest.raises(ValueError, match="an operand's dtype does not fit"):
            pd._C.fused_elementwise([x, m, zero], shapes, np.array(bad, np.int64), 1, 11,
                                    out, 4)


def test_the_cuda_kernel_source_of_a_bool_chain():
    from paddle.devices.cuda.elementwise import _fused_source
    x = pd.data("sb", shape=[None, 4])
    m = pd.data("sm", shape=[None, 4], dtype="bool")
    y = pd.where(pd.ops.logical_or(x > 0, m), x, x * 3.0)
    (node,) = _fused([y], {x: np.zeros((2, 4), np.float32), m: np.zeros((2, 4), bool)})
    ins = tuple(v.dtype for v in node.inputs)
    params, result, body = _fused_source(node.attrs["program"], ins, "float32", "float32")
    lines = body.split("\n")
    # the comparison's and logical_or's registers are bool, the product's float
    assert sorted(line.split(" ")[0] for line in lines) == ["bool", "bool", "float", "y"], body


def test_nan_and_inf_go_through_as_through_the_ops():
    x = pd.data("nx", shape=[None, 3])
    y = pd.maximum(pd.relu(x * 2.0), pd.minimum(x, 0.5)) + pd.log(pd.abs(x))
    z = pd.where(pd.equal(x, x), x * 0.0, x + 1.0)  # NaN != NaN
    feeds = {x: np.array([[np.nan, np.inf, -np.inf], [0.0, -1.0, 3.0]], np.float32)}
    fused, plain, ran, _ = _both([y, z], feeds)
    _assert_same(fused, plain)
    assert np.isnan(fused[0][0, 0]) and np.isnan(fused[1][0, 1])
    assert any(op.startswith("fused_elementwise[") for op in ran)


def test_gradients_of_a_chain_match():
    rng = np.random.default_rng(2)
    x = pd.data("gx", shape=[None, 6], dtype="float64")
    w = pd.constant(rng.standard_normal((6, 6)))
    b = pd.constant(rng.standard_normal(6))
    h = pd.relu(pd.matmul(x, w) + b)
    r = pd.relu(h + x)                     # a residual
    loss = pd.sum(pd.sigmoid(r) * r - pd.tanh(h))
    grads = pd.gradients(loss, [x])
    feeds = {x: rng.standard_normal((5, 6))}
    fused, plain, ran, _ = _both(grads + [loss], feeds)
    _assert_same(fused, plain)
    assert sum(op.startswith("fused_elementwise[") for op in ran) >= 3, ran


def _train(model_fn, xs, ys, steps):
    """(weights, losses) after `steps` Adam steps of a fresh model_fn(), fused and unfused,
    and the ops each ran (_fused_and_unfused)."""
    def run():
        pd.seed(0)
        model = model_fn()
        model.compile(optimizer=pd.optimizers.Adam(0.01),
                      loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True))
        losses = [float(model.train_on_batch(xs, ys)) for _ in range(steps)]
        return [w.numpy() for w in model.weights], losses
    return _fused_and_unfused(run)


def _dense_bn_residual():
    inputs = pd.layers.Input(shape=(8,))
    h = pd.layers.Dense(8, activation="relu")(inputs)
    h = pd.layers.Dropout(0.0)(h)
    h = pd.layers.BatchNormalization()(h)
    r = pd.layers.Activation("relu")(pd.layers.Add()([h, inputs]))
    return pd.Model(inputs, pd.layers.Dense(3)(r))


def _conv_residual():
    inputs = pd.layers.Input(shape=(6, 6, 4))
    h = pd.layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
    h = pd.layers.BatchNormalization()(h)
    r = pd.layers.ReLU()(pd.layers.Add()([h, inputs]))
    return pd.Model(inputs, pd.layers.Dense(3)(pd.layers.Flatten()(r)))


def _conv_bn_relu():
    inputs = pd.layers.Input(shape=(6, 6, 3))
    h = pd.layers.Conv2D(4, 3, padding="same", use_bias=False)(inputs)
    h = pd.layers.Activation("relu")(pd.layers.BatchNormalization()(h))
    h = pd.layers.Conv2D(4, 3, padding="same", use_bias=False)(h)
    r = pd.layers.ReLU()(pd.layers.Add()([pd.layers.BatchNormalization()(h), inputs[..., :1]]))
    return pd.Model(inputs, pd.layers.Dense(3)(pd.layers.GlobalAveragePooling2D()(r)))


@pytest.mark.parametrize("model_fn, shape", [(_dense_bn_residual, (16, 8)),
                                             (_conv_residual, (4, 6, 6, 4)),
                                             (_conv_bn_relu, (4, 6, 6, 3))])
def test_training_steps_end_with_the_same_weights(model_fn, shape):
    rng = np.random.default_rng(3)
    xs = rng.standard_normal(shape).astype(np.float32)
    ys = rng.integers(0, 3, shape[0])
    (fused_w, fused_losses), (plain_w, plain_losses), fused_ops, plain_ops = \
        _train(model_fn, xs, ys, 4)
    assert any(op.startswith("fused_elementwise[") for op in fused_ops), fused_ops
    assert not any(op.startswith("fused_") for op in plain_ops)
    if model_fn is _conv_bn_relu:
        assert {"fused_batch_norm[batch_norm+relu]",
                "fused_batch_norm_grad[relu_grad+batch_norm_grad]"} <= set(fused_ops), fused_ops
    np.testing.assert_allclose(fused_losses, plain_losses, rtol=1e-6)
    for a, b in zip(fused_w, plain_w):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_low_level_float64_training_matches_exactly():
    rng = np.random.default_rng(4)
    xs, ys = rng.standard_normal((32, 5)), rng.standard_normal((32, 1))
    results = []
    for fuses in (True, False):
        if not fuses:
            fusion.set_enabled(False)
        x = pd.data("tx", shape=[None, 5], dtype="float64")
        y = pd.data("ty", shape=[None, 1], dtype="float64")
        w1 = pd.Variable(rng.standard_normal((5, 5)), dtype="float64", name=f"tw1_{fuses}")
        b1 = pd.Variable(np.zeros(5), dtype="float64", name=f"tb1_{fuses}")
        w2 = pd.Variable(rng.standard_normal((5, 1)), dtype="float64", name=f"tw2_{fuses}")
        h = pd.relu(pd.matmul(x, w1) + b1)
        h = pd.relu(h + x) * 0.5
        loss = pd.mean(pd.square(pd.matmul(h, w2) - y))
        step = pd.optimizers.SGD(0.05).minimize(loss)
        for _ in range(5):
            pd.eval(step, {x: xs, y: ys})
        results.append([w1.numpy(), b1.numpy(), w2.numpy()])
        rng = np.random.default_rng(4)
        rng.standard_normal((32, 5)), rng.standard_normal((32, 1))
    fusion.set_enabled(None)
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def test_fusion_allocates_fewer_buffers(monkeypatch):
    x = pd.data("mx", shape=[None, 64])
    b = pd.constant(np.ones(64, np.float32))
    y = pd.sigmoid(pd.relu(x * 2.0 + b) - 1.0) * 3.0
    sizes = {}
    for flag in ("1", "0"):
        fusion.set_enabled(flag == "1")
        lives = {}  # the buffers the program's arena holds: key -> (first, last, shape, dtype)
        original = executor.arena_offsets

        def capturing(intervals, original=original, lives=lives):
            lives.update(intervals)
            return original(intervals)
        monkeypatch.setattr(executor, "arena_offsets", capturing)
        pd.eval(y, {x: np.ones((128, 64), np.float32)})
        monkeypatch.setattr(executor, "arena_offsets", original)
        sizes[flag] = (len(lives), sum(executor.nbytes_of(*v[2:]) for v in lives.values()))
    assert sizes["1"] == (1, 128 * 64 * 4)      # the result only
    assert sizes["0"][0] >= 2 and sizes["0"][1] > sizes["1"][1]


def test_a_failing_fused_kernel_names_its_ops_and_the_users_line(monkeypatch):
    x = pd.data("ex", shape=[None, 3])
    y = pd.relu(x * 2.0)  # the line the error names
    line = y.node.location

    def failing(node, ins, outs, ctx):
        def run():
            raise ValueError("fused_elementwise: something went wrong")
        return run
    failing.fusable = cpu.KERNELS["fused_elementwise"].fusable
    monkeypatch.setitem(cpu.KERNELS, "fused_elementwise", failing)
    with pytest.raises(ValueError, match=r"\(in fused_elementwise\[mul\+relu\], built at "
                                         + line.replace(".", r"\.") + r"\)"):
        pd.eval(y, {x: np.ones((2, 3), np.float32)}, device="cpu")
    assert line.startswith("test_fusion.py:")


def test_the_profile_files_a_fused_call_under_the_layer_of_its_last_op(device):
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(4,)),
                           pd.layers.Dense(4, activation="relu", name="hidden"),
                           pd.layers.Dense(2, name="out")])
    model.compile(optimizer="sgd", loss="mse")
    xs, ys = np.ones((8, 4), np.float32), np.zeros((8, 2), np.float32)
    model.train_on_batch(xs, ys)
    with pd.profiler.profile() as prof:
        model.train_on_batch(xs, ys)
    name = "fused_matmul[matmul+add+relu]"  # the Dense layer's product, bias and relu
    fused = [e for e in prof.events if e.op.startswith("fused_")]
    assert (name, "hidden") in {(e.op, e.layer) for e in fused}
    assert all(e.location for e in fused)
    assert name in {r["op"] for r in prof.summary(group_by="op")}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis, shape", [(-1, (6, 5)), (1, (3, 4, 7)), (-1, (2, 3, 3, 40))])
def test_batch_norm_relu_forward_and_gradients_match(dtype, axis, shape):
    rng = np.random.default_rng(5)
    c = shape[axis]
    x = pd.data("bx", shape=[None, *shape[1:]], dtype=dtype)
    scale = pd.constant(rng.standard_normal(c).astype(dtype))
    offset = pd.constant(rng.standard_normal(c).astype(dtype))
    mm = pd.Variable(f"bmm_{dtype}_{axis}_{len(shape)}", shape=[c], dtype=dtype,
                     initializer="zeros", trainable=False)
    mv = pd.Variable(f"bmv_{dtype}_{axis}_{len(shape)}", shape=[c], dtype=dtype,
                     initializer="ones", trainable=False)
    y = pd.relu(pd.batch_norm(x, scale, offset, mm, mv, axis=axis))
    loss = pd.sum(y * pd.constant(rng.standard_normal(shape[1:]).astype(dtype)))
    grads = pd.gradients(loss, [x, scale, offset])
    feeds = {x: rng.standard_normal(shape).astype(dtype)}
    for training in (True, False):
        fused, plain, ran, _ = _both([y, *grads], feeds, training=training)
        _assert_same(fused, plain, rtol=1e-6 if dtype == "float32" else 1e-13)
        assert {"fused_batch_norm[batch_norm+relu]",
                "fused_batch_norm_grad[relu_grad+batch_norm_grad]"} <= set(ran), ran


def test_batch_norm_is_not_fused_with_a_relu_that_is_not_its_only_reader():
    x = pd.data("bx2", shape=[None, 3])
    mm = pd.Variable("bmm2", shape=[3], initializer="zeros", trainable=False)
    mv = pd.Variable("bmv2", shape=[3], initializer="ones", trainable=False)
    b = pd.batch_norm(x, None, None, mm, mv)
    feeds = {x: np.zeros((4, 3), np.float32)}
    assert _names(_fused([pd.relu(b) + b], feeds)) == ["batch_norm",
                                                       "fused_elementwise[relu+add]"]
    assert _names(_fused([b, pd.relu(b)], feeds)) == ["batch_norm", "relu"]
    assert _names(_fused([pd.relu(b)], feeds)) == ["fused_batch_norm[batch_norm+relu]"]


def test_the_cuda_kernel_source_of_a_program():
    # The source the CUDA backend compiles (a real GPU runs it in the device tests above;
    # without one, its text is checked here).
    from paddle.devices.cuda.elementwise import _fused_source
    x = pd.data("sx", shape=[None, 4], dtype="int64")
    y = pd.where(pd.greater(x, 0), pd.relu(x - 2), x * 3)
    (node,) = _fused([y], {x: np.zeros((2, 4), np.int64)})
    ins = tuple(v.dtype for v in node.inputs)
    params, result, body = _fused_source(node.attrs["program"], ins, "int64", "int64")
    assert params == ", ".join(f"{d} x{k}" for k, d in enumerate(ins)) and result == "int64 y"
    lines = body.split("\n")
    assert lines[0].startswith("bool v0 = (x0 > x")       # the comparison's register is bool
    assert all(line.startswith("long long v") for line in lines[1:-1])
    assert lines[-1].startswith("y = (v0 ? ") and lines[-1].endswith(";")
    assert "((long long)0)" in body                         # relu's zero in the compute type


# ---- softmax's gradient (fusion/softmax.py) -------------------------------------------------

SOFTMAX_GRAD = "fused_softmax_grad[mul+sum+sub+mul]"


def test_softmax_gradient_becomes_one_node_at_its_last_ops_place():
    x = pd.data("smx", shape=[None, 5])
    w = pd.constant(np.arange(5, dtype=np.float32))
    (gx,) = pd.gradients(pd.sum(pd.softmax(x) * w), [x])
    nodes = _fused([gx], {x: np.zeros((2, 5), np.float32)})
    assert SOFTMAX_GRAD in _names(nodes)
    (node,) = [n for n in nodes if n.op.name == SOFTMAX_GRAD]
    assert [m.op.name for m in node.members] == ["mul", "sum", "sub", "mul"]
    assert node.root is gx.node and node.location == gx.node.location
    assert node.inputs[0].node.op.name == "softmax"


def test_softmax_gradient_parts_wanted_elsewhere_stay_unfused():
    x = pd.data("smx2", shape=[None, 5])
    y = pd.softmax(x)
    g = pd.data("smg2", shape=[None, 5])
    s = pd.sum(g * y, axis=-1, keepdims=True)
    dx = y * (g - s)
    feeds = {x: np.zeros((2, 5), np.float32), g: np.zeros((2, 5), np.float32)}
    assert _names(_fused([dx], feeds)) == ["softmax", SOFTMAX_GRAD]
    # the row sums are a target too, or the sum is over another axis, or a mean: no fusion
    assert SOFTMAX_GRAD not in _names(_fused([dx, s], feeds))
    other = y * (g - pd.sum(g * y, axis=0, keepdims=True))
    assert SOFTMAX_GRAD not in _names(_fused([other], feeds))
    mean = y * (g - pd.mean(g * y, axis=-1, keepdims=True))
    assert SOFTMAX_GRAD not in _names(_fused([mean], feeds))
    # not a softmax's output
    z = pd.sigmoid(x)
    assert SOFTMAX_GRAD not in _names(_fused([z * (g - pd.sum(g * z, axis=-1, keepdims=True))],
                                             feeds))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis, shape", [(-1, (3, 5)), (-1, (2, 4, 7, 130)), (1, (3, 6, 4)),
                                         (-1, (4, 1))])
def test_softmax_gradients_match_the_unfused_ops(dtype, axis, shape, device):
    rng = np.random.default_rng(7)
    x = pd.data("smx3", shape=[None, *shape[1:]], dtype=dtype)
    y = pd.softmax(x * 3.0, axis=axis)
    loss = pd.sum(y * pd.constant(rng.standard_normal(shape[1:]).astype(dtype)))
    (gx,) = pd.gradients(loss, [x])
    feeds = {x: rng.standard_normal(shape).astype(dtype)}
    fused, plain, ran, ran_plain = _both([y, gx], feeds)
    _assert_same(fused, plain, rtol=2e-6 if dtype == "float32" else 1e-14)
    assert SOFTMAX_GRAD in ran and SOFTMAX_GRAD not in ran_plain, ran


def test_softmax_gradient_against_central_differences():
    from gradcheck import check_gradients
    rng = np.random.default_rng(3)
    check_gradients(lambda x: pd.softmax(x * 2.0), [rng.standard_normal((3, 4, 9))])
    check_gradients(lambda x: pd.softmax(x, axis=1), [rng.standard_normal((3, 4, 9))],
                    order=2)


def test_attention_trains_the_same_fused_and_unfused():
    def model():
        pd.seed(3)
        inp = pd.layers.Input(shape=(6, 8))
        h = pd.layers.MultiHeadAttention(num_heads=2, key_dim=4)(inp, inp)
        out = pd.layers.Dense(2)(pd.layers.GlobalAveragePooling1D()(h))
        m = pd.Model(inp, out)
        m.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")  # (Adam would magnify rounding)
        return m
    rng = np.random.default_rng(0)
    xs, ys = rng.standard_normal((4, 6, 8)), rng.standard_normal((4, 2))

    def run():
        m = model()
        for _ in range(3):
            m.train_on_batch(xs.astype("float32"), ys.astype("float32"))
        return [np.asarray(w) for w in m.get_weights()]
    fused, plain, _, _ = _fused_and_unfused(run)
    for a, b in zip(fused, plain):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_failing_softmax_gradient_kernel_names_its_ops_and_the_users_line(monkeypatch):
    x = pd.data("smx4", shape=[None, 3])
    (gx,) = pd.gradients(pd.sum(pd.softmax(x) * pd.constant([1.0, 2.0, 3.0])), [x])
    line = gx.node.location

    def failing(node, ins, outs, ctx):
        def run():
            raise ValueError("fused_softmax_grad: something went wrong")
        return run
    failing.fusable = cpu.KERNELS["fused_softmax_grad"].fusable
    monkeypatch.setitem(cpu.KERNELS, "fused_softmax_grad", failing)
    with pytest.raises(ValueError, match=r"\(in fused_softmax_grad\[mul\+sum\+sub\+mul\], "
                                         r"built at " + line.replace(".", r"\.") + r"\)"):
        pd.eval(gx, {x: np.ones((2, 3), np.float32)}, device="cpu")


def test_the_softmax_gradient_kernel_checks_its_arrays():
    from paddle import _C
    y = np.full((2, 4), 0.25, np.float32)
    g = np.arange(8, dtype=np.float32).reshape(2, 4)
    out = np.empty_like(y)
    _C.softmax_grad(y, g, out, 4)
    np.testing.assert_allclose(out, y * (g - (g * y).sum(-1, keepdims=True)), rtol=1e-6)
    with pytest.raises(Exception, match="softmax_grad"):
        _C.softmax_grad(y, g[:1], out, 4)
    with pytest.raises(Exception, match="softmax_grad"):
        _C.softmax_grad(y, g.astype(np.float64), out, 4)
    with pytest.raises(Exception, match="softmax_grad"):
        _C.softmax_grad(y, g, out, 0)


# ---- layer normalization's forward (fusion/layer_norm.py) -----------------------------------

LAYER_NORM = "fused_layer_norm[sum+sub+square+sum+add+sqrt+div+mul+add]"
LAYER_NORM_GRAD = "fused_layer_norm_grad[layer_norm_grad]"


def test_layer_norm_becomes_one_node_writing_what_the_plan_reads():
    x = pd.data("lnx", shape=[None, 4, 6])
    scale, offset = pd.constant(np.ones(6, np.float32)), pd.constant(np.zeros(6, np.float32))
    y = pd.layer_norm(x, scale, offset)
    feeds = {x: np.zeros((2, 4, 6), np.float32)}
    (node,) = _fused([y], feeds)
    assert node.op.name == LAYER_NORM and node.root is y.node
    assert node.attrs["slots"] == ((8, True),)          # inference: the result only
    assert node.attrs["cols"] == 6 and node.attrs["eps"] == pytest.approx(1e-3)
    grads = pd.gradients(pd.sum(y * y), [x, scale, offset])
    nodes = _fused([y, *grads], feeds)
    (node,) = [n for n in nodes if n.op.name == LAYER_NORM]
    written = [s for s, write in node.attrs["slots"] if write]
    assert written == [5, 6, 8]          # std and normalized (the fused gradient's), result
    assert LAYER_NORM_GRAD in _names(nodes)
    assert not any(n.op.name in ("square", "sqrt", "neg", "count") for n in nodes)
    (grad,) = [n for n in nodes if n.op.name == LAYER_NORM_GRAD]
    assert grad.keys == [(id(grads[0].node), 0)] and len(grad.members) == 24
    assert grad.root is grad.members[0] and grad.root.op.name == "div"
    assert [v.node.op.name for v in grad.inputs[1:]] == ["div", "sqrt"]  # y0 and d


def test_layer_norm_variants_and_what_stays_unfused():
    x = pd.data("lnx2", shape=[None, 3, 5])
    feeds = {x: np.zeros((2, 3, 5), np.float32)}
    assert _names(_fused([pd.layer_norm(x, None, None)], feeds)) == \
        ["fused_layer_norm[sum+sub+square+sum+add+sqrt+div]"]
    scale = pd.constant(np.ones(5, np.float32))
    assert _names(_fused([pd.layer_norm(x, scale, None)], feeds)) == \
        ["fused_layer_norm[sum+sub+square+sum+add+sqrt+div+mul]"]
    both = pd.constant(np.ones((3, 5), np.float32))
    (node,) = _fused([pd.layer_norm(x, both, both, axis=[1, 2])], feeds)
    assert node.op.name == LAYER_NORM and node.attrs["cols"] == 15
    # not over the last axes: no fusion
    assert not any(n.startswith("fused_layer_norm")
                   for n in _names(_fused([pd.layer_norm(x, None, None, axis=1)], feeds)))
    # a value wanted as a target is written
    y = pd.layer_norm(x, scale, None)
    centered = y.node.inputs[0].node.inputs[0]
    (node,) = [n for n in _fused([y, centered], feeds) if n.op.name.startswith("fused_layer")]
    assert (1, True) in node.attrs["slots"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis, shape", [(-1, (3, 5)), (-1, (2, 4, 37)), ([1, 2], (2, 3, 4)),
                                         (-1, (3, 1)), (-1, (2, 3, 300))])
def test_layer_norm_forward_and_gradients_match_the_unfused_ops(dtype, axis, shape, device):
    rng = np.random.default_rng(8)
    x = pd.data("lnx3", shape=[None, *shape[1:]], dtype=dtype)
    pshape = shape[1:] if axis == [1, 2] else shape[-1:]
    scale = pd.constant(rng.standard_normal(pshape).astype(dtype))
    offset = pd.constant(rng.standard_normal(pshape).astype(dtype))
    y = pd.layer_norm(x * 2.0, scale, offset, axis=axis, epsilon=1e-5)
    loss = pd.sum(y * pd.constant(rng.standard_normal(shape[1:]).astype(dtype)))
    grads = pd.gradients(loss, [x, scale, offset])
    feeds = {x: rng.standard_normal(shape).astype(dtype)}
    for targets in ([y], [y, *grads]):
        fused, plain, ran, ran_plain = _both(targets, feeds)
        _assert_same(fused, plain, rtol=2e-5 if dtype == "float32" else 1e-12)
        assert LAYER_NORM in ran and LAYER_NORM not in ran_plain, ran
    assert LAYER_NORM_GRAD in ran and LAYER_NORM_GRAD not in ran_plain, ran


def test_a_layer_norm_gradient_whose_inner_values_are_wanted_stays_unfused():
    x = pd.data("lnx5", shape=[None, 4])
    y = pd.layer_norm(x, None, None)
    (gx,) = pd.gradients(pd.sum(y * y), [x])
    feeds = {x: np.zeros((2, 4), np.float32)}
    assert LAYER_NORM_GRAD in _names(_fused([gx], feeds))
    inner = gx.node.inputs[0]  # the x - mu branch's sum_to, inside the group
    assert LAYER_NORM_GRAD not in _names(_fused([gx, inner], feeds))
    # x a constant: no gradient of x, nothing to fuse but the forward
    c = pd.constant(np.ones((2, 4), np.float32))
    s = pd.Variable("lns5", shape=[4], initializer="ones")
    (gs,) = pd.gradients(pd.sum(pd.layer_norm(c, s, None) ** 2), [s])
    assert LAYER_NORM_GRAD not in _names(_fused([gs], {}))


def test_layer_norm_gradients_against_central_differences():
    from gradcheck import check_gradients
    rng = np.random.default_rng(9)
    check_gradients(lambda x, s, b: pd.layer_norm(x, s, b, epsilon=1e-3),
                    [rng.standard_normal((3, 4, 7)), rng.standard_normal(7),
                     rng.standard_normal(7)])


def test_a_transformer_block_trains_the_same_fused_and_unfused():
    def model():
        pd.seed(4)
        inp = pd.layers.Input(shape=(6, 8))
        a = pd.layers.MultiHeadAttention(num_heads=2, key_dim=4)(inp, inp)
        h = pd.layers.LayerNormalization(epsilon=1e-6)(pd.layers.Add()([inp, a]))
        f = pd.layers.Dense(8)(pd.layers.Dense(16, activation="relu")(h))
        h = pd.layers.LayerNormalization(epsilon=1e-6)(pd.layers.Add()([h, f]))
        m = pd.Model(inp, pd.layers.Dense(2)(pd.layers.GlobalAveragePooling1D()(h)))
        m.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")
        return m
    rng = np.random.default_rng(1)
    xs = rng.standard_normal((4, 6, 8)).astype("float32")
    ys = rng.standard_normal((4, 2)).astype("float32")

    def run():
        m = model()
        losses = [m.train_on_batch(xs, ys) for _ in range(3)]
        return [np.asarray(w) for w in m.get_weights()], losses
    (wf, lf), (wp, lp), opsf, opsp = _fused_and_unfused(run)
    np.testing.assert_allclose(lf, lp, rtol=1e-5)
    for a, b in zip(wf, wp):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert LAYER_NORM in opsf and LAYER_NORM not in opsp


def test_a_failing_layer_norm_kernel_names_its_ops_and_the_users_line(monkeypatch):
    x = pd.data("lnx4", shape=[None, 3])
    y = pd.layer_norm(x, pd.constant([1.0, 2.0, 3.0]), pd.constant([0.0, 0.0, 1.0]))
    line = y.node.location

    def failing(node, ins, outs, ctx):
        def run():
            raise ValueError("fused_layer_norm: something went wrong")
        return run
    failing.fusable = cpu.KERNELS["fused_layer_norm"].fusable
    monkeypatch.setitem(cpu.KERNELS, "fused_layer_norm", failing)
    with pytest.raises(ValueError, match=r"\(in fused_layer_norm\[sum\+sub\+.*\+add\], "
                                         r"built at " + line.replace(".", r"\.") + r"\)"):
        pd.eval(y, {x: np.ones((2, 3), np.float32)}, device="cpu")


def test_the_layer_norm_kernel_checks_its_arrays():
    from paddle import _C
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    y, mu = np.empty_like(x), np.empty(2, np.float32)
    outs = [mu] + [None] * 5 + [y] + [None] * 2
    _C.layer_norm(x, None, None, outs, 4, 0.0)
    c = x - x.mean(-1, keepdims=True)
    np.testing.assert_allclose(y, c / np.sqrt((c * c).mean(-1, keepdims=True)), rtol=1e-6)
    np.testing.assert_allclose(mu, x.mean(-1), rtol=1e-6)
    with pytest.raises(Exception, match="layer_norm"):
        _C.layer_norm(x, None, None, outs[:3], 4, 0.0)           # one entry per slot
    with pytest.raises(Exception, match="layer_norm"):
        _C.layer_norm(x, np.ones(3, np.float32), None, outs, 4, 0.0)  # scale's size
    with pytest.raises(Exception, match="layer_norm"):
        _C.layer_norm(x, None, None, [np.empty(3, np.float32)] + outs[1:], 4, 0.0)
    with pytest.raises(Exception, match="layer_norm"):
        _C.layer_norm(x, None, None, [None] * 7 + [y, None], 4, 0.0)  # scaled, no scale
    with pytest.raises(Exception, match="layer_norm"):
        _C.layer_norm(x, None, None, outs, 3, 0.0)
    d = np.sqrt((c * c).mean(-1))
    gy, dx = np.arange(8, 0, -1, dtype=np.float32).reshape(2, 4), np.empty_like(x)
    _C.layer_norm_grad(gy, y, d, dx, 4)
    want = (gy - gy.mean(-1, keepdims=True) - y * (gy * y).mean(-1, keepdims=True)) / d[:, None]
    np.testing.assert_allclose(dx, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(Exception, match="layer_norm_grad"):
        _C.layer_norm_grad(gy, y, d[:1], dx, 4)
    with pytest.raises(Exception, match="layer_norm_grad"):
        _C.layer_norm_grad(gy, y.astype(np.float64), d, dx, 4)
    with pytest.raises(Exception, match="layer_norm_grad"):
        _C.layer_norm_grad(gy, y, d, dx, 3)


CONV_RELU_CASES = [  # x shape, filter shape, conv2d kwargs, with a bias: each of conv.cpp's paths
    ((2, 9, 8, 1), (3, 3, 1, 40), {}, True),                          # taps
    ((2, 7, 9, 3), (3, 3, 3, 5), {"padding": "same", "strides": 2}, False),  # taps, strided
    ((3, 8, 7, 12), (3, 3, 12, 6), {"padding": "same"}, True),        # im2col + GEMM
    ((2, 6, 5, 20), (1, 1, 20, 7), {}, True),                         # pointwise
    ((2, 6, 6, 4), (3, 3, 1, 8), {"groups": 4, "padding": 1}, True),  # depthwise (direct)
    ((2, 6, 6, 6), (3, 3, 3, 4), {"groups": 2, "dilation": 2, "padding": "same"}, False),
    ((2, 12, 11, 16), (3, 3, 16, 16), {"padding": "same"}, True),    # Winograd (winograd.cpp)
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("blocks", ["small", "default"])
@pytest.mark.parametrize("xs, fs, kw, with_bias", CONV_RELU_CASES)
def test_conv_relu_forward_and_gradients_match(monkeypatch, xs, fs, kw, with_bias, blocks,
                                               dtype, device):
    if blocks == "small":  # blocks of a row or two, over two threads
        monkeypatch.setattr(cpu_conv, "COLUMN_BYTES", 8)
        monkeypatch.setattr(cpu_conv, "OUTPUT_BYTES", 8)
        monkeypatch.setattr(cpu_conv, "MIN_POSITIONS", 1)
    rng = np.random.default_rng(6)
    x = pd.data("cx", shape=[None, *xs[1:]], dtype=dtype)
    w = pd.constant(rng.standard_normal(fs).astype(dtype))
    b = pd.constant(rng.standard_normal(fs[3]).astype(dtype)) if with_bias else None
    y = pd.relu(pd.conv2d(x, w, bias=b, **kw))
    loss = pd.sum(y * pd.constant(rng.standard_normal(y.shape[1:]).astype(dtype)))
    grads = pd.gradients(loss, [x, w] + ([b] if with_bias else []))
    feeds = {x: rng.standard_normal(xs).astype(dtype)}
    threads = pd._C.omp_threads()
    pd._C.set_omp_threads(2)
    try:
        fused, plain, ran, ran_plain = _both([y, *grads], feeds)
    finally:
        pd._C.set_omp_threads(threads)
    # The same products and sums in the same order: relu in cache changes no value.
    _assert_same(fused, plain)
    assert "fused_conv[conv2d+relu]" in ran and "relu" not in ran, ran
    assert "conv2d" in ran_plain and "relu" in ran_plain
    assert (fused[0] >= 0).all() and (fused[0] == 0).any() and (fused[0] > 0).any()


def test_conv_relu_lets_nan_through_as_relu_does():
    x = pd.data("cnx", shape=[None, 4, 4, 2])
    y = pd.relu(pd.conv2d(x, pd.constant(np.ones((3, 3, 2, 3), np.float32)), padding="same"))
    xs = -np.ones((1, 4, 4, 2), np.float32)
    xs[0, 0, 0, 0] = np.nan
    got = pd.eval(y, {x: xs})
    assert np.isnan(got[0, :2, :2]).all() and (got[0, 2:] == 0).all()


def test_conv_is_not_fused_with_a_relu_that_is_not_its_only_reader():
    x = pd.data("cx2", shape=[None, 5, 5, 2])
    c = pd.conv2d(x, pd.constant(np.ones((3, 3, 2, 3), np.float32)))
    feeds = {x: np.zeros((2, 5, 5, 2), np.float32)}
    assert _names(_fused([pd.relu(c) + c], feeds)) == ["conv2d", "fused_elementwise[relu+add]"]
    assert _names(_fused([c, pd.relu(c)], feeds)) == ["conv2d", "relu"]
    assert _names(_fused([pd.relu(c)], feeds)) == ["fused_conv[conv2d+relu]"]
    assert _names(_fused([pd.sigmoid(c)], feeds)) == ["conv2d", "sigmoid"]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("relu", [True, False])
@pytest.mark.parametrize("residual_first", [False, True])
@pytest.mark.parametrize("xs, fs, kw, with_bias", CONV_RELU_CASES)
def test_conv_residual_add_forward_and_gradients_match(monkeypatch, xs, fs, kw, with_bias,
                                                       residual_first, relu, dtype, device):
    # conv2d + add (+ relu): a residual block's end, the add and relu in each block's cache
    monkeypatch.setattr(cpu_conv, "COLUMN_BYTES", 8)  # blocks of a row or two, two threads
    monkeypatch.setattr(cpu_conv, "OUTPUT_BYTES", 8)
    monkeypatch.setattr(cpu_conv, "MIN_POSITIONS", 1)
    rng = np.random.default_rng(8)
    x = pd.data("rx", shape=[None, *xs[1:]], dtype=dtype)
    w = pd.constant(rng.standard_normal(fs).astype(dtype))
    b = pd.constant(rng.standard_normal(fs[3]).astype(dtype)) if with_bias else None
    c = pd.conv2d(x, w, bias=b, **kw)
    r = pd.data("rr", shape=[None, *c.shape[1:]], dtype=dtype)
    y = r + c if residual_first else c + r
    y = pd.relu(y) if relu else y
    loss = pd.sum(y * pd.constant(rng.standard_normal(y.shape[1:]).astype(dtype)))
    grads = pd.gradients(loss, [x, w, r] + ([b] if with_bias else []))
    feeds = {x: rng.standard_normal(xs).astype(dtype)}
    feeds[r] = rng.standard_normal((xs[0], *c.shape[1:])).astype(dtype)
    threads = pd._C.omp_threads()
    pd._C.set_omp_threads(2)
    try:
        fused, plain, ran, ran_plain = _both([y, *grads], feeds)
    finally:
        pd._C.set_omp_threads(threads)
    _assert_same(fused, plain)  # the same sums in the same order, bit for bit
    name = "fused_conv[conv2d+add+relu]" if relu else "fused_conv[conv2d+add]"
    assert name in ran and "add" not in ran and "relu" not in ran, ran
    assert "conv2d" in ran_plain and "add" in ran_plain
    if relu:
        assert (fused[0] >= 0).all() and (fused[0] == 0).any() and (fused[0] > 0).any()


def test_conv_residual_add_lets_nan_through_as_add_and_relu_do():
    x = pd.data("rnx", shape=[None, 4, 4, 2])
    r = pd.data("rnr", shape=[None, 4, 4, 3])
    c = pd.conv2d(x, pd.constant(np.ones((3, 3, 2, 3), np.float32)), padding="same")
    y = pd.relu(c + r)
    xs = -np.ones((1, 4, 4, 2), np.float32)
    rs = np.zeros((1, 4, 4, 3), np.float32)
    rs[0, 3, 3, 1], rs[0, 3, 2, 0], rs[0, 2, 3, 2] = np.nan, np.inf, 100.0
    got = pd.eval(y, {x: xs, r: rs})
    assert np.isnan(got[0, 3, 3, 1]) and got[0, 3, 2, 0] == np.inf
    assert got[0, 2, 3, 2] == 100 - 6 * 2  # a corner window: 6 taps of 2 channels of -1
    assert (got[0, :2] == 0).all()


def test_which_conv_residual_adds_fuse():
    x = pd.data("rx2", shape=[None, 5, 5, 2])
    c = pd.conv2d(x, pd.constant(np.ones((3, 3, 2, 3), np.float32)), padding="same")
    d = pd.conv2d(x, pd.constant(np.ones((1, 1, 2, 3), np.float32)))
    r = pd.data("rr2", shape=[None, 5, 5, 3])
    feeds = {x: np.zeros((2, 5, 5, 2), np.float32), r: np.zeros((2, 5, 5, 3), np.float32)}
    add = c + r
    assert _names(_fused([pd.relu(add)], feeds)) == ["fused_conv[conv2d+add+relu]"]
    assert _names(_fused([add], feeds)) == ["fused_conv[conv2d+add]"]
    # the sum read twice (or fetched): the add fuses, the relu runs on its own
    assert _names(_fused([pd.relu(add) * add], feeds)) == \
        ["fused_conv[conv2d+add]", "fused_elementwise[relu+mul]"]
    assert _names(_fused([add, pd.relu(add)], feeds)) == ["fused_conv[conv2d+add]", "relu"]
    # two convolutions into one add: one of them takes it, the other runs before it
    assert _names(_fused([pd.relu(c + d)], feeds)) == ["conv2d", "fused_conv[conv2d+add+relu]"]
    # not the convolution's only reader, fetched, a broadcast, or the convolution twice
    assert _names(_fused([c + r, c], feeds)) == ["conv2d", "add"]
    assert _names(_fused([c + pd.relu(c)], feeds)) == ["conv2d", "fused_elementwise[relu+add]"]
    bias = pd.constant(np.ones(3, np.float32))
    assert _names(_fused([pd.relu(c + bias)], feeds)) == ["conv2d", "fused_elementwise[add+relu]"]
    assert _names(_fused([pd.relu(c + c)], feeds)) == ["conv2d", "fused_elementwise[add+relu]"]
    # float16 would round the convolution before the add: not fused
    h = pd.data("rh", shape=[None, 5, 5, 2], dtype="float16")
    ch = pd.conv2d(h, pd.constant(np.ones((3, 3, 2, 3), np.float16)), padding="same")
    rh = pd.data("rrh", shape=[None, 5, 5, 3], dtype="float16")
    assert _names(_fused([ch + rh], {h: np.zeros((1, 5, 5, 2), np.float16),
                                     rh: np.zeros((1, 5, 5, 3), np.float16)}))[0] == "conv2d"


def test_folded_batch_norm_fuses_with_relu_and_residual_add(monkeypatch):
    # inference: conv2d + batch_norm fold into one conv2d (fold_batch_norm.py) standing for
    # the batch_norm's output, which then fuses with its relu, or with a residual add + relu
    rng = np.random.default_rng(9)
    x = pd.data("bx", shape=[None, 6, 6, 4])
    r = pd.data("br", shape=[None, 6, 6, 5])

    def conv_bn(name):
        w = pd.constant(rng.standard_normal((3, 3, 4, 5)).astype(np.float32))
        stats = []
        for n, v in (("g", rng.random(5) + 0.5), ("b", rng.standard_normal(5)),
                     ("mm", rng.standard_normal(5)), ("mv", rng.random(5) + 0.5)):
            stats.append(pd.Variable(f"{name}_{n}", shape=[5], trainable=False))
            stats[-1].set_value(v.astype(np.float32))
        return pd.batch_norm(pd.conv2d(x, w, padding="same"), *stats)

    feeds = {x: rng.standard_normal((3, 6, 6, 4)).astype(np.float32),
             r: rng.standard_normal((3, 6, 6, 5)).astype(np.float32)}
    for y, name in ((pd.relu(conv_bn("f1")), "fused_conv[conv2d+relu]"),
                    (pd.relu(r + conv_bn("f2")), "fused_conv[conv2d+add+relu]")):
        fused, plain, ran, ran_plain = _both([y], feeds)
        _assert_same(fused, plain)  # the same folded convolution: bit for bit
        assert ran[-1] == name and "relu" not in ran and "batch_norm" not in ran, ran
        assert "relu" in ran_plain and "batch_norm" not in ran_plain
        assert (fused[0] == 0).any() and (fused[0] > 0).any()
        # training plans keep the batch normalization
        with pd.profiler.profile() as prof:
            pd.eval(y, feeds, training=True)
        assert "batch_norm" in " ".join(e.op for e in prof.events)


def test_conv_residual_kernel_checks_its_operand():
    x, w = np.ones((1, 3, 3, 2), np.float32), np.ones((1, 1, 2, 4), np.float32)
    y = np.empty((1, 3, 3, 4), np.float32)
    spec = cpu_conv.conv_spec(x.shape, w.shape, y.shape, {"strides": (1, 1),
                              "dilation": (1, 1), "padding": "valid", "groups": 1}, 4)
    none, ws = np.empty(0, np.float32), np.empty(64, np.float32)
    pd._C.conv2d(x, w, none, y, spec, ws, True, np.full(y.shape, -3.0, np.float32))
    assert (y == 0).all()
    pd._C.conv2d(x, w, none, y, spec, ws, False, np.full(y.shape, 0.5, np.float32))
    assert (y == 2.5).all()
    pd._C.conv2d(x, w, none, y, spec, ws)  # no residual, no relu: the defaults
    assert (y == 2).all()
    with pytest.raises(Exception, match="conv2d.*residual"):
        pd._C.conv2d(x, w, none, y, spec, ws, True, np.ones(5, np.float32))
    with pytest.raises(Exception, match="conv2d.*residual"):
        pd._C.conv2d(x, w, none, y, spec, ws, True, np.ones(y.shape, np.float64))
    with pytest.raises(Exception, match="conv2d: residual must not share memory with y"):
        pd._C.conv2d(x, w, none, y, spec, ws, True, y)


PAD_CONV_CASES = [  # x shape, pads (top, bottom), (left, right), filter shape, conv2d kwargs
    ((2, 9, 9, 3), ((3, 3), (3, 3)), (7, 7, 3, 8), {"strides": 2}),   # ResNet-50's stem
    ((2, 9, 8, 3), ((3, 2), (1, 3)), (3, 3, 3, 4), {}),               # taps, uneven pads
    ((2, 7, 6, 12), ((1, 0), (0, 2)), (3, 3, 12, 5), {"dilation": 2}),  # im2col + GEMM
    ((2, 6, 6, 4), ((1, 1), (1, 1)), (3, 3, 1, 8), {"groups": 4}),    # depthwise
    ((2, 5, 5, 6), ((2, 2), (2, 2)), (1, 1, 6, 7), {"strides": 2}),   # 1x1 over pads
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("after", ["none", "relu", "batch_norm+relu"])
@pytest.mark.parametrize("xs, pads, fs, kw", PAD_CONV_CASES)
def test_pad_folds_into_the_convolution(monkeypatch, xs, pads, fs, kw, after, dtype, device):
    rng = np.random.default_rng(11)
    x = pd.data("px", shape=[None, *xs[1:]], dtype=dtype)
    w = pd.constant(rng.standard_normal(fs).astype(dtype))
    y = pd.conv2d(pd.pad(x, [(0, 0), *pads, (0, 0)]), w, **kw)
    if after == "batch_norm+relu":  # inference: folded into the convolution first
        stats = []
        for n, v in (("g", rng.random(fs[3]) + 0.5), ("b", rng.standard_normal(fs[3])),
                     ("mm", rng.standard_normal(fs[3])), ("mv", rng.random(fs[3]) + 0.5)):
            stats.append(pd.Variable(f"pc_{n}", shape=[fs[3]], dtype=dtype, trainable=False))
            stats[-1].set_value(v.astype(dtype))
        y = pd.batch_norm(y, *stats)
    y = y if after == "none" else pd.relu(y)
    feeds = {x: rng.standard_normal(xs).astype(dtype)}
    fused, plain, ran, ran_plain = _both([y], feeds)
    _assert_same(fused, plain)  # the same zeros in the same products: bit for bit
    assert "pad" not in ran and "pad" in ran_plain, ran
    assert ran[-1] == ("conv2d[pad+conv2d]" if after == "none" else
                       "fused_conv[pad+conv2d+relu]")
    # training: the padded input is the filter gradient's too, so it is kept
    loss = pd.sum(y * pd.constant(rng.standard_normal(y.shape[1:]).astype(dtype)))
    gx, = pd.gradients(loss, [x])
    fused, plain, ran, _ = _both([y, gx], feeds, training=True)
    _assert_same(fused, plain)
    assert "pad" in ran


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs, pads, kw", [
    ((2, 9, 9, 4), ((1, 1), (1, 1)), {"pool_size": 3, "strides": 2}),  # ResNet-50's pool1
    ((2, 8, 7, 3), ((0, 2), (1, 0)), {"pool_size": 3}),
    ((2, 6, 6, 2), ((1, 1), (1, 1)), {"pool_size": 2, "strides": 2}),
])
def test_pad_folds_into_a_max_pooling_of_a_relu_in_inference(monkeypatch, xs, pads, kw,
                                                             dtype, device):
    rng = np.random.default_rng(12)
    x = pd.data("ppx", shape=[None, *xs[1:]], dtype=dtype)
    y = pd.max_pool2d(pd.pad(pd.relu(x), [(0, 0), *pads, (0, 0)]), **kw)
    xv = rng.standard_normal(xs).astype(dtype)
    xv[0, 0, 0, 0] = np.nan
    xv[1, :3, :3] = -1.0  # windows of zeros alone: the pads' zeros tie with relu's
    fused, plain, ran, ran_plain = _both([y], {x: xv})
    _assert_same(fused, plain)
    assert np.isnan(fused[0][0, 0, 0, 0]) and (fused[0][1, 0, 0] == 0).all()
    assert ran == ["relu", "max_pool2d[pad+max_pool2d]"] and "pad" in ran_plain, ran
    # with a gradient, the arg-max is read: the positions would differ, so no fold
    gx, = pd.gradients(pd.sum(y), [x])
    fused, plain, ran, _ = _both([y, gx], {x: xv}, training=True)
    _assert_same(fused, plain)
    assert "pad" in ran


def test_which_pads_fold():
    x = pd.data("pfx2", shape=[None, 6, 6, 2])
    feeds = {x: np.zeros((1, 6, 6, 2), np.float32)}
    w = pd.constant(np.ones((3, 3, 2, 3), np.float32))
    spatial = [(0, 0), (1, 1), (1, 1), (0, 0)]
    assert _names(_fused([pd.conv2d(pd.pad(x, spatial), w)], feeds)) == ["conv2d[pad+conv2d]"]
    # not zero, on the channels or the batch, read twice or fetched, or a padded conv
    assert _names(_fused([pd.conv2d(pd.pad(x, spatial, 1.0), w)], feeds)) == ["pad", "conv2d"]
    assert _names(_fused([pd.conv2d(pd.pad(x, [(0, 0), (1, 1), (1, 1), (1, 0)]),
                                    pd.constant(np.ones((3, 3, 3, 3), np.float32)))],
                         feeds)) == ["pad", "conv2d"]
    assert _names(_fused([pd.conv2d(pd.pad(x, [(1, 0), (1, 1), (1, 1), (0, 0)]), w)],
                         feeds)) == ["pad", "conv2d"]
    p = pd.pad(x, spatial)
    assert _names(_fused([pd.conv2d(p, w), p], feeds)) == ["pad", "conv2d"]
    assert _names(_fused([pd.conv2d(p, w) + 1.0, pd.sum(p)], feeds))[0] == "pad"
    assert _names(_fused([pd.conv2d(p, w, padding="same")], feeds)) == ["pad", "conv2d"]
    # a max pooling: only of a relu, with pads narrower than its windows
    r = pd.pad(pd.relu(x), spatial)
    assert _names(_fused([pd.max_pool2d(r, 2)], feeds)) == ["relu", "max_pool2d[pad+max_pool2d]"]
    assert _names(_fused([pd.max_pool2d(pd.pad(x, spatial), 2)], feeds)) == ["pad", "max_pool2d"]
    wide = pd.pad(pd.relu(x), [(0, 0), (2, 0), (0, 0), (0, 0)])
    assert _names(_fused([pd.max_pool2d(wide, 2)], feeds)) == ["relu", "pad", "max_pool2d"]


MATMUL_CASES = [  # a shape, b shape, matmul kwargs: one product per thread's rows or columns
    ((64, 128), (128, 40), {}),                      # split over rows
    ((6, 128), (128, 400), {}),                      # split over columns
    ((5, 7), (7, 3), {}),                            # too small to split
    ((2, 16, 24), (24, 9), {}),                      # a batch of rows against one matrix
    ((128, 64), (40, 128), {"transpose_a": True, "transpose_b": True}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("relu", [True, False])
@pytest.mark.parametrize("bias_first", [False, True])
@pytest.mark.parametrize("a_shape, b_shape, kw", MATMUL_CASES)
def test_matmul_bias_relu_forward_and_gradients_match(a_shape, b_shape, kw, bias_first, relu,
                                                      dtype, device):
    rng = np.random.default_rng(7)
    a = pd.data("ma", shape=[None, *a_shape[1:]], dtype=dtype)
    w = pd.constant(rng.standard_normal(b_shape).astype(dtype))
    n = b_shape[0] if kw.get("transpose_b") else b_shape[1]
    b = pd.Variable(f"mb_{dtype}", shape=[n], dtype=dtype)
    b.set_value(rng.standard_normal(n).astype(dtype))
    p = pd.matmul(a, w, **kw)
    y = b + p if bias_first else p + b
    y = pd.relu(y) if relu else y
    loss = pd.sum(y * pd.constant(rng.standard_normal(y.shape[1:]).astype(dtype)))
    grads = pd.gradients(loss, [a, b])
    feeds = {a: rng.standard_normal(a_shape).astype(dtype)}
    threads = pd._C.omp_threads()
    pd._C.set_omp_threads(2)
    try:
        fused, plain, ran, ran_plain = _both([y, *grads], feeds)
    finally:
        pd._C.set_omp_threads(threads)
    _assert_same(fused, plain)  # the same sums in the same order
    if relu:
        assert "fused_matmul[matmul+add+relu]" in ran and "add" not in ran \
            and "relu" not in ran, ran
    else:  # a bias without relu: the bias in the product's epilogue too
        assert "fused_matmul[matmul+add]" in ran and "add" not in ran, ran
    assert "matmul" in ran_plain and not any(op.startswith("fused_") for op in ran_plain)
    if relu:
        assert (fused[0] >= 0).all() and (fused[0] == 0).any() and (fused[0] > 0).any()


def test_matmul_bias_relu_lets_nan_through_as_relu_does():
    a = pd.data("mna", shape=[None, 3])
    y = pd.relu(pd.matmul(a, pd.constant(np.ones((3, 4), np.float32))) +
                pd.constant(np.array([0, -10, np.nan, 1], np.float32)))
    got = pd.eval(y, {a: np.array([[1, 2, np.nan], [1, 2, 3]], np.float32)})
    assert np.isnan(got[0]).all() and np.isnan(got[1, 2])
    np.testing.assert_array_equal(got[1, [0, 1, 3]], [6, 0, 7])


def test_what_a_matmul_fuses_with():
    a = pd.data("mfa", shape=[None, 3])
    p = pd.matmul(a, pd.constant(np.ones((3, 4), np.float32)))
    bias = pd.constant(np.ones(4, np.float32))
    feeds = {a: np.zeros((2, 3), np.float32)}
    assert _names(_fused([pd.relu(p + bias)], feeds)) == ["fused_matmul[matmul+add+relu]"]
    assert _names(_fused([pd.relu(bias + p)], feeds)) == ["fused_matmul[matmul+add+relu]"]
    # another activation, or the sum wanted too: the bias alone in the epilogue
    assert _names(_fused([pd.sigmoid(p + bias)], feeds)) == [
        "fused_matmul[matmul+add]", "sigmoid"]
    assert _names(_fused([p + bias], feeds)) == ["fused_matmul[matmul+add]"]
    s = p + bias
    assert _names(_fused([s, pd.relu(s)], feeds)) == ["fused_matmul[matmul+add]", "relu"]
    # the product wanted, read twice, or added to something other than a bias: no fusion
    assert _names(_fused([p, pd.relu(p + bias)], feeds)) == [
        "matmul", "fused_elementwise[add+relu]"]
    assert _names(_fused([pd.relu(p + p)], feeds)) == ["matmul", "fused_elementwise[add+relu]"]
    other = pd.constant(np.ones((2, 4), np.float32))
    assert _names(_fused([pd.relu(p + other)], feeds)) == [
        "matmul", "fused_elementwise[add+relu]"]
    # half precision: the unfused ops round the product before adding the bias
    h = pd.data("mfh", shape=[None, 3], dtype="float16")
    ph = pd.matmul(h, pd.constant(np.ones((3, 4), np.float16)))
    feeds[h] = np.zeros((2, 3), np.float16)
    assert not any(n.startswith("fused_matmul") for n in _names(
        _fused([pd.relu(ph + pd.constant(np.ones(4, np.float16)))], feeds)))
    b64 = pd.data("mfb", shape=[4], dtype="float64")  # a bias computed after the product
    feeds[b64] = np.ones(4)
    assert _names(_fused([pd.relu(p + pd.cast(b64, "float32"))], feeds)) == [
        "cast", "fused_matmul[matmul+add+relu]"]



@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("a_shape, b_shape, kw", MATMUL_CASES)
def test_matmul_relu_grad_forward_and_gradients_match(a_shape, b_shape, kw, dtype, device):
    """A relu layer's output through a second product: the gradient the second product
    passes back, masked by relu_grad, is one node (fused_matmul[matmul+relu_grad])."""
    rng = np.random.default_rng(8)
    a = pd.data("mra", shape=[None, *a_shape[1:]], dtype=dtype)
    w = pd.Variable(f"mrw_{dtype}", shape=list(b_shape), dtype=dtype)
    w.set_value(rng.standard_normal(b_shape).astype(dtype))
    h = pd.relu(pd.matmul(a, w, **kw))
    n = h.shape[-1]
    w2 = pd.Variable(f"mrw2_{dtype}", shape=[n, 5], dtype=dtype)
    w2.set_value(rng.standard_normal((n, 5)).astype(dtype))
    out = pd.matmul(h, w2)
    loss = pd.sum(out * pd.constant(rng.standard_normal(out.shape[1:]).astype(dtype)))
    grads = pd.gradients(loss, [a, w, w2])
    feeds = {a: rng.standard_normal(a_shape).astype(dtype)}
    threads = pd._C.omp_threads()
    pd._C.set_omp_threads(2)
    try:
        fused, plain, ran, ran_plain = _both([out, *grads], feeds)
    finally:
        pd._C.set_omp_threads(threads)
    _assert_same(fused, plain)  # the same products, the same mask
    assert "fused_matmul[matmul+relu_grad]" in ran and "relu_grad" not in ran, ran
    assert "relu_grad" in ran_plain and not any(op.startswith("fused_") for op in ran_plain)


def test_matmul_relu_grad_lets_nan_through_as_relu_grad_does():
    g = pd.data("mng", shape=[None, 2])
    y = pd.data("mny", shape=[None, 3])
    masked = pd.lowlevel.ops.math.relu_grad(y, pd.matmul(g, pd.constant(np.ones((2, 3),
                                                                                np.float32))))
    feeds = {g: np.array([[np.nan, 1], [1, 2]], np.float32),
             y: np.array([[1, 0, np.nan], [1, -1, 2]], np.float32)}
    assert _names(_fused([masked], feeds)) == ["fused_matmul[matmul+relu_grad]"]
    got = pd.eval(masked, feeds)
    assert np.isnan(got[0, 0]) and got[0, 1] == 0 and got[0, 2] == 0  # NaN kept where y > 0
    np.testing.assert_array_equal(got[1], [3, 0, 3])


def test_what_a_matmul_fuses_with_backward():
    g = pd.data("mbg", shape=[None, 2])
    y = pd.data("mby", shape=[None, 3])
    p = pd.matmul(g, pd.constant(np.ones((2, 3), np.float32)))
    relu_grad = pd.lowlevel.ops.math.relu_grad
    feeds = {g: np.zeros((4, 2), np.float32), y: np.zeros((4, 3), np.float32)}
    assert _names(_fused([relu_grad(y, p)], feeds)) == ["fused_matmul[matmul+relu_grad]"]
    # the product as the mask, the product wanted too, or a mask that broadcasts: no fusion
    assert _names(_fused([relu_grad(p, y)], feeds)) == ["matmul", "relu_grad"]
    assert _names(_fused([p, relu_grad(y, p)], feeds)) == ["matmul", "relu_grad"]
    row = pd.data("mbr", shape=[3])
    feeds[row] = np.zeros(3, np.float32)
    assert _names(_fused([relu_grad(row, p)], feeds)) == ["matmul", "relu_grad"]


def test_a_failing_fused_matmul_kernel_names_its_ops_and_the_users_line(monkeypatch):
    g = pd.data("mfg", shape=[None, 2])
    y = pd.data("mfy", shape=[None, 3])
    masked = pd.lowlevel.ops.math.relu_grad(y, pd.matmul(g, pd.constant(np.ones((2, 3),
                                                                                np.float32))))
    line = masked.node.location

    def failing(node, ins, outs, ctx):
        def run():
            raise ValueError("fused_matmul: something went wrong")
        return run
    failing.fusable = cpu.KERNELS["fused_matmul"].fusable
    monkeypatch.setitem(cpu.KERNELS, "fused_matmul", failing)
    with pytest.raises(ValueError, match=r"\(in fused_matmul\[matmul\+relu_grad\], built at " +
                       line.replace(".", r"\.") + r"\)"):
        pd.eval(masked, {g: np.ones((2, 2), np.float32), y: np.ones((2, 3), np.float32)},
                device="cpu")


def test_the_matmul_kernel_checks_its_relu_mask():
    from paddle import _C
    a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
    spec = np.array([1, 2, 4, 3, 0, 0, 0, 0], np.int64)
    out = np.empty((2, 4), np.float32)
    with pytest.raises(ValueError, match="relu_y"):
        _C.matmul(a, b, out, spec, np.empty(0, np.float32), False, np.ones(7, np.float32))
    with pytest.raises(TypeError, match="relu_y"):
        _C.matmul(a, b, out, spec, np.empty(0, np.float32), False, np.ones(8, np.float64))

POOL_CASES = [  # x shape, pool kwargs
    ((2, 8, 6, 5), {"pool_size": 2}),                                        # tiling
    ((2, 7, 7, 3), {"pool_size": 2}),                                        # a border left
    ((2, 9, 8, 4), {"pool_size": 3, "strides": 2, "padding": "same"}),       # overlapping
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs, kw", POOL_CASES)
def test_max_pool_grad_relu_grad_match(xs, kw, dtype, device):
    rng = np.random.default_rng(8)
    x = pd.data("px", shape=[None, *xs[1:]], dtype=dtype)
    r = pd.relu(x * 1.0)  # relu's output: the max pooling's input and relu_grad's mask
    y = pd.max_pool2d(r, **kw)
    loss = pd.sum(y * pd.constant(rng.standard_normal(y.shape[1:]).astype(dtype)))
    gx, = pd.gradients(loss, [x])
    xv = rng.standard_normal(xs).astype(dtype)
    xv[0, 0, :2] = 0.0   # ties at zero: relu's mask, not the pooling's arg-max, zeroes them
    xv[1, 1, 1] = np.nan  # NaN wins its window and is masked (NaN > 0 is false)
    threads = pd._C.omp_threads()
    pd._C.set_omp_threads(2)
    try:
        fused, plain, ran, ran_plain = _both([y, gx], {x: xv}, training=True)
    finally:
        pd._C.set_omp_threads(threads)
    _assert_same(fused, plain)
    name = "fused_pool_grad[max_pool2d_grad+relu_grad]"
    assert name in ran and name not in ran_plain, ran
    assert "max_pool2d_grad" in ran_plain and "relu_grad" in ran_plain
    assert (fused[1] == 0).any() and (fused[1] != 0).any() and not np.isnan(fused[1]).any()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("xs, kw", POOL_CASES)
def test_max_pool_grad_masks_by_relu_input_or_pool_output_alike(xs, kw, dtype):
    # csrc/nn/pool.cpp: relu_y (x-shaped, the mask applied after routing) and pool_y (the
    # pooling's output, each window's gradient masked before routing) give the same dx
    from paddle.devices.cpu.pool import pool_spec
    rng = np.random.default_rng(10)
    r = np.maximum(rng.standard_normal(xs), 0).astype(dtype)
    r[0, 0, :2] = 0.0
    r[1, 1, 1] = np.nan
    x = pd.data("pmx", shape=[None, *xs[1:]], dtype=dtype)
    y_var = pd.max_pool2d(x, **kw)
    attrs = y_var.node.attrs
    oshape = (xs[0], *y_var.shape[1:])
    y, where = np.empty(oshape, dtype), np.empty(oshape, np.int32)
    spec = pool_spec(r.shape, oshape, attrs)
    pd._C.max_pool2d(r, y, where, spec)
    g = rng.standard_normal(oshape).astype(dtype)
    by_relu, by_pool, plain = (np.empty_like(r) for _ in range(3))
    pd._C.max_pool2d_grad(g, where, by_relu, spec, r)
    pd._C.max_pool2d_grad(g, where, by_pool, spec, np.empty(0, dtype), y)
    pd._C.max_pool2d_grad(g, where, plain, spec)
    np.testing.assert_array_equal(by_pool, by_relu)
    np.testing.assert_array_equal(by_relu, np.where(r > 0, plain, 0))
    assert (by_pool != 0).any() and not np.isnan(by_pool).any()
    with pytest.raises(Exception, match="max_pool2d_grad.*pool_y"):
        pd._C.max_pool2d_grad(g, where, by_pool, spec, np.empty(0, dtype), r[:1])
    with pytest.raises(Exception, match="max_pool2d_grad: relu_y and pool_y are two masks"):
        pd._C.max_pool2d_grad(g, where, by_pool, spec, r, y)


def test_what_a_max_pool_grad_fuses_with():
    x = pd.data("pfx", shape=[None, 4, 4, 2])
    r = pd.relu(x * 1.0)
    y = pd.max_pool2d(r, 2)
    feeds = {x: np.ones((2, 4, 4, 2), np.float32)}
    gx, = pd.gradients(pd.sum(y), [x])
    nodes = _fused([gx], feeds)
    names = _names(nodes)
    assert "fused_pool_grad[max_pool2d_grad+relu_grad]" in names and "relu_grad" not in names
    # relu's output is the pooling's input: the pooling's output masks, relu's is not read
    fused = next(n for n in nodes if n.op.name.startswith("fused_pool"))
    assert fused.attrs["mask"] == "pool_y" and fused.inputs[3] is y
    # the pooling's gradient wanted too: the two stay apart
    gx, gr = pd.gradients(pd.sum(y), [x, r])
    names = _names(_fused([gx, gr], feeds))
    assert "max_pool2d_grad" in names and not any(n.startswith("fused_pool") for n in names)
