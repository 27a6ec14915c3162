"""to_arrays and iter_batches: from samples to the arrays fit consumes, and the creators."""
import numpy as np
import pytest

from paddle import reader
from paddle.errors import ShapeError


# to_arrays

def test_pairs_become_features_and_int64_labels():
    x, y = reader.to_arrays([([1.0, 2.0], 3), ([4.0, 5.0], 6)])
    assert x.dtype == np.float32 and x.shape == (2, 2)
    assert y.dtype == np.int64 and y.tolist() == [3, 6]


def test_numpy_dtypes_of_features_are_kept():
    x, = reader.to_arrays([(np.zeros(3, np.float64),), (np.ones(3, np.float64),)])
    assert x.dtype == np.float64
    ids, y = reader.to_arrays([(np.arange(4, dtype=np.int32), np.int32(1))] * 3)
    assert ids.dtype == np.int32 and ids.shape == (3, 4)
    assert y.dtype == np.int64
    pixels, = reader.to_arrays([np.zeros((2, 2), np.uint8)] * 2)
    assert pixels.dtype == np.uint8 and pixels.shape == (2, 2, 2)


def test_python_numbers_and_bools_become_float32_features():
    x, = reader.to_arrays([[1, 2], [3, 4]])  # lists are single-field samples
    assert x.dtype == np.float32 and x.shape == (2, 2)
    flags, y = reader.to_arrays([(np.array([True]), 0.5), (np.array([False]), 1.5)])
    assert flags.dtype == np.float32
    assert y.dtype == np.float32 and y.tolist() == [0.5, 1.5]


def test_float_labels_keep_their_numpy_dtype():
    _, y = reader.to_arrays([(np.zeros(2), np.array([1.5], np.float32))] * 2)
    assert y.dtype == np.float32 and y.shape == (2, 1)
    _, y64 = reader.to_arrays([(np.zeros(2), np.float64(2.5))] * 2)
    assert y64.dtype == np.float64


def test_n_tuples():
    a, b, c = reader.to_arrays([(np.zeros(2, np.float32), np.ones(3, np.float32), 1)] * 4)
    assert (a.shape, b.shape, c.shape) == ((4, 2), (4, 3), (4,))
    assert c.dtype == np.int64


def test_inconsistent_shapes_name_field_shapes_and_sample():
    samples = [(np.zeros(4), 0), (np.zeros(4), 1), (np.zeros(5), 2)]
    with pytest.raises(ShapeError, match=r"field 0 of sample 2 has shape \(5,\), expected \(4,\) as in sample 0"):
        reader.to_arrays(samples)


def test_inconsistent_field_counts():
    with pytest.raises(ShapeError, match="sample 1 has 3 fields, expected 2"):
        reader.to_arrays([(1, 2), (1, 2, 3)])


def test_ragged_nested_lists():
    with pytest.raises(ShapeError, match="field 0 of sample 1 is not a regular array"):
        reader.to_arrays([([1, 2], 0), ([[1], [2, 3]], 0)])


def test_non_numeric_field():
    with pytest.raises(TypeError, match="field 1 holds"):
        reader.to_arrays([(np.zeros(2), "cat"), (np.zeros(2), "dog")])


def test_empty_batch():
    with pytest.raises(ValueError, match="empty"):
        reader.to_arrays([])


# iter_batches

def batched_pairs(n, size):
    samples = lambda: ((np.full(3, i, np.float32), i % 2) for i in range(n))  # noqa: E731
    return reader.batch(samples, size)


def test_reader_creator_of_sample_lists():
    batches = list(reader.iter_batches(batched_pairs(5, 2)))
    assert [x.shape for x, _ in batches] == [(2, 3), (2, 3), (1, 3)]
    assert all(y.dtype == np.int64 for _, y in batches)
    assert batches[2][0][0, 0] == 4


def test_reader_creator_is_called_afresh_per_pass():
    data = batched_pairs(4, 2)
    assert len(list(reader.iter_batches(data))) == len(list(reader.iter_batches(data))) == 2


def test_iterable_of_ready_batches():
    ready = [(np.zeros((4, 2)), np.arange(4)), (np.ones((2, 2)), np.arange(2))]
    out = list(reader.iter_batches(ready))
    assert [tuple(a.shape for a in b) for b in out] == [((4, 2), (4,)), ((2, 2), (2,))]
    gen = ((np.zeros((3, 1)), [0, 1, 2]) for _ in range(2))
    out = list(reader.iter_batches(gen))
    assert len(out) == 2 and isinstance(out[0][1], np.ndarray)


def test_reader_creator_of_ready_batches_and_bare_arrays():
    data = lambda: iter([np.zeros((2, 5)), (np.zeros((3, 5)),)])  # noqa: E731
    assert [b[0].shape for b in reader.iter_batches(data)] == [(2, 5), (3, 5)]


def test_unbatched_reader_gets_a_hint():
    single = lambda: ((np.zeros(3), 1) for _ in range(4))  # noqa: E731
    with pytest.raises(ShapeError, match=r"batch 0 .*needs reader.batch"):
        next(reader.iter_batches(single))


def test_mismatched_ready_batch():
    with pytest.raises(ShapeError, match=r"batch 1 has arrays of shapes \(2, 3\), \(3,\)"):
        list(reader.iter_batches([(np.zeros((2, 3)), np.zeros(2)), (np.zeros((2, 3)), np.zeros(3))]))


def test_bad_samples_in_a_batched_reader_raise_on_that_batch():
    samples = lambda: iter([(np.zeros(2), 0), (np.zeros(2), 1), (np.zeros(3), 2)])  # noqa: E731
    with pytest.raises(ShapeError, match=r"field 0 of sample 2 has shape \(3,\), expected \(2,\)"):
        list(reader.iter_batches(reader.batch(samples, 3)))


@pytest.mark.parametrize("data", [42, "train.txt", np.zeros((3, 2)), {"x": 1}])
def test_iter_batches_rejects_non_sources(data):
    with pytest.raises(TypeError, match="expected a reader creator or an iterable"):
        reader.iter_batches(data)


def test_iter_batches_rejects_other_batch_kinds():
    with pytest.raises(TypeError, match="batch 0 is a dict"):
        next(reader.iter_batches([{"x": np.zeros(2)}]))
    with pytest.raises(ValueError, match="batch 0 is an empty list"):
        next(reader.iter_batches([[]]))


def test_iter_batches_closes_the_source_on_early_stop():
    closed = []

    def source():
        try:
            while True:
                yield [(np.zeros(2), 0)]
        finally:
            closed.append(True)

    it = reader.iter_batches(source)
    next(it)
    it.close()
    assert closed == [True]


# creators

def test_np_array_yields_rows():
    rows = list(reader.creator.np_array(np.arange(6).reshape(3, 2))())
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    assert list(reader.creator.np_array([1, 2])()) == [1, 2]
    with pytest.raises(ValueError, match="scalar"):
        reader.creator.np_array(3.0)


def test_text_file_yields_lines_without_endings(tmp_path):
    path = tmp_path / "data.txt"
    path.write_bytes(b"a b\r\nc\n\nlast")
    lines = reader.creator.text_file(path)
    assert list(lines()) == ["a b", "c", "", "last"]
    assert list(lines()) == ["a b", "c", "", "last"]


def test_text_file_missing_raises_on_iteration(tmp_path):
    lines = reader.creator.text_file(tmp_path / "nope.txt")
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        list(lines())
