// Fused optimizer updates: one call updates every variable of an optimizer in place.
// The formulas follow Keras 3 (epsilon outside the square root, bias correction folded
// into the step size), so a model trained here matches one trained there.
#include "common.h"
#include "vmath.h"

#include <algorithm>
#include <cmath>

namespace paddle {
namespace {

using Arrays = std::vector<py::array>;

// One list the update reads or writes, with its argument name for messages.
struct Group {
  const Arrays* arrays;
  const char* name;
  Access access;
};

// Every list as long as params; every array like its parameter (dtype, size), C-contiguous
// and aligned; params and the optimizer's slots (velocity, moments, accumulators), which the
// update writes in place, writable.
void check_group(const Arrays& params, const std::vector<Group>& others, const char* op) {
  for (const Group& o : others)
    if (!(o.arrays->size() == params.size()))
      fail(op, "argument '" + std::string(o.name) + "' has " + std::to_string(o.arrays->size()) +
                " arrays, expected one per parameter (" + std::to_string(params.size()) + ")");
  for (size_t i = 0; i < params.size(); ++i) {
    const int64_t at = int64_t(i);
    int dt = check_dtype(params[i], op, "params", at);
    if (dt != kFloat32 && dt != kFloat64)
      throw py::type_error(arg_where(op, "params", at) + "expected float32 or float64, received " +
                           dtype_name(dt));
    check_array(params[i], op, "params", dt, -1, kWrite, at);
    for (const Group& o : others)
      check_array((*o.arrays)[i], op, o.name, dt, params[i].size(), o.access, at);
  }
}

// Runs f(i, begin, end) over every element range of every tensor, in parallel chunks.
template <typename F>
void each_tensor(const Arrays& params, F f) {
  for (size_t i = 0; i < params.size(); ++i)
    parallel_chunks(params[i].size(), kParallelGrain, [&](int64_t b, int64_t e) { f(i, b, e); });
}

#define PD_PTR(LIST, I) static_cast<scalar_t*>(const_cast<void*>((LIST)[I].data()))

void sgd(Arrays params, Arrays grads, Arrays velocity, double lr, double momentum, bool nesterov) {
  bool use_v = momentum != 0.0;
  std::vector<Group> others{{&grads, "grads", kRead}};
  if (use_v) others.push_back({&velocity, "velocity", kWrite});
  check_group(params, others, "sgd");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "sgd", {
      scalar_t* p = PD_PTR(params, i);
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t lr_ = lr, mu = momentum;
      if (!use_v) {
        for (int64_t j = b; j < e; ++j) p[j] -= lr_ * g[j];
      } else {
        scalar_t* v = PD_PTR(velocity, i);
        for (int64_t j = b; j < e; ++j) {
          v[j] = mu * v[j] - lr_ * g[j];
          p[j] += nesterov ? mu * v[j] - lr_ * g[j] : v[j];
        }
      }
    });
  });
}

// Elements [b, e) of one tensor's Adam update (see adam below); hp (v_hat) is null without
// amsgrad, wd is 0 without weight decay. Each combination of the two flags is a loop of its
// own, with no branch and no possible aliasing, so that it vectorizes (sqrt and the
// division too): with a flag tested inside, GCC left it scalar (a sqrtss and a divss per
// element, 9-10 GB/s of the update's traffic, short of the memory's speed).
template <bool kDecay, bool kAms, typename T>
PD_VM_INLINE void adam_loop(T* __restrict p, T* __restrict mp, T* __restrict vp,
                            T* __restrict hp, const T* __restrict g, int64_t b, int64_t e,
                            T b1, T b2, T a, T ep, T wd) {
  for (int64_t j = b; j < e; ++j) {
    T pj = p[j];
    if constexpr (kDecay) pj -= wd * pj;
    const T gj = g[j];
    const T m = mp[j] + (gj - mp[j]) * (1 - b1);
    T v = vp[j] + (gj * gj - vp[j]) * (1 - b2);
    mp[j] = m;
    vp[j] = v;
    if constexpr (kAms) {
      v = v > hp[j] ? v : hp[j];  // a NaN v keeps v_hat, as Keras's maximum
      hp[j] = v;
    }
    p[j] = pj - a * m / (std::sqrt(v) + ep);
  }
}

