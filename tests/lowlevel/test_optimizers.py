"""Optimizers against NumPy re-implementations of the Keras 3 update rules, schedules as
learning rates, what minimize(var_list=None) picks, inspectable state, in-place updates."""
import math

import numpy as np
import pytest

import paddle as pd

RNG = np.random.default_rng(7)
TARGET = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])
SCALE = np.array([[1.0, 3.0, 0.5], [2.0, 1.0, 4.0]])


def quadratic(dtype):
    """w and loss = sum(scale * (w - target)^2), whose gradient is 2 scale (w - target)."""
    w = pd.Variable("w", shape=TARGET.shape, dtype=dtype,
                    initializer=pd.initializers.Constant(0.3))
    loss = pd.sum(pd.constant(SCALE, dtype=dtype) * pd.square(w - pd.constant(TARGET,
                                                                             dtype=dtype)))
    return w, loss


def grad(w):
    return 2 * SCALE * (w - TARGET)


# NumPy versions of the Keras 3 update_step rules; `state` holds the slots, `t` counts from 0.

def np_sgd(lr, momentum=0.0, nesterov=False):
    def step(w, g, state, t):
        if not momentum:
            return w - lr(t) * g
        v = state.setdefault("velocity", np.zeros_like(w))
        v[...] = momentum * v - lr(t) * g
        return w + (momentum * v - lr(t) * g if nesterov else v)
    return step


def np_adam(lr, beta_1=0.9, beta_2=0.999, epsilon=1e-7, weight_decay=0.0):
    def step(w, g, state, t):
        if weight_decay:
            w = w - w * weight_decay * lr(t)
        m = state.setdefault("m", np.zeros_like(w))
        v = state.setdefault("v", np.zeros_like(w))
        local = t + 1
        alpha = lr(t) * math.sqrt(1 - beta_2 ** local) / (1 - beta_1 ** local)
        m += (g - m) * (1 - beta_1)
        v += (g * g - v) * (1 - beta_2)
        return w - alpha * m / (np.sqrt(v) + epsilon)
    return step


def np_rmsprop(lr, rho=0.9, momentum=0.0, epsilon=1e-7):
    def step(w, g, state, t):
        vel = state.setdefault("velocity", np.zeros_like(w))
        vel[...] = rho * vel + (1 - rho) * g * g
        inc = lr(t) * g / np.sqrt(vel + epsilon)
        if momentum > 0:
            mom = state.setdefault("momentum", np.zeros_like(w))
            mom[...] = momentum * mom + inc
            return w - mom
        return w - inc
    return step


def np_adagrad(lr, initial_accumulator_value=0.1, epsilon=1e-7):
    def step(w, g, state, t):
        acc = state.setdefault("accumulator", np.full_like(w, initial_accumulator_value))
        acc += g * g
        return w - lr(t) * g / np.sqrt(acc + epsilon)
    return step


def const(v):
    return lambda t: v


CASES = {
    "sgd": (lambda: pd.optimizers.SGD(learning_rate=0.05), np_sgd(const(0.05))),
    "sgd_momentum": (lambda: pd.optimizers.SGD(learning_rate=0.05, momentum=0.9),
                     np_sgd(const(0.05), 0.9)),
    "sgd_nesterov": (lambda: pd.optimizers.SGD(learning_rate=0.05, momentum=0.8, nesterov=True),
                     np_sgd(const(0.05), 0.8, True)),
    "adam": (lambda: pd.optimizers.Adam(learning_rate=0.1), np_adam(const(0.1))),
    "adam_betas": (lambda: pd.optimizers.Adam(learning_rate=0.05, beta_1=0.5, beta_2=0.9,
                                              epsilon=1e-3),
                   np_adam(const(0.05), 0.5, 0.9, 1e-3)),
    "adamw": (lambda: pd.optimizers.AdamW(learning_rate=0.1), np_adam(const(0.1),
                                                                     weight_decay=0.004)),
    "adamw_strong": (lambda: pd.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5),
                     np_adam(const(0.1), weight_decay=0.5)),
    "rmsprop": (lambda: pd.optimizers.RMSprop(learning_rate=0.01), np_rmsprop(const(0.01))),
    "rmsprop_momentum": (lambda: pd.optimizers.RMSprop(learning_rate=0.01, rho=0.8,
                                                       momentum=0.5),
                         np_rmsprop(const(0.01), 0.8, 0.5)),
    "adagrad": (lambda: pd.optimizers.Adagrad(learning_rate=0.1), np_adagrad(const(0.1))),
    "adagrad_init": (lambda: pd.optimizers.Adagrad(learning_rate=0.1,
                                                   initial_accumulator_value=1.0),
                     np_adagrad(const(0.1), 1.0)),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_updates_match_keras_rules(name, dtype):
    make, np_step = CASES[name]
    w, loss = quadratic(dtype)
    opt = make()
    step = opt.minimize(loss)
    ref = w.val().astype(np.float64)
    state = {}
    # float32 rounding of w feeds back through Adam's normalized steps: absolute tolerance
    # of a few ulps of the weights' scale; float64 checks the rules tightly.
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    for t in range(5):
        loss_v, none = pd.eval([loss, step])
        assert none is None
        assert float(loss_v) == pytest.approx(float(np.sum(SCALE * (ref - TARGET) ** 2)),
                                              rel=1e-5)
        ref = np_step(ref, grad(ref), state, t)
        np.testing.assert_allclose(w.val(), ref, **tol)
        assert w.val().dtype == dtype
    assert opt.iterations == 5
    slots = opt.slots(w)
    assert sorted(slots) == sorted(state)
    for key, value in state.items():
        np.testing.assert_allclose(slots[key], value, **tol)


