// Batch normalization: forward (batch or moving statistics) and its gradient.
//
// x is viewed as [outer, C, inner] with C the normalized channel axis (NHWC: inner = 1;
// NCHW: outer = N, inner = H * W). Statistics are summed in double, per thread over a
// slice of `outer`, then combined: two passes (mean, then squared deviations) so the
// variance does not lose digits when the mean is large.
#include <cmath>
#include <vector>

#include "nn.h"

namespace paddle {
namespace {

struct Layout3 {
  int64_t outer, C, inner;
  int64_t size() const { return outer * C * inner; }
};

// acc[c] += sum over [outer, inner] of f(x[o, c, i], c), in double, over threads.
template <typename T, typename F>
void channel_sums(const Layout3& L, const T* x, std::vector<double>& acc, F f) {
  const int threads = L.size() >= kParallelGrain ? max_threads() : 1;
  std::vector<double> partial(size_t(threads) * L.C, 0.0);
  _Pragma("omp parallel num_threads(threads)")
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    double* mine = partial.data() + size_t(t) * L.C;
    const int64_t o0 = L.outer * t / nt, o1 = L.outer * (t + 1) / nt;
    for (int64_t o = o0; o < o1; ++o) {
      const T* row = x + o * L.C * L.inner;
      if (L.inner == 1) {
        for (int64_t c = 0; c < L.C; ++c) mine[c] += f(row[c], c);
      } else {
        for (int64_t c = 0; c < L.C; ++c) {
          double s = 0;
          for (int64_t i = 0; i < L.inner; ++i) s += f(row[c * L.inner + i], c);
          mine[c] += s;
        }
      }
    }
  }
  acc.assign(L.C, 0.0);
  for (int t = 0; t < threads; ++t)
    for (int64_t c = 0; c < L.C; ++c) acc[c] += partial[size_t(t) * L.C + c];
}

// y[o, c, i] = x[o, c, i] * a[c] + b[c]
template <typename T>
void channel_affine(const Layout3& L, const T* x, const T* a, const T* b, T* y) {
  parallel_chunks(L.outer, L.size() >= kParallelGrain ? 1 : L.outer + 1,
                  [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      const int64_t base = o * L.C * L.inner;
      for (int64_t c = 0; c < L.C; ++c) {
        const T* xr = x + base + c * L.inner;
        T* yr = y + base + c * L.inner;
        for (int64_t i = 0; i < L.inner; ++i) yr[i] = xr[i] * a[c] + b[c];
      }
    }
  });
}

template <typename T>
void batch_norm_typed(const Layout3& L, const T* x, const T* scale, const T* offset, T* mm,
                      T* mv, T* y, T* mean, T* inv_std, double momentum, double eps,
                      bool training) {
  const int64_t C = L.C;
  if (training) {
    std::vector<double> s;
    channel_sums(L, x, s, [](T v, int64_t) { return double(v); });
    const double count = double(L.outer * L.inner);
    std::vector<double> mu(C);
    for (int64_t c = 0; c < C; ++c) mu[c] = count > 0 ? s[c] / count : 0.0;
    channel_sums(L, x, s, [&](T v, int64_t c) { double d = double(v) - mu[c]; return d * d; });
    for (int64_t c = 0; c < C; ++c) {
      const double var = count > 0 ? s[c] / count : 0.0;  // biased, as Keras
      mean[c] = T(mu[c]);
      inv_std[c] = T(1.0 / std::sqrt(var + eps));
      if (count == 0) continue;  // an empty batch has no statistics to move toward
      mm[c] = T(double(mm[c]) * momentum + mu[c] * (1.0 - momentum));
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
  channel_affine(L, x, a.data(), b.data(), y);
}

void batch_norm(py::array x, py::array scale, py::array offset, py::array mm, py::array mv,
                py::array y, py::array mean, py::array inv_std, int64_t outer, int64_t C,
                int64_t inner, double momentum, double eps, bool training) {
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
  PD_DISPATCH_FLOAT(dt, op, {
    batch_norm_typed<scalar_t>(L, in_ptr<scalar_t>(x), in_ptr<scalar_t>(scale),
                               in_ptr<scalar_t>(offset),
                               static_cast<scalar_t*>(const_cast<void*>(mm.data())),
                               static_cast<scalar_t*>(const_cast<void*>(mv.data())),
                               out_ptr<scalar_t>(y), out_ptr<scalar_t>(mean),
                               out_ptr<scalar_t>(inv_std), momentum, eps, training);
  });
}

// dscale = sum g * xhat, doffset = sum g; dx through the batch statistics when training.
template <typename T>
void batch_norm_grad_typed(const Layout3& L, const T* x, const T* scale, const T* mean,
                           const T* inv_std, const T* g, T* dx, T* dscale, T* doffset,
                           bool training) {
  const int64_t C = L.C;
  std::vector<double> sg, sgx;
  channel_sums(L, g, sg, [](T v, int64_t) { return double(v); });
  // sum g * (x - mean): walk x and g together through their common offsets.
  {
    const int threads = L.size() >= kParallelGrain ? max_threads() : 1;
    std::vector<double> partial(size_t(threads) * C, 0.0);
    _Pragma("omp parallel num_threads(threads)")
    {
      const int t = omp_get_thread_num(), nt = omp_get_num_threads();
      double* mine = partial.data() + size_t(t) * C;
      for (int64_t o = L.outer * t / nt; o < L.outer * (t + 1) / nt; ++o)
        for (int64_t c = 0; c < C; ++c) {
          const int64_t base = (o * C + c) * L.inner;
          double s = 0;
          for (int64_t i = 0; i < L.inner; ++i)
            s += double(g[base + i]) * (double(x[base + i]) - double(mean[c]));
          mine[c] += s;
        }
    }
    sgx.assign(C, 0.0);
    for (int t = 0; t < threads; ++t)
      for (int64_t c = 0; c < C; ++c) sgx[c] += partial[size_t(t) * C + c];
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
    for (int64_t o = o0; o < o1; ++o)
      for (int64_t c = 0; c < C; ++c) {
        const int64_t base = (o * C + c) * L.inner;
        for (int64_t i = 0; i < L.inner; ++i)
          dx[base + i] = k[c] * g[base + i] + p[c] * x[base + i] + q[c];
      }
  });
}

void batch_norm_grad(py::array x, py::array scale, py::array mean, py::array inv_std,
                     py::array g, py::array dx, py::array dscale, py::array doffset,
                     int64_t outer, int64_t C, int64_t inner, bool training) {
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
        py::arg("training"),
        "y = batch normalization of x viewed as [outer, C, inner]; saves the statistics "
        "used and, when training, updates the moving ones in place");
  m.def("batch_norm_grad", &batch_norm_grad,
        array_arg("x"), array_arg("scale"), array_arg("mean"), array_arg("inv_std"),
        array_arg("g"), array_arg("dx"), array_arg("dscale"), array_arg("doffset"),
        py::arg("outer"), py::arg("C"), py::arg("inner"), py::arg("training"),
        "dx, dscale, doffset of batch_norm");
  m.def("dropout", &dropout,
        array_arg("x"), array_arg("y"), array_arg("mask"), py::arg("rate"), py::arg("seed"),
        "y = x * mask, mask = keep / (1 - rate) from (seed, index)");
}

}  // namespace paddle
