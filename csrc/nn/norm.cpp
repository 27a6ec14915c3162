// Batch normalization: forward (batch or moving statistics) and its gradient.
//
// x is viewed as [outer, C, inner] with C the normalized channel axis (NHWC: inner = 1;
// NCHW: outer = N, inner = H * W). Each kernel call is one parallel region: every thread
// takes one range of rows, sums its statistics, the threads meet once (a barrier) while
// one of them merges the sums, and each thread then writes the rows it read, the last
// blocks first, which are still in its cache.
//
// The batch statistics take one pass over memory: x is cut into blocks small enough to
// stay in the L1 cache (a few rows of every channel, or one channel's run of `inner`
// values). A block's sum is taken in double (the mean keeps every digit when values
// cancel), then its squared deviations from that mean rounded to T, m', in T (float32
// vectors hold twice the values), with the correction of Bjorck's two-pass formula
// (m2 = sum (x - m')^2 - (sum (x - m'))^2 / n): no digits are lost when the mean is large,
// and the sums in T run over at most 128 rows. Blocks are merged in double with Chan's
// pairwise update, per thread, then across threads. The gradient's two sums (of g, and of
// g * (x - mean)) share one pass, summed in T per block and in double across blocks.
//
// The NHWC loops run across the channels of a row, which the compiler vectorizes; they are
// built for baseline x86-64 (SSE2), AVX2 + FMA and AVX-512, picked once at run time
// (PADDLE_VECTOR_BYTES=16|32 forces a narrower build, for the tests).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "nn.h"

