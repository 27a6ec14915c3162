"""Writes composed_optimizer_keras.json: the weights after composed_optimizer_cases.STEPS
steps of each case in Keras 3 (JAX backend, float32). Run from this folder with Keras:
    KERAS_BACKEND=jax <keras venv>/bin/python make_composed_optimizer_reference.py
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "jax")
import jax  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

from composed_optimizer_cases import CASES, S, START, STEPS, X  # noqa: E402


def build(spec):
    name, kwargs = spec
    kwargs = dict(kwargs)
    if name == "MultiOptimizer":
        default, mapping = kwargs.pop("map")
        mapped = keras.optimizers.OptimizerMap(build(default))
        for key, inner in mapping.items():
            mapped[key] = build(inner)
        return keras.optimizers.MultiOptimizer(mapped)
    lr = kwargs.get("learning_rate")
    if isinstance(lr, list):
        kwargs["learning_rate"] = getattr(keras.optimizers.schedules, lr[0])(**lr[1])
    return getattr(keras.optimizers, name)(**kwargs)


def loss(w, b, t):
    return jax.numpy.sum((X @ w + b - 1.0) ** 2) + jax.numpy.sum(S * (t - 0.5) ** 2)


def run(spec):
    variables = [keras.Variable(START[k], dtype="float32", name=k) for k in ("w", "b", "t")]
    opt = build(spec)
    for _ in range(STEPS):
        grads = jax.grad(loss, argnums=(0, 1, 2))(*[v.value for v in variables])
        opt.apply(list(grads), variables)
    return {v.name: np.asarray(v.value).tolist() for v in variables}


if __name__ == "__main__":
    out = {"keras_version": keras.__version__,
           "cases": {case: run(spec) for case, spec in CASES.items()}}
    with open("composed_optimizer_keras.json", "w") as f:
        json.dump(out, f)
