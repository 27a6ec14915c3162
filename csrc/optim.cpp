// Fused optimizer updates: one call updates every variable of an optimizer in place.
// The formulas follow Keras 3 (epsilon outside the square root, bias correction folded
// into the step size), so a model trained here matches one trained there.
#include "common.h"

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
    require(o.arrays->size() == params.size(), op,
            "argument '" + std::string(o.name) + "' has " + std::to_string(o.arrays->size()) +
                " arrays, expected one per parameter (" + std::to_string(params.size()) + ")");
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string at = "[" + std::to_string(i) + "]";
    int dt = check_dtype(params[i], op, "params" + at);
    if (dt != kFloat32 && dt != kFloat64)
      throw py::type_error(arg_where(op, "params" + at) + "expected float32 or float64, received " +
                           dtype_name(dt));
    check_array(params[i], op, "params" + at, dt, -1, kWrite);
    for (const Group& o : others)
      check_array((*o.arrays)[i], op, o.name + at, dt, params[i].size(), o.access);
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

// Adam and AdamW (decoupled weight decay when weight_decay > 0). `step` counts from 1.
void adam(Arrays params, Arrays grads, Arrays m, Arrays v, double lr, double beta1, double beta2,
          double eps, double step, double weight_decay) {
  check_group(params, {{&grads, "grads", kRead}, {&m, "m", kWrite}, {&v, "v", kWrite}}, "adam");
  require(step >= 1, "adam", "argument 'step' must count from 1");
  double alpha = lr * std::sqrt(1 - std::pow(beta2, step)) / (1 - std::pow(beta1, step));
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "adam", {
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
  std::vector<Group> others{{&grads, "grads", kRead}, {&ms, "ms", kWrite}};
  if (momentum > 0) others.push_back({&mom, "mom", kWrite});
  check_group(params, others, "rmsprop");
  each_tensor(params, [&](size_t i, int64_t b, int64_t e) {
    PD_DISPATCH_FLOAT(dtype_of(params[i]), "rmsprop", {
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
        array_arg("params"), array_arg("grads"), array_arg("m"), array_arg("v"), py::arg("lr"),
        py::arg("beta1"), py::arg("beta2"), py::arg("eps"), py::arg("step"),
        py::arg("weight_decay"),
        "in-place Adam / AdamW over lists of tensors");
  m.def("rmsprop", &rmsprop,
        array_arg("params"), array_arg("grads"), array_arg("ms"), array_arg("mom"), py::arg("lr"),
        py::arg("rho"), py::arg("momentum"), py::arg("eps"),
        "in-place RMSprop over lists of tensors");
  m.def("adagrad", &adagrad,
        array_arg("params"), array_arg("grads"), array_arg("acc"), py::arg("lr"), py::arg("eps"),
        "in-place Adagrad over lists of tensors");
}

}  // namespace paddle
