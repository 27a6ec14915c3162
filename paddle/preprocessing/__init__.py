"""Keras's `keras.preprocessing` (`pd.preprocessing`): the alias namespace Keras 3 keeps
for its older names: `image` (load_img, img_to_array, array_to_img, save_img,
smart_resize), `sequence` (pad_sequences) and the directory and time-series readers.
The code lives in `paddle/utils/`.

Example:
    >>> import paddle as pd
    >>> pd.preprocessing.sequence.pad_sequences([[1, 2], [3]]).tolist()
    [[1, 2], [0, 3]]
"""
from paddle.preprocessing import image, sequence  # noqa: F401
from paddle.utils.directory_datasets import (  # noqa: F401
    image_dataset_from_directory, text_dataset_from_directory)
from paddle.utils.timeseries import timeseries_dataset_from_array  # noqa: F401
