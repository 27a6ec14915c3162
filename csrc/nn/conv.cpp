// 2-D convolution on NHWC tensors: forward, gradient of the input, gradient of the filters.
//
// All three are im2col + GEMM on the BLAS, except for windows too short for it (the taps
// path) and depthwise convolutions (the direct path). The output positions are cut into
// blocks of whole output rows (several whole images when images are small, so the product
// grows past what the BLAS handles well per image); each OpenMP thread takes blocks,
// unrolls their input windows into its own column buffer (a slice of a workspace the plan
// provides: its program's shared scratch) and runs a single-threaded GEMM. Filters (kh, kw,
// cin/groups, cout) are already the (K, cout) matrix the product needs; NHWC window rows
// are runs of channels. 1x1 stride-1 convolutions need no columns (the input is the
// matrix), and the input gradient of stride-1 ones on 16-64 channels runs as a forward
// convolution with flipped filters (Conv::flipped_input_grad).
//
// spec (int64[17]): N H W C OH OW CO KH KW sh sw dh dw pad_top pad_left groups target,
// where `target` is the number of output positions a block aims at.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../blas.h"
#include "nn.h"
#include "winograd.h"

namespace paddle {
namespace {

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

constexpr int64_t kSpecLen = 17;
constexpr int64_t kMaxTaps = 32;  // window length up to which the taps path beats the BLAS

struct Block {
  int64_t r0, r1;  // global output rows n * OH + oh, [r0, r1)
  int phase;       // blocks of one phase never write the same input element
};

struct Conv {
  int64_t N, H, W, C, OH, OW, CO, KH, KW, sh, sw, dh, dw, pt, pl, groups, target;
  int64_t cg, cog, Kg;  // channels per group in and out, columns per window

  Conv(const py::array& spec_arr, const char* op) {
    init(check_spec(spec_arr, op, "spec", kSpecLen), op);
  }
  Conv(const int64_t* s, const char* op) { init(s, op); }

  void init(const int64_t* s, const char* op) {
    N = s[0]; H = s[1]; W = s[2]; C = s[3]; OH = s[4]; OW = s[5]; CO = s[6]; KH = s[7];
    KW = s[8]; sh = s[9]; sw = s[10]; dh = s[11]; dw = s[12]; pt = s[13]; pl = s[14];
    groups = s[15]; target = s[16];
    require(N >= 0 && H >= 1 && W >= 1 && C >= 1 && OH >= 1 && OW >= 1 && CO >= 1 && KH >= 1 &&
                KW >= 1 && sh >= 1 && sw >= 1 && dh >= 1 && dw >= 1 && groups >= 1 &&
                target >= 1 && pt >= 0 && pl >= 0,
            op, "malformed spec");
    require(C % groups == 0 && CO % groups == 0, op, "channels are not divisible by groups");
    cg = C / groups;
    cog = CO / groups;
    xs = size_of({N, H, W, C}, op);
    ys = size_of({N, OH, OW, CO}, op);
    ws = size_of({KH, KW, cg, CO}, op);
    Kg = size_of({KH, KW, cg}, op);
    // Input coordinates oh * sh - pt + kh * dh must not overflow either.
    size_add(size_add(size_mul(OH, sh, op), size_mul(KH, dh, op), op), pt, op);
    size_add(size_add(size_mul(OW, sw, op), size_mul(KW, dw, op), op), pl, op);
    // Every product is (block positions, Kg, cout per group) in some order.
    const int64_t m = std::max<int64_t>(max_block_positions(), 1);
    check_blas_dims(m, cog, Kg, op);
    check_blas_dims(m, Kg, cog, op);
    size_mul(max_block_positions(), Kg, op);  // cols_size
  }

  int64_t xs, ys, ws;  // element counts of x, y and the filters

  int64_t x_size() const { return xs; }
  int64_t y_size() const { return ys; }
  int64_t w_size() const { return ws; }

  // 1x1, stride 1, no padding, one group: the input rows are the columns already.
  bool pointwise() const {
    return KH == 1 && KW == 1 && sh == 1 && sw == 1 && pt == 0 && pl == 0 && groups == 1 &&
           OH == H && OW == W;
  }

  // Output rows per block: whole images when an image is smaller than the target, else
  // enough rows that blocks two apart in an image never reach the same input row. That
  // minimum can itself reach a whole image: the blocks are then whole images too, never
  // rows straddling two images (two such blocks wrote the same input rows at once). The
  // rows (or images) are spread evenly over as many blocks as the target asks for, so the
  // last block is not a sliver (8 images in blocks of 7 made one product of one image).
  int64_t block_rows() const {
    const int64_t least = (KH - 1) * dh + 1;
    int64_t rows = std::max<int64_t>(1, target / OW);
    if (rows < OH) {
      rows = std::max(rows, least);
      if (rows < OH) return std::max(ceil_div(OH, ceil_div(OH, rows)), least);
    }
    // Images per block: the target rounded to the nearest whole image (down, 384 positions
    // made blocks of one 14x14 image, 196, half the product the target asked for).
    const int64_t n = std::max<int64_t>(N, 1), image = OH * OW;
    const int64_t images = std::max<int64_t>(1, std::min((target + image / 2) / image, n));
    return ceil_div(n, ceil_div(n, images)) * OH;
  }
  std::vector<Block> blocks() const {
    std::vector<Block> out;
    int64_t rb = block_rows();
    if (rb >= OH) {
      for (int64_t r = 0; r < N * OH; r += rb) out.push_back({r, std::min(r + rb, N * OH), 0});
    } else {
      for (int64_t n = 0; n < N; ++n)
        for (int64_t j = 0, r = 0; r < OH; ++j, r += rb)
          out.push_back({n * OH + r, n * OH + std::min(r + rb, OH), int(j & 1)});
    }
    return out;
  }

