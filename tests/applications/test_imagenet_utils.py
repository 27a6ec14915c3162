"""pd.applications.imagenet_utils against Keras 3.15.1's: preprocess_input's numbers in its
three modes and two layouts (NumPy arrays and symbolic Variables), its in-place writes, and
decode_predictions reading Keras's cached class index."""
import hashlib
import json

import numpy as np
import pytest

import paddle as pd

iu = pd.applications.imagenet_utils
X = np.arange(24, dtype="float32").reshape(1, 2, 4, 3) * 10

# Keras 3.15.1: imagenet_utils.preprocess_input(X.copy(), mode=mode)[0, 1, 2] and, for
# X.reshape(1, 3, 2, 4) with data_format="channels_first", [0, :, 1, 2].
KERAS = {
    ("caffe", "channels_last"): [96.06099700927734, 73.22100067138672, 56.31999969482422],
    ("caffe", "channels_first"): [116.06099700927734, 23.22100067138672, -63.68000030517578],
    ("tf", "channels_last"): [0.4117647409439087, 0.4901961088180542, 0.5686274766921997],
    ("tf", "channels_first"): [-0.529411792755127, 0.09803926944732666, 0.7254902124404907],
    ("torch", "channels_last"): [0.9645517468452454, 1.2906162738800049, 1.6813944578170776],
    ("torch", "channels_first"): [-1.0904186964035034, 0.415266215801239, 2.0299782752990723],
}


def pick(y, data_format):
    return y[0, 1, 2] if data_format == "channels_last" else y[0, :, 1, 2]


@pytest.mark.parametrize("mode, data_format", sorted(KERAS))
def test_preprocess_input_numpy_as_keras(mode, data_format):
    x = X.copy() if data_format == "channels_last" else X.reshape(1, 3, 2, 4).copy()
    y = iu.preprocess_input(x, data_format=data_format, mode=mode)
    np.testing.assert_allclose(pick(y, data_format), KERAS[mode, data_format], rtol=1e-6)


@pytest.mark.parametrize("mode, data_format", sorted(KERAS))
def test_preprocess_input_variable_as_keras(mode, data_format):
    x = X if data_format == "channels_last" else X.reshape(1, 3, 2, 4)
    images = pd.Input(shape=x.shape[1:])
    model = pd.Model(images, iu.preprocess_input(images, data_format=data_format, mode=mode))
    y = model.predict(x, verbose=0)
    np.testing.assert_allclose(pick(y, data_format), KERAS[mode, data_format], rtol=1e-5)


def test_preprocess_input_writes_over_floats_as_keras():
    x = X.copy()
    y = pd.applications.vgg16.preprocess_input(x)
    # Keras: the result is a BGR view of x, whose own pixels now hold the BGR values in RGB
    # order (x[0, 1, 2] == [56.32, 73.221, 96.061])
    assert np.shares_memory(x, y)
    np.testing.assert_allclose(x[0, 1, 2], KERAS["caffe", "channels_last"][::-1], rtol=1e-6)
    integers = (np.arange(24).reshape(2, 4, 3) * 10).astype("uint8")
    y = pd.applications.resnet50.preprocess_input(integers)
    assert y.dtype == np.float32 and integers[1, 2].tolist() == [180, 190, 200]
    np.testing.assert_allclose(y[1, 2], KERAS["caffe", "channels_last"], rtol=1e-6)
    assert pd.applications.mobilenet_v2.preprocess_input(X.astype("float64")).dtype == \
        np.float64  # Keras keeps a floating dtype


@pytest.mark.parametrize("call, error, message", [
    (lambda: iu.preprocess_input(X.copy(), mode="caffe2"), ValueError, "mode 'caffe'"),
    (lambda: iu.preprocess_input(X.copy(), data_format="NHWC"), ValueError, "data_format"),
    (lambda: iu.preprocess_input(np.zeros((1, 4, 4, 2))), ValueError, "3 colour channels"),
    (lambda: iu.preprocess_input(np.zeros((4, 3))), ValueError, "3D"),
    (lambda: iu.preprocess_input([[1, 2, 3]]), TypeError, "NumPy array or a Variable"),
    (lambda: iu.decode_predictions(np.zeros((2, 10))), ValueError, r"\(samples, 1000\)"),
    (lambda: iu.decode_predictions(np.zeros((2, 1000)), top=0), ValueError, "positive"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()


def write_class_index(folder):
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    path = folder / "models" / "imagenet_class_index.json"
    path.parent.mkdir(parents=True, exist_ok=True)  # a failed download may have made it
    path.write_text(json.dumps(index))
    return hashlib.md5(path.read_bytes()).hexdigest()


def test_decode_predictions_reads_keras_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr(iu, "_class_index", None)
    # A stand-in class index (the real one is ImageNet's, which Keras downloads): its own
    # md5 takes the place of Keras's, which would refuse it.
    monkeypatch.setattr(iu, "CLASS_INDEX_HASH", write_class_index(tmp_path))
    preds = np.zeros((2, 1000), "float32")
    preds[0, [7, 3, 999]] = [0.5, 0.3, 0.2]
    preds[1, 42] = 1.0
    decoded = pd.applications.vgg19.decode_predictions(preds, top=3)
    assert [(name, description) for name, description, _ in decoded[0]] == [
        ("n00000007", "class_7"), ("n00000003", "class_3"), ("n00000999", "class_999")]
    assert [score for _, _, score in decoded[0]] == pytest.approx([0.5, 0.3, 0.2])
    assert decoded[1][0] == ("n00000042", "class_42", pytest.approx(1.0)) and len(decoded[1]) == 3


def test_decode_predictions_without_the_class_index(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))
    monkeypatch.setattr(iu, "_class_index", None)
    # Not in the cache, and (offline: conftest.py) not downloadable
    with pytest.raises(pd.CheckpointError, match="imagenet_class_index.json, which could not "
                       "be downloaded"):
        iu.decode_predictions(np.zeros((1, 1000)))
    write_class_index(tmp_path)  # a file Keras would not accept: its md5 differs
    with pytest.raises(pd.CheckpointError, match="md5 is .* expected "
                       "c2c37ea517e94d9795004a39431a14cb"):
        iu.decode_predictions(np.zeros((1, 1000)))
