"""CUDA kernels of the Fourier transforms (paddle/lowlevel/ops/fft.py): cuFFT through
cupy.fft (numpy.fft when the backend is simulated). cupy.fft allocates its results and
plans, so these kernels are not captured in a CUDA graph."""
from paddle.devices.cuda.table import kernel

_REASON = "cupy.fft allocates its results (and cuFFT plans) on every call"


def _axes(n):
    return tuple(range(-n, 0))


@kernel("fft_c2c")
def _c2c(node, ins, outs, ctx):
    xp, (re, im) = ctx.xp, ins
    axes = _axes(node.attrs["axes"])
    transform = xp.fft.ifftn if node.attrs["inverse"] else xp.fft.fftn
    ctx.not_capturable(_REASON)

    def run():
        z = transform(re + 1j * im, axes=axes)
        xp.copyto(outs[0], z.real)
        xp.copyto(outs[1], z.imag)
    return run


@kernel("fft_r2c")
def _r2c(node, ins, outs, ctx):
    xp, x, n = ctx.xp, ins[0], node.attrs["n"]
    ctx.not_capturable(_REASON)

    def run():
        z = xp.fft.rfft(x, n)
        xp.copyto(outs[0], z.real)
        xp.copyto(outs[1], z.imag)
    return run


@kernel("fft_c2r")
def _c2r(node, ins, outs, ctx):
    xp, (re, im), n = ctx.xp, ins, node.attrs["n"]
    ctx.not_capturable(_REASON)
    return lambda: xp.copyto(outs[0], xp.fft.irfft(re + 1j * im, n))
