"""paddle._C is public: every function in it is called with random and hostile arguments, in
forked children, and no child may die by a signal (a Python exception is the right answer).

Each function has a builder of one legitimate call (so the mutations reach the checks deep
inside the kernels, not only pybind11's argument conversion); each fuzzed call is that call
with one or a few arguments replaced by hostile values: wrong types, None, object,
big-endian, float16 and other dtypes, non-contiguous, misaligned, read-only and bytes-backed
arrays, zero-size and wrong-size arrays, spec and index entries that are negative, huge, or
made to overflow 32- and 64-bit arithmetic, and wrong argument counts. The calls are
seeded: PADDLE_NATIVE_FUZZ_CALLS (calls per function, default 60) and
PADDLE_NATIVE_FUZZ_SEED set a larger or different run (`python
tests/devices/cpu/test_native_fuzz.py` runs it alone).

The children are forked from a fresh interpreter that has run no kernel: libgomp is not
fork-safe, and a child forked after its parent started OpenMP threads waits forever for
them in its first parallel region.
"""
import faulthandler
import functools
import json
import mmap
import os
import random
import signal
import struct
import subprocess
import sys
import tempfile
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest

import paddle as pd

CALLS_PER_FUNCTION = int(os.environ.get("PADDLE_NATIVE_FUZZ_CALLS", "60"))
SEED = int(os.environ.get("PADDLE_NATIVE_FUZZ_SEED", "0"))
CHILD_SECONDS = 60  # a child running this long is stuck: reported like a crash
BATCH = 400  # calls per forked child


# ---- one legitimate call per function -------------------------------------------------------

def _f32(r, *shape):
    return np.asarray(r.standard_normal(shape), np.float32)


def _n(r):
    """A length: small, or (one call in ten) past the size at which kernels go parallel."""
    return 6 if r.random() < 0.9 else 40_000


def _conv_spec():
    # N H W C OH OW CO KH KW sh sw dh dw pad_top pad_left groups target: 3x3 'same', 2 -> 3
    return np.array([1, 4, 4, 2, 4, 4, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 8], np.int64)


def _pool_spec():
    # N H W C OH OW KH KW sh sw pad_top pad_left: 2x2 windows, stride 2
    return np.array([1, 4, 4, 2, 2, 2, 2, 2, 2, 2, 0, 0], np.int64)


def _rnn_arrays(r, kind):
    n, t, f, u = 2, 3, 2, 2
    g = 4 if kind == 0 else 3
    bias = _f32(r, 2, g * u) if kind == 1 else _f32(r, g * u)
    cell = (n, u) if kind == 0 else (0,)
    cells = (n, t, u) if kind == 0 else (0,)
    return dict(x=_f32(r, n, t, f), W=_f32(r, f, g * u), R=_f32(r, u, g * u), b=bias,
                h0=_f32(r, n, u), c0=_f32(r, *cell), hs=_f32(r, n, t, u), cs=_f32(r, *cells),
                gates=_f32(r, n, t, 4 * u), cell=cell, cells=cells)


def _adam(r):
    p = [_f32(r, _n(r)), _f32(r, 2, 2)]
    # v_hat (AMSGrad's running maximum, one per parameter) is read only with amsgrad
    return [p, [_f32(r, *a.shape) for a in p], [np.zeros_like(a) for a in p],
            [np.zeros_like(a) for a in p], [np.zeros_like(a) for a in p], 0.01, 0.9, 0.999,
            1e-7, 1.0, 0.0, bool(r.integers(2))]


def _rnn_backward(r):
    kind = r.integers(3)
    a = _rnn_arrays(r, kind)
    return [int(kind), a["x"], a["W"], a["R"], a["h0"], a["c0"], a["hs"], a["cs"], a["gates"],
            _f32(r, *a["hs"].shape), _f32(r, *a["cells"]), np.empty_like(a["x"]),
            np.empty_like(a["W"]), np.empty_like(a["R"]), np.empty_like(a["b"]),
            np.empty_like(a["h0"]), np.empty(a["cell"], np.float32)] + _rnn_extras(r, a)


def _rnn_forward(r):
    kind = r.integers(3)
    a = _rnn_arrays(r, kind)
    return [int(kind), a["x"], a["W"], a["R"], a["b"], a["h0"], a["c0"], a["hs"], a["cs"],
            a["gates"]] + _rnn_extras(r, a)


def _rnn_extras(r, a):
    """The optional step mask (N, T) of 0 / 1 and recurrent dropout (N, U), or empties."""
    n, t = a["x"].shape[:2]
    mask = (r.integers(2, size=(n, t))).astype(np.float32) if r.integers(2) else \
        np.empty(0, np.float32)
    rdrop = _f32(r, *a["h0"].shape) if r.integers(2) else np.empty(0, np.float32)
    return [mask, rdrop]