template <typename T, int VB>
PD_VM_INLINE void adam_range(T* p, T* mp, T* vp, T* hp, const T* g, int64_t b, int64_t e,
                             T b1, T b2, T a, T ep, T wd) {
  if (wd != 0 && hp) adam_loop<true, true>(p, mp, vp, hp, g, b, e, b1, b2, a, ep, wd);
  else if (wd != 0) adam_loop<true, false>(p, mp, vp, hp, g, b, e, b1, b2, a, ep, wd);
  else if (hp) adam_loop<false, true>(p, mp, vp, hp, g, b, e, b1, b2, a, ep, wd);
  else adam_loop<false, false>(p, mp, vp, hp, g, b, e, b1, b2, a, ep, wd);
}

PD_VECTOR_VARIANTS(adam_vec, adam_range,
                   (T* p, T* mp, T* vp, T* hp, const T* g, int64_t b, int64_t e, T b1, T b2,
                    T a, T ep, T wd),
                   (p, mp, vp, hp, g, b, e, b1, b2, a, ep, wd))

// Adam and AdamW (decoupled weight decay when weight_decay > 0). `step` counts from 1.
// With `amsgrad` the step divides by the running maximum of v, kept in v_hat (Keras 3:
// v_hat = max(v_hat, v) after v moves); v_hat is then one array per parameter, else empty.
void adam(Arrays params, Arrays grads, Arrays m, Arrays v, Arrays v_hat, double lr, double beta1,
          double beta2, double eps, double step, double weight_decay, bool amsgrad) {
  std::vector<Group> others{{&grads, "grads", kRead}, {&m, "m", kWrite}, {&v, "v", kWrite}};
  if (amsgrad) others.push_back({&v_hat, "v_hat", kWrite});
  check_group(params, others, "adam");
  require(step >= 1, "adam", "argument 'step' must count from 1");
  double alpha = lr * std::sqrt(1 - std::pow(beta2, step)) / (1 - std::pow(beta1, step));
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "adam", {
      adam_vec<scalar_t>(PD_PTR(params, i), PD_PTR(m, i), PD_PTR(v, i),
                         amsgrad ? PD_PTR(v_hat, i) : nullptr, PD_PTR(grads, i), b, e,
                         scalar_t(beta1), scalar_t(beta2), scalar_t(alpha), scalar_t(eps),
                         weight_decay > 0 ? scalar_t(lr * weight_decay) : scalar_t(0));
    });
  });
}

// Keras 3 RMSprop; `centered` also keeps the mean gradient and divides by the variance.
void rmsprop(Arrays params, Arrays grads, Arrays ms, Arrays mom, Arrays avg, double lr,
             double rho, double momentum, double eps, bool centered) {
  std::vector<Group> others{{&grads, "grads", kRead}, {&ms, "ms", kWrite}};
  if (momentum > 0) others.push_back({&mom, "mom", kWrite});
  if (centered) others.push_back({&avg, "avg", kWrite});
  check_group(params, others, "rmsprop");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "rmsprop", {
      scalar_t *p = PD_PTR(params, i), *s = PD_PTR(ms, i);
      scalar_t* av = centered ? PD_PTR(avg, i) : nullptr;
      scalar_t* mo = momentum > 0 ? PD_PTR(mom, i) : nullptr;
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t r = rho, lr_ = lr, ep = eps, mu = momentum;
      for (int64_t j = b; j < e; ++j) {
        s[j] = r * s[j] + (1 - r) * g[j] * g[j];
        scalar_t denominator = s[j] + ep;
        if (centered) {
          av[j] = r * av[j] + (1 - r) * g[j];
          denominator -= av[j] * av[j];
        }
        scalar_t inc = lr_ * g[j] / std::sqrt(denominator);
        if (mo) {
          mo[j] = mu * mo[j] + inc;
          p[j] -= mo[j];
        } else {
          p[j] -= inc;
        }
      }
    });
  });
}

// Keras 3 Adamax: m the moving mean, u the decayed maximum of |g|; `step` counts from 1.
void adamax(Arrays params, Arrays grads, Arrays m, Arrays u, double lr, double beta1,
            double beta2, double eps, double step) {
  check_group(params, {{&grads, "grads", kRead}, {&m, "m", kWrite}, {&u, "u", kWrite}}, "adamax");
  require(step >= 1, "adamax", "argument 'step' must count from 1");
  const double scale = lr / (1 - std::pow(beta1, step));
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "adamax", {
      scalar_t *p = PD_PTR(params, i), *mp = PD_PTR(m, i), *up = PD_PTR(u, i);
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t b1 = beta1, b2 = beta2, ep = eps, sc = scale;
      for (int64_t j = b; j < e; ++j) {
        mp[j] += (g[j] - mp[j]) * (1 - b1);
        up[j] = std::max(b2 * up[j], std::abs(g[j]));
        p[j] -= sc * mp[j] / (up[j] + ep);
      }
    });
  });
}

