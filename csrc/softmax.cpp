// Row-wise softmax family over the last axis: softmax, log_softmax, cross-entropy from
// logits with integer labels, and top-k membership for accuracy.
#include "common.h"
#include "vmath.h"

#include <cmath>

namespace paddle {
namespace {

// e^v: vmath.h's vectorizable one in float32 (as the unary kernels), the C library's in
// float64.
template <typename T>
PD_VM_INLINE T exp_of(T v) {
  if constexpr (std::is_same<T, float>::value) return vm::exp(v);
  return std::exp(v);
}

// Row sums and maxima in kLanes partial results: the loops then vectorize (a single
// accumulator's order is fixed, and GCC keeps it), and the partial results are combined in
// a fixed order, so a row's result does not depend on the vector build or the thread.
constexpr int kLanes = 16;

template <typename T>
PD_VM_INLINE T lane_max(const T* v, int64_t n) {
  T acc[kLanes];
  for (int l = 0; l < kLanes; ++l) acc[l] = v[0];
  int64_t c = 0;
  for (; c + kLanes <= n; c += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] = v[c + l] > acc[l] ? v[c + l] : acc[l];
  T mx = acc[0];
  for (int l = 1; l < kLanes; ++l) mx = acc[l] > mx ? acc[l] : mx;
  for (; c < n; ++c) mx = v[c] > mx ? v[c] : mx;
  return mx;
}

// sum(a[c] * b[c]) (b == nullptr: sum(a[c])).
template <typename T>
PD_VM_INLINE T lane_dot(const T* a, const T* b, int64_t n) {
  T acc[kLanes] = {};
  int64_t c = 0;
  if (b) {
    for (; c + kLanes <= n; c += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] += a[c + l] * b[c + l];
  } else {
    for (; c + kLanes <= n; c += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] += a[c + l];
  }
  T s = 0;
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  for (; c < n; ++c) s += b ? a[c] * b[c] : a[c];
  return s;
}

// shift + log(sum(exp(x - shift))) of one row, the exponentials summed in lanes too.
template <typename T>
PD_VM_INLINE T row_logsumexp_from(const T* xr, int64_t cols, T shift) {
  T acc[kLanes] = {}, sum = 0;
  int64_t c = 0;
  for (; c + kLanes <= cols; c += kLanes)
    for (int l = 0; l < kLanes; ++l) acc[l] += exp_of(xr[c + l] - shift);
  for (int l = 0; l < kLanes; ++l) sum += acc[l];
  for (; c < cols; ++c) sum += exp_of(xr[c] - shift);
  return shift + std::log(sum);
}

// log(sum(exp(x))) of one row, shifted by its maximum so that nothing overflows.
template <typename T>
PD_VM_INLINE T row_logsumexp(const T* xr, int64_t cols) {
  return row_logsumexp_from(xr, cols, lane_max(xr, cols));
}

// Rows [r0, r1) of the logsumexp op: as row_logsumexp, but an infinite maximum shifts by 0
// (x - inf would be NaN), as paddle.ops.logsumexp's composition did: a row of -inf gives
// -inf, a row holding +inf gives +inf, a NaN anywhere gives NaN.
template <typename T, int VB>
PD_VM_INLINE void logsumexp_range(const T* x, T* y, int64_t r0, int64_t r1, int64_t cols) {
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * cols;
    const T mx = lane_max(xr, cols);
    y[r] = row_logsumexp_from(xr, cols, std::isinf(mx) ? T(0) : mx);
  }
}

// Rows [r0, r1) of softmax / log_softmax. VB: the vector build (common.h), only a label.
template <typename T, int VB>
PD_VM_INLINE void softmax_range(const T* x, T* y, int64_t r0, int64_t r1, int64_t cols,
                                bool log) {
  for (int64_t r = r0; r < r1; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    if (log && yr == xr) {  // in place (a direct call may ask it): x is still needed
      const T lse = row_logsumexp(xr, cols);
      for (int64_t c = 0; c < cols; ++c) yr[c] = xr[c] - lse;
      continue;
    }
    const T mx = lane_max(xr, cols);
    // The exponentials in a loop of their own (it vectorizes), then their sum.
    for (int64_t c = 0; c < cols; ++c) yr[c] = exp_of(xr[c] - mx);
    const T sum = lane_dot<T>(yr, nullptr, cols);
    if (log) {
      const T lse = mx + std::log(sum);
      for (int64_t c = 0; c < cols; ++c) yr[c] = xr[c] - lse;
    } else {
      const T inv = T(1) / sum;
      for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
    }
  }
}

// Rows [r0, r1) of softmax's gradient: dx = y * (g - sum(g * y)), the row in cache between
// its two passes.
template <typename T, int VB>
PD_VM_INLINE void softmax_grad_range(const T* y, const T* g, T* dx, int64_t r0, int64_t r1,
                                     int64_t cols) {
  for (int64_t r = r0; r < r1; ++r) {
    const T* yr = y + r * cols;
    const T* gr = g + r * cols;
    T* dr = dx + r * cols;
    const T s = lane_dot(gr, yr, cols);
    for (int64_t c = 0; c < cols; ++c) dr[c] = yr[c] * (gr[c] - s);
  }
}

// Each row function in the widest vector build this CPU runs (common.h).
PD_VECTOR_VARIANTS(softmax_vec, softmax_range,
                   (const T* x, T* y, int64_t r0, int64_t r1, int64_t cols, bool log),
                   (x, y, r0, r1, cols, log))
PD_VECTOR_VARIANTS(softmax_grad_vec, softmax_grad_range,
                   (const T* y, const T* g, T* dx, int64_t r0, int64_t r1, int64_t cols),
                   (y, g, dx, r0, r1, cols))
PD_VECTOR_VARIANTS(logsumexp_vec, logsumexp_range,
                   (const T* x, T* y, int64_t r0, int64_t r1, int64_t cols),
                   (x, y, r0, r1, cols))

template <typename T>
void logsumexp_rows(const T* x, T* y, int64_t rows, int64_t cols) {
  parallel_chunks(rows, std::max<int64_t>(2, kParallelGrain / 4 / cols), [&](int64_t b, int64_t e) {
    logsumexp_vec<T>(x, y, b, e, cols);
  });
}

template <typename T>
void softmax_rows(const T* x, T* y, int64_t rows, int64_t cols, bool log) {
  // Chunks of whole rows, one per thread (parallel_chunks counts rows: the grain in rows).
  parallel_chunks(rows, std::max<int64_t>(2, kParallelGrain / 4 / cols), [&](int64_t b, int64_t e) {
    softmax_vec<T>(x, y, b, e, cols, log);
  });
}

template <typename T>
void softmax_grad_rows(const T* y, const T* g, T* dx, int64_t rows, int64_t cols) {
  parallel_chunks(rows, std::max<int64_t>(2, kParallelGrain / 4 / cols), [&](int64_t b, int64_t e) {
    softmax_grad_vec<T>(y, g, dx, b, e, cols);
  });
}

void softmax(py::array x, py::array out, int64_t cols, bool log) {
  int dt = check_dtype(x, "softmax", "x");
  require(cols > 0, "softmax", "empty last axis");
  check_array(x, "softmax", "x", dt, -1, kRead);
  check_array(out, "softmax", "out", dt, x.size(), kWrite);
  require(x.size() % cols == 0, "softmax", "size is not a multiple of the last axis");
  GilRelease nogil(x.size());
  PD_DISPATCH_FLOAT(dt, "softmax", {
    softmax_rows<scalar_t>(in_ptr<scalar_t>(x), out_ptr<scalar_t>(out), x.size() / cols, cols, log);
  });
}

// out[r] = log(sum(exp(x[r]))) over rows of `cols` values, one pass per row.
void logsumexp(py::array x, py::array out, int64_t cols) {
  int dt = check_dtype(x, "logsumexp", "x");
  require(cols > 0, "logsumexp", "empty last axis");
  check_array(x, "logsumexp", "x", dt, -1, kRead);
  require(x.size() % cols == 0, "logsumexp", "size is not a multiple of the last axis");
  check_array(out, "logsumexp", "out", dt, x.size() / cols, kWrite);
  GilRelease nogil(x.size());
  PD_DISPATCH_FLOAT(dt, "logsumexp", {
    logsumexp_rows<scalar_t>(in_ptr<scalar_t>(x), out_ptr<scalar_t>(out), x.size() / cols, cols);
  });
}

// The fused gradient of softmax (paddle/lowlevel/fusion/softmax.py): dx = y * (g - sum(g * y)).
void softmax_grad(py::array y, py::array g, py::array out, int64_t cols) {
  const char* op = "softmax_grad";
  int dt = check_dtype(y, op, "y");
  require(cols > 0, op, "empty last axis");
  check_array(y, op, "y", dt, -1, kRead);
  check_array(g, op, "g", dt, y.size(), kRead);
  check_array(out, op, "out", dt, y.size(), kWrite);
  require(y.size() % cols == 0, op, "size is not a multiple of the last axis");
  GilRelease nogil(y.size());
  PD_DISPATCH_FLOAT(dt, op, {
    softmax_grad_rows<scalar_t>(in_ptr<scalar_t>(y), in_ptr<scalar_t>(g), out_ptr<scalar_t>(out),
                                y.size() / cols, cols);
  });
}

void check_labels(const int64_t* lab, int64_t n, int64_t classes, const char* op) {
  const int64_t i = first_outside(lab, n, classes);
  if (i >= 0)
    throw py::value_error(std::string(op) + ": label " + std::to_string(lab[i]) +
                          " at position " + std::to_string(i) + " is outside the " +
                          std::to_string(classes) + " classes [0, " +
                          std::to_string(classes) + ")");
}

// loss[r] = logsumexp(x[r]) - x[r, label[r]]
void softmax_cross_entropy(py::array logits, py::array labels, py::array loss, int64_t cols) {
  const char* op = "softmax_cross_entropy";
  int dt = check_dtype(logits, op, "logits");
  require(cols > 0, op, "empty class axis");
  check_array(logits, op, "logits", dt, -1, kRead);
  int64_t rows = logits.size() / cols;
  check_array(labels, op, "labels", kInt64, rows, kRead);
  check_array(loss, op, "loss", dt, rows, kWrite);
  const int64_t* lab = in_ptr<int64_t>(labels);
  check_labels(lab, rows, cols, "softmax_cross_entropy");
  GilRelease nogil(logits.size());
  PD_DISPATCH_FLOAT(dt, "softmax_cross_entropy", {
    const scalar_t* x = in_ptr<scalar_t>(logits);
    scalar_t* l = out_ptr<scalar_t>(loss);
    bool par = rows * cols >= kParallelGrain / 4 && rows > 1;
    const int threads = max_threads();
    _Pragma("omp parallel for schedule(static) if (par) num_threads(threads)")
    for (int64_t r = 0; r < rows; ++r) {
      const scalar_t* xr = x + r * cols;
      l[r] = row_logsumexp(xr, cols) - xr[lab[r]];
    }
  });
}

// out[r] = 1 if the label's score is among the k largest of row r (ties count for it).
void in_top_k(py::array scores, py::array labels, py::array out, int64_t cols, int64_t k) {
  int dt = check_dtype(scores, "in_top_k", "scores");
  require(cols > 0 && k >= 1, "in_top_k", "expected cols > 0 and k >= 1");
  check_array(scores, "in_top_k", "scores", dt, -1, kRead);
  int64_t rows = scores.size() / cols;
  check_array(labels, "in_top_k", "labels", kInt64, rows, kRead);
  check_array(out, "in_top_k", "out", dt, rows, kWrite);
  const int64_t* lab = in_ptr<int64_t>(labels);
  check_labels(lab, rows, cols, "accuracy");
  PD_DISPATCH_FLOAT(dt, "in_top_k", {
    const scalar_t* s = in_ptr<scalar_t>(scores);
    scalar_t* o = out_ptr<scalar_t>(out);
    for (int64_t r = 0; r < rows; ++r) {
      const scalar_t* sr = s + r * cols;
      scalar_t target = sr[lab[r]];
      int64_t above = 0;
      for (int64_t c = 0; c < cols; ++c) above += sr[c] > target;
      o[r] = above < k ? scalar_t(1) : scalar_t(0);
    }
  });
}

}  // namespace

void init_softmax(py::module_& m) {
  m.def("softmax", &softmax,
        array_arg("x"), array_arg("out"), py::arg("cols"), py::arg("log"),
        "softmax (or log_softmax) over rows of `cols` values");
  m.def("logsumexp", &logsumexp,
        array_arg("x"), array_arg("out"), py::arg("cols"),
        "log(sum(exp(x))) over rows of `cols` values (an infinite maximum shifts by 0)");
  m.def("softmax_grad", &softmax_grad,
        array_arg("y"), array_arg("g"), array_arg("out"), py::arg("cols"),
        "softmax's gradient over rows of `cols` values: y * (g - sum(g * y))");
  m.def("softmax_cross_entropy", &softmax_cross_entropy,
        array_arg("logits"), array_arg("labels"), array_arg("loss"), py::arg("cols"),
        "per-row cross-entropy from logits");
  m.def("in_top_k", &in_top_k,
        array_arg("scores"), array_arg("labels"), array_arg("out"), py::arg("cols"), py::arg("k"),
        "1.0 where the label is among the row's k best, else 0.0");
}

}  // namespace paddle
