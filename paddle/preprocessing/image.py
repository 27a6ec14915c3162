"""Keras's `keras.preprocessing.image`: the image utilities of `pd.utils`, and
`smart_resize` (the code lives in `paddle/utils/image_utils.py`).

Example:
    >>> import numpy as np, paddle as pd
    >>> pd.preprocessing.image.img_to_array(np.zeros((2, 2))).shape
    (2, 2, 1)
"""
from paddle.utils.image_utils import (  # noqa: F401
    array_to_img, img_to_array, load_img, save_img, smart_resize)
