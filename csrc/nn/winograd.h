// Winograd convolutions for 3x3, stride-1, dilation-1 windows on one group (NHWC): the
// forward pass, and the input gradient as the same convolution of dy with the flipped,
// transposed filters. conv.cpp's entry points decide when to take it (winograd_tile).
#pragma once

#include "../common.h"

namespace paddle {

// y[n, oh, ow, o] = sum over kh, kw < 3 and c < C of
// x[n, oh - pt + kh, ow - pl + kw, c] * w(kh, kw, c, o), zeros outside x; where w(kh, kw, c,
// o) is filters[kh, kw, c, o] (a forward pass, filters 3x3xCxCO) or, with `flip`,
// filters[2 - kh, 2 - kw, o, c] (the input gradient: filters 3x3xCOxC).
struct WinogradConv {
  int64_t N, H, W, C, OH, OW, CO, pt, pl;
  bool flip;
  int m;  // output tile: 2 (F(2x2,3x3), 4x4 input tiles) or 4 (F(4x4,3x3), 6x6)

  int64_t a() const { return m + 2; }
  int64_t tiles() const { return N * ((OH + m - 1) / m) * ((OW + m - 1) / m); }
  int64_t block_tiles() const;  // tiles per block (one set of a*a products)
  int64_t shared_size() const;  // workspace elements for all threads: filters, transformed
  int64_t per_thread() const;   // and each thread's transformed tiles and products
};

// Runs the convolution (+ bias, + residual (y-shaped) when not null, then relu with
// `relu`) with nt threads; ws holds
// shared_size() + nt * per_thread() elements.
template <typename T>
void winograd_conv(const WinogradConv& g, const T* x, const T* w, const T* bias, T* y, T* ws,
                   int nt, bool relu, const T* residual = nullptr);

}  // namespace paddle
