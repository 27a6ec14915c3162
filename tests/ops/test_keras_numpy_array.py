"""pd.ops's array functions against real Keras 3 (on JAX) where Keras is installed; skipped
otherwise. Same inputs, same names and arguments: the values must agree, and the result
dtypes where Keras gives one of paddle's dtypes on 32-bit inputs."""
import os

import numpy as np
import pytest

import paddle as pd

os.environ.setdefault("KERAS_BACKEND", "jax")
keras = pytest.importorskip("keras")

RNG = np.random.default_rng(3)
F = RNG.standard_normal((3, 4)).astype(np.float32)
G = RNG.standard_normal((4, 5)).astype(np.float32)
I = RNG.integers(-4, 5, size=(3, 4)).astype(np.int32)
B = I > 0
N = np.where(RNG.random((3, 4)) < 0.3, np.nan, F).astype(np.float32)

CALLS = [
    ("all", (I,), {"axis": 1}), ("any", (B,), {}), ("amax", (F,), {"axis": 0}),
    ("amin", (I,), {"keepdims": True}), ("prod", (I,), {"axis": 1}), ("prod", (B,), {}),
    ("argmax", (F,), {}), ("argmax", (I,), {"axis": 0}), ("argmin", (F,), {"axis": 1}),
    ("argsort", (I,), {"axis": 0}), ("sort", (F,), {}), ("cumsum", (I,), {}),
    ("cumsum", (B,), {"axis": 1}), ("cumprod", (F,), {"axis": 0}),
    ("nansum", (N,), {"axis": 1}), ("nanmean", (N,), {}), ("nanmax", (N,), {"axis": 0}),
    ("nanmin", (N,), {}), ("nanprod", (N,), {"axis": 1}), ("nanstd", (N,), {}),
    ("nanvar", (N,), {"axis": 0}), ("nancumsum", (N,), {"axis": 1}),
    ("nanmedian", (N,), {"axis": 1}), ("nanquantile", (N,), {"q": 0.3}),
    ("average", (F,), {"axis": 1}), ("median", (I,), {}), ("quantile", (F, [0.2, 0.7]), {}),
    ("percentile", (F, 40.0), {"axis": 0}), ("std", (I,), {}), ("var", (F,), {"axis": 1}),
    ("ptp", (I,), {"axis": 1}), ("count_nonzero", (I,), {"axis": 0}), ("diag", (F,), {"k": 1}),
    ("diagflat", (F[0],), {}), ("diagonal", (F,), {"offset": -1}), ("trace", (I,), {}),
    ("tri", (3,), {"k": 1}), ("tril", (F,), {}), ("triu", (I,), {"k": -1}), ("eye", (3, 4), {}),
    ("identity", (3,), {}), ("tensordot", (F, G), {"axes": 1}), ("dot", (F, G), {}),
    ("inner", (F, F), {}), ("outer", (I[0], F[0]), {}), ("vdot", (F, F), {}),
    ("kron", (I[:2, :2], I[:2, :3]), {}), ("cross", (F[:, :3], G[:3, :3]), {}),
    ("tile", (F, (2, 1)), {}), ("repeat", (I, 2), {"axis": 0}), ("flip", (F,), {"axis": 1}),
    ("fliplr", (F,), {}), ("flipud", (I,), {}), ("roll", (F, 3), {}),
    ("rot90", (F,), {"k": 3}), ("moveaxis", (F, 0, 1), {}), ("swapaxes", (F, 0, 1), {}),
    ("ravel", (I,), {}), ("hstack", ([F, F],), {}), ("vstack", ([F, F],), {}),
    ("dstack", ([F, F],), {}), ("append", (F, F), {"axis": 1}),
    ("take", (F, np.array([0, 2])), {"axis": 1}),
    ("take_along_axis", (F, np.argsort(F, axis=1)), {"axis": 1}),
    ("searchsorted", (np.sort(F[0]), F[1]), {}), ("digitize", (F, np.sort(F[0])), {}),
    ("isin", (I, I[0]), {}), ("linspace", (0.0, 2.0, 5), {}), ("logspace", (0.0, 2.0, 4), {}),
    ("geomspace", (1.0, 8.0, 4), {}), ("full_like", (I, 3), {}), ("vander", (I[0],), {}),
    ("correlate", (F[0], F[1, :2]), {"mode": "full"}), ("diff", (I,), {"axis": 0}),
    ("trapezoid", (F,), {}), ("bartlett", (5,), {}), ("blackman", (5,), {}),
    ("hamming", (5,), {}), ("hanning", (5,), {}), ("kaiser", (5, 2.0), {}),
    ("einsum", ("ij,jk->ki", F, G), {}), ("transpose", (F,), {"axes": (1, 0)}),
    ("broadcast_to", (F[0], (2, 4)), {}), ("pad", (F, 1), {"mode": "reflect"}),
    ("pad", (F, ((1, 0), (0, 2))), {"mode": "symmetric"}),
    ("one_hot", (I[0] + 4, 9), {"axis": 0}), ("histogram", (F.ravel(),), {"bins": 4}),
    ("logsumexp", (F,), {"axis": 1}), ("top_k", (F, 2), {}),
    ("in_top_k", (np.array([0, 1, 2]), F, 2), {}),
    ("segment_sum", (F, np.array([0, 1, 0])), {"num_segments": 2}),
    ("segment_max", (F, np.array([0, 2, 0])), {"num_segments": 3}),
    ("extract_sequences", (F, 2, 1), {}), ("cdist", (F, F[:2]), {}),
    ("select", ([B, ~B], [F, -F]), {}), ("arange", (2, 9, 3), {}), ("full", ((2,), 3), {}),
    ("sum", (B,), {"axis": 0}), ("mean", (I,), {}), ("max", (I,), {"axis": 1, "initial": 2}),
    ("min", (F,), {"keepdims": True}), ("corrcoef", (F,), {}), ("copy", (I,), {}),
    ("unravel_index", (np.array([3, 11], np.int32), (3, 4)), {}),
    ("scatter_update", (F, np.array([[0, 1], [2, 2], [0, 1]]), np.float32([5.0, 6.0, 7.0])),
     {"reduction": "max"}),
    ("scatter_update", (I, np.array([[1], [1]]), np.ones((2, 4), np.int32) * 3),
     {"reduction": "mul"}),
    ("scatter", (np.array([[0, 1], [2, 2]]), np.float32([5.0, 6.0]), (3, 4)), {}),
    ("slice_update", (F, (1, 1), np.ones((2, 2), np.float32)), {}),
    ("slice", (F, (1, 0), (2, 3)), {}), ("unstack", (F,), {"axis": 1}),
    ("array_split", (F, 3), {"axis": 1}), ("split", (F, [1, 3]), {"axis": 1}),
    ("meshgrid", (F[0], F[1, :3]), {}), ("nanargmax", (N,), {"axis": 1}),
    ("argpartition", (F[0], 1), {}), ("argpartition", (I, 2), {"axis": 1}),
    ("argpartition", (I, 0), {"axis": 0}),
    ("unique", (I,), {"size": 12, "fill_value": 0, "return_counts": True,
                      "return_inverse": True, "return_index": True}),
]


def _flat(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


@pytest.mark.parametrize("name,args,kwargs", CALLS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
def test_same_values_and_dtypes_as_keras(name, args, kwargs):
    expected = _flat(getattr(keras.ops, name)(*args, **kwargs))
    got = _flat(getattr(pd.ops, name)(*args, **kwargs))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        e = keras.ops.convert_to_numpy(e)
        value = pd.eval(g)
        assert value.shape == e.shape
        if e.dtype.name in ("float32", "int32", "bool"):
            assert g.dtype == e.dtype.name, (name, g.dtype, e.dtype.name)
        np.testing.assert_allclose(value.astype(np.float64), e.astype(np.float64), rtol=2e-5,
                                   atol=2e-5, equal_nan=True)
