// Layer normalization's forward as the fusion pass groups the ops pd.layer_norm builds
// (paddle/lowlevel/fusion/layer_norm.py): per row of `cols` values (the normalized axes),
//   mu = mean(x), c = x - mu, sq = c * c, var = mean(sq), e = var + eps, d = sqrt(e),
//   y0 = c / d, y1 = y0 * scale, y = y1 + offset,
// each value written only where the plan needs it (an output array given, else nullptr).
// The row stays in cache between its passes: statistics, then the outputs.
#include "common.h"
#include "vmath.h"

#include <cmath>

namespace paddle {
namespace {

constexpr int kLanes = 16;

// sum(v[c]) (sq == false) or sum((v[c] - m)^2) (sq == true) in kLanes partial sums (the
// loop vectorizes; the partial sums are combined in a fixed order).
template <typename T>
PD_VM_INLINE T lane_sum(const T* v, int64_t n, bool sq, T m) {
  T acc[kLanes] = {};
  int64_t c = 0;
  if (sq) {
    for (; c + kLanes <= n; c += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] += (v[c + l] - m) * (v[c + l] - m);
  } else {
    for (; c + kLanes <= n; c += kLanes)
      for (int l = 0; l < kLanes; ++l) acc[l] += v[c + l];
  }
  T s = 0;
  for (int l = 0; l < kLanes; ++l) s += acc[l];
  for (; c < n; ++c) s += sq ? (v[c] - m) * (v[c] - m) : v[c];
  return s;
}

// The outputs, in the order of the ops (Python's layer_norm.SLOTS); nullptr: not written.
enum Slot { kMu, kCentered, kSquare, kVar, kShifted, kStd, kNormed, kScaled, kOut, kSlots };

template <typename T>
struct Rows {
  const T* x;
  const T* scale;   // nullptr: no scale
  const T* offset;  // nullptr: no offset
  T* out[kSlots];
  int64_t cols;
  T eps;
};

template <typename T, int VB>
PD_VM_INLINE void layer_norm_range(const Rows<T>& a, int64_t r0, int64_t r1) {
  const int64_t n = a.cols;
  const T inv = T(1) / T(n);
  for (int64_t r = r0; r < r1; ++r) {
    const T* x = a.x + r * n;
    const T mu = lane_sum(x, n, false, T(0)) * inv;
    const T var = lane_sum(x, n, true, mu) * inv;
    const T e = var + a.eps, d = std::sqrt(e);
    if (a.out[kMu]) a.out[kMu][r] = mu;
    if (a.out[kVar]) a.out[kVar][r] = var;
    if (a.out[kShifted]) a.out[kShifted][r] = e;
    if (a.out[kStd]) a.out[kStd][r] = d;
    T* c_out = a.out[kCentered] ? a.out[kCentered] + r * n : nullptr;
    T* sq_out = a.out[kSquare] ? a.out[kSquare] + r * n : nullptr;
    T* y0_out = a.out[kNormed] ? a.out[kNormed] + r * n : nullptr;
    T* y1_out = a.out[kScaled] ? a.out[kScaled] + r * n : nullptr;
    T* y_out = a.out[kOut] ? a.out[kOut] + r * n : nullptr;
    if (c_out)
      for (int64_t c = 0; c < n; ++c) c_out[c] = x[c] - mu;
    if (sq_out)
      for (int64_t c = 0; c < n; ++c) sq_out[c] = (x[c] - mu) * (x[c] - mu);
    if (y0_out)
      for (int64_t c = 0; c < n; ++c) y0_out[c] = (x[c] - mu) / d;
    if (y1_out)
      for (int64_t c = 0; c < n; ++c) y1_out[c] = ((x[c] - mu) / d) * a.scale[c];
    if (y_out) {
      if (a.scale && a.offset)
        for (int64_t c = 0; c < n; ++c) y_out[c] = ((x[c] - mu) / d) * a.scale[c] + a.offset[c];
      else if (a.scale)
        for (int64_t c = 0; c < n; ++c) y_out[c] = ((x[c] - mu) / d) * a.scale[c];
      else if (a.offset)
        for (int64_t c = 0; c < n; ++c) y_out[c] = (x[c] - mu) / d + a.offset[c];
      else
        for (int64_t c = 0; c < n; ++c) y_out[c] = (x[c] - mu) / d;
    }
  }
}

PD_VECTOR_VARIANTS(layer_norm_vec, layer_norm_range, (const Rows<T>& a, int64_t r0, int64_t r1),
                   (a, r0, r1))

template <typename T>
void layer_norm_rows(const Rows<T>& a, int64_t rows) {
  parallel_chunks(rows, std::max<int64_t>(2, kParallelGrain / 4 / a.cols),
                  [&](int64_t b, int64_t e) {
    layer_norm_vec<T>(a, b, e);
  });
}

// x: (rows * cols); scale, offset: (cols) or None; outs: kSlots arrays or None (the row
// statistics mu, var, e, d hold `rows` values, the others rows * cols).
void layer_norm(py::array x, py::object scale, py::object offset, py::list outs,
                int64_t cols, double eps) {
  const char* op = "layer_norm";
  const int dt = check_dtype(x, op, "x");
  require(cols > 0, op, "empty normalized axes");
  check_array(x, op, "x", dt, -1, kRead);
  require(x.size() % cols == 0, op, "size is not a multiple of the normalized size");
  require(int64_t(outs.size()) == kSlots, op, "expected one entry per output slot");
  const int64_t rows = x.size() / cols;
  std::vector<py::array> held;
  auto param = [&](py::object v, const char* what) -> const void* {
    if (v.is_none()) return nullptr;
    require(py::isinstance<py::array>(v), op, "parameters must be arrays");
    py::array a = py::reinterpret_borrow<py::array>(v);
    check_array(a, op, what, dt, cols, kRead);
    held.push_back(a);
    return a.data();
  };
  const void* s = param(scale, "scale");
  const void* o = param(offset, "offset");
  void* out[kSlots];
  for (int k = 0; k < kSlots; ++k) {
    py::handle h = outs[k];
    if (h.is_none()) {
      out[k] = nullptr;
      continue;
    }
    require(py::isinstance<py::array>(h), op, "outputs must be arrays or None");
    py::array a = py::reinterpret_borrow<py::array>(h);
    const bool stat = k == kMu || k == kVar || k == kShifted || k == kStd;
    check_array(a, op, "out", dt, stat ? rows : x.size(), kWrite, k);
    held.push_back(a);
    out[k] = a.mutable_data();
  }
  require((out[kScaled] == nullptr || s != nullptr), op, "a scaled output needs a scale");
  GilRelease nogil(x.size());
  PD_DISPATCH_FLOAT(dt, op, {
    Rows<scalar_t> a{in_ptr<scalar_t>(x), static_cast<const scalar_t*>(s),
                     static_cast<const scalar_t*>(o), {}, cols, scalar_t(eps)};
    for (int k = 0; k < kSlots; ++k) a.out[k] = static_cast<scalar_t*>(out[k]);
    layer_norm_rows<scalar_t>(a, rows);
  });
}

// The gradient (paddle/lowlevel/fusion/layer_norm.py GRADIENT) per row of `cols` values:
// dx = (gy - mean(gy) - y0 * mean(gy * y0)) / d, from the normalized values' gradient gy,
// the normalized values y0 and the rows' d = sqrt(var + eps); two passes over the row.
template <typename T, int VB>
PD_VM_INLINE void layer_norm_grad_range(const T* gy, const T* y0, const T* d, T* dx,
                                        int64_t n, int64_t r0, int64_t r1) {
  const T inv = T(1) / T(n);
  for (int64_t r = r0; r < r1; ++r) {
    const T* g = gy + r * n;
    const T* y = y0 + r * n;
    T* o = dx + r * n;
    T acc[kLanes] = {}, acc2[kLanes] = {};
    int64_t c = 0;
    for (; c + kLanes <= n; c += kLanes)
      for (int l = 0; l < kLanes; ++l) {
        acc[l] += g[c + l];
        acc2[l] += g[c + l] * y[c + l];
      }
    T s = 0, s2 = 0;
    for (int l = 0; l < kLanes; ++l) {
      s += acc[l];
      s2 += acc2[l];
    }
    for (; c < n; ++c) {
      s += g[c];
      s2 += g[c] * y[c];
    }
    const T mg = s * inv, mgy = s2 * inv, rd = T(1) / d[r];
    for (c = 0; c < n; ++c) o[c] = (g[c] - mg - y[c] * mgy) * rd;
  }
}

PD_VECTOR_VARIANTS(layer_norm_grad_vec, layer_norm_grad_range,
                   (const T* gy, const T* y0, const T* d, T* dx, int64_t n, int64_t r0,
                    int64_t r1),
                   (gy, y0, d, dx, n, r0, r1))

void layer_norm_grad(py::array gy, py::array y0, py::array d, py::array dx, int64_t cols) {
  const char* op = "layer_norm_grad";
  const int dt = check_dtype(gy, op, "gy");
  require(cols > 0, op, "empty normalized axes");
  check_array(gy, op, "gy", dt, -1, kRead);
  require(gy.size() % cols == 0, op, "size is not a multiple of the normalized size");
  const int64_t rows = gy.size() / cols;
  check_array(y0, op, "y0", dt, gy.size(), kRead);
  check_array(d, op, "d", dt, rows, kRead);
  check_array(dx, op, "dx", dt, gy.size(), kWrite);
  GilRelease nogil(gy.size());
  PD_DISPATCH_FLOAT(dt, op, {
    const scalar_t* g = in_ptr<scalar_t>(gy);
    const scalar_t* y = in_ptr<scalar_t>(y0);
    const scalar_t* dp = in_ptr<scalar_t>(d);
    scalar_t* o = out_ptr<scalar_t>(dx);
    parallel_chunks(rows, std::max<int64_t>(2, kParallelGrain / 4 / cols),
                    [&](int64_t b, int64_t e) {
      layer_norm_grad_vec<scalar_t>(g, y, dp, o, cols, b, e);
    });
  });
}

}  // namespace

void init_layer_norm(py::module_& m) {
  m.def("layer_norm", &layer_norm,
        array_arg("x"), py::arg("scale"), py::arg("offset"), py::arg("outs"), py::arg("cols"),
        py::arg("eps"),
        "layer normalization over rows of `cols` values, the outputs the plan asks for");
  m.def("layer_norm_grad", &layer_norm_grad,
        array_arg("gy"), array_arg("y0"), array_arg("d"), array_arg("dx"), py::arg("cols"),
        "layer normalization's x-gradient from the normalized values' gradient");
}

}  // namespace paddle