def test_updates_happen_in_place():
    w, loss = quadratic("float32")
    array = w.value
    opt = pd.optimizers.Adam(learning_rate=0.1)
    step = opt.minimize(loss)
    m = opt.slots(w)["m"]
    before = w.val()
    pd.eval(step)
    assert w.value is array                        # the same array object, updated
    assert opt.slots(w)["m"] is m and np.any(m != 0)
    assert not np.array_equal(w.val(), before)


def test_slots_exist_before_the_first_step():
    w, loss = quadratic("float32")
    opt = pd.optimizers.RMSprop(momentum=0.9)
    opt.minimize(loss)
    slots = opt.slots(w)
    assert sorted(slots) == ["momentum", "velocity"]
    assert all(s.shape == w.shape and not s.any() for s in slots.values())
    assert opt.iterations == 0
    assert opt.variables() == [w]
    assert pd.optimizers.SGD().slots(w) == {}


# ---- schedules --------------------------------------------------------------------------

def test_schedule_values_follow_keras():
    sched = pd.optimizers.schedules
    e = sched.ExponentialDecay(0.1, decay_steps=4, decay_rate=0.5)
    assert [e(s) for s in (0, 2, 4, 8)] == pytest.approx([0.1, 0.1 * 0.5 ** 0.5, 0.05, 0.025])
    es = sched.ExponentialDecay(0.1, decay_steps=4, decay_rate=0.5, staircase=True)
    assert [es(s) for s in (0, 3, 4, 7, 8)] == pytest.approx([0.1, 0.1, 0.05, 0.05, 0.025])
    p = sched.PiecewiseConstantDecay(boundaries=[2, 4], values=[1.0, 0.5, 0.1])
    assert [p(s) for s in range(7)] == [1.0, 1.0, 1.0, 0.5, 0.5, 0.1, 0.1]
    c = sched.CosineDecay(1.0, decay_steps=10, alpha=0.1)
    expected = [0.9 * 0.5 * (1 + math.cos(math.pi * min(s, 10) / 10)) + 0.1
                for s in (0, 5, 10, 20)]
    assert [c(s) for s in (0, 5, 10, 20)] == pytest.approx(expected)
    assert c(10) == pytest.approx(0.1) and c(0) == pytest.approx(1.0)


def test_schedule_errors():
    sched = pd.optimizers.schedules
    with pytest.raises(ValueError):
        sched.ExponentialDecay(0.1, decay_steps=0, decay_rate=0.5)
    with pytest.raises(ValueError):
        sched.PiecewiseConstantDecay([1, 2], [1.0])
    with pytest.raises(ValueError):
        sched.CosineDecay(0.1, decay_steps=-1)


@pytest.mark.parametrize("schedule", [
    lambda: pd.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5),
    lambda: pd.optimizers.schedules.PiecewiseConstantDecay([1, 3], [0.1, 0.05, 0.01]),
    lambda: pd.optimizers.schedules.CosineDecay(0.1, decay_steps=4, alpha=0.2),
], ids=["exponential", "piecewise", "cosine"])
@pytest.mark.parametrize("kind", ["sgd", "adam"])
def test_schedules_as_learning_rate(schedule, kind):
    lr = schedule()
    w, loss = quadratic("float64")
    if kind == "sgd":
        opt, np_step = pd.optimizers.SGD(learning_rate=lr, momentum=0.5), np_sgd(lr, 0.5)
    else:
        opt, np_step = pd.optimizers.Adam(learning_rate=lr), np_adam(lr)
    step = opt.minimize(loss)
    ref, state = w.val(), {}
    for t in range(6):
        assert opt.current_learning_rate() == pytest.approx(lr(t))
        pd.eval(step)
        ref = np_step(ref, grad(ref), state, t)
        np.testing.assert_allclose(w.val(), ref, rtol=1e-12, atol=1e-13)


# ---- minimize: which variables ----------------------------------------------------------

