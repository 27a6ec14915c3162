"""pd.utils image utilities and directory readers. The expected numbers were computed
with Keras 3.15 (JAX backend) on the same inputs: keras.utils.array_to_img, load_img
(keep_aspect_ratio, grayscale), keras.ops.image.resize (TensorFlow's half-pixel
bilinear)."""
import io
import os

import numpy as np
import pytest

pytest.importorskip("PIL")

import paddle as pd  # noqa: E402
from paddle.utils.image_utils import resize  # noqa: E402

U = pd.utils
X = (np.arange(4 * 6 * 3).reshape(4, 6, 3) % 7).astype("float32")


def _png(array, scale=True):
    buffer = io.BytesIO()
    U.save_img(buffer, array, file_format="png", scale=scale)
    buffer.seek(0)
    return buffer


def test_array_and_image_round_trips_as_keras():
    img = U.array_to_img(X)
    assert np.asarray(img)[0, :3].tolist() == [[0, 42, 85], [127, 170, 212], [255, 0, 42]]
    loaded = U.load_img(_png(X), target_size=(2, 2), keep_aspect_ratio=True,
                        interpolation="bilinear")
    assert U.img_to_array(loaded).tolist() == [
        [[121.0, 100.0, 143.0], [159.0, 121.0, 100.0]],
        [[96.0, 133.0, 160.0], [134.0, 96.0, 133.0]]]
    gray = U.img_to_array(U.load_img(_png(X), color_mode="grayscale"))
    assert gray.shape == (4, 6, 1) and gray[0, :3, 0].tolist() == [34.0, 162.0, 81.0]
    assert U.img_to_array(img, data_format="channels_first").shape == (3, 4, 6)
    assert pd.preprocessing.image.load_img is U.load_img


def test_resize_is_tensorflows():
    expected = [[2.45, 3.45, 4.45], [1.85, 2.85, 3.85], [3.0, 2.25, 3.25],
                [4.15, 1.65, 2.65], [3.55, 4.2, 2.05]]
    np.testing.assert_allclose(resize(X, (3, 5))[1], expected, rtol=1e-5)
    assert resize(X, (2, 3), "nearest").shape == (2, 3, 3)
    with pytest.raises(ValueError, match="'bilinear' or 'nearest'"):
        resize(X, (2, 2), "lanczos3")


def test_bad_images_are_named(tmp_path):
    broken = tmp_path / "broken.png"
    broken.write_bytes(_png(X).getvalue()[:60])
    with pytest.raises(ValueError, match="broken.png is not a readable image"):
        U.load_img(broken)
    (tmp_path / "text.jpg").write_text("not an image")
    with pytest.raises(ValueError, match="text.jpg is not a readable image"):
        U.load_img(tmp_path / "text.jpg")
    with pytest.raises(ValueError, match="color_mode"):
        U.load_img(_png(X), color_mode="cmyk")
    with pytest.raises(ValueError, match="rank 3"):
        U.array_to_img(np.zeros((2, 2)))


def test_decompression_bomb_guard(tmp_path, monkeypatch):
    from PIL import Image
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 10)
    with pytest.raises(ValueError, match="decompression-bomb"):
        U.load_img(_png(X))


def _image_tree(root, counts, size=(8, 10)):
    rng = np.random.default_rng(0)
    for label, n in counts.items():
        os.makedirs(root / label, exist_ok=True)
        for i in range(n):
            U.save_img(root / label / f"{i}.png",
                       rng.integers(0, 256, size + (3,)).astype(np.uint8), scale=False)


