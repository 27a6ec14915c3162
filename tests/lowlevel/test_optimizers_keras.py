"""Adamax, Nadam, Lion, Ftrl, Adadelta, RMSprop(centered), weight_decay on every optimizer and
gradient clipping, each against a NumPy transcription of Keras 3's update_step over several
steps, in float32 and float64; their arguments checked; state saved and restored."""
import math

import numpy as np
import pytest

import paddle as pd
from lowlevel.test_optimizers import (TARGET, const, grad, np_adagrad, np_adam, np_rmsprop,
                                      np_sgd, quadratic)


def np_adamax(lr, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    def step(w, g, state, t):
        m = state.setdefault("m", np.zeros_like(w))
        u = state.setdefault("u", np.zeros_like(w))
        m += (g - m) * (1 - beta_1)
        u[...] = np.maximum(beta_2 * u, np.abs(g))
        return w - lr(t) * m / ((1 - beta_1 ** (t + 1)) * (u + epsilon))
    return step


def np_nadam(lr, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    def step(w, g, state, t):
        m = state.setdefault("m", np.zeros_like(w))
        v = state.setdefault("v", np.zeros_like(w))
        # _backend_update_step: u_product *= beta_1 * (1 - 0.5 * 0.96 ** (iterations + 1))
        state["_u"] = state.get("_u", 1.0) * beta_1 * (1.0 - 0.5 * 0.96 ** (t + 1))
        u_t = beta_1 * (1.0 - 0.5 * 0.96 ** (t + 1))
        u_t_1 = beta_1 * (1.0 - 0.5 * 0.96 ** (t + 2))
        u_product_t = state["_u"]
        u_product_t_1 = u_product_t * u_t_1
        m += (g - m) * (1 - beta_1)
        v += (g * g - v) * (1 - beta_2)
        m_hat = u_t_1 * m / (1 - u_product_t_1) + (1 - u_t) * g / (1 - u_product_t)
        v_hat = v / (1 - beta_2 ** (t + 1))
        return w - m_hat * lr(t) / (np.sqrt(v_hat) + epsilon)
    return step


def np_lion(lr, beta_1=0.9, beta_2=0.99):
    def step(w, g, state, t):
        m = state.setdefault("m", np.zeros_like(w))
        w = w - lr(t) * np.sign(m * beta_1 + g * (1 - beta_1))
        m[...] = m * beta_2 + g * (1 - beta_2)
        return w
    return step


def np_ftrl(lr, lr_power=-0.5, init=0.1, l1=0.0, l2=0.0, shrink=0.0, beta=0.0):
    def step(w, g, state, t):
        acc = state.setdefault("accumulator", np.full_like(w, init))
        lin = state.setdefault("linear", np.zeros_like(w))
        l2_reg = l2 + beta / (2.0 * lr(t))
        grad_to_use = g + 2 * shrink * w
        new_acc = acc + g * g
        lin += grad_to_use - (new_acc ** -lr_power - acc ** -lr_power) / lr(t) * w
        quadratic = new_acc ** -lr_power / lr(t) + 2 * l2_reg
        acc[...] = new_acc
        return (np.clip(lin, -l1, l1) - lin) / quadratic
    return step


def np_rmsprop_centered(lr, rho=0.9, momentum=0.0, epsilon=1e-7):
    def step(w, g, state, t):
        vel = state.setdefault("velocity", np.zeros_like(w))
        avg = state.setdefault("average_gradient", np.zeros_like(w))
        vel[...] = rho * vel + (1 - rho) * g * g
        avg[...] = rho * avg + (1 - rho) * g
        inc = lr(t) * g / np.sqrt(vel - avg * avg + epsilon)
        if momentum > 0:
            mom = state.setdefault("momentum", np.zeros_like(w))
            mom[...] = momentum * mom + inc
            return w - mom
        return w - inc
    return step


def with_weight_decay(np_step, lr, wd):
    """Keras 3 `_apply_weight_decay` before the update: w -= w * wd * lr."""
    def step(w, g, state, t):
        return np_step(w - w * wd * lr(t), g, state, t)
    return step


def np_adadelta(lr, rho=0.95, epsilon=1e-7):
    def step(w, g, state, t):
        acc_g = state.setdefault("accumulated_grad", np.zeros_like(w))
        acc_d = state.setdefault("accumulated_delta_var", np.zeros_like(w))

        def rms(x):
            return np.sqrt(x + epsilon)
        acc_g[...] = rho * acc_g + (1 - rho) * g * g
        delta = -(rms(acc_d) * g) / rms(acc_g)
        acc_d[...] = rho * acc_d + (1 - rho) * delta * delta
        return w + lr(t) * delta
    return step


def np_clip_by_norm(g, c):
    return g * c / max(np.sqrt(np.sum(g * g)), c)


CASES = {
    "adamax": (lambda: pd.optimizers.Adamax(learning_rate=0.1), np_adamax(const(0.1))),
    "adamax_betas": (lambda: pd.optimizers.Adamax(0.05, beta_1=0.5, beta_2=0.8, epsilon=1e-3),
                     np_adamax(const(0.05), 0.5, 0.8, 1e-3)),
    "nadam": (lambda: pd.optimizers.Nadam(learning_rate=0.1), np_nadam(const(0.1))),
    "nadam_betas": (lambda: pd.optimizers.Nadam(0.05, beta_1=0.5, beta_2=0.9, epsilon=1e-3),
                    np_nadam(const(0.05), 0.5, 0.9, 1e-3)),
    "lion": (lambda: pd.optimizers.Lion(learning_rate=0.05), np_lion(const(0.05))),
    "adadelta": (lambda: pd.optimizers.Adadelta(learning_rate=1.0), np_adadelta(const(1.0))),
    "adadelta_rho": (lambda: pd.optimizers.Adadelta(0.5, rho=0.8, epsilon=1e-4),
                     np_adadelta(const(0.5), 0.8, 1e-4)),
    "adadelta_wd": (lambda: pd.optimizers.Adadelta(1.0, weight_decay=0.1),
                    with_weight_decay(np_adadelta(const(1.0)), const(1.0), 0.1)),
    "lion_betas": (lambda: pd.optimizers.Lion(0.02, beta_1=0.5, beta_2=0.7),
                   np_lion(const(0.02), 0.5, 0.7)),
    "ftrl": (lambda: pd.optimizers.Ftrl(learning_rate=0.2), np_ftrl(const(0.2))),
    "ftrl_regularized": (
        lambda: pd.optimizers.Ftrl(0.2, learning_rate_power=-0.7, initial_accumulator_value=0.5,
                                   l1_regularization_strength=0.3,
                                   l2_regularization_strength=0.2,
                                   l2_shrinkage_regularization_strength=0.1, beta=0.4),
        np_ftrl(const(0.2), -0.7, 0.5, 0.3, 0.2, 0.1, 0.4)),
    "rmsprop_centered": (lambda: pd.optimizers.RMSprop(0.01, centered=True),
                         np_rmsprop_centered(const(0.01))),
    "rmsprop_centered_momentum": (
        lambda: pd.optimizers.RMSprop(0.01, rho=0.8, momentum=0.5, centered=True),
        np_rmsprop_centered(const(0.01), 0.8, 0.5)),
    # weight_decay on every optimizer (Adam's is fused into its kernel, the others' is a C++
    # pass before the update)
    "sgd_wd": (lambda: pd.optimizers.SGD(0.05, momentum=0.9, weight_decay=0.1),
               with_weight_decay(np_sgd(const(0.05), 0.9), const(0.05), 0.1)),
    "adam_wd": (lambda: pd.optimizers.Adam(0.1, weight_decay=0.2),
                np_adam(const(0.1), weight_decay=0.2)),
    "rmsprop_wd": (lambda: pd.optimizers.RMSprop(0.01, weight_decay=0.3),
                   with_weight_decay(np_rmsprop(const(0.01)), const(0.01), 0.3)),
    "adagrad_wd": (lambda: pd.optimizers.Adagrad(0.1, weight_decay=0.2),
                   with_weight_decay(np_adagrad(const(0.1)), const(0.1), 0.2)),
    "adamax_wd": (lambda: pd.optimizers.Adamax(0.1, weight_decay=0.2),
                  with_weight_decay(np_adamax(const(0.1)), const(0.1), 0.2)),
    "nadam_wd": (lambda: pd.optimizers.Nadam(0.1, weight_decay=0.2),
                 with_weight_decay(np_nadam(const(0.1)), const(0.1), 0.2)),
    "lion_wd": (lambda: pd.optimizers.Lion(0.05, weight_decay=0.5),
                with_weight_decay(np_lion(const(0.05)), const(0.05), 0.5)),
    "ftrl_wd": (lambda: pd.optimizers.Ftrl(0.2, weight_decay=0.2),
                with_weight_decay(np_ftrl(const(0.2)), const(0.2), 0.2)),
}


def _run(make, np_step, dtype, clip=lambda g: g, steps=6):
    w, loss = quadratic(dtype)
    opt = make()
    step = opt.minimize(loss)
    ref, state = w.val().astype(np.float64), {}
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == "float32" else dict(rtol=1e-11, atol=1e-12)
    for t in range(steps):
        pd.eval(step)
        ref = np_step(ref, clip(grad(ref)), state, t)
        np.testing.assert_allclose(w.val(), ref, **tol)
        assert w.val().dtype == dtype
    assert opt.iterations == steps
    slots = opt.slots(w)
    assert sorted(slots) == sorted(k for k in state if not k.startswith("_"))
    for key, value in slots.items():
        np.testing.assert_allclose(value, state[key], **tol)
    return opt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_updates_match_keras_rules(name, dtype):
    _run(*CASES[name], dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clipnorm_clips_each_gradient(dtype):
    _run(lambda: pd.optimizers.SGD(0.01, clipnorm=2.0), np_sgd(const(0.01)), dtype,
         clip=lambda g: np_clip_by_norm(g, 2.0))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clipvalue(dtype):
    _run(lambda: pd.optimizers.Adam(0.1, clipvalue=0.5), np_adam(const(0.1)), dtype,
         clip=lambda g: np.clip(g, -0.5, 0.5))


def test_global_clipnorm_scales_all_gradients_together():
    a = pd.Variable("a", shape=[3], initializer=pd.initializers.Constant(1.0), dtype="float64")
    b = pd.Variable("b", shape=[2], initializer=pd.initializers.Constant(-2.0), dtype="float64")
    loss = pd.sum(a * a) * 3.0 + pd.sum(b * b * b)
    step = pd.optimizers.SGD(0.1, global_clipnorm=1.5).minimize(loss)
    ga, gb = 6.0 * np.ones(3), 3 * 4.0 * np.ones(2)
    norm = np.sqrt(np.sum(ga ** 2) + np.sum(gb ** 2))
    pd.eval(step)
    np.testing.assert_allclose(a.val(), 1.0 - 0.1 * ga * 1.5 / norm, rtol=1e-12)
    np.testing.assert_allclose(b.val(), -2.0 - 0.1 * gb * 1.5 / norm, rtol=1e-12)
    # a gradient within the norm is left as it is
    c = pd.Variable("c", shape=[1], initializer=pd.initializers.Constant(0.1), dtype="float64")
    pd.eval(pd.optimizers.SGD(1.0, global_clipnorm=5.0, clipvalue=None).minimize(pd.sum(c * c)))
    np.testing.assert_allclose(c.val(), [0.1 - 0.2], rtol=1e-12)


def test_only_one_clipping_applies_as_in_keras():
    """clipnorm wins over clipvalue (Keras 3's _clip_gradients is an if/elif chain)."""
    _run(lambda: pd.optimizers.SGD(0.01, clipnorm=2.0, clipvalue=0.001), np_sgd(const(0.01)),
         "float64", clip=lambda g: np_clip_by_norm(g, 2.0))


def test_schedules_drive_the_new_optimizers():
    lr = pd.optimizers.schedules.InverseTimeDecay(0.1, decay_steps=2, decay_rate=0.5)
    _run(lambda: pd.optimizers.Nadam(learning_rate=lr), np_nadam(lr), "float64")
    _run(lambda: pd.optimizers.Lion(learning_rate=lr, weight_decay=0.1),
         with_weight_decay(np_lion(lr), lr, 0.1), "float64")


@pytest.mark.parametrize("name", ["adamax", "nadam", "lion", "ftrl", "adadelta"])
def test_by_name_and_config_round_trip(name):
    opt = pd.optimizers.get(name)
    assert type(opt).__name__.lower() == name
    again = type(opt).from_config(opt.get_config())
    assert again.get_config() == opt.get_config()
    opt = pd.optimizers.RMSprop(centered=True, clipnorm=1.0, weight_decay=0.01)
    config = opt.get_config()
    assert config["centered"] and config["clipnorm"] == 1.0 and config["weight_decay"] == 0.01
    assert pd.optimizers.RMSprop.from_config(config).get_config() == config


def test_nadam_resumes_from_saved_state(tmp_path):
    """A model trained 3 steps, saved and loaded, then 3 more, matches 6 steps straight: the
    momentum schedule's product follows the restored step count."""
    def model():
        pd.seed(0)
        m = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
        m.compile(optimizer=pd.optimizers.Nadam(0.05, clipnorm=1.0), loss="mse")
        return m
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    y = np.random.default_rng(1).normal(size=(8, 2)).astype(np.float32)
    straight = model()
    for _ in range(6):
        straight.train_on_batch(x, y)
    resumed = model()
    for _ in range(3):
        resumed.train_on_batch(x, y)
    resumed.save(str(tmp_path / "m.h5"))
    loaded = pd.load_model(str(tmp_path / "m.h5"))
    assert loaded.optimizer.get_config()["clipnorm"] == 1.0
    for _ in range(3):
        loaded.train_on_batch(x, y)
    for a, b in zip(straight.get_weights(), loaded.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make, match", [
    (lambda: pd.optimizers.SGD(clipnorm=1.0, global_clipnorm=1.0),
     "SGD: only one of clipnorm and global_clipnorm can be set"),
    (lambda: pd.optimizers.Adam(clipnorm=0.0), r"Adam: expected clipnorm > 0"),
    (lambda: pd.optimizers.Adam(clipvalue=-1.0), r"Adam: expected clipvalue > 0"),
    (lambda: pd.optimizers.SGD(global_clipnorm="1"), r"SGD: expected global_clipnorm > 0"),
    (lambda: pd.optimizers.RMSprop(weight_decay=-0.1), r"RMSprop: expected weight_decay >= 0"),
    (lambda: pd.optimizers.RMSprop(centered="yes"), r"RMSprop: expected centered to be True"),
    (lambda: pd.optimizers.Adamax(beta_1=1.0), r"Adamax: expected beta_1 in \[0, 1\)"),
    (lambda: pd.optimizers.Nadam(epsilon=0), r"Nadam: expected epsilon > 0"),
    (lambda: pd.optimizers.Lion(beta_1=0.0), r"Lion: expected beta_1 in \(0, 1\]"),
    (lambda: pd.optimizers.Lion(beta_2=1.5), r"Lion: expected beta_2 in \[0, 1\)"),
    (lambda: pd.optimizers.Ftrl(learning_rate_power=0.5),
     r"Ftrl: expected learning_rate_power <= 0"),
    (lambda: pd.optimizers.Ftrl(l1_regularization_strength=-1),
     r"Ftrl: expected l1_regularization_strength >= 0"),
    (lambda: pd.optimizers.AdamW(weight_decay=None), r"AdamW: expected weight_decay >= 0"),
    (lambda: pd.optimizers.Adadelta(rho=1.0), r"Adadelta: expected rho in \[0, 1\)"),
    (lambda: pd.optimizers.Adadelta(epsilon=0.0), r"Adadelta: expected epsilon > 0"),
    (lambda: pd.optimizers.Adadelta(learning_rate=-1.0),
     r"Adadelta: expected a learning rate >= 0"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# Keras 3.15.1 (JAX backend): keras.optimizers.Adadelta(**kwargs).apply([g], [w]) ten times
# on the quadratic of test_optimizers (w from 0.3, g = 2 * SCALE * (w - TARGET)), float32.
KERAS_ADADELTA = [
    ({"learning_rate": 1.0},
     [[0.3142575, 0.2854565, 0.3145558], [0.3145392, 0.2856298, 0.285489]]),
    ({"learning_rate": 0.5, "rho": 0.8, "epsilon": 1e-4},
     [[0.4047124, 0.175178, 0.4256484], [0.4245239, 0.1873064, 0.1774137]]),
]


@pytest.mark.parametrize("kwargs, expected", KERAS_ADADELTA)
def test_adadelta_trajectory_matches_keras(kwargs, expected):
    w, loss = quadratic("float32")
    step = pd.optimizers.Adadelta(**kwargs).minimize(loss)
    for _ in range(10):
        pd.eval(step)
    np.testing.assert_allclose(w.val(), expected, atol=2e-6)


def test_ftrl_refuses_a_zero_learning_rate_at_run_time():
    w, loss = quadratic("float32")
    step = pd.optimizers.Ftrl(learning_rate=0.0).minimize(loss)
    with pytest.raises(ValueError, match="Ftrl: the learning rate must be > 0"):
        pd.eval(step)


# ---- schedules ----------------------------------------------------------------------------

def test_polynomial_decay():
    sched = pd.optimizers.schedules.PolynomialDecay
    p = sched(1.0, decay_steps=10, end_learning_rate=0.1, power=2.0)
    for s in (0, 3, 10, 15):
        q = min(s, 10) / 10
        assert p(s) == pytest.approx((1.0 - 0.1) * (1 - q) ** 2 + 0.1)
    c = sched(1.0, decay_steps=4, end_learning_rate=0.0, power=1.0, cycle=True)
    # cycle: decay_steps grows to the next multiple of itself above the step
    assert [c(s) for s in (0, 2, 4, 5, 8, 9)] == pytest.approx(
        [1.0, 0.5, 0.0, 1 - 5 / 8, 0.0, 1 - 9 / 12])


def test_inverse_time_decay():
    sched = pd.optimizers.schedules.InverseTimeDecay
    assert sched(0.1, 4, 0.5)(6) == pytest.approx(0.1 / (1 + 0.5 * 6 / 4))
    assert sched(0.1, 4, 0.5, staircase=True)(6) == pytest.approx(0.1 / (1 + 0.5 * 1))


def test_cosine_decay_with_warmup():
    c = pd.optimizers.schedules.CosineDecay(0.0, decay_steps=10, alpha=0.1,
                                            warmup_target=1.0, warmup_steps=5)
    assert [c(s) for s in (0, 1, 4)] == pytest.approx([0.0, 0.2, 0.8])
    for s in (5, 8, 15, 30):
        q = (min(s, 15) - 5) / 10
        assert c(s) == pytest.approx(((1 - 0.1) * 0.5 * (1 + math.cos(math.pi * q)) + 0.1))


def test_cosine_decay_restarts():
    sched = pd.optimizers.schedules.CosineDecayRestarts
    c = sched(1.0, first_decay_steps=4, t_mul=2.0, m_mul=0.5, alpha=0.0)

    def ref(step):
        frac = step / 4
        i = math.floor(math.log(1.0 - frac * (1.0 - 2.0)) / math.log(2.0))
        sum_r = (1.0 - 2.0 ** i) / (1.0 - 2.0)
        frac = (frac - sum_r) / 2.0 ** i
        return 0.5 ** i * 0.5 * (1 + math.cos(math.pi * frac))
    assert [c(s) for s in range(0, 30, 3)] == pytest.approx([ref(s) for s in range(0, 30, 3)])
    assert c(4) == pytest.approx(0.5)  # the first restart, at m_mul
    flat = sched(1.0, first_decay_steps=4, t_mul=1.0, m_mul=1.0, alpha=0.2)
    assert flat(6) == pytest.approx(0.8 * 0.5 * (1 + math.cos(math.pi * 0.5)) + 0.2)
    assert flat(8) == pytest.approx(1.0)


@pytest.mark.parametrize("make, match", [
    (lambda s: s.PolynomialDecay(0.1, decay_steps=0), "PolynomialDecay: expected decay_steps"),
    (lambda s: s.PolynomialDecay(0.1, 10, power=-1), "PolynomialDecay: expected power"),
    (lambda s: s.InverseTimeDecay(0.1, 0, 0.5), "InverseTimeDecay: expected decay_steps"),
    (lambda s: s.InverseTimeDecay(0.1, 2, -0.5), "InverseTimeDecay: expected decay_rate"),
    (lambda s: s.CosineDecay(0.1, 10, warmup_steps=-1), "CosineDecay: expected warmup_steps"),
    (lambda s: s.CosineDecay(0.1, 10, warmup_target="a"), "CosineDecay: expected warmup_target"),
    (lambda s: s.CosineDecayRestarts(0.1, 0), "CosineDecayRestarts: expected first_decay_steps"),
    (lambda s: s.CosineDecayRestarts(0.1, 5, t_mul=0), "CosineDecayRestarts: expected t_mul"),
])
def test_schedule_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make(pd.optimizers.schedules)


@pytest.mark.parametrize("make", [
    lambda s: s.PolynomialDecay(0.1, 10, 0.01, power=0.5, cycle=True),
    lambda s: s.InverseTimeDecay(0.1, 10, 0.5, staircase=True),
    lambda s: s.CosineDecay(0.1, 10, alpha=0.1, warmup_target=0.2, warmup_steps=3),
    lambda s: s.CosineDecayRestarts(0.1, 10, t_mul=1.5, m_mul=0.9, alpha=0.05),
])
def test_schedules_round_trip_through_a_saved_optimizer(make, tmp_path):
    schedule = make(pd.optimizers.schedules)
    opt = pd.optimizers.Adam(learning_rate=schedule)
    again = pd.optimizers.Adam.from_config(opt.get_config())
    assert [again.learning_rate(s) for s in range(0, 40, 7)] == \
        pytest.approx([schedule(s) for s in range(0, 40, 7)])


def test_schedules_take_kerass_name_argument():
    """`name` where Keras has it (CosineDecay's fourth argument), kept in the config, so a
    Keras-written config (which holds the name) rebuilds the schedule."""
    s = pd.optimizers.schedules
    defaults = {s.ExponentialDecay(0.1, 10, 0.5): "ExponentialDecay",
                s.PiecewiseConstantDecay([5], [0.1, 0.01]): "PiecewiseConstant",
                s.CosineDecay(0.1, 10): "CosineDecay",
                s.PolynomialDecay(0.1, 10): "PolynomialDecay",
                s.InverseTimeDecay(0.1, 10, 0.5): "InverseTimeDecay",
                s.CosineDecayRestarts(0.1, 10): "SGDRDecay"}
    for schedule, name in defaults.items():
        assert schedule.name == name and schedule.get_config()["name"] == name
    cosine = s.CosineDecay(0.1, 10, 0.0, "warm", 0.2, 3)
    assert (cosine.name, cosine.warmup_target, cosine.warmup_steps) == ("warm", 0.2, 3)
    keras_config = {"class_name": "ExponentialDecay", "config": {
        "initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5,
        "staircase": False, "name": "ExponentialDecay"}}
    opt = pd.optimizers.Adam.from_config({"learning_rate": keras_config})
    assert opt.learning_rate(10) == pytest.approx(0.05)
    with pytest.raises(TypeError, match="ExponentialDecay: expected name as a string"):
        s.ExponentialDecay(0.1, 10, 0.5, False, 3)


@pytest.mark.parametrize("make, np_step", [
    (lambda: pd.optimizers.AdamW(0.1, weight_decay=0.3), np_adam(const(0.1))),
    (lambda: pd.optimizers.SGD(0.05, weight_decay=0.3), np_sgd(const(0.05))),
], ids=["adamw", "sgd"])
@pytest.mark.parametrize("how", ["var_list", "var_names"])
def test_exclude_from_weight_decay(make, np_step, how):
    """Excluded variables follow the plain rule, the others the decayed one (Keras 3)."""
    kept = pd.Variable("kept/kernel", shape=TARGET.shape, dtype="float64",
                       initializer=pd.initializers.Constant(0.3))
    free = pd.Variable("free/bias", shape=TARGET.shape, dtype="float64",
                       initializer=pd.initializers.Constant(0.3))
    target = pd.constant(TARGET)
    loss = pd.sum(pd.square(kept - target)) + pd.sum(pd.square(free - target))
    opt = make()
    if how == "var_list":
        opt.exclude_from_weight_decay(var_list=[free])
    else:
        opt.exclude_from_weight_decay(var_names=["bias"])
    assert opt.decays(kept) and not opt.decays(free)
    step = opt.minimize(loss, var_list=[kept, free])
    decayed = with_weight_decay(np_step, const(opt.current_learning_rate()), 0.3)
    ref_kept, ref_free, s1, s2 = kept.val(), free.val(), {}, {}
    for t in range(4):
        pd.eval(step)
        ref_kept = decayed(ref_kept, 2 * (ref_kept - TARGET), s1, t)
        ref_free = np_step(ref_free, 2 * (ref_free - TARGET), s2, t)
        np.testing.assert_allclose(kept.val(), ref_kept, rtol=1e-11, atol=1e-12)
        np.testing.assert_allclose(free.val(), ref_free, rtol=1e-11, atol=1e-12)
    with pytest.raises(ValueError, match="must be called before the first training step"):
        opt.exclude_from_weight_decay(var_names=["x"])


def test_exclude_from_weight_decay_bad_arguments():
    opt = pd.optimizers.AdamW()
    with pytest.raises(ValueError, match="AdamW: exclude_from_weight_decay expected var_names "
                                         "as a list of non-empty strings, received 'bias'"):
        opt.exclude_from_weight_decay(var_names="bias")
    with pytest.raises(ValueError, match="expected Variables in var_list, received 3"):
        opt.exclude_from_weight_decay(var_list=[3])
    assert not pd.optimizers.Adam().decays(pd.Variable("w_no_decay", shape=[1]))


# ---- AMSGrad (Adam and AdamW's amsgrad=True) ----------------------------------------------

def np_amsgrad(lr, beta_1=0.9, beta_2=0.999, epsilon=1e-7, weight_decay=0.0):
    """Keras 3's Adam.update_step with amsgrad: v_hat = max(v_hat, v), divided by sqrt(v_hat)."""
    def step(w, g, state, t):
        if weight_decay:
            w = w - w * weight_decay * lr(t)
        m = state.setdefault("m", np.zeros_like(w))
        v = state.setdefault("v", np.zeros_like(w))
        v_hat = state.setdefault("velocity_hat", np.zeros_like(w))
        local = t + 1
        alpha = lr(t) * math.sqrt(1 - beta_2 ** local) / (1 - beta_1 ** local)
        m += (g - m) * (1 - beta_1)
        v += (g * g - v) * (1 - beta_2)
        np.maximum(v_hat, v, out=v_hat)
        return w - alpha * m / (np.sqrt(v_hat) + epsilon)
    return step


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, np_step", [
    (lambda: pd.optimizers.Adam(0.1, amsgrad=True), np_amsgrad(const(0.1))),
    # beta_2 small: v falls below its maximum, so v_hat and v part ways
    (lambda: pd.optimizers.Adam(0.1, beta_2=0.5, amsgrad=True),
     np_amsgrad(const(0.1), beta_2=0.5)),
    (lambda: pd.optimizers.AdamW(0.05, weight_decay=0.1, beta_2=0.9, amsgrad=True),
     np_amsgrad(const(0.05), beta_2=0.9, weight_decay=0.1)),
])
def test_amsgrad_matches_keras_rules(make, np_step, dtype):
    opt = _run(make, np_step, dtype, steps=10)
    assert opt.slot_names == ("m", "v", "velocity_hat")


def test_amsgrad_v_hat_is_the_running_maximum():
    w, loss = quadratic("float64")
    opt = pd.optimizers.Adam(0.1, beta_2=0.5, amsgrad=True)
    step = opt.minimize(loss)
    parted = False
    for _ in range(10):
        before = opt.slots(w)["velocity_hat"].copy()
        pd.eval(step)
        slots = opt.slots(w)
        assert np.all(slots["velocity_hat"] >= before)
        np.testing.assert_array_equal(slots["velocity_hat"], np.maximum(before, slots["v"]))
        parted |= bool(np.any(slots["velocity_hat"] > slots["v"]))
    assert parted  # the test reaches a v below its maximum


# Keras 3.15.1 (JAX backend): keras.optimizers.X(**kwargs).apply([g], [w]) ten times on the
# quadratic of test_optimizers (w from 0.3, g = 2 * SCALE * (w - TARGET)), in float64
# (JAX_ENABLE_X64, floatx float64) and float32. Adam at lr 0.1 ends near the minimum, where
# float32 rounding of the tiny steps differs between any two implementations by ~1e-5: its
# float32 run is checked loosely.
KERAS_AMSGRAD = [
    (pd.optimizers.Adam, {"learning_rate": 0.1, "amsgrad": True}, "float64", 1e-9,
     [[0.4639510028, -0.6520578042, 1.2687468447], [1.2450453084, -0.0836595069, -0.582674607]]),
    (pd.optimizers.Adam, {"learning_rate": 0.1, "amsgrad": True}, "float32", 3e-5,
     [[0.4639528, -0.6520514, 1.2687401], [1.2450391, -0.0836614, -0.5826698]]),
    (pd.optimizers.AdamW, {"learning_rate": 0.05, "weight_decay": 0.1, "amsgrad": True,
                           "beta_2": 0.9}, "float64", 1e-9,
     [[0.5754246997, -0.2019780003, 0.7734861864], [0.7725674608, -0.0937565477, -0.1957830444]]),
    (pd.optimizers.AdamW, {"learning_rate": 0.05, "weight_decay": 0.1, "amsgrad": True,
                           "beta_2": 0.9}, "float32", 2e-6,
     [[0.5754248, -0.2019779, 0.773486], [0.7725674, -0.0937566, -0.195783]]),
]


@pytest.mark.parametrize("cls, kwargs, dtype, atol, expected", KERAS_AMSGRAD)
def test_amsgrad_trajectory_matches_keras(cls, kwargs, dtype, atol, expected):
    w, loss = quadratic(dtype)
    step = cls(**kwargs).minimize(loss)
    for _ in range(10):
        pd.eval(step)
    np.testing.assert_allclose(w.val(), expected, rtol=0, atol=atol)


def test_amsgrad_config_and_bad_arguments():
    opt = pd.optimizers.AdamW(amsgrad=True)
    config = opt.get_config()
    assert config["amsgrad"] is True
    again = pd.optimizers.AdamW.from_config(config)
    assert again.amsgrad and again.get_config() == config
    assert pd.optimizers.Adam().get_config()["amsgrad"] is False
    # Keras's positional order: amsgrad comes after epsilon
    assert pd.optimizers.Adam(0.1, 0.9, 0.999, 1e-7, True).amsgrad
    for bad in ("yes", 1, None):
        with pytest.raises(ValueError, match=r"Adam: expected amsgrad to be True or False, "
                                             rf"received {bad!r}"):
            pd.optimizers.Adam(amsgrad=bad)
    with pytest.raises(ValueError, match=r"AdamW: expected amsgrad to be True or False"):
        pd.optimizers.AdamW(amsgrad="no")


@pytest.mark.parametrize("fmt", ["keras", "h5"])
def test_amsgrad_resumes_from_saved_state(fmt, tmp_path):
    """Trained 3 steps, saved, loaded and trained 3 more: the same weights as 6 steps
    straight (v_hat saved with the model); in .keras at Keras's optimizer paths."""
    def model():
        pd.seed(0)
        m = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
        m.compile(optimizer=pd.optimizers.Adam(0.05, beta_2=0.5, amsgrad=True), loss="mse")
        return m
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    y = np.random.default_rng(1).normal(size=(8, 2)).astype(np.float32)
    straight = model()
    for _ in range(6):
        straight.train_on_batch(x, y)
    resumed = model()
    for _ in range(3):
        resumed.train_on_batch(x, y)
    path = str(tmp_path / f"m.{fmt}")
    resumed.save(path)
    loaded = pd.load_model(path)
    assert loaded.optimizer.amsgrad
    kernel = loaded.trainable_weights[0]
    np.testing.assert_array_equal(loaded.optimizer.slots(kernel)["velocity_hat"],
                                  resumed.optimizer.slots(resumed.trainable_weights[0])
                                  ["velocity_hat"])
    for _ in range(3):
        loaded.train_on_batch(x, y)
    for a, b in zip(straight.get_weights(), loaded.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


# ---- Lamb ---------------------------------------------------------------------------------

def np_lamb(lr, beta_1=0.9, beta_2=0.999, epsilon=1e-7):
    """Keras 3's Lamb.update_step."""
    def step(w, g, state, t):
        m = state.setdefault("m", np.zeros_like(w))
        v = state.setdefault("v", np.zeros_like(w))
        m += (g - m) * (1 - beta_1)
        v += (g * g - v) * (1 - beta_2)
        r = (m / (1 - beta_1 ** (t + 1))) / (np.sqrt(v / (1 - beta_2 ** (t + 1))) + epsilon)
        w_norm, r_norm = np.sqrt(np.sum(w * w)), np.sqrt(np.sum(r * r))
        ratio = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
        return w - ratio * lr(t) * r
    return step


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("make, np_step", [
    (lambda: pd.optimizers.Lamb(0.1), np_lamb(const(0.1))),
    (lambda: pd.optimizers.Lamb(0.05, beta_1=0.5, beta_2=0.9, epsilon=1e-3, weight_decay=0.1),
     with_weight_decay(np_lamb(const(0.05), 0.5, 0.9, 1e-3), const(0.05), 0.1)),
])
def test_lamb_matches_keras_rules(make, np_step, dtype):
    _run(make, np_step, dtype, steps=10)


# Keras 3.15.1 (JAX backend): keras.optimizers.Lamb(**kwargs).apply([g], [w]) ten times on the
# quadratic of test_optimizers, float64 (JAX_ENABLE_X64) and float32.
KERAS_LAMB = [
    ({"learning_rate": 0.1}, "float64", 1e-9,
     [[0.5799890384, -0.0591335282, 0.6602852989], [0.658698917, -0.0254832363, -0.0554969032]]),
    ({"learning_rate": 0.1}, "float32", 1e-6,
     [[0.5799891, -0.0591335, 0.6602853], [0.658699, -0.0254833, -0.0554969]]),
    ({"learning_rate": 0.05, "beta_1": 0.5, "beta_2": 0.9, "epsilon": 1e-3, "weight_decay": 0.1},
     "float64", 1e-9,
     [[0.421889994, 0.1332162907, 0.4383939785], [0.4377429663, 0.1447182999, 0.1350273322]]),
    ({"learning_rate": 0.05, "beta_1": 0.5, "beta_2": 0.9, "epsilon": 1e-3, "weight_decay": 0.1},
     "float32", 1e-6,
     [[0.42189, 0.1332163, 0.438394], [0.4377429, 0.1447183, 0.1350273]]),
]


@pytest.mark.parametrize("kwargs, dtype, atol, expected", KERAS_LAMB)
def test_lamb_trajectory_matches_keras(kwargs, dtype, atol, expected):
    w, loss = quadratic(dtype)
    step = pd.optimizers.Lamb(**kwargs).minimize(loss)
    for _ in range(10):
        pd.eval(step)
    np.testing.assert_allclose(w.val(), expected, rtol=0, atol=atol)


def test_lamb_trust_ratio_is_per_weight_and_one_at_zero():
    """Two weights of different sizes each take their own ratio; a zero weight steps by
    lr * r (ratio 1), as Keras's where(w_norm > 0, ...)."""
    a = pd.Variable("lamb_a", shape=[3], dtype="float64", initializer=pd.initializers.Constant(2.0))
    z = pd.Variable("lamb_z", shape=[2], dtype="float64", initializer="zeros")
    ga, gz = np.array([1.0, -2.0, 0.5]), np.array([3.0, -1.0])
    loss = pd.sum(a * pd.constant(ga)) + pd.sum(z * pd.constant(gz))
    pd.eval(pd.optimizers.Lamb(0.1).minimize(loss))
    # first step: m_hat = g, v_hat = g^2, so r = g / (|g| + eps) ~ sign(g)
    r_a, r_z = ga / (np.abs(ga) + 1e-7), gz / (np.abs(gz) + 1e-7)
    ratio_a = np.sqrt(np.sum(np.full(3, 2.0) ** 2)) / np.sqrt(np.sum(r_a ** 2))
    np.testing.assert_allclose(a.val(), 2.0 - 0.1 * ratio_a * r_a, rtol=1e-12)
    np.testing.assert_allclose(z.val(), -0.1 * r_z, rtol=1e-12)


def test_lamb_config_state_and_bad_arguments(tmp_path):
    opt = pd.optimizers.get("lamb")
    assert isinstance(opt, pd.optimizers.Lamb) and opt.slot_names == ("m", "v")
    again = pd.optimizers.Lamb.from_config(pd.optimizers.Lamb(0.01, beta_1=0.8).get_config())
    assert (again.learning_rate, again.beta_1) == (0.01, 0.8)
    for kwargs, match in [({"beta_1": 1.0}, r"Lamb: expected beta_1 in \[0, 1\)"),
                          ({"beta_2": -0.1}, r"Lamb: expected beta_2 in \[0, 1\)"),
                          ({"epsilon": 0}, r"Lamb: expected epsilon > 0"),
                          ({"learning_rate": "fast"}, r"Lamb: expected a learning rate >= 0")]:
        with pytest.raises(ValueError, match=match):
            pd.optimizers.Lamb(**kwargs)


@pytest.mark.parametrize("fmt", ["keras", "h5"])
def test_lamb_resumes_from_saved_state(fmt, tmp_path):
    def model():
        pd.seed(0)
        m = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2)])
        m.compile(optimizer=pd.optimizers.Lamb(0.05), loss="mse")
        return m
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    y = np.random.default_rng(1).normal(size=(8, 2)).astype(np.float32)
    straight = model()
    for _ in range(6):
        straight.train_on_batch(x, y)
    resumed = model()
    for _ in range(3):
        resumed.train_on_batch(x, y)
    path = str(tmp_path / f"m.{fmt}")
    resumed.save(path)
    loaded = pd.load_model(path)
    assert isinstance(loaded.optimizer, pd.optimizers.Lamb) and loaded.optimizer.iterations == 3
    for _ in range(3):
        loaded.train_on_batch(x, y)
    for a, b in zip(straight.get_weights(), loaded.get_weights()):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
