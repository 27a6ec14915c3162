// 2-D max and average pooling on NHWC tensors, with their gradients.
//
// A window's channels are contiguous, so every loop runs over a row of C values that the
// compiler vectorizes. Padding ("same") is never materialized: windows are clipped to
// the input, and average pooling divides by the count of the input elements it covered,
// as TensorFlow does. Max pooling also outputs each window's arg-max position, which
// its gradient reads.
//
// spec (int64[12]): N H W C OH OW KH KW sh sw pad_top pad_left
#include <algorithm>
#include <climits>
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
    const int64_t* s = check_spec(spec, op, "spec", 12);
    N = s[0]; H = s[1]; W = s[2]; C = s[3]; OH = s[4]; OW = s[5]; KH = s[6]; KW = s[7];
    sh = s[8]; sw = s[9]; pt = s[10]; pl = s[11];
    require(N >= 0 && H >= 1 && W >= 1 && C >= 0 && OH >= 1 && OW >= 1 && KH >= 1 && KW >= 1 &&
                sh >= 1 && sw >= 1 && pt >= 0 && pl >= 0,
            op, "malformed spec");
    xs = size_of({N, H, W, C}, op);
    ys = size_of({N, OH, OW, C}, op);
    // Window corners oh * sh - pt + KH must not overflow.
    size_add(size_mul(OH, sh, op), KH, op);
    size_add(size_mul(OW, sw, op), KW, op);
    // Every window must hold at least one input element (the op's shape rule ensures it).
    require(pt < KH && pl < KW && (OH - 1) * sh - pt < H && (OW - 1) * sw - pl < W, op,
            "windows outside the input");
  }

  int64_t xs, ys;
  int64_t x_size() const { return xs; }

  // Max pooling saves each window's arg-max as an int32 position kh * KW + kw: a window
  // with more positions would wrap them around, and rows would share positions.
  void check_positions(const char* op) const {
    require(size_mul(KH, KW, op) <= INT32_MAX, op,
            "the pool window has more than 2**31 - 1 positions");
  }
  int64_t y_size() const { return ys; }

  // The window of output (oh, ow) clipped to the input: rows [h0, h1), columns [w0, w1).
  void window(int64_t oh, int64_t ow, int64_t& h0, int64_t& h1, int64_t& w0, int64_t& w1) const {
    h0 = oh * sh - pt; h1 = std::min(h0 + KH, H); h0 = std::max<int64_t>(h0, 0);
    w0 = ow * sw - pl; w1 = std::min(w0 + KW, W); w0 = std::max<int64_t>(w0, 0);
  }
};

bool parallel_rows(int64_t rows, int64_t work) { return rows > 1 && work >= kParallelGrain; }

// y = the maximum of each window and `where` its position in the window (kh * KW + kw of
// the unclipped window): the first maximum in row-major order, as PyTorch picks. The
// gradient and its adjoint read `where` (a quarter of the bytes of x for 2x2 windows)
// and never compare floats again. Selects, not branches: random data would mispredict
// every other compare, and these loops vectorize.
template <typename T>
void max_forward(const Pool& p, const T* x, T* y, int32_t* where) {
  const int64_t rows = p.N * p.OH, C = p.C;
  _Pragma("omp parallel for schedule(static) if (parallel_rows(rows, p.x_size())) num_threads(max_threads())")
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = r / p.OH, oh = r % p.OH;
    for (int64_t ow = 0; ow < p.OW; ++ow) {
      int64_t h0, h1, w0, w1;
      p.window(oh, ow, h0, h1, w0, w1);
      T* out = y + (r * p.OW + ow) * C;
      int32_t* at = where + (r * p.OW + ow) * C;
      const int64_t top = oh * p.sh - p.pt, left = ow * p.sw - p.pl;
      const T* first = x + ((n * p.H + h0) * p.W + w0) * C;
      const int32_t p0 = int32_t((h0 - top) * p.KW + (w0 - left));
      for (int64_t c = 0; c < C; ++c) { out[c] = first[c]; at[c] = p0; }
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) {
          const T* src = x + ((n * p.H + h) * p.W + w) * C;
          const int32_t pos = int32_t((h - top) * p.KW + (w - left));
          for (int64_t c = 0; c < C; ++c) {
            const T s = src[c], m = out[c];
            // s wins when larger, or when it is the window's first NaN (NaN propagates, as
            // in pd.max and NumPy: a diverged model must not look healthy).
            const bool take = (s > m) | ((s != s) & (m == m));
            // An all-ones mask where s wins: GCC vectorizes the bit select, not `?:`.
            const int32_t more = -int32_t(take);
            out[c] = take ? s : m;
            at[c] = (pos & more) | (at[c] & ~more);
          }
        }
    }
  }
}

// Windows that never overlap write each input element at most once.
bool overlapping(const Pool& p) { return p.sh < p.KH || p.sw < p.KW; }

// ... and when they also cover the whole input, nothing needs zeroing first.
bool tiling(const Pool& p) {
  return !overlapping(p) && p.pt == 0 && p.pl == 0 && p.sh == p.KH && p.sw == p.KW &&
         p.OH * p.KH == p.H && p.OW * p.KW == p.W;
}