def _conv_ws(filter_grad):
    return np.zeros(pd._C.conv2d_workspace(_conv_spec(), filter_grad), np.float32)


def _layout_2(n):  # a (2, n) with b (n,) broadcast over its rows
    return np.array([2, 2, n, n, 1, 0, 1], np.int64)


def _elementwise(r, code_count, out_dtype=np.float32):
    n = _n(r)
    return [int(r.integers(code_count)), _f32(r, 2, n), _f32(r, n),
            np.empty((2, n), out_dtype), _layout_2(n)]


def _where(r):
    n = _n(r)
    return [r.standard_normal(n) > 0, _f32(r, n), _f32(r, n), np.empty(n, np.float32),
            np.array([1, n, 1, 1, 1], np.int64)]


def _fused_elementwise(r):
    # t0 = x * b (b along the last axis), t1 = t0 > s (s a scalar), out = where(t1, t0, x)
    n = _n(r)
    program = np.array([1, 2, 3, 0, 1, 0,  2, 0, 4, 3, 2, 0,  3, 0, 5, 4, 3, 0], np.int64)
    return [[_f32(r, 2, n), _f32(r, n), _f32(r, 1)], np.array([0, 1, 2], np.int64), program,
            2, 11, np.empty((2, n), np.float32), n]


def _fresh(make, out, r):
    """The call of a binding's entry that makes its output (csrc/fresh.h): the binding's
    call with its output argument `out` taken out and put first, as the template."""
    args = list(make(r))
    return [args.pop(out)] + args


def _strided_copy(r):  # a (2, n) transposed into (n, 2)
    n = _n(r)
    return [_f32(r, 2, n), np.empty((n, 2), np.float32),
            np.array([2, 2, n, n, 1, 1, 2, 0, 0], np.int64)]

def _png_file():
    """The path of a 2x2 RGB PNG file, written on each call (the forked children build
    their calls themselves); png_scan reads whatever it finds there, never raising."""
    rows = b"\x00" + bytes(range(6)) + b"\x04" + bytes(range(6, 12))
    chunks = [(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)),
              (b"IDAT", zlib.compress(rows)), (b"IEND", b"")]
    path = os.path.join(tempfile.gettempdir(), "paddle_native_fuzz.png")
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + b"".join(
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
            for kind, body in chunks))
    return path


def _png_unfilter(r):
    rows = bytes(r.integers(0, 5, 1).tolist()) + bytes(r.integers(0, 256, 6).tolist())
    return [rows * 2, np.array([0, -1], np.int64),
            np.array([[0, 0, 2, 2, 3], [0, 0, 0, 0, 0]], np.int64),
            np.empty((2, 2, 2, 3), np.float32)]


