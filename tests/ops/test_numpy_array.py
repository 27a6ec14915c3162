"""pd.ops's array functions of keras.ops.numpy (paddle/ops/numpy_array.py,
numpy_reduce.py, numpy_products.py): values against NumPy on every device, Keras's result
dtypes, gradients, and bad input named at the user's line."""
import inspect

import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle import ops
from paddle.errors import ShapeError

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4)).astype(np.float32)
B = RNG.standard_normal((4, 5)).astype(np.float32)
V = np.array([3.0, -1.0, 2.0, 2.0, 0.5], np.float32)
I = np.array([[3, 0, -2], [1, 1, 5]], np.int32)
C3 = RNG.standard_normal((2, 3, 4)).astype(np.float32)

# name: (paddle call, NumPy's result), on constant inputs
CASES = {
    "transpose_axes": (lambda: ops.transpose(C3, axes=(2, 0, 1)), np.transpose(C3, (2, 0, 1))),
    "broadcast_to": (lambda: ops.broadcast_to(V, (2, 5)), np.broadcast_to(V, (2, 5))),
    "moveaxis": (lambda: ops.moveaxis(C3, [0, 1], [2, 0]), np.moveaxis(C3, [0, 1], [2, 0])),
    "swapaxes": (lambda: ops.swapaxes(C3, 0, 2), np.swapaxes(C3, 0, 2)),
    "ravel": (lambda: ops.ravel(A), A.ravel()),
    "flip": (lambda: ops.flip(C3, (0, 2)), np.flip(C3, (0, 2))),
    "flip_all": (lambda: ops.flip(A), np.flip(A)),
    "fliplr": (lambda: ops.fliplr(A), np.fliplr(A)),
    "flipud": (lambda: ops.flipud(A), np.flipud(A)),
    "roll": (lambda: ops.roll(A, 2, axis=1), np.roll(A, 2, axis=1)),
    "roll_flat": (lambda: ops.roll(A, -5), np.roll(A, -5)),
    "roll_axes": (lambda: ops.roll(A, (1, -1), axis=(0, 1)), np.roll(A, (1, -1), (0, 1))),
    "rot90": (lambda: ops.rot90(A), np.rot90(A)),
    "rot90_k3": (lambda: ops.rot90(C3, 3, (1, 2)), np.rot90(C3, 3, (1, 2))),
    "rot90_k2": (lambda: ops.rot90(A, 2), np.rot90(A, 2)),
    "tile": (lambda: ops.tile(A, (2, 1, 3)), np.tile(A, (2, 1, 3))),
    "repeat": (lambda: ops.repeat(A, 2, axis=1), np.repeat(A, 2, axis=1)),
    "repeat_each": (lambda: ops.repeat(A, [1, 0, 2], axis=0), np.repeat(A, [1, 0, 2], 0)),
    "repeat_flat": (lambda: ops.repeat(I, 2), np.repeat(I, 2)),
    "hstack": (lambda: ops.hstack([A, A]), np.hstack([A, A])),
    "vstack": (lambda: ops.vstack([V, V]), np.vstack([V, V])),
    "dstack": (lambda: ops.dstack([A, A]), np.dstack([A, A])),
    "append": (lambda: ops.append(A, V), np.append(A, V)),
    "append_axis": (lambda: ops.append(A, A, axis=0), np.append(A, A, axis=0)),
    "pad_reflect": (lambda: ops.pad(A, [(1, 2), (3, 1)], mode="reflect"),
                    np.pad(A, [(1, 2), (3, 1)], mode="reflect")),
    "pad_symmetric": (lambda: ops.pad(A, 2, mode="symmetric"), np.pad(A, 2, mode="symmetric")),
    "pad_constant": (lambda: ops.pad(A, (1, 2), constant_values=7.0),
                     np.pad(A, (1, 2), constant_values=7.0)),
    "take": (lambda: ops.take(A, [[0, -1], [2, 1]], axis=1), np.take(A, [[0, -1], [2, 1]], 1)),
    "take_flat": (lambda: ops.take(A, [0, 11, -1]), np.take(A, [0, 11, -1])),
    "take_flat_int32": (lambda: ops.take(A, np.array([[3, -12], [3, 7]], "int32")),
                        np.take(A, np.array([[3, -12], [3, 7]]))),
    "take_along_axis": (lambda: ops.take_along_axis(A, np.argsort(A, 1), axis=1),
                        np.sort(A, 1)),
    "take_along_broadcast": (lambda: ops.take_along_axis(A, np.array([[0], [2], [1]]), 1),
                             np.take_along_axis(A, np.array([[0], [2], [1]]), 1)),
    "select": (lambda: ops.select([V > 1, V < 0], [V, -V], 9.0),
               np.select([V > 1, V < 0], [V, -V], 9.0)),
    "tril": (lambda: ops.tril(C3, -1), np.tril(C3, -1)),
    "triu": (lambda: ops.triu(C3, 1), np.triu(C3, 1)),
    "eye": (lambda: ops.eye(3, 4, k=-1), np.eye(3, 4, -1, dtype=np.float32)),
    "identity": (lambda: ops.identity(3, dtype="int32"), np.identity(3, dtype=np.int32)),
    "tri": (lambda: ops.tri(3, 2, 0), np.tri(3, 2, 0, dtype=np.float32)),
    "linspace": (lambda: ops.linspace(-1.0, 2.0, 7), np.linspace(-1.0, 2.0, 7, dtype=np.float32)),
    "linspace_open": (lambda: ops.linspace(0, 1, 4, endpoint=False),
                      np.linspace(0, 1, 4, endpoint=False, dtype=np.float32)),
    "linspace_tensor": (lambda: ops.linspace(pd.constant([0.0, 1.0]), pd.constant([1.0, 3.0]),
                                             3, axis=1),
                        np.linspace([0.0, 1.0], [1.0, 3.0], 3, axis=1).astype(np.float32)),
    "logspace": (lambda: ops.logspace(0.0, 3.0, 4, base=2),
                 np.logspace(0.0, 3.0, 4, base=2).astype(np.float32)),
    "geomspace": (lambda: ops.geomspace(1.0, 1000.0, 4),
                  np.geomspace(1.0, 1000.0, 4).astype(np.float32)),
    "vander": (lambda: ops.vander(np.array([1, 2, 3], np.int32)), np.vander([1, 2, 3]).astype(
        np.int32)),
    "vander_inc": (lambda: ops.vander(V, 3, increasing=True), np.vander(V, 3, increasing=True)),
    "bartlett": (lambda: ops.bartlett(6), np.bartlett(6).astype(np.float32)),
    "blackman": (lambda: ops.blackman(6), np.blackman(6).astype(np.float32)),
    "hamming": (lambda: ops.hamming(6), np.hamming(6).astype(np.float32)),
    "hanning": (lambda: ops.hanning(6), np.hanning(6).astype(np.float32)),
    "kaiser": (lambda: ops.kaiser(6, 3.0), np.kaiser(6, 3.0).astype(np.float32)),
    "full_like": (lambda: ops.full_like(I, 4), np.full_like(I, 4)),
    "slice_update": (lambda: ops.slice_update(A, [1, 2], np.ones((2, 2), np.float32)),
                     np.where(np.pad(np.ones((2, 2), bool), [(1, 0), (2, 0)]), 1.0, A)),
    "scatter": (lambda: ops.scatter(np.array([[0, 1], [2, 3], [0, 1]]),
                                    np.array([1.0, 2.0, 4.0], np.float32), (3, 4)),
                np.array([[0, 5, 0, 0], [0, 0, 0, 0], [0, 0, 0, 2]], np.float32)),
    "scatter_rows": (lambda: ops.scatter(np.array([[1]]), np.ones((1, 3), np.float32), (2, 3)),
                     np.array([[0, 0, 0], [1, 1, 1]], np.float32)),
}


