// Elementwise kernels: unary math, broadcasting binary math, comparisons, where, cast.
//
// Broadcasting is resolved when the plan is built: Python passes a "layout", an int64
// array [ndim, shape[ndim], strides of each operand[ndim]...] with dims already merged
// where possible and stride 0 on broadcast dims. The kernels walk the outer dims with a
// counter and run the last dim as a plain loop the compiler vectorizes.
#include "common.h"

#include <cmath>

namespace paddle {
namespace {

// The op codes; each enum ends with its count (checked with check_code before dispatch).
enum Unary { kNeg, kAbs, kExp, kLog, kLog1p, kSqrt, kSquare, kSign, kRelu, kSigmoid, kTanh, kErf,
             kUnaryCount };
enum Binary { kAdd, kSub, kMul, kDiv, kPow, kMaximum, kMinimum, kReluGrad, kBinaryCount };
enum Compare { kGreater, kGreaterEqual, kLess, kLessEqual, kEqual, kNotEqual, kCompareCount };

template <typename T>
inline T unary_value(int code, T x) {
  switch (code) {
    case kNeg: return -x;
    case kAbs: return x < T(0) ? -x : x;
    case kExp: return std::exp(x);
    case kLog: return std::log(x);
    case kLog1p: return std::log1p(x);
    case kSqrt: return std::sqrt(x);
    case kSquare: return x * x;
    // NaN passes through sign, relu, maximum and minimum (as in NumPy): a diverged model
    // must not look healthy. (x != x only holds for NaN; it is false for integers.)
    case kSign: return x != x ? x : T((x > T(0)) - (x < T(0)));
    case kRelu: return (x > T(0) || x != x) ? x : T(0);
    case kSigmoid: return T(1) / (T(1) + std::exp(-x));
    case kTanh: return std::tanh(x);
    case kErf: return std::erf(x);
  }
  return x;
}

// One loop per code so each is a tight, vectorizable loop.
template <typename T, int CODE>
void unary_loop(const T* x, T* y, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) y[i] = unary_value<T>(CODE, x[i]);
}

template <typename T>
void unary_range(int code, const T* x, T* y, int64_t b, int64_t e) {
  switch (code) {
#define PD_UNARY_CASE(C) case C: unary_loop<T, C>(x, y, b, e); break;
    PD_UNARY_CASE(kNeg) PD_UNARY_CASE(kAbs) PD_UNARY_CASE(kExp) PD_UNARY_CASE(kLog)
    PD_UNARY_CASE(kLog1p) PD_UNARY_CASE(kSqrt) PD_UNARY_CASE(kSquare) PD_UNARY_CASE(kSign)
    PD_UNARY_CASE(kRelu) PD_UNARY_CASE(kSigmoid) PD_UNARY_CASE(kTanh) PD_UNARY_CASE(kErf)
#undef PD_UNARY_CASE
    default: throw std::invalid_argument("unary: unknown op code " + std::to_string(code));
  }
}

void unary(int code, py::array x, py::array out) {
  // An unknown code must be refused here: unary_range throws it inside the parallel
  // region, where an exception ends the process.
  check_code(code, kUnaryCount, "unary");
  int dt = check_dtype(x, "unary", "x");
  check_array(x, "unary", "x", dt, -1, kRead);
  check_array(out, "unary", "out", dt, x.size(), kWrite);
  PD_DISPATCH_NUMERIC(dt, "unary", {
    if (!std::is_floating_point<scalar_t>::value && code != kNeg && code != kAbs &&
        code != kSquare && code != kSign && code != kRelu)
      throw std::invalid_argument("unary: op needs a float dtype, received " + dtype_name(dt));
    const scalar_t* xp = in_ptr<scalar_t>(x);
    scalar_t* yp = out_ptr<scalar_t>(out);
    parallel_chunks(x.size(), kParallelGrain,
                    [&](int64_t b, int64_t e) { unary_range<scalar_t>(code, xp, yp, b, e); });
  });
}

// Reads the layout array: ndim, shape, then `operands` stride vectors.
struct Layout {
  int ndim;
  const int64_t* shape;
  const int64_t* strides[4];
  int64_t size = 1;