VALID = {
    "strided_copy": _strided_copy,
    "fill": lambda r: [np.empty(_n(r), np.float32), 1.5],
    "gather": lambda r: (lambda n: [_f32(r, 2, 3, n), np.array([2, 0], np.int64),
                                    np.empty((2, 2, n), np.float32), 2, 3, n])(_n(r)),
    "scatter_add": lambda r: [_f32(r, 2, 2, 4), np.array([1, 1], np.int64),
                              np.empty((2, 3, 4), np.float32), 2, 3, 4],
    "one_hot": lambda r: [np.array([0, 3, 1], np.int64), np.empty((3, 4), np.float32), 4],
    "unary": lambda r: (lambda n: [int(r.integers(12)), _f32(r, n),
                                   np.empty(n, np.float32)])(_n(r)),
    "binary": lambda r: _elementwise(r, 8),
    "compare": lambda r: _elementwise(r, 6, np.bool_),
    "predicate": lambda r: (lambda n: [0, _f32(r, n), np.empty(n, np.bool_)])(_n(r)),
    "where": _where,
    "fused_elementwise": _fused_elementwise,
    "color_convert": lambda r: (lambda n: [int(r.integers(2)), _f32(r, n, 3),
                                           np.empty((n, 3), np.float32)])(_n(r)),
    "cast": lambda r: (lambda n: [_f32(r, n), np.empty(n, np.int64)])(_n(r)),
    "reduce": lambda r: (lambda n: [int(r.integers(4)), _f32(r, 2, 3, n),
                                    np.empty((2, n), np.float32), 2, 3, n, 1.0])(_n(r)),
    "argmax": lambda r: [_f32(r, 2, 3, 4), np.empty((2, 4), np.int64), 2, 3, 4],
    "argsort": lambda r: (lambda n: [_f32(r, 2, n, 3), np.empty((2, 2, 3), np.int64), 2, n, 3,
                                     bool(r.integers(2)), 2])(_n(r)),
    "cumulate": lambda r: (lambda n: [int(r.integers(2)), _f32(r, 2, n, 3),
                                      np.empty((2, n, 3), np.float32), 2, n, 3])(_n(r)),
    "diff": lambda r: (lambda n: [_f32(r, 2, n, 3), np.empty((2, n - 1, 3), np.float32), 2, n,
                                  3])(_n(r)),
    "take_along_axis": lambda r: [_f32(r, 2, 5, 3), r.integers(-5, 5, (2, 4, 3)),
                                  np.empty((2, 4, 3), np.float32), 2, 5, 4, 3, True],
    "searchsorted": lambda r: (lambda n: [np.sort(_f32(r, n)), _f32(r, 2, 3),
                                          np.empty((2, 3), np.int32),
                                          bool(r.integers(2))])(_n(r)),
    "take_along_axis_grad": lambda r: [_f32(r, 2, 4, 3), r.integers(-5, 5, (2, 4, 3)),
                                       np.empty((2, 5, 3), np.float32), 2, 5, 4, 3, True],
    "matmul": lambda r: [_f32(r, 2, 4), _f32(r, 4, 3), np.empty((2, 3), np.float32),
                         np.array([1, 2, 3, 4, 0, 0, 0, 0], np.int64)],
    "softmax": lambda r: (lambda n: [_f32(r, 2, n), np.empty((2, n), np.float32), n,
                                     bool(r.integers(2))])(_n(r)),
    "logsumexp": lambda r: (lambda n: [_f32(r, 2, n), np.empty(2, np.float32), n])(_n(r)),
    "softmax_grad": lambda r: (lambda n: [_f32(r, 2, n), _f32(r, 2, n),
                                          np.empty((2, n), np.float32), n])(_n(r)),
    "layer_norm": lambda r: (lambda n: [
        _f32(r, 2, n), _f32(r, n), _f32(r, n),
        [np.empty(2 if k in (0, 3, 4, 5) else (2, n), np.float32) for k in range(9)], n,
        1e-5])(_n(r)),
    "layer_norm_grad": lambda r: (lambda n: [_f32(r, 2, n), _f32(r, 2, n),
                                             np.abs(_f32(r, 2)) + 1,
                                             np.empty((2, n), np.float32), n])(_n(r)),
    "softmax_cross_entropy": lambda r: [_f32(r, 3, 4), np.array([0, 3, 2], np.int64),
                                        np.empty(3, np.float32), 4],
    "in_top_k": lambda r: [_f32(r, 3, 4), np.array([0, 3, 2], np.int64),
                           np.empty(3, np.float32), 4, 2],
    "sgd": lambda r: (lambda n: [[_f32(r, n)], [_f32(r, n)], [np.zeros(n, np.float32)], 0.1,
                                 0.9, True])(_n(r)),
    "adam": _adam,
    "rmsprop": lambda r: [[_f32(r, 3)], [_f32(r, 3)], [np.zeros(3, np.float32)],
                          [np.zeros(3, np.float32)], [np.zeros(3, np.float32)], 0.01, 0.9, 0.5,
                          1e-7, bool(r.integers(2))],
    "adagrad": lambda r: [[_f32(r, 3)], [_f32(r, 3)], [np.full(3, 0.1, np.float32)], 0.01, 1e-7],
    "adamax": lambda r: [[_f32(r, 3)], [_f32(r, 3)], [np.zeros(3, np.float32)],
                         [np.zeros(3, np.float32)], 0.01, 0.9, 0.999, 1e-7, 1.0],
    "nadam": lambda r: [[_f32(r, 3)], [_f32(r, 3)], [np.zeros(3, np.float32)],
                        [np.zeros(3, np.float32)], 0.01, 0.9, 0.999, 1e-7, 0.5, 0.5, 1.0],
    "lion": lambda r: [[_f32(r, 3)], [_f32(r, 3)], [np.zeros(3, np.float32)], 0.01, 0.9, 0.99],
    "ftrl": lambda r: [[_f32(r, 3)], [_f32(r, 3)], [np.full(3, 0.1, np.float32)],
                       [np.zeros(3, np.float32)], 0.01, -0.5, 0.0, 0.0, 0.0, 0.0],
    "adadelta": lambda r: [[_f32(r, 3)], [_f32(r, 3)], [np.zeros(3, np.float32)],
                           [np.zeros(3, np.float32)], 1.0, 0.95, 1e-7],
    "lamb": lambda r: (lambda p: [p, [_f32(r, *a.shape) for a in p],
                                  [np.zeros_like(a) for a in p], [np.zeros_like(a) for a in p],
                                  0.01, 0.9, 0.999, 1e-7, 1.0])([_f32(r, _n(r)), _f32(r, 2, 2)]),
    "ema": lambda r: (lambda p: [p, [_f32(r, *a.shape) for a in p], 0.9, bool(r.integers(2))])(
        [_f32(r, _n(r)), _f32(r, 2, 2)]),
    "decay_weights": lambda r: [[_f32(r, _n(r)), _f32(r, 2, 2)], 0.01],
    "random_fill": lambda r: (lambda kind: [
        np.empty(_n(r), np.int64 if kind == 5 else np.float32), kind, 0.0 if kind != 4 else 0.5,
        1.0 if kind != 3 else 10.0, int(r.integers(1 << 40))])(int(r.integers(6))),
    "random_gamma": lambda r: (lambda n: [np.empty(n, np.float32),
                                          r.uniform(0.1, 5.0, n).astype(np.float32),
                                          int(r.integers(1 << 40))])(_n(r)),
    "conv2d": lambda r: [_f32(r, 1, 4, 4, 2), _f32(r, 3, 3, 2, 3), _f32(r, 3),
                         np.empty((1, 4, 4, 3), np.float32), _conv_spec(), _conv_ws(False)],
    "conv2d_backprop_input": lambda r: [_f32(r, 1, 4, 4, 3), _f32(r, 3, 3, 2, 3),
                                        np.empty((1, 4, 4, 2), np.float32), _conv_spec(),
                                        _conv_ws(False)],
    "conv2d_backprop_filter": lambda r: [_f32(r, 1, 4, 4, 2), _f32(r, 1, 4, 4, 3),
                                         np.empty((3, 3, 2, 3), np.float32),
                                         np.empty(3, np.float32), _conv_spec(), _conv_ws(True)],
    "conv2d_workspace": lambda r: [_conv_spec(), bool(r.integers(2))],
    "max_pool2d": lambda r: [_f32(r, 1, 4, 4, 2), np.empty((1, 2, 2, 2), np.float32),
                             np.empty((1, 2, 2, 2), np.int32), _pool_spec()],
    "avg_pool2d": lambda r: [_f32(r, 1, 4, 4, 2), np.empty((1, 2, 2, 2), np.float32),
                             _pool_spec()],
    "max_pool2d_grad": lambda r: [_f32(r, 1, 2, 2, 2), r.integers(0, 4, (1, 2, 2, 2), np.int32),
                                  np.empty((1, 4, 4, 2), np.float32), _pool_spec()],
    "max_pool2d_select": lambda r: [_f32(r, 1, 4, 4, 2),
                                    r.integers(0, 4, (1, 2, 2, 2), np.int32),
                                    np.empty((1, 2, 2, 2), np.float32), _pool_spec()],
    "avg_pool2d_grad": lambda r: [_f32(r, 1, 2, 2, 2), np.empty((1, 4, 4, 2), np.float32),
                                  _pool_spec()],
    "batch_norm": lambda r: [_f32(r, 2, 3, 2), _f32(r, 3), _f32(r, 3), np.zeros(3, np.float32),
                             np.ones(3, np.float32), np.empty((2, 3, 2), np.float32),
                             np.empty(3, np.float32), np.empty(3, np.float32), 2, 3, 2, 0.9,
                             1e-3, bool(r.integers(2))],
    "batch_norm_grad": lambda r: [_f32(r, 2, 3, 2), _f32(r, 3), _f32(r, 3),
                                  np.ones(3, np.float32), _f32(r, 2, 3, 2),
                                  np.empty((2, 3, 2), np.float32), np.empty(3, np.float32),
                                  np.empty(3, np.float32), 2, 3, 2, bool(r.integers(2))],
    "dropout": lambda r: (lambda n: [_f32(r, n), np.empty(n, np.float32),
                                     np.empty(n, np.float32), 0.5,
                                     int(r.integers(1 << 40))])(_n(r)),
    "embedding": lambda r: [np.array([[0, 4], [2, 2]], np.int64), _f32(r, 5, 3),
                            np.empty((2, 2, 3), np.float32)],
    "rnn_forward": _rnn_forward,
    "rnn_backward": _rnn_backward,
    "linalg_lu": lambda r: [_f32(r, 2, 3, 4), np.empty((2, 3, 4), np.float32),
                            np.empty((2, 3), np.int32), 2, 3, 4],
    "linalg_slogdet": lambda r: [_f32(r, 2, 3, 3), np.empty(2, np.float32),
                                 np.empty(2, np.float32), 2, 3],
    "linalg_solve": lambda r: [_f32(r, 2, 3, 3), _f32(r, 2, 3, 2),
                               np.empty((2, 3, 2), np.float32), 2, 3, 2],
    "linalg_solve_triangular": lambda r: [_f32(r, 2, 3, 3), _f32(r, 2, 3, 2),
                                          np.empty((2, 3, 2), np.float32), 2, 3, 2,
                                          bool(r.integers(2))],
    "linalg_cholesky": lambda r: [_f32(r, 2, 3, 3), np.empty((2, 3, 3), np.float32), 2, 3],
    "linalg_eig": lambda r: [_f32(r, 2, 3, 3), np.empty((2, 3, 2), np.float32),
                             np.empty((2, 3, 3, 2), np.float32), 2, 3],
    "linalg_eigh": lambda r: [_f32(r, 2, 3, 3), np.empty((2, 3), np.float32),
                              np.empty((2, 3, 3), np.float32), 2, 3],
    "linalg_svd": lambda r: [_f32(r, 2, 4, 3), np.empty((2, 4, 4), np.float32),
                             np.empty((2, 3), np.float32), np.empty((2, 3, 3), np.float32),
                             2, 4, 3, 2],
    "linalg_qr": lambda r: [_f32(r, 2, 4, 3), np.empty((2, 4, 3), np.float32),
                            np.empty((2, 3, 3), np.float32), 2, 4, 3, False],
    "blas_threads": lambda r: [],
    "omp_threads": lambda r: [],
    "thread_limit": lambda r: [],
    "set_omp_threads": lambda r: [int(r.integers(1, 5))],
    "png_scan": lambda r: [os.fsencode(_png_file()) + b"\0/nonexistent/a.png\0", 1 << 20,
                           1 << 20],
    "png_unfilter": _png_unfilter,
}