def _scattered():
    out = A.copy()
    out[0, 0], out[2, 3] = 9.0, 8.0
    return out


CASES["scatter_update"] = (lambda: ops.scatter_update(A, np.array([[0, 0], [2, 3]]),
                                                     np.array([9.0, 8.0], np.float32)),
                           _scattered())

REDUCTIONS = {
    "all": (lambda: ops.all(I, axis=1), np.all(I, axis=1)),
    "any": (lambda: ops.any(I == 5, keepdims=True), np.any(I == 5, keepdims=True)),
    "amax": (lambda: ops.amax(C3, axis=(0, 2)), np.amax(C3, axis=(0, 2))),
    "amin": (lambda: ops.amin(I, axis=0, keepdims=True), np.amin(I, axis=0, keepdims=True)),
    "prod": (lambda: ops.prod(C3, axis=(0, 2), keepdims=True),
             np.prod(C3, axis=(0, 2), keepdims=True)),
    "prod_int": (lambda: ops.prod(I, axis=1), np.prod(I, axis=1)),
    "prod_all": (lambda: ops.prod(A), np.prod(A)),
    "argmax": (lambda: ops.argmax(A), np.int32(np.argmax(A))),
    "argmax_axis": (lambda: ops.argmax(A, axis=0, keepdims=True),
                    np.argmax(A, axis=0, keepdims=True).astype(np.int32)),
    "argmin": (lambda: ops.argmin(I), np.int32(np.argmin(I))),
    "argmin_axis": (lambda: ops.argmin(A, axis=1), np.argmin(A, axis=1).astype(np.int32)),
    "argsort": (lambda: ops.argsort(I, axis=0), np.argsort(I, 0, kind="stable").astype(
        np.int32)),
    "argsort_flat": (lambda: ops.argsort(I, axis=None), np.argsort(I, None, kind="stable")
                     .astype(np.int32)),
    "sort": (lambda: ops.sort(C3, axis=1), np.sort(C3, axis=1)),
    "cumsum": (lambda: ops.cumsum(I), np.cumsum(I)),
    "cumsum_axis": (lambda: ops.cumsum(A, axis=1), np.cumsum(A, axis=1)),
    "cumprod": (lambda: ops.cumprod(A, axis=0), np.cumprod(A, axis=0)),
    "cumsum_bool": (lambda: ops.cumsum(np.array([True, False, True])), np.int32([1, 1, 2])),
    "diff": (lambda: ops.diff(I, 2, axis=1), np.diff(I, 2, axis=1)),
    "trapezoid": (lambda: ops.trapezoid(A, dx=0.5), np.trapezoid(A, dx=0.5)),
    "trapezoid_x": (lambda: ops.trapezoid(A, x=np.array([0, 1, 3, 7], np.float32)),
                    np.trapezoid(A, x=np.array([0, 1, 3, 7], np.float32))),
    "var": (lambda: ops.var(A, axis=1), np.var(A, axis=1)),
    "std": (lambda: ops.std(C3, axis=(0, 2), keepdims=True),
            np.std(C3, axis=(0, 2), keepdims=True)),
    "var_int": (lambda: ops.var(I), np.float32(np.var(I))),
    "ptp": (lambda: ops.ptp(A, axis=0), np.ptp(A, axis=0)),
    "count_nonzero": (lambda: ops.count_nonzero(I, axis=1), np.count_nonzero(I, 1).astype(
        np.int32)),
    "average": (lambda: ops.average(A, axis=1, weights=np.array([1, 2, 3, 4], np.float32)),
                np.average(A, axis=1, weights=[1, 2, 3, 4]).astype(np.float32)),
    "average_full": (lambda: ops.average(A, weights=np.abs(A)),
                     np.float32(np.average(A, weights=np.abs(A)))),
    "median": (lambda: ops.median(C3, axis=1), np.median(C3, axis=1)),
    "median_even": (lambda: ops.median(A, axis=1, keepdims=True),
                    np.median(A, axis=1, keepdims=True)),
    "quantile": (lambda: ops.quantile(A, [0.1, 0.5, 1.0], axis=0),
                 np.quantile(A, [0.1, 0.5, 1.0], axis=0)),
    "percentile": (lambda: ops.percentile(C3, 30, axis=(1, 2)),
                   np.percentile(C3, 30, axis=(1, 2))),
    "searchsorted": (lambda: ops.searchsorted(np.sort(V), A), np.searchsorted(np.sort(V), A)
                     .astype(np.int32)),
    "searchsorted_right": (lambda: ops.searchsorted([1, 2, 2, 3], np.array([2, 0, 4]), "right"),
                           np.int32([3, 0, 4])),
    "searchsorted_ties": (lambda: ops.searchsorted(np.float32([0, 1, 1, 1, 3, np.inf]),
                                                   np.float32([[1, np.nan], [3, -1]])),
                          np.searchsorted(np.float32([0, 1, 1, 1, 3, np.inf]),
                                          np.float32([[1, np.nan], [3, -1]])).astype(np.int32)),
    "searchsorted_ints": (lambda: ops.searchsorted(np.arange(0, 100, 3), np.arange(-5, 105),
                                                   side="right"),
                          np.searchsorted(np.arange(0, 100, 3), np.arange(-5, 105), "right")
                          .astype(np.int32)),
    "isin_nan": (lambda: ops.isin(np.float32([1.0, np.nan, 2.0]), np.float32([1.0, np.nan])),
                 np.array([True, False, False])),
    "digitize": (lambda: ops.digitize(A, np.array([-1.0, 0.0, 1.0], np.float32)),
                 np.digitize(A, [-1.0, 0.0, 1.0]).astype(np.int32)),
    "digitize_decreasing": (lambda: ops.digitize(A, np.array([1.0, 0.0, -1.0], np.float32)),
                            np.digitize(A, [1.0, 0.0, -1.0]).astype(np.int32)),
    "isin": (lambda: ops.isin(I, [1, 5, 7]), np.isin(I, [1, 5, 7])),
    "isin_invert": (lambda: ops.isin(I, [1, 5], invert=True), np.isin(I, [1, 5], invert=True)),
    "bincount": (lambda: ops.bincount(np.array([0, 1, 1, 4]), minlength=6),
                 np.bincount([0, 1, 1, 4], minlength=6).astype(np.int32)),
    "bincount_weights": (lambda: ops.bincount(np.array([0, 1, 1]), weights=V[:3], minlength=3),
                         np.bincount([0, 1, 1], weights=V[:3], minlength=3).astype(np.float32)),
    "correlate_valid": (lambda: ops.correlate(V, V[:2]), np.correlate(V, V[:2])),
    "correlate_full": (lambda: ops.correlate(V, V[:3], mode="full"),
                       np.correlate(V, V[:3], mode="full")),
    "correlate_same": (lambda: ops.correlate(V, V[:2], mode="same"),
                       np.correlate(V, V[:2], mode="same")),
    "correlate_swapped": (lambda: ops.correlate(V[:2], V), np.correlate(V[:2], V)),
}