// Keras 3 Nadam. The momentum schedule's scalars come from Python: c_m = u_{t+1} / (1 -
// prod u_1..u_{t+1}), c_g = (1 - u_t) / (1 - prod u_1..u_t), v_scale = 1 / (1 - beta2^t).
void nadam(Arrays params, Arrays grads, Arrays m, Arrays v, double lr, double beta1,
           double beta2, double eps, double c_m, double c_g, double v_scale) {
  check_group(params, {{&grads, "grads", kRead}, {&m, "m", kWrite}, {&v, "v", kWrite}}, "nadam");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "nadam", {
      scalar_t *p = PD_PTR(params, i), *mp = PD_PTR(m, i), *vp = PD_PTR(v, i);
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t b1 = beta1, b2 = beta2, ep = eps, lr_ = lr, cm = c_m, cg = c_g,
                     vs = v_scale;
      for (int64_t j = b; j < e; ++j) {
        mp[j] += (g[j] - mp[j]) * (1 - b1);
        vp[j] += (g[j] * g[j] - vp[j]) * (1 - b2);
        scalar_t m_hat = cm * mp[j] + cg * g[j];
        p[j] -= lr_ * m_hat / (std::sqrt(vp[j] * vs) + ep);
      }
    });
  });
}

template <typename T>
inline T sign_of(T x) { return T((x > 0) - (x < 0)); }

// Keras 3 Lion: the step is lr * sign(beta1 * m + (1 - beta1) * g); then m moves with beta2.
void lion(Arrays params, Arrays grads, Arrays m, double lr, double beta1, double beta2) {
  check_group(params, {{&grads, "grads", kRead}, {&m, "m", kWrite}}, "lion");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "lion", {
      scalar_t *p = PD_PTR(params, i), *mp = PD_PTR(m, i);
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t b1 = beta1, b2 = beta2, lr_ = lr;
      for (int64_t j = b; j < e; ++j) {
        p[j] -= lr_ * sign_of(mp[j] * b1 + g[j] * (1 - b1));
        mp[j] = mp[j] * b2 + g[j] * (1 - b2);
      }
    });
  });
}

// Keras 3 Ftrl (follow the regularized leader) with l1, l2 and l2-shrinkage terms.
void ftrl(Arrays params, Arrays grads, Arrays acc, Arrays lin, double lr, double lr_power,
          double l1, double l2, double l2_shrinkage, double beta) {
  check_group(params, {{&grads, "grads", kRead}, {&acc, "acc", kWrite}, {&lin, "lin", kWrite}},
              "ftrl");
  // Reached from pd.optimizers.Ftrl with a schedule that reaches 0: named for the user.
  require(lr > 0, "Ftrl", "the learning rate must be > 0");
  const double l2_reg = l2 + beta / (2.0 * lr);
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "ftrl", {
      scalar_t *p = PD_PTR(params, i), *a = PD_PTR(acc, i), *l = PD_PTR(lin, i);
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t lr_ = lr, pw = -lr_power, l1_ = l1, l2r = l2_reg, shrink = l2_shrinkage;
      for (int64_t j = b; j < e; ++j) {
        scalar_t grad = g[j] + 2 * shrink * p[j];
        scalar_t new_a = a[j] + g[j] * g[j];
        scalar_t new_pow = std::pow(new_a, pw);
        l[j] += grad - (new_pow - std::pow(a[j], pw)) / lr_ * p[j];
        scalar_t quadratic = new_pow / lr_ + 2 * l2r;
        scalar_t clipped = std::min(std::max(l[j], -l1_), l1_);
        p[j] = (clipped - l[j]) / quadratic;
        a[j] = new_a;
      }
    });
  });
}

