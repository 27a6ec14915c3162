"""Adafactor, Muon, ScheduleFreeAdamW and MultiOptimizer (paddle/lowlevel/
composed_optimizers.py, multi_optimizer.py): five steps of each case of
composed_optimizer_cases.py against the weights Keras 3.15.1 reached (stored in
composed_optimizer_keras.json, written by make_composed_optimizer_reference.py), and against
Keras itself where it is installed; on the CPU and the simulated GPU; in compile/fit,
saved and loaded; their configs; bad arguments."""
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import paddle as pd
from paddle.devices import cuda
from paddle.highlevel.saving import keras_v3

from lowlevel.composed_optimizer_cases import CASES, S, START, STEPS, X

HERE = Path(__file__).parent
KERAS = json.loads((HERE / "composed_optimizer_keras.json").read_text())


def build(spec, ns=pd.optimizers):
    name, kwargs = spec
    kwargs = dict(kwargs)
    if name == "MultiOptimizer":
        default, mapping = kwargs.pop("map")
        mapped = ns.OptimizerMap(build(default, ns))
        for key, inner in mapping.items():
            mapped[key] = build(inner, ns)
        return ns.MultiOptimizer(mapped)
    lr = kwargs.get("learning_rate")
    if isinstance(lr, list):
        kwargs["learning_rate"] = getattr(ns.schedules, lr[0])(**lr[1])
    return getattr(ns, name)(**kwargs)