NAN = np.array([[1.0, np.nan, 3.0, 4.0], [np.nan, np.nan, np.nan, np.nan],
                [2.0, 5.0, np.nan, -1.0]], np.float32)
NANS = {
    "nansum": (lambda: ops.nansum(NAN, axis=1), np.nansum(NAN, axis=1)),
    "nanmean": (lambda: ops.nanmean(NAN[[0, 2]], axis=1), np.nanmean(NAN[[0, 2]], axis=1)),
    "nanmax": (lambda: ops.nanmax(NAN, axis=1), np.array([4.0, np.nan, 5.0], np.float32)),
    "nanmin": (lambda: ops.nanmin(NAN, axis=0), np.array([1.0, 5.0, 3.0, -1.0], np.float32)),
    "nanprod": (lambda: ops.nanprod(NAN, axis=1), np.nanprod(NAN, axis=1)),
    "nanvar": (lambda: ops.nanvar(NAN[[0, 2]], axis=1), np.nanvar(NAN[[0, 2]], axis=1)),
    "nanstd": (lambda: ops.nanstd(NAN[[0, 2]]), np.nanstd(NAN[[0, 2]])),
    "nanargmax": (lambda: ops.nanargmax(NAN[[0, 2]], axis=1), np.int32([3, 1])),
    "nanargmin": (lambda: ops.nanargmin(NAN[[0, 2]], axis=1), np.int32([0, 3])),
    "nancumsum": (lambda: ops.nancumsum(NAN, axis=1), np.nancumsum(NAN, axis=1)),
    "nancumprod": (lambda: ops.nancumprod(NAN), np.nancumprod(NAN)),
    "nanmedian": (lambda: ops.nanmedian(NAN[[0, 2]], axis=1), np.nanmedian(NAN[[0, 2]], 1)),
    "nanquantile": (lambda: ops.nanquantile(NAN[[0, 2]], [0.2, 0.9], axis=1),
                    np.nanquantile(NAN[[0, 2]], [0.2, 0.9], axis=1)),
    "nanpercentile": (lambda: ops.nanpercentile(NAN[[0, 2]], 75.0),
                      np.float32(np.nanpercentile(NAN[[0, 2]], 75.0))),
    "median_with_nan": (lambda: ops.median(NAN, axis=1), np.median(NAN, axis=1)),
}

