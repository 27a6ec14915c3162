// The LSTM cell's elementwise arithmetic, one batch row of one step at a time, forward and
// backward, for csrc/nn/recurrent.cpp.
//
// float32 runs on vectors: sigmoid and tanh are vmath.h's branch-free approximations (the
// unary kernels' own), so these plain loops vectorize; std::exp and std::tanh are scalar
// calls and took 60% of the LSTM's time. Like the unary kernels and conv.cpp's taps path,
// the loops are built for SSE2 (the package's baseline), AVX2 and AVX-512, and common.h's
// vector_bytes() picks the widest the CPU runs (PADDLE_VECTOR_BYTES=16|32 forces a narrower
// one, for the tests). float64 keeps std::exp and std::tanh (recurrent.cpp's Cell<T>).
#pragma once

#include "../vmath.h"
#include "nn.h"

namespace paddle {
namespace gates {

// One LSTM step of one row: gt holds the pre-activations of i, f, c~, o (U apart) less the
// bias b, and gets their activations; c and h the new states.
// (__restrict__: the rows never overlap, and without it GCC leaves the loop scalar.)
PD_VM_INLINE void lstm_forward_row(float* __restrict__ gt, const float* __restrict__ b,
                                   const float* __restrict__ c_prev, float* __restrict__ c,
                                   float* __restrict__ h, int64_t U) {
  for (int64_t u = 0; u < U; ++u) {
    const float ig = vm::sigmoid(gt[u] + b[u]), fg = vm::sigmoid(gt[U + u] + b[U + u]),
                cg = vm::tanh(gt[2 * U + u] + b[2 * U + u]),
                og = vm::sigmoid(gt[3 * U + u] + b[3 * U + u]);
    gt[u] = ig; gt[U + u] = fg; gt[2 * U + u] = cg; gt[3 * U + u] = og;
    const float cv = fg * c_prev[u] + ig * cg;
    c[u] = cv;
    h[u] = og * vm::tanh(cv);
  }
}

// The step's gradients for one row: from the gradients reaching h and c (dhs + dh, dcs +
// dc) to the four pre-activations (dx, U apart); dc becomes what reaches c_prev, dh zero
// (h_prev is reached only through the recurrent product).
PD_VM_INLINE void lstm_backward_row(const float* __restrict__ gt, const float* __restrict__ c,
                                    const float* __restrict__ c_prev,
                                    const float* __restrict__ dhs, const float* __restrict__ dcs,
                                    float* __restrict__ dh, float* __restrict__ dc,
                                    float* __restrict__ dx, int64_t U) {
  for (int64_t u = 0; u < U; ++u) {
    const float ig = gt[u], fg = gt[U + u], cg = gt[2 * U + u], og = gt[3 * U + u];
    const float tc = vm::tanh(c[u]);
    const float dhv = dhs[u] + dh[u];
    const float dcv = dcs[u] + dc[u] + dhv * og * (1.0f - tc * tc);
    dx[u] = dcv * cg * ig * (1.0f - ig);
    dx[U + u] = dcv * c_prev[u] * fg * (1.0f - fg);
    dx[2 * U + u] = dcv * ig * (1.0f - cg * cg);
    dx[3 * U + u] = dhv * tc * og * (1.0f - og);
    dc[u] = dcv * fg;
    dh[u] = 0.0f;
  }
}

// sigmoid or tanh of n floats (the GRU's gates), in place allowed.
PD_VM_INLINE void sigmoid_tanh_n(const float* x, float* y, int64_t n, bool tanh_) {
  if (tanh_)
    for (int64_t i = 0; i < n; ++i) y[i] = vm::tanh(x[i]);
  else
    for (int64_t i = 0; i < n; ++i) y[i] = vm::sigmoid(x[i]);
}

// The builds: a table of the three row functions per vector width.
struct Fns {
  void (*forward)(float*, const float*, const float*, float*, float*, int64_t);
  void (*backward)(const float*, const float*, const float*, const float*, const float*,
                   float*, float*, float*, int64_t);
  void (*activate)(const float*, float*, int64_t, bool);
};

#define PD_GATE_BUILD(NAME, ATTR)                                                           \
  ATTR void NAME##_forward(float* gt, const float* b, const float* cp, float* c, float* h,  \
                           int64_t U) {                                                    \
    lstm_forward_row(gt, b, cp, c, h, U);                                                  \
  }                                                                                        \
  ATTR void NAME##_backward(const float* gt, const float* c, const float* cp,              \
                            const float* dhs, const float* dcs, float* dh, float* dc,      \
                            float* dx, int64_t U) {                                        \
    lstm_backward_row(gt, c, cp, dhs, dcs, dh, dc, dx, U);                                 \
  }                                                                                        \
  ATTR void NAME##_activate(const float* x, float* y, int64_t n, bool t) {                 \
    sigmoid_tanh_n(x, y, n, t);                                                            \
  }

PD_GATE_BUILD(sse2, inline)
#if defined(__x86_64__) && defined(__GNUC__)
#define PD_GATE_BUILDS 1
PD_GATE_BUILD(avx2, __attribute__((target("avx2,fma"))) inline)
PD_GATE_BUILD(avx512, __attribute__((target("avx512f,avx512dq,avx2,fma"))) inline)
#endif
#undef PD_GATE_BUILD

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
