"""The fused update on the CUDA backend: one launch per dtype, the step's scalars prepared
before the run and the step counted after it. (The optimizer suites of tests/lowlevel run
on the simulated GPU too.)"""
import numpy as np
import pytest

import paddle as pd
from paddle.devices import cuda
from devices.cuda.simulated import Prepared, backend

from paddle.devices.cuda import optim


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


# One of each algorithm of csrc/cuda/optim.cu (and AdamW's decay inside Adam's kernel).
OPTIMIZERS = [
    lambda: pd.optimizers.Adam(0.1), lambda: pd.optimizers.SGD(0.1, momentum=0.5),
    lambda: pd.optimizers.RMSprop(0.01, momentum=0.3, centered=True),
    lambda: pd.optimizers.Adamax(0.1), lambda: pd.optimizers.Nadam(0.1),
    lambda: pd.optimizers.Lion(0.01), lambda: pd.optimizers.Ftrl(0.1, beta=0.1),
    lambda: pd.optimizers.Adadelta(1.0, rho=0.9),
    lambda: pd.optimizers.Adagrad(0.1), lambda: pd.optimizers.AdamW(0.1, weight_decay=0.2),
    lambda: pd.optimizers.Lamb(0.1), lambda: pd.optimizers.Lamb(0.05, weight_decay=0.1),
    lambda: pd.optimizers.SGD(0.1, momentum=0.5, use_ema=True, ema_overwrite_frequency=2),
    lambda: pd.optimizers.Adam(0.1, amsgrad=True),
    lambda: pd.optimizers.AdamW(0.05, weight_decay=0.1, beta_2=0.5, amsgrad=True)]


@pytest.mark.parametrize("make", OPTIMIZERS)
def test_mixed_dtypes_match_the_cpu(make):
    """float32 and float64 variables of one optimizer: two launches, the CPU's results."""
    results = []
    for device in ("cpu", "simulated"):
        variables, loss, step = _problem(make())
        with cuda.simulated():
            for _ in range(3):
                pd.eval([loss, step], device="cpu" if device == "cpu" else "gpu")
        results.append([v.val() for v in variables])
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_scalars_go_up_before_the_run_and_the_step_is_counted_after():
    opt = pd.optimizers.Adam(0.1)
    _, _, step = _problem(opt)
    node = step.node
    n = node.attrs["n"]
    ins = [v.value.copy() for v in node.inputs[:n]] + [np.ones(v.shape, v.dtype)
                                                        for v in node.inputs[:n]]
    prepared = Prepared(node, ins, [], backend("simulated"), training=True)
    hooks = prepared.hooks
    assert len(hooks.before) == 1 and len(hooks.after) == 1 and not hooks.uncapturable
    before = [x.copy() for x in ins[:n]]
    hooks.before[0]()
    assert opt.iterations == 0
    for x, y in zip(ins[:n], before):
        np.testing.assert_array_equal(x, y)  # nothing moved yet
    prepared.call()  # the launches alone: what a CUDA graph captures
    assert all(not np.array_equal(x, y) for x, y in zip(ins[:n], before))
    hooks.after[0]()
    assert opt.iterations == 1


def test_kernel_scalars_fold_the_bias_corrections():
    alpha, b1, b2, eps, wd, decays, amsgrad = optim.kernel_scalars(
        "adam", (0.1, 0.9, 0.999, 1e-7, 3.0, 0.0, False), False)
    assert alpha == pytest.approx(0.1 * np.sqrt(1 - 0.999 ** 3) / (1 - 0.9 ** 3))
    assert (wd, decays, amsgrad) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="Ftrl: the learning rate must be > 0"):
        optim.kernel_scalars("ftrl", (0.0, -0.5, 0, 0, 0, 0), False)