RNG2 = [RNG.standard_normal((3, 4, 5)).astype(np.float32)]
C4 = RNG.standard_normal((2, 3, 2, 4)).astype(np.float32)
PRODUCTS = {
    "tensordot": (lambda: ops.tensordot(C3, RNG2[0], axes=2), np.tensordot(C3, RNG2[0], 2)),
    "tensordot_pairs": (lambda: ops.tensordot(C3, A, axes=([1, 2], [0, 1])),
                        np.tensordot(C3, A, ([1, 2], [0, 1]))),
    "tensordot_int": (lambda: ops.tensordot(I, I.T, axes=1), np.tensordot(I, I.T, 1)),
    "dot": (lambda: ops.dot(A, B), np.dot(A, B)),
    "dot_nd": (lambda: ops.dot(C3, B), np.dot(C3, B)),
    "dot_vec": (lambda: ops.dot(A, B[:, 0]), np.dot(A, B[:, 0])),
    "dot_scalar": (lambda: ops.dot(A, 2.0), A * 2.0),
    "inner": (lambda: ops.inner(C3, A), np.inner(C3, A)),
    "outer": (lambda: ops.outer(V, A[0]), np.outer(V, A[0])),
    "vdot": (lambda: ops.vdot(A, A), np.vdot(A, A)),
    "kron": (lambda: ops.kron(A[:2, :2], I), np.kron(A[:2, :2], I).astype(np.float32)),
    "cross": (lambda: ops.cross(A[:, :3], B[:3, :3].T), np.cross(A[:, :3], B[:3, :3].T)),
    "cross_2d": (lambda: ops.cross(A[:, :2], A[:, 1:3]),
                 A[:, 0] * A[:, 2] - A[:, 1] * A[:, 1]),
    "diagonal": (lambda: ops.diagonal(C3, 1, 2, 1), np.diagonal(C3, 1, 2, 1)),
    "diagonal_neg": (lambda: ops.diagonal(A, -1), np.diagonal(A, -1)),
    "trace": (lambda: ops.trace(C3, 0, 1, 2), np.trace(C3, 0, 1, 2)),
    "diag_make": (lambda: ops.diag(V, -1), np.diag(V, -1)),
    "diag_take": (lambda: ops.diag(A, 1), np.diag(A, 1)),
    "diagflat": (lambda: ops.diagflat(I, 1), np.diagflat(I, 1)),
    "einsum_matmul": (lambda: ops.einsum("ij,jk->ik", A, B), np.einsum("ij,jk->ik", A, B)),
    "einsum_batch": (lambda: ops.einsum("bij,jk->bki", C3, B), np.einsum("bij,jk->bki", C3, B)),
    "einsum_attention": (lambda: ops.einsum("bqhd,bkhd->bhqk", C4, C4),
                         np.einsum("bqhd,bkhd->bhqk", C4, C4)),
    "einsum_trace": (lambda: ops.einsum("ii", A[:3, :3]), np.einsum("ii", A[:3, :3])),
    "einsum_diag": (lambda: ops.einsum("ii->i", A[:3, :3]), np.einsum("ii->i", A[:3, :3])),
    "einsum_sum": (lambda: ops.einsum("ij->", A), np.einsum("ij->", A)),
    "einsum_implicit": (lambda: ops.einsum("ij,jk", A, B), np.einsum("ij,jk", A, B)),
    "einsum_three": (lambda: ops.einsum("ij,jk,kl->il", A, B, B.T), np.einsum(
        "ij,jk,kl->il", A, B, B.T)),
    "einsum_outer": (lambda: ops.einsum("i,j->ij", V, V), np.einsum("i,j->ij", V, V)),
    "einsum_int": (lambda: ops.einsum("ij,kj->ik", I, I), np.einsum("ij,kj->ik", I, I)),
}
SQ = RNG.standard_normal((2, 3, 3)).astype(np.float32)
PRODUCTS["einsum_ellipsis"] = (lambda: ops.einsum("...ij,...jk->...ik", SQ, SQ),
                               np.einsum("...ij,...jk->...ik", SQ, SQ))
PRODUCTS["cross_axis"] = (lambda: ops.cross(A[:3, :3].T, B[:3, :3], axis=0),
                          np.cross(A[:3, :3].T, B[:3, :3], axis=0))

BIG = [2**40 + 12345, (2**23 + 5) * (2**22 - 3) - 1, 7 * (2**22 - 3)]
KERAS_BASICS = {
    "arange": (lambda: ops.arange(1, 8, 3), np.arange(1, 8, 3, dtype=np.int32)),
    "arange_float": (lambda: ops.arange(0.0, 1.0, 0.25), np.arange(0, 1, 0.25, np.float32)),
    "full": (lambda: ops.full((2, 2), 3), np.full((2, 2), 3.0, np.float32)),
    "copy": (lambda: ops.copy(I), I),
    "sum_bool": (lambda: ops.sum(I > 0, axis=0), np.sum(I > 0, axis=0).astype(np.int32)),
    "mean_int": (lambda: ops.mean(I, axis=1), np.mean(I, axis=1).astype(np.float32)),
    "max_initial": (lambda: ops.max(I, axis=1, initial=4), np.max(I, axis=1, initial=4)),
    "min_initial": (lambda: ops.min(A, initial=-0.1), np.min(A, initial=-0.1)),
    "max_empty": (lambda: ops.max(np.zeros((0, 3), np.float32), axis=0, initial=1.0),
                  np.ones(3, np.float32)),
    "corrcoef": (lambda: ops.corrcoef(A), np.corrcoef(A)),
    "corrcoef_int": (lambda: ops.corrcoef(I), np.corrcoef(I)),
    "unravel_index": (lambda: ops.unravel_index(np.array([0, 5, 22, 23], np.int32), (2, 3, 4)),
                      np.stack(np.unravel_index([0, 5, 22, 23], (2, 3, 4))).astype(np.int32)),
    "unravel_big": (lambda: ops.unravel_index(np.array(BIG), (2**23 + 5, 2**22 - 3)),
                    np.stack(np.unravel_index(BIG, (2**23 + 5, 2**22 - 3)))),
    "scatter_update_max": (lambda: ops.scatter_update(I, [[0, 1], [0, 1], [1, 2]], [7, 2, 1],
                                                      reduction="max"),
                           np.array([[3, 7, -2], [1, 1, 5]], np.int32)),
    "scatter_update_mul": (lambda: ops.scatter_update(A, [[2], [2]], A[:2] * 0 + 2.0,
                                                      reduction="mul"),
                           np.concatenate([A[:2], A[2:] * 4.0])),
    "scatter_update_min": (lambda: ops.scatter_update(A, [[0, 0]], [-5.0], reduction="min"),
                           np.where(np.arange(12).reshape(3, 4) == 0, -5.0, A)),
    "scatter_update_add": (lambda: ops.scatter_update(I, [[1, 0], [1, 0]], [4, 5],
                                                      reduction="add"),
                           I + np.array([[0, 0, 0], [9, 0, 0]], np.int32)),
    "ones": (lambda: ops.ones((2, 1), "int32"), np.ones((2, 1), np.int32)),
    "zeros_like": (lambda: ops.zeros_like(I, dtype="float32"), np.zeros((2, 3), np.float32)),
    "ones_like": (lambda: ops.ones_like(A), np.ones_like(A)),
    "reshape": (lambda: ops.reshape(I, newshape=(3, -1)), I.reshape(3, -1)),
    "slice": (lambda: ops.slice(A, start_indices=(1, 1), shape=(2, 3)), A[1:3, 1:4]),
    "stack": (lambda: ops.stack([I[0], I[1] > 0], axis=1), np.stack([I[0], I[1] > 0], 1)),
    "unique": (lambda: ops.unique(I, size=10, fill_value=-9), np.concatenate(
        [np.unique(I), np.full(10 - len(np.unique(I)), -9)]).astype(np.int32)),
    "unique_all": (lambda: ops.unique(np.array([3, 1, 3, 2]), size=5, fill_value=-1,
                                      return_index=True, return_inverse=True,
                                      return_counts=True),
                   # measured with Keras 3.15 on JAX
                   [[1, 2, 3, -1, -1], [1, 3, 0, 1, 1], [2, 0, 2, 1], [1, 1, 2, 0, 0]]),
}

