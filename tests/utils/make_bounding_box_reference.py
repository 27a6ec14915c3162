"""Writes bounding_boxes_keras.json: bounding_box_cases.results in Keras 3 (JAX backend).
Run from this folder where Keras is installed:
    KERAS_BACKEND=jax <keras venv>/bin/python make_bounding_box_reference.py
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402

from bounding_box_cases import results  # noqa: E402

if __name__ == "__main__":
    with open("bounding_boxes_keras.json", "w") as f:
        json.dump({"keras_version": keras.__version__, "cases": results(keras)}, f)