// dx: each window's gradient at its saved arg-max, zero elsewhere. Threads take whole
// images, so they never write the same element, and an image's dx stays in cache while
// its windows write into it. With relu_y (x-shaped), each image's dx is then masked as
// relu_grad(relu_y, dx) would (kept where relu_y > 0, NaN not), while still in cache: the
// max_pool2d_grad + relu_grad that paddle/lowlevel/fusion/pool.py fuses. Where relu_y is
// the pooling's own input, its value at a window's arg-max is the pooling's output there,
// so `pool_y` (y-shaped, a quarter of the bytes for 2x2 windows) masks each window's
// gradient instead, before it is routed: every window that routes to an element agrees on
// its mask, so the values are relu_grad's bit for bit, and relu_y is never read.
template <bool ADD, typename T>
void max_grad_images(const Pool& p, const T* g, const int32_t* where, T* dx, const T* relu_y,
                     const T* pool_y) {
  const int64_t C = p.C, image = p.H * p.W * C;
  const bool zero = !tiling(p);
  _Pragma("omp parallel for schedule(static) if (parallel_rows(p.N, p.x_size())) num_threads(max_threads())")
  for (int64_t n = 0; n < p.N; ++n) {
    std::vector<T> masked(pool_y ? C : 0);
    if (zero) std::fill(dx + n * image, dx + (n + 1) * image, T(0));
    for (int64_t oh = 0; oh < p.OH; ++oh)
      for (int64_t ow = 0; ow < p.OW; ++ow) {
        int64_t h0, h1, w0, w1;
        p.window(oh, ow, h0, h1, w0, w1);
        const int64_t top = oh * p.sh - p.pt, left = ow * p.sw - p.pl;
        const int64_t o = ((n * p.OH + oh) * p.OW + ow) * C;
        const T* gr = g + o;
        if (pool_y) {  // the window's gradient, masked once, in a buffer of C values
          const T* gate = pool_y + o;
          for (int64_t c = 0; c < C; ++c) masked[c] = gate[c] > T(0) ? gr[c] : T(0);
          gr = masked.data();
        }
        const int32_t* at = where + o;
        for (int64_t h = h0; h < h1; ++h)
          for (int64_t w = w0; w < w1; ++w) {
            T* d = dx + ((n * p.H + h) * p.W + w) * C;
            const int32_t pos = int32_t((h - top) * p.KW + (w - left));
            for (int64_t c = 0; c < C; ++c) {
              const T v = gr[c], old = ADD ? d[c] : T(0);
              d[c] = at[c] == pos ? old + v : old;
            }
          }
      }
    if (relu_y) {
      T* d = dx + n * image;
      const T* m = relu_y + n * image;
      for (int64_t i = 0; i < image; ++i) d[i] = m[i] > T(0) ? d[i] : T(0);
    }
  }
}

template <typename T>
void max_grad(const Pool& p, const T* g, const int32_t* where, T* dx, const T* relu_y,
              const T* pool_y) {
  if (overlapping(p))
    max_grad_images<true>(p, g, where, dx, relu_y, pool_y);
  else
    max_grad_images<false>(p, g, where, dx, relu_y, pool_y);
}

// out[n, oh, ow, c] = gg (x-shaped) at the window's saved arg-max: max_grad's adjoint.
template <typename T>
void max_select(const Pool& p, const T* gg, const int32_t* where, T* out) {
  const int64_t rows = p.N * p.OH, C = p.C;
  _Pragma("omp parallel for schedule(static) if (parallel_rows(rows, p.x_size())) num_threads(max_threads())")
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t ow = 0; ow < p.OW; ++ow) {
      const int64_t n = r / p.OH, oh = r % p.OH;
      int64_t h0, h1, w0, w1;
      p.window(oh, ow, h0, h1, w0, w1);
      const int64_t top = oh * p.sh - p.pt, left = ow * p.sw - p.pl;
      T* o = out + (r * p.OW + ow) * C;
      const int32_t* at = where + (r * p.OW + ow) * C;
      std::fill(o, o + C, T(0));
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) {
          const T* src = gg + ((n * p.H + h) * p.W + w) * C;
          const int32_t pos = int32_t((h - top) * p.KW + (w - left));
          for (int64_t c = 0; c < C; ++c) {
            const T v = src[c], old = o[c];
            o[c] = at[c] == pos ? v : old;
          }
        }
    }
}

