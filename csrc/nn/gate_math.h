// The LSTM cell's elementwise arithmetic, one batch row of one step at a time, forward and
// backward, for csrc/nn/recurrent.cpp.
//
// float32 runs on vectors: sigmoid and tanh from a polynomial exp (Cephes' expf: range
// reduction by ln 2, a degree-7 minimax polynomial, the power of two put into the exponent
// bits), within 1-3 float32 ulps of std::exp/std::tanh (tests/lowlevel/ops/test_recurrent.py
// measures it). std::exp and std::tanh are scalar calls and took 60% of the LSTM's time.
// Like conv.cpp's taps path, the loops are built for SSE2 (the package's baseline), AVX2 and
// AVX-512 and the widest the CPU runs is picked once; PADDLE_RNN_VECTOR_BYTES=16|32 forces a
// narrower one (for the tests). float64 keeps std::exp and std::tanh.
#pragma once

#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "nn.h"

namespace paddle {
namespace gates {

#define PD_GATE_INLINE __attribute__((always_inline)) inline
// Vectors pass by value only between always-inlined functions of one build.
#pragma GCC diagnostic ignored "-Wpsabi"

// VB bytes of float32 lanes and the int32 lanes of the same bits; VB = 4 is one lane, for
// the last U % lanes units of a row.
template <int VB>
struct F32 {
  typedef float V __attribute__((vector_size(VB)));
  typedef int32_t I __attribute__((vector_size(VB)));
  static constexpr int E = VB / 4;
};

template <int VB>
PD_GATE_INLINE typename F32<VB>::V load(const float* p) {
  typename F32<VB>::V v;
  std::memcpy(&v, p, VB);
  return v;
}
template <int VB>
PD_GATE_INLINE void store(float* p, const typename F32<VB>::V& v) { std::memcpy(p, &v, VB); }

template <int VB>
PD_GATE_INLINE typename F32<VB>::V splat(float s) { return typename F32<VB>::V{} + s; }

// exp(x), x clamped to [-87, 88] (the result stays a normal float).
template <int VB>
PD_GATE_INLINE typename F32<VB>::V vexp(typename F32<VB>::V x) {
  typedef typename F32<VB>::V V;
  typedef typename F32<VB>::I I;
  const V lo = splat<VB>(-87.0f), hi = splat<VB>(88.0f), magic = splat<VB>(12582912.0f);
  x = x < lo ? lo : x;
  x = x > hi ? hi : x;
  // n = round(x / ln 2) by the 1.5 * 2^23 trick: t's low mantissa bits hold n.
  const V t = x * 1.44269504088896341f + magic;
  const V n = t - magic;
  V r = x - n * 0.693359375f;  // ln 2 in two parts (Cody-Waite), exact first product
  r = r + n * 2.12194440e-4f;
  V p = splat<VB>(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const I e = ((I)t - (I)magic + 127) << 23;  // 2^n, n in [-126, 127]
  return p * (V)e;
}

template <int VB>
PD_GATE_INLINE typename F32<VB>::V vsigmoid(typename F32<VB>::V x) {
  const typename F32<VB>::V one = splat<VB>(1.0f);
  return one / (one + vexp<VB>(-x));
}

// tanh: an odd Taylor polynomial below 0.4 (where 1 - e^-2a would cancel), else
// (1 - e^-2a) / (1 + e^-2a); the sign put back from x.
template <int VB>
PD_GATE_INLINE typename F32<VB>::V vtanh(typename F32<VB>::V x) {
  typedef typename F32<VB>::V V;
  typedef typename F32<VB>::I I;
  const I bits = (I)x, sign_bit = I{} + INT_MIN;
  const V a = (V)(bits & ~sign_bit), one = splat<VB>(1.0f);
  const V e = vexp<VB>(a * -2.0f);
  const V big = (one - e) / (one + e);
  const V a2 = a * a;
  V p = splat<VB>(21844.0f / 6081075.0f);
  p = p * a2 - 1382.0f / 155925.0f;
  p = p * a2 + 62.0f / 2835.0f;
  p = p * a2 - 17.0f / 315.0f;
  p = p * a2 + 2.0f / 15.0f;
  p = p * a2 - 1.0f / 3.0f;
  const V small = a + a * a2 * p;
  const V y = a < splat<VB>(0.4f) ? small : big;
  return (V)((I)y | (bits & sign_bit));
}

// One LSTM step of one row, units [u0, u1) (a multiple of the lanes): gt holds the
// pre-activations of i, f, c~, o (U apart) less the bias b, and gets their activations; c
// and h the new states.
template <int VB>
PD_GATE_INLINE void lstm_forward_span(float* gt, const float* b, const float* c_prev,
                                      float* c, float* h, int64_t U, int64_t u0, int64_t u1) {
  typedef typename F32<VB>::V V;
  for (int64_t u = u0; u < u1; u += F32<VB>::E) {
    const V ig = vsigmoid<VB>(load<VB>(gt + u) + load<VB>(b + u));
    const V fg = vsigmoid<VB>(load<VB>(gt + U + u) + load<VB>(b + U + u));
    const V cg = vtanh<VB>(load<VB>(gt + 2 * U + u) + load<VB>(b + 2 * U + u));
    const V og = vsigmoid<VB>(load<VB>(gt + 3 * U + u) + load<VB>(b + 3 * U + u));
    store<VB>(gt + u, ig);
    store<VB>(gt + U + u, fg);
    store<VB>(gt + 2 * U + u, cg);
    store<VB>(gt + 3 * U + u, og);
    const V cv = fg * load<VB>(c_prev + u) + ig * cg;
    store<VB>(c + u, cv);
    store<VB>(h + u, og * vtanh<VB>(cv));
  }
}

// The step's gradients for one row: from the gradients reaching h and c (dhs + dh, dcs +
// dc) to the four pre-activations (dx, U apart); dc becomes what reaches c_prev, dh zero
// (h_prev is reached only through the recurrent product).
template <int VB>
PD_GATE_INLINE void lstm_backward_span(const float* gt, const float* c, const float* c_prev,
                                       const float* dhs, const float* dcs, float* dh, float* dc,
                                       float* dx, int64_t U, int64_t u0, int64_t u1) {
  typedef typename F32<VB>::V V;
  const V one = splat<VB>(1.0f), zero{};
  for (int64_t u = u0; u < u1; u += F32<VB>::E) {
    const V ig = load<VB>(gt + u), fg = load<VB>(gt + U + u), cg = load<VB>(gt + 2 * U + u),
            og = load<VB>(gt + 3 * U + u);
    const V tc = vtanh<VB>(load<VB>(c + u));
    const V dhv = load<VB>(dhs + u) + load<VB>(dh + u);
    const V dcv = load<VB>(dcs + u) + load<VB>(dc + u) + dhv * og * (one - tc * tc);
    store<VB>(dx + u, dcv * cg * ig * (one - ig));
    store<VB>(dx + U + u, dcv * load<VB>(c_prev + u) * fg * (one - fg));
    store<VB>(dx + 2 * U + u, dcv * ig * (one - cg * cg));
    store<VB>(dx + 3 * U + u, dhv * tc * og * (one - og));
    store<VB>(dc + u, dcv * fg);
    store<VB>(dh + u, zero);
  }
}

template <int VB>
PD_GATE_INLINE void lstm_forward_row(float* gt, const float* b, const float* c_prev, float* c,
                                     float* h, int64_t U) {
  const int64_t body = U - U % F32<VB>::E;
  lstm_forward_span<VB>(gt, b, c_prev, c, h, U, 0, body);
  lstm_forward_span<4>(gt, b, c_prev, c, h, U, body, U);
}

template <int VB>
PD_GATE_INLINE void lstm_backward_row(const float* gt, const float* c, const float* c_prev,
                                      const float* dhs, const float* dcs, float* dh, float* dc,
                                      float* dx, int64_t U) {
  const int64_t body = U - U % F32<VB>::E;
  lstm_backward_span<VB>(gt, c, c_prev, dhs, dcs, dh, dc, dx, U, 0, body);
  lstm_backward_span<4>(gt, c, c_prev, dhs, dcs, dh, dc, dx, U, body, U);
}

// sigmoid or tanh of n floats (the GRU's gates), in place allowed.
template <int VB>
PD_GATE_INLINE void sigmoid_tanh_n(const float* x, float* y, int64_t n, bool tanh_) {
  const int64_t body = n - n % F32<VB>::E;
  int64_t i = 0;
  for (; i < body; i += F32<VB>::E)
    store<VB>(y + i, tanh_ ? vtanh<VB>(load<VB>(x + i)) : vsigmoid<VB>(load<VB>(x + i)));
  for (; i < n; ++i)
    store<4>(y + i, tanh_ ? vtanh<4>(load<4>(x + i)) : vsigmoid<4>(load<4>(x + i)));
}

// The builds: a table of the three row functions per vector width.
struct Fns {
  void (*forward)(float*, const float*, const float*, float*, float*, int64_t);
  void (*backward)(const float*, const float*, const float*, const float*, const float*,
                   float*, float*, float*, int64_t);
  void (*activate)(const float*, float*, int64_t, bool);
};

#define PD_GATE_BUILD(NAME, VB, ATTR)                                                       \
  ATTR void NAME##_forward(float* gt, const float* b, const float* cp, float* c, float* h,  \
                           int64_t U) {                                                    \
    lstm_forward_row<VB>(gt, b, cp, c, h, U);                                              \
  }                                                                                        \
  ATTR void NAME##_backward(const float* gt, const float* c, const float* cp,              \
                            const float* dhs, const float* dcs, float* dh, float* dc,      \
                            float* dx, int64_t U) {                                        \
    lstm_backward_row<VB>(gt, c, cp, dhs, dcs, dh, dc, dx, U);                             \
  }                                                                                        \
  ATTR void NAME##_activate(const float* x, float* y, int64_t n, bool t) {                 \
    sigmoid_tanh_n<VB>(x, y, n, t);                                                        \
  }

