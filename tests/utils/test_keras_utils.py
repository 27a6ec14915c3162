"""pd.utils' Keras helpers: timeseries_dataset_from_array, pack/unpack_x_y_sample_weight,
split_dataset, is_keras_tensor, get_source_inputs, standardize_dtype, clear_session,
Progbar, get_file.

Keras 3.15.1's timeseries_dataset_from_array and split_dataset need TensorFlow (or grain),
which the comparison environment lacks: their expectations come from Keras's documented
examples and from its source (start positions `arange(0, n, stride)`, shuffled by
`np.random.RandomState(seed)`; split_dataset's `random.seed(seed); random.shuffle`)."""
import hashlib
import os
import random

import numpy as np
import pytest

import paddle as pd

U = pd.utils


# ---- timeseries_dataset_from_array ------------------------------------------------------

def test_windows_of_keras_example_1():
    # Keras's docstring: indices [0 .. 98], sequence_length=10, sampling_rate=2,
    # sequence_stride=3: [0 2 .. 18], [3 5 .. 21], [6 8 .. 24], ..., last [78 80 .. 96].
    ds = U.timeseries_dataset_from_array(np.arange(99), None, sequence_length=10,
                                         sampling_rate=2, sequence_stride=3, batch_size=5)
    windows = np.concatenate(list(ds))
    assert windows[0].tolist() == list(range(0, 20, 2))
    assert windows[1].tolist() == list(range(3, 23, 2))
    assert windows[2].tolist() == list(range(6, 26, 2))
    assert windows[-1].tolist() == list(range(78, 98, 2))
    assert len(windows) == 27 and len(ds) == 6 and ds[5].shape == (2, 10)


def test_targets_align_with_each_windows_first_step_as_keras_example_2():
    data = np.arange(50, dtype=np.float32) * 0.5
    ds = U.timeseries_dataset_from_array(data[:-10], data[10:], sequence_length=10,
                                         batch_size=16)
    x, y = ds[0]
    np.testing.assert_array_equal(x[0], data[:10])
    assert y[0] == data[10]
    xs, ys = zip(*ds)
    assert sum(len(b) for b in xs) == 31  # 40 - 9 windows
    np.testing.assert_array_equal(np.concatenate(ys), data[10:41])


def test_keras_example_3_many_to_many():
    X = np.arange(100)
    Y = X * 2
    inputs = U.timeseries_dataset_from_array(X, None, sequence_length=20, sequence_stride=20)
    targets = U.timeseries_dataset_from_array(Y, None, sequence_length=20, sequence_stride=20)
    first_x, first_y = next(zip(inputs, targets))
    np.testing.assert_array_equal(first_x[0], X[:20])
    np.testing.assert_array_equal(first_y[1], Y[20:40])


def test_start_end_index_shuffle_and_unbatched():
    data = np.arange(30).reshape(30, 1) * np.ones((1, 2))
    ds = U.timeseries_dataset_from_array(data, np.arange(30), sequence_length=4,
                                         start_index=5, end_index=20, batch_size=4)
    x, y = ds[0]
    assert x.shape == (4, 4, 2) and x[0, :, 0].tolist() == [5, 6, 7, 8]
    assert y.tolist() == [5, 6, 7, 8]  # targets are sliced from start_index too
    assert ds.start_positions.tolist() == list(range(12))  # 15 - 3 windows
    shuffled = U.timeseries_dataset_from_array(data, None, sequence_length=4, shuffle=True,
                                               seed=7, batch_size=None)
    expected = np.arange(27)
    np.random.RandomState(7).shuffle(expected)
    assert shuffled.start_positions.tolist() == expected.tolist()
    assert shuffled[0].shape == (4, 2) and shuffled[0][0, 0] == expected[0]


