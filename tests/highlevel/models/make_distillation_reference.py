"""Writes distillation_keras.json: distillation_cases.run in Keras 3 (JAX backend) for
every case. Run from this folder where Keras is installed:
    KERAS_BACKEND=jax <keras venv>/bin/python make_distillation_reference.py
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402

from distillation_cases import CASES, run  # noqa: E402

if __name__ == "__main__":
    out = {"keras_version": keras.__version__,
           "cases": {case: run(keras, case) for case in CASES}}
    with open("distillation_keras.json", "w") as f:
        json.dump(out, f)
