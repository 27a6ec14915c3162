"""Keras's `keras.visualization` (`pd.visualization`): galleries of images and segmentation
masks and bounding boxes drawn over images, on the host (NumPy arrays; the galleries need
matplotlib, the `plot` extra; the boxes Pillow, the `image` extra).

Bounding boxes are where Keras draws them, in its colors, with its labels
(`"name | 0.93"` with confidences) at its label positions; Keras draws with OpenCV and
paddle with Pillow, so the pixels of the line joints and the font differ.

Example:
    >>> import numpy as np, paddle as pd
    >>> images = np.zeros((1, 2, 2, 3), "uint8")
    >>> masks = np.array([[[[0], [1]], [[2], [-1]]]])
    >>> pd.visualization.draw_segmentation_masks(images, masks, num_classes=3)[0, 1, 0].tolist()
    [1, 203, 49]
"""
import math

import numpy as np

from paddle import _settings as settings
from paddle.utils.bounding_boxes import convert_format

OPTIONAL_REQUIREMENTS = ("matplotlib",)  # the gallery examples need it


def _palette(num_classes):
    """Keras's colors: class i is (i * (2**25 - 1, 2**15 - 1, 2**21 - 1)) % 255."""
    palette = np.array([2 ** 25 - 1, 2 ** 15 - 1, 2 ** 21 - 1])
    return [((i * palette) % 255).tolist() for i in range(num_classes)]


def _images_4d(images, where):
    images = np.asarray(images)
    if images.ndim != 4:
        raise ValueError(f"{where}: expected a batch of images of rank 4, received shape "
                         f"{images.shape}")
    return images


def draw_segmentation_masks(images, segmentation_masks, num_classes=None, color_mapping=None,
                            alpha=0.8, blend=True, ignore_index=-1, data_format=None):
    """Images with each class of `segmentation_masks` painted in its color, as Keras's.

    Args:
        images: (batch, h, w, channels) images (channels_first: (batch, channels, h, w)).
        segmentation_masks: integer class ids, (batch, h, w, 1).
        num_classes: the classes painted are 0 .. num_classes - 1 (None: the largest id
            found, Keras's rule, so that id itself is left unpainted).
        color_mapping: {class: (r, g, b)} (None: Keras's palette).
        alpha: the weight of the color when blending.
        blend: blend the colors with the image (else the pixels take the color).
        ignore_index: the id of pixels left as they are.
        data_format: "channels_last" or "channels_first" (None: the global one).

    Returns:
        uint8 images with blending, float32 without, channels last.

    Example:
        >>> import numpy as np, paddle as pd
        >>> out = pd.visualization.draw_segmentation_masks(
        ...     np.zeros((1, 1, 2, 3)), np.array([[[[1], [0]]]]), num_classes=2, blend=False)
        >>> out[0, 0].tolist()
        [[1.0, 127.0, 31.0], [0.0, 0.0, 0.0]]
    """
    data_format = settings.standardize_data_format(data_format, "draw_segmentation_masks")
    images = _images_4d(images, "draw_segmentation_masks").astype(np.float32)
    masks = np.asarray(segmentation_masks)
    if data_format == "channels_first":
        images, masks = images.transpose(0, 2, 3, 1), masks.transpose(0, 2, 3, 1)
    if masks.dtype.kind not in "iu":
        raise TypeError(f"draw_segmentation_masks: expected integer segmentation_masks, "
                        f"received dtype {masks.dtype}")
    if masks.shape[:3] != images.shape[:3] or masks.shape[-1] != 1:
        raise ValueError(f"draw_segmentation_masks: expected masks of shape "
                         f"{images.shape[:3] + (1,)}, received {masks.shape}")
    if num_classes is None:
        num_classes = int(masks.max())
    colors = _palette(num_classes) if color_mapping is None else \
        [color_mapping[i] for i in range(num_classes)]
    ids = masks[..., 0]
    drawn = images.copy()
    for k, color in enumerate(colors):
        drawn[ids == k] = np.asarray(color, np.float32)
    if not blend:
        return drawn
    out = images * (1 - alpha) + drawn * alpha
    out = np.where((ids != ignore_index)[..., None], out, images)
    return out.astype(np.uint8)