  // The input gradient of a stride-1 convolution on one group is itself a forward
  // convolution: of the output gradient, with the filters turned 180 degrees and their
  // channels swapped, padded by what the windows reach beyond the forward's padding. Run
  // so, each block writes its rows of dx once: no zero fill, no col2im adding the columns
  // back, one pass (no phases). But that product, positions x (KH KW cout) x cin, is as
  // narrow as cin: on one core (benchmarks/conv_shapes.py) 3x3 convolutions of 32 and 64
  // channels gained 5-20% on dx, those of 128-512 lost 2-3%, and a 3-channel stem's dx
  // fell from 28 to 13 GFLOP/s; so only 16 to 64 input channels take this path. And only
  // where dx has about as many positions as dy (same padding): the flipped convolution runs
  // a window over every input position, so a valid one multiplies its pads' zeros too (the
  // compare.py CNN's 3x3 on 13x13x32, valid: 169 positions for 121, 61 GFLOP/s against 110
  // through GEMM + col2im; 5x5 valid on 32x32: 65 against 84).
  bool flipped_input_grad() const {
    return groups == 1 && sh == 1 && sw == 1 && !pointwise() && pt <= (KH - 1) * dh &&
           pl <= (KW - 1) * dw && KH * KW > 1 && C >= 16 && C <= 64 && 8 * H * W <= 9 * OH * OW;
  }

  // That forward convolution's geometry (only where flipped_input_grad()).
  Conv flipped(const char* op) const {
    const int64_t s[kSpecLen] = {N, OH, OW, CO, H, W, C, KH, KW, 1, 1, dh, dw,
                                 (KH - 1) * dh - pt, (KW - 1) * dw - pl, 1, target};
    return Conv(s, op);
  }

  // No two windows share an input element (strides at least the windows' extent).
  bool disjoint() const { return (KH - 1) * dh < sh && (KW - 1) * dw < sw; }

  int64_t max_block_positions() const { return std::min(block_rows(), N * OH) * OW; }
  // Depthwise (one input channel per group): each output channel reads one input channel,
  // there is no product to hand to the BLAS, and a direct loop over the taps, vectorized
  // over the channels, beats unrolling windows group by group. (A single-channel image
  // with one group stays on the BLAS: its window rows are short but its product is wide.)
  bool direct() const { return cg == 1 && groups > 1 && !pointwise(); }

  // Short windows on one group (a first layer on grey or colour images: 9 or 27 values):
  // a product with so short a K runs the BLAS at a fraction of its speed, and unrolling the
  // windows costs more than the product. The taps path unrolls them anyway (it is cheap at
  // these sizes) and then runs a direct loop over the taps with the output channels held in
  // registers: memory-bound, as a layer this thin should be.
  bool taps() const { return groups == 1 && Kg <= kMaxTaps && !pointwise(); }

  int64_t cols_size() const {
    return pointwise() || direct() ? 0 : max_block_positions() * Kg;
  }

