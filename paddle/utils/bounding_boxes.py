"""Keras's `keras.utils.bounding_boxes` (`pd.utils.bounding_boxes`): converting boxes
between formats, their IoU and CIoU, clipping, cropping, padding and affine transforms of
boxes, and the anchor-relative deltas of detection heads.

Every function is composed from `pd.ops` (Keras's ops), so it takes NumPy arrays or
tensors and computes at once (eager), or builds graph ops on symbolic Variables (a model,
a traced step). Formats (case-insensitive): "xyxy" [left, top, right, bottom], "yxyx",
"xywh" [left, top, width, height], "center_xywh", "center_yxhw", and the relative
"rel_xyxy", "rel_yxyx", "rel_xywh", "rel_center_xywh" (fractions of the image's width and
height).

Example:
    >>> import numpy as np, paddle as pd
    >>> boxes = np.array([[10, 20, 30, 40], [50, 60, 70, 80]], "float32")
    >>> pd.utils.bounding_boxes.convert_format(boxes, source="xyxy", target="xywh").tolist()
    [[10.0, 20.0, 20.0, 20.0], [50.0, 60.0, 20.0, 20.0]]
"""
import math

import numpy as np

from paddle import ops
from paddle.config import epsilon

SUPPORTED_FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy",
                     "rel_yxyx", "rel_xywh", "rel_center_xywh")


def _format(name, where, argument):
    if not isinstance(name, str) or name.lower() not in SUPPORTED_FORMATS:
        raise ValueError(f"{where}: expected {argument} to be one of "
                         f"{', '.join(SUPPORTED_FORMATS)}, received {name!r}")
    return name.lower()


def _boxes(boxes, where, name="boxes"):
    """`boxes` as a tensor whose last axis has 4 values."""
    boxes = ops.convert_to_tensor(boxes)
    if len(boxes.shape) == 0 or boxes.shape[-1] != 4:
        raise ValueError(f"{where}: expected {name} with a last axis of 4 values, received "
                         f"shape {tuple(boxes.shape)}")
    return boxes


def _corners(boxes):
    return ops.split(boxes, 4, axis=-1)


def _join(parts):
    return ops.concatenate(parts, axis=-1)


# ---- to and from xyxy (Keras's BoundingBox converters) -----------------------------------

def _center(a, b, c, d, h, w):
    return _join([a - c / 2.0, b - d / 2.0, a + c / 2.0, b + d / 2.0])


_TO_XYXY = {
    "xyxy": lambda x1, y1, x2, y2, h, w: _join([x1, y1, x2, y2]),
    "yxyx": lambda y1, x1, y2, x2, h, w: _join([x1, y1, x2, y2]),
    "xywh": lambda x1, y1, bw, bh, h, w: _join([x1, y1, x1 + bw, y1 + bh]),
    "center_xywh": _center,
    "center_yxhw": lambda cy, cx, bh, bw, h, w: _center(cx, cy, bw, bh, h, w),
    "rel_xyxy": lambda x1, y1, x2, y2, h, w: _join([x1 * w, y1 * h, x2 * w, y2 * h]),
    "rel_yxyx": lambda y1, x1, y2, x2, h, w: _join([x1 * w, y1 * h, x2 * w, y2 * h]),
    "rel_xywh": lambda x1, y1, bw, bh, h, w: _join([x1 * w, y1 * h, (x1 + bw) * w,
                                                   (y1 + bh) * h]),
    "rel_center_xywh": lambda cx, cy, bw, bh, h, w: _join([
        (cx - bw / 2.0) * w, (cy - bh / 2.0) * h, (cx + bw / 2.0) * w, (cy + bh / 2.0) * h]),
}


def _centers(x1, y1, x2, y2):
    return x1 + (x2 - x1) / 2.0, y1 + (y2 - y1) / 2.0, x2 - x1, y2 - y1


