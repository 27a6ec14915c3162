// 2-D max and average pooling on NHWC tensors, with their gradients.
//
// A window's channels are contiguous, so every loop runs over a row of C values that the
// compiler vectorizes. Padding ("same") is never materialized: windows are clipped to
// the input, and average pooling divides by the count of the input elements it covered,
// as TensorFlow does. The max-pool gradient recomputes each window's arg-max (the first
// maximum in row-major window order, as PyTorch picks) instead of storing indices: it
// reads as many bytes as indices would cost, and keeps the forward op single-output.
//
// spec (int64[12]): N H W C OH OW KH KW sh sw pad_top pad_left
#include <algorithm>
#include <limits>
#include <vector>

#include "nn.h"

// Floating-point exceptions are never trapped here, and saying so lets GCC turn the
// compare-and-select loops below into vector blends instead of branches.
#pragma GCC optimize("no-trapping-math")

namespace paddle {
namespace {

struct Pool {
  int64_t N, H, W, C, OH, OW, KH, KW, sh, sw, pt, pl;

  Pool(const py::array& spec, const char* op) {
    const int64_t* s = read_spec(spec, 12, op);
    N = s[0]; H = s[1]; W = s[2]; C = s[3]; OH = s[4]; OW = s[5]; KH = s[6]; KW = s[7];
    sh = s[8]; sw = s[9]; pt = s[10]; pl = s[11];
    require(N >= 0 && H >= 1 && W >= 1 && C >= 0 && OH >= 1 && OW >= 1 && KH >= 1 && KW >= 1 &&
                sh >= 1 && sw >= 1 && pt >= 0 && pl >= 0,
            op, "malformed spec");
    // Every window must hold at least one input element (the op's shape rule ensures it).
    require(pt < KH && pl < KW && (OH - 1) * sh - pt < H && (OW - 1) * sw - pl < W, op,
            "windows outside the input");
  }

  int64_t x_size() const { return N * H * W * C; }
  int64_t y_size() const { return N * OH * OW * C; }

  // The window of output (oh, ow) clipped to the input: rows [h0, h1), columns [w0, w1).
  void window(int64_t oh, int64_t ow, int64_t& h0, int64_t& h1, int64_t& w0, int64_t& w1) const {
    h0 = oh * sh - pt; h1 = std::min(h0 + KH, H); h0 = std::max<int64_t>(h0, 0);
    w0 = ow * sw - pl; w1 = std::min(w0 + KW, W); w0 = std::max<int64_t>(w0, 0);
  }
};

bool parallel_rows(int64_t rows, int64_t work) { return rows > 1 && work >= kParallelGrain; }

template <typename T>
void max_forward(const Pool& p, const T* x, T* y) {
  const int64_t rows = p.N * p.OH, C = p.C;
  _Pragma("omp parallel for schedule(static) if (parallel_rows(rows, p.x_size()))")
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = r / p.OH, oh = r % p.OH;
    for (int64_t ow = 0; ow < p.OW; ++ow) {
      int64_t h0, h1, w0, w1;
      p.window(oh, ow, h0, h1, w0, w1);
      T* out = y + (r * p.OW + ow) * C;
      const T* first = x + ((n * p.H + h0) * p.W + w0) * C;
      for (int64_t c = 0; c < C; ++c) out[c] = first[c];
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) {
          const T* src = x + ((n * p.H + h) * p.W + w) * C;
          for (int64_t c = 0; c < C; ++c) out[c] = src[c] > out[c] ? src[c] : out[c];
        }
    }
  }
}

// The maximum of each channel over the window of (oh, ow) in image n, into m.
template <typename T>
void window_max(const Pool& p, const T* x, int64_t n, int64_t oh, int64_t ow, T* m) {
  int64_t h0, h1, w0, w1;
  p.window(oh, ow, h0, h1, w0, w1);
  const T* first = x + ((n * p.H + h0) * p.W + w0) * p.C;
  for (int64_t c = 0; c < p.C; ++c) m[c] = first[c];
  for (int64_t h = h0; h < h1; ++h)
    for (int64_t w = w0; w < w1; ++w) {
      const T* src = x + ((n * p.H + h) * p.W + w) * p.C;
      for (int64_t c = 0; c < p.C; ++c) m[c] = src[c] > m[c] ? src[c] : m[c];
    }
}

