"""The 3-D reshaping and global pooling layers (ZeroPadding3D, UpSampling3D, Cropping3D,
GlobalAveragePooling3D, GlobalMaxPooling3D): shapes, names, configs and values as Keras 3.15
gives them on the same data (sum and a position-weighted checksum, written here)."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients

X = np.random.default_rng(0).normal(size=(2, 3, 4, 5, 2)).astype("float32")
L = pd.layers


@pytest.mark.parametrize("make, shape, total, checksum, name", [
    (lambda: L.ZeroPadding3D((1, 0, 2)), (2, 5, 4, 9, 2), -5.381924629211426,
     827.9986025057733, "zero_padding3d"),
    (lambda: L.UpSampling3D((2, 1, 3)), (2, 6, 4, 15, 2), -32.29154586791992,
     5013.477809483185, "up_sampling3d"),
    (lambda: L.Cropping3D(((1, 1), (0, 1), (2, 0))), (2, 1, 3, 3, 2), 7.921082496643066,
     127.8914522305131, "cropping3d"),
    (lambda: L.GlobalAveragePooling3D(), (2, 2), -0.08969873189926147, 6.6876207031309605,
     "global_average_pooling3d"),
    (lambda: L.GlobalMaxPooling3D(keepdims=True), (2, 1, 1, 1, 2), 8.706916809082031,
     7.833454608917236, "global_max_pooling3d"),
    (lambda: L.UpSampling3D(2, data_format="channels_first"), (2, 3, 8, 10, 4),
     -43.05540466308594, 6711.8027301784605, "up_sampling3d"),
])
def test_values_are_kerass(make, shape, total, checksum, name):
    pd.backend.clear_session()
    layer = make()
    y = np.asarray(layer(X))
    assert layer.name == name and y.shape == shape
    assert float(y.sum()) == pytest.approx(total, rel=1e-5)
    assert float((y * np.arange(y.size).reshape(y.shape) % 7).sum()) == pytest.approx(
        checksum, rel=1e-5)
    assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
    assert layer(pd.Input(shape=X.shape[1:])).shape == (None,) + shape[1:]


def test_aliases_and_gradients():
    assert L.GlobalAvgPool3D is L.GlobalAveragePooling3D
    assert L.GlobalMaxPool3D is L.GlobalMaxPooling3D
    small = X[:1, :2, :2, :2].astype(np.float64)
    for make in (lambda: L.UpSampling3D(2, dtype="float64"),
                 lambda: L.ZeroPadding3D(1, dtype="float64"),
                 lambda: L.GlobalMaxPooling3D(dtype="float64")):
        layer = make()
        check_gradients(lambda x: layer(x), [small])


def test_bad_input_says_what_was_expected():
    with pytest.raises(ValueError, match="expected size as an int or 3 ints"):
        L.UpSampling3D((2, 2))
    with pytest.raises(pd.ShapeError, match="leaves nothing"):
        L.Cropping3D(((2, 2), (0, 0), (0, 0)))(pd.Input(shape=(3, 4, 5, 2)))
    with pytest.raises(pd.ShapeError, match="rank 5"):
        L.GlobalAveragePooling3D()(pd.Input(shape=(3, 4, 2)))
