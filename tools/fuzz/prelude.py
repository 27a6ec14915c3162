"""What a snippet can use: the code run in each child before it (`check`, `close`,
`finite`, `rnd` and the NumPy references of the sweeps)."""


PRELUDE = r'''
import numpy as np
import paddle as pd


class Garbage(Exception):
    """A result that is wrong, or invalid input that was accepted."""


def check(ok, what):
    if not ok:
        raise Garbage(what)


def close(got, want, what="result", tol=1e-4):
    got, want = np.asarray(got), np.asarray(want)
    check(got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}")
    check(np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True),
          f"{what}: values differ from the reference (max abs diff "
          f"{np.nanmax(np.abs(got.astype(float) - want.astype(float))) if got.size else 0})")


def finite(got, what="result"):
    check(np.all(np.isfinite(np.asarray(got, dtype=float))), f"{what} has NaN/inf from finite input")


def rnd(*shape, dtype="float32", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def ref_conv2d(x, w, strides=(1, 1), pads=((0, 0), (0, 0)), dilation=(1, 1), groups=1):
    """Direct NHWC convolution (filters (kh, kw, cin // groups, cout)); padding is never
    materialized, so huge pads and dilations work."""
    x = x.astype(np.float64)
    n, h, wd, c = x.shape
    kh, kw, cg, co = w.shape
    eh, ew = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    oh = (h + sum(pads[0]) - eh) // strides[0] + 1
    ow = (wd + sum(pads[1]) - ew) // strides[1] + 1
    y = np.zeros((n, oh, ow, co))
    cog = co // groups
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    ih = i * strides[0] - pads[0][0] + a * dilation[0]
                    iw = j * strides[1] - pads[1][0] + b * dilation[1]
                    if not (0 <= ih < h and 0 <= iw < wd):
                        continue
                    for g in range(groups):
                        y[:, i, j, g * cog:(g + 1) * cog] += x[:, ih, iw, g * cg:(g + 1) * cg] @ \
                            w[a, b, :, g * cog:(g + 1) * cog]
    return y


def same_pads(size, k, s, d=1):
    eff = (k - 1) * d + 1
    total = max((-(-size // s) - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def ref_max_pool_grad(x, k, s, pads):
    """d sum(max_pool(x)) / dx: one per window at its first maximum (row-major)."""
    n, h, w, c = x.shape
    oh = (h + sum(pads[0]) - k[0]) // s[0] + 1
    ow = (w + sum(pads[1]) - k[1]) // s[1] + 1
    g = np.zeros(x.shape)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    h0, w0 = max(i * s[0] - pads[0][0], 0), max(j * s[1] - pads[1][0], 0)
                    win = x[b, h0:max(i * s[0] - pads[0][0] + k[0], 0),
                            w0:max(j * s[1] - pads[1][0] + k[1], 0), ch]
                    a, bb = np.unravel_index(np.argmax(win), win.shape)
                    g[b, h0 + a, w0 + bb, ch] += 1
    return g


def _sig(v):
    return 1 / (1 + np.exp(-v))


def ref_rnn(kind, x, W, R, b, h0=None, c0=None):
    """Keras's LSTM (gates i, f, c, o) / GRU (z, r, h; reset_after or not), every step's h."""
    n, t, _ = x.shape
    u = R.shape[0]
    h = np.zeros((n, u)) if h0 is None else h0.astype(np.float64)
    c = np.zeros((n, u)) if c0 is None else c0.astype(np.float64)
    out = []
    for s in range(t):
        if kind == "lstm":
            z = x[:, s] @ W + h @ R + b
            i, f, g, o = _sig(z[:, :u]), _sig(z[:, u:2 * u]), np.tanh(z[:, 2 * u:3 * u]), \
                _sig(z[:, 3 * u:])
            c = f * c + i * g
            h = o * np.tanh(c)
        elif kind == "gru":  # reset_after, bias (2, 3u)
            xz, hz = x[:, s] @ W + b[0], h @ R + b[1]
            zg, r = _sig(xz[:, :u] + hz[:, :u]), _sig(xz[:, u:2 * u] + hz[:, u:2 * u])
            hh = np.tanh(xz[:, 2 * u:] + r * hz[:, 2 * u:])
            h = zg * h + (1 - zg) * hh
        else:  # gru with the reset gate before the product, bias (3u,)
            xz = x[:, s] @ W + b
            zg = _sig(xz[:, :u] + h @ R[:, :u])
            r = _sig(xz[:, u:2 * u] + h @ R[:, u:2 * u])
            hh = np.tanh(xz[:, 2 * u:] + (r * h) @ R[:, 2 * u:])
            h = zg * h + (1 - zg) * hh
        out.append(h)
    return np.stack(out, 1)


def ref_pool(x, k, s, pads=((0, 0), (0, 0)), kind="max"):
    """NHWC pooling over the input elements each window covers (padding never counts)."""
    n, h, w, c = x.shape
    oh = (h + sum(pads[0]) - k[0]) // s[0] + 1
    ow = (w + sum(pads[1]) - k[1]) // s[1] + 1
    y = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - pads[0][0], j * s[1] - pads[1][0]
            win = x[:, max(h0, 0):max(h0 + k[0], 0), max(w0, 0):max(w0 + k[1], 0), :]
            y[:, i, j] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return y
'''