// Keras 3 Adadelta: accumulated squared gradients and squared steps (both moving with rho)
// scale each step; rms(x) = sqrt(x + eps).
void adadelta(Arrays params, Arrays grads, Arrays acc_grad, Arrays acc_delta, double lr,
              double rho, double eps) {
  check_group(params, {{&grads, "grads", kRead}, {&acc_grad, "acc_grad", kWrite},
                       {&acc_delta, "acc_delta", kWrite}}, "adadelta");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "adadelta", {
      scalar_t *p = PD_PTR(params, i), *ag = PD_PTR(acc_grad, i), *ad = PD_PTR(acc_delta, i);
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t lr_ = lr, r = rho, ep = eps;
      for (int64_t j = b; j < e; ++j) {
        ag[j] = r * ag[j] + (1 - r) * g[j] * g[j];
        const scalar_t delta = -(std::sqrt(ad[j] + ep) * g[j]) / std::sqrt(ag[j] + ep);
        ad[j] = r * ad[j] + (1 - r) * delta * delta;
        p[j] += lr_ * delta;
      }
    });
  });
}

// Decoupled weight decay before an update, as Keras 3: p -= p * factor (factor = lr * wd).
void decay_weights(Arrays params, double factor) {
  check_group(params, {}, "decay_weights");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "decay_weights", {
      scalar_t* p = PD_PTR(params, i);
      const scalar_t f = factor;
      for (int64_t j = b; j < e; ++j) p[j] -= p[j] * f;
    });
  });
}

// Lamb (Keras 3): Adam's moments, the bias-corrected step r = m_hat / (sqrt(v_hat) + eps),
// then w -= lr * ratio * r with ratio = |w| / |r| per tensor (1 when either norm is 0).
// Two passes per tensor: moments and both norms (summed in double, per thread), then the
// step (r recomputed from the stored moments: the same numbers).
void lamb(Arrays params, Arrays grads, Arrays m, Arrays v, double lr, double beta1,
          double beta2, double eps, double step) {
  check_group(params, {{&grads, "grads", kRead}, {&m, "m", kWrite}, {&v, "v", kWrite}}, "lamb");
  require(step >= 1, "lamb", "argument 'step' must count from 1");
  const double c1 = 1.0 / (1.0 - std::pow(beta1, step)), c2 = 1.0 / (1.0 - std::pow(beta2, step));
  const int threads = max_threads();
  for (size_t i = 0; i < params.size(); ++i) {
    std::vector<double> w_sums(threads, 0.0), r_sums(threads, 0.0);
    const int64_t n = params[i].size();
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "lamb", {
      scalar_t *p = PD_PTR(params, i), *mp = PD_PTR(m, i), *vp = PD_PTR(v, i);
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t b1 = beta1, b2 = beta2, k1 = c1, k2 = c2, ep = eps;
      parallel_chunks(n, kParallelGrain, [&](int64_t b, int64_t e) {
        double sw = 0, sr = 0;
        for (int64_t j = b; j < e; ++j) {
          mp[j] += (g[j] - mp[j]) * (1 - b1);
          vp[j] += (g[j] * g[j] - vp[j]) * (1 - b2);
          const scalar_t r = mp[j] * k1 / (std::sqrt(vp[j] * k2) + ep);
          sw += double(p[j]) * double(p[j]);
          sr += double(r) * double(r);
        }
        const int t = omp_in_parallel() ? omp_get_thread_num() : 0;
        w_sums[t] += sw;
        r_sums[t] += sr;
      });
      double sw = 0, sr = 0;
      for (int t = 0; t < threads; ++t) sw += w_sums[t], sr += r_sums[t];
      const double w_norm = std::sqrt(sw), r_norm = std::sqrt(sr);
      const scalar_t step_size =
          scalar_t(lr * ((w_norm > 0 && r_norm > 0) ? w_norm / r_norm : 1.0));
      parallel_chunks(n, kParallelGrain, [&](int64_t b, int64_t e) {
        for (int64_t j = b; j < e; ++j)
          p[j] -= step_size * (mp[j] * k1 / (std::sqrt(vp[j] * k2) + ep));
      });
    });
  }
}

// Keras 3's moving average of the weights (use_ema): average = momentum * average +
// (1 - momentum) * param after the update (momentum 0 at the first step: the caller passes
// it); with `overwrite`, the weights then take the averages (ema_overwrite_frequency).
void ema(Arrays params, Arrays averages, double momentum, bool overwrite) {
  check_group(params, {{&averages, "averages", kWrite}}, "ema");
  require(momentum >= 0 && momentum <= 1, "ema", "argument 'momentum' must be in [0, 1]");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "ema", {
      scalar_t *p = PD_PTR(params, i), *a = PD_PTR(averages, i);
      const scalar_t mu = momentum;
      for (int64_t j = b; j < e; ++j) {
        a[j] = mu * a[j] + (1 - mu) * p[j];
        if (overwrite) p[j] = a[j];
      }
    });
  });
}