def test_image_dataset_from_directory_as_keras(tmp_path):
    _image_tree(tmp_path, {"cat": 3, "dog": 2})
    data = U.image_dataset_from_directory(tmp_path, image_size=(4, 5), batch_size=2,
                                          seed=7, verbose=False)
    assert data.class_names == ["cat", "dog"] and len(data) == 3
    # Keras's order: files sorted, then one RandomState(seed) shuffle
    files = [str(tmp_path / c / f"{i}.png") for c, n in (("cat", 3), ("dog", 2))
             for i in range(n)]
    np.random.RandomState(7).shuffle(files)
    assert data.file_paths == files
    x, y = data[0]
    assert x.shape == (2, 4, 5, 3) and x.dtype == np.float32 and y.dtype == np.int32
    first = U.img_to_array(U.load_img(files[0]))
    np.testing.assert_allclose(x[0], resize(first, (4, 5)), rtol=1e-6)
    assert y.tolist() == [0 if "/cat/" in f else 1 for f in files[:2]]
    cat = U.image_dataset_from_directory(tmp_path, image_size=(4, 4), label_mode="categorical",
                                         shuffle=False, verbose=False)
    assert cat[0][1].tolist() == [[1, 0], [1, 0], [1, 0], [0, 1], [0, 1]]
    binary = U.image_dataset_from_directory(tmp_path, image_size=4, label_mode="binary",
                                            shuffle=False, verbose=False)
    assert binary[0][1].shape == (5, 1) and binary[0][1].dtype == np.float32
    none = U.image_dataset_from_directory(tmp_path, labels=None, image_size=4, verbose=False)
    assert none[0].shape == (5, 4, 4, 3) and none.class_names is None
    gray = U.image_dataset_from_directory(tmp_path, image_size=(6, 6), color_mode="grayscale",
                                          crop_to_aspect_ratio=True, verbose=False)
    assert gray[0][0].shape == (5, 6, 6, 1)


def test_validation_split_and_both(tmp_path):
    _image_tree(tmp_path, {"a": 5, "b": 5})
    train, val = U.image_dataset_from_directory(tmp_path, image_size=4, validation_split=0.2,
                                                subset="both", seed=1, verbose=False)
    assert len(train.file_paths) == 8 and len(val.file_paths) == 2
    assert not set(train.file_paths) & set(val.file_paths)
    alone = U.image_dataset_from_directory(tmp_path, image_size=4, validation_split=0.2,
                                           subset="validation", seed=1, verbose=False)
    assert alone.file_paths == val.file_paths
    with pytest.raises(ValueError, match="give a seed"):
        U.image_dataset_from_directory(tmp_path, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="exactly 2 classes"):
        _image_tree(tmp_path, {"c": 1})
        U.image_dataset_from_directory(tmp_path, label_mode="binary", verbose=False)


def test_directory_errors_name_the_problem(tmp_path):
    with pytest.raises(ValueError, match="no class subdirectories"):
        U.image_dataset_from_directory(tmp_path, verbose=False)
    os.makedirs(tmp_path / "empty")
    with pytest.raises(ValueError, match="no image files found"):
        U.image_dataset_from_directory(tmp_path, verbose=False)
    (tmp_path / "empty" / "bad.png").write_bytes(b"\x89PNG broken")
    data = U.image_dataset_from_directory(tmp_path, verbose=False)
    with pytest.raises(ValueError, match="bad.png is not a readable image"):
        data[0]
    with pytest.raises(ValueError, match="class_names"):
        U.image_dataset_from_directory(tmp_path, class_names=["zebra"], verbose=False)


def test_links_are_not_followed_by_default(tmp_path):
    _image_tree(tmp_path / "outside", {"x": 2})
    os.makedirs(tmp_path / "root" / "a")
    U.save_img(tmp_path / "root" / "a" / "own.png", np.zeros((4, 4, 3)))
    os.symlink(tmp_path / "outside" / "x", tmp_path / "root" / "a" / "linked")
    plain = U.image_dataset_from_directory(tmp_path / "root", verbose=False)
    followed = U.image_dataset_from_directory(tmp_path / "root", follow_links=True,
                                              verbose=False)
    assert len(plain.file_paths) == 1 and len(followed.file_paths) == 3


