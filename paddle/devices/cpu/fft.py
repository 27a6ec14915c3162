"""CPU kernels of the Fourier transforms (paddle/lowlevel/ops/fft.py): pocketfft through
numpy.fft, a host kernel (the one family whose CPU kernel is NumPy's, not csrc/'s: the
task's choice of FFT library), writing into the plan's buffers."""
import numpy as np

from paddle.devices.cpu.table import kernel


def _axes(n):
    return tuple(range(-n, 0))


@kernel("fft_c2c")
def _c2c(node, ins, outs, ctx):
    re, im = ins
    axes = _axes(node.attrs["axes"])
    transform = np.fft.ifftn if node.attrs["inverse"] else np.fft.fftn

    def run():
        z = transform(re + 1j * im, axes=axes)
        np.copyto(outs[0], z.real)
        np.copyto(outs[1], z.imag)
    return run


@kernel("fft_r2c")
def _r2c(node, ins, outs, ctx):
    x, n = ins[0], node.attrs["n"]

    def run():
        z = np.fft.rfft(x, n)
        np.copyto(outs[0], z.real)
        np.copyto(outs[1], z.imag)
    return run


@kernel("fft_c2r")
def _c2r(node, ins, outs, ctx):
    re, im = ins
    n = node.attrs["n"]
    return lambda: np.copyto(outs[0], np.fft.irfft(re + 1j * im, n))
