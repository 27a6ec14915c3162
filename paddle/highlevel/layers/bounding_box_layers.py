"""Layers on Keras's object-detection data: `MaxNumBoundingBoxes`, which pads or truncates
the boxes of `{"images": ..., "bounding_boxes": {"boxes": ..., "labels": ...}}` to a fixed
count, as Keras 3's layer of that name.

paddle's layers take tensors; this one takes Keras's dict (of NumPy arrays, eager tensors
or symbolic Variables) and hands its boxes and labels to the ordinary layer call as a list,
so a call on arrays computes at once and a call on `pd.Input`s builds graph ops. Images and
the other entries come back as they were given.

Example:
    >>> import numpy as np, paddle as pd
    >>> layer = pd.layers.MaxNumBoundingBoxes(4, bounding_box_format="xyxy")
    >>> out = layer({"images": np.zeros((1, 8, 8, 3), "float32"),
    ...              "bounding_boxes": {"boxes": np.array([[[1, 2, 3, 4]]], "float32"),
    ...                                 "labels": np.array([[7]])}})
    >>> np.asarray(out["bounding_boxes"]["labels"]).tolist()
    [[7, -1, -1, -1]]
"""
import numbers

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel import eager
from paddle.lowlevel.graph import FLOATS, Variable
from paddle.lowlevel.ops.math import cast
from paddle.lowlevel.ops.shape import pad, reshape, slice as slice_op
from paddle.highlevel.layers.base import Layer
from paddle.highlevel.layers.conv import check_data_format

# Keras's nine box formats (keras.utils.bounding_boxes.convert_format's names).
_FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx",
            "rel_xywh", "rel_center_xywh")


def _integer(value, what, low):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"MaxNumBoundingBoxes: expected {what} to be an integer >= {low}, "
                         f"received {value!r}")
    return int(value)


def _shape(x):
    return tuple(x.shape) if isinstance(x, Variable) else np.shape(x)