# The entries that make their output (csrc/fresh.h), from their bindings' calls.
for _name, _out in (("unary", 2), ("binary", 3), ("compare", 3), ("where", 3), ("cast", 1),
                    ("reduce", 2), ("matmul", 2)):
    VALID[f"{_name}_fresh"] = functools.partial(_fresh, VALID[_name], _out)


# ---- hostile values -------------------------------------------------------------------------

HOSTILE_INTS = [0, 1, -1, 2, 3, 7, 64, 65, 2**31 - 1, 2**31, -2**31, 2**32, 2**32 + 1,
                0x55555556, 2**62, 2**62 + 1, 2**63 - 1, -2**63, 2**63, 2**64, -2**64, 10**30]
HOSTILE_FLOATS = [0.0, -1.0, 1.0, 0.5, 1.5, float("nan"), float("inf"), -float("inf"), 1e308,
                  -1e308, 2.0**63, 5e-324]
JUNK = [None, "x", b"\x00" * 8, 1.5, object(), {}, (), [None], ["a"], slice(1), 3 + 1j]


# Ranks whose multiples wrap around a 32-bit int: 3 * 0x55555556 = 2**32 + 2.
WRAPPING_RANKS = [0x55555556, 0x40000000, 0x40000001, 0x80000001, 2**32 + 1, 0x2AAAAAAB]


