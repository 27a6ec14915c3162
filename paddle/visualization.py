"""Keras's `keras.visualization` (`pd.visualization`): image galleries, segmentation masks
and bounding boxes (matplotlib for the galleries, Pillow for the boxes). The code lives in paddle/utils/visualization.py.

Example:
    >>> import paddle as pd
    >>> callable(pd.visualization.plot_image_gallery)
    True
"""
from paddle.utils.visualization import (  # noqa: F401
    draw_bounding_boxes, draw_segmentation_masks, plot_bounding_box_gallery, plot_image_gallery,
    plot_segmentation_mask_gallery)