PD_GATE_BUILD(sse2, 16, inline)
#if defined(__x86_64__) && defined(__GNUC__)
#define PD_GATE_BUILDS 1
PD_GATE_BUILD(avx2, 32, __attribute__((target("avx2,fma"))) inline)
PD_GATE_BUILD(avx512, 64, __attribute__((target("avx512f,avx2,fma"))) inline)
#endif
#undef PD_GATE_BUILD

// The widest build this CPU runs (PADDLE_RNN_VECTOR_BYTES=16 or 32 asks for a narrower
// one; read once).
inline int vector_bytes() {
  static const int bytes = [] {
#ifdef PD_GATE_BUILDS
    const int widest = __builtin_cpu_supports("avx512f") ? 64 :
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 32 : 16;
#else
    const int widest = 16;
#endif
    const char* asked = std::getenv("PADDLE_RNN_VECTOR_BYTES");
    const int want = asked ? std::atoi(asked) : widest;
    return want == 16 || want == 32 || want == 64 ? std::min(want, widest) : widest;
  }();
  return bytes;
}

inline Fns fns() {
#ifdef PD_GATE_BUILDS
  switch (vector_bytes()) {
    case 64: return {avx512_forward, avx512_backward, avx512_activate};
    case 32: return {avx2_forward, avx2_backward, avx2_activate};
  }
#endif
  return {sse2_forward, sse2_backward, sse2_activate};
}

}  // namespace gates
}  // namespace paddle