ALL = {**CASES, **REDUCTIONS, **NANS, **PRODUCTS, **KERAS_BASICS}


@pytest.mark.parametrize("name", sorted(ALL))
def test_values_match_numpy(name, device):
    build, expected = ALL[name]
    out = build()
    got = pd.eval(list(out) if isinstance(out, tuple) else out)
    if isinstance(out, tuple):
        got, expected = np.stack(got) if name != "unique_all" else got, expected
        if name == "unique_all":
            assert [g.tolist() for g in got] == expected
            return
    expected = np.asarray(expected)
    assert got.shape == expected.shape, name
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-5, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


# Keras's result dtypes (keras/src/ops/numpy.py compute_output_spec; measured with Keras 3.15
# on JAX where 32-bit: see the module docstring of paddle/ops/_arrays.py for 64-bit inputs).
DTYPES = [
    (lambda: ops.argmax(A), "int32"), (lambda: ops.argmin(I, axis=0), "int32"),
    (lambda: ops.argsort(A), "int32"), (lambda: ops.count_nonzero(A), "int32"),
    (lambda: ops.searchsorted(V, V), "int32"), (lambda: ops.digitize(V, V), "int32"),
    (lambda: ops.bincount(np.array([1]), minlength=2), "int32"),
    (lambda: ops.top_k(A, 2)[1], "int32"), (lambda: ops.cumsum(np.array([True])), "int32"),
    (lambda: ops.prod(np.array([True])), "int32"), (lambda: ops.prod(I), "int32"),
    (lambda: ops.std(I), "float32"), (lambda: ops.median(I), "float32"),
    (lambda: ops.quantile(I, 0.5), "float32"), (lambda: ops.average(I), "float32"),
    (lambda: ops.nanmean(I), "float32"), (lambda: ops.all(A), "bool"),
    (lambda: ops.isin(I, I), "bool"), (lambda: ops.linspace(0, 1, 3), "float32"),
    (lambda: ops.eye(2), "float32"), (lambda: ops.outer(I, A), "float32"),
    (lambda: ops.einsum("ij->", I), "int32"), (lambda: ops.tensordot(I, I.T, 1), "int32"),
    (lambda: ops.correlate(I[0], I[0]), "float32"), (lambda: ops.trapezoid(I), "float32"),
    (lambda: ops.histogram(V)[0], "float32"), (lambda: ops.amax(np.array([True])), "bool"),
    (lambda: ops.trace(np.eye(2, dtype=bool)), "int32"), (lambda: ops.diff(I), "int32"),
    (lambda: ops.ptp(I), "int32"), (lambda: ops.kron(I, I), "int32"),
    (lambda: ops.vander(I[0]), "int32"), (lambda: ops.arange(3), "int32"),
    (lambda: ops.full((1,), 2), "float32"), (lambda: ops.sum(I > 0), "int32"),
    (lambda: ops.mean(I), "float32"), (lambda: ops.unique(I, size=3), "int32"),
    (lambda: ops.corrcoef(I), "float32"),
    (lambda: ops.ones((1,)), "float32"), (lambda: ops.stack([I, I > 0]), "int32"),
]


@pytest.mark.parametrize("case", range(len(DTYPES)))
def test_result_dtypes_are_keras(case):
    build, dtype = DTYPES[case]
    out = build()
    assert out.dtype == dtype
    assert pd.eval(out).dtype == np.dtype(dtype)


def test_histogram_matches_keras_on_jax():
    counts, edges = ops.histogram(np.array([1.0, 2.0, 2.0, 5.0, 7.0], np.float32), bins=3)
    assert pd.eval(counts).tolist() == [3.0, 1.0, 1.0]  # Keras 3.15 on JAX
    counts, _ = ops.histogram(A.ravel(), bins=4, range=(-1.0, 1.0))
    np.testing.assert_array_equal(pd.eval(counts), np.histogram(A, 4, (-1.0, 1.0))[0])