def test_fit_reads_a_timeseries_dataset():
    series = np.sin(np.arange(200) / 5).astype(np.float32)
    ds = U.timeseries_dataset_from_array(series[:-5, None], series[5:], sequence_length=5,
                                         batch_size=32)
    model = pd.Sequential([pd.Input(shape=(5, 1)), pd.layers.Flatten(), pd.layers.Dense(1)])
    model.compile(pd.optimizers.Adam(0.05), "mse")
    history = model.fit(ds, epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert model.predict(ds).shape == (191, 1)


@pytest.mark.parametrize("kwargs, message", [
    ({"sequence_length": 0}, "expected sequence_length to be an integer >= 1"),
    ({"sampling_rate": 0}, "expected sampling_rate to be an integer >= 1"),
    ({"sampling_rate": 10}, "`sampling_rate` must be lower than the length of the data"),
    ({"sequence_stride": 10}, "`sequence_stride` must be lower than the length"),
    ({"start_index": 10}, "`start_index` must be lower than the length of the data"),
    ({"start_index": -1}, "expected start_index to be an integer >= 0"),
    ({"start_index": 5, "end_index": 4}, "`end_index` must be higher than `start_index`"),
    ({"end_index": 10}, "`end_index` must be lower than the length of the data"),
    ({"batch_size": 0}, "expected batch_size to be an integer >= 1"),
    ({"format": "torch"}, '`format` should be either "tf" or "grain"'),
])
def test_timeseries_bad_arguments(kwargs, message):
    args = dict(data=np.arange(10), targets=None, sequence_length=2)
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        U.timeseries_dataset_from_array(**args)


def test_timeseries_batch_index_is_checked():
    ds = U.timeseries_dataset_from_array(np.arange(10), None, sequence_length=2, batch_size=4)
    with pytest.raises(IndexError, match="batch index 3 outside \\[0, 3\\)"):
        ds[3]


# ---- pack / unpack ----------------------------------------------------------------------

def test_pack_and_unpack_as_keras():
    # Keras 3.15.1: pack(1) -> 1, pack([1, 2]) -> ([1, 2],), unpack([1, 2]) -> (1, 2, None)
    assert U.pack_x_y_sample_weight(1) == 1
    assert U.pack_x_y_sample_weight([1, 2]) == ([1, 2],)
    assert U.pack_x_y_sample_weight(1, 2) == (1, 2)
    assert U.pack_x_y_sample_weight(1, 2, 3) == (1, 2, 3)
    assert U.unpack_x_y_sample_weight([1, 2]) == (1, 2, None)
    assert U.unpack_x_y_sample_weight((1,)) == (1, None, None)
    assert U.unpack_x_y_sample_weight(5) == (5, None, None)
    assert U.unpack_x_y_sample_weight((1, 2, 3)) == (1, 2, 3)
    with pytest.raises(ValueError, match="Data is expected to be in format `x`, `\\(x,\\)`"):
        U.unpack_x_y_sample_weight((1, 2, 3, 4))


# ---- split_dataset ----------------------------------------------------------------------

def test_split_dataset_sizes_and_shuffle_as_keras():
    x, y = np.arange(20).reshape(10, 2), np.arange(10)
    (xl, yl), (xr, yr) = U.split_dataset((x, y), left_size=0.75)  # round(7.5) = 8
    assert yl.tolist() == list(range(8)) and yr.tolist() == [8, 9]
    left, right = U.split_dataset(np.arange(10), left_size=3, right_size=4)
    assert left.tolist() == [0, 1, 2] and right.tolist() == [6, 7, 8, 9]
    order = list(range(10))
    random.seed(3)
    random.shuffle(order)  # what Keras does to the list of samples
    left, right = U.split_dataset(np.arange(10), right_size=0.3, shuffle=True, seed=3)
    assert left.tolist() == order[:7] and right.tolist() == order[7:]


@pytest.mark.parametrize("kwargs, error, message", [
    ({}, ValueError, "At least one of the `left_size` or `right_size`"),
    ({"left_size": "half"}, TypeError, "expected left_size to be an int, a float or None"),
    ({"left_size": 10}, ValueError, "expected left_size to be a positive integer smaller"),
    ({"right_size": 1.5}, ValueError, "expected right_size to be a positive integer"),
    ({"left_size": 0.6, "right_size": 0.6}, ValueError, "greater than 1"),
    ({"left_size": 6, "right_size": 6}, ValueError, "is more than the 10 samples"),
    ({"left_size": 0.01}, ValueError, "leave the left side empty"),
])
def test_split_dataset_bad_sizes(kwargs, error, message):
    with pytest.raises(error, match=message):
        U.split_dataset(np.arange(10), **kwargs)


def test_split_dataset_bad_datasets():
    with pytest.raises(ValueError, match="the same number of samples"):
        U.split_dataset((np.zeros(3), np.zeros(4)), left_size=1)
    with pytest.raises(TypeError, match="expected an array or a tuple/list of arrays"):
        U.split_dataset({"x": np.zeros(3)}, left_size=1)


# ---- symbolic tensors, dtypes, session --------------------------------------------------

def test_is_keras_tensor_and_get_source_inputs():
    a, b = pd.Input(shape=(2,)), pd.Input(shape=(3,))
    out = pd.layers.Concatenate()([pd.layers.Dense(2)(a), b])
    assert U.get_source_inputs(out) == [a, b]
    assert U.get_source_inputs(a) == [a]
    assert U.is_keras_tensor(out) and U.is_keras_tensor(a)
    assert not U.is_keras_tensor(pd.constant(np.ones(2, np.float32)) * 2.0)
    assert not U.is_keras_tensor(pd.Variable("keras_utils_w", shape=[2]))
    assert not U.is_keras_tensor(np.ones(2))
    with pytest.raises(TypeError, match="get_source_inputs: expected a Variable"):
        U.get_source_inputs(np.ones(2))


def test_standardize_dtype_as_keras():
    # Keras 3.15.1's answers for each of these.
    cases = [(None, "float32"), ("int", "int32"), (float, "float32"), (int, "int32"),
             (bool, "bool"), ("float64", "float64"), ("bfloat16", "bfloat16"),
             ("uint8", "uint8"), (np.float16, "float16"), (np.dtype("int32"), "int32"),
             (str, "string")]
    for given, expected in cases:
        assert U.standardize_dtype(given) == expected, given
    for bad in ("float", "foo", 3):
        with pytest.raises(ValueError, match="Invalid dtype"):
            U.standardize_dtype(bad)


def test_clear_session_restarts_layer_names():
    keep = [pd.layers.Dense(2) for _ in range(3)]
    assert pd.layers.Dense(2).name != "dense"
    U.clear_session()
    assert pd.layers.Dense(2).name == "dense"
    assert keep[0].name.startswith("dense")  # live layers keep their names
    with pd.namespace("inside"):
        with pytest.raises(RuntimeError, match="called inside pd.namespace"):
            U.clear_session(free_memory=False)


# ---- Progbar ----------------------------------------------------------------------------

def test_progbar_averages_as_keras(capsys):
    bar = U.Progbar(target=10, verbose=0, stateful_metrics=["acc"])
    bar.update(2, values=[("loss", 4.0), ("acc", 0.5)])  # covers 2 steps
    bar.update(3, values=[("loss", 1.0), ("acc", 0.7)])  # 1 step
    assert bar.average("loss") == pytest.approx((4.0 * 2 + 1.0) / 3)
    assert bar.average("acc") == 0.7
    bar.add(7, values=[("loss", 9.0)])  # reaches the target: the value is shown as given
    assert bar.average("loss") == 9.0
    assert capsys.readouterr().out == ""


def test_progbar_lines(capsys):
    bar = U.Progbar(target=4, verbose=2)
    for step in range(4):
        bar.update(step + 1, values=[("loss", 0.5)])
    out = capsys.readouterr().out
    assert out.startswith("4/4 - ") and out.endswith(" - loss: 0.5000\n")
    assert out.count("\n") == 1
    bar = U.Progbar(target=None, verbose=1, interval=0)
    bar.update(3, values=[("loss", 1e-5)])
    assert "      3/Unknown" in capsys.readouterr().out
    bar.update(4, values=[("loss", 1e-5)], finalize=True)
    assert "loss: 1.0000e-05\n" in capsys.readouterr().out


@pytest.mark.parametrize("kwargs, message", [
    ({"stateful_metrics": ["a"], "stateless_metrics": ["b"]}, "Only one of"),
    ({"verbose": 3}, "expected verbose to be 0, 1 or 2"),
    ({"width": 0}, "expected width to be an integer >= 1"),
    ({"target": -1}, "expected target to be an integer >= 0 or None"),
])
def test_progbar_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        U.Progbar(**{"target": 3, **kwargs})


# ---- get_file ---------------------------------------------------------------------------

def test_get_file_local_origins_and_the_cache(tmp_path):
    src = tmp_path / "data.txt"
    src.write_bytes(b"abc")
    sha = hashlib.sha256(b"abc").hexdigest()
    md5 = hashlib.md5(b"abc").hexdigest()
    cache = str(tmp_path / "cache")
    path = U.get_file("copy.txt", origin=src.as_uri(), cache_dir=cache, file_hash=sha)
    assert path == os.path.join(cache, "datasets", "copy.txt")
    with open(path) as f:
        assert f.read() == "abc"
    # Cached: a remote origin is fine, nothing is downloaded.
    assert U.get_file("copy.txt", origin="https://example.com/x", cache_dir=cache,
                      md5_hash=md5) == path
    assert U.get_file(origin=str(src), cache_dir=cache, cache_subdir="raw").endswith(
        os.path.join("raw", "data.txt"))


def test_get_file_refuses_what_it_cannot_do(tmp_path):
    cache = str(tmp_path)
    with pytest.raises(ValueError, match="is not in the cache and paddle does not download"):
        U.get_file(origin="https://example.com/data.csv", cache_dir=cache)
    with pytest.raises(ValueError, match="paddle does not extract archives"):
        U.get_file(origin="https://example.com/a.tar.gz", extract=True, cache_dir=cache)
    with pytest.raises(ValueError, match='specify the "origin"'):
        U.get_file("x")
    with pytest.raises(ValueError, match="paths are not accepted as fname"):
        U.get_file(os.path.join("a", "b"), origin="https://example.com/b")
    src = tmp_path / "f.bin"
    src.write_bytes(b"xyz")
    with pytest.raises(ValueError, match="does not match the md5 hash"):
        U.get_file(origin=str(src), cache_dir=cache, md5_hash="0" * 32)
    cached = U.get_file(origin=str(src), cache_dir=cache)
    with pytest.raises(ValueError, match="does not match the sha256 hash"):
        U.get_file(fname="f.bin", origin="https://example.com/f.bin", cache_dir=cache,
                   file_hash="0" * 64)
    assert os.path.exists(cached)