_FROM_XYXY = {
    "xyxy": lambda x1, y1, x2, y2, h, w: _join([x1, y1, x2, y2]),
    "yxyx": lambda x1, y1, x2, y2, h, w: _join([y1, x1, y2, x2]),
    "xywh": lambda x1, y1, x2, y2, h, w: _join([x1, y1, x2 - x1, y2 - y1]),
    "center_xywh": lambda *c: _join(list(_centers(*c[:4]))),
    "center_yxhw": lambda *c: _join([_centers(*c[:4])[i] for i in (1, 0, 3, 2)]),
    "rel_xyxy": lambda x1, y1, x2, y2, h, w: _join([x1 / w, y1 / h, x2 / w, y2 / h]),
    "rel_yxyx": lambda x1, y1, x2, y2, h, w: _join([y1 / h, x1 / w, y2 / h, x2 / w]),
    "rel_xywh": lambda x1, y1, x2, y2, h, w: _join([x1 / w, y1 / h, (x2 - x1) / w,
                                                   (y2 - y1) / h]),
    "rel_center_xywh": lambda x1, y1, x2, y2, h, w: _join([
        (x1 + (x2 - x1) / 2.0) / w, (y1 + (y2 - y1) / 2.0) / h, (x2 - x1) / w,
        (y2 - y1) / h]),
}


def convert_format(boxes, source, target, height=None, width=None, dtype="float32"):
    """Boxes converted from the format `source` to `target` (Keras 3's).

    Args:
        boxes: an array or tensor of shape (..., 4), or a dict whose "boxes" it converts
            (the dict is updated and returned, as Keras does).
        source, target: formats (see the module's docstring), case-insensitive.
        height, width: the image's size, needed when either format is relative.
        dtype: the result's dtype ("float32").

    Returns:
        The converted boxes (a tensor), or the dict.

    Raises:
        ValueError: an unknown format, boxes whose last axis is not 4, a relative format
            without height and width.

    Example:
        >>> import numpy as np, paddle as pd
        >>> boxes = np.array([[10, 20, 30, 40]], "float32")
        >>> pd.utils.bounding_boxes.convert_format(
        ...     boxes, "xyxy", "rel_xyxy", height=200, width=100).tolist()
        [[0.10000000149011612, 0.10000000149011612, 0.30000001192092896, 0.20000000298023224]]
    """
    if isinstance(boxes, dict):
        boxes["boxes"] = convert_format(boxes["boxes"], source, target, height, width, dtype)
        return boxes
    where = "convert_format"
    source, target = _format(source, where, "source"), _format(target, where, "target")
    boxes = _boxes(boxes, where)
    if (source.startswith("rel_") or target.startswith("rel_")) and \
            (width is None or height is None):
        raise ValueError(f"convert_format: expected height and width to convert between "
                         f"relative and absolute formats ({source!r} to {target!r}), received "
                         f"height={height!r} and width={width!r}")
    boxes = ops.cast(boxes, dtype)
    if source == target:
        return boxes
    height = None if height is None else ops.cast(height, dtype)
    width = None if width is None else ops.cast(width, dtype)
    if source.startswith("rel_") and target.startswith("rel_"):
        source, target = source[4:], target[4:]
    xyxy = _TO_XYXY[source](*_corners(boxes), height, width)
    return _FROM_XYXY[target](*_corners(xyxy), height, width)