def test_shapes_with_unknown_batch():
    x = pd.data("x", shape=[None, 3, 4])
    assert ops.transpose(x, axes=(0, 2, 1)).shape == (None, 4, 3)
    assert ops.sort(x, axis=-1).shape == (None, 3, 4)
    assert ops.cumsum(x, axis=1).shape == (None, 3, 4)
    assert ops.einsum("bij,jk->bik", x, B).shape == (None, 3, 5)
    assert ops.tensordot(x, B, axes=1).shape == (None, 3, 5)
    assert ops.median(x, axis=2).shape == (None, 3)
    assert ops.top_k(x, 2)[0].shape == (None, 3, 2)
    assert ops.argmax(x, axis=1).shape == (None, 4)
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    got = pd.eval(ops.einsum("bij,jk->bik", x, B), {x: a})
    np.testing.assert_allclose(got, np.einsum("bij,jk->bik", a, B), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(pd.eval(ops.median(x, axis=2), {x: a}), np.median(a, 2),
                               rtol=1e-6)


GRADS = {
    "sort": lambda x: ops.sort(x, axis=1),
    "prod": lambda x: ops.prod(x, axis=0),
    "cumprod": lambda x: ops.cumprod(x, axis=1),
    "quantile": lambda x: ops.quantile(x, [0.3, 0.8], axis=1),
    "median": lambda x: ops.median(x),
    "var": lambda x: ops.var(x, axis=0),
    "std": lambda x: ops.std(x),
    "nanmean": lambda x: ops.nanmean(x, axis=1),
    "einsum": lambda x: ops.einsum("ij,kj->ik", x, x),
    "tensordot": lambda x: ops.tensordot(x, x, axes=([0], [0])),
    "kron": lambda x: ops.kron(x, x[:2, :2]),
    "cross": lambda x: ops.cross(x[:, :3], x[:, 1:]),
    "diagonal": lambda x: ops.diagonal(x, 1),
    "diag": lambda x: ops.diag(x[0], 1),
    "trace": lambda x: ops.trace(x),
    "tile": lambda x: ops.tile(x, (2, 2)),
    "repeat": lambda x: ops.repeat(x, [2, 0, 1], axis=0),
    "roll": lambda x: ops.roll(x, 1, axis=1),
    "rot90": lambda x: ops.rot90(x),
    "pad_reflect": lambda x: ops.pad(x, 1, mode="reflect"),
    "take_along_axis": lambda x: ops.take_along_axis(x, np.array([[0, 0], [3, 1], [2, 2]]), 1),
    "take": lambda x: ops.take(x, [1, 1, -1], axis=1),
    "take_flat": lambda x: ops.take(x, np.array([[5, -1], [5, 0]], "int32")),
    "select": lambda x: ops.select([x > 1.2], [x * 2.0], x),
    "tril": lambda x: ops.tril(x),
    "average": lambda x: ops.average(x, axis=1, weights=np.array([1.0, 2.0, 3.0, 4.0])),
    "correlate": lambda x: ops.correlate(ops.ravel(x), x[0], mode="same"),
    "slice_update": lambda x: ops.slice_update(x, [1, 1], x[:2, :2] * 3.0),
    "scatter": lambda x: ops.scatter(np.array([[0], [2], [0]]), x, (4, 4)),
    "amax": lambda x: ops.amax(x, axis=1),
    "ptp": lambda x: ops.ptp(x, axis=0),
    "linspace": lambda x: ops.linspace(x[0], x[1], 5, axis=1),
    "trapezoid": lambda x: ops.trapezoid(x, axis=0),
    "cdist": lambda x: ops.cdist(x, x[:2] + 1.0),
    "logsumexp": lambda x: ops.logsumexp(x, axis=1),
    "top_k": lambda x: ops.top_k(x, 2)[0],
    "segment_sum": lambda x: ops.segment_sum(x, np.array([0, 2, 0]), 3),
    "segment_max": lambda x: ops.segment_max(x, np.array([1, 0, 1]), 2),
    "segment_prod": lambda x: ops.segment_prod(x, np.array([1, 0, 1]), 2),
    "extract_sequences": lambda x: ops.extract_sequences(x, 2, 1),
}


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients(name):
    a = RNG.permutation(12).reshape(3, 4) * 0.17 + 0.6  # distinct, no zeros
    check_gradients(GRADS[name], [a])


def test_one_hot_takes_an_axis():
    got = pd.eval(ops.one_hot(np.array([[0, 2]]), 3, axis=1))
    np.testing.assert_array_equal(got, np.moveaxis(np.eye(3, dtype=np.float32)[[[0, 2]]], -1, 1))


BAD = [
    (lambda: ops.transpose(A, axes=(0, 0)), ValueError, "transpose: axes .* not a permutation"),
    (lambda: ops.broadcast_to(A, (2, 5)), ShapeError, "broadcast_to: cannot broadcast"),
    (lambda: ops.pad(A, 1, mode="wrap"), ValueError, "pad: expected mode 'constant'"),
    (lambda: ops.pad(A, 3, mode="reflect"), ValueError, "pad: cannot pad axis 0 of size 3"),
    (lambda: ops.argmax(A, axis=2), ShapeError, "argmax: axis 2 is out of range"),
    (lambda: ops.sort(A, axis=1.5), TypeError, "sort: expected an integer axis"),
    (lambda: ops.quantile(A, 1.5), ValueError, r"quantile: expected q .* in \[0, 1\]"),
    (lambda: ops.quantile(A, 0.5, method="cubic"), ValueError, "quantile: expected method"),
    (lambda: ops.percentile(A, 101), ValueError, r"percentile: expected q .* in \[0, 100\]"),
    (lambda: ops.tensordot(A, A, axes=1), ShapeError, "tensordot: contracted sizes differ"),
    (lambda: ops.einsum("ij,jk->ik", A), ValueError, "einsum: 'ij,jk->ik' names 2 operands"),
    (lambda: ops.einsum("ij->ix", A), ValueError, "einsum: the output .* names letters"),
    (lambda: ops.einsum("ij,jk->ik", A, A), ShapeError, "einsum: letter 'j'"),
    (lambda: ops.tile(A, (-1,)), ValueError, "tile: expected repeat counts >= 0"),
    (lambda: ops.repeat(A, [1, 2], axis=0), ValueError, "repeat: expected counts"),
    (lambda: ops.split(A, 2), ValueError, "split: cannot split axis 0 of size 3 into 2"),
    (lambda: ops.bincount(np.array([1, 2])), ValueError, "bincount: the length .* minlength"),
    (lambda: ops.searchsorted(A, V), ShapeError, "searchsorted: expected a 1-D"),
    (lambda: ops.diagonal(V), ShapeError, "diagonal: expected a tensor of rank >= 2"),
    (lambda: ops.select([V], [V]), TypeError, "select: expected bool conditions"),
    (lambda: ops.slice_update(A, [2, 3], np.ones((2, 2), np.float32)), ShapeError,
     "slice_update: a block of shape"),
    (lambda: ops.top_k(A, 5), ValueError, r"top_k: expected 0 <= k <= 4"),
    (lambda: ops.segment_sum(A, np.array([0, 1, 0])), ValueError, "segment_sum: the number"),
    (lambda: ops.moveaxis(C3, [0, 1], [0]), ValueError, "moveaxis: expected as many"),
    (lambda: ops.eye(-1), ValueError, "eye: expected a size >= 0 as N"),
    (lambda: ops.correlate(A, V), ShapeError, "correlate: expected two 1-D tensors"),
    (lambda: ops.unique(I), ValueError, "unique: the number of distinct elements"),
    (lambda: ops.unravel_index(A, (3, 4)), TypeError, "unravel_index: expected integer"),
    (lambda: ops.max(A, initial="x"), TypeError, "max: expected a number as initial"),
    (lambda: ops.histogram(A), ValueError, "histogram: expected a 1-D tensor"),
]


@pytest.mark.parametrize("case", range(len(BAD)))
def test_bad_input_names_the_users_line(case):
    build, error, message = BAD[case]
    with pytest.raises(error, match=message + r".*\(at test_numpy_array.py:\d+\)"):
        build()


@pytest.mark.parametrize("kth", [0, 2, 4])
def test_argpartition_is_a_partition(kth):
    x = np.array([3.0, 1.0, 2.0, 2.0, 0.5, 9.0], np.float32)
    order = pd.eval(ops.argpartition(x, kth))
    assert sorted(order.tolist()) == list(range(6)) and order.dtype == np.int32
    parted = x[order]
    assert parted[kth] == np.sort(x)[kth]
    assert (parted[:kth] <= parted[kth]).all() and (parted[kth + 1:] >= parted[kth]).all()


def test_split_cuts_at_indices_as_keras():
    pieces = pd.eval(ops.split(np.arange(6), [1, 4]))
    assert [p.tolist() for p in pieces] == [[0], [1, 2, 3], [4, 5]]
    assert [p.shape for p in ops.array_split(A, 2, axis=1)] == [(3, 2), (3, 2)]
    assert [p.shape for p in ops.array_split(V, 3)] == [(2,), (2,), (1,)]
    assert [p.shape for p in ops.hsplit(A, [1])] == [(3, 1), (3, 3)]
    assert [p.shape for p in ops.vsplit(A, 3)] == [(1, 4)] * 3
    assert [p.shape for p in ops.dsplit(C3, 2)] == [(2, 3, 2)] * 2


def test_unstack_meshgrid_and_what_a_tensor_is():
    parts = pd.eval(ops.unstack(A, axis=1))
    assert len(parts) == 4 and np.array_equal(parts[2], A[:, 2])
    gx, gy = pd.eval(ops.meshgrid(np.arange(3), np.arange(2)))
    ex, ey = np.meshgrid(np.arange(3), np.arange(2))
    assert np.array_equal(gx, ex) and np.array_equal(gy, ey)
    gx, gy = pd.eval(ops.meshgrid(np.arange(3), np.arange(2), indexing="ij"))
    ex, ey = np.meshgrid(np.arange(3), np.arange(2), indexing="ij")
    assert np.array_equal(gx, ex) and np.array_equal(gy, ey)
    x = pd.constant(A)
    assert ops.ndim(x) == 2 and ops.size(x) == 12 and ops.dtype(x) == "float32"
    assert ops.is_tensor(x) and not ops.is_tensor(A)
    assert pd.eval(ops.get_item(x, (slice(None), 1))).tolist() == A[:, 1].tolist()
    assert ops.empty((2, 3)).shape == (2, 3) and ops.empty_like(x, "int32").dtype == "int32"
    assert ops.array([1, 2], dtype="float64").dtype == "float64"
    samples, step = ops.linspace(0.0, 1.0, 5, retstep=True)
    assert step == 0.25 and pd.eval(samples).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]


