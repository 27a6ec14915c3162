"""int8 and uint8, the storage dtypes of quantized weights: parameters and data hold them,
`cast` converts them to and from every dtype on each device, and every other op refuses
them where it is built (nothing of them reaches another kernel)."""
import numpy as np
import pytest

import paddle as pd
from paddle.lowlevel.ops.math import cast

Q = np.array([[1, -2, 127], [-127, 0, 5]], np.int8)


@pytest.mark.parametrize("storage", ["int8", "uint8"])
@pytest.mark.parametrize("target", ["float32", "float64", "int32", "int64", "bool"])
def test_cast_to_and_from_storage_dtypes(storage, target):
    values = Q.astype(storage)  # uint8: NumPy's wrap of the negatives, as the kernel reads it
    x = pd.data(f"storage_{storage}_{target}", shape=[None, 3], dtype=storage)
    out = pd.eval(cast(x, target), {x: values})
    assert out.dtype == np.dtype(target)
    np.testing.assert_array_equal(out, values.astype(target))
    back = pd.eval(cast(cast(x, target), storage), {x: values})
    assert back.dtype == np.dtype(storage)
    assert back.tolist() == values.astype(target).astype(storage).tolist()


def test_float_to_int8_truncates_and_wraps_as_numpy():
    x = np.array([1.7, -1.7, 127.0, -127.0, 300.0, -300.0], np.float32)
    got = cast(x, "int8")  # eager
    assert got.dtype == "int8"
    assert np.asarray(got).tolist() == x.astype(np.int64).astype(np.int8).tolist()


def test_int8_parameter_holds_its_bytes_and_reads_through_cast():
    w = pd.Variable("storage_w", shape=(2, 3), dtype="int8", initializer="zeros",
                    trainable=False)
    w.set_value(Q)
    assert w.val().dtype == np.int8 and w.val().nbytes == 6
    np.testing.assert_array_equal(pd.eval(cast(w, "float32")), Q.astype(np.float32))


def test_other_ops_refuse_storage_dtypes_where_built():
    x = pd.data("storage_refused", shape=[2], dtype="int8")
    with pytest.raises(TypeError, match=r"add: received or would make int8 values; .*"
                                        r"expected cast\(x, 'float32'\) first \(at .*"
                                        r"test_storage_dtypes.py:\d+\)"):
        x + x
    with pytest.raises(TypeError, match="only cast reads and makes"):
        cast(np.array([1, 2], np.int8), "int8") * 2  # eager: refused as well
    with pytest.raises(TypeError, match="would make uint8 values"):
        pd.ops.ones_like(pd.data("storage_f", shape=[2]), dtype="uint8")
