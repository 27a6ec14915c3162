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
// Codes from kSin on are float-only transcendental and rounding functions (the table of
// paddle/lowlevel/ops/special.py); kI1 is i0's derivative. kGelu and kGeluTanh are gelu's two
// forms in one pass (the exact one with erf, Keras's default tanh approximation).
enum Unary { kNeg, kAbs, kExp, kLog, kLog1p, kSqrt, kSquare, kSign, kRelu, kSigmoid, kTanh, kErf,
             kSin, kCos, kTan, kAsin, kAcos, kAtan, kSinh, kCosh, kAsinh, kAcosh, kAtanh,
             kExp2, kExpm1, kLog2, kLog10, kFloor, kCeil, kRint, kTrunc, kCbrt, kErfc, kErfinv,
             kI0, kI1, kGelu, kGeluTanh, kUnaryCount };
// From kAtan2 on: kAtan2, kHypot, kNextafter are float-only; kFmod, kRemainder, kFloorDiv
// take floats and integers; kBitAnd to kLcm are integer-only; kLogaddexp is float-only.
enum Binary { kAdd, kSub, kMul, kDiv, kPow, kMaximum, kMinimum, kReluGrad,
              kAtan2, kHypot, kNextafter, kFmod, kRemainder, kFloorDiv,
              kBitAnd, kBitOr, kBitXor, kShiftLeft, kShiftRight, kGcd, kLcm, kLogaddexp,
              kBinaryCount };

// erfinv: Giles' single-precision approximation ("Approximating the erfinv function", GPU
// Computing Gems, 2011), then two Newton steps on erf(r) - y in double precision.
// In float32 the approximation alone is within 1.3e-7 (relative) of the exact value: the
// Newton steps (`refine`) are for float64.
inline double erfinv_value(double y, bool refine) {
  if (y != y || y <= -1.0 || y >= 1.0) {
    if (y == 1.0) return HUGE_VAL;
    if (y == -1.0) return -HUGE_VAL;
    return std::nan("");
  }
  double w = -std::log((1.0 - y) * (1.0 + y)), p;
  if (w < 5.0) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w; p = -3.5233877e-06 + p * w; p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w; p = -0.00125372503 + p * w; p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w; p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3.0;
    p = -0.000200214257;
    p = 0.000100950558 + p * w; p = 0.00134934322 + p * w; p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w; p = -0.0076224613 + p * w; p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w; p = 2.83297682 + p * w;
  }
  double r = p * y;
  const double two_over_sqrt_pi = 1.1283791670955126;
  for (int i = 0; refine && i < 2; ++i) {
    double slope = two_over_sqrt_pi * std::exp(-r * r);
    if (slope == 0.0) break;
    r -= (std::erf(r) - y) / slope;
  }
  return r;
}

// I0 and I1 (modified Bessel functions of the first kind). libstdc++ computes them for
// x >= 0 and may throw where its series stops converging: no exception may leave a loop
// that runs inside an OpenMP region, so that case takes the asymptotic form, exact there.
inline double bessel_i(int order, double x) {
  double ax = std::fabs(x), v;
  if (x != x) return x;
  try {
    v = std::cyl_bessel_i(double(order), ax);
  } catch (...) {
    v = std::exp(ax) / std::sqrt(2.0 * M_PI * ax);
  }
  return (order == 1 && x < 0) ? -v : v;
}
enum Compare { kGreater, kGreaterEqual, kLess, kLessEqual, kEqual, kNotEqual, kCompareCount };