// One window position: out[c] += v[c] where src[c] is the channel's maximum m[c] and no
// earlier position was (found[c] is 0 or 1); with ADD false, out[c] is set (to v[c] or 0)
// instead, for windows that never overlap. Selects, no branches: random data would
// mispredict half of them, and the loop vectorizes.
template <bool ADD, typename T>
inline void first_max_pass(const T* src, const T* m, T* found, const T* v, T* out, int64_t C) {
  for (int64_t c = 0; c < C; ++c) {
    const T s = src[c], mc = m[c], f = found[c], vc = v[c], o = ADD ? out[c] : T(0);
    const T hit = s == mc ? T(1) - f : T(0);
    out[c] = hit != T(0) ? o + vc : o;
    found[c] = f + hit;
  }
}

// dx = 0, then each window's gradient goes to its arg-max. Threads take whole images, so
// they never write the same element, and an image's dx stays in cache while its windows
// add into it. Per window: the maximum, then one pass that gives g to the first element
// equal to it; both loops run over channels and vectorize.
template <typename T>
void max_grad(const Pool& p, const T* x, const T* g, T* dx) {
  const int64_t C = p.C, image = p.H * p.W * C;
  // Windows that do not overlap write each element once: no zeroing first, unless some
  // elements lie in no window at all.
  const bool overlap = p.sh < p.KH || p.sw < p.KW;
  const bool tiled = !overlap && p.pt == 0 && p.pl == 0 && p.sh == p.KH && p.sw == p.KW &&
                     p.OH * p.KH == p.H && p.OW * p.KW == p.W;
  _Pragma("omp parallel if (parallel_rows(p.N, p.x_size()))")
  {
    std::vector<T> best(C), found(C);
    _Pragma("omp for schedule(static)")
    for (int64_t n = 0; n < p.N; ++n) {
      if (!tiled) std::fill(dx + n * image, dx + (n + 1) * image, T(0));
      for (int64_t oh = 0; oh < p.OH; ++oh)
        for (int64_t ow = 0; ow < p.OW; ++ow) {
          int64_t h0, h1, w0, w1;
          p.window(oh, ow, h0, h1, w0, w1);
          T* m = best.data();
          T* f = found.data();
          window_max(p, x, n, oh, ow, m);
          std::fill(f, f + C, T(0));
          const T* gr = g + ((n * p.OH + oh) * p.OW + ow) * C;
          for (int64_t h = h0; h < h1; ++h)
            for (int64_t w = w0; w < w1; ++w) {
              const int64_t off = ((n * p.H + h) * p.W + w) * C;
              const T* src = x + off;
              T* d = dx + off;
              if (overlap)
                first_max_pass<true>(src, m, f, gr, d, C);
              else
                first_max_pass<false>(src, m, f, gr, d, C);
            }
        }
    }
  }
}

// out[n, oh, ow, c] = gg at the arg-max of the window: max_grad's adjoint.
template <typename T>
void max_select(const Pool& p, const T* x, const T* gg, T* out) {
  const int64_t rows = p.N * p.OH, C = p.C;
  _Pragma("omp parallel if (parallel_rows(rows, p.x_size()))")
  {
    std::vector<T> best(C), found(C);
    _Pragma("omp for schedule(static)")
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t ow = 0; ow < p.OW; ++ow) {
        const int64_t n = r / p.OH, oh = r % p.OH;
        int64_t h0, h1, w0, w1;
        p.window(oh, ow, h0, h1, w0, w1);
        window_max(p, x, n, oh, ow, best.data());
        std::fill(found.begin(), found.end(), T(0));
        T* o = out + (r * p.OW + ow) * C;
        std::fill(o, o + C, T(0));
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) {
            const int64_t off = ((n * p.H + h) * p.W + w) * C;
            first_max_pass<true>(x + off, best.data(), found.data(), gg + off, o, C);
          }
      }
  }
}

template <typename T>
void avg_forward(const Pool& p, const T* x, T* y) {
  const int64_t rows = p.N * p.OH, C = p.C;
  _Pragma("omp parallel for schedule(static) if (parallel_rows(rows, p.x_size()))")
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = r / p.OH, oh = r % p.OH;
    for (int64_t ow = 0; ow < p.OW; ++ow) {
      int64_t h0, h1, w0, w1;
      p.window(oh, ow, h0, h1, w0, w1);
      T* out = y + (r * p.OW + ow) * C;
      for (int64_t c = 0; c < C; ++c) out[c] = T(0);
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) {
          const T* src = x + ((n * p.H + h) * p.W + w) * C;
          for (int64_t c = 0; c < C; ++c) out[c] += src[c];
        }
      const T inv = T(1) / T((h1 - h0) * (w1 - w0));
      for (int64_t c = 0; c < C; ++c) out[c] *= inv;
    }
  }
}

