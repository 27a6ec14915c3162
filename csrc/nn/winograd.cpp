// Winograd F(2x2,3x3) and F(4x4,3x3) convolutions on NHWC tensors (Lavin & Gray, "Fast
// Algorithms for Convolutional Neural Networks", 2015).
//
// The output is cut into m x m tiles (m = 2 or 4), each computed from an a x a input tile
// (a = m + 2). With B^T, G and A^T the algorithm's matrices, a tile's output is
// A^T [ sum over channels c of (G g_c G^T) * (B^T d_c B) ] A: one elementwise product per
// "transform point" (a * a of them) summed over channels, which is a matrix product per
// point over a block of tiles: M_p (tiles x CO) = V_p (tiles x C) U_p (C x CO). So:
//   1. the filters are transformed once per call, U_p (C x CO) for each point p (the
//      input gradient first turns them 180 degrees and swaps their channels);
//   2. each thread takes a block of tiles, transforms their input tiles into V (a * a
//      matrices, tiles x C, channels contiguous as NHWC has them), runs a * a products on
//      the BLAS (M_p = V_p U_p), and transforms M back into output tiles, adding the bias
//      and applying relu while they are in cache.
// F(4x4) does 4x fewer multiplies than the direct product (36 per 16 outputs against 144),
// F(2x2) 2.25x fewer, for transforms that read and write each tile's channels a few times.
// Every transform is a few additions per channel, run over runs of channels so that they
// vectorize; they are built for AVX-512 and AVX2 besides the SSE2 baseline, like the taps
// path in conv.cpp.
#include "winograd.h"

#include <algorithm>

#include "../blas.h"
#include "nn.h"

