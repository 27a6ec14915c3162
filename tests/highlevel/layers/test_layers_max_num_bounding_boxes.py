"""MaxNumBoundingBoxes against Keras 3.15.1 (JAX backend): stored values
(keras_max_num_bounding_boxes.json, written by make_keras_max_boxes_reference.py) and the
live Keras of PADDLE_KERAS_PYTHON (/work/kvenv's by default; skipped without one); symbolic
calls, a tf.data-free pipeline of single images with different numbers of boxes, configs
and bad inputs."""
import functools
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import paddle as pd
from paddle.errors import ShapeError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_keras_max_boxes_reference import as_json, cases  # noqa: E402

KERAS_PYTHON = os.environ.get("PADDLE_KERAS_PYTHON", "/work/kvenv/bin/python")
with open(os.path.join(HERE, "keras_max_num_bounding_boxes.json")) as f:
    STORED = json.load(f)["cases"]


def paddle_outputs():
    out = {}
    for name, (kwargs, data) in cases().items():
        layer = pd.layers.MaxNumBoundingBoxes(bounding_box_format="xyxy", **kwargs)
        out[name] = as_json(layer(data))
    return out


def assert_like_keras(ours, keras):
    for name, expected in keras.items():
        got = ours[name]
        assert sorted(got) == sorted(expected), name
        for key in expected:
            if key == "bounding_boxes":
                for k in ("boxes", "labels"):  # values, shapes and dtypes
                    assert got[key][k] == expected[key][k], (name, k)
            else:  # images and top-level labels come back as given: the same values
                assert got[key]["shape"] == expected[key]["shape"], (name, key)
                assert got[key]["values"] == expected[key]["values"], (name, key)


def test_values_equal_stored_keras():
    assert_like_keras(paddle_outputs(), STORED)
    # the cases cover padding, truncation, one image and fill values
    assert STORED["batch_max6"]["bounding_boxes"]["labels"]["values"][0][4:] == [-1, -1]
    assert STORED["fill7_float_labels"]["bounding_boxes"]["boxes"]["values"][0][5] == [7.0] * 4