  Layout(const py::array& spec, int operands, const char* op) {
    const int64_t* p = check_spec(spec, op, "layout", -1);
    require(spec.size() >= 1, op, "empty layout");
    ndim = check_rank(p[0], op, "layout");
    require(spec.size() == 1 + int64_t(ndim) * (1 + operands), op, "malformed layout");
    shape = p + 1;
    for (int k = 0; k < operands; ++k) strides[k] = p + 1 + ndim * (1 + k);
    for (int d = 0; d < ndim; ++d) size = size_mul(size, shape[d], op);
    for (int k = 0; k < operands; ++k)
      for (int d = 0; d < ndim; ++d) require(strides[k][d] >= 0, op, "negative stride");
    this->op = op;
  }

  // Largest element offset an operand reaches; checked against its array size (-1 when
  // the layout is empty and reaches nothing).
  int64_t reach(int k) const {
    if (size == 0) return -1;
    int64_t r = 0;
    for (int d = 0; d < ndim; ++d) r = size_add(r, size_mul(shape[d] - 1, strides[k][d], op), op);
    return r;
  }

  const char* op = "";
};

// Walks rows [row_begin, row_end) of the layout (a row = the last dim), calling
// f(offsets[operands], n, inner_strides) for each row.
template <int N, typename F>
void for_rows(const Layout& L, int64_t row_begin, int64_t row_end, F f) {
  int nd = L.ndim;
  int64_t inner = L.shape[nd - 1];
  std::vector<int64_t> idx(nd, 0);
  int64_t rem = row_begin;
  for (int d = nd - 2; d >= 0; --d) { idx[d] = rem % L.shape[d]; rem /= L.shape[d]; }
  int64_t off[N];
  for (int k = 0; k < N; ++k) {
    off[k] = 0;
    for (int d = 0; d < nd - 1; ++d) off[k] += idx[d] * L.strides[k][d];
  }
  for (int64_t r = row_begin; r < row_end; ++r) {
    f(off, inner, r * inner);
    for (int d = nd - 2; d >= 0; --d) {
      for (int k = 0; k < N; ++k) off[k] += L.strides[k][d];
      if (++idx[d] < L.shape[d]) break;
      for (int k = 0; k < N; ++k) off[k] -= L.strides[k][d] * L.shape[d];
      idx[d] = 0;
    }
  }
}

template <typename F>
void parallel_rows(const Layout& L, F body) {
  if (L.size == 0) return;
  int64_t rows = L.size / L.shape[L.ndim - 1];
  if (L.size >= kParallelGrain && rows > 1 && max_threads() > 1) {
    parallel_chunks(rows, 2, body);
  } else {
    body(int64_t(0), rows);
  }
}

template <typename T>
inline T binary_value(int code, T a, T b) {
  switch (code) {
    case kAdd: return a + b;
    case kSub: return a - b;
    case kMul: return a * b;
    case kDiv: return a / b;
    case kPow: return T(std::pow(a, b));
    case kMaximum: return (a > b || a != a) ? a : b;
    case kMinimum: return (a < b || a != a) ? a : b;
    case kReluGrad: return a > T(0) ? b : T(0);  // a: relu's output, b: its gradient
  }
  return a;
}

// The inner loop, specialised on whether each operand moves (stride 1) or stays (0).
template <typename T, int CODE>
inline void binary_row(const T* a, int64_t sa, const T* b, int64_t sb, T* y, int64_t n) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = binary_value<T>(CODE, a[i], b[i]);
  } else if (sa == 1 && sb == 0) {
    const T bv = *b;
    for (int64_t i = 0; i < n; ++i) y[i] = binary_value<T>(CODE, a[i], bv);
  } else if (sa == 0 && sb == 1) {
    const T av = *a;
    for (int64_t i = 0; i < n; ++i) y[i] = binary_value<T>(CODE, av, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = binary_value<T>(CODE, a[i * sa], b[i * sb]);
  }
}