# Keras 3.15's signatures of these functions (inspect.signature of keras.ops.<name>),
# recorded once so that this test needs no Keras.
KERAS_SIGNATURES = {
    'all': '(x, axis=None, keepdims=False)',
    'amax': '(x, axis=None, keepdims=False)',
    'amin': '(x, axis=None, keepdims=False)',
    'any': '(x, axis=None, keepdims=False)',
    'append': '(x1, x2, axis=None)',
    'arange': '(start, stop=None, step=None, dtype=None)',
    'argmax': '(x, axis=None, keepdims=False)',
    'argmin': '(x, axis=None, keepdims=False)',
    'argpartition': '(x, kth, axis=-1)',
    'argsort': '(x, axis=-1)',
    'array': '(x, dtype=None)',
    'array_split': '(x, indices_or_sections, axis=0)',
    'average': '(x, axis=None, weights=None)',
    'bartlett': '(x)',
    'bincount': '(x, weights=None, minlength=0, sparse=False)',
    'blackman': '(x)',
    'broadcast_to': '(x, shape)',
    'cdist': '(x, y)',
    'copy': '(x)',
    'corrcoef': '(x)',
    'correlate': "(x1, x2, mode='valid')",
    'count_nonzero': '(x, axis=None)',
    'cross': '(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None)',
    'cumprod': '(x, axis=None, dtype=None)',
    'cumsum': '(x, axis=None, dtype=None)',
    'diag': '(x, k=0)',
    'diagflat': '(x, k=0)',
    'diagonal': '(x, offset=0, axis1=0, axis2=1)',
    'diff': '(a, n=1, axis=-1)',
    'digitize': '(x, bins)',
    'dot': '(x1, x2)',
    'dsplit': '(x, indices_or_sections)',
    'dstack': '(xs)',
    'dtype': '(x)',
    'einsum': '(subscripts, *operands, **kwargs)',
    'empty': '(shape, dtype=None)',
    'empty_like': '(x, dtype=None)',
    'expand_dims': '(x, axis)',
    'extract_sequences': '(x, sequence_length, sequence_stride)',
    'eye': '(N, M=None, k=0, dtype=None)',
    'flip': '(x, axis=None)',
    'fliplr': '(x)',
    'flipud': '(x)',
    'full': '(shape, fill_value, dtype=None)',
    'full_like': '(x, fill_value, dtype=None)',
    'geomspace': '(start, stop, num=50, endpoint=True, dtype=None, axis=0)',
    'get_item': '(x, key)',
    'hamming': '(x)',
    'hanning': '(x)',
    'histogram': '(x, bins=10, range=None)',
    'hsplit': '(x, indices_or_sections)',
    'hstack': '(xs)',
    'identity': '(n, dtype=None)',
    'in_top_k': '(targets, predictions, k)',
    'inner': '(x1, x2)',
    'is_tensor': '(x)',
    'isin': '(x1, x2, assume_unique=False, invert=False)',
    'kaiser': '(x, beta)',
    'kron': '(x1, x2)',
    'linspace': '(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0)',
    'logspace': '(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0)',
    'logsumexp': '(x, axis=None, keepdims=False)',
    'max': '(x, axis=None, keepdims=False, initial=None)',
    'mean': '(x, axis=None, keepdims=False)',
    'median': '(x, axis=None, keepdims=False)',
    'meshgrid': "(*x, indexing='xy')",
    'min': '(x, axis=None, keepdims=False, initial=None)',
    'moveaxis': '(x, source, destination)',
    'nanargmax': '(x, axis=None, keepdims=False)',
    'nanargmin': '(x, axis=None, keepdims=False)',
    'nancumprod': '(x, axis=None, dtype=None)',
    'nancumsum': '(x, axis=None, dtype=None)',
    'nanmax': '(x, axis=None, keepdims=False)',
    'nanmean': '(x, axis=None, keepdims=False)',
    'nanmedian': '(x, axis=None, keepdims=False)',
    'nanmin': '(x, axis=None, keepdims=False)',
    'nanpercentile': "(x, q, axis=None, method='linear', keepdims=False)",
    'nanprod': '(x, axis=None, keepdims=False)',
    'nanquantile': "(x, q, axis=None, method='linear', keepdims=False)",
    'nanstd': '(x, axis=None, keepdims=False)',
    'nansum': '(x, axis=None, keepdims=False)',
    'nanvar': '(x, axis=None, keepdims=False)',
    'ndim': '(x)',
    'ones': '(shape, dtype=None)',
    'ones_like': '(x, dtype=None)',
    'outer': '(x1, x2)',
    'pad': "(x, pad_width, mode='constant', constant_values=None)",
    'percentile': "(x, q, axis=None, method='linear', keepdims=False)",
    'prod': '(x, axis=None, keepdims=False, dtype=None)',
    'ptp': '(x, axis=None, keepdims=False)',
    'quantile': "(x, q, axis=None, method='linear', keepdims=False)",
    'ravel': '(x)',
    'repeat': '(x, repeats, axis=None)',
    'reshape': '(x, newshape)',
    'roll': '(x, shift, axis=None)',
    'rot90': '(array, k=1, axes=(0, 1))',
    'rsqrt': '(x)',
    'scatter': '(indices, values, shape)',
    'scatter_update': '(inputs, indices, updates, reduction=None)',
    'searchsorted': "(sorted_sequence, values, side='left')",
    'segment_max': '(data, segment_ids, num_segments=None, sorted=False)',
    'segment_min': '(data, segment_ids, num_segments=None, sorted=False)',
    'segment_prod': '(data, segment_ids, num_segments=None, sorted=False)',
    'segment_sum': '(data, segment_ids, num_segments=None, sorted=False)',
    'select': '(condlist, choicelist, default=0)',
    'size': '(x)',
    'slice': '(inputs, start_indices, shape)',
    'slice_update': '(inputs, start_indices, updates)',
    'sort': '(x, axis=-1)',
    'split': '(x, indices_or_sections, axis=0)',
    'stack': '(x, axis=0)',
    'std': '(x, axis=None, keepdims=False)',
    'sum': '(x, axis=None, keepdims=False)',
    'swapaxes': '(x, axis1, axis2)',
    'take': '(x, indices, axis=None)',
    'take_along_axis': '(x, indices, axis=None)',
    'tensordot': '(x1, x2, axes=2)',
    'tile': '(x, repeats)',
    'top_k': '(x, k, sorted=True)',
    'trace': '(x, offset=0, axis1=0, axis2=1)',
    'transpose': '(x, axes=None)',
    'trapezoid': '(y, x=None, dx=1.0, axis=-1)',
    'tri': '(N, M=None, k=0, dtype=None)',
    'tril': '(x, k=0)',
    'triu': '(x, k=0)',
    'unique': '(x, sorted=True, return_index=False, return_inverse=False, '
              'return_counts=False, axis=None, size=None, fill_value=None)',
    'unravel_index': '(indices, shape)',
    'unstack': '(x, num=None, axis=0)',
    'vander': '(x, N=None, increasing=False)',
    'var': '(x, axis=None, keepdims=False)',
    'vdot': '(x1, x2)',
    'vsplit': '(x, indices_or_sections)',
    'vstack': '(xs)',
    'zeros': '(shape, dtype=None)',
    'zeros_like': '(x, dtype=None)',
}