def _rank_wrap(r, a):
    """A spec or layout whose rank entry (the first) times 2, 3 or 4, plus 1 or 3, wraps to
    a small length in 32-bit int arithmetic, at that length: int(rank) * 3 + 3 == size."""
    rank = WRAPPING_RANKS[r.integers(len(WRAPPING_RANKS))]
    lengths = sorted({((c + k * rank) & 0xFFFFFFFF) for c in (1, 3) for k in (2, 3, 4)}
                     | {((c + k * (rank & 0xFFFFFFFF)) & 0xFFFFFFFF) for c in (1, 3)
                        for k in (2, 3, 4)})
    lengths = [n for n in lengths if 1 <= n <= 64] or [int(r.integers(1, 10))]
    b = np.ones(lengths[r.integers(len(lengths))], np.int64)
    b[0] = rank
    return b


def _read_only_pages(a):
    """a's shape and dtype on memory the process cannot write (as a read-only memmap)."""
    pages = mmap.mmap(-1, max(a.nbytes, 1), prot=mmap.PROT_READ)
    return np.frombuffer(pages, a.dtype, count=a.size).reshape(a.shape)


def _misaligned(a):
    buf = bytearray(a.nbytes + 1)
    m = np.frombuffer(buf, a.dtype, count=a.size, offset=1).reshape(a.shape)
    m[...] = a
    return m


def _read_only(a):
    c = a.copy()
    c.flags.writeable = False
    return c


def _strided(a):
    big = np.empty(a.shape + (2,), a.dtype)
    big[..., 0] = a
    return big[..., 0]


def _cast(dtype):
    def make(a):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return a.astype(dtype)
    return make