def clip_to_image_size(bounding_boxes, height=None, width=None, bounding_box_format="xyxy"):
    """Boxes clipped to the image: {"boxes", "labels"} with every coordinate in [0, width]
    or [0, height] ([0, 1] for "rel_xyxy"), and label -1 for a box left with no area.

    Args:
        bounding_boxes: a dict with "boxes" (N, 4) or (batch, N, 4) and optionally
            "labels" (N,) or (batch, N).
        height, width: the image's size (needed for "xyxy").
        bounding_box_format: "xyxy" or "rel_xyxy" (Keras supports only these).

    Returns:
        A new dict, its "boxes" and "labels" replaced.

    Raises:
        ValueError: not a dict with "boxes", "xyxy" without height and width.
        NotImplementedError: another format (as Keras).

    Example:
        >>> import numpy as np, paddle as pd
        >>> out = pd.utils.bounding_boxes.clip_to_image_size(
        ...     {"boxes": np.array([[-10., -20., 150., 160.], [130., 40., 170., 80.]]),
        ...      "labels": np.array([0, 1])}, height=100, width=120)
        >>> out["boxes"].tolist(), out["labels"].tolist()
        ([[0.0, 0.0, 120.0, 100.0], [120.0, 40.0, 120.0, 80.0]], [0, -1])
    """
    if not isinstance(bounding_boxes, dict) or "boxes" not in bounding_boxes:
        raise ValueError(f"clip_to_image_size: expected a dict with 'boxes' (and 'labels'), "
                         f"received {type(bounding_boxes).__name__}")
    if bounding_box_format not in ("xyxy", "rel_xyxy"):
        raise NotImplementedError(f"clip_to_image_size: expected bounding_box_format 'xyxy' "
                                  f"or 'rel_xyxy' (Keras supports only these), received "
                                  f"{bounding_box_format!r}")
    if bounding_box_format == "xyxy" and (height is None or width is None):
        raise ValueError(f"clip_to_image_size: expected height and width for 'xyxy', "
                         f"received height={height!r} and width={width!r}")
    boxes = _boxes(bounding_boxes["boxes"], "clip_to_image_size")
    labels = bounding_boxes.get("labels")
    if bounding_box_format == "xyxy":
        w, h = ops.cast(width, boxes.dtype), ops.cast(height, boxes.dtype)
    else:
        w = h = 1.0
    x1, y1, x2, y2 = _corners(boxes)
    boxes = _join([ops.clip(x1, 0, w), ops.clip(y1, 0, h), ops.clip(x2, 0, w),
                   ops.clip(y2, 0, h)])
    result = dict(bounding_boxes)
    result["boxes"] = boxes
    if labels is not None:
        x1, y1, x2, y2 = _corners(boxes)
        areas = ops.squeeze((x2 - x1) * (y2 - y1), axis=-1)
        result["labels"] = ops.where(areas > 0, labels, -1)
    return result


def _xyxy_only(bounding_box_format, where):
    if bounding_box_format != "xyxy":
        raise NotImplementedError(f"{where}: expected bounding_box_format 'xyxy' (Keras "
                                  f"supports only it), received {bounding_box_format!r}")


def crop(boxes, top, left, height, width, bounding_box_format="xyxy"):
    """Boxes in the frame of the crop of the image at (`top`, `left`) of `height` by
    `width`: shifted by the offsets, then clipped to the crop.

    Raises:
        NotImplementedError: a format other than "xyxy" (as Keras).

    Example:
        >>> import numpy as np, paddle as pd
        >>> boxes = np.array([[10., 20., 50., 60.], [70., 80., 100., 120.]])
        >>> pd.utils.bounding_boxes.crop(boxes, top=10, left=20, height=40,
        ...                              width=30).tolist()
        [[0.0, 10.0, 30.0, 40.0], [30.0, 40.0, 30.0, 40.0]]
    """
    _xyxy_only(bounding_box_format, "crop")
    x1, y1, x2, y2 = _corners(_boxes(boxes, "crop"))
    return _join([ops.clip(x1 - left, 0, width), ops.clip(y1 - top, 0, height),
                  ops.clip(x2 - left, 0, width), ops.clip(y2 - top, 0, height)])


def pad(boxes, top, left, height=None, width=None, bounding_box_format="xyxy"):
    """Boxes in the frame of the image padded by `top` and `left` (shifted by them).

    Raises:
        NotImplementedError: a format other than "xyxy" (as Keras).

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.utils.bounding_boxes.pad(np.array([[1., 2., 3., 4.]]), top=10,
        ...                             left=20).tolist()
        [[21.0, 12.0, 23.0, 14.0]]
    """
    _xyxy_only(bounding_box_format, "pad")
    x1, y1, x2, y2 = _corners(_boxes(boxes, "pad"))
    return _join([x1 + left, y1 + top, x2 + left, y2 + top])