@functools.lru_cache(maxsize=None)  # once for the devices the suite runs on
def live_keras():
    env = dict(os.environ, KERAS_BACKEND="jax", TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("PYTHONPATH", None)
    done = subprocess.run([KERAS_PYTHON, os.path.join(HERE, "make_keras_max_boxes_reference.py")],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)["cases"]


def test_values_equal_live_keras():
    if not os.path.exists(KERAS_PYTHON):
        pytest.skip(f"no Keras venv at {KERAS_PYTHON} (set PADDLE_KERAS_PYTHON)")
    assert_like_keras(paddle_outputs(), live_keras())


def test_symbolic_call_builds_ops_with_fixed_counts():
    boxes, labels = pd.Input((None, 4)), pd.Input((None,), dtype="int64")
    images = pd.Input((6, 5, 3))
    layer = pd.layers.MaxNumBoundingBoxes(3, fill_value=-2, bounding_box_format="xyxy")
    out = layer({"images": images, "bounding_boxes": {"boxes": boxes, "labels": labels}})
    assert out["images"] is images
    b, l = out["bounding_boxes"]["boxes"], out["bounding_boxes"]["labels"]
    assert (b.shape, b.dtype, l.shape, l.dtype) == ((None, 3, 4), "float32", (None, 3), "int32")
    x = np.arange(2 * 5 * 4, dtype=np.float32).reshape(2, 5, 4)
    got_b, got_l = pd.eval([b, l], {boxes: x, labels: np.arange(10).reshape(2, 5)})
    np.testing.assert_array_equal(got_b, x[:, :3])
    np.testing.assert_array_equal(got_l, [[0, 1, 2], [5, 6, 7]])
    got_b, got_l = pd.eval([b, l], {boxes: x[:, :1], labels: np.array([[4], [9]])})
    np.testing.assert_array_equal(got_b[:, 1:], -2.0)
    np.testing.assert_array_equal(got_l, [[4, -2, -2], [9, -2, -2]])


def test_pipeline_of_single_images_with_different_box_counts():
    """A tf.data-free pipeline: a reader of single images with 1 to 5 boxes each, mapped
    through the layer (which gives every image 3), then batched and stacked."""
    rng = np.random.RandomState(0)
    samples = [{"images": rng.rand(6, 6, 3).astype("float32"),
                "bounding_boxes": {"boxes": rng.rand(n, 4).astype("float32") * 6,
                                   "labels": rng.randint(0, 5, n)}} for n in (1, 5, 3, 2)]
    layer = pd.layers.MaxNumBoundingBoxes(3, bounding_box_format="rel_xyxy")

    def fixed(sample):
        out = layer(sample)
        return (np.asarray(out["images"]), np.asarray(out["bounding_boxes"]["boxes"]),
                np.asarray(out["bounding_boxes"]["labels"]))

    reader = pd.reader.batch(pd.reader.map_readers(fixed, lambda: iter(samples)), 2)
    batches = [tuple(np.stack(field) for field in zip(*batch)) for batch in reader()]
    assert [b[1].shape for b in batches] == [(2, 3, 4), (2, 3, 4)]
    for i, sample in enumerate(samples):
        boxes, labels = batches[i // 2][1][i % 2], batches[i // 2][2][i % 2]
        n = min(3, len(sample["bounding_boxes"]["labels"]))
        np.testing.assert_array_equal(boxes[:n], sample["bounding_boxes"]["boxes"][:n])
        np.testing.assert_array_equal(labels[:n], sample["bounding_boxes"]["labels"][:n])
        assert np.all(boxes[n:] == -1) and np.all(labels[n:] == -1)


def test_images_alone_and_other_entries_pass_through():
    layer = pd.layers.MaxNumBoundingBoxes(2)
    images = np.zeros((2, 4, 4, 1), "float32")
    assert layer(images) is images
    masks = np.ones((2, 4, 4, 1), "float32")
    out = layer({"images": images, "segmentation_masks": masks})
    assert out["segmentation_masks"] is masks and out["images"] is images


def test_config_round_trip_and_keras_config():
    layer = pd.layers.MaxNumBoundingBoxes(5, fill_value=0, bounding_box_format="yxyx",
                                          name="max_boxes")
    config = layer.get_config()
    assert {k: config[k] for k in ("max_number", "fill_value", "bounding_box_format",
                                   "data_format")} == {
        "max_number": 5, "fill_value": 0, "bounding_box_format": "yxyx",
        "data_format": "channels_last"}
    again = pd.layers.MaxNumBoundingBoxes.from_config(config)
    assert (again.max_number, again.fill_value, again.bounding_box_format) == (5, 0, "yxyx")
    # a Keras config (which lacks fill_value) loads with Keras's default
    keras_config = {"name": "m", "trainable": True, "data_format": "channels_last",
                    "bounding_box_format": "xyxy", "max_number": 3}
    assert pd.layers.MaxNumBoundingBoxes.from_config(keras_config).fill_value == -1
    shapes = layer.compute_output_shape({"images": (None, 8, 8, 3), "bounding_boxes": {
        "boxes": (None, 9, 4), "labels": (None, 9)}})
    assert shapes["bounding_boxes"] == {"boxes": [None, 5, 4], "labels": [None, 5]}


@pytest.mark.parametrize("kwargs, error", [
    ({"max_number": -1}, "max_number to be an integer >= 0"),
    ({"max_number": 2.5}, "max_number to be an integer >= 0"),
    ({"max_number": "3"}, "max_number to be an integer >= 0"),
    ({"max_number": 3, "fill_value": 0.5}, "fill_value to be an integer"),
    ({"max_number": 3, "bounding_box_format": "xy"}, "bounding_box_format to be one of"),
])
def test_bad_arguments(kwargs, error):
    with pytest.raises(ValueError, match=error):
        pd.layers.MaxNumBoundingBoxes(**kwargs)


IMAGES = np.zeros((2, 4, 4, 3), "float32")
BOXES = np.zeros((2, 3, 4), "float32")
LABELS = np.zeros((2, 3), "int64")


@pytest.mark.parametrize("data, error, message", [
    ({"images": IMAGES, "bounding_boxes": {"boxes": BOXES, "labels": LABELS}}, ValueError,
     "didn't specify a bounding box format"),
])
def test_bounding_boxes_need_a_format_as_in_keras(data, error, message):
    with pytest.raises(error, match=message):
        pd.layers.MaxNumBoundingBoxes(2)(data)


@pytest.mark.parametrize("data, error, message", [
    ({"bounding_boxes": {"boxes": BOXES, "labels": LABELS}}, KeyError, "'images' entry"),
    ({"images": IMAGES[0, 0], "bounding_boxes": {"boxes": BOXES, "labels": LABELS}},
     ValueError, r"rank 3 \(one image\) or 4"),
    ({"images": IMAGES, "bounding_boxes": {"boxes": BOXES}}, ValueError,
     "keys 'boxes' and 'labels', received \\['boxes'\\]"),
    ({"images": IMAGES, "bounding_boxes": BOXES}, ValueError, "received ndarray"),
    ({"images": IMAGES, "bounding_boxes": {"boxes": BOXES[0], "labels": LABELS}}, ShapeError,
     r"\(batch_size, num_boxes, 4\) for images of rank 4"),
    ({"images": IMAGES, "bounding_boxes": {"boxes": BOXES[..., :3], "labels": LABELS}},
     ShapeError, "received shape \\(2, 3, 3\\)"),
    ({"images": IMAGES, "bounding_boxes": {"boxes": BOXES, "labels": LABELS[:, :2]}},
     ShapeError, "one label per box"),
    ({"images": IMAGES, "bounding_boxes": {"boxes": [[[1, 2, 3, 4]], [[1, 2, 3, 4], [5, 6, 7, 8]]],
                                           "labels": [[1], [2, 3]]}}, ValueError,
     "dense array"),
    ({"images": IMAGES, "bounding_boxes": {"boxes": BOXES.astype(str), "labels": LABELS}},
     ValueError, "to hold numbers"),
])
def test_bad_inputs_name_the_line(data, error, message):
    layer = pd.layers.MaxNumBoundingBoxes(2, bounding_box_format="xyxy")
    with pytest.raises(error, match=message) as info:
        layer(data)
    assert "test_layers_max_num_bounding_boxes.py" in str(info.value)