  // 3x3, stride 1, no dilation, one group: the Winograd path (csrc/nn/winograd.cpp) for
  // the forward pass, and for the input gradient as the forward convolution of dy with
  // the flipped filters (pads up to 2, what a 3x3 window reaches). Its output tile (2 or 4,
  // 0 for none) by the rule measured in docs/performance.md ("Winograd"); the variable
  // PADDLE_CONV_WINOGRAD=0, 2 or 4 turns it off or forces a tile where it applies (read on
  // every call, for the tests and benchmarks).
  int winograd_tile(bool input_grad) const {
    if (!(groups == 1 && KH == 3 && KW == 3 && sh == 1 && sw == 1 && dh == 1 && dw == 1 &&
          N >= 1 && (!input_grad || (pt <= 2 && pl <= 2))))
      return 0;
    if (const char* asked = std::getenv("PADDLE_CONV_WINOGRAD")) {
      const int m = std::atoi(asked);
      if (m == 0 || m == 2 || m == 4) return m;
    }
    // Measured on one core (docs/performance.md, "Winograd"): it wins from 3 input and 16
    // output channels up to 128, on outputs of at least 10x10; a 1-channel input (9-tap
    // windows), 256-512 channels (their products are already long, the transformed
    // filters are 4-16x larger) and 7x7 outputs stay on the taps or BLAS paths. F(4x4)
    // unless its tiles overhang the output by more than a quarter of its area (13x13 in
    // 16x16 tiles), where F(2x2) wastes less.
    const int64_t cin = input_grad ? CO : C, cout = input_grad ? C : CO;
    const int64_t oh = input_grad ? H : OH, ow = input_grad ? W : OW;
    if (cin < 3 || cout < 16 || std::max(cin, cout) > 128 || std::min(oh, ow) < 10) return 0;
    const int64_t th = ceil_div(oh, 4) * 4, tw = ceil_div(ow, 4) * 4;
    return 4 * th * tw <= 5 * oh * ow ? 4 : 2;
  }
  WinogradConv winograd(bool input_grad, int m) const {
    if (input_grad) return {N, OH, OW, CO, H, W, C, 2 - pt, 2 - pl, true, m};
    return {N, H, W, C, OH, OW, CO, pt, pl, false, m};
  }
  // Workspace elements the Winograd path needs, 0 where it does not apply.
  int64_t winograd_size(bool input_grad) const {
    const int m = winograd_tile(input_grad);
    if (!m) return 0;
    const WinogradConv g = winograd(input_grad, m);
    return size_add(g.shared_size(), size_mul(max_threads(), g.per_thread(), "conv2d"),
                    "conv2d");
  }
};

// Runs the Winograd path if it applies and the workspace has room for it (a plan sized
// before PADDLE_CONV_WINOGRAD changed may not); false otherwise.
template <typename T>
bool try_winograd(const Conv& c, bool input_grad, const T* x, const T* w, const T* bias, T* y,
                  T* ws, int64_t ws_size, bool relu, const T* residual = nullptr) {
  const int m = c.winograd_tile(input_grad);
  if (!m) return false;
  const WinogradConv g = c.winograd(input_grad, m);
  const int64_t each = g.per_thread(), room = (ws_size - g.shared_size()) / each;
  if (ws_size < g.shared_size() || room < 1) return false;
  winograd_conv(g, x, w, bias, y, ws, int(std::min<int64_t>(room, max_threads())), relu,
                residual);
  return true;
}


// Unrolls the windows of output rows [b.r0, b.r1) for group g into cols (positions x Kg).
template <typename T>
void im2col(const Conv& c, const T* x, const Block& b, int64_t g, T* cols) {
  const int64_t c0 = g * c.cg;
  // With one group and no dilation, a window row is a single run of KW * C values.
  const bool runs = c.groups == 1 && c.dw == 1;
  T* row = cols;
  for (int64_t r = b.r0; r < b.r1; ++r) {
    const int64_t n = r / c.OH, oh = r % c.OH;
    for (int64_t ow = 0; ow < c.OW; ++ow, row += c.Kg) {
      const int64_t iw0 = ow * c.sw - c.pl;
      T* dst = row;
      for (int64_t kh = 0; kh < c.KH; ++kh, dst += c.KW * c.cg) {
        const int64_t ih = oh * c.sh - c.pt + kh * c.dh;
        if (ih < 0 || ih >= c.H) {
          zero_run(dst, c.KW * c.cg);
          continue;
        }
        const T* src = x + ((n * c.H + ih) * c.W) * c.C + c0;
        if (runs && iw0 >= 0 && iw0 + c.KW <= c.W) {
          copy_run(dst, src + iw0 * c.C, c.KW * c.C);
          continue;
        }
        for (int64_t kw = 0; kw < c.KW; ++kw) {
          const int64_t iw = iw0 + kw * c.dw;
          if (iw < 0 || iw >= c.W)
            zero_run(dst + kw * c.cg, c.cg);
          else
            copy_run(dst + kw * c.cg, src + iw * c.C, c.cg);
        }
      }
    }
  }
}

// Adds the columns back onto the input windows they came from (im2col's adjoint). Where
// windows never overlap (a strided 1x1 convolution), each input element gets at most one
// value: `Assign` stores it instead of reading the element and adding.
template <bool Assign, typename T>
void col2im(const Conv& c, const T* cols, const Block& b, int64_t g, T* dx) {
  const int64_t c0 = g * c.cg;
  const T* row = cols;
  for (int64_t r = b.r0; r < b.r1; ++r) {
    const int64_t n = r / c.OH, oh = r % c.OH;
    for (int64_t ow = 0; ow < c.OW; ++ow, row += c.Kg) {
      const int64_t iw0 = ow * c.sw - c.pl;
      const T* src = row;
      for (int64_t kh = 0; kh < c.KH; ++kh, src += c.KW * c.cg) {
        const int64_t ih = oh * c.sh - c.pt + kh * c.dh;
        if (ih < 0 || ih >= c.H) continue;
        T* dst = dx + ((n * c.H + ih) * c.W) * c.C + c0;
        for (int64_t kw = 0; kw < c.KW; ++kw) {
          const int64_t iw = iw0 + kw * c.dw;
          if (iw < 0 || iw >= c.W) continue;
          T* d = dst + iw * c.C;
          const T* s = src + kw * c.cg;
          if (Assign)
            copy_run(d, s, c.cg);
          else
            for (int64_t i = 0; i < c.cg; ++i) d[i] += s[i];
        }
      }
    }
  }
}

// ---- the taps path ------------------------------------------------------------------------
// Its loops keep tiles of accumulators in vector registers, so they are built for the widest
// vectors the CPU has: the package targets baseline x86-64 (SSE2), and these few loops are
// built again for AVX2 + FMA and for AVX-512 and picked once at run time. VB is the vector
// width in bytes each build assumes.
#define PD_TAPS_INLINE __attribute__((always_inline)) inline
// Vectors are returned by value only between always-inlined functions of one build, never
// across a call, so the ABI of such returns (which GCC warns differs by ISA) never matters.
#pragma GCC diagnostic ignored "-Wpsabi"

// A vector of VB bytes of T (GCC's and Clang's vector extension), loaded and stored
// unaligned; `vector + scalar` broadcasts the scalar.
template <typename T, int VB>
struct Vec {
  typedef T type __attribute__((vector_size(VB)));
};
template <int VB, typename T>
PD_TAPS_INLINE typename Vec<T, VB>::type load(const T* p) {
  typename Vec<T, VB>::type v;
  std::memcpy(&v, p, VB);
  return v;
}
template <int VB, typename T>
PD_TAPS_INLINE void store(T* p, const typename Vec<T, VB>::type& v) { std::memcpy(p, &v, VB); }

// out[j] = (bias[j] or 0) + sum over t of v[t] * w[t * n + j], j < n, for P windows into P
// output rows (n apart), where window p's value t is src[p][off[p][t]]: 4 vectors of
// channels stay in registers through all the taps, and each filter row loaded serves P
// windows.
template <int VB, int P, typename T>
PD_TAPS_INLINE void taps_to_channels(const T* const* src, const int64_t* const* off,
                                     int64_t taps, const T* w, int64_t n, const T* bias,
                                     T* out) {
  typedef typename Vec<T, VB>::type V;
  constexpr int E = VB / int(sizeof(T)), L = 4 * E;
  int64_t j0 = 0;
  for (; j0 + L <= n; j0 += L) {
    V acc[P][4];
    for (int k = 0; k < 4; ++k) {
      const V b0 = bias ? load<VB>(bias + j0 + k * E) : V{};
      for (int p = 0; p < P; ++p) acc[p][k] = b0;
    }
    for (int64_t t = 0; t < taps; ++t) {
      const T* wt = w + t * n + j0;
      const V w0 = load<VB>(wt), w1 = load<VB>(wt + E), w2 = load<VB>(wt + 2 * E),
              w3 = load<VB>(wt + 3 * E);
      for (int p = 0; p < P; ++p) {
        const T s = src[p][off[p][t]];
        acc[p][0] += s * w0;
        acc[p][1] += s * w1;
        acc[p][2] += s * w2;
        acc[p][3] += s * w3;
      }
    }
    for (int p = 0; p < P; ++p)
      for (int k = 0; k < 4; ++k) store<VB>(out + p * n + j0 + k * E, acc[p][k]);
  }
  for (int p = 0; p < P && j0 < n; ++p) {  // the last n % L channels
    T* o = out + p * n;
    for (int64_t j = j0; j < n; ++j) o[j] = bias ? bias[j] : T(0);
    for (int64_t t = 0; t < taps; ++t) {
      const T s = src[p][off[p][t]];
      for (int64_t j = j0; j < n; ++j) o[j] += s * w[t * n + j];
    }
  }
}

// Where the taps path reads windows: a window inside the input in place, through the taps'
// offsets from its corner (`inner`); one over the padding from a copy, zeros included,
// read in order (`in_order`).
template <typename T>
struct Windows {
  const Conv& c;
  const T* x;
  int64_t inner[kMaxTaps], in_order[kMaxTaps];
  int64_t last_h, last_w;