def _inverse_affine_matrix(center_x, center_y, angle, translate_x, translate_y, scale, shear_x,
                           shear_y, height, width):
    """Keras's `_compute_inverse_affine_matrix`: (batch, 3, 3)."""
    angle, shear_x, shear_y = -angle, -shear_x, -shear_y
    cx = ops.multiply(center_x, width - 1)
    cy = ops.multiply(center_y, height - 1)
    rot = ops.multiply(angle, 1.0 / 180.0 * math.pi)
    tx = ops.multiply(-translate_x, width - 1)
    ty = ops.multiply(-translate_y, height - 1)
    sx = ops.multiply(shear_x, 1.0 / 180.0 * math.pi)
    sy = ops.multiply(shear_y, 1.0 / 180.0 * math.pi)
    cos_sy, tan_sx = ops.cos(sy), ops.tan(sx)
    rot_minus_sy = rot - sy
    cx_plus_tx, cy_plus_ty = cx + tx, cy + ty
    a = ops.cos(rot_minus_sy) / cos_sy
    b = a * tan_sx + ops.sin(rot)
    c = -ops.sin(rot_minus_sy) / cos_sy
    d = ops.cos(rot) - c * tan_sx
    a0, a1 = ops.multiply(d, scale), ops.multiply(-b, scale)
    b0, b1 = ops.multiply(-c, scale), ops.multiply(a, scale)
    a2 = cx - a0 * cx_plus_tx - a1 * cy_plus_ty
    b2 = cy - b0 * cx_plus_tx - b1 * cy_plus_ty
    zeros, ones = ops.zeros_like(angle), ops.ones_like(angle)
    matrix = ops.stack([a0, a1, a2, b0, b1, b2, zeros, zeros, ones], axis=-1)
    return ops.reshape(matrix, [-1, 3, 3])


def affine_transform(boxes, angle, translate_x, translate_y, scale, shear_x, shear_y, height,
                     width, center_x=None, center_y=None, bounding_box_format="xyxy"):
    """Boxes moved by the affine transform of an image (Keras's RandomAffine-style
    rotation, translation, scale and shear): each box's four corners go through the
    inverse of the image's transform, and the box becomes their bounding box.

    Args:
        boxes: (batch, N, 4) "xyxy" boxes.
        angle, translate_x, translate_y, scale, shear_x, shear_y: (batch,) arrays: the
            rotation (degrees), translations (fractions of the size), scale, and shears
            (degrees).
        height, width: the image's size.
        center_x, center_y: the transform's center, fractions (0.5 by default).
        bounding_box_format: "xyxy" (Keras supports only it).

    Returns:
        (batch, N, 4) boxes.

    Raises:
        ValueError: boxes not of rank 3, or transform arrays not of shape (batch,).
        NotImplementedError: another format (as Keras).

    Example:
        >>> import numpy as np, paddle as pd
        >>> one = np.ones(1, "float32"); zero = np.zeros(1, "float32")
        >>> out = pd.utils.bounding_boxes.affine_transform(
        ...     np.array([[[10., 10., 20., 30.]]], "float32"), zero, 0.1 * one, zero, one,
        ...     zero, zero, height=11, width=11)
        >>> np.round(np.asarray(out), 4).tolist()
        [[[11.0, 10.0, 21.0, 30.0]]]
    """
    _xyxy_only(bounding_box_format, "affine_transform")
    boxes = _boxes(boxes, "affine_transform")
    if len(boxes.shape) != 3:
        raise ValueError(f"affine_transform: expected boxes of shape (batch, N, 4), received "
                         f"shape {tuple(boxes.shape)}")
    arguments = {"angle": angle, "translate_x": translate_x, "translate_y": translate_y,
                 "scale": scale, "shear_x": shear_x, "shear_y": shear_y}
    for name, value in arguments.items():
        arguments[name] = ops.convert_to_tensor(value)
        if len(arguments[name].shape) != 1:
            raise ValueError(f"affine_transform: expected {name} of shape (batch,), received "
                             f"shape {tuple(arguments[name].shape)}")
    matrix = _inverse_affine_matrix(0.5 if center_x is None else center_x,
                                    0.5 if center_y is None else center_y,
                                    height=height, width=width, **arguments)
    boxes = ops.cast(boxes, matrix.dtype)
    transposed = ops.transpose(matrix[:, :2, :], [0, 2, 1])
    x1, y1, x2, y2 = (boxes[..., i] for i in range(4))
    points = ops.stack([x1, y1, x2, y1, x2, y2, x1, y2], axis=-1)
    points = ops.reshape(points, [boxes.shape[0] if boxes.shape[0] is not None else -1,
                                  boxes.shape[1], 4, 2])
    points = ops.concatenate([points, ops.ones_like(points[..., :1])], axis=-1)
    moved = ops.einsum("bnxy,byz->bnxz", points, transposed)
    return ops.concatenate([ops.amin(moved, axis=2), ops.amax(moved, axis=2)], axis=-1)