@pytest.mark.parametrize("name", sorted(KERAS_SIGNATURES))
def test_signatures_are_keras(name):
    assert str(inspect.signature(getattr(ops, name))) == KERAS_SIGNATURES[name]


def test_numpy_float64_arrays_take_the_float_dtype_of_the_tensors_they_meet():
    x = pd.data("x", shape=[None, 4])
    w = np.ones((4, 2))  # float64, as NumPy makes it
    assert ops.tensordot(x, w, axes=1).dtype == "float32"
    assert ops.hstack([x, np.zeros((3, 1))]).dtype == "float32"
    assert ops.select([x > 0.0, x < -1.0], [x, np.ones(4)], 0.0).dtype == "float32"
    assert ops.sort(w).dtype == "float64"  # alone, it keeps its own


@pytest.mark.parametrize("reps", [(1, 2), (3, 1), 2, (1, 1, 20), (2, 1, 2)])
def test_tile_one_repeated_axis_is_a_concat(reps):
    # A few repeats of one axis are a concat (one write of the result); many repeats, or
    # several axes, broadcast: the same values and gradients either way.
    for x in (A, A.astype(np.int32)):
        np.testing.assert_array_equal(ops.tile(x, reps).numpy(), np.tile(x, reps))
    check_gradients(lambda v: ops.tile(v, reps), [A.astype(np.float64)])


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_isin_of_a_few_values_and_of_many(dtype):
    # up to 16 values: one comparison per value (one fused pass); more: sort and search
    rng = np.random.default_rng(3)
    x = (rng.normal(size=(50, 7)) * 3).astype(dtype)
    if dtype.startswith("float"):
        x[0, :4] = [np.nan, np.inf, -0.0, 0.0]
    for k in (1, 3, 16, 17, 40):
        v = np.concatenate([x.ravel()[:k // 2], rng.normal(size=k - k // 2) * 3]).astype(dtype)
        if dtype.startswith("float") and k > 2:
            v[-2:] = [0.0, np.nan]
        for invert in (False, True):
            xs = pd.data("isin_x", shape=[None if k <= 16 else 50, 7], dtype=dtype)
            got = pd.eval(ops.isin(xs, pd.constant(v), invert=invert), {xs: x})
            np.testing.assert_array_equal(got, np.isin(x, v, invert=invert), err_msg=str(k))