  Windows(const Conv& conv, const T* x_) : c(conv), x(x_) {
    for (int64_t kh = 0, t = 0; kh < c.KH; ++kh)
      for (int64_t kw = 0; kw < c.KW; ++kw)
        for (int64_t ci = 0; ci < c.C; ++ci, ++t) {
          inner[t] = (kh * c.dh * c.W + kw * c.dw) * c.C + ci;
          in_order[t] = t;
        }
    last_h = (c.KH - 1) * c.dh;
    last_w = (c.KW - 1) * c.dw;
  }

  // The window of output (n, oh, ow) whose corner is input (n, ih0, iw0): its values are
  // src[off[t]], t < Kg; `copy` (Kg values) holds it when it is not inside the input.
  PD_TAPS_INLINE void at(int64_t img, int64_t ih0, int64_t iw0, T* copy, const T*& src,
                         const int64_t*& off) const {
    if (ih0 >= 0 && ih0 + last_h < c.H && iw0 >= 0 && iw0 + last_w < c.W) {
      src = x + ((img * c.H + ih0) * c.W + iw0) * c.C;
      off = inner;
      return;
    }
    for (int64_t kh = 0, t = 0; kh < c.KH; ++kh) {
      const int64_t ih = ih0 + kh * c.dh;
      for (int64_t kw = 0; kw < c.KW; ++kw, t += c.C) {
        const int64_t iw = iw0 + kw * c.dw;
        const bool in = ih >= 0 && ih < c.H && iw >= 0 && iw < c.W;
        for (int64_t ci = 0; ci < c.C; ++ci)
          copy[t + ci] = in ? x[((img * c.H + ih) * c.W + iw) * c.C + ci] : T(0);
      }
    }
    src = copy;
    off = in_order;
  }
};

// The output rows of block b, two positions at a time, straight from x (no column buffer).
template <int VB, typename T>
PD_TAPS_INLINE void taps_forward_rows(const Conv& c, const T* x, const T* w, const T* bias,
                                      T* y, const Block& b) {
  const Windows<T> windows(c, x);
  T copies[2][kMaxTaps];
  const T* src[2];
  const int64_t* off[2];
  int pending = 0;
  T* out = y + b.r0 * c.OW * c.CO;
  for (int64_t r = b.r0; r < b.r1; ++r) {
    const int64_t img = r / c.OH, ih0 = r % c.OH * c.sh - c.pt;
    for (int64_t ow = 0; ow < c.OW; ++ow) {
      windows.at(img, ih0, ow * c.sw - c.pl, copies[pending], src[pending], off[pending]);
      if (++pending == 2) {
        taps_to_channels<VB, 2>(src, off, c.Kg, w, c.CO, bias, out);
        out += 2 * c.CO;
        pending = 0;
      }
    }
  }
  if (pending) taps_to_channels<VB, 1>(src, off, c.Kg, w, c.CO, bias, out);
}

// The block's windows unrolled into cols (positions x Kg), for the filter gradient: the
// general im2col's runs are too short here to pay for its per-row bookkeeping.
template <typename T>
void taps_unroll(const Conv& c, const T* x, const Block& b, T* cols) {
  const Windows<T> windows(c, x);
  for (int64_t r = b.r0; r < b.r1; ++r) {
    const int64_t img = r / c.OH, ih0 = r % c.OH * c.sh - c.pt;
    for (int64_t ow = 0; ow < c.OW; ++ow, cols += c.Kg) {
      const T* src;
      const int64_t* off;
      windows.at(img, ih0, ow * c.sw - c.pl, cols, src, off);
      if (src != cols)
        for (int64_t t = 0; t < c.Kg; ++t) cols[t] = src[off[t]];
    }
  }
}

// dw[t * n + j] += sum over the block's m positions q of cols[q * K + t] * dy[q * n + j]: a
// tile of 4 taps by 2 vectors of channels stays in registers through all the positions.
template <int VB, typename T>
PD_TAPS_INLINE void taps_filter_rows(const T* cols, const T* dyb, int64_t m, int64_t K,
                                     int64_t n, T* dw) {
  typedef typename Vec<T, VB>::type V;
  constexpr int E = VB / int(sizeof(T)), L = 2 * E, TT = 4;
  for (int64_t j0 = 0; j0 < n; j0 += L) {
    const int64_t nl = std::min<int64_t>(L, n - j0);
    for (int64_t t0 = 0; t0 < K; t0 += TT) {
      const int64_t nt = std::min<int64_t>(TT, K - t0);
      if (nl == L) {
        V acc[TT][2] = {};
        for (int64_t q = 0; q < m; ++q) {
          const V g0 = load<VB>(dyb + q * n + j0), g1 = load<VB>(dyb + q * n + j0 + E);
          const T* v = cols + q * K + t0;
          for (int t = 0; t < TT; ++t) {
            if (t == nt) break;  // the last taps, fewer than TT
            acc[t][0] += v[t] * g0;
            acc[t][1] += v[t] * g1;
          }
        }
        for (int t = 0; t < nt; ++t)
          for (int k = 0; k < 2; ++k) {
            T* d = dw + (t0 + t) * n + j0 + k * E;
            store<VB>(d, load<VB>(d) + acc[t][k]);
          }
        continue;
      }
      for (int64_t q = 0; q < m; ++q)  // the last n % L channels
        for (int64_t t = 0; t < nt; ++t) {
          const T s = cols[q * K + t0 + t];
          T* d = dw + (t0 + t) * n + j0;
          for (int64_t j = 0; j < nl; ++j) d[j] += s * dyb[q * n + j0 + j];
        }
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
#define PD_TAPS_BUILDS 1
template <typename T>
__attribute__((target("avx2,fma"))) void taps_forward_avx2(const Conv& c, const T* x,
                                                          const T* w, const T* bias, T* y,
                                                          const Block& b) {
  taps_forward_rows<32>(c, x, w, bias, y, b);
}
template <typename T>
__attribute__((target("avx512f,avx2,fma"))) void taps_forward_avx512(
    const Conv& c, const T* x, const T* w, const T* bias, T* y, const Block& b) {
  taps_forward_rows<64>(c, x, w, bias, y, b);
}
template <typename T>
__attribute__((target("avx2,fma"))) void taps_filter_avx2(const T* cols, const T* dyb,
                                                         int64_t m, int64_t K, int64_t n,
                                                         T* dw) {
  taps_filter_rows<32>(cols, dyb, m, K, n, dw);
}
template <typename T>
__attribute__((target("avx512f,avx2,fma"))) void taps_filter_avx512(
    const T* cols, const T* dyb, int64_t m, int64_t K, int64_t n, T* dw) {
  taps_filter_rows<64>(cols, dyb, m, K, n, dw);
}

// The widest build this CPU runs (common.h's vector_bytes).
int taps_vector_bytes() { return vector_bytes(); }
#endif

template <typename T>
void taps_forward(const Conv& c, const T* x, const T* w, const T* bias, T* y, const Block& b) {
#ifdef PD_TAPS_BUILDS
  switch (taps_vector_bytes()) {
    case 64: return taps_forward_avx512(c, x, w, bias, y, b);
    case 32: return taps_forward_avx2(c, x, w, bias, y, b);
  }
#endif
  taps_forward_rows<16>(c, x, w, bias, y, b);
}

template <typename T>
void taps_backprop_filter(const Conv& c, const T* cols, const T* dyb, int64_t m, T* dw) {
#ifdef PD_TAPS_BUILDS
  switch (taps_vector_bytes()) {
    case 64: return taps_filter_avx512(cols, dyb, m, c.Kg, c.CO, dw);
    case 32: return taps_filter_avx2(cols, dyb, m, c.Kg, c.CO, dw);
  }
#endif
  taps_filter_rows<16>(cols, dyb, m, c.Kg, c.CO, dw);
}
// ---- end of the taps path ---------------------------------------------------------------

// Calls f(x offset, tap) for each tap of output (r, ow) that falls inside the input, where
// r = n * OH + oh, the offset is that of the input pixel's channels and tap = kh * KW + kw.
template <typename F>
inline void for_taps(const Conv& c, int64_t r, int64_t ow, F f) {
  const int64_t n = r / c.OH, oh = r % c.OH;
  for (int64_t kh = 0; kh < c.KH; ++kh) {
    const int64_t ih = oh * c.sh - c.pt + kh * c.dh;
    if (ih < 0 || ih >= c.H) continue;
    for (int64_t kw = 0; kw < c.KW; ++kw) {
      const int64_t iw = ow * c.sw - c.pl + kw * c.dw;
      if (iw < 0 || iw >= c.W) continue;
      f(((n * c.H + ih) * c.W + iw) * c.C, kh * c.KW + kw);
    }
  }
}

// Direct convolution with one input channel per group: output channel c * M + j (M
// outputs per group) reads input channel c through filter column c * M + j.
template <typename T>
void direct_forward(const Conv& c, const T* x, const T* w, const T* bias, T* y, const Block& b) {
  const int64_t C = c.C, M = c.cog, CO = c.CO;
  for (int64_t r = b.r0; r < b.r1; ++r)
    for (int64_t ow = 0; ow < c.OW; ++ow) {
      T* out = y + (r * c.OW + ow) * CO;
      if (bias)
        copy_run(out, bias, CO);
      else
        zero_run(out, CO);
      for_taps(c, r, ow, [&](int64_t xo, int64_t tap) {
        const T* src = x + xo;
        const T* wt = w + tap * CO;
        if (M == 1) {
          for (int64_t i = 0; i < C; ++i) out[i] += src[i] * wt[i];
        } else {
          for (int64_t i = 0; i < C; ++i)
            for (int64_t j = 0; j < M; ++j) out[i * M + j] += src[i] * wt[i * M + j];
        }
      });
    }
}

template <typename T>
void direct_backprop_input(const Conv& c, const T* dy, const T* w, T* dx, const Block& b) {
  const int64_t C = c.C, M = c.cog, CO = c.CO;
  for (int64_t r = b.r0; r < b.r1; ++r)
    for (int64_t ow = 0; ow < c.OW; ++ow) {
      const T* g = dy + (r * c.OW + ow) * CO;
      for_taps(c, r, ow, [&](int64_t xo, int64_t tap) {
        T* d = dx + xo;
        const T* wt = w + tap * CO;
        if (M == 1) {  // the common depthwise case: one loop over channels, vectorized
          for (int64_t i = 0; i < C; ++i) d[i] += g[i] * wt[i];
          return;
        }
        for (int64_t i = 0; i < C; ++i) {
          T s = 0;
          for (int64_t j = 0; j < M; ++j) s += g[i * M + j] * wt[i * M + j];
          d[i] += s;
        }
      });
    }
}

template <typename T>
void direct_backprop_filter(const Conv& c, const T* x, const T* dy, T* dw, const Block& b) {
  const int64_t C = c.C, M = c.cog, CO = c.CO;
  for (int64_t r = b.r0; r < b.r1; ++r)
    for (int64_t ow = 0; ow < c.OW; ++ow) {
      const T* g = dy + (r * c.OW + ow) * CO;
      for_taps(c, r, ow, [&](int64_t xo, int64_t tap) {
        const T* src = x + xo;
        T* d = dw + tap * CO;
        if (M == 1) {
          for (int64_t i = 0; i < C; ++i) d[i] += src[i] * g[i];
          return;
        }
        for (int64_t i = 0; i < C; ++i)
          for (int64_t j = 0; j < M; ++j) d[i * M + j] += src[i] * g[i * M + j];
      });
    }
}

// One block's output rows, computed (+ bias: the output rows start as the bias and the
// GEMMs add to them).
template <typename T>
void forward_block(const Conv& c, const T* x, const T* w, const T* bias, T* y, T* cols,
                   const Block& b) {
  const int64_t m = (b.r1 - b.r0) * c.OW;
  T* yb = y + b.r0 * c.OW * c.CO;
  if (c.direct()) return direct_forward(c, x, w, bias, y, b);
  if (c.taps()) return taps_forward(c, x, w, bias, y, b);
  if (bias)
    for (int64_t i = 0; i < m; ++i) copy_run(yb + i * c.CO, bias, c.CO);
  const T beta = bias ? T(1) : T(0);
  if (c.pointwise())
    return blas_gemm(false, false, m, c.CO, c.C, T(1), x + b.r0 * c.OW * c.C, c.C, w, c.CO,
                     beta, yb, c.CO);
  for (int64_t g = 0; g < c.groups; ++g) {
    im2col(c, x, b, g, cols);
    blas_gemm(false, false, m, c.cog, c.Kg, T(1), cols, c.Kg, w + g * c.cog, c.CO, beta,
              yb + g * c.cog, c.CO);
  }
}

// y = conv(x, w) (+ bias), then `+ residual` (y-shaped) when given, then relu with `relu`
// (the conv2d [+ add] [+ relu] that paddle/lowlevel/fusion/conv.py fuses): applied to each
// block's rows while they are still in cache, instead of passes of their own over the whole
// output, in the order and precision of the separate add and relu (bit for bit). NaN passes,
// as in csrc/elementwise.cpp's relu.
template <typename T>
void forward_typed(const Conv& c, const T* x, const T* w, const T* bias, T* y, T* ws, int nt,
                   bool relu, const T* residual) {
  std::vector<Block> blocks = c.blocks();
  const int64_t nb = int64_t(blocks.size()), slot = c.cols_size();
  _Pragma("omp parallel for num_threads(nt) schedule(dynamic, 1) if (nb > 1)")
  for (int64_t i = 0; i < nb; ++i) {
    const Block& b = blocks[i];
    forward_block(c, x, w, bias, y, ws + omp_get_thread_num() * slot, b);
    T* yb = y + b.r0 * c.OW * c.CO;
    const int64_t n = (b.r1 - b.r0) * c.OW * c.CO;
    if (residual) {
      const T* rb = residual + b.r0 * c.OW * c.CO;
      if (relu)
        for (int64_t j = 0; j < n; ++j) yb[j] = relu_of(T(yb[j] + rb[j]));
      else
        for (int64_t j = 0; j < n; ++j) yb[j] += rb[j];
    } else if (relu) {
      for (int64_t j = 0; j < n; ++j) yb[j] = relu_of(yb[j]);
    }
  }
}

// dx as the forward convolution of dy with the flipped filters (Conv::flipped_input_grad).
// The product wants them as (cin, KH * KW * cout), transposed (the BLAS reads them so as
// they are): row i is, tap after tap from the last, each tap's row i of w, a run of cout.
// The workspace holds them, then each thread's columns.
template <typename T>
void backprop_input_flipped(const Conv& c, const T* dy, const T* w, T* dx, T* ws, int nt) {
  const Conv f = c.flipped("conv2d_backprop_input");
  std::vector<Block> blocks = f.blocks();
  const int64_t nb = int64_t(blocks.size()), slot = f.cols_size(), taps = c.KH * c.KW;
  T* wf = ws;
  T* cols0 = ws + c.w_size();
  _Pragma("omp parallel num_threads(nt)")
  {
    _Pragma("omp for schedule(static)")
    for (int64_t i = 0; i < c.C; ++i)
      for (int64_t t = 0; t < taps; ++t)
        copy_run(wf + (i * taps + t) * c.CO, w + ((taps - 1 - t) * c.C + i) * c.CO, c.CO);
    T* cols = cols0 + omp_get_thread_num() * slot;
    _Pragma("omp for schedule(dynamic, 1)")
    for (int64_t i = 0; i < nb; ++i) {
      const Block& b = blocks[i];
      im2col(f, dy, b, 0, cols);
      blas_gemm(false, true, (b.r1 - b.r0) * f.OW, f.CO, f.Kg, T(1), cols, f.Kg, wf, f.Kg,
                T(0), dx + b.r0 * f.OW * f.CO, f.CO);
    }
  }
}

template <typename T>
void backprop_input_typed(const Conv& c, const T* dy, const T* w, T* dx, T* ws, int nt) {
  if (c.flipped_input_grad()) return backprop_input_flipped(c, dy, w, dx, ws, nt);
  std::vector<Block> blocks = c.blocks();
  const int64_t nb = int64_t(blocks.size()), slot = c.cols_size();
  if (!c.pointwise()) {
    parallel_chunks(c.x_size(), kParallelGrain,
                    [&](int64_t b, int64_t e) { std::fill(dx + b, dx + e, T(0)); });
  }
  for (int phase = 0; phase < 2; ++phase) {
    _Pragma("omp parallel for num_threads(nt) schedule(dynamic, 1) if (nb > 1)")
    for (int64_t i = 0; i < nb; ++i) {
      const Block& b = blocks[i];
      if (b.phase != phase) continue;
      const int64_t m = (b.r1 - b.r0) * c.OW;
      const T* dyb = dy + b.r0 * c.OW * c.CO;
      if (c.direct()) {
        direct_backprop_input(c, dy, w, dx, b);
        continue;
      }
      if (c.pointwise()) {
        blas_gemm(false, true, m, c.C, c.CO, T(1), dyb, c.CO, w, c.CO, T(0),
                  dx + b.r0 * c.OW * c.C, c.C);
        continue;
      }
      T* cols = ws + omp_get_thread_num() * slot;
      for (int64_t g = 0; g < c.groups; ++g) {
        blas_gemm(false, true, m, c.Kg, c.cog, T(1), dyb + g * c.cog, c.CO, w + g * c.cog, c.CO,
                  T(0), cols, c.Kg);
        if (c.disjoint())
          col2im<true>(c, cols, b, g, dx);
        else
          col2im<false>(c, cols, b, g, dx);
      }
    }
  }
}

// dW = sum over blocks of cols^T dy, and db (when asked for) the column sums of dy.
template <typename T>
void backprop_filter_typed(const Conv& c, const T* x, const T* dy, T* dw, T* db, T* ws,
                           int nt) {
  std::vector<Block> blocks = c.blocks();
  const int64_t nb = int64_t(blocks.size()), slot = c.cols_size(), wn = c.w_size();
  const int64_t each = slot + wn + c.CO;
  nt = int(std::min<int64_t>(nt, std::max<int64_t>(nb, 1)));
  // Each thread sums its blocks into its own copies of dW and db (after its column buffer
  // in the workspace); the copies are added at the end, in thread order. The blocks are
  // dealt out statically, so each copy sums the same blocks in the same order on every run
  // and the result is bitwise reproducible (dynamic scheduling made the sums depend on
  // which thread came first).
  _Pragma("omp parallel num_threads(nt)")
  {
    const int t = omp_get_thread_num();
    T* cols = ws + t * each;
    T* mine = cols + slot;
    T* mine_b = mine + wn;
    std::fill(mine, mine + wn + c.CO, T(0));
    _Pragma("omp for schedule(static)")
    for (int64_t i = 0; i < nb; ++i) {
      const Block& b = blocks[i];
      const int64_t m = (b.r1 - b.r0) * c.OW;
      const T* dyb = dy + b.r0 * c.OW * c.CO;
      if (db)  // while this block of dy is in cache
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < c.CO; ++j) mine_b[j] += dyb[i * c.CO + j];
      if (c.direct()) {
        direct_backprop_filter(c, x, dy, mine, b);
        continue;
      }
      if (c.pointwise()) {
        blas_gemm(true, false, c.C, c.CO, m, T(1), x + b.r0 * c.OW * c.C, c.C, dyb, c.CO, T(1),
                  mine, c.CO);
        continue;
      }
      if (c.taps()) {
        taps_unroll(c, x, b, cols);
        taps_backprop_filter(c, cols, dyb, m, mine);
        continue;
      }
      for (int64_t g = 0; g < c.groups; ++g) {
        im2col(c, x, b, g, cols);
        blas_gemm(true, false, c.Kg, c.cog, m, T(1), cols, c.Kg, dyb + g * c.cog, c.CO, T(1),
                  mine + g * c.cog, c.CO);
      }
    }
  }
  std::copy(ws + slot, ws + slot + wn, dw);
  if (db) std::copy(ws + slot + wn, ws + slot + wn + c.CO, db);
  for (int t = 1; t < nt; ++t) {
    const T* part = ws + t * each + slot;
    for (int64_t j = 0; j < wn; ++j) dw[j] += part[j];
    if (db)
      for (int64_t j = 0; j < c.CO; ++j) db[j] += part[wn + j];
  }
}

// Workspace elements per thread: a column buffer (for the forward's or the flipped input
// gradient's columns, whichever is larger), plus dW and db copies for the filter gradient.
int64_t per_thread(const Conv& c, bool filter_grad) {
  const char* op = "conv2d";
  int64_t cols = c.cols_size();
  if (!filter_grad && c.flipped_input_grad()) cols = std::max(cols, c.flipped(op).cols_size());
  return size_add(cols, filter_grad ? size_add(c.w_size(), c.CO, op) : 0, op);
}

// Elements shared by all threads, before theirs: the flipped filters of the input gradient.
int64_t shared_size(const Conv& c, bool filter_grad) {
  return !filter_grad && c.flipped_input_grad() ? c.w_size() : 0;
}

int64_t workspace_size(const Conv& c, bool filter_grad) {
  const int64_t blas = size_add(size_mul(max_threads(), per_thread(c, filter_grad), "conv2d"),
                                shared_size(c, filter_grad), "conv2d");
  if (filter_grad) return blas;
  return std::max({blas, c.winograd_size(false), c.winograd_size(true)});
}

// The threads the workspace has room for (fewer than now available if the thread count
// grew since the plan sized it).
int workspace_threads(const py::array& ws, int dt, const Conv& c, bool filter_grad,
                      const char* op) {
  check_array(ws, op, "ws", dt, -1, kWrite);
  const int64_t each = per_thread(c, filter_grad), shared = shared_size(c, filter_grad);
  require(ws.size() >= shared, op, "workspace too small");
  const int64_t room = each ? (ws.size() - shared) / each : max_threads();
  require(room >= 1, op, "workspace too small");
  return int(std::min<int64_t>(room, max_threads()));
}

// An optional operand: an empty array means none.
template <typename T>
const T* optional_in(const py::array& a) { return a.size() ? in_ptr<T>(a) : nullptr; }

void check_optional(const py::array& a, const char* op, const char* arg, int dt, int64_t size,
                    Access access) {
  check_array(a, op, arg, dt, a.size() ? size : 0, access);
}

// Whether two arrays' memory overlaps (the fused residual is read after y's block is
// written, so it must not be y itself).
bool overlaps(const py::array& a, const py::array& b) {
  const char* pa = static_cast<const char*>(a.data());
  const char* pb = static_cast<const char*>(b.data());
  return pa < pb + b.nbytes() && pb < pa + a.nbytes();
}

void conv2d(py::array x, py::array w, py::array bias, py::array y, py::array spec,
            py::array ws, bool relu, py::array residual) {
  Conv c(spec, "conv2d");
  int dt = check_dtype(x, "conv2d", "x");
  check_array(x, "conv2d", "x", dt, c.x_size(), kRead);
  check_array(w, "conv2d", "w", dt, c.w_size(), kRead);
  check_optional(bias, "conv2d", "bias", dt, c.CO, kRead);
  check_array(y, "conv2d", "y", dt, c.y_size(), kWrite);
  if (residual.size()) {  // (empty: none, whatever its dtype: the argument's default)
    check_array(residual, "conv2d", "residual", dt, c.y_size(), kRead);
    require(!overlaps(residual, y), "conv2d", "residual must not share memory with y");
  }
  const int nt = workspace_threads(ws, dt, c, false, "conv2d");
  GilRelease nogil(c.y_size());
  PD_DISPATCH_FLOAT(dt, "conv2d", {
    if (try_winograd<scalar_t>(c, false, in_ptr<scalar_t>(x), in_ptr<scalar_t>(w),
                               optional_in<scalar_t>(bias), out_ptr<scalar_t>(y),
                               out_ptr<scalar_t>(ws), ws.size(), relu,
                               optional_in<scalar_t>(residual)))
      return;
    forward_typed<scalar_t>(c, in_ptr<scalar_t>(x), in_ptr<scalar_t>(w),
                            optional_in<scalar_t>(bias), out_ptr<scalar_t>(y),
                            out_ptr<scalar_t>(ws), nt, relu, optional_in<scalar_t>(residual));
  });
}

void conv2d_backprop_input(py::array dy, py::array w, py::array dx, py::array spec,
                           py::array ws) {
  const char* op = "conv2d_backprop_input";
  Conv c(spec, op);
  int dt = check_dtype(dy, op, "dy");
  check_array(dy, op, "dy", dt, c.y_size(), kRead);
  check_array(w, op, "w", dt, c.w_size(), kRead);
  check_array(dx, op, "dx", dt, c.x_size(), kWrite);
  const int nt = workspace_threads(ws, dt, c, false, op);
  GilRelease nogil(c.x_size());
  PD_DISPATCH_FLOAT(dt, op, {
    if (try_winograd<scalar_t>(c, true, in_ptr<scalar_t>(dy), in_ptr<scalar_t>(w), nullptr,
                               out_ptr<scalar_t>(dx), out_ptr<scalar_t>(ws), ws.size(), false))
      return;
    backprop_input_typed<scalar_t>(c, in_ptr<scalar_t>(dy), in_ptr<scalar_t>(w),
                                   out_ptr<scalar_t>(dx), out_ptr<scalar_t>(ws), nt);
  });
}

void conv2d_backprop_filter(py::array x, py::array dy, py::array dw, py::array db,
                            py::array spec, py::array ws) {
  const char* op = "conv2d_backprop_filter";
  Conv c(spec, op);
  int dt = check_dtype(x, op, "x");
  check_array(x, op, "x", dt, c.x_size(), kRead);
  check_array(dy, op, "dy", dt, c.y_size(), kRead);
  check_array(dw, op, "dw", dt, c.w_size(), kWrite);
  check_optional(db, op, "db", dt, c.CO, kWrite);
  const int nt = workspace_threads(ws, dt, c, true, op);
  GilRelease nogil(c.y_size());
  PD_DISPATCH_FLOAT(dt, op, {
    backprop_filter_typed<scalar_t>(c, in_ptr<scalar_t>(x), in_ptr<scalar_t>(dy),
                                    out_ptr<scalar_t>(dw),
                                    db.size() ? out_ptr<scalar_t>(db) : nullptr,
                                    out_ptr<scalar_t>(ws), nt);
  });
}

}  // namespace

void init_conv(py::module_& m) {
  m.def("conv2d", &conv2d,
        array_arg("x"), array_arg("w"), array_arg("bias"), array_arg("y"), array_arg("spec"),
        array_arg("ws"), py::arg("relu") = false, py::arg("residual") = py::array(),
        "y = conv2d(x, w) (+ bias unless empty) on NHWC, geometry from spec; + residual "
        "(y-shaped) unless empty; then relu with relu");
  m.def("conv2d_backprop_input", &conv2d_backprop_input,
        array_arg("dy"), array_arg("w"), array_arg("dx"), array_arg("spec"), array_arg("ws"),
        "dx of conv2d from dy and w");
  m.def("conv2d_backprop_filter", &conv2d_backprop_filter,
        array_arg("x"), array_arg("dy"), array_arg("dw"), array_arg("db"), array_arg("spec"),
        array_arg("ws"),
        "dw of conv2d from x and dy, and db (sums of dy) unless db is empty");
  m.def("conv2d_workspace", [](py::array spec, bool filter_grad) {
    return workspace_size(Conv(spec, "conv2d_workspace"), filter_grad);
  }, array_arg("spec"), py::arg("filter_grad"),
        "workspace elements a conv2d kernel needs for this spec");
}

}  // namespace paddle