ARRAY_MUTATIONS = [
    ("object", _cast(object)),
    ("object-of-objects", lambda a: np.array([object() for _ in range(a.size)] or [object()],
                                             object)),
    ("big-endian", lambda a: a.astype(a.dtype.newbyteorder(">"))),
    ("float16", _cast(np.float16)),
    ("uint8", _cast(np.uint8)),
    ("int8", _cast(np.int8)),
    ("uint64", _cast(np.uint64)),
    ("int16", _cast(np.int16)),
    ("complex", _cast(np.complex64)),
    ("longdouble", _cast(np.longdouble)),
    ("datetime", lambda a: np.zeros(a.shape, "datetime64[s]")),
    ("string", lambda a: np.zeros(a.shape, "S4")),
    ("structured", lambda a: np.zeros(a.shape, [("a", np.float32), ("b", np.int64)])),
    ("float32", _cast(np.float32)),
    ("float64", _cast(np.float64)),
    ("int32", _cast(np.int32)),
    ("int64", _cast(np.int64)),
    ("bool", _cast(np.bool_)),
    ("non-contiguous", _strided),
    ("fortran", lambda a: np.asfortranarray(a) if a.ndim >= 2 and min(a.shape) > 1
        else _strided(a)),
    ("misaligned", _misaligned),
    ("read-only", _read_only),
    ("read-only-pages", _read_only_pages),
    ("bytes-backed", lambda a: np.frombuffer(a.tobytes(), a.dtype).reshape(a.shape)),
    ("zero-size", lambda a: a.reshape(-1)[:0]),
    ("one-short", lambda a: a.reshape(-1)[:-1].copy()),
    ("one-more", lambda a: np.concatenate([a.reshape(-1), a.reshape(-1)[:1]])),
    ("double", lambda a: np.concatenate([a.reshape(-1)] * 2)),
    ("scalar", lambda a: np.array(a.reshape(-1)[0] if a.size else 0, a.dtype)),
    ("flat", lambda a: a.reshape(-1).copy()),
    ("row", lambda a: a.reshape(1, -1).copy()),
    ("nan", lambda a: np.full(a.shape, np.nan, np.float32)),
    ("huge-values", lambda a: np.full(a.shape, 2**62, np.int64)),
    ("negative-values", lambda a: np.full(a.shape, -1, a.dtype)),
]


EVERY_ARRAY = [m for m in ARRAY_MUTATIONS
               if m[0] in ("object-of-objects", "big-endian", "float16", "uint8", "int8",
                           "uint64", "longdouble", "non-contiguous", "misaligned", "read-only",
                           "read-only-pages", "bytes-backed", "zero-size")]


def _every(make, v):
    if isinstance(v, np.ndarray):
        return make(v)
    if isinstance(v, list):
        return [make(a) for a in v]
    return v


def _hostile_array(r, a):
    """a, damaged: a hostile dtype, layout, writability or size; or junk."""
    if r.random() < 0.1:
        return "junk", JUNK[r.integers(len(JUNK))]
    name, make = ARRAY_MUTATIONS[r.integers(len(ARRAY_MUTATIONS))]
    if a.size == 0 and name in ("object-of-objects",):
        return name, make(np.zeros(1, a.dtype))
    return name, make(a)


def _hostile_entries(r, a):
    """An int64 array (a spec, a layout, indices) with a few entries hostile, or resized."""
    b = a.reshape(-1).copy()
    if r.random() < 0.2:
        return "rank-wrap", _rank_wrap(r, a)
    if b.size and r.random() < 0.8:
        for _ in range(int(r.integers(1, 4))):
            v = HOSTILE_INTS[r.integers(len(HOSTILE_INTS))]
            b[r.integers(b.size)] = v if -2**63 <= v < 2**63 else -1
        return "entries", b
    n = int(r.integers(0, 2 * b.size + 2))
    vals = [HOSTILE_INTS[i] for i in r.integers(len(HOSTILE_INTS), size=n)]
    return "resized", np.array([v if -2**63 <= v < 2**63 else 1 for v in vals], np.int64)


def _hostile_list(r, arrays):
    roll = r.random()
    if roll < 0.25:
        return "list-length", arrays[:-1] if arrays else [np.zeros(1, np.float32)]
    if roll < 0.35:
        return "list-junk", JUNK[r.integers(len(JUNK))]
    out = list(arrays)
    if out:
        k = int(r.integers(len(out)))
        name, out[k] = _hostile_array(r, out[k])
        return "list-" + name, out
    return "list-empty", out


def _hostile_value(r, v):
    if isinstance(v, np.ndarray):
        if v.dtype == np.int64 and r.random() < 0.5:
            return _hostile_entries(r, v)
        return _hostile_array(r, v)
    if isinstance(v, list):
        return _hostile_list(r, v)
    if r.random() < 0.15:
        return "junk", JUNK[r.integers(len(JUNK))]
    if isinstance(v, bool):
        return "bool", [2, -1, None, "True", 0.5, np.bool_(True)][r.integers(6)]
    if isinstance(v, int):
        return "int", HOSTILE_INTS[r.integers(len(HOSTILE_INTS))]
    return "float", HOSTILE_FLOATS[r.integers(len(HOSTILE_FLOATS))]


# Spec and index entries the sweep puts at every position of every int64 argument.
SPEC_INTS = [-1, 0, 2**31, 2**32 + 1, 0x55555556, 2**62, 2**63 - 1, -2**63]
HOSTILE_BOOLS = [2, -1, None, "True", 0.5, np.bool_(True)]


