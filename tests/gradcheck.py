"""Numerical gradient checks: symbolic gradients against central differences in float64.

    check_gradients(lambda x, w: pd.matmul(x, w), [x_array, w_array])

The function's output is reduced to a scalar with fixed random weights; each input's
gradient, projected on a random direction, must match the central difference of the
scalar along that direction. `order=2` checks the gradient of the gradient the same way.
"""
import numpy as np

import paddle as pd


def _scalar(fn, variables, rng):
    out = fn(*variables)
    outs = out if isinstance(out, (list, tuple)) else [out]
    total = None
    for o in outs:
        if o.dtype not in ("float32", "float64"):
            continue
        shape = tuple(1 if d is None else d for d in o.shape)
        weights = pd.constant(rng.standard_normal(shape), dtype=o.dtype)
        term = pd.sum(o * weights)
        total = term if total is None else total + term
    return total


def check_gradients(fn, arrays, wrt=None, eps=1e-6, atol=1e-5, rtol=1e-4, seed=0, order=1,
                    training=False, unknown_batch=False):
    """Assert that pd.gradients of fn(*inputs) matches central differences.

    Args:
        fn: builds the output Variable(s) from pd.data Variables.
        arrays: input values; float ones are checked in float64, others fed as they are.
        wrt: indices of the inputs to check (default: every float input).
        order: 1 for gradients, 2 for the gradient of a gradient's projection.
        unknown_batch: declare the first axis of every input of rank >= 2 as None, so the
            graph is built with shapes known only at eval.
    """
    rng = np.random.default_rng(seed)
    arrays = [np.asarray(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a)
              for a in arrays]
    variables = [pd.data(f"in{i}", shape=(None,) + a.shape[1:] if unknown_batch and a.ndim >= 2
                         else a.shape, dtype=a.dtype.name) for i, a in enumerate(arrays)]
    wrt = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"] if wrt is None else list(wrt)
    scalar = _scalar(fn, variables, np.random.default_rng(seed + 1))
    if order == 2:
        grads = pd.gradients(scalar, [variables[i] for i in wrt])
        weights = [pd.constant(rng.standard_normal(arrays[i].shape), dtype="float64") for i in wrt]
        terms = [pd.sum(g * w) for g, w in zip(grads, weights) if g is not None]
        assert terms, "no first-order gradient to differentiate again"
        scalar = terms[0]
        for t in terms[1:]:
            scalar = scalar + t
    grads = pd.gradients(scalar, [variables[i] for i in wrt])

    def value(values):
        return float(pd.eval(scalar, dict(zip(variables, values)), training=training))

    analytic = pd.eval([g for g in grads if g is not None], dict(zip(variables, arrays)),
                       training=training)
    analytic = iter(analytic)
    for i, g in zip(wrt, grads):
        got = np.zeros_like(arrays[i]) if g is None else next(analytic)
        assert got.shape == arrays[i].shape, f"input {i}: gradient shape {got.shape}"
        direction = rng.standard_normal(arrays[i].shape)
        plus = list(arrays)
        minus = list(arrays)
        plus[i] = arrays[i] + eps * direction
        minus[i] = arrays[i] - eps * direction
        numeric = (value(plus) - value(minus)) / (2 * eps)
        projected = float(np.sum(got * direction))
        assert np.isclose(projected, numeric, atol=atol, rtol=rtol), \
            f"input {i}: symbolic {projected:.8g} vs numerical {numeric:.8g}"