template <typename T>
void avg_forward(const Pool& p, const T* x, T* y) {
  const int64_t rows = p.N * p.OH, C = p.C;
  _Pragma("omp parallel for schedule(static) if (parallel_rows(rows, p.x_size())) num_threads(max_threads())")
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
  _Pragma("omp parallel for schedule(static) if (parallel_rows(p.N, p.x_size())) num_threads(max_threads())")
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

void max_pool2d(py::array x, py::array y, py::array where, py::array spec) {
  const char* op = "max_pool2d";
  Pool p(spec, op);
  p.check_positions(op);
  int dt = check_dtype(x, op, "x");
  check_array(x, op, "x", dt, p.x_size(), kRead);
  check_array(y, op, "y", dt, p.y_size(), kWrite);
  check_array(where, op, "where", kInt32, p.y_size(), kWrite);
  GilRelease nogil(p.x_size());
  PD_DISPATCH_FLOAT(dt, op, {
    max_forward<scalar_t>(p, in_ptr<scalar_t>(x), out_ptr<scalar_t>(y), out_ptr<int32_t>(where));
  });
}

void avg_pool2d(py::array x, py::array y, py::array spec) {
  const char* op = "avg_pool2d";
  Pool p(spec, op);
  int dt = check_dtype(x, op, "x");
  check_array(x, op, "x", dt, p.x_size(), kRead);
  check_array(y, op, "y", dt, p.y_size(), kWrite);
  GilRelease nogil(p.x_size());
  PD_DISPATCH_FLOAT(dt, op, {
    avg_forward<scalar_t>(p, in_ptr<scalar_t>(x), out_ptr<scalar_t>(y));
  });
}

void max_pool2d_grad(py::array g, py::array where, py::array dx, py::array spec,
                     py::array relu_y, py::array pool_y) {
  const char* op = "max_pool2d_grad";
  Pool p(spec, op);
  p.check_positions(op);
  int dt = check_dtype(g, op, "g");
  check_array(g, op, "g", dt, p.y_size(), kRead);
  check_array(where, op, "where", kInt32, p.y_size(), kRead);
  check_array(dx, op, "dx", dt, p.x_size(), kWrite);
  if (relu_y.size()) check_array(relu_y, op, "relu_y", dt, p.x_size(), kRead);  // empty: none
  if (pool_y.size()) check_array(pool_y, op, "pool_y", dt, p.y_size(), kRead);
  require(!(relu_y.size() && pool_y.size()), op, "relu_y and pool_y are two masks: give one");
  GilRelease nogil(p.x_size());
  PD_DISPATCH_FLOAT(dt, op, {
    max_grad<scalar_t>(p, in_ptr<scalar_t>(g), in_ptr<int32_t>(where), out_ptr<scalar_t>(dx),
                       relu_y.size() ? in_ptr<scalar_t>(relu_y) : nullptr,
                       pool_y.size() ? in_ptr<scalar_t>(pool_y) : nullptr);
  });
}

void max_pool2d_select(py::array gg, py::array where, py::array out, py::array spec) {
  const char* op = "max_pool2d_select";
  Pool p(spec, op);
  p.check_positions(op);
  int dt = check_dtype(gg, op, "gg");
  check_array(gg, op, "gg", dt, p.x_size(), kRead);
  check_array(where, op, "where", kInt32, p.y_size(), kRead);
  check_array(out, op, "out", dt, p.y_size(), kWrite);
  GilRelease nogil(p.x_size());
  PD_DISPATCH_FLOAT(dt, op, {
    max_select<scalar_t>(p, in_ptr<scalar_t>(gg), in_ptr<int32_t>(where), out_ptr<scalar_t>(out));
  });
}

void avg_pool2d_grad(py::array g, py::array dx, py::array spec) {
  const char* op = "avg_pool2d_grad";
  Pool p(spec, op);
  int dt = check_dtype(g, op, "g");
  check_array(g, op, "g", dt, p.y_size(), kRead);
  check_array(dx, op, "dx", dt, p.x_size(), kWrite);
  GilRelease nogil(p.x_size());
  PD_DISPATCH_FLOAT(dt, op, {
    avg_grad<scalar_t>(p, in_ptr<scalar_t>(g), out_ptr<scalar_t>(dx));
  });
}

}  // namespace

void init_pool(py::module_& m) {
  m.def("max_pool2d", &max_pool2d,
        array_arg("x"), array_arg("y"), array_arg("where"), array_arg("spec"),
        "y = max over each window of NHWC x, `where` = the first arg-max's window position");
  m.def("avg_pool2d", &avg_pool2d,
        array_arg("x"), array_arg("y"), array_arg("spec"),
        "y = mean over the input elements of each window of x");
  m.def("max_pool2d_grad", &max_pool2d_grad,
        array_arg("g"), array_arg("where"), array_arg("dx"), array_arg("spec"),
        py::arg("relu_y") = py::array_t<float>(0), py::arg("pool_y") = py::array_t<float>(0),
        "dx: g routed to each window's saved arg-max; masked where relu_y (unless empty) is "
        "not above 0, as relu_grad(relu_y, dx); or each window's g masked where pool_y (the "
        "pooling's output, unless empty) is not, the same where relu_y is its input");
  m.def("max_pool2d_select", &max_pool2d_select,
        array_arg("gg"), array_arg("where"), array_arg("out"), array_arg("spec"),
        "gg read at each window's saved arg-max");
  m.def("avg_pool2d_grad", &avg_pool2d_grad,
        array_arg("g"), array_arg("dx"), array_arg("spec"),
        "dx: g spread evenly over each window");
}

}  // namespace paddle