def test_minimize_picks_the_trainable_parameters_the_loss_needs():
    x = pd.data("x", shape=[None, 2])
    a = pd.Variable("a", shape=[2, 2], initializer="ones")
    frozen = pd.Variable("frozen", shape=[2], initializer="ones", trainable=False)
    unused = pd.Variable("unused", shape=[2], initializer="ones")
    loss = pd.sum(pd.square(x @ a + frozen))
    opt = pd.optimizers.SGD(learning_rate=0.01)
    step = opt.minimize(loss)
    assert opt.variables() == [a]
    feeds = {x: np.ones((3, 2), np.float32)}
    pd.eval(step, feeds)
    assert not np.array_equal(a.val(), np.ones((2, 2)))
    np.testing.assert_array_equal(frozen.val(), np.ones(2))
    np.testing.assert_array_equal(unused.val(), np.ones(2))
    # Trainability is read by the next minimize.
    a.trainable = False
    frozen.trainable = True
    a_before = a.val()
    opt2 = pd.optimizers.SGD(learning_rate=0.01)
    step2 = opt2.minimize(loss)
    assert opt2.variables() == [frozen]
    pd.eval(step2, feeds)
    np.testing.assert_array_equal(a.val(), a_before)
    assert not np.array_equal(frozen.val(), np.ones(2))


def test_explicit_var_list():
    w1 = pd.Variable("w1", shape=[2], initializer="ones")
    w2 = pd.Variable("w2", shape=[2], initializer="ones")
    loss = pd.sum(w1 * w2)
    step = pd.optimizers.SGD(learning_rate=0.5).minimize(loss, var_list=[w2])
    pd.eval(step)
    np.testing.assert_array_equal(w1.val(), [1.0, 1.0])
    np.testing.assert_array_equal(w2.val(), [0.5, 0.5])


def test_minimize_errors():
    w = pd.Variable("w", shape=[2], initializer="ones")
    other = pd.Variable("other", shape=[2])
    frozen = pd.Variable("frozen", shape=[2], trainable=False)
    x = pd.data("x", shape=[2])
    opt = pd.optimizers.SGD()
    with pytest.raises(TypeError, match="Variable"):
        opt.minimize(3.0)
    with pytest.raises(ValueError, match="'other'"):
        opt.minimize(pd.sum(w), var_list=[w, other])
    with pytest.raises(TypeError, match="parameter"):
        opt.minimize(pd.sum(w * x), var_list=[x])
    with pytest.raises(ValueError, match="no trainable"):
        opt.minimize(pd.sum(frozen * x))
    with pytest.raises(ValueError):
        pd.optimizers.SGD(learning_rate=-1.0)
    with pytest.raises(ValueError):
        pd.optimizers.SGD(momentum=1.5)


def test_a_non_scalar_loss_is_summed():
    w = pd.Variable("w", shape=[2], initializer="ones", dtype="float64")
    pd.eval(pd.optimizers.SGD(learning_rate=0.1).minimize(w * 3.0))
    np.testing.assert_allclose(w.val(), [0.7, 0.7])


def test_optimizer_from_name_and_config_round_trip():
    assert isinstance(pd.optimizers.get("adam"), pd.optimizers.Adam)
    with pytest.raises(ValueError, match="nope"):
        pd.optimizers.get("nope")
    lr = pd.optimizers.schedules.CosineDecay(0.1, decay_steps=4)
    opt = pd.optimizers.AdamW(learning_rate=lr, weight_decay=0.01, beta_1=0.8)
    again = pd.optimizers.AdamW.from_config(opt.get_config())
    assert again.weight_decay == 0.01 and again.beta_1 == 0.8
    assert again.current_learning_rate() == pytest.approx(lr(0))


def test_two_steps_in_one_eval_and_iterations():
    w, loss = quadratic("float64")
    opt = pd.optimizers.SGD(learning_rate=0.01)
    step = opt.minimize(loss)
    pd.eval([step, loss, step])
    assert opt.iterations == 1                    # the same update op runs once per eval
    ref = np_sgd(const(0.01))(np.full(TARGET.shape, 0.3), grad(np.full(TARGET.shape, 0.3)),
                              {}, 0)
    np.testing.assert_allclose(w.val(), ref, rtol=1e-12)


@pytest.mark.parametrize("make", [
    lambda: pd.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
    lambda: pd.optimizers.RMSprop(momentum=0.5), lambda: pd.optimizers.Adam(beta_1=0.8),
    lambda: pd.optimizers.AdamW(weight_decay=0.1), lambda: pd.optimizers.Adagrad(),
    lambda: pd.optimizers.Adam(pd.optimizers.schedules.CosineDecay(0.1, 100))])
def test_config_round_trip(make):
    opt = make()
    again = type(opt).from_config(opt.get_config())
    assert again.get_config() == opt.get_config()