template <typename T, int CODE>
void binary_typed(const Layout& L, const T* a, const T* b, T* y) {
  int last = L.ndim - 1;
  int64_t sa = L.strides[0][last], sb = L.strides[1][last];
  parallel_rows(L, [&](int64_t r0, int64_t r1) {
    for_rows<2>(L, r0, r1, [&](const int64_t* off, int64_t n, int64_t out_off) {
      binary_row<T, CODE>(a + off[0], sa, b + off[1], sb, y + out_off, n);
    });
  });
}

template <typename T>
void binary_code(int code, const Layout& L, const T* a, const T* b, T* y) {
  switch (code) {
#define PD_BINARY_CASE(C) case C: binary_typed<T, C>(L, a, b, y); break;
    PD_BINARY_CASE(kAdd) PD_BINARY_CASE(kSub) PD_BINARY_CASE(kMul) PD_BINARY_CASE(kDiv)
    PD_BINARY_CASE(kPow) PD_BINARY_CASE(kMaximum) PD_BINARY_CASE(kMinimum)
    PD_BINARY_CASE(kReluGrad)
#undef PD_BINARY_CASE
    default: throw std::invalid_argument("binary: unknown op code " + std::to_string(code));
  }
}

void binary(int code, py::array a, py::array b, py::array out, py::array layout) {
  check_code(code, kBinaryCount, "binary");
  Layout L(layout, 2, "binary");
  int dt = check_dtype(a, "binary", "a");
  check_array(a, "binary", "a", dt, -1, kRead);
  check_array(b, "binary", "b", dt, -1, kRead);
  check_array(out, "binary", "out", dt, L.size, kWrite);
  require(L.reach(0) < a.size() && L.reach(1) < b.size(), "binary", "layout exceeds operand");
  PD_DISPATCH_NUMERIC(dt, "binary", {
    binary_code<scalar_t>(code, L, in_ptr<scalar_t>(a), in_ptr<scalar_t>(b), out_ptr<scalar_t>(out));
  });
}

template <typename T>
inline bool compare_value(int code, T a, T b) {
  switch (code) {
    case kGreater: return a > b;
    case kGreaterEqual: return a >= b;
    case kLess: return a < b;
    case kLessEqual: return a <= b;
    case kEqual: return a == b;
    case kNotEqual: return a != b;
  }
  return false;
}

void compare(int code, py::array a, py::array b, py::array out, py::array layout) {
  check_code(code, kCompareCount, "compare");
  Layout L(layout, 2, "compare");
  int dt = check_dtype(a, "compare", "a");
  check_array(a, "compare", "a", dt, -1, kRead);
  check_array(b, "compare", "b", dt, -1, kRead);
  check_array(out, "compare", "out", kBool, L.size, kWrite);
  require(L.reach(0) < a.size() && L.reach(1) < b.size(), "compare", "layout exceeds operand");
  PD_DISPATCH_ALL(dt, "compare", {
    const scalar_t* ap = in_ptr<scalar_t>(a);
    const scalar_t* bp = in_ptr<scalar_t>(b);
    uint8_t* yp = out_ptr<uint8_t>(out);
    int last = L.ndim - 1;
    int64_t sa = L.strides[0][last], sb = L.strides[1][last];
    parallel_rows(L, [&](int64_t r0, int64_t r1) {
      for_rows<2>(L, r0, r1, [&](const int64_t* off, int64_t n, int64_t o) {
        const scalar_t *ar = ap + off[0], *br = bp + off[1];
        uint8_t* yr = yp + o;
        if (sa == 1 && sb == 1) {
          for (int64_t i = 0; i < n; ++i) yr[i] = compare_value<scalar_t>(code, ar[i], br[i]);
        } else if (sa == 1 && sb == 0) {
          const scalar_t bv = *br;
          for (int64_t i = 0; i < n; ++i) yr[i] = compare_value<scalar_t>(code, ar[i], bv);
        } else {
          for (int64_t i = 0; i < n; ++i)
            yr[i] = compare_value<scalar_t>(code, ar[i * sa], br[i * sb]);
        }
      });
    });
  });
}