def _variance(variance, where):
    if variance is None:
        return None
    variance = ops.convert_to_tensor(np.asarray(variance, "float32"))
    if tuple(variance.shape)[-1:] != (4,):
        raise ValueError(f"{where}: expected variance of length 4, received shape "
                         f"{tuple(variance.shape)}")
    return variance


def _image_size(image_shape, where):
    if image_shape is None:
        return None, None
    if len(image_shape) != 3:
        raise ValueError(f"{where}: expected image_shape as (height, width, channels), "
                         f"received {image_shape!r}")
    return image_shape[0], image_shape[1]


def _center_format(name, where, argument):
    if name not in ("center_xywh", "center_yxhw"):
        raise ValueError(f"{where}: expected {argument} to be 'center_xywh' or 'center_yxhw', "
                         f"received {name!r}")


def encode_box_to_deltas(anchors, boxes, anchor_format, box_format,
                         encoding_format="center_yxhw", variance=None, image_shape=None):
    """The deltas from anchors to boxes, in `encoding_format`: the centers' offsets over
    the anchors' sizes, then the logs of the sizes' ratios (divided by `variance`).

    Args:
        anchors: (N, 4) anchors in `anchor_format`.
        boxes: (N, 4) or (batch, N, 4) boxes in `box_format`.
        encoding_format: "center_yxhw" (default) or "center_xywh".
        variance: None, or 4 numbers the deltas are divided by.
        image_shape: (height, width, channels), for relative formats.

    Raises:
        ValueError: a variance not of length 4, another encoding format, an unknown format.

    Example:
        >>> import numpy as np, paddle as pd
        >>> anchors = np.array([[0., 0., 10., 10.]], "float32")
        >>> boxes = np.array([[5., 0., 15., 20.]], "float32")
        >>> deltas = pd.utils.bounding_boxes.encode_box_to_deltas(anchors, boxes, "xyxy", "xyxy")
        >>> np.asarray(deltas, "float64").round(4).tolist()
        [[0.5, 0.5, 0.6931, 0.0]]
    """
    where = "encode_box_to_deltas"
    variance = _variance(variance, where)
    _center_format(encoding_format, where, "encoding_format")
    height, width = _image_size(image_shape, where)
    anchors = convert_format(anchors, anchor_format, encoding_format, height, width)
    boxes = convert_format(boxes, box_format, encoding_format, height, width)
    anchor_sizes = ops.maximum(anchors[..., 2:], epsilon())
    box_sizes = ops.maximum(boxes[..., 2:], epsilon())
    deltas = ops.concatenate([(boxes[..., :2] - anchors[..., :2]) / anchor_sizes,
                              ops.log(box_sizes / anchor_sizes)], axis=-1)
    return deltas if variance is None else deltas / variance