@functools.lru_cache(maxsize=None)
def sweep(name):
    """Every (argument, hostile value) pair of one function, once: the first calls of each
    function. Each entry is (position, kind, choice); position None for whole-call changes."""
    args = VALID[name](np.random.default_rng(0))
    plan = [(None, "fewer", 0), (None, "more", 0)]
    plan += [(None, "every", i) for i in range(len(EVERY_ARRAY))] if args else []
    for k, v in enumerate(args):
        plan += [(k, "junk", i) for i in range(len(JUNK))]
        if isinstance(v, np.ndarray):
            plan += [(k, "array", i) for i in range(len(ARRAY_MUTATIONS))]
            if v.dtype == np.int64:
                plan += [(k, "entry", (at, i)) for at in range(min(v.size, 24))
                         for i in range(len(SPEC_INTS))]
                plan += [(k, "rank-wrap", i) for i in range(len(WRAPPING_RANKS) * 3)]
        elif isinstance(v, list):
            plan += [(k, "list", (j, i)) for j in range(len(v)) for i in range(len(ARRAY_MUTATIONS))]
            plan += [(k, "list-length", 0)]
        elif isinstance(v, bool):
            plan += [(k, "bool", i) for i in range(len(HOSTILE_BOOLS))]
        elif isinstance(v, int):
            plan += [(k, "int", i) for i in range(len(HOSTILE_INTS))]
        else:
            plan += [(k, "float", i) for i in range(len(HOSTILE_FLOATS))]
    return plan


def _swept(r, args, step):
    """args changed by one step of sweep()."""
    k, kind, choice = step
    if kind == "fewer":
        return "one argument fewer", args[:-1]
    if kind == "more":
        return "one argument more", args + [np.zeros(1, np.float32)]
    if kind == "every":
        what, make = EVERY_ARRAY[choice]
        return f"every array {what}", [_every(make, v) for v in args]
    v = args[k]
    if kind == "junk":
        args[k] = JUNK[choice]
        return f"arg {k}: junk {JUNK[choice]!r}", args
    if kind == "array":
        what, make = ARRAY_MUTATIONS[choice]
        args[k] = make(v)
        return f"arg {k}: {what}", args
    if kind == "entry":
        at, i = choice
        b = v.reshape(-1).copy()
        if b.size:
            b[at % b.size] = SPEC_INTS[i]
        args[k] = b
        return f"arg {k}: entry {at % max(b.size, 1)} = {SPEC_INTS[i]}", args
    if kind == "rank-wrap":
        args[k] = _rank_wrap(r, v)
        return f"arg {k}: rank-wrap {args[k].tolist()}", args
    if kind == "list":
        j, i = choice
        what, make = ARRAY_MUTATIONS[i]
        args[k] = list(v)
        args[k][j] = make(v[j])
        return f"arg {k}[{j}]: {what}", args
    if kind == "list-length":
        args[k] = v[:-1]
        return f"arg {k}: one array fewer", args
    table = {"bool": HOSTILE_BOOLS, "int": HOSTILE_INTS, "float": HOSTILE_FLOATS}[kind]
    args[k] = table[choice]
    return f"arg {k}: {table[choice]!r}", args


def calls_of(name):
    """The number of fuzzed calls of one function: its sweep, then random ones."""
    return len(sweep(name)) + CALLS_PER_FUNCTION


def make_call(name, index, seed=SEED):
    """(description, args) of fuzzed call `index` of `name`: the same for the same seed."""
    r = np.random.default_rng([seed, index, sum(map(ord, name)), len(name)])
    args = VALID[name](r)
    plan = sweep(name)
    if index < len(plan):
        return _swept(r, args, plan[index])
    roll = r.random()
    if roll < 0.05:
        return "valid", args
    if roll < 0.10:  # wrong argument count
        return ("one argument fewer", args[:-1]) if args and r.random() < 0.5 \
            else ("one argument more", args + [np.zeros(1, np.float32)])
    if not args:
        return "valid", args
    if roll < 0.25:  # every array alike, so that checks comparing arguments pass
        name, make = EVERY_ARRAY[r.integers(len(EVERY_ARRAY))]
        return f"every array {name}", [_every(make, v) for v in args]
    count = 1 if roll < 0.6 else int(r.integers(2, 4))
    notes = []
    for k in sorted(r.choice(len(args), size=min(count, len(args)), replace=False)):
        what, args[k] = _hostile_value(r, args[k])
        notes.append(f"arg {k}: {what}")
    return ", ".join(notes), args


def public_functions():
    return sorted(n for n in dir(pd._C) if not n.startswith("_") and callable(getattr(pd._C, n)))


# ---- running calls in forked children -------------------------------------------------------