void where(py::array cond, py::array a, py::array b, py::array out, py::array layout) {
  Layout L(layout, 3, "where");
  int dt = check_dtype(a, "where", "a");
  check_array(cond, "where", "cond", kBool, -1, kRead);
  check_array(a, "where", "a", dt, -1, kRead);
  check_array(b, "where", "b", dt, -1, kRead);
  check_array(out, "where", "out", dt, L.size, kWrite);
  require(L.reach(0) < cond.size() && L.reach(1) < a.size() && L.reach(2) < b.size(), "where",
          "layout exceeds operand");
  PD_DISPATCH_ALL(dt, "where", {
    const uint8_t* cp = in_ptr<uint8_t>(cond);
    const scalar_t* ap = in_ptr<scalar_t>(a);
    const scalar_t* bp = in_ptr<scalar_t>(b);
    scalar_t* yp = out_ptr<scalar_t>(out);
    int last = L.ndim - 1;
    int64_t sc = L.strides[0][last], sa = L.strides[1][last], sb = L.strides[2][last];
    parallel_rows(L, [&](int64_t r0, int64_t r1) {
      for_rows<3>(L, r0, r1, [&](const int64_t* off, int64_t n, int64_t o) {
        const uint8_t* cr = cp + off[0];
        const scalar_t *ar = ap + off[1], *br = bp + off[2];
        scalar_t* yr = yp + o;
        if (sc == 1 && sa == 1 && sb == 1) {
          for (int64_t i = 0; i < n; ++i) yr[i] = cr[i] ? ar[i] : br[i];
        } else if (sc == 1 && sa == 1 && sb == 0) {
          const scalar_t bv = *br;
          for (int64_t i = 0; i < n; ++i) yr[i] = cr[i] ? ar[i] : bv;
        } else if (sc == 1 && sa == 0 && sb == 1) {
          const scalar_t av = *ar;
          for (int64_t i = 0; i < n; ++i) yr[i] = cr[i] ? av : br[i];
        } else {
          for (int64_t i = 0; i < n; ++i) yr[i] = cr[i * sc] ? ar[i * sa] : br[i * sb];
        }
      });
    });
  });
}

// To bool means "is not zero" (as NumPy): a plain conversion would truncate 0.4 to 0 and
// is undefined for negative values into the unsigned byte that holds a bool.
template <typename From, typename To>
void cast_loop(const From* x, To* y, int64_t n, bool to_bool) {
  parallel_chunks(n, kParallelGrain, [&](int64_t b, int64_t e) {
    if (to_bool) {
      for (int64_t i = b; i < e; ++i) y[i] = static_cast<To>(x[i] != From(0));
    } else {
      for (int64_t i = b; i < e; ++i) y[i] = static_cast<To>(x[i]);
    }
  });
}

void cast(py::array x, py::array out) {
  int from = check_dtype(x, "cast", "x"), to = check_dtype(out, "cast", "out");
  check_array(x, "cast", "x", from, -1, kRead);
  check_array(out, "cast", "out", to, x.size(), kWrite);
  PD_DISPATCH_ALL(from, "cast", {
    using from_t = scalar_t;
    const from_t* xp = in_ptr<from_t>(x);
    PD_DISPATCH_ALL(to, "cast", { cast_loop<from_t, scalar_t>(xp, out_ptr<scalar_t>(out), x.size(), to == kBool); });
  });
}

}  // namespace

void init_elementwise(py::module_& m) {
  m.def("unary", &unary,
        py::arg("code"), array_arg("x"), array_arg("out"),
        "y = f(x) elementwise; code from the Unary table");
  m.def("binary", &binary,
        py::arg("code"), array_arg("a"), array_arg("b"), array_arg("out"), array_arg("layout"),
        "y = f(a, b) with broadcasting given by a layout");
  m.def("compare", &compare,
        py::arg("code"), array_arg("a"), array_arg("b"), array_arg("out"), array_arg("layout"),
        "bool y = a <op> b with broadcasting");
  m.def("where", &where,
        array_arg("cond"), array_arg("a"), array_arg("b"), array_arg("out"), array_arg("layout"),
        "y = cond ? a : b with broadcasting");
  m.def("cast", &cast,
        array_arg("x"), array_arg("out"),
        "y = x converted to y's dtype");
}

}  // namespace paddle
