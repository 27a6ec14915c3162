"""Keras's `keras.visualization` (`pd.visualization`): galleries of images and segmentation
masks drawn over images, on the host (NumPy arrays; the galleries need matplotlib, the
`plot` extra). Keras's bounding-box drawing (`draw_bounding_boxes`,
`plot_bounding_box_gallery`) needs OpenCV and is not available.

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