namespace paddle {
namespace {

struct Layout3 {
  int64_t outer, C, inner;
  int64_t size() const { return outer * C * inner; }
};

// Count, mean and sum of squared deviations of some values, in double; merging two is
// Chan et al.'s pairwise update, exact in exact arithmetic and stable in floating point.
struct Moments {
  double n = 0, mean = 0, m2 = 0;
  void merge(double nb, double mean_b, double m2_b) {
    if (nb == 0) return;
    const double total = n + nb, delta = mean_b - mean;
    mean += delta * (nb / total);
    m2 += m2_b + delta * delta * (n * nb / total);
    n = total;
  }
};

constexpr int64_t kBlockBytes = 16 << 10;  // a block of x stays in L1 for its passes
constexpr int64_t kBlockRows = 128;        // sums in T run over at most this many rows

// Rows of C channels per block (C = 0: no values, any count).
template <typename T>
int64_t block_rows(int64_t C) {
  if (C == 0) return kBlockRows;
  return std::max<int64_t>(1, std::min<int64_t>(kBlockRows, kBlockBytes / int64_t(sizeof(T) * C)));
}

#define PD_NORM_INLINE __attribute__((always_inline)) inline

// ---- NHWC loops (inner == 1), one build per vector width VB ----------------------------
// Each takes a thread's rows [o0, o1) of C channels. `work` holds 2 * C values of T.

// A vector of VB bytes of T (GCC's and Clang's vector extension), loaded and stored
// unaligned; `vector * scalar` broadcasts the scalar. Vectors are passed by value only
// between always-inlined functions of one build, so the ABI of such calls never matters.
#pragma GCC diagnostic ignored "-Wpsabi"
template <typename T, int VB>
struct Vec {
  typedef T type __attribute__((vector_size(VB)));
};
template <int VB, typename T>
PD_NORM_INLINE typename Vec<T, VB>::type load(const T* p) {
  typename Vec<T, VB>::type v;
  std::memcpy(&v, p, VB);
  return v;
}
template <int VB, typename T>
PD_NORM_INLINE void store(T* p, const typename Vec<T, VB>::type& v) { std::memcpy(p, &v, VB); }

// Sums over the rows [r0, r1) of a block, for the channels [c, c + n) with n = one vector
// (VB bytes) or 1 (the last C % E channels): sum = sum x in double (the mean keeps every
// digit when the values cancel), and in T about m = the mean rounded to T:
// s1 = sum (x - m), s2 = sum (x - m)^2. The rows are taken 2 at a time into 2 sets of
// accumulators, so that the adds of a channel do not all wait on each other.
template <int VB, typename T, typename V>
PD_NORM_INLINE void block_moments(const T* x, int64_t r0, int64_t r1, int64_t C, int64_t c,
                                  double* sum, T* s1, T* s2) {
  constexpr int E = int(sizeof(V) / sizeof(T));
  auto at = [&](int64_t o) __attribute__((always_inline)) {
    if constexpr (E == 1) return V(x[o * C + c]);
    else return load<VB>(x + o * C + c);
  };
  const double n = double(r1 - r0);
  V mean;
  if constexpr (E == 1) {
    double a0 = 0, a1 = 0;
    int64_t o = r0;
    for (; o + 2 <= r1; o += 2) {
      a0 += double(x[o * C + c]);
      a1 += double(x[(o + 1) * C + c]);
    }
    if (o < r1) a0 += double(x[o * C + c]);
    *sum = a0 + a1;
    mean = V(*sum / n);
  } else if constexpr (sizeof(T) == sizeof(double)) {
    V a0{}, a1{};
    int64_t o = r0;
    for (; o + 2 <= r1; o += 2) {
      a0 += at(o);
      a1 += at(o + 1);
    }
    if (o < r1) a0 += at(o);
    store<VB>(sum, a0 + a1);
    mean = (a0 + a1) / n;
  } else {  // float: each half of a vector summed as a vector of doubles
    typedef typename Vec<T, VB / 2>::type H;
    typedef typename Vec<double, VB>::type D;
    D lo{}, hi{};
    for (int64_t o = r0; o < r1; ++o) {
      const T* row = x + o * C + c;
      lo += __builtin_convertvector(load<VB / 2>(row), D);
      hi += __builtin_convertvector(load<VB / 2>(row + E / 2), D);
    }
    store<VB>(sum, lo);
    store<VB>(sum + E / 2, hi);
    const H ml = __builtin_convertvector(lo / n, H), mh = __builtin_convertvector(hi / n, H);
    std::memcpy(&mean, &ml, VB / 2);
    std::memcpy(reinterpret_cast<char*>(&mean) + VB / 2, &mh, VB / 2);
  }
  V d0{}, d1{}, q0{}, q1{};
  int64_t o = r0;
  for (; o + 2 <= r1; o += 2) {
    const V u = at(o) - mean, v = at(o + 1) - mean;
    d0 += u;
    q0 += u * u;
    d1 += v;
    q1 += v * v;
  }
  if (o < r1) {
    const V u = at(o) - mean;
    d0 += u;
    q0 += u * u;
  }
  if constexpr (E == 1) {
    *s1 = d0 + d1;
    *s2 = q0 + q1;
  } else {
    store<VB>(s1, d0 + d1);
    store<VB>(s2, q0 + q1);
  }
}

template <int VB, typename T>
PD_NORM_INLINE void moments_rows(const T* x, int64_t o0, int64_t o1, int64_t C, T* work,
                                 double* sums, Moments* mine) {
  typedef typename Vec<T, VB>::type V;
  constexpr int E = VB / int(sizeof(T));
  const int64_t rows = block_rows<T>(C);
  T* s1 = work;
  T* s2 = work + C;
  for (int64_t r0 = o0; r0 < o1; r0 += rows) {
    const int64_t r1 = std::min(o1, r0 + rows);
    int64_t c = 0;
    for (; c + E <= C; c += E) block_moments<VB, T, V>(x, r0, r1, C, c, sums + c, s1 + c, s2 + c);
    for (; c < C; ++c) block_moments<VB, T, T>(x, r0, r1, C, c, sums + c, s1 + c, s2 + c);
    // m2 about the exact mean from the sums about m (Bjorck's corrected two-pass formula)
    const double n = double(r1 - r0);
    for (c = 0; c < C; ++c) {
      const double d1 = double(s1[c]);
      mine[c].merge(n, sums[c] / n, std::max(0.0, double(s2[c]) - d1 * d1 / n));
    }
  }
}

// y[o, c] = x[o, c] * a[c] + b[c] (its relu with `relu`), the last blocks first.
template <int VB, typename T>
PD_NORM_INLINE void affine_rows(const T* x, const T* a, const T* b, int64_t o0, int64_t o1,
                                int64_t C, T* y, bool relu) {
  const int64_t rows = block_rows<T>(C);
  const T* __restrict__ ac = a;
  const T* __restrict__ bc = b;
  for (int64_t r1 = o1; r1 > o0; r1 -= rows) {
    for (int64_t o = std::max(o0, r1 - rows); o < r1; ++o) {
      const T* __restrict__ xr = x + o * C;
      T* __restrict__ yr = y + o * C;
      if (relu)
        for (int64_t c = 0; c < C; ++c) yr[c] = relu_of(xr[c] * ac[c] + bc[c]);
      else
        for (int64_t c = 0; c < C; ++c) yr[c] = xr[c] * ac[c] + bc[c];
    }
  }
}

// sg = sum g, sgx = sum g * (x - mean) over the rows [r0, r1), for the channels
// [c, c + n) with n = one vector or 1; two rows at a time into two sets of accumulators.
template <int VB, typename T, typename V>
PD_NORM_INLINE void block_grad_sums(const T* x, const T* g, const T* mean, int64_t r0,
                                    int64_t r1, int64_t C, int64_t c, T* sg, T* sgx) {
  constexpr int E = int(sizeof(V) / sizeof(T));
  auto at = [&](const T* a, int64_t o) __attribute__((always_inline)) {
    if constexpr (E == 1) return V(a[o * C + c]);
    else return load<VB>(a + o * C + c);
  };
  V m;
  if constexpr (E == 1) m = mean[c];
  else m = load<VB>(mean + c);
  V s0{}, s1{}, t0{}, t1{};
  int64_t o = r0;
  for (; o + 2 <= r1; o += 2) {
    const V g0 = at(g, o), g1 = at(g, o + 1);
    s0 += g0;
    t0 += g0 * (at(x, o) - m);
    s1 += g1;
    t1 += g1 * (at(x, o + 1) - m);
  }
  if (o < r1) {
    const V g0 = at(g, o);
    s0 += g0;
    t0 += g0 * (at(x, o) - m);
  }
  if constexpr (E == 1) {
    *sg = s0 + s1;
    *sgx = t0 + t1;
  } else {
    store<VB>(sg, s0 + s1);
    store<VB>(sgx, t0 + t1);
  }
}

// by_g[c] += sum g, by_gx[c] += sum g * (x - mean): in T per block, in double across.
template <int VB, typename T>
PD_NORM_INLINE void grad_sums_rows(const T* x, const T* g, const T* mean, int64_t o0,
                                   int64_t o1, int64_t C, T* work, double* by_g,
                                   double* by_gx) {
  typedef typename Vec<T, VB>::type V;
  constexpr int E = VB / int(sizeof(T));
  const int64_t rows = block_rows<T>(C);
  T* sg = work;
  T* sgx = work + C;
  for (int64_t r0 = o0; r0 < o1; r0 += rows) {
    const int64_t r1 = std::min(o1, r0 + rows);
    int64_t c = 0;
    for (; c + E <= C; c += E)
      block_grad_sums<VB, T, V>(x, g, mean, r0, r1, C, c, sg + c, sgx + c);
    for (; c < C; ++c) block_grad_sums<VB, T, T>(x, g, mean, r0, r1, C, c, sg + c, sgx + c);
    for (c = 0; c < C; ++c) {
      by_g[c] += double(sg[c]);
      by_gx[c] += double(sgx[c]);
    }
  }
}

// dx[o, c] = k[c] * g[o, c] + p[c] * x[o, c] + q[c], the last blocks first.
template <int VB, typename T>
PD_NORM_INLINE void grad_dx_rows(const T* x, const T* g, const T* k, const T* p, const T* q,
                                 int64_t o0, int64_t o1, int64_t C, T* dx) {
  const int64_t rows = block_rows<T>(C);
  const T *__restrict__ kc = k, *__restrict__ pc = p, *__restrict__ qc = q;
  for (int64_t r1 = o1; r1 > o0; r1 -= rows) {
    for (int64_t o = std::max(o0, r1 - rows); o < r1; ++o) {
      const T* __restrict__ gr = g + o * C;
      const T* __restrict__ xr = x + o * C;
      T* __restrict__ dr = dx + o * C;
      for (int64_t c = 0; c < C; ++c) dr[c] = kc[c] * gr[c] + pc[c] * xr[c] + qc[c];
    }
  }
}

// Each loop above once per build: NAME##_sse2 (the package's baseline), _avx2, _avx512.
#if defined(__x86_64__) && defined(__GNUC__)
#define PD_NORM_BUILDS 1
#define PD_NORM_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define PD_NORM_TARGET_AVX512 \
  __attribute__((target("avx512f,avx512vl,avx2,fma,prefer-vector-width=512")))
#else
#define PD_NORM_TARGET_AVX2
#define PD_NORM_TARGET_AVX512
#endif
#define PD_NORM_BUILD(NAME, PARAMS, ARGS)                                           \
  template <typename T> void NAME##_16 PARAMS { NAME<16, T> ARGS; }                 \
  template <typename T> PD_NORM_TARGET_AVX2 void NAME##_32 PARAMS { NAME<32, T> ARGS; } \
  template <typename T> PD_NORM_TARGET_AVX512 void NAME##_64 PARAMS { NAME<64, T> ARGS; }

PD_NORM_BUILD(moments_rows, (const T* x, int64_t o0, int64_t o1, int64_t C, T* work,
                             double* sums, Moments* mine), (x, o0, o1, C, work, sums, mine))
PD_NORM_BUILD(affine_rows, (const T* x, const T* a, const T* b, int64_t o0, int64_t o1,
                            int64_t C, T* y, bool relu), (x, a, b, o0, o1, C, y, relu))
PD_NORM_BUILD(grad_sums_rows, (const T* x, const T* g, const T* mean, int64_t o0, int64_t o1,
                               int64_t C, T* work, double* by_g, double* by_gx),
              (x, g, mean, o0, o1, C, work, by_g, by_gx))
PD_NORM_BUILD(grad_dx_rows, (const T* x, const T* g, const T* k, const T* p, const T* q,
                             int64_t o0, int64_t o1, int64_t C, T* dx),
              (x, g, k, p, q, o0, o1, C, dx))

// The widest build this CPU runs: common.h's vector_bytes() (PADDLE_VECTOR_BYTES=16|32
// picks a narrower one).
#define PD_NORM_PICK(NAME, T, ...)                              \
  switch (vector_bytes()) {                                \
    case 64: NAME##_64<T>(__VA_ARGS__); break;                  \
    case 32: NAME##_32<T>(__VA_ARGS__); break;                  \
    default: NAME##_16<T>(__VA_ARGS__);                         \
  }

// ---- NCHW loops (inner > 1): a block is one channel's run of `inner` values ------------

template <typename T>
void moments_runs(const Layout3& L, const T* x, int64_t o0, int64_t o1, Moments* mine) {
  for (int64_t o = o0; o < o1; ++o)
    for (int64_t c = 0; c < L.C; ++c) {
      const T* run = x + (o * L.C + c) * L.inner;
      double s = 0;
      for (int64_t i = 0; i < L.inner; ++i) s += double(run[i]);
      const double m = s / double(L.inner);
      double q = 0;
      for (int64_t i = 0; i < L.inner; ++i) {
        const double d = double(run[i]) - m;
        q += d * d;
      }
      mine[c].merge(double(L.inner), m, q);
    }
}

template <typename T>
void affine_runs(const Layout3& L, const T* x, const T* a, const T* b, int64_t o0, int64_t o1,
                 T* y, bool relu) {
  for (int64_t o = o1 - 1; o >= o0; --o) {
    const int64_t base = o * L.C * L.inner;
    for (int64_t c = 0; c < L.C; ++c) {
      const T* xr = x + base + c * L.inner;
      T* yr = y + base + c * L.inner;
      if (relu)
        for (int64_t i = 0; i < L.inner; ++i) yr[i] = relu_of(xr[i] * a[c] + b[c]);
      else
        for (int64_t i = 0; i < L.inner; ++i) yr[i] = xr[i] * a[c] + b[c];
    }
  }
}

template <typename T>
void grad_sums_runs(const Layout3& L, const T* x, const T* g, const T* mean, int64_t o0,
                    int64_t o1, double* by_g, double* by_gx) {
  for (int64_t o = o0; o < o1; ++o)
    for (int64_t c = 0; c < L.C; ++c) {
      const int64_t base = (o * L.C + c) * L.inner;
      const double m = double(mean[c]);
      double s = 0, sx = 0;
      for (int64_t i = 0; i < L.inner; ++i) {
        s += double(g[base + i]);
        sx += double(g[base + i]) * (double(x[base + i]) - m);
      }
      by_g[c] += s;
      by_gx[c] += sx;
    }
}

template <typename T>
void grad_dx_runs(const Layout3& L, const T* x, const T* g, const T* k, const T* p,
                  const T* q, int64_t o0, int64_t o1, T* dx) {
  for (int64_t o = o1 - 1; o >= o0; --o)
    for (int64_t c = 0; c < L.C; ++c) {
      const int64_t base = (o * L.C + c) * L.inner;
      for (int64_t i = 0; i < L.inner; ++i)
        dx[base + i] = k[c] * g[base + i] + p[c] * x[base + i] + q[c];
    }
}

// ---- the kernels ------------------------------------------------------------------------

// One thread's share [o0, o1) of the outer rows.
struct Share {
  int t;
  int64_t o0, o1;
  Share(int64_t outer) {
    t = omp_get_thread_num();
    const int nt = omp_get_num_threads();
    o0 = outer * t / nt;
    o1 = outer * (t + 1) / nt;
  }
};

template <typename T>
void batch_norm_typed(const Layout3& L, const T* x, const T* scale, const T* offset, T* mm,
                      T* mv, T* y, T* mean, T* inv_std, double momentum, double eps,
                      bool training, bool relu) {
  const int64_t C = L.C;
  const int threads = L.size() >= kParallelGrain ? max_threads() : 1;
  std::vector<Moments> partial(training ? size_t(threads) * C : 0);
  std::vector<T> a(C), b(C);
  // The statistics used (batch or moving) and y = x * a + b per channel; one thread.
  auto statistics = [&] {
    if (training) {
      std::vector<Moments> total(C);
      for (size_t t = 0; t < partial.size() / C; ++t)
        for (int64_t c = 0; c < C; ++c) {
          const Moments& m = partial[t * C + c];
          total[c].merge(m.n, m.mean, m.m2);
        }
      const double count = double(L.outer * L.inner);
      for (int64_t c = 0; c < C; ++c) {
        const double mu = count > 0 ? total[c].mean : 0.0;
        const double var = count > 0 ? std::max(0.0, total[c].m2) / count : 0.0;  // biased
        mean[c] = T(mu);
        inv_std[c] = T(1.0 / std::sqrt(var + eps));
        if (count == 0) continue;  // an empty batch has no statistics to move toward
        mm[c] = T(double(mm[c]) * momentum + mu * (1.0 - momentum));
        mv[c] = T(double(mv[c]) * momentum + var * (1.0 - momentum));
      }
    } else {
      for (int64_t c = 0; c < C; ++c) {
        mean[c] = mm[c];
        inv_std[c] = T(1.0 / std::sqrt(double(mv[c]) + eps));
      }
    }
    for (int64_t c = 0; c < C; ++c) {
      a[c] = inv_std[c] * scale[c];
      b[c] = offset[c] - mean[c] * a[c];
    }
  };
  if (!training) statistics();
#pragma omp parallel num_threads(threads)
  {
    const Share s(L.outer);
    if (training) {
      Moments* mine = partial.data() + size_t(s.t) * C;
      if (L.inner == 1) {
        std::vector<T> work(2 * C);
        std::vector<double> sums(C);
        PD_NORM_PICK(moments_rows, T, x, s.o0, s.o1, C, work.data(), sums.data(), mine);
      } else {
        moments_runs(L, x, s.o0, s.o1, mine);
      }
#pragma omp barrier
#pragma omp single
      statistics();  // the other threads wait at the end of `single`
    }
    if (L.inner == 1) {
      PD_NORM_PICK(affine_rows, T, x, a.data(), b.data(), s.o0, s.o1, C, y, relu);
    } else {
      affine_runs(L, x, a.data(), b.data(), s.o0, s.o1, y, relu);
    }
  }
}

void batch_norm(py::array x, py::array scale, py::array offset, py::array mm, py::array mv,
                py::array y, py::array mean, py::array inv_std, int64_t outer, int64_t C,
                int64_t inner, double momentum, double eps, bool training, bool relu) {
  const char* op = "batch_norm";
  size_of({outer, C, inner}, op);  // negative or overflowing sizes are refused here
  Layout3 L{outer, C, inner};
  int dt = check_dtype(x, op, "x");
  check_array(x, op, "x", dt, L.size(), kRead);
  check_array(scale, op, "scale", dt, C, kRead);
  check_array(offset, op, "offset", dt, C, kRead);
  // Training updates the moving statistics in place.
  check_array(mm, op, "moving_mean", dt, C, training ? kWrite : kRead);
  check_array(mv, op, "moving_var", dt, C, training ? kWrite : kRead);
  check_array(y, op, "y", dt, L.size(), kWrite);
  check_array(mean, op, "mean", dt, C, kWrite);
  check_array(inv_std, op, "inv_std", dt, C, kWrite);
  GilRelease nogil(L.size());
  PD_DISPATCH_FLOAT(dt, op, {
    batch_norm_typed<scalar_t>(L, in_ptr<scalar_t>(x), in_ptr<scalar_t>(scale),
                               in_ptr<scalar_t>(offset),
                               static_cast<scalar_t*>(const_cast<void*>(mm.data())),
                               static_cast<scalar_t*>(const_cast<void*>(mv.data())),
                               out_ptr<scalar_t>(y), out_ptr<scalar_t>(mean),
                               out_ptr<scalar_t>(inv_std), momentum, eps, training, relu);
  });
}


// dscale = sum g * xhat, doffset = sum g; dx through the batch statistics when training.
// With relu_y (not null), g is relu's gradient folded in: g where relu_y (relu's output) > 0,
// else 0 (relu_grad's rule; the fused batch_norm + relu of paddle/lowlevel/fusion/norm.py):
// each block of g is masked into a small buffer, in cache, and the same loops run on it.
template <typename T>
void batch_norm_grad_typed(const Layout3& L, const T* x, const T* scale, const T* mean,
                           const T* inv_std, const T* g, T* dx, T* dscale, T* doffset,
                           bool training, const T* relu_y) {
  const int64_t C = L.C;
  const int threads = L.size() >= kParallelGrain ? max_threads() : 1;
  // Per thread: sum g and sum g * (x - mean) per channel, in one pass over g and x.
  std::vector<double> partial(size_t(threads) * 2 * C, 0.0);
  // dx = k * g + p * x + q per channel, with k = scale * inv_std and, when training,
  // the batch statistics' share folded into p and q.
  std::vector<T> k(C), p(C), q(C);
  auto coefficients = [&] {  // one thread
    const double count = double(L.outer * L.inner);
    for (int64_t c = 0; c < C; ++c) {
      double sg = 0, sgx = 0;
      for (size_t t = 0; t < partial.size() / (2 * C); ++t) {
        sg += partial[t * 2 * C + c];
        sgx += partial[t * 2 * C + C + c];
      }
      const double is = inv_std[c];
      dscale[c] = T(sgx * is);
      doffset[c] = T(sg);
      const double kc = double(scale[c]) * is;
      k[c] = T(kc);
      if (training && count > 0) {
        const double pc = -kc * is * is * sgx / count;
        p[c] = T(pc);
        q[c] = T(-kc * sg / count - pc * double(mean[c]));
      } else {
        p[c] = T(0);
        q[c] = T(0);
      }
    }
  };
#pragma omp parallel num_threads(threads)
  {
    const Share s(L.outer);
    double* by_g = partial.data() + size_t(s.t) * 2 * C;
    // The rows of one block ([r0, r1) with inner == 1, one outer slab otherwise) of g,
    // masked by relu_y into `masked` when relu_y is given: the pointer to read g from.
    const int64_t rows = L.inner == 1 ? block_rows<T>(C) : 1, slab = L.C * L.inner;
    std::vector<T> masked(relu_y ? size_t(rows * slab) : 0);
    auto block_g = [&](int64_t r0, int64_t r1) -> const T* {
      const int64_t at = r0 * slab, n = (r1 - r0) * slab;
      for (int64_t i = 0; i < n; ++i) {  // g loaded unconditionally: a select, not a branch
        const T gv = g[at + i];
        masked[i] = relu_y[at + i] > T(0) ? gv : T(0);
      }
      return masked.data();
    };
    const Layout3 one{1, L.C, L.inner};
    if (L.inner == 1) {
      std::vector<T> work(2 * C);
      if (!relu_y) {
        PD_NORM_PICK(grad_sums_rows, T, x, g, mean, s.o0, s.o1, C, work.data(), by_g, by_g + C);
      } else {
        for (int64_t r0 = s.o0; r0 < s.o1; r0 += rows) {
          const int64_t r1 = std::min(s.o1, r0 + rows);
          PD_NORM_PICK(grad_sums_rows, T, x + r0 * C, block_g(r0, r1), mean, 0, r1 - r0, C,
                       work.data(), by_g, by_g + C);
        }
      }
    } else if (!relu_y) {
      grad_sums_runs(L, x, g, mean, s.o0, s.o1, by_g, by_g + C);
    } else {
      for (int64_t o = s.o0; o < s.o1; ++o)
        grad_sums_runs(one, x + o * slab, block_g(o, o + 1), mean, 0, 1, by_g, by_g + C);
    }
#pragma omp barrier
#pragma omp single
    coefficients();  // the other threads wait at the end of `single`
    if (L.inner == 1) {
      if (!relu_y) {
        PD_NORM_PICK(grad_dx_rows, T, x, g, k.data(), p.data(), q.data(), s.o0, s.o1, C, dx);
      } else {
        for (int64_t r0 = s.o0; r0 < s.o1; r0 += rows) {
          const int64_t r1 = std::min(s.o1, r0 + rows);
          PD_NORM_PICK(grad_dx_rows, T, x + r0 * C, block_g(r0, r1), k.data(), p.data(),
                       q.data(), 0, r1 - r0, C, dx + r0 * C);
        }
      }
    } else if (!relu_y) {
      grad_dx_runs(L, x, g, k.data(), p.data(), q.data(), s.o0, s.o1, dx);
    } else {
      for (int64_t o = s.o0; o < s.o1; ++o)
        grad_dx_runs(one, x + o * slab, block_g(o, o + 1), k.data(), p.data(), q.data(), 0, 1,
                     dx + o * slab);
    }
  }
}

void batch_norm_grad(py::array x, py::array scale, py::array mean, py::array inv_std,
                     py::array g, py::array dx, py::array dscale, py::array doffset,
                     int64_t outer, int64_t C, int64_t inner, bool training, py::object relu_y) {
  const char* op = "batch_norm_grad";
  size_of({outer, C, inner}, op);  // negative or overflowing sizes are refused here
  Layout3 L{outer, C, inner};
  int dt = check_dtype(x, op, "x");
  check_array(x, op, "x", dt, L.size(), kRead);
  check_array(g, op, "g", dt, L.size(), kRead);
  check_array(scale, op, "scale", dt, C, kRead);
  check_array(mean, op, "mean", dt, C, kRead);
  check_array(inv_std, op, "inv_std", dt, C, kRead);
  check_array(dx, op, "dx", dt, L.size(), kWrite);
  check_array(dscale, op, "dscale", dt, C, kWrite);
  check_array(doffset, op, "doffset", dt, C, kWrite);
  py::array ry;
  const bool masked = !relu_y.is_none();
  if (masked) {  // relu's gradient folded in (see batch_norm_grad_typed)
    require(py::isinstance<py::array>(relu_y), op, "relu_y must be an array or None");
    ry = py::reinterpret_borrow<py::array>(relu_y);
    check_array(ry, op, "relu_y", dt, L.size(), kRead);
  }
  GilRelease nogil(L.size());  // (after every Python object is read)
  PD_DISPATCH_FLOAT(dt, op, {
    batch_norm_grad_typed<scalar_t>(L, in_ptr<scalar_t>(x), in_ptr<scalar_t>(scale),
                                    in_ptr<scalar_t>(mean), in_ptr<scalar_t>(inv_std),
                                    in_ptr<scalar_t>(g), out_ptr<scalar_t>(dx),
                                    out_ptr<scalar_t>(dscale), out_ptr<scalar_t>(doffset),
                                    training,
                                    masked ? in_ptr<scalar_t>(ry) : nullptr);
  });
}

// ---- dropout ----------------------------------------------------------------------------

// mask = (u >= rate) / (1 - rate), y = x * mask; rate 0 copies x and fills ones.
void dropout(py::array x, py::array y, py::array mask, double rate, uint64_t seed) {
  const char* op = "dropout";
  require(rate >= 0.0 && rate < 1.0, op, "rate must be in [0, 1)");
  int dt = check_dtype(x, op, "x");
  check_array(x, op, "x", dt, -1, kRead);
  check_array(y, op, "y", dt, x.size(), kWrite);
  check_array(mask, op, "mask", dt, x.size(), kWrite);
  const uint64_t base = splitmix64(seed);
  PD_DISPATCH_FLOAT(dt, op, {
    const scalar_t* xp = in_ptr<scalar_t>(x);
    scalar_t* yp = out_ptr<scalar_t>(y);
    scalar_t* mp = out_ptr<scalar_t>(mask);
    const scalar_t keep = scalar_t(1.0 / (1.0 - rate));
    // Compare 53-bit integers: u >= rate  <=>  bits >= rate * 2^53.
    const uint64_t threshold = uint64_t(rate * 9007199254740992.0);
    parallel_chunks(x.size(), kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const scalar_t m = rate == 0.0 || (splitmix64(base + uint64_t(i)) >> 11) >= threshold
                               ? keep : scalar_t(0);
        mp[i] = m;
        yp[i] = xp[i] * m;
      }
    });
  });
}

}  // namespace