def run_paddle(case, device="cpu"):
    with pd.namespace(case):
        ws = {k: pd.Variable(k, shape=START[k].shape, initializer="zeros") for k in START}
    for k, v in ws.items():
        v.set_value(START[k])
    loss = pd.sum(pd.square(pd.matmul(pd.constant(X), ws["w"]) + ws["b"] - 1.0)) + \
        pd.sum(pd.constant(S) * pd.square(ws["t"] - 0.5))
    opt = build(CASES[case])
    step = opt.minimize(loss, [ws["w"], ws["b"], ws["t"]])
    with cuda.simulated():
        for _ in range(STEPS):
            pd.eval(step, device=device)
    return opt, {k: v.val() for k, v in ws.items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_five_steps_match_keras(case):
    opt, got = run_paddle(case)
    assert opt.iterations == STEPS
    for k, value in got.items():
        np.testing.assert_allclose(value, KERAS["cases"][case][k], rtol=2e-5, atol=2e-6,
                                   err_msg=f"{case}: {k}")


@pytest.mark.parametrize("case", ["adafactor_ema", "muon", "sfadamw_warmup", "multi"])
def test_the_simulated_gpu_takes_the_same_steps(case):
    _, cpu = run_paddle(case)
    opt, gpu = run_paddle(case, device="gpu")
    assert opt.iterations == STEPS
    for k in cpu:
        np.testing.assert_allclose(gpu[k], cpu[k], rtol=1e-6, atol=1e-7)


def test_against_keras_itself_where_installed():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    pytest.importorskip("jax")
    pytest.importorskip("keras")
    import make_composed_optimizer_reference as reference  # needs keras: imported here
    for case, spec in CASES.items():
        _, got = run_paddle(case)
        with warnings.catch_warnings():  # Keras's and JAX's deprecation warnings
            warnings.simplefilter("ignore")
            want = reference.run(spec)
        for k in got:
            np.testing.assert_allclose(got[k], want[k], rtol=2e-5, atol=2e-6, err_msg=case)


def test_adafactor_slots_have_keras_shapes_and_order():
    opt = pd.optimizers.Adafactor()
    w = pd.Variable("adafactor_shapes/w", shape=[4, 3, 2])
    b = pd.Variable("adafactor_shapes/b", shape=[2])
    assert {k: a.shape for k, a in opt.slots(w).items()} == {"r": (4, 3), "c": (4, 2),
                                                              "v": (4, 3, 2)}
    assert {k: a.shape for k, a in opt.slots(b).items()} == {"r": (), "c": (), "v": (2,)}
    assert [(x.name, s) for x, s in opt.keras_slot_order([w, b])] == [
        (w.name, "r"), (w.name, "c"), (w.name, "v"), (b.name, "r"), (b.name, "c"),
        (b.name, "v")]
    muon = pd.optimizers.Muon()
    assert list(muon.slots(w)) == ["momentum", "velocity"]  # rank 3: AdamW
    m = pd.Variable("muon_shapes/m", shape=[3, 2])
    assert list(muon.slots(m)) == ["momentum"]
    assert not muon.uses_adam(m) and muon.uses_adam(pd.Variable("embedding/embeddings",
                                                                shape=[5, 2]))


def _data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((16, 3)).astype("float32"), \
        rng.standard_normal((16, 2)).astype("float32")


def _model():
    pd.seed(3)
    return pd.Sequential([pd.Input((3,)), pd.layers.Dense(4, name="body"),
                          pd.layers.Dense(2, name="head")])


@pytest.mark.parametrize("make", [
    lambda: pd.optimizers.Adafactor(learning_rate=0.05),
    lambda: pd.optimizers.Muon(learning_rate=0.05, use_ema=True),
    lambda: pd.optimizers.ScheduleFreeAdamW(),
    lambda: pd.optimizers.MultiOptimizer(pd.optimizers.OptimizerMap(
        pd.optimizers.SGD(0.05, momentum=0.5), {"head/.*": pd.optimizers.Adafactor(0.05)})),
], ids=["adafactor", "muon", "sfadamw", "multi"])
def test_fit_lowers_the_loss_and_saving_restores_the_state(make, tmp_path):
    x, y = _data()
    model = _model()
    opt = make()
    model.compile(optimizer=opt, loss="mse")
    history = model.fit(x, y, epochs=6, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert opt.iterations == 12
    path = tmp_path / "m.keras"
    model.save(path)
    loaded = pd.saving.load_model(path)
    assert type(loaded.optimizer) is type(opt) and loaded.optimizer.iterations == 12
    for a, b in zip(model.trainable_weights, loaded.trainable_weights):
        for slot, value in opt.slots(a).items():
            np.testing.assert_array_equal(loaded.optimizer.slots(b)[slot], value)
    # one more step of each takes the same step
    model.fit(x[:8], y[:8], epochs=1, batch_size=8, verbose=0, shuffle=False)
    loaded.fit(x[:8], y[:8], epochs=1, batch_size=8, verbose=0, shuffle=False)
    for a, b in zip(model.trainable_weights, loaded.trainable_weights):
        np.testing.assert_allclose(b.val(), a.val(), rtol=1e-6, atol=1e-7)


def test_multi_optimizer_layout_is_keras():
    x, y = _data()
    model = _model()
    opt = pd.optimizers.MultiOptimizer(pd.optimizers.OptimizerMap(
        pd.optimizers.SGD(0.1, momentum=0.9), {"head/.*": pd.optimizers.Adam(0.01)}))
    model.compile(optimizer=opt, loss="mse")
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    assert [o.name for o in opt.optimizers] == ["adam", "sgd"]
    assert [o.iterations for o in opt.optimizers] == [2, 2] and opt.iterations == 2
    body_kernel, body_bias, head_kernel, _ = (w.name for w in model.trainable_weights)
    entries = [(p, k, getattr(w, "name", None), s)
               for p, k, w, s in keras_v3.optimizer_entries(model, opt)]
    assert entries[:6] == [
        ("optimizer/vars/0", "iterations", "multi_optimizer", None),
        ("optimizer/vars/1", "learning_rate", "multi_optimizer", None),
        ("optimizer/vars/2", "iterations", "adam", None),
        ("optimizer/vars/3", "learning_rate", "adam", None),
        ("optimizer/vars/4", "slot", head_kernel, "m"),
        ("optimizer/vars/5", "slot", head_kernel, "v")]
    assert entries[8:12] == [("optimizer/vars/8", "iterations", "sgd", None),
                             ("optimizer/vars/9", "learning_rate", "sgd", None),
                             ("optimizer/vars/10", "slot", body_kernel, "velocity"),
                             ("optimizer/vars/11", "slot", body_bias, "velocity")]
    assert entries[12][0] == "optimizer/optimizers/adam/vars/0"
    with pytest.raises(AttributeError, match="has no learning rate"):
        opt.learning_rate


def test_wrapped_in_a_loss_scale_optimizer_a_non_finite_step_changes_nothing():
    w = pd.Variable("lso_adafactor/w", shape=[2, 2], initializer="ones")
    x = pd.data("lso_adafactor/x", shape=[])
    opt = pd.optimizers.LossScaleOptimizer(pd.optimizers.Adafactor(0.1), initial_scale=4.0)
    step = opt.minimize(pd.sum(w * w) * x)
    pd.eval(step, {x: np.float32(1.0)})
    after_one = w.val()
    assert opt.iterations == 1 and not np.allclose(after_one, 1.0)
    pd.eval(step, {x: np.float32(np.inf)})
    np.testing.assert_array_equal(w.val(), after_one)
    assert opt.iterations == 1 and float(opt.dynamic_scale) == 2.0


def test_schedules_follow_the_step_count_and_the_rate_can_change():
    w = pd.Variable("rate_change/w", shape=[2], initializer="ones")
    opt = pd.optimizers.ScheduleFreeAdamW(learning_rate=0.1)
    step = opt.minimize(pd.sum(w * w))
    pd.eval(step)
    opt.learning_rate = 0.0  # read at every run, as the fused optimizers' rates
    z = opt.slots(w)["momentum"].copy()
    pd.eval(step)
    np.testing.assert_array_equal(opt.slots(w)["momentum"], z)


@pytest.mark.parametrize("spec", [CASES["adafactor_clip"], CASES["muon_exclude"],
                                  CASES["sfadamw_warmup"], CASES["adafactor_schedule"]])
def test_config_round_trip(spec):
    opt = build(spec)
    config = opt.get_config()
    again = type(opt).from_config(config)
    assert again.get_config() == config
    entry = pd.optimizers.serialize(opt)
    assert type(pd.optimizers.deserialize(entry)) is type(opt)


def test_multi_optimizer_config_round_trip():
    opt = build(CASES["multi"])
    again = pd.optimizers.deserialize(pd.optimizers.serialize(opt))
    assert [type(o).__name__ for o in again.optimizers] == ["Adafactor", "Adam", "SGD"]
    assert again.get_config() == opt.get_config()
    with pytest.raises(ValueError, match="function as optimizer_map cannot be saved"):
        pd.optimizers.MultiOptimizer(lambda v: pd.optimizers.SGD()).get_config()


@pytest.mark.parametrize("make, match", [
    (lambda: pd.optimizers.Adafactor(beta_2_decay=0.5), "beta_2_decay < 0"),
    (lambda: pd.optimizers.Adafactor(clip_threshold=0), "clip_threshold > 0"),
    (lambda: pd.optimizers.Adafactor(relative_step="yes"), "relative_step to be True or False"),
    (lambda: pd.optimizers.Muon(ns_steps=-1), "ns_steps to be an integer >= 0"),
    (lambda: pd.optimizers.Muon(exclude_layers="dense"), "exclude_layers to be a list"),
    (lambda: pd.optimizers.Muon(exclude_layers=["("]), "not a regular expression"),
    (lambda: pd.optimizers.Muon(momentum=1.5), r"momentum in \[0, 1\]"),
    (lambda: pd.optimizers.ScheduleFreeAdamW(beta_1=0.0), r"beta_1 in \(0, 1\)"),
    (lambda: pd.optimizers.ScheduleFreeAdamW(warmup_steps=1.5), "warmup_steps"),
    (lambda: pd.optimizers.MultiOptimizer("sgd"), "OptimizerMap or a function"),
    (lambda: pd.optimizers.OptimizerMap(pd.optimizers.SGD())
     .__setitem__("x", pd.optimizers.LossScaleOptimizer(pd.optimizers.SGD())),
     "LossScaleOptimizer cannot be used"),
], ids=lambda v: v if isinstance(v, str) else "")
def test_bad_arguments_say_what_was_expected(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_optimizer_map_lookup_as_keras():
    sgd, adam, rms = pd.optimizers.SGD(), pd.optimizers.Adam(), pd.optimizers.RMSprop()
    mapping = pd.optimizers.OptimizerMap(rms)
    mapping["encoder/layer_0/dense"] = adam
    mapping["encoder/.*"] = sgd
    assert mapping["encoder/layer_0/dense"] is adam
    assert mapping["encoder/layer_0/attention/query"] is sgd
    assert mapping["decoder/dense"] is rms
    with pytest.raises(ValueError, match="already mapped"):
        mapping["encoder/.*"] = adam
    mapping["encoder/layer_.*"] = adam
    with pytest.raises(ValueError, match="all match"):
        mapping["encoder/layer_1/x"]
    with pytest.raises(TypeError, match="default_optimizer"):
        pd.optimizers.OptimizerMap("sgd")
    opt = pd.optimizers.MultiOptimizer(lambda v: "sgd")
    w = pd.Variable("multi_bad/w", shape=[2], initializer="ones")
    with pytest.raises(ValueError, match="the optimizer of 'multi_bad/w'"):
        opt.minimize(pd.sum(w * w))


@pytest.mark.parametrize("make", [
    lambda: pd.optimizers.Adafactor(learning_rate=0.05),
    lambda: pd.optimizers.MultiOptimizer(pd.optimizers.OptimizerMap(
        pd.optimizers.SGD(0.05, momentum=0.5), {"head/.*": pd.optimizers.Muon()})),
], ids=["adafactor", "multi"])
def test_the_legacy_h5_format_restores_slots_of_their_own_shapes(make, tmp_path):
    x, y = _data()
    model = _model()
    opt = make()
    model.compile(optimizer=opt, loss="mse")
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    model.save(tmp_path / "m.h5")
    loaded = pd.saving.load_model(tmp_path / "m.h5")
    assert loaded.optimizer.iterations == 2
    for a, b in zip(model.trainable_weights, loaded.trainable_weights):
        for slot, value in opt.slots(a).items():
            np.testing.assert_array_equal(loaded.optimizer.slots(b)[slot], value)
