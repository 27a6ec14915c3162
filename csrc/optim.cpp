// Fused optimizer updates: one call updates every variable of an optimizer in place.
// The formulas follow Keras 3 (epsilon outside the square root, bias correction folded
// into the step size), so a model trained here matches one trained there.
#include "common.h"

#include <cmath>

namespace paddle {
namespace {

using Arrays = std::vector<py::array>;

void check_group(const Arrays& params, const std::vector<const Arrays*>& others, const char* op) {
  for (const Arrays* o : others)
    require(o->size() == params.size(), op, "lists of different lengths");
  for (size_t i = 0; i < params.size(); ++i) {
    int dt = dtype_of(params[i]);
    require(dt == kFloat32 || dt == kFloat64, op, "parameters must be float32 or float64");
    check_array(params[i], op, dt, -1, true);
    for (const Arrays* o : others) check_array((*o)[i], op, dt, params[i].size(), false);
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
  std::vector<const Arrays*> others{&grads};
  if (use_v) others.push_back(&velocity);
  check_group(params, others, "SGD");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "SGD", {
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

// Adam and AdamW (decoupled weight decay when weight_decay > 0). `step` counts from 1.
void adam(Arrays params, Arrays grads, Arrays m, Arrays v, double lr, double beta1, double beta2,
          double eps, double step, double weight_decay) {
  check_group(params, {&grads, &m, &v}, "Adam");
  require(step >= 1, "Adam", "step must count from 1");
  double alpha = lr * std::sqrt(1 - std::pow(beta2, step)) / (1 - std::pow(beta1, step));
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "Adam", {
      scalar_t *p = PD_PTR(params, i), *mp = PD_PTR(m, i), *vp = PD_PTR(v, i);
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t b1 = beta1, b2 = beta2, a = alpha, ep = eps, wd = lr * weight_decay;
      for (int64_t j = b; j < e; ++j) {
        if (weight_decay > 0) p[j] -= wd * p[j];
        mp[j] += (g[j] - mp[j]) * (1 - b1);
        vp[j] += (g[j] * g[j] - vp[j]) * (1 - b2);
        p[j] -= a * mp[j] / (std::sqrt(vp[j]) + ep);
      }
    });
  });
}

void rmsprop(Arrays params, Arrays grads, Arrays ms, Arrays mom, double lr, double rho,
             double momentum, double eps) {
  std::vector<const Arrays*> others{&grads, &ms};
  if (momentum > 0) others.push_back(&mom);
  check_group(params, others, "RMSprop");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "RMSprop", {
      scalar_t *p = PD_PTR(params, i), *s = PD_PTR(ms, i);
      const scalar_t* g = PD_PTR(grads, i);
      const scalar_t r = rho, lr_ = lr, ep = eps, mu = momentum;
      for (int64_t j = b; j < e; ++j) {
        s[j] = r * s[j] + (1 - r) * g[j] * g[j];
        scalar_t inc = lr_ * g[j] / (std::sqrt(s[j] + ep));
        if (momentum > 0) {
          scalar_t* mo = PD_PTR(mom, i);
          mo[j] = mu * mo[j] + inc;
          p[j] -= mo[j];
        } else {
          p[j] -= inc;
        }
      }
    });
  });
}

void adagrad(Arrays params, Arrays grads, Arrays acc, double lr, double eps) {
  check_group(params, {&grads, &acc}, "Adagrad");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "Adagrad", {
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
  m.def("sgd", &sgd, "in-place SGD with optional (Nesterov) momentum over lists of tensors");
  m.def("adam", &adam, "in-place Adam / AdamW over lists of tensors");
  m.def("rmsprop", &rmsprop, "in-place RMSprop over lists of tensors");
  m.def("adagrad", &adagrad, "in-place Adagrad over lists of tensors");
}

}  // namespace paddle