def decode_deltas_to_boxes(anchors, boxes_delta, anchor_format, box_format,
                           encoded_format="center_yxhw", variance=None, image_shape=None):
    """Boxes in `box_format` from anchors and their deltas (`encode_box_to_deltas`'s
    inverse); dicts of anchors and deltas (levels of a feature pyramid) give a dict.

    Args:
        anchors: (N, 4) anchors, or {level: anchors}.
        boxes_delta: (N, 4) or (batch, N, 4) deltas, or {level: deltas}.
        encoded_format: "center_yxhw" (default) or "center_xywh".
        variance: None, or 4 numbers the deltas are multiplied by.
        image_shape: (height, width, channels), for relative formats.

    Raises:
        ValueError: a variance not of length 4, another encoded format, an unknown format,
            dicts of different levels.

    Example:
        >>> import numpy as np, paddle as pd
        >>> anchors = np.array([[0., 0., 10., 10.]], "float32")
        >>> deltas = np.array([[0.5, 0.5, np.log(2.0), 0.0]], "float32")
        >>> np.round(np.asarray(pd.utils.bounding_boxes.decode_deltas_to_boxes(
        ...     anchors, deltas, "xyxy", "xyxy")), 4).tolist()
        [[5.0, 0.0, 15.0, 20.0]]
    """
    where = "decode_deltas_to_boxes"
    variance = _variance(variance, where)
    _center_format(encoded_format, where, "encoded_format")
    height, width = _image_size(image_shape, where)

    def one_level(anchor, delta):
        anchor = convert_format(anchor, anchor_format, encoded_format, height, width)
        delta = _boxes(delta, where, "boxes_delta")
        if variance is not None:
            delta = delta * variance
        box = ops.concatenate([delta[..., :2] * anchor[..., 2:] + anchor[..., :2],
                               ops.exp(delta[..., 2:]) * anchor[..., 2:]], axis=-1)
        return convert_format(box, encoded_format, box_format, height, width)

    if isinstance(anchors, dict) and isinstance(boxes_delta, dict):
        if set(anchors) != set(boxes_delta):
            raise ValueError(f"{where}: expected the same levels in anchors and boxes_delta, "
                             f"received {sorted(anchors)} and {sorted(boxes_delta)}")
        return {level: one_level(a, boxes_delta[level]) for level, a in anchors.items()}
    return one_level(anchors, boxes_delta)


def _iou_inputs(boxes1, boxes2, where):
    b1, b2 = _boxes(boxes1, where, "boxes1"), _boxes(boxes2, where, "boxes2")
    for name, b in (("boxes1", b1), ("boxes2", b2)):
        if len(b.shape) not in (2, 3):
            raise ValueError(f"{where}: expected {name} of shape (N, 4) or (batch, N, 4), "
                             f"received shape {tuple(b.shape)}")
    return b1, b2


def compute_iou(boxes1, boxes2, bounding_box_format, use_masking=False, mask_val=-1,
                image_shape=None):
    """The pairwise intersection over union of two sets of boxes: (M, N) for (M, 4) and
    (N, 4) boxes, (batch, M, N) when either is batched.

    Args:
        boxes1, boxes2: (M, 4) / (N, 4) or batched (batch, M, 4) / (batch, N, 4).
        bounding_box_format: their format.
        use_masking: give `mask_val` where a box has all coordinates < 0 (padding).
        mask_val: the masked value (-1).
        image_shape: (height, width, channels), needed for relative formats.

    Raises:
        ValueError: boxes of another rank, an unknown format, a relative format without
            image_shape.

    Example:
        >>> import numpy as np, paddle as pd
        >>> a = np.array([[0., 0., 10., 10.]])
        >>> b = np.array([[5., 0., 15., 10.], [20., 20., 30., 30.]])
        >>> iou = pd.utils.bounding_boxes.compute_iou(a, b, "xyxy")
        >>> np.asarray(iou, "float64").round(4).tolist()
        [[0.3333, 0.0]]
    """
    where = "compute_iou"
    boxes1, boxes2 = _iou_inputs(boxes1, boxes2, where)
    rank1 = len(boxes1.shape)
    if "rel" in str(bounding_box_format) and image_shape is None:
        raise ValueError(f"{where}: expected image_shape for the relative format "
                         f"{bounding_box_format!r}, received None")
    height, width = _image_size(image_shape, where)
    boxes1 = convert_format(boxes1, bounding_box_format, "yxyx", height, width)
    boxes2 = convert_format(boxes2, bounding_box_format, "yxyx", height, width)
    y_min1, x_min1, y_max1, x_max1 = _corners(boxes1)
    y_min2, x_min2, y_max2, x_max2 = _corners(boxes2)
    perm = [1, 0] if len(boxes2.shape) == 2 else [0, 2, 1]
    height_ = ops.maximum(ops.minimum(y_max1, ops.transpose(y_max2, perm)) -
                          ops.maximum(y_min1, ops.transpose(y_min2, perm)), 0.0)
    width_ = ops.maximum(ops.minimum(x_max1, ops.transpose(x_max2, perm)) -
                         ops.maximum(x_min1, ops.transpose(x_min2, perm)), 0.0)
    intersection = height_ * width_
    area1 = ops.squeeze((y_max1 - y_min1) * (x_max1 - x_min1), axis=-1)
    area2 = ops.squeeze((y_max2 - y_min2) * (x_max2 - x_min2), axis=-1)
    union = ops.expand_dims(area1, axis=-1) + \
        ops.expand_dims(area2, axis=1 if len(area2.shape) == 2 else 0) - intersection
    iou = ops.divide(intersection, union + epsilon())
    if not use_masking:
        return iou
    mask1 = ops.less(ops.max(boxes1, axis=-1, keepdims=True), 0.0)
    mask2 = ops.less(ops.max(boxes2, axis=-1, keepdims=True), 0.0)
    background = ops.logical_or(mask1, ops.transpose(mask2, [1, 0] if rank1 == 2 else [0, 2, 1]))
    return ops.where(background, ops.cast(mask_val, iou.dtype) * ops.ones_like(iou), iou)


