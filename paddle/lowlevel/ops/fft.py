"""Discrete Fourier transforms on (real, imag) pairs of float tensors (paddle has no
complex dtype): `fft_c2c` (forward or inverse, over the last one or two axes), `fft_r2c`
(a real signal's non-negative frequencies) and `fft_c2r` (back to a real signal).

The kernels are pocketfft through numpy.fft on the CPU (a host kernel) and cuFFT through
cupy.fft on CUDA. Each op's gradient is its adjoint, written with these same ops, so
gradients of any order exist:
- forward c2c: N * inverse c2c of the gradient (N the transformed size); inverse: forward
  c2c / N;
- r2c with length n: n * c2r of the gradient with the bins that stand for two
  frequencies (all but DC and Nyquist) halved, cut or zero-padded to the input length;
- c2r with length n: r2c of the gradient, those bins doubled, / n, cut or padded to the
  input's bins.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.lowlevel.ops.fft import r2c
    >>> re, im = r2c(pd.constant(np.array([1.0, 2.0, 3.0, 4.0])), 4)
    >>> re.numpy().tolist(), im.numpy().tolist()
    ([10.0, -2.0, -2.0], [0.0, 2.0, 0.0])
"""
import numpy as np

from paddle.lowlevel.graph import FLOATS, apply, constant
from paddle.lowlevel.op import OPS, Op, register
from paddle.lowlevel.ops.math import zeros_like
from paddle.lowlevel.ops.shape import pad


class FFTOp(Op):
    def float_part(self, x, label):
        if x[1] not in FLOATS:
            raise TypeError(f"{self.name}: expected float parts, received {x[1]} as {label}")
        return x[0]

    def pair(self, re, im, axes):
        sr, si = self.float_part(re, "real"), self.float_part(im, "imag")
        if sr != si or re[1] != im[1]:
            self.fail("expected real and imaginary parts of one shape and dtype",
                      ("real", sr), ("imag", si))
        if len(sr) < axes or any(d is None for d in sr[len(sr) - axes:]):
            self.fail(f"expected known sizes of the last {axes} axes", ("real", sr))
        return sr


def _or_zeros(g, like):
    return g if g is not None else zeros_like(like)



def _fit(x, size):
    """x cut or zero-padded along its last axis to `size`."""
    have = x.shape[-1]
    if have > size:
        return x[..., :size]
    if have < size:
        return pad(x, [(0, 0)] * (x.ndim - 1) + [(0, size - have)])
    return x


def _two_sided(n, bins):
    """(bins,) weights: 1 for DC and (n even) Nyquist, 2 for the bins that stand for a
    frequency and its mirror."""
    w = np.full(bins, 2.0)
    w[0] = 1.0
    if n % 2 == 0 and bins == n // 2 + 1:
        w[-1] = 1.0
    return w


@register
class C2C(FFTOp):
    """(re, im) -> its DFT over the last `axes` axes (inverse: divided by their size)."""

    name = "fft_c2c"

    def infer(self, re, im, axes, inverse):
        shape = self.pair(re, im, axes)
        return [(shape, re[1]), (shape, re[1])]

    def grad(self, node, g):
        re, im = node.inputs
        axes, inverse = node.attrs["axes"], node.attrs["inverse"]
        size = float(np.prod(re.shape[re.ndim - axes:]))
        gr, gi = c2c(_or_zeros(g[0], re), _or_zeros(g[1], im), axes, not inverse)
        scale = 1.0 / size if inverse else size
        return [gr * scale, gi * scale]


@register
class R2C(FFTOp):
    """A real signal (..., L), cut or zero-padded to n -> (re, im) (..., n // 2 + 1)."""

    name = "fft_r2c"

    def infer(self, x, n):
        shape = self.float_part(x, "x")
        if not shape or shape[-1] is None:
            self.fail("expected a known last axis", ("x", shape))
        out = shape[:-1] + (n // 2 + 1,)
        return [(out, x[1]), (out, x[1])]

    def grad(self, node, g):
        x = node.inputs[0]
        n = node.attrs["n"]
        half = constant(1.0 / _two_sided(n, n // 2 + 1), dtype=x.dtype)
        gr = g[0] if g[0] is not None else zeros_like(g[1])
        gi = g[1] if g[1] is not None else zeros_like(g[0])
        gr, gi = gr * half, gi * half
        return [_fit(c2r(gr, gi, n) * float(n), x.shape[-1])]


@register
class C2R(FFTOp):
    """(re, im) (..., bins) -> the real signal (..., n) whose r2c they are (numpy's
    irfft: bins past n // 2 + 1 are ignored, missing ones are zeros)."""

    name = "fft_c2r"

    def infer(self, re, im, n):
        shape = self.pair(re, im, 1)
        return shape[:-1] + (n,), re[1]

    def grad(self, node, g):
        re = node.inputs[0]
        n = node.attrs["n"]
        bins = n // 2 + 1
        gr, gi = r2c(g[0], n)
        weights = constant(_two_sided(n, bins) / n, dtype=re.dtype)
        return [_fit(gr * weights, re.shape[-1]), _fit(gi * weights, re.shape[-1])]


def c2c(re, im, axes=1, inverse=False):
    return apply(OPS["fft_c2c"], [re, im], {"axes": int(axes), "inverse": bool(inverse)})


def r2c(x, n):
    return apply(OPS["fft_r2c"], [x], {"n": int(n)})


def c2r(re, im, n):
    return apply(OPS["fft_c2r"], [re, im], {"n": int(n)})
