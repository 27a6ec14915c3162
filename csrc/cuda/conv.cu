// im2col and its adjoint for 2-D convolution on NHWC tensors (csrc/nn/conv.cpp's geometry);
// the products around them are cuBLAS GEMMs issued by paddle/backend/cuda/nn_conv.py.
//
// Both work on a chunk of `images` images starting at n0 and on one group g of channels:
// im2col writes the chunk's columns, one row per output position (n, oh, ow) and one column
// per window tap and channel (kh, kw, c), zero where the tap falls in the padding; col2im
// writes dx of the chunk's images and the group's channels, each element the sum over the
// taps that read it (a gather: one thread per element, no atomics, every element written).
// Geometry: N H W C OH OW CO KH KW sh sw dh dw pt pl groups (CO and N unused here).
#include "common.cuh"

#define PD_CONV_PARAMS i64 H, i64 W, i64 C, i64 OH, i64 OW, i64 KH, i64 KW, i64 sh, i64 sw, \
                       i64 dh, i64 dw, i64 pt, i64 pl, i64 cg

template <typename T>
__global__ void im2col(const T* x, T* cols, i64 n0, i64 images, i64 g, PD_CONV_PARAMS) {
  const i64 Kg = KH * KW * cg;
  PD_LOOP(i, images * OH * OW * Kg) {
    const i64 col = i % Kg, p = i / Kg;
    const i64 c = col % cg, kw = (col / cg) % KW, kh = col / (cg * KW);
    const i64 ow = p % OW, oh = (p / OW) % OH, n = n0 + p / (OW * OH);
    const i64 ih = oh * sh - pt + kh * dh, iw = ow * sw - pl + kw * dw;
    cols[i] = ih >= 0 && ih < H && iw >= 0 && iw < W ? x[((n * H + ih) * W + iw) * C + g * cg + c]
                                                      : T(0);
  }
}

// The output index o whose window reads input index i at tap k (stride s, dilation d,
// padding p), or -1 when none does.
__device__ __forceinline__ i64 reader(i64 i, i64 k, i64 s, i64 d, i64 p, i64 out) {
  const i64 start = i + p - k * d;
  if (start < 0 || start % s) return -1;
  return start / s < out ? start / s : -1;
}

template <typename T>
__global__ void col2im(const T* cols, T* dx, i64 n0, i64 images, i64 g, PD_CONV_PARAMS) {
  const i64 Kg = KH * KW * cg;
  PD_LOOP(j, images * H * W * cg) {
    const i64 c = j % cg, w = (j / cg) % W, h = (j / (cg * W)) % H, n = j / (cg * W * H);
    T sum = T(0);
    for (i64 kh = 0; kh < KH; ++kh) {
      const i64 oh = reader(h, kh, sh, dh, pt, OH);
      if (oh < 0) continue;
      for (i64 kw = 0; kw < KW; ++kw) {
        const i64 ow = reader(w, kw, sw, dw, pl, OW);
        if (ow < 0) continue;
        sum += cols[((n * OH + oh) * OW + ow) * Kg + (kh * KW + kw) * cg + c];
      }
    }
    dx[(((n0 + n) * H + h) * W + w) * C + g * cg + c] = sum;
  }
}