// Always inlined: the loops below call it with a constant code, so that the switch folds
// to one case and the loop vectorizes. (GCC kept it out of line, a call and a jump table
// per element: relu ran at 1-5 ns an element, depending on where the code landed.)
template <typename T>
__attribute__((always_inline)) inline T unary_value(int code, T x) {
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
    // Two selects (max, then NaN), which vectorize without branches.
    case kRelu: {
      const T positive = x > T(0) ? x : T(0);
      return x != x ? x : positive;
    }
    case kSigmoid: return T(1) / (T(1) + std::exp(-x));
    case kTanh: return std::tanh(x);
    case kErf: return std::erf(x);
    case kSin: return std::sin(x);
    case kCos: return std::cos(x);
    case kTan: return std::tan(x);
    case kAsin: return std::asin(x);
    case kAcos: return std::acos(x);
    case kAtan: return std::atan(x);
    case kSinh: return std::sinh(x);
    case kCosh: return std::cosh(x);
    case kAsinh: return std::asinh(x);
    case kAcosh: return std::acosh(x);
    case kAtanh: return std::atanh(x);
    case kExp2: return std::exp2(x);
    case kExpm1: return std::expm1(x);
    case kLog2: return std::log2(x);
    case kLog10: return std::log10(x);
    case kFloor: return std::floor(x);
    case kCeil: return std::ceil(x);
    case kRint: return std::nearbyint(x);  // halves to even, as NumPy's round
    case kTrunc: return std::trunc(x);
    case kCbrt: return std::cbrt(x);
    case kErfc: return std::erfc(x);
    case kErfinv: return T(erfinv_value(double(x), sizeof(T) == sizeof(double)));
    case kI0: return T(bessel_i(0, double(x)));
    case kI1: return T(bessel_i(1, double(x)));
    case kGelu: return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440)));
    case kGeluTanh:
      return T(0.5) * x *
             (T(1) + std::tanh(T(0.79788456080286535588) * (x + T(0.044715) * x * x * x)));
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
    PD_UNARY_CASE(kSin) PD_UNARY_CASE(kCos) PD_UNARY_CASE(kTan) PD_UNARY_CASE(kAsin)
    PD_UNARY_CASE(kAcos) PD_UNARY_CASE(kAtan) PD_UNARY_CASE(kSinh) PD_UNARY_CASE(kCosh)
    PD_UNARY_CASE(kAsinh) PD_UNARY_CASE(kAcosh) PD_UNARY_CASE(kAtanh) PD_UNARY_CASE(kExp2)
    PD_UNARY_CASE(kExpm1) PD_UNARY_CASE(kLog2) PD_UNARY_CASE(kLog10) PD_UNARY_CASE(kFloor)
    PD_UNARY_CASE(kCeil) PD_UNARY_CASE(kRint) PD_UNARY_CASE(kTrunc) PD_UNARY_CASE(kCbrt)
    PD_UNARY_CASE(kErfc) PD_UNARY_CASE(kErfinv) PD_UNARY_CASE(kI0) PD_UNARY_CASE(kI1)
    PD_UNARY_CASE(kGelu) PD_UNARY_CASE(kGeluTanh)
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

// Python's floor division and remainder (NumPy's npy_divmod for floats). Integer division
// by zero gives 0 (as NumPy) and INT_MIN / -1 wraps: neither may trap the process.
template <typename T>
inline T floor_div_value(T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    if (b == T(0)) return a / b;
    T mod = std::fmod(a, b), div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return std::copysign(T(0), a / b);
    T floordiv = std::floor(div);
    return div - floordiv > T(0.5) ? floordiv + T(1) : floordiv;
  } else {
    if (b == T(0)) return T(0);
    if (b == T(-1)) return T(0 - static_cast<typename std::make_unsigned<T>::type>(a));
    T q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
  }
}