namespace paddle {
namespace {

#define PD_WINO_INLINE __attribute__((always_inline)) inline

// Channels transformed together: runs short enough that a tile's intermediate rows stay
// in L1, long enough for the vector loops.
constexpr int64_t kRun = 64;

// ---- the 1-D transforms, each over `len` channels ----------------------------------------
// B^T: the input tile's a values (along one axis) into a transformed values.
template <typename T>
PD_WINO_INLINE void input_1d(const T* const* d, T* const* o, int64_t len,
                             std::integral_constant<int, 2>) {
  const T* __restrict d0 = d[0]; const T* __restrict d1 = d[1];
  const T* __restrict d2 = d[2]; const T* __restrict d3 = d[3];
  T* __restrict o0 = o[0]; T* __restrict o1 = o[1];
  T* __restrict o2 = o[2]; T* __restrict o3 = o[3];
  for (int64_t l = 0; l < len; ++l) {
    o0[l] = d0[l] - d2[l];
    o1[l] = d1[l] + d2[l];
    o2[l] = d2[l] - d1[l];
    o3[l] = d1[l] - d3[l];
  }
}
template <typename T>
PD_WINO_INLINE void input_1d(const T* const* d, T* const* o, int64_t len,
                             std::integral_constant<int, 4>) {
  const T* __restrict d0 = d[0]; const T* __restrict d1 = d[1];
  const T* __restrict d2 = d[2]; const T* __restrict d3 = d[3];
  const T* __restrict d4 = d[4]; const T* __restrict d5 = d[5];
  T* __restrict o0 = o[0]; T* __restrict o1 = o[1]; T* __restrict o2 = o[2];
  T* __restrict o3 = o[3]; T* __restrict o4 = o[4]; T* __restrict o5 = o[5];
  for (int64_t l = 0; l < len; ++l) {
    const T a = d4[l] - T(4) * d2[l], b = d3[l] - T(4) * d1[l];
    const T c = d4[l] - d2[l], e = T(2) * (d3[l] - d1[l]);
    o0[l] = T(4) * d0[l] - T(5) * d2[l] + d4[l];
    o1[l] = a + b;
    o2[l] = a - b;
    o3[l] = c + e;
    o4[l] = c - e;
    o5[l] = T(4) * d1[l] - T(5) * d3[l] + d5[l];
  }
}

// G: a filter's 3 taps (along one axis) into a transformed values.
template <typename T>
PD_WINO_INLINE void filter_1d(const T* const* g, T* const* o, int64_t len,
                              std::integral_constant<int, 2>) {
  const T* __restrict g0 = g[0]; const T* __restrict g1 = g[1]; const T* __restrict g2 = g[2];
  T* __restrict o0 = o[0]; T* __restrict o1 = o[1];
  T* __restrict o2 = o[2]; T* __restrict o3 = o[3];
  for (int64_t l = 0; l < len; ++l) {
    const T s = T(0.5) * (g0[l] + g2[l]), h = T(0.5) * g1[l];
    o0[l] = g0[l];
    o1[l] = s + h;
    o2[l] = s - h;
    o3[l] = g2[l];
  }
}
template <typename T>
PD_WINO_INLINE void filter_1d(const T* const* g, T* const* o, int64_t len,
                              std::integral_constant<int, 4>) {
  const T* __restrict g0 = g[0]; const T* __restrict g1 = g[1]; const T* __restrict g2 = g[2];
  T* __restrict o0 = o[0]; T* __restrict o1 = o[1]; T* __restrict o2 = o[2];
  T* __restrict o3 = o[3]; T* __restrict o4 = o[4]; T* __restrict o5 = o[5];
  for (int64_t l = 0; l < len; ++l) {
    const T s = -(g0[l] + g2[l]) / T(6), h = g1[l] / T(6);
    const T t = g0[l] / T(24) + g2[l] / T(6), k = g1[l] / T(12);
    o0[l] = g0[l] / T(4);
    o1[l] = s - h;
    o2[l] = s + h;
    o3[l] = t + k;
    o4[l] = t - k;
    o5[l] = g2[l];
  }
}

// A^T: a products (along one axis) into the m outputs.
template <typename T>
PD_WINO_INLINE void output_1d(const T* const* p, T* const* o, int64_t len,
                              std::integral_constant<int, 2>) {
  const T* __restrict p0 = p[0]; const T* __restrict p1 = p[1];
  const T* __restrict p2 = p[2]; const T* __restrict p3 = p[3];
  T* __restrict o0 = o[0]; T* __restrict o1 = o[1];
  for (int64_t l = 0; l < len; ++l) {
    o0[l] = p0[l] + p1[l] + p2[l];
    o1[l] = p1[l] - p2[l] - p3[l];
  }
}
template <typename T>
PD_WINO_INLINE void output_1d(const T* const* p, T* const* o, int64_t len,
                              std::integral_constant<int, 4>) {
  const T* __restrict p0 = p[0]; const T* __restrict p1 = p[1]; const T* __restrict p2 = p[2];
  const T* __restrict p3 = p[3]; const T* __restrict p4 = p[4]; const T* __restrict p5 = p[5];
  T* __restrict o0 = o[0]; T* __restrict o1 = o[1];
  T* __restrict o2 = o[2]; T* __restrict o3 = o[3];
  for (int64_t l = 0; l < len; ++l) {
    const T s = p1[l] + p2[l], d = p1[l] - p2[l];
    const T s2 = p3[l] + p4[l], d2 = p3[l] - p4[l];
    o0[l] = p0[l] + s + s2;
    o1[l] = d + T(2) * d2;
    o2[l] = s + T(4) * s2;
    o3[l] = d + T(8) * d2 + p5[l];
  }
}

// ---- the 2-D transforms ------------------------------------------------------------------
// The filters' transform for input channels [k0, k1): U[p][k][n] from the filters as
// (3, 3, C, CO) (src), over runs of output channels. tmp holds 3 * a * kRun values.
template <int M, typename T>
PD_WINO_INLINE void filters_impl(const WinogradConv& g, const T* src, T* U, int64_t k0,
                                 int64_t k1, T* tmp) {
  constexpr int A = M + 2;
  const std::integral_constant<int, M> tag;
  const int64_t C = g.C, CO = g.CO;
  for (int64_t k = k0; k < k1; ++k)
    for (int64_t n0 = 0; n0 < CO; n0 += kRun) {
      const int64_t len = std::min(kRun, CO - n0);
      for (int kh = 0; kh < 3; ++kh) {  // along kw: 3 taps into a columns
        const T* in[3];
        T* out[A];
        for (int kw = 0; kw < 3; ++kw) in[kw] = src + ((kh * 3 + kw) * C + k) * CO + n0;
        for (int j = 0; j < A; ++j) out[j] = tmp + (kh * A + j) * kRun;
        filter_1d(in, out, len, tag);
      }
      for (int j = 0; j < A; ++j) {  // along kh: 3 rows into a
        const T* in[3];
        T* out[A];
        for (int kh = 0; kh < 3; ++kh) in[kh] = tmp + (kh * A + j) * kRun;
        for (int i = 0; i < A; ++i) out[i] = U + ((i * A + j) * C + k) * CO + n0;
        filter_1d(in, out, len, tag);
      }
    }
}

// Geometry of one tile: its image and the top-left corner of its output.
struct Tile {
  int64_t n, oh, ow;
};
inline Tile tile_at(const WinogradConv& g, int64_t t) {
  const int64_t th = (g.OH + g.m - 1) / g.m, tw = (g.OW + g.m - 1) / g.m;
  return {t / (th * tw), t / tw % th * g.m, t % tw * g.m};
}

// The input tiles of tiles [t0, t0 + nb) into V[p][tile][C]. tmp: a * a * kRun values;
// zeros: kRun zeros (what a tile reads beyond the input).
template <int M, typename T>
PD_WINO_INLINE void inputs_impl(const WinogradConv& g, const T* x, int64_t t0, int64_t nb,
                                T* V, T* tmp, const T* zeros) {
  constexpr int A = M + 2;
  const std::integral_constant<int, M> tag;
  const int64_t C = g.C;
  for (int64_t b = 0; b < nb; ++b) {
    const Tile tl = tile_at(g, t0 + b);
    const int64_t ih0 = tl.oh - g.pt, iw0 = tl.ow - g.pl;
    for (int64_t c0 = 0; c0 < C; c0 += kRun) {
      const int64_t len = std::min(kRun, C - c0);
      for (int r = 0; r < A; ++r) {  // along w, each row of the tile
        const int64_t ih = ih0 + r;
        const bool row_in = ih >= 0 && ih < g.H;
        const T* in[A];
        T* out[A];
        for (int j = 0; j < A; ++j) {
          const int64_t iw = iw0 + j;
          in[j] = row_in && iw >= 0 && iw < g.W ? x + ((tl.n * g.H + ih) * g.W + iw) * C + c0
                                                : zeros;
          out[j] = tmp + (r * A + j) * kRun;
        }
        input_1d(in, out, len, tag);
      }
      for (int j = 0; j < A; ++j) {  // along h, each column
        const T* in[A];
        T* out[A];
        for (int r = 0; r < A; ++r) {
          in[r] = tmp + (r * A + j) * kRun;
          out[r] = V + ((r * A + j) * nb + b) * C + c0;
        }
        input_1d(in, out, len, tag);
      }
    }
  }
}

// The products of tiles [t0, t0 + nb), Mp[p][tile][CO], back into y (+ bias, + residual,
// relu): only
// the outputs inside y. tmp: a * a * kRun values.
template <int M, typename T>
PD_WINO_INLINE void outputs_impl(const WinogradConv& g, const T* Mp, int64_t t0, int64_t nb,
                                 const T* bias, const T* residual, bool relu, T* y,
                                 T* tmp) {
  constexpr int A = M + 2;
  const std::integral_constant<int, M> tag;
  const int64_t CO = g.CO;
  T* rows = tmp;                 // A x M runs: after the transform along w
  T* outs = tmp + A * M * kRun;  // M x M runs: the tile's outputs
  for (int64_t b = 0; b < nb; ++b) {
    const Tile tl = tile_at(g, t0 + b);
    for (int64_t c0 = 0; c0 < CO; c0 += kRun) {
      const int64_t len = std::min(kRun, CO - c0);
      for (int i = 0; i < A; ++i) {
        const T* in[A];
        T* out[M];
        for (int j = 0; j < A; ++j) in[j] = Mp + ((i * A + j) * nb + b) * CO + c0;
        for (int j = 0; j < M; ++j) out[j] = rows + (i * M + j) * kRun;
        output_1d(in, out, len, tag);
      }
      for (int j = 0; j < M; ++j) {
        const T* in[A];
        T* out[M];
        for (int i = 0; i < A; ++i) in[i] = rows + (i * M + j) * kRun;
        for (int r = 0; r < M; ++r) out[r] = outs + (r * M + j) * kRun;
        output_1d(in, out, len, tag);
      }
      for (int r = 0; r < M && tl.oh + r < g.OH; ++r)
        for (int j = 0; j < M && tl.ow + j < g.OW; ++j) {
          const T* __restrict s = outs + (r * M + j) * kRun;
          const int64_t at = ((tl.n * g.OH + tl.oh + r) * g.OW + tl.ow + j) * CO + c0;
          T* __restrict d = y + at;
          if (residual) {  // (s + bias) + residual, then relu: the unfused ops' order
            const T* __restrict rr = residual + at;
            if (bias) {
              const T* __restrict bb = bias + c0;
              if (relu)
                for (int64_t l = 0; l < len; ++l) d[l] = relu_of(s[l] + bb[l] + rr[l]);
              else
                for (int64_t l = 0; l < len; ++l) d[l] = s[l] + bb[l] + rr[l];
            } else if (relu) {
              for (int64_t l = 0; l < len; ++l) d[l] = relu_of(s[l] + rr[l]);
            } else {
              for (int64_t l = 0; l < len; ++l) d[l] = s[l] + rr[l];
            }
          } else if (bias) {
            const T* __restrict bb = bias + c0;
            if (relu)
              for (int64_t l = 0; l < len; ++l) d[l] = relu_of(s[l] + bb[l]);
            else
              for (int64_t l = 0; l < len; ++l) d[l] = s[l] + bb[l];
          } else if (relu) {
            for (int64_t l = 0; l < len; ++l) d[l] = relu_of(s[l]);
          } else {
            for (int64_t l = 0; l < len; ++l) d[l] = s[l];
          }
        }
    }
  }
}

// Each transform built for the baseline, AVX2 + FMA and AVX-512, picked by vector_bytes().
#if defined(PD_VECTOR_BUILDS)
#define PD_WINO_BUILDS(NAME, PARAMS, ARGS)                                                  \
  template <int M, typename T>                                                             \
  __attribute__((target("avx512f,avx512dq,avx2,fma"))) void NAME##_avx512 PARAMS {         \
    NAME##_impl<M> ARGS;                                                                   \
  }                                                                                        \
  template <int M, typename T>                                                             \
  __attribute__((target("avx2,fma"))) void NAME##_avx2 PARAMS { NAME##_impl<M> ARGS; }     \
  template <int M, typename T>                                                             \
  void NAME##_base PARAMS { NAME##_impl<M> ARGS; }                                         \
  template <int M, typename T>                                                             \
  void NAME PARAMS {                                                                       \
    switch (vector_bytes()) {                                                              \
      case 64: return NAME##_avx512<M> ARGS;                                               \
      case 32: return NAME##_avx2<M> ARGS;                                                 \
    }                                                                                      \
    NAME##_base<M> ARGS;                                                                   \
  }
#else
#define PD_WINO_BUILDS(NAME, PARAMS, ARGS) \
  template <int M, typename T>             \
  void NAME PARAMS { NAME##_impl<M> ARGS; }
#endif

PD_WINO_BUILDS(filters, (const WinogradConv& g, const T* src, T* U, int64_t k0, int64_t k1,
                         T* tmp),
               (g, src, U, k0, k1, tmp))
PD_WINO_BUILDS(inputs, (const WinogradConv& g, const T* x, int64_t t0, int64_t nb, T* V,
                        T* tmp, const T* zeros),
               (g, x, t0, nb, V, tmp, zeros))
PD_WINO_BUILDS(outputs, (const WinogradConv& g, const T* Mp, int64_t t0, int64_t nb,
                         const T* bias, const T* residual, bool relu, T* y, T* tmp),
               (g, Mp, t0, nb, bias, residual, relu, y, tmp))

// Per-thread scratch besides V and M: the 2-D transforms' intermediate runs, and zeros.
constexpr int64_t kScratch = 2 * 36 * kRun + kRun;

template <int M, typename T>
void run(const WinogradConv& g, const T* x, const T* w, const T* bias, T* y, T* ws, int nt,
         bool relu, const T* residual) {
  constexpr int A = M + 2;
  const int64_t C = g.C, CO = g.CO, B = g.block_tiles(), tiles = g.tiles();
  const int64_t nblocks = (tiles + B - 1) / B, each = g.per_thread();
  T* flipped = ws;                             // 9 * C * CO, the input gradient's filters
  T* U = ws + (g.flip ? 9 * C * CO : 0);       // A * A * C * CO
  T* mine0 = ws + g.shared_size();
  _Pragma("omp parallel num_threads(nt)")
  {
    T* V = mine0 + omp_get_thread_num() * each;  // A * A * B * C
    T* Mp = V + A * A * B * C;                   // A * A * B * CO
    T* tmp = Mp + A * A * B * CO;
    T* zeros = tmp + 2 * 36 * kRun;
    std::fill(zeros, zeros + kRun, T(0));
    const T* src = w;
    if (g.flip) {  // flipped[kh, kw, k, n] = w[2 - kh, 2 - kw, n, k]
      _Pragma("omp for schedule(static)")
      for (int64_t t = 0; t < 9; ++t)
        for (int64_t n = 0; n < CO; ++n)
          for (int64_t k = 0; k < C; ++k)
            flipped[(t * C + k) * CO + n] = w[((8 - t) * CO + n) * C + k];
      src = flipped;
    }
    // The filters' transform costs about a * (a + 3) operations per channel pair against
    // 2 * a * a per tile and pair in the products (under 1% of the call from 64 tiles,
    // 0.1-0.3% for the ResNet shapes), so it is redone on every call rather than cached
    // beside the weights, where an optimizer step could leave it stale.
    _Pragma("omp for schedule(static)")
    for (int64_t k = 0; k < C; ++k) filters<M>(g, src, U, k, k + 1, tmp);
    _Pragma("omp for schedule(dynamic, 1)")
    for (int64_t i = 0; i < nblocks; ++i) {
      const int64_t t0 = i * B, nb = std::min(B, tiles - t0);
      inputs<M>(g, x, t0, nb, V, tmp, zeros);
      for (int p = 0; p < A * A; ++p)
        blas_gemm(false, false, nb, CO, C, T(1), V + p * nb * C, C, U + p * C * CO, CO, T(0),
                  Mp + p * nb * CO, CO);
      outputs<M>(g, Mp, t0, nb, bias, residual, relu, y, tmp);
    }
  }
}

}  // namespace

int64_t WinogradConv::block_tiles() const {
  // V and M of one block within 1 MiB of float32 for F(2x2), 2 MiB for F(4x4) (about
  // 128 tiles at 64 channels: measured best of 2^16 to 2^20 elements, docs/performance.md),
  // at least 16 tiles so that the products stay products.
  const int64_t aa = a() * a(), budget = int64_t(1) << (m == 4 ? 19 : 18);
  const int64_t fit = std::max<int64_t>(16, budget / (aa * (C + CO)));
  return std::max<int64_t>(1, std::min(fit, tiles()));
}

int64_t WinogradConv::shared_size() const {
  const char* op = "conv2d";
  return size_mul(size_add(flip ? 9 : 0, a() * a(), op), size_mul(C, CO, op), op);
}

int64_t WinogradConv::per_thread() const {
  const char* op = "conv2d";
  return size_add(size_mul(size_mul(a() * a(), block_tiles(), op), size_add(C, CO, op), op),
                  kScratch, op);
}

template <typename T>
void winograd_conv(const WinogradConv& g, const T* x, const T* w, const T* bias, T* y, T* ws,
                   int nt, bool relu, const T* residual) {
  if (g.m == 4) return run<4>(g, x, w, bias, y, ws, nt, relu, residual);
  run<2>(g, x, w, bias, y, ws, nt, relu, residual);
}

template void winograd_conv<float>(const WinogradConv&, const float*, const float*,
                                   const float*, float*, float*, int, bool, const float*);
template void winograd_conv<double>(const WinogradConv&, const double*, const double*,
                                    const double*, double*, double*, int, bool,
                                    const double*);

}  // namespace paddle
