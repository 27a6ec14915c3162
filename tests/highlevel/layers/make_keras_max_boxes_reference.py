"""Prints, as JSON, what Keras 3 (JAX backend) gives for the MaxNumBoundingBoxes cases of
test_layers_max_num_bounding_boxes.py (keras_max_num_bounding_boxes.json holds its output
for Keras 3.15.1). Run with Keras:
    KERAS_BACKEND=jax <keras venv>/bin/python make_keras_max_boxes_reference.py
The cases are built with NumPy alone, here and in the test (`cases()`).
"""
import json
import os

import numpy as np


def cases():
    """{name: (layer kwargs, input dict of arrays)}: batches and single images, padded,
    truncated and exact counts, integer and float labels and boxes, other fill values."""
    rng = np.random.RandomState(7)
    images = rng.randint(0, 255, (3, 6, 5, 3)).astype("uint8")
    boxes = rng.uniform(0, 50, (3, 4, 4)).astype("float32")
    labels = rng.randint(0, 9, (3, 4))
    out = {}
    for n in (0, 2, 4, 6):
        out[f"batch_max{n}"] = ({"max_number": n}, {
            "images": images, "bounding_boxes": {"boxes": boxes, "labels": labels}})
    out["fill7_float_labels"] = ({"max_number": 6, "fill_value": 7}, {
        "images": images.astype("float32"),
        "bounding_boxes": {"boxes": boxes, "labels": labels.astype("float32")}})
    out["int_boxes_top_labels"] = ({"max_number": 5, "fill_value": -3}, {
        "images": images, "labels": np.arange(3),
        "bounding_boxes": {"boxes": np.rint(boxes).astype("int64"), "labels": labels}})
    for n in (1, 6):
        out[f"single_max{n}"] = ({"max_number": n}, {
            "images": images[0], "bounding_boxes": {"boxes": boxes[0], "labels": labels[0]}})
    return out


def as_json(value):
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    array = np.asarray(value)
    return {"dtype": array.dtype.name, "shape": list(array.shape), "values": array.tolist()}


if __name__ == "__main__":
    os.environ.setdefault("KERAS_BACKEND", "jax")
    import keras  # noqa: E402

    result = {}
    for name, (kwargs, data) in cases().items():
        layer = keras.layers.MaxNumBoundingBoxes(bounding_box_format="xyxy", **kwargs)
        data = dict(data, bounding_boxes=dict(data["bounding_boxes"]))
        result[name] = as_json(layer(data))
    print(json.dumps({"keras": keras.__version__, "cases": result}))