def _child(calls, progress, first, last):
    """Runs calls[first:last] (name, index); records the index of each before calling it."""
    signal.alarm(CHILD_SECONDS)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    for i in range(first, last):
        progress.seek(0)
        progress.write(struct.pack("q", i))
        name, index = calls[i]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, args = make_call(name, index)
        except BaseException:  # a generator bug: reported by the parent as such
            os._exit(3)
        try:
            getattr(pd._C, name)(*args)
        except Exception:  # a Python exception is the right answer to a bad call
            pass
    os._exit(0)


def run_calls(calls, call=None):
    """Runs every call in forked children; returns [(call, how it died)] for each call whose
    child died by a signal (or whose arguments could not be built). `call` replaces the
    function run in the child (for the harness's own test)."""
    progress = mmap.mmap(-1, 8)
    failures, first = [], 0
    while first < len(calls):
        last = min(first + BATCH, len(calls))
        progress.seek(0)
        progress.write(struct.pack("q", first))
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                (call or _child)(calls, progress, first, last)
            finally:
                os._exit(4)
        _, status = os.waitpid(pid, 0)
        at = struct.unpack("q", progress[:8])[0]
        if os.WIFSIGNALED(status):
            sig = signal.Signals(os.WTERMSIG(status)).name
            failures.append((calls[at], f"killed by {sig}"))
            first = at + 1
        elif os.WEXITSTATUS(status) != 0:
            failures.append((calls[at], f"exit status {os.WEXITSTATUS(status)}"))
            first = at + 1
        else:
            first = last
    return failures


def _describe(failures):
    lines = []
    for (name, index), how in failures[:20]:
        try:
            what, _ = make_call(name, index)
        except Exception as e:  # noqa: BLE001 - the description of a generator bug
            what = f"arguments could not be built: {e!r}"
        lines.append(f"_C.{name} call {index} (seed {SEED}; {what}): {how}")
    return "\n".join(lines)


# ---- tests ----------------------------------------------------------------------------------

def test_every_function_of_the_native_module_has_an_argument_generator():
    # A new binding must be added to VALID (and so fuzzed) before this passes.
    missing = sorted(set(public_functions()) - set(VALID))
    stale = sorted(set(VALID) - set(public_functions()))
    assert not missing, f"paddle._C functions without a fuzz generator: {missing}"
    assert not stale, f"fuzz generators for functions paddle._C no longer has: {stale}"


@pytest.mark.parametrize("name", sorted(VALID))
def test_the_generators_legitimate_call_is_accepted(name):
    # The fuzzer mutates legitimate calls: each must pass every check, so that a mutation
    # of one argument reaches the checks of that argument.
    threads = pd._C.omp_threads()
    try:
        getattr(pd._C, name)(*VALID[name](np.random.default_rng(0)))
    finally:
        pd._C.set_omp_threads(threads)


def _crash_at_call_2(calls, progress, first, last):
    """A child that dies of SIGSEGV at call 2, on purpose and silently: the fault handler
    (pytest enables it, and a fork inherits it) would print "Fatal Python error:
    Segmentation fault" and the stack into a passing run's output."""
    faulthandler.disable()
    for i in range(first, last):
        progress.seek(0)
        progress.write(struct.pack("q", i))
        if i == 2:
            os.kill(os.getpid(), signal.SIGSEGV)
    os._exit(0)


def test_the_harness_reports_a_child_killed_by_a_signal():
    # The fuzz test below can fail: a call that crashes is found and named.
    calls = [("fill", i) for i in range(5)]
    assert run_calls(calls, _crash_at_call_2) == [(("fill", 2), "killed by SIGSEGV")]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_the_child_killed_on_purpose_prints_nothing():
    # Under a fault handler (as under pytest), the crash the harness test causes on purpose
    # must not print "Fatal Python error: Segmentation fault" into a passing run.
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import test_native_fuzz as t; "
            "print(t.run_calls([('fill', i) for i in range(5)], t._crash_at_call_2))")
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code,
                           str(Path(__file__).parent)],
                          capture_output=True, text=True, timeout=120,
                          cwd=tempfile.gettempdir())  # the installed paddle, not a checkout's
    assert done.returncode == 0, done.stderr[-3000:]
    assert "killed by SIGSEGV" in done.stdout
    assert done.stderr == "", f"the child killed on purpose wrote to stderr:\n{done.stderr}"


def main():
    """Fuzzes every function; prints the failures as JSON and their description."""
    calls = [(name, i) for name in public_functions() for i in range(calls_of(name))]
    random.Random(SEED).shuffle(calls)  # a thread count set by one call affects the next
    failures = run_calls(calls)
    print(json.dumps({"calls": len(calls), "failures": failures}))
    print(_describe(failures), file=sys.stderr)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_no_function_of_the_native_module_crashes_on_hostile_arguments():
    root = str(Path(pd.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, __file__], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["calls"] == sum(calls_of(name) for name in public_functions())
    assert not report["failures"], (f"{len(report['failures'])} calls crashed:\n"
                                    f"{done.stderr[-3000:]}")


if __name__ == "__main__":
    main()