def compute_ciou(boxes1, boxes2, bounding_box_format, image_shape=None):
    """The complete IoU of boxes paired one to one (shape (...,) for (..., 4) boxes): the
    IoU less the centers' squared distance over the enclosing box's squared diagonal and
    the aspect-ratio term `alpha * v` (Keras 3's).

    Raises:
        ValueError: a relative format (Keras refuses them here), an unknown format, boxes
            whose last axis is not 4.

    Example:
        >>> import numpy as np, paddle as pd
        >>> a = np.array([[0., 0., 10., 10.]]); b = np.array([[0., 0., 10., 10.]])
        >>> np.round(np.asarray(pd.utils.bounding_boxes.compute_ciou(a, b, "xyxy")), 4).tolist()
        [1.0]
    """
    where = "compute_ciou"
    if "rel" in str(bounding_box_format):
        raise ValueError(f"{where}: expected an absolute bounding_box_format (Keras refuses "
                         f"relative ones here), received {bounding_box_format!r}")
    height, width = _image_size(image_shape, where)
    boxes1 = convert_format(_boxes(boxes1, where, "boxes1"), bounding_box_format, "xyxy",
                            height, width)
    boxes2 = convert_format(_boxes(boxes2, where, "boxes2"), bounding_box_format, "xyxy",
                            height, width)
    eps = epsilon()
    x_min1, y_min1, x_max1, y_max1 = _corners(boxes1)
    x_min2, y_min2, x_max2, y_max2 = _corners(boxes2)
    width_1, height_1 = x_max1 - x_min1, y_max1 - y_min1 + eps
    width_2, height_2 = x_max2 - x_min2, y_max2 - y_min2 + eps
    intersection = ops.maximum(ops.minimum(x_max1, x_max2) - ops.maximum(x_min1, x_min2), 0.0) \
        * ops.maximum(ops.minimum(y_max1, y_max2) - ops.maximum(y_min1, y_min2), 0.0)
    union = width_1 * height_1 + width_2 * height_2 - intersection + eps
    iou = ops.squeeze(ops.divide(intersection, union + eps), axis=-1)
    convex_width = ops.maximum(x_max1, x_max2) - ops.minimum(x_min1, x_min2)
    convex_height = ops.maximum(y_max1, y_max2) - ops.minimum(y_min1, y_min2)
    diagonal = ops.squeeze(convex_width ** 2 + convex_height ** 2 + eps, axis=-1)
    distance = ops.squeeze(((x_min1 + x_max1) / 2 - (x_min2 + x_max2) / 2) ** 2 +
                           ((y_min1 + y_max1) / 2 - (y_min2 + y_max2) / 2) ** 2, axis=-1)
    v = ops.squeeze((4 / math.pi ** 2) * ops.power(
        ops.arctan(width_2 / height_2) - ops.arctan(width_1 / height_1), 2), axis=-1)
    alpha = v / (v - iou + (1 + eps))
    return iou - (distance / diagonal + v * alpha)