template <typename T>
inline T remainder_value(T a, T b, bool python) {
  if constexpr (std::is_floating_point<T>::value) {
    T r = std::fmod(a, b);
    if (python && b != T(0)) {
      if (r != T(0) && ((b < T(0)) != (r < T(0)))) r += b;
      else if (r == T(0)) r = std::copysign(T(0), b);
    }
    return r;
  } else {
    if (b == T(0) || b == T(-1)) return T(0);
    T r = a % b;
    return (python && r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
  }
}

// Shifts by a negative count or by the width or more: 0 (left), the sign (right), as NumPy.
template <typename T>
inline T shift_value(T a, T b, bool left) {
  if constexpr (std::is_floating_point<T>::value) {
    return a;  // refused before dispatch (integer-only codes)
  } else {
    using U = typename std::make_unsigned<T>::type;
    if (b < 0 || b >= T(sizeof(T) * 8)) return left ? T(0) : (a < 0 ? T(-1) : T(0));
    return left ? T(U(a) << b) : T(a >> b);
  }
}

template <typename T>
inline T bit_value(int code, T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    return a;  // refused before dispatch (integer-only codes)
  } else {
    return code == kBitAnd ? T(a & b) : code == kBitOr ? T(a | b) : T(a ^ b);
  }
}

// gcd and lcm on magnitudes taken unsigned (|INT_MIN| fits there); lcm wraps as NumPy's.
template <typename T>
inline T gcd_value(int code, T a, T b) {
  if constexpr (std::is_floating_point<T>::value) {
    return a;  // refused before dispatch (integer-only codes)
  } else {
    using U = typename std::make_unsigned<T>::type;
    U x = a < 0 ? U(0) - U(a) : U(a), y = b < 0 ? U(0) - U(b) : U(b);
    U p = x, q = y;
    while (q != 0) { U r = p % q; p = q; q = r; }
    if (code == kGcd) return T(p);
    return p == 0 ? T(0) : T((x / p) * y);
  }
}

// log(exp(a) + exp(b)) without overflow, as NumPy's npy_logaddexp (equal infinities give
// themselves; a NaN operand gives NaN).
template <typename T>
inline T logaddexp_value(T a, T b) {
  if (a == b) return a + T(0.693147180559945309417232121458176568);
  T d = a - b;
  if (d > T(0)) return a + std::log1p(std::exp(-d));
  if (d <= T(0)) return b + std::log1p(std::exp(d));
  return d;
}

template <typename T>
__attribute__((always_inline)) inline T binary_value(int code, T a, T b) {  // as unary_value
  switch (code) {
    case kLogaddexp: return logaddexp_value<T>(a, b);
    case kAtan2: return T(std::atan2(a, b));
    case kHypot: return T(std::hypot(a, b));
    case kNextafter: return T(std::nextafter(a, b));
    case kFmod: return remainder_value<T>(a, b, false);
    case kRemainder: return remainder_value<T>(a, b, true);
    case kFloorDiv: return floor_div_value<T>(a, b);
    case kBitAnd: case kBitOr: case kBitXor: return bit_value<T>(code, a, b);
    case kShiftLeft: return shift_value<T>(a, b, true);
    case kShiftRight: return shift_value<T>(a, b, false);
    case kGcd: case kLcm: return gcd_value<T>(code, a, b);
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
    PD_BINARY_CASE(kReluGrad) PD_BINARY_CASE(kAtan2) PD_BINARY_CASE(kHypot)
    PD_BINARY_CASE(kNextafter) PD_BINARY_CASE(kFmod) PD_BINARY_CASE(kRemainder)
    PD_BINARY_CASE(kFloorDiv) PD_BINARY_CASE(kBitAnd) PD_BINARY_CASE(kBitOr)
    PD_BINARY_CASE(kBitXor) PD_BINARY_CASE(kShiftLeft) PD_BINARY_CASE(kShiftRight)
    PD_BINARY_CASE(kGcd) PD_BINARY_CASE(kLcm) PD_BINARY_CASE(kLogaddexp)
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
  const bool is_float = dt == kFloat32 || dt == kFloat64;
  if (!is_float && (code == kAtan2 || code == kHypot || code == kNextafter || code == kLogaddexp))
    throw py::type_error("binary: op needs a float dtype, received " + dtype_name(dt));
  if (is_float && code >= kBitAnd && code <= kLcm)
    throw py::type_error("binary: op needs an integer dtype, received " + dtype_name(dt));
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
