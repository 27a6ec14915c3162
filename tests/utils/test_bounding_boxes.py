"""pd.utils.bounding_boxes (paddle/utils/bounding_boxes.py) against Keras 3.15.1: every case
of bounding_box_cases.py (each pair of the nine formats, clipping, cropping, padding,
affine transforms, deltas, IoU and CIoU) equal to the values Keras gave (stored in
bounding_boxes_keras.json by make_bounding_box_reference.py) and to Keras itself where
installed; the same functions on symbolic Variables (graph mode); bad input."""
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import paddle as pd
from utils.bounding_box_cases import BATCHED, BOXES, CASES, OTHER, results

KERAS = json.loads((Path(__file__).parent / "bounding_boxes_keras.json").read_text())
bb = pd.utils.bounding_boxes


def _close(got, want, case):
    if isinstance(want, dict):
        assert sorted(got) == sorted(want), case
        for k in want:
            _close(got[k], want[k], f"{case}/{k}")
        return
    np.testing.assert_allclose(np.asarray(got, "float64"), np.asarray(want, "float64"),
                               rtol=2e-5, atol=2e-5, err_msg=case)


def test_every_case_matches_keras():
    got = results(pd)
    assert sorted(got) == sorted(KERAS["cases"])
    for case, want in KERAS["cases"].items():
        _close(got[case], want, case)


def test_against_keras_itself_where_installed():
    os.environ.setdefault("KERAS_BACKEND", "jax")
    pytest.importorskip("jax")
    keras = pytest.importorskip("keras")
    with warnings.catch_warnings():  # JAX's and Keras's deprecation warnings
        warnings.simplefilter("ignore")
        want = results(keras)
    got = results(pd)
    for case in want:
        _close(got[case], want[case], case)


def test_result_dtypes_and_shapes_follow_keras():
    assert bb.convert_format(BOXES, "xyxy", "xywh").dtype == "float32"
    assert bb.convert_format(BOXES, "xyxy", "xywh", dtype="float64").dtype == "float64"
    assert tuple(bb.compute_iou(BATCHED, OTHER, "xyxy").shape) == (2, 3, 4)
    assert tuple(bb.compute_ciou(BATCHED, BATCHED, "xyxy").shape) == (2, 3)
    boxes = {"boxes": BOXES, "labels": np.arange(5)}
    assert bb.convert_format(boxes, "xyxy", "yxyx") is boxes  # updated in place, as Keras


def test_in_a_graph_the_functions_build_ops():
    boxes = pd.data("bb_graph_boxes", shape=[None, 4])
    anchors = pd.data("bb_graph_anchors", shape=[None, 4])
    converted = bb.convert_format(boxes, "xyxy", "center_yxhw")
    iou = bb.compute_iou(boxes, anchors, "xyxy")
    deltas = bb.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy")
    again = bb.decode_deltas_to_boxes(anchors, deltas, "xyxy", "xyxy")
    assert isinstance(converted, pd.Variable) and converted.shape[-1] == 4
    feeds = {boxes: BOXES, anchors: BOXES[::-1].copy()}
    c, i, d, a = pd.eval([converted, iou, deltas, again], feeds)
    np.testing.assert_allclose(c, bb.convert_format(BOXES, "xyxy", "center_yxhw"), rtol=1e-6)
    np.testing.assert_allclose(i, bb.compute_iou(BOXES, feeds[anchors], "xyxy"), rtol=1e-6)
    np.testing.assert_allclose(a, BOXES, rtol=1e-4, atol=1e-3)  # decode inverts encode


def test_ciou_has_gradients():
    boxes = pd.Variable("bb_ciou_boxes", shape=[5, 4], initializer="zeros")
    boxes.set_value(BOXES)
    loss = pd.sum(1.0 - bb.compute_ciou(boxes, pd.constant(BOXES[::-1].copy()), "xyxy"))
    (grad,) = pd.gradients(loss, [boxes])
    value = pd.eval(grad)
    assert value.shape == (5, 4) and np.isfinite(value).all() and np.abs(value).sum() > 0


@pytest.mark.parametrize("call, error, match", [
    (lambda: bb.convert_format(BOXES, "xyxy", "corners"), ValueError,
     "expected target to be one of xyxy.*received 'corners'"),
    (lambda: bb.convert_format(BOXES[:, :3], "xyxy", "xywh"), ValueError,
     r"last axis of 4 values, received shape \(5, 3\)"),
    (lambda: bb.convert_format(BOXES, "xyxy", "rel_xyxy"), ValueError,
     "expected height and width"),
    (lambda: bb.clip_to_image_size(BOXES, 10, 10), ValueError, "expected a dict"),
    (lambda: bb.clip_to_image_size({"boxes": BOXES}), ValueError, "expected height and width"),
    (lambda: bb.clip_to_image_size({"boxes": BOXES}, 10, 10, "xywh"), NotImplementedError,
     "'xyxy' or 'rel_xyxy'"),
    (lambda: bb.crop(BOXES, 0, 0, 10, 10, bounding_box_format="yxyx"), NotImplementedError,
     "received 'yxyx'"),
    (lambda: bb.affine_transform(BOXES, *[np.zeros(2, "float32")] * 6, 10, 10), ValueError,
     r"shape \(batch, N, 4\)"),
    (lambda: bb.affine_transform(BATCHED, np.float32(0), *[np.zeros(2, "float32")] * 5, 10,
                                 10), ValueError, "expected angle of shape"),
    (lambda: bb.encode_box_to_deltas(BOXES, BOXES, "xyxy", "xyxy", variance=[1, 2]),
     ValueError, "variance of length 4"),
    (lambda: bb.encode_box_to_deltas(BOXES, BOXES, "xyxy", "xyxy", encoding_format="xyxy"),
     ValueError, "'center_xywh' or 'center_yxhw', received 'xyxy'"),
    (lambda: bb.decode_deltas_to_boxes({"3": BOXES}, {"4": BOXES}, "xyxy", "xyxy"),
     ValueError, "same levels"),
    (lambda: bb.compute_iou(BOXES[0], OTHER, "xyxy"), ValueError,
     r"boxes1 of shape \(N, 4\) or \(batch, N, 4\), received shape \(4,\)"),
    (lambda: bb.compute_iou(BOXES, OTHER, "rel_xyxy"), ValueError, "expected image_shape"),
    (lambda: bb.compute_ciou(BOXES, OTHER, "rel_xyxy"), ValueError, "absolute"),
])
def test_bad_input_says_what_was_expected(call, error, match):
    with pytest.raises(error, match=match):
        call()
