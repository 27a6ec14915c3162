"""`pd.models`: Keras 3's `keras.models` (models, loading, cloning, JSON).

Example:
    >>> import paddle as pd
    >>> model = pd.models.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
    >>> pd.models.clone_model(model).outputs[0].shape
    (None, 1)
"""
from paddle.highlevel.models.model import Model  # noqa: F401
from paddle.highlevel.models.sequential import Sequential  # noqa: F401
from paddle.highlevel.saving.api import load_model, model_from_json  # noqa: F401
from paddle.highlevel.saving.cloning import clone_model  # noqa: F401
from paddle.saving import save_model  # noqa: F401