def test_fit_streams_batches_from_the_folder(tmp_path):
    _image_tree(tmp_path, {"a": 4, "b": 4})
    data = U.image_dataset_from_directory(tmp_path, image_size=(8, 8), batch_size=3, seed=0,
                                          verbose=False)
    read = []
    load = data._load
    data._load = lambda paths: read.append(len(paths)) or load(paths)
    model = pd.Sequential([pd.Input(shape=(8, 8, 3)), pd.layers.Rescaling(1 / 255),
                           pd.layers.Flatten(), pd.layers.Dense(2)])
    model.compile("adam", pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(data, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    assert read == [3, 3, 2] * 2  # one batch of files at a time, every epoch


def test_text_dataset_from_directory(tmp_path):
    for label, texts in (("neg", ["bad film", "awful"]), ("pos", ["great", "good film"])):
        os.makedirs(tmp_path / label)
        for i, text in enumerate(texts):
            (tmp_path / label / f"{i}.txt").write_text(text, encoding="utf-8")
    (tmp_path / "pos" / "skip.md").write_text("not a .txt file")
    data = U.text_dataset_from_directory(tmp_path, batch_size=4, shuffle=False, verbose=False)
    x, y = data[0]
    assert x.tolist() == ["bad film", "awful", "great", "good film"] and y.tolist() == [0, 0, 1, 1]
    cut = U.text_dataset_from_directory(tmp_path, max_length=3, shuffle=False, verbose=False)
    assert cut[0][0].tolist() == ["bad", "awf", "gre", "goo"]
    vectorize = pd.layers.TextVectorization(output_sequence_length=3)
    vectorize.adapt(data)
    inp = pd.Input(shape=(), dtype="string")
    model = pd.Model(inp, pd.layers.Dense(1)(pd.layers.Flatten()(
        pd.layers.Embedding(10, 2)(vectorize(inp)))))
    model.compile("adam", "mse")
    model.fit(data, epochs=1, verbose=0)
    (tmp_path / "neg" / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    broken = U.text_dataset_from_directory(tmp_path, shuffle=False, verbose=False)
    with pytest.raises(ValueError, match="latin1.txt is not UTF-8 text"):
        broken[0]


def _wav(path, samples, channels=1, rate=8000, width=2):
    import wave
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        w.writeframes(np.asarray(samples, "<i2").tobytes() if width == 2 else
                      bytes(len(samples)))


def test_audio_dataset_from_directory(tmp_path):
    os.makedirs(tmp_path / "yes")
    os.makedirs(tmp_path / "no")
    _wav(tmp_path / "yes" / "a.wav", [16384, -16384, 0])
    _wav(tmp_path / "no" / "b.wav", [32767])
    data = U.audio_dataset_from_directory(tmp_path, shuffle=False, verbose=False)
    x, y = data[0]
    # tf.audio.decode_wav: int16 / 32768; a batch is zero-padded to its longest file
    assert x.shape == (2, 3, 1) and x.dtype == np.float32 and y.tolist() == [0, 1]
    assert x[:, :, 0].tolist() == [[32767 / 32768, 0.0, 0.0], [0.5, -0.5, 0.0]]
    cut = U.audio_dataset_from_directory(tmp_path, output_sequence_length=2, shuffle=False,
                                         verbose=False)
    assert cut[0][0].shape == (2, 2, 1)
    with pytest.raises(ValueError, match="not sampling_rate=16000"):
        U.audio_dataset_from_directory(tmp_path, sampling_rate=16000, verbose=False)[0]
    _wav(tmp_path / "no" / "c.wav", [1, 2], width=1)
    with pytest.raises(ValueError, match="c.wav holds 8-bit samples"):
        U.audio_dataset_from_directory(tmp_path, shuffle=False, verbose=False)[0]
    (tmp_path / "no" / "c.wav").write_bytes(b"RIFF0000WAVEjunk")
    with pytest.raises(ValueError, match="c.wav is not a readable PCM WAV"):
        U.audio_dataset_from_directory(tmp_path, shuffle=False, verbose=False)[0]
