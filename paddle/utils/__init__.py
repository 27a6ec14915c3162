"""Keras's `keras.utils` (`pd.utils`): arrays for labels and sequences, datasets, seeding,
and pictures of models and of their learning curves.

- `to_categorical`, `normalize` (numerical.py): one-hot labels, L-p normalized rows.
- `pad_sequences` (sequence.py): lists of sequences to one padded 2-D array.
- `PyDataset`: a base class for batch sources that `fit`, `evaluate` and `predict` accept
  (any object with `__len__` and `__getitem__` returning batches works).
- `set_random_seed` (seeding.py): Python's, NumPy's and paddle's random state at once.
- `timeseries_dataset_from_array` (timeseries.py): batched sliding windows, Keras's.
- `pack_x_y_sample_weight`, `unpack_x_y_sample_weight`, `split_dataset`.
- `load_img`, `img_to_array`, `array_to_img`, `save_img` (image_utils.py, Pillow: the
  `image` extra) and `image_dataset_from_directory`, `text_dataset_from_directory`,
  `audio_dataset_from_directory` (directory_datasets.py: PyDatasets reading batch by
  batch; WAV through Python's `wave`).
- `is_keras_tensor`, `get_source_inputs`, `standardize_dtype`, `clear_session`
  (graph_utils.py); `Progbar`; `get_file` (file_utils.py: the cache only, paddle never
  downloads).
- `PyDataset`, the three batch functions and `Progbar` live with the training loop they
  serve (paddle/highlevel/training/data/ and progress.py); this namespace re-exports them.
- `register_keras_serializable`, `get_custom_objects`, `custom_object_scope`,
  `serialize_keras_object`, ...: the same functions as `pd.saving`'s (Keras has both).
- `plot_model` / `model_to_dot` (model_plot.py) need the `plot` extra (pydot) and
  Graphviz's `dot` program; `plot_history` (history_plot.py) needs matplotlib (also in the
  `plot` extra). Both import them only when called, so `import paddle` never needs them.

Example:
    >>> import paddle as pd
    >>> pd.utils.to_categorical([0, 2], num_classes=3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
"""
from paddle.highlevel.training.data.adapter_utils import (  # noqa: F401
    pack_x_y_sample_weight, split_dataset, unpack_x_y_sample_weight)
from paddle.highlevel.training.progress import Progbar  # noqa: F401
from paddle.highlevel.training.data.py_dataset import PyDataset, Sequence  # noqa: F401
from paddle.utils.file_utils import get_file  # noqa: F401
from paddle.highlevel.layers.feature_space import FeatureSpace  # noqa: F401
from paddle.utils.image_utils import (  # noqa: F401
    array_to_img, img_to_array, load_img, save_img)
from paddle.utils.directory_datasets import (  # noqa: F401
    audio_dataset_from_directory, image_dataset_from_directory, text_dataset_from_directory)
from paddle.utils.graph_utils import (  # noqa: F401
    clear_session, get_source_inputs, is_keras_tensor, standardize_dtype)
from paddle.utils.timeseries import timeseries_dataset_from_array  # noqa: F401
from paddle.utils.history_plot import plot_history  # noqa: F401
from paddle.utils.model_plot import model_to_dot, plot_model  # noqa: F401
from paddle.utils.numerical import normalize, to_categorical  # noqa: F401
from paddle.utils.seeding import set_random_seed  # noqa: F401
from paddle.utils.sequence import pad_sequences  # noqa: F401
# keras.utils has the serialization registry too (the same functions as pd.saving's).
from paddle.highlevel.saving.registry import (  # noqa: F401,E402
    CustomObjectScope, custom_object_scope, get_custom_objects, get_registered_name,
    get_registered_object, register_keras_serializable)
from paddle.highlevel.saving.serialization import (  # noqa: F401,E402
    deserialize_keras_object, serialize_keras_object)
from paddle.utils import legacy  # noqa: F401,E402  (Keras 2's object configs)
from paddle.utils.config import Config  # noqa: F401,E402
from paddle.utils import bounding_boxes  # noqa: F401,E402  (keras.utils.bounding_boxes)
from paddle._settings import (  # noqa: F401,E402  (keras.utils has them too)
    disable_interactive_logging, enable_interactive_logging, is_interactive_logging_enabled)