def plot_image_gallery(images, y_true=None, y_pred=None, label_map=None, rows=None, cols=None,
                       value_range=(0, 255), scale=2, path=None, show=None, transparent=True,
                       dpi=60, legend_handles=None, data_format=None):
    """A grid of images (with their labels and predictions as titles), shown or saved to
    `path`, as Keras's.

    Args:
        images: (batch, h, w, channels) images, or one (h, w, channels) image.
        y_true, y_pred: class ids per image, named through `label_map` in the titles.
        label_map: {id: name}, needed with y_true or y_pred.
        rows, cols: the grid (None: about the square root of the batch).
        value_range: the range of the pixel values, mapped to 0-255.
        scale: inches per image.
        path: save the figure there instead of showing it.
        show: show it (None: when no path is given).
        transparent, dpi: of the saved file.
        legend_handles: matplotlib handles for a legend.
        data_format: "channels_last" or "channels_first" (None: the global one).

    Example:
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> path = os.path.join(tempfile.mkdtemp(), "gallery.png")
        >>> pd.visualization.plot_image_gallery(np.zeros((4, 8, 8, 3)), path=path)
        >>> os.path.getsize(path) > 0
        True
    """
    import matplotlib  # optional dependency: matplotlib (the `plot` extra)
    import matplotlib.pyplot as plt  # optional dependency: matplotlib
    if path is not None and show:
        raise ValueError("plot_image_gallery: expected either a path or show=True, not both")
    if (y_true is not None or y_pred is not None) and label_map is None:
        raise ValueError("plot_image_gallery: y_true and y_pred need a label_map")
    show = (path is None) if show is None else show
    data_format = settings.standardize_data_format(data_format, "plot_image_gallery")
    images = np.asarray(images)
    if images.ndim == 3:
        images = images[None]
    images = _images_4d(images, "plot_image_gallery")
    if data_format == "channels_first":
        images = images.transpose(0, 2, 3, 1)
    batch = images.shape[0]
    rows = rows or int(math.ceil(math.sqrt(batch)))
    cols = cols or max(int(math.ceil(batch // rows)), 1)
    if rows * cols > batch:
        raise ValueError(f"plot_image_gallery: a grid of {rows} x {cols} needs "
                         f"{rows * cols} images, received {batch}")
    low, high = value_range
    images = (images.astype(np.float32) - low) * (255.0 / (high - low))
    images = np.clip(images, 0, 255)
    if not show:
        matplotlib.use("Agg", force=False)
    fig, axes = plt.subplots(nrows=rows, ncols=cols, figsize=(cols * scale, rows * scale),
                             frameon=False, layout="tight", squeeze=False)
    fig.subplots_adjust(wspace=0, hspace=0)
    if legend_handles is not None:
        fig.legend(handles=legend_handles, loc="lower center")
    for index in range(rows * cols):
        axis = axes[index // cols, index % cols]
        axis.imshow(images[index].astype("uint8"))
        axis.margins(x=0, y=0)
        axis.axis("off")
        title = []
        if y_true is not None and index < len(y_true):
            title.append(f"Label: {label_map.get(y_true[index], 'Unknown')}")
        if y_pred is not None and index < len(y_pred):
            title.append(f"Pred: {label_map.get(y_pred[index], 'Unknown')}")
        if title:
            axis.set_title("  ".join(title), fontsize=8)
    if path is not None:
        plt.savefig(fname=path, pad_inches=0, bbox_inches="tight", transparent=transparent,
                    dpi=dpi)
        plt.close(fig)
    elif show:
        plt.show()
        plt.close(fig)


def plot_segmentation_mask_gallery(images, num_classes, value_range=(0, 255), y_true=None,
                                   y_pred=None, color_mapping=None, blend=True, alpha=0.8,
                                   ignore_index=-1, data_format=None, **kwargs):
    """One row per image: the image, then its true and predicted masks drawn over it
    (`draw_segmentation_masks`), through `plot_image_gallery` (`**kwargs` go there).

    Example:
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> path = os.path.join(tempfile.mkdtemp(), "masks.png")
        >>> pd.visualization.plot_segmentation_mask_gallery(
        ...     np.zeros((2, 4, 4, 3)), num_classes=2, y_true=np.ones((2, 4, 4, 1), int),
        ...     path=path)
        >>> os.path.exists(path)
        True
    """
    data_format = settings.standardize_data_format(data_format,
                                                   "plot_segmentation_mask_gallery")
    images = _images_4d(images, "plot_segmentation_mask_gallery")
    if data_format == "channels_first":
        images = images.transpose(0, 2, 3, 1)

    def drawn(masks):
        masks = np.asarray(masks)
        if data_format == "channels_first":
            masks = masks.transpose(0, 2, 3, 1)
        return draw_segmentation_masks(images, masks.astype(np.int32), num_classes,
                                       color_mapping, alpha, blend, ignore_index,
                                       "channels_last")
    columns = [images] + [drawn(m) for m in (y_true, y_pred) if m is not None]
    gallery = np.stack([np.asarray(c[i], np.float32) for i in range(len(images))
                        for c in columns])
    plot_image_gallery(gallery, value_range=value_range, rows=len(images), cols=len(columns),
                       data_format="channels_last", **kwargs)


def draw_bounding_boxes(images, bounding_boxes, bounding_box_format, class_mapping=None,
                        color=(128, 128, 128), line_thickness=2, text_thickness=1,
                        font_scale=1.0, data_format=None):
    """The images (uint8) with the boxes drawn on them, as Keras's (see the module for
    how the pixels differ).

    Args:
        images: a batch of images, (batch, height, width, channels); float images whose
            maximum is at most 1 are scaled by 255, others clipped to 0-255.
        bounding_boxes: a dict with "boxes" (batch, num_boxes, 4), "labels"
            (batch, num_boxes) (a label -1 is padding: not drawn) and optionally
            "confidences" (batch, num_boxes).
        bounding_box_format: the boxes' format ("xyxy", "yxyx", "xywh", "center_xywh",
            "center_yxhw", "rel_*"; see `pd.utils.bounding_boxes.convert_format`).
        class_mapping: {class id: name}: the names written by the boxes (none by default).
        color: the RGB color of the boxes and labels.
        line_thickness: the boxes' line width in pixels.
        text_thickness: the labels' stroke (None: line_thickness).
        font_scale: the labels' size.
        data_format: "channels_last" or "channels_first" (None: the global one); it says
            where height and width are for relative formats, as in Keras.

    Returns:
        A uint8 NumPy array of the images' shape.

    Raises:
        ValueError: images not of rank 4, a dict without "boxes" and "labels".
        TypeError: bounding_boxes not a dict.
        ImportError: Pillow is not installed.

    Example:
        >>> import numpy as np, paddle as pd
        >>> out = pd.visualization.draw_bounding_boxes(
        ...     np.zeros((1, 16, 16, 3)), {"boxes": np.array([[[2, 2, 12, 12]]]),
        ...     "labels": np.array([[0]])}, "xyxy", color=(255, 0, 0))
        >>> out.dtype, out[0, 2, 6].tolist(), out[0, 7, 7].tolist()
        (dtype('uint8'), [255, 0, 0], [0, 0, 0])
    """
    try:
        from PIL import Image, ImageDraw  # optional dependency: Pillow (the `image` extra)
    except ImportError as error:
        raise ImportError("The `draw_bounding_boxes` function requires the `Pillow` package "
                          "(paddle draws with it where Keras uses OpenCV). Please install it "
                          "with `pip install pillow`.") from error
    class_mapping = class_mapping or {}
    text_thickness = text_thickness or line_thickness
    data_format = settings.standardize_data_format(data_format, "draw_bounding_boxes")
    images = np.array(images)
    if images.ndim != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: "
                         f"images.shape={images.shape}")
    if not isinstance(bounding_boxes, dict):
        raise TypeError(f"`bounding_boxes` should be a dict. Received: bounding_boxes="
                        f"{bounding_boxes} of type {type(bounding_boxes)}")
    if "boxes" not in bounding_boxes or "labels" not in bounding_boxes:
        raise ValueError(f"`bounding_boxes` should be a dict containing 'boxes' and 'labels' "
                         f"keys. Received: bounding_boxes={bounding_boxes}")
    h_axis, w_axis = (-3, -2) if data_format == "channels_last" else (-2, -1)
    height, width = images.shape[h_axis], images.shape[w_axis]
    boxes = np.asarray(convert_format(dict(bounding_boxes), bounding_box_format, "xyxy",
                                      height, width)["boxes"])
    labels = np.asarray(bounding_boxes["labels"])
    confidences = np.asarray(bounding_boxes["confidences"]) \
        if "confidences" in bounding_boxes else None
    if images.dtype.kind == "f" and images.size > 0:
        images = np.clip(images, 0, 1) * 255 if images.max() <= 1.0 else \
            np.clip(images, 0, 255)
    images = images.astype("uint8")
    color = tuple(int(c) for c in color)
    result = []
    for i in range(images.shape[0]):
        picture = Image.fromarray(images[i])
        draw = ImageDraw.Draw(picture)
        for j in range(boxes[i].shape[0]):
            x1, y1, x2, y2 = (int(v) for v in boxes[i][j].astype("int32"))
            label = int(np.asarray(labels[i][j]).astype("int32"))
            if label == -1:
                continue
            _rectangle(draw, x1, y1, x2, y2, color, line_thickness)
            if label in class_mapping:
                text = class_mapping[label]
                if confidences is not None:
                    text = f"{text} | {confidences[i][j]:.2f}"
                _label(draw, text, _find_text_location(x1, y1, font_scale, text_thickness),
                       color, font_scale, text_thickness)
        result.append(np.asarray(picture).reshape(images[i].shape))
    return np.stack(result, axis=0)


def _rectangle(draw, x1, y1, x2, y2, color, thickness):
    """A box outline `thickness` pixels wide around its edges (OpenCV centres it on them); a
    negative thickness fills it, as OpenCV's."""
    if thickness < 0:
        draw.rectangle([min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)], fill=color)
        return
    half = (thickness - 1) // 2
    left, right = min(x1, x2) - half, max(x1, x2) + (thickness - 1 - half)
    top, bottom = min(y1, y2) - half, max(y1, y2) + (thickness - 1 - half)
    draw.rectangle([left, top, right, bottom], outline=color, width=max(thickness, 1))


def _label(draw, text, origin, color, font_scale, thickness):
    """`text` with its baseline's left end at `origin` (OpenCV's putText origin)."""
    from PIL import ImageFont  # optional dependency: Pillow (checked by the caller)
    size = max(int(round(22 * font_scale)), 1)  # OpenCV's simplex font is ~22 px at scale 1
    draw.fontmode = "1"  # solid pixels in the box's color, as OpenCV's default line type
    try:
        font = ImageFont.load_default(size=size)
        draw.text(origin, text, fill=color, font=font, anchor="ls",
                  stroke_width=max(thickness - 1, 0), stroke_fill=color)
    except (TypeError, ValueError, OSError):  # a Pillow without FreeType: its bitmap font
        font = ImageFont.load_default()
        draw.text((origin[0], origin[1] - 11), text, fill=color, font=font)


def _find_text_location(x, y, font_scale, thickness):
    """Keras's placement of a box's label: above the box, or inside it near the top when
    there is no room above."""
    font_height = int(font_scale * 12)
    if y - 8 - 2 * font_height > 0:
        return x, y - 8
    return x + 3, y + 2 * font_height + thickness + 3


def plot_bounding_box_gallery(images, bounding_box_format, y_true=None, y_pred=None,
                              value_range=(0, 255), true_color=(0, 188, 212),
                              pred_color=(255, 235, 59), line_thickness=2, font_scale=1.0,
                              text_thickness=None, class_mapping=None,
                              ground_truth_mapping=None, prediction_mapping=None,
                              legend=False, legend_handles=None, rows=None, cols=None,
                              data_format=None, **kwargs):
    """A gallery of images with their true and predicted boxes drawn (Keras's): the boxes
    by `draw_bounding_boxes`, the grid by `plot_image_gallery` (its `path=`, `show=` ...
    pass through `kwargs`).

    Args:
        images: (batch, height, width, channels) images.
        bounding_box_format: the boxes' format.
        y_true, y_pred: dicts as `draw_bounding_boxes` takes (either may be None).
        value_range: the images' range, mapped to 0-255 for display.
        true_color, pred_color: RGB colors of the true and predicted boxes.
        line_thickness, font_scale, text_thickness: as `draw_bounding_boxes`.
        class_mapping: {id: name} for both, unless ground_truth_mapping or
            prediction_mapping gives one of them.
        legend: add a legend of the two colors ("Ground Truth", "Prediction").
        legend_handles: matplotlib handles for the legend instead.
        rows, cols: the grid.
        data_format: "channels_last" or "channels_first" (None: the global one).

    Returns:
        What `plot_image_gallery` returns.

    Raises:
        ValueError: images not of rank 4; both legend and legend_handles.
        ImportError: matplotlib or Pillow is not installed.

    Example:
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> path = os.path.join(tempfile.mkdtemp(), "boxes.png")
        >>> boxes = {"boxes": np.array([[[1, 1, 6, 6]]]), "labels": np.array([[0]])}
        >>> pd.visualization.plot_bounding_box_gallery(
        ...     np.zeros((1, 8, 8, 3)), "xyxy", y_true=boxes, path=path)
        >>> os.path.getsize(path) > 0
        True
    """
    try:
        from matplotlib import patches  # optional dependency: matplotlib (the `plot` extra)
    except ImportError as error:
        raise ImportError("The `plot_bounding_box_gallery` function requires the "
                          "`matplotlib` package. Please install it with "
                          "`pip install matplotlib`.") from error
    prediction_mapping = prediction_mapping or class_mapping
    ground_truth_mapping = ground_truth_mapping or class_mapping
    data_format = settings.standardize_data_format(data_format, "plot_bounding_box_gallery")
    images = np.asarray(images)
    if images.ndim != 4:
        raise ValueError(f"`images` must be batched 4D tensor. Received: "
                         f"images.shape={images.shape}")
    if data_format == "channels_first":
        images = images.transpose(0, 2, 3, 1)
    plotted = images
    common = dict(bounding_box_format=bounding_box_format, line_thickness=line_thickness,
                  text_thickness=text_thickness, font_scale=font_scale,
                  data_format="channels_last")
    if y_true is not None:
        plotted = draw_bounding_boxes(plotted, y_true, color=true_color,
                                      class_mapping=ground_truth_mapping, **common)
    if y_pred is not None:
        plotted = draw_bounding_boxes(plotted, y_pred, color=pred_color,
                                      class_mapping=prediction_mapping, **common)
    if legend:
        if legend_handles:
            raise ValueError("Only pass `legend` OR `legend_handles` to "
                             "`keras.visualization.plot_bounding_box_gallery()`.")
        legend_handles = [
            patches.Patch(color=np.array(true_color) / 255.0, label="Ground Truth"),
            patches.Patch(color=np.array(pred_color) / 255.0, label="Prediction")]
    return plot_image_gallery(plotted, value_range=value_range,
                              legend_handles=legend_handles, rows=rows, cols=cols, **kwargs)