class MaxNumBoundingBoxes(Layer):
    """Pads or truncates the bounding boxes of each image to `max_number`, as Keras 3's.

    Takes Keras's dict `{"images", "bounding_boxes": {"boxes", "labels"}}` (a batch:
    images (batch, height, width, channels), boxes (batch, n, 4), labels (batch, n); or one
    image: (height, width, channels), (n, 4), (n,)). The first `max_number` boxes are kept
    and missing ones are filled with `fill_value` (boxes and labels alike). Boxes come back
    float32 and integer labels int32 (Keras's dtypes on JAX); images, top-level "labels"
    and "segmentation_masks" come back unchanged, as does a plain image array. As in
    Keras, a dict with "bounding_boxes" needs the layer's `bounding_box_format` (which
    this layer does not otherwise use). Boxes must be dense: paddle has no ragged tensors,
    and Keras 3 on JAX refuses lists and ragged tensors here too.

    Args:
        max_number: the number of boxes per image in the output (an integer >= 0).
        fill_value: the value of the added boxes' coordinates and labels (an integer).
        bounding_box_format: one of Keras's box formats ("xyxy", "center_yxhw", ...).
        data_format: "channels_last" or "channels_first" (kept in the config, as Keras).

    Raises:
        ValueError: a bad argument, a dict without "images" or with "bounding_boxes" that
            are not {"boxes", "labels"} of matching ranks, boxes without 4 coordinates,
            images of rank other than 3 or 4, or no bounding_box_format.

    Example:
        >>> import numpy as np, paddle as pd
        >>> layer = pd.layers.MaxNumBoundingBoxes(1, bounding_box_format="xyxy")
        >>> boxes = np.array([[1, 2, 3, 4], [5, 6, 7, 8]], "float32")
        >>> out = layer({"images": np.zeros((8, 8, 3)),
        ...              "bounding_boxes": {"boxes": boxes, "labels": np.array([1, 2])}})
        >>> np.asarray(out["bounding_boxes"]["boxes"]).tolist()
        [[1.0, 2.0, 3.0, 4.0]]
    """

    def __init__(self, max_number, fill_value=-1, bounding_box_format=None, data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.max_number = _integer(max_number, "max_number", 0)
        if not isinstance(fill_value, numbers.Integral) or isinstance(fill_value, bool):
            raise ValueError(f"MaxNumBoundingBoxes: expected fill_value to be an integer, "
                             f"received {fill_value!r}")
        self.fill_value = int(fill_value)
        if bounding_box_format is not None and bounding_box_format not in _FORMATS:
            raise ValueError(f"MaxNumBoundingBoxes: expected bounding_box_format to be one of "
                             f"{', '.join(_FORMATS)} or None, received "
                             f"{bounding_box_format!r}")
        self.bounding_box_format = bounding_box_format
        self.data_format = check_data_format(data_format, "MaxNumBoundingBoxes")
        self.autocast = False  # box coordinates keep float32 under a mixed policy

    def __call__(self, data, training=None):
        if not isinstance(data, dict):
            self._batched(data)
            return data
        if "images" not in data:
            raise KeyError(at_user(f"{self.name}: expected a dict with an 'images' entry, "
                                   f"received keys {sorted(data)}"))
        batched = self._batched(data["images"])
        out = dict(data)
        if "bounding_boxes" in data:
            if not self.bounding_box_format:
                raise ValueError(at_user(
                    f"{self.name}: you passed an input with a 'bounding_boxes' key, but you "
                    "didn't specify a bounding box format. Pass a `bounding_box_format` "
                    "argument to your MaxNumBoundingBoxes layer, e.g. "
                    "`bounding_box_format='xyxy'`."))
            boxes, labels = self._boxes_and_labels(data["bounding_boxes"], batched)
            boxes, labels = super().__call__([boxes, labels])
            out["bounding_boxes"] = dict(data["bounding_boxes"], boxes=boxes, labels=labels)
        return out

    def _batched(self, images):
        rank = len(_shape(images))
        if rank not in (3, 4):
            raise ValueError(at_user(f"{self.name}: expected images of rank 3 (one image) or "
                                     f"4 (a batch of images), received shape "
                                     f"{_shape(images)}"))
        return rank == 4

    def _boxes_and_labels(self, bounding_boxes, batched):
        """The boxes as float32 and the labels (integers as int32) as tensors, checked."""
        if not isinstance(bounding_boxes, dict) or not {"boxes", "labels"} <= set(
                bounding_boxes):
            got = sorted(bounding_boxes) if isinstance(bounding_boxes, dict) else \
                type(bounding_boxes).__name__
            raise ValueError(at_user(f"{self.name}: expected `bounding_boxes` to be a dict "
                                     f"with keys 'boxes' and 'labels', received {got}"))
        boxes, labels = (self._tensor(bounding_boxes[k], k) for k in ("boxes", "labels"))
        rank = 3 if batched else 2
        what = "(batch_size, num_boxes, 4)" if batched else "(num_boxes, 4)"
        if boxes.ndim != rank or boxes.shape[-1] not in (4, None):
            raise ShapeError(at_user(f"{self.name}: expected bounding_boxes['boxes'] of shape "
                                     f"{what} for images of rank {rank + 1}, received shape "
                                     f"{boxes.shape}"))
        if labels.ndim != rank - 1 or any(
                a is not None and b is not None and a != b
                for a, b in zip(labels.shape, boxes.shape[:-1])):
            raise ShapeError(at_user(f"{self.name}: expected bounding_boxes['labels'] of shape "
                                     f"{boxes.shape[:-1]} (one label per box), received shape "
                                     f"{labels.shape}"))
        if boxes.dtype != "float32":
            boxes = cast(boxes, "float32")
        if labels.dtype == "int64":
            labels = cast(labels, "int32")
        elif labels.dtype in FLOATS and labels.dtype != "float32":
            labels = cast(labels, "float32")
        return boxes, labels

    def _tensor(self, value, key):
        if isinstance(value, Variable):
            return value
        try:
            array = np.asarray(value)
        except ValueError:
            array = None
        if array is None or array.dtype == object:
            raise ValueError(at_user(f"{self.name}: expected bounding_boxes[{key!r}] to be a "
                                     "dense array (paddle has no ragged tensors: pad each "
                                     "image's boxes to one count first), received "
                                     f"{type(value).__name__}"))
        if array.dtype.kind not in "iuf":
            raise ValueError(at_user(f"{self.name}: expected bounding_boxes[{key!r}] to hold "
                                     f"numbers, received dtype {array.dtype}"))
        if array.dtype.kind in "iu":
            array = array.astype(np.int64)
        return eager.tensor(array)

    def build(self, input_shape):
        pass  # no weights; the shapes were checked in __call__

    def call(self, inputs):
        boxes, labels = inputs
        axis = boxes.ndim - 2  # the boxes axis: 1 in a batch, 0 for one image
        return [self._fit(boxes, axis), self._fit(labels, axis)]

    def _fit(self, x, axis):
        """x with exactly `max_number` entries on `axis`: padded with `fill_value` by
        max_number, then sliced, so it works for any number of boxes, known or not (the
        reshape states the count the slice cannot know when the input's is unknown)."""
        pads = [(0, 0)] * x.ndim
        pads[axis] = (0, self.max_number)
        x = pad(x, pads, constant_values=float(self.fill_value))
        size = [-1] * x.ndim
        size[axis] = self.max_number
        x = slice_op(x, [0] * x.ndim, size)
        if x.shape[axis] is not None or self.max_number == 0:
            return x
        return reshape(x, [-1] * (axis == 1) + [self.max_number] + [4] * (x.ndim - axis - 1))

    def compute_output_shape(self, input_shape):
        """Keras's rule on a dict of shapes: the boxes' and labels' axis 1 is max_number."""
        if isinstance(input_shape, dict) and "bounding_boxes" in input_shape:
            extra = set(input_shape["bounding_boxes"]) - {"boxes", "labels"}
            if extra:
                raise KeyError(f"There are unsupported keys in `bounding_boxes`: "
                               f"{list(extra)}. Only `boxes` and `labels` are supported.")
            out = dict(input_shape, bounding_boxes=dict(input_shape["bounding_boxes"]))
            for key in ("boxes", "labels"):
                shape = list(input_shape["bounding_boxes"][key])
                shape[1] = self.max_number
                out["bounding_boxes"][key] = shape
            return out
        return input_shape

    def get_config(self):
        config = {**super().get_config(), "max_number": self.max_number,
                  "fill_value": self.fill_value, "data_format": self.data_format}
        if self.bounding_box_format is not None:
            config["bounding_box_format"] = self.bounding_box_format
        return config