void adagrad(Arrays params, Arrays grads, Arrays acc, double lr, double eps) {
  check_group(params, {{&grads, "grads", kRead}, {&acc, "acc", kWrite}}, "adagrad");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "adagrad", {
      scalar_t *p = PD_PTR(params, i), *a = PD_PTR(acc, i);
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t lr_ = lr, ep = eps;
      for (int64_t j = b; j < e; ++j) {
        a[j] += g[j] * g[j];
        p[j] -= lr_ * g[j] / std::sqrt(a[j] + ep);
      }
    });
  });
}

}  // namespace

void init_optim(py::module_& m) {
  m.def("sgd", &sgd,
        array_arg("params"), array_arg("grads"), array_arg("velocity"), py::arg("lr"),
        py::arg("momentum"), py::arg("nesterov"),
        "in-place SGD with optional (Nesterov) momentum over lists of tensors");
  m.def("adam", &adam,
        array_arg("params"), array_arg("grads"), array_arg("m"), array_arg("v"),
        array_arg("v_hat"), py::arg("lr"), py::arg("beta1"), py::arg("beta2"), py::arg("eps"),
        py::arg("step"), py::arg("weight_decay"), py::arg("amsgrad") = false,
        "in-place Adam / AdamW over lists of tensors");
  m.def("rmsprop", &rmsprop,
        array_arg("params"), array_arg("grads"), array_arg("ms"), array_arg("mom"),
        array_arg("avg"), py::arg("lr"), py::arg("rho"), py::arg("momentum"), py::arg("eps"),
        py::arg("centered"),
        "in-place RMSprop over lists of tensors");
  m.def("adagrad", &adagrad,
        array_arg("params"), array_arg("grads"), array_arg("acc"), py::arg("lr"), py::arg("eps"),
        "in-place Adagrad over lists of tensors");
  m.def("adamax", &adamax,
        array_arg("params"), array_arg("grads"), array_arg("m"), array_arg("u"), py::arg("lr"),
        py::arg("beta1"), py::arg("beta2"), py::arg("eps"), py::arg("step"),
        "in-place Adamax over lists of tensors");
  m.def("nadam", &nadam,
        array_arg("params"), array_arg("grads"), array_arg("m"), array_arg("v"), py::arg("lr"),
        py::arg("beta1"), py::arg("beta2"), py::arg("eps"), py::arg("c_m"), py::arg("c_g"),
        py::arg("v_scale"),
        "in-place Nadam over lists of tensors");
  m.def("lion", &lion,
        array_arg("params"), array_arg("grads"), array_arg("m"), py::arg("lr"), py::arg("beta1"),
        py::arg("beta2"),
        "in-place Lion over lists of tensors");
  m.def("ftrl", &ftrl,
        array_arg("params"), array_arg("grads"), array_arg("acc"), array_arg("lin"),
        py::arg("lr"), py::arg("lr_power"), py::arg("l1"), py::arg("l2"),
        py::arg("l2_shrinkage"), py::arg("beta"),
        "in-place FTRL over lists of tensors");
  m.def("adadelta", &adadelta,
        array_arg("params"), array_arg("grads"), array_arg("acc_grad"), array_arg("acc_delta"),
        py::arg("lr"), py::arg("rho"), py::arg("eps"),
        "in-place Adadelta over lists of tensors");
  m.def("lamb", &lamb,
        array_arg("params"), array_arg("grads"), array_arg("m"), array_arg("v"), py::arg("lr"),
        py::arg("beta1"), py::arg("beta2"), py::arg("eps"), py::arg("step"),
        "in-place Lamb over lists of tensors (a trust ratio per tensor)");
  m.def("ema", &ema, array_arg("params"), array_arg("averages"), py::arg("momentum"),
        py::arg("overwrite"),
        "in-place moving average of the weights (average = m * average + (1 - m) * param; "
        "with overwrite, then param = average) over lists of tensors");
  m.def("decay_weights", &decay_weights, array_arg("params"), py::arg("factor"),
        "in-place p -= p * factor over lists of tensors");
}

}  // namespace paddle
