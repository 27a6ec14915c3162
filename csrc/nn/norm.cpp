// Batch normalization: forward (batch or moving statistics) and its gradient.
//
// x is viewed as [outer, C, inner] with C the normalized channel axis (NHWC: inner = 1;
// NCHW: outer = N, inner = H * W). The batch statistics take one pass over memory: x is
// cut into blocks small enough to stay in the L1 cache (a few rows of every channel, or
// one channel's run of `inner` values), each block's mean and squared deviations are
// summed in double with two passes over the cached block (no digits lost when the mean is
// large), and the blocks are merged with Chan's pairwise update, per thread, then across
// threads. The gradient's two sums (of g, and of g * (x - mean)) share one pass too.
#include <algorithm>
#include <cmath>
#include <vector>

#include "nn.h"

namespace paddle {
namespace {

struct Layout3 {
  int64_t outer, C, inner;
  int64_t size() const { return outer * C * inner; }
};

// relu as csrc/elementwise.cpp's (NaN passes), for the fused epilogue of batch_norm + relu
// (paddle/lowlevel/fusion/norm.py).
template <typename T>
inline T relu_of(T v) { return (v > T(0) || v != v) ? v : T(0); }

// y[o, c, i] = x[o, c, i] * a[c] + b[c] (relu of that with Relu)
template <typename T, bool Relu = false>
void channel_affine(const Layout3& L, const T* x, const T* a, const T* b, T* y) {
  parallel_chunks(L.outer, L.size() >= kParallelGrain ? 1 : L.outer + 1,
                  [&](int64_t o0, int64_t o1) {
    if (L.inner == 1) {  // NHWC: a row of channels, vectorized across them
      for (int64_t o = o0; o < o1; ++o) {
        const T* __restrict__ xr = x + o * L.C;
        T* __restrict__ yr = y + o * L.C;
        for (int64_t c = 0; c < L.C; ++c) {
          const T v = xr[c] * a[c] + b[c];
          yr[c] = Relu ? relu_of(v) : v;
        }
      }
      return;
    }
    for (int64_t o = o0; o < o1; ++o) {
      const int64_t base = o * L.C * L.inner;
      for (int64_t c = 0; c < L.C; ++c) {
        const T* xr = x + base + c * L.inner;
        T* yr = y + base + c * L.inner;
        for (int64_t i = 0; i < L.inner; ++i) {
          const T v = xr[i] * a[c] + b[c];
          yr[i] = Relu ? relu_of(v) : v;
        }
      }
    }
  });
}

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

constexpr int64_t kBlockBytes = 16 << 10;  // a block of x stays in L1 for its two passes

// Per-channel moments of x, one pass over memory (see the top of the file).
template <typename T>
std::vector<Moments> channel_moments(const Layout3& L, const T* x) {
  const int64_t C = L.C;
  const int threads = L.size() >= kParallelGrain ? max_threads() : 1;
  std::vector<Moments> partial(size_t(threads) * C);
  _Pragma("omp parallel num_threads(threads)")
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    Moments* mine = partial.data() + size_t(t) * C;
    const int64_t o0 = L.outer * t / nt, o1 = L.outer * (t + 1) / nt;
    if (L.inner == 1) {  // rows of C channels: a block is `rows` rows, all channels at once
      const int64_t rows = std::max<int64_t>(1, kBlockBytes / int64_t(sizeof(T) * C));
      std::vector<double> sum(C), sq(C);
      for (int64_t r0 = o0; r0 < o1; r0 += rows) {
        const int64_t r1 = std::min(o1, r0 + rows);
        const double nb = double(r1 - r0);
        std::fill(sum.begin(), sum.end(), 0.0);
        std::fill(sq.begin(), sq.end(), 0.0);
        double* __restrict__ su = sum.data();
        double* __restrict__ sq2 = sq.data();
        for (int64_t o = r0; o < r1; ++o) {
          const T* __restrict__ row = x + o * C;
          for (int64_t c = 0; c < C; ++c) su[c] += double(row[c]);
        }
        for (int64_t c = 0; c < C; ++c) su[c] /= nb;  // the block's mean
        for (int64_t o = r0; o < r1; ++o) {
          const T* __restrict__ row = x + o * C;
          for (int64_t c = 0; c < C; ++c) {
            const double d = double(row[c]) - su[c];
            sq2[c] += d * d;
          }
        }
        for (int64_t c = 0; c < C; ++c) mine[c].merge(nb, sum[c], sq[c]);
      }
    } else {  // a block is one channel's run of `inner` values
      for (int64_t o = o0; o < o1; ++o)
        for (int64_t c = 0; c < C; ++c) {
          const T* run = x + (o * C + c) * L.inner;
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
  }
  std::vector<Moments> total(C);
  for (int t = 0; t < threads; ++t)
    for (int64_t c = 0; c < C; ++c) {
      const Moments& m = partial[size_t(t) * C + c];
      total[c].merge(m.n, m.mean, m.m2);
    }
  return total;
}

template <typename T>
void batch_norm_typed(const Layout3& L, const T* x, const T* scale, const T* offset, T* mm,
                      T* mv, T* y, T* mean, T* inv_std, double momentum, double eps,
                      bool training, bool relu) {
  const int64_t C = L.C;
  if (training) {
    const std::vector<Moments> moments = channel_moments(L, x);
    const double count = double(L.outer * L.inner);
    for (int64_t c = 0; c < C; ++c) {
      const double mu = count > 0 ? moments[c].mean : 0.0;
      const double var = count > 0 ? moments[c].m2 / count : 0.0;  // biased, as Keras
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
  std::vector<T> a(C), b(C);
  for (int64_t c = 0; c < C; ++c) {
    a[c] = inv_std[c] * scale[c];
    b[c] = offset[c] - mean[c] * a[c];
  }
  if (relu) channel_affine<T, true>(L, x, a.data(), b.data(), y);
  else channel_affine<T>(L, x, a.data(), b.data(), y);
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
// With Masked, g is relu's gradient folded in: g where relu_y (relu's output) > 0, else 0
// (relu_grad's rule; the fused batch_norm + relu of paddle/lowlevel/fusion/norm.py).
template <typename T, bool Masked = false>
void batch_norm_grad_typed(const Layout3& L, const T* x, const T* scale, const T* mean,
                           const T* inv_std, const T* g, T* dx, T* dscale, T* doffset,
                           bool training, const T* relu_y = nullptr) {
  const int64_t C = L.C;
  // g[at, at + n), masked into `buf` with Masked (the loops below stay the unmasked ones).
  auto g_run = [g, relu_y](int64_t at, int64_t n, T* buf) -> const T* {
    if (!Masked) return g + at;
    for (int64_t i = 0; i < n; ++i) {  // g loaded unconditionally: a select, not a branch
      const T gv = g[at + i];
      buf[i] = relu_y[at + i] > T(0) ? gv : T(0);
    }
    return buf;
  };
  const int64_t run = L.inner == 1 ? C : L.inner;  // the length of one g_run
  // sum g and sum g * (x - mean) per channel, in one pass over g and x.
  std::vector<double> sg(C, 0.0), sgx(C, 0.0);
  {
    const int threads = L.size() >= kParallelGrain ? max_threads() : 1;
    std::vector<double> partial(size_t(threads) * 2 * C, 0.0);
    _Pragma("omp parallel num_threads(threads)")
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      double* by_g = partial.data() + size_t(t) * 2 * C;
      double* by_gx = by_g + C;
      std::vector<T> buf(Masked ? run : 0);
      for (int64_t o = L.outer * t / nt; o < L.outer * (t + 1) / nt; ++o) {
        if (L.inner == 1) {
          const T* __restrict__ gr = g_run(o * C, C, buf.data());
          const T* __restrict__ xr = x + o * C;
          for (int64_t c = 0; c < C; ++c) {
            by_g[c] += double(gr[c]);
            by_gx[c] += double(gr[c]) * (double(xr[c]) - double(mean[c]));
          }
        } else {
          for (int64_t c = 0; c < C; ++c) {
            const int64_t base = (o * C + c) * L.inner;
            const T* gr = g_run(base, L.inner, buf.data());
            const double m = double(mean[c]);
            double s = 0, sx = 0;
            for (int64_t i = 0; i < L.inner; ++i) {
              s += double(gr[i]);
              sx += double(gr[i]) * (double(x[base + i]) - m);
            }
            by_g[c] += s;
            by_gx[c] += sx;
          }
        }
      }
    }
    for (int t = 0; t < threads; ++t)
      for (int64_t c = 0; c < C; ++c) {
        sg[c] += partial[size_t(t) * 2 * C + c];
        sgx[c] += partial[size_t(t) * 2 * C + C + c];
      }
  }
  const double count = double(L.outer * L.inner);
  // dx = k * g + p * x + q per channel, with k = scale * inv_std and, when training,
  // the batch statistics' share folded into p and q.
  std::vector<T> k(C), p(C), q(C);
  for (int64_t c = 0; c < C; ++c) {
    const double is = inv_std[c];
    dscale[c] = T(sgx[c] * is);
    doffset[c] = T(sg[c]);
    const double kc = double(scale[c]) * is;
    k[c] = T(kc);
    if (training && count > 0) {
      const double pc = -kc * is * is * sgx[c] / count;
      p[c] = T(pc);
      q[c] = T(-kc * sg[c] / count - pc * double(mean[c]));
    } else {
      p[c] = T(0);
      q[c] = T(0);
    }
  }
  parallel_chunks(L.outer, L.size() >= kParallelGrain ? 1 : L.outer + 1,
                  [&](int64_t o0, int64_t o1) {
    std::vector<T> buf(Masked ? run : 0);
    if (L.inner == 1) {  // NHWC: vectorized across the channels of a row
      const T *__restrict__ kc = k.data(), *__restrict__ pc = p.data(), *__restrict__ qc = q.data();
      for (int64_t o = o0; o < o1; ++o) {
        const T* __restrict__ gr = g_run(o * C, C, buf.data());
        const T* __restrict__ xr = x + o * C;
        T* __restrict__ dr = dx + o * C;
        for (int64_t c = 0; c < C; ++c) dr[c] = kc[c] * gr[c] + pc[c] * xr[c] + qc[c];
      }
      return;
    }
    for (int64_t o = o0; o < o1; ++o)
      for (int64_t c = 0; c < C; ++c) {
        const int64_t base = (o * C + c) * L.inner;
        const T* gr = g_run(base, L.inner, buf.data());
        for (int64_t i = 0; i < L.inner; ++i)
          dx[base + i] = k[c] * gr[i] + p[c] * x[base + i] + q[c];
      }
  });
}

void batch_norm_grad(py::array x, py::array scale, py::array mean, py::array inv_std,
                     py::array g, py::array dx, py::array dscale, py::array doffset,
                     int64_t outer, int64_t C, int64_t inner, bool training,
                     py::object relu_y) {
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
  const bool relu = !relu_y.is_none();
  if (relu) {  // relu's gradient folded in (see batch_norm_grad_typed)
    require(py::isinstance<py::array>(relu_y), op, "relu_y must be an array or None");
    ry = py::reinterpret_borrow<py::array>(relu_y);
    check_array(ry, op, "relu_y", dt, L.size(), kRead);
  }
  GilRelease nogil(L.size());  // (after every Python object is read)
  if (relu) {
    PD_DISPATCH_FLOAT(dt, op, {
      batch_norm_grad_typed<scalar_t, true>(
          L, in_ptr<scalar_t>(x), in_ptr<scalar_t>(scale), in_ptr<scalar_t>(mean),
          in_ptr<scalar_t>(inv_std), in_ptr<scalar_t>(g), out_ptr<scalar_t>(dx),
          out_ptr<scalar_t>(dscale), out_ptr<scalar_t>(doffset), training,
          in_ptr<scalar_t>(ry));
    });
    return;
  }
  PD_DISPATCH_FLOAT(dt, op, {
    batch_norm_grad_typed<scalar_t>(L, in_ptr<scalar_t>(x), in_ptr<scalar_t>(scale),
                                    in_ptr<scalar_t>(mean), in_ptr<scalar_t>(inv_std),
                                    in_ptr<scalar_t>(g), out_ptr<scalar_t>(dx),
                                    out_ptr<scalar_t>(dscale), out_ptr<scalar_t>(doffset),
                                    training);
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