template <typename T>
void avg_grad(const Pool& p, const T* g, T* dx) {
  std::fill(dx, dx + p.x_size(), T(0));
  _Pragma("omp parallel for schedule(static) if (parallel_rows(p.N, p.x_size()))")
  for (int64_t n = 0; n < p.N; ++n)
    for (int64_t oh = 0; oh < p.OH; ++oh)
      for (int64_t ow = 0; ow < p.OW; ++ow) {
        int64_t h0, h1, w0, w1;
        p.window(oh, ow, h0, h1, w0, w1);
        const T* gr = g + ((n * p.OH + oh) * p.OW + ow) * p.C;
        const T inv = T(1) / T((h1 - h0) * (w1 - w0));
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) {
            T* d = dx + ((n * p.H + h) * p.W + w) * p.C;
            for (int64_t c = 0; c < p.C; ++c) d[c] += gr[c] * inv;
          }
      }
}

// y-shaped from x-shaped: max and average pooling, and the max-pool selection.
void pool_forward(const char* op, py::array x, py::array y, py::array spec) {
  Pool p(spec, op);
  int dt = dtype_of(x);
  check_array(x, op, dt, p.x_size(), false);
  check_array(y, op, dt, p.y_size(), true);
  const bool is_max = std::string(op) == "max_pool2d";
  PD_DISPATCH_FLOAT(dt, op, {
    if (is_max)
      max_forward<scalar_t>(p, in_ptr<scalar_t>(x), out_ptr<scalar_t>(y));
    else
      avg_forward<scalar_t>(p, in_ptr<scalar_t>(x), out_ptr<scalar_t>(y));
  });
}

void max_pool2d_grad(py::array x, py::array g, py::array dx, py::array spec) {
  const char* op = "max_pool2d_grad";
  Pool p(spec, op);
  int dt = dtype_of(x);
  check_array(x, op, dt, p.x_size(), false);
  check_array(g, op, dt, p.y_size(), false);
  check_array(dx, op, dt, p.x_size(), true);
  PD_DISPATCH_FLOAT(dt, op, {
    max_grad<scalar_t>(p, in_ptr<scalar_t>(x), in_ptr<scalar_t>(g), out_ptr<scalar_t>(dx));
  });
}

void max_pool2d_select(py::array x, py::array gg, py::array out, py::array spec) {
  const char* op = "max_pool2d_select";
  Pool p(spec, op);
  int dt = dtype_of(x);
  check_array(x, op, dt, p.x_size(), false);
  check_array(gg, op, dt, p.x_size(), false);
  check_array(out, op, dt, p.y_size(), true);
  PD_DISPATCH_FLOAT(dt, op, {
    max_select<scalar_t>(p, in_ptr<scalar_t>(x), in_ptr<scalar_t>(gg), out_ptr<scalar_t>(out));
  });
}

void avg_pool2d_grad(py::array g, py::array dx, py::array spec) {
  const char* op = "avg_pool2d_grad";
  Pool p(spec, op);
  int dt = dtype_of(g);
  check_array(g, op, dt, p.y_size(), false);
  check_array(dx, op, dt, p.x_size(), true);
  PD_DISPATCH_FLOAT(dt, op, {
    avg_grad<scalar_t>(p, in_ptr<scalar_t>(g), out_ptr<scalar_t>(dx));
  });
}

}  // namespace

void init_pool(py::module_& m) {
  m.def("max_pool2d", [](py::array x, py::array y, py::array spec) {
    pool_forward("max_pool2d", x, y, spec);
  }, "y = max over each window of NHWC x");
  m.def("avg_pool2d", [](py::array x, py::array y, py::array spec) {
    pool_forward("avg_pool2d", x, y, spec);
  }, "y = mean over the input elements of each window of NHWC x");
  m.def("max_pool2d_grad", &max_pool2d_grad, "dx: g routed to each window's first arg-max");
  m.def("max_pool2d_select", &max_pool2d_select, "gg read at each window's first arg-max");
  m.def("avg_pool2d_grad", &avg_pool2d_grad, "dx: g spread evenly over each window");
}

}  // namespace paddle
