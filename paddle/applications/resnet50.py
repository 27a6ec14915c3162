"""`keras.applications.resnet50`: ResNet50 and its preprocessing (see `resnet`)."""
from paddle.applications.resnet import (  # noqa: F401
    ResNet50, decode_predictions, preprocess_input)