void init_norm(py::module_& m) {
  m.def("batch_norm", &batch_norm,
        array_arg("x"), array_arg("scale"), array_arg("offset"), array_arg("moving_mean"),
        array_arg("moving_var"), array_arg("y"), array_arg("mean"), array_arg("inv_std"),
        py::arg("outer"), py::arg("C"), py::arg("inner"), py::arg("momentum"), py::arg("eps"),
        py::arg("training"), py::arg("relu") = false,
        "y = batch normalization of x viewed as [outer, C, inner] (relu of it with relu); "
        "saves the statistics used and, when training, updates the moving ones in place");
  m.def("batch_norm_grad", &batch_norm_grad,
        array_arg("x"), array_arg("scale"), array_arg("mean"), array_arg("inv_std"),
        array_arg("g"), array_arg("dx"), array_arg("dscale"), array_arg("doffset"),
        py::arg("outer"), py::arg("C"), py::arg("inner"), py::arg("training"),
        py::arg("relu_y") = py::none(),
        "dx, dscale, doffset of batch_norm (of relu(batch_norm) with relu_y, relu's output)");
  m.def("dropout", &dropout,
        array_arg("x"), array_arg("y"), array_arg("mask"), py::arg("rate"), py::arg("seed"),
        "y = x * mask, mask = keep / (1 - rate) from (seed, index)");
}

}  // namespace paddle
