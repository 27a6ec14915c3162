// Max and average pooling on NHWC tensors and their gradients, as csrc/nn/pool.cpp: windows
// are clipped to the input (never padded), average pooling divides by the elements it
// covered, max pooling saves each window's arg-max as kh * KW + kw (the first maximum in
// row-major order; a NaN wins and stays) and its gradient reads only that.
//
// One thread per output element for the forward passes and the select; one thread per
// input element for the gradients, which gather from the windows covering it in window
// order (oh, then ow), so no two threads write the same element and no atomics are needed.
// Geometry (the spec of pool.cpp): N H W C OH OW KH KW sh sw pt pl.
#include "common.cuh"

#define PD_POOL_PARAMS i64 N, i64 H, i64 W, i64 C, i64 OH, i64 OW, i64 KH, i64 KW, \
                       i64 sh, i64 sw, i64 pt, i64 pl

template <typename T>
__global__ void max_pool_forward(const T* x, T* y, int* where, PD_POOL_PARAMS) {
  PD_LOOP(i, N * OH * OW * C) {
    const i64 c = i % C, ow = (i / C) % OW, oh = (i / (C * OW)) % OH, n = i / (C * OW * OH);
    const i64 top = oh * sh - pt, left = ow * sw - pl;
    const i64 h0 = top > 0 ? top : 0, h1 = top + KH < H ? top + KH : H;
    const i64 w0 = left > 0 ? left : 0, w1 = left + KW < W ? left + KW : W;
    T m = x[((n * H + h0) * W + w0) * C + c];
    int at = int((h0 - top) * KW + (w0 - left));
    for (i64 h = h0; h < h1; ++h)
      for (i64 w = w0; w < w1; ++w) {
        const T s = x[((n * H + h) * W + w) * C + c];
        if (s > m || (s != s && m == m)) {
          m = s;
          at = int((h - top) * KW + (w - left));
        }
      }
    y[i] = m;
    where[i] = at;
  }
}

template <typename T>
__global__ void avg_pool_forward(const T* x, T* y, PD_POOL_PARAMS) {
  PD_LOOP(i, N * OH * OW * C) {
    const i64 c = i % C, ow = (i / C) % OW, oh = (i / (C * OW)) % OH, n = i / (C * OW * OH);
    const i64 top = oh * sh - pt, left = ow * sw - pl;
    const i64 h0 = top > 0 ? top : 0, h1 = top + KH < H ? top + KH : H;
    const i64 w0 = left > 0 ? left : 0, w1 = left + KW < W ? left + KW : W;
    T s = T(0);
    for (i64 h = h0; h < h1; ++h)
      for (i64 w = w0; w < w1; ++w) s += x[((n * H + h) * W + w) * C + c];
    y[i] = s * (T(1) / T((h1 - h0) * (w1 - w0)));
  }
}

// The output rows [*lo, *hi] whose windows (stride s, size k, padding p) cover input row h.
__device__ __forceinline__ void covering(i64 h, i64 s, i64 k, i64 p, i64 out, i64* lo,
                                         i64* hi) {
  const i64 first = h + p - k + 1;  // the lowest window start that still reaches h
  *lo = first <= 0 ? 0 : (first + s - 1) / s;
  *hi = (h + p) / s;
  if (*hi > out - 1) *hi = out - 1;
}

template <typename T>
__global__ void max_pool_grad(const T* g, const int* where, T* dx, PD_POOL_PARAMS) {
  PD_LOOP(j, N * H * W * C) {
    const i64 c = j % C, w = (j / C) % W, h = (j / (C * W)) % H, n = j / (C * W * H);
    i64 oh0, oh1, ow0, ow1;
    covering(h, sh, KH, pt, OH, &oh0, &oh1);
    covering(w, sw, KW, pl, OW, &ow0, &ow1);
    T d = T(0);
    for (i64 oh = oh0; oh <= oh1; ++oh)
      for (i64 ow = ow0; ow <= ow1; ++ow) {
        const i64 o = ((n * OH + oh) * OW + ow) * C + c;
        if (where[o] == int((h - (oh * sh - pt)) * KW + (w - (ow * sw - pl)))) d += g[o];
      }
    dx[j] = d;
  }
}

template <typename T>
__global__ void max_pool_select(const T* gg, const int* where, T* out, PD_POOL_PARAMS) {
  PD_LOOP(i, N * OH * OW * C) {
    const i64 c = i % C, ow = (i / C) % OW, oh = (i / (C * OW)) % OH, n = i / (C * OW * OH);
    const i64 top = oh * sh - pt, left = ow * sw - pl, pos = where[i];
    const i64 h = top + (pos >= 0 ? pos / KW : -1), w = left + (pos >= 0 ? pos % KW : -1);
    // A position outside the clipped window selects nothing, as pool.cpp.
    const bool inside = pos >= 0 && pos < KH * KW && h >= 0 && h < H && w >= 0 && w < W;
    out[i] = inside ? gg[((n * H + h) * W + w) * C + c] : T(0);
  }
}

template <typename T>
__global__ void avg_pool_grad(const T* g, T* dx, PD_POOL_PARAMS) {
  PD_LOOP(j, N * H * W * C) {
    const i64 c = j % C, w = (j / C) % W, h = (j / (C * W)) % H, n = j / (C * W * H);
    i64 oh0, oh1, ow0, ow1;
    covering(h, sh, KH, pt, OH, &oh0, &oh1);
    covering(w, sw, KW, pl, OW, &ow0, &ow1);
    T d = T(0);
    for (i64 oh = oh0; oh <= oh1; ++oh) {
      const i64 top = oh * sh - pt;
      const i64 rows = (top + KH < H ? top + KH : H) - (top > 0 ? top : 0);
      for (i64 ow = ow0; ow <= ow1; ++ow) {
        const i64 left = ow * sw - pl;
        const i64 cols = (left + KW < W ? left + KW : W) - (left > 0 ? left : 0);
        d += g[((n * OH + oh) * OW + ow) * C + c] * (T(1) / T(rows * cols));
      }
    }
    dx[j] = d;
  }
}
