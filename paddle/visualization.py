"""Keras's `keras.visualization` (`pd.visualization`): image galleries and segmentation
masks (matplotlib for the galleries). The code lives in paddle/utils/visualization.py.

Example:
    >>> import paddle as pd
    >>> callable(pd.visualization.plot_image_gallery)
    True
"""
from paddle.utils.visualization import (  # noqa: F401
    draw_segmentation_masks, plot_image_gallery, plot_segmentation_mask_gallery)
