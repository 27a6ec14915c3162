"""The calls test_bounding_boxes.py makes in paddle and make_bounding_box_reference.py in
Keras 3: (case name, function name, arguments, keyword arguments) of
`keras.utils.bounding_boxes`, on fixed random boxes; `results(module)` runs them all."""
import numpy as np

FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
           "rel_xywh", "rel_center_xywh")
RNG = np.random.default_rng(11)


def _xyxy(*lead, size=100.0):
    corner = RNG.uniform(-10, size, lead + (2,))
    extent = RNG.uniform(1, size / 2, lead + (2,))
    return np.concatenate([corner, corner + extent], axis=-1).astype("float32")


BOXES = _xyxy(5)
BATCHED = _xyxy(2, 3)
OTHER = _xyxy(4)
OTHER_BATCHED = _xyxy(2, 4)
ANCHORS = _xyxy(6)
TARGETS = _xyxy(2, 6)
LABELS = np.array([0, 1, 2, 3, 4], "int32")
ANGLE = np.array([15.0, -30.0], "float32")

CASES = [(f"convert_{s}_{t}", "convert_format", (BOXES, s, t), {"height": 200, "width": 300})
         for s in FORMATS for t in FORMATS]
CASES += [
    ("convert_batched", "convert_format", (BATCHED, "xywh", "center_yxhw"), {}),
    ("convert_float64", "convert_format", (BOXES, "xyxy", "xywh"), {"dtype": "float64"}),
    ("clip_xyxy", "clip_to_image_size", ({"boxes": BOXES, "labels": LABELS},),
     {"height": 60, "width": 40}),
    ("clip_rel", "clip_to_image_size", ({"boxes": BOXES / 80.0, "labels": LABELS},),
     {"bounding_box_format": "rel_xyxy"}),
    ("clip_batched", "clip_to_image_size", ({"boxes": BATCHED},), {"height": 50, "width": 70}),
    ("crop", "crop", (BOXES,), {"top": 10, "left": 20, "height": 40, "width": 30}),
    ("crop_batched", "crop", (BATCHED, 5, 5, 50, 60), {}),
    ("pad", "pad", (BATCHED,), {"top": 10, "left": 20}),
    ("affine", "affine_transform",
     (BATCHED, ANGLE, np.array([0.1, -0.2], "float32"), np.array([0.05, 0.0], "float32"),
      np.array([1.2, 0.8], "float32"), np.array([5.0, 0.0], "float32"),
      np.array([0.0, -10.0], "float32"), 120, 100), {}),
    ("affine_center", "affine_transform",
     (BATCHED, ANGLE, np.zeros(2, "float32"), np.zeros(2, "float32"),
      np.ones(2, "float32"), np.zeros(2, "float32"), np.zeros(2, "float32"), 64, 48),
     {"center_x": 0.25, "center_y": 0.75}),
    ("encode", "encode_box_to_deltas", (ANCHORS, TARGETS, "xyxy", "xyxy"), {}),
    ("encode_variance", "encode_box_to_deltas", (ANCHORS, TARGETS[0], "xyxy", "xywh"),
     {"encoding_format": "center_xywh", "variance": [0.1, 0.1, 0.2, 0.2]}),
    ("encode_relative", "encode_box_to_deltas", (ANCHORS / 100.0, TARGETS, "rel_xyxy", "xyxy"),
     {"image_shape": (100, 120, 3)}),
    ("decode", "decode_deltas_to_boxes", (ANCHORS, TARGETS / 100.0, "xyxy", "xyxy"), {}),
    ("decode_variance", "decode_deltas_to_boxes", (ANCHORS, TARGETS[0] / 100.0, "xywh",
                                                   "center_yxhw"),
     {"encoded_format": "center_xywh", "variance": [0.1, 0.1, 0.2, 0.2]}),
    ("decode_levels", "decode_deltas_to_boxes",
     ({"3": ANCHORS, "4": ANCHORS[:2]}, {"3": TARGETS / 100.0, "4": TARGETS[:, :2] / 100.0},
      "xyxy", "rel_xyxy"), {"image_shape": (100, 120, 3)}),
    ("iou", "compute_iou", (BOXES, OTHER, "xyxy"), {}),
    ("iou_batched", "compute_iou", (BATCHED, OTHER_BATCHED, "center_xywh"), {}),
    ("iou_mixed", "compute_iou", (BATCHED, OTHER, "yxyx"), {}),
    ("iou_mixed_other", "compute_iou", (BOXES, OTHER_BATCHED, "xywh"), {}),
    ("iou_masked", "compute_iou",
     (np.concatenate([BOXES[:3], -np.ones((2, 4), "float32")]), OTHER, "xyxy"),
     {"use_masking": True, "mask_val": -7}),
    ("iou_relative", "compute_iou", (BOXES / 100.0, OTHER / 100.0, "rel_xyxy"),
     {"image_shape": (100, 200, 3)}),
    ("ciou", "compute_ciou", (BOXES, OTHER[:1], "xyxy"), {}),
    ("ciou_batched", "compute_ciou", (BATCHED, OTHER_BATCHED[:, :3], "center_xywh"), {}),
]


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return np.asarray(value).tolist()


def results(module):
    """{case: the result as lists} of every case with `module.utils.bounding_boxes`."""
    out = {}
    for name, function, args, kwargs in CASES:
        args = tuple(dict(a) if isinstance(a, dict) else a for a in args)  # (updated in place)
        out[name] = _plain(getattr(module.utils.bounding_boxes, function)(*args, **kwargs))
    return out
