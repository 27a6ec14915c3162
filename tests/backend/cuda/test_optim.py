"""The fused update on the CUDA backend: the CPU optimizer suites (Keras rules, schedules,
weight decay, clipping) run again on the simulated device, plus what is particular to it:
one launch per dtype, the step's scalars prepared by the run's host part."""
import numpy as np
import pytest

import paddle as pd
from backend.cuda.simulated import SimulatedContext
from lowlevel import test_optimizers, test_optimizers_keras, test_training

from paddle.backend.cuda import KERNELS, optim

for _module in (test_optimizers, test_optimizers_keras, test_training):
    globals().update({f"{n}_simulated": getattr(_module, n) for n in dir(_module)
                      if n.startswith("test_")})


@pytest.fixture(autouse=True)
def _on_simulated_gpu(simulated_gpu):
    """Every test here, the CPU suites' included, runs its plans on the simulated GPU."""


def _problem(opt):
    rng = np.random.default_rng(0)
    a = pd.Variable("a32", shape=[3, 2], dtype="float32", initializer="ones")
    b = pd.Variable("b64", shape=[5], dtype="float64", initializer="ones")
    c = pd.Variable("c32", shape=[4], dtype="float32", initializer="ones")
    target = [rng.standard_normal(s) for s in ((3, 2), (5,), (4,))]
    loss = pd.sum((a - pd.constant(target[0], "float32")) ** 2) + \
        pd.cast(pd.sum((b - pd.constant(target[1], "float64")) ** 2), "float32") + \
        pd.sum(c * c * 0.5)
    return [a, b, c], loss, opt.minimize(loss)


@pytest.mark.parametrize("make", [
    lambda: pd.optimizers.Adam(0.1), lambda: pd.optimizers.SGD(0.1, momentum=0.5),
    lambda: pd.optimizers.RMSprop(0.01, momentum=0.3, centered=True),
    lambda: pd.optimizers.Adamax(0.1), lambda: pd.optimizers.Nadam(0.1),
    lambda: pd.optimizers.Lion(0.01), lambda: pd.optimizers.Ftrl(0.1, beta=0.1),
    lambda: pd.optimizers.Adagrad(0.1), lambda: pd.optimizers.AdamW(0.1, weight_decay=0.2)])
def test_mixed_dtypes_match_the_cpu(make, monkeypatch):
    """float32 and float64 variables of one optimizer: two launches, the CPU's results."""
    results = []
    for device in ("cpu", "simulated"):
        if device == "cpu":
            monkeypatch.undo()
        else:
            from backend.cuda.simulated import use_simulated_gpu
            use_simulated_gpu(monkeypatch)
        variables, loss, step = _problem(make())
        for _ in range(3):
            pd.eval([loss, step])
        results.append([v.val() for v in variables])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_host_part_prepares_the_step_and_device_part_only_launches():
    opt = pd.optimizers.Adam(0.1)
    (a, b, c), loss, step = _problem(opt)
    node = step.node if hasattr(step, "node") else step[0].node
    n = node.attrs["n"]
    ins = [v.value for v in node.inputs[:n]] + [np.ones(v.shape, v.dtype)
                                                 for v in node.inputs[:n]]
    run = KERNELS["apply_updates"](node, ins, [], SimulatedContext(True))
    assert run.host is not None and run.device is not None
    before = [x.copy() for x in ins[:n]]
    run.host()
    assert opt.iterations == 1
    for x, y in zip(ins[:n], before):
        np.testing.assert_array_equal(x, y)  # nothing moved yet
    run.device()
    assert opt.iterations == 1
    assert all(not np.array_equal(x, y) for x, y in zip(ins[:n], before))


def test_kernel_scalars_fold_the_bias_corrections():
    alpha, b1, b2, eps, wd, decays = optim.kernel_scalars(
        "adam", (0.1, 0.9, 0.999, 1e-7, 3.0, 0.0), False)
    assert alpha == pytest.approx(0.1 * np.sqrt(1 - 0.999 ** 3) / (1 - 0.9 ** 3))
    assert (wd, decays) == (0.0, 0.0)
    with pytest.raises(ValueError, match="Ftrl: the learning rate must be > 0"):
        optim.kernel_scalars("ftrl", (0.0, -0.5, 0, 0, 0, 0), False)
