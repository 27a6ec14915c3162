// Elementwise kernels: unary math, broadcasting binary math, comparisons, where, cast.
//
// Broadcasting is resolved when the plan is built: Python passes a "layout", an int64
// array [ndim, shape[ndim], strides of each operand[ndim]...] with dims already merged
// where possible and stride 0 on broadcast dims. The kernels walk the outer dims with a
// counter and run the last dim as a plain loop the compiler vectorizes.
#include "common.h"
#include "fresh.h"
#include "vmath.h"

#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

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
// Predicates: bool y = p(x) of one operand of any dtype (the "predicate" family). kSignbit
// reads the top bit of x's bits: for floats the IEEE sign (so -0.0, and a NaN whose sign is
// set, count, as std::signbit and JAX's signbit give them), for two's-complement integers
// x < 0. A bool's byte is 0 or 1: never.
enum Predicate { kSignbit, kPredicateCount };

// float32's transcendental functions: vmath.h's vectorizable ones.
PD_VM_INLINE float unary_float(int code, float x) {
  switch (code) {
    case kExp: return vm::exp(x);
    case kLog: return vm::log(x);
    case kLog1p: return vm::log1p(x);
    case kSigmoid: return vm::sigmoid(x);
    case kTanh: return vm::tanh(x);
    case kErf: return vm::erf(x);
    case kSin: return vm::sin(x);
    case kCos: return vm::cos(x);
    case kAtan: return vm::atan(x);
    case kErfinv: return vm::erfinv(x);
    case kErfc: return vm::erfc(x);
    case kI0: return vm::i0(x);
    case kExp2: return vm::exp2(x);
    case kExpm1: return vm::expm1(x);
    case kLog2: return vm::log2(x);
    case kLog10: return vm::log10(x);
    case kSinh: return vm::sinh(x);
    case kCosh: return vm::cosh(x);
    case kAsinh: return vm::asinh(x);
    case kAcosh: return vm::acosh(x);
    case kAtanh: return vm::atanh(x);
    case kGelu: return 0.5f * x * (1.0f + vm::erf(x * 0.70710678118654752440f));
    // x (1 + tanh(u)) / 2 = x sigmoid(2u): the same function, without 1 + tanh(u)'s
    // cancellation for negative x.
    case kGeluTanh:
      return x / (1.0f + vm::exp(-1.59576912160573071176f * (x + 0.044715f * x * x * x)));
  }
  return x;
}

inline bool has_vm_float(int code) {
  return code == kExp || code == kLog || code == kLog1p || code == kSigmoid || code == kTanh ||
         code == kErf || code == kSin || code == kCos || code == kAtan || code == kErfinv ||
         code == kErfc || code == kI0 || code == kGelu || code == kGeluTanh ||
         (code >= kSinh && code <= kLog10);
}

template <typename T>
PD_VM_INLINE T unary_value(int code, T x) {
  if constexpr (std::is_same<T, float>::value) {
    if (has_vm_float(code)) return unary_float(code, x);
  }
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
    case kRelu: return relu_of(x);  // common.h: NaN kept, vectorizes
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

// One loop per code so each is a tight, vectorizable loop. VB (vector bytes) only makes
// each vector build (below) its own instantiation.
template <typename T, int CODE, int VB>
PD_VM_INLINE void unary_loop(const T* x, T* y, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) y[i] = unary_value<T>(CODE, x[i]);
  if constexpr (std::is_same<T, float>::value && (CODE == kSin || CODE == kCos)) {
    // vm::sin and vm::cos reduce exactly only below kTrigLimit: the C library's exact
    // reduction for the (rare) larger arguments.
    for (int64_t i = begin; i < end; ++i)
      if (vm::abs(x[i]) >= vm::kTrigLimit && vm::abs(x[i]) < vm::kInf)
        y[i] = CODE == kSin ? std::sin(x[i]) : std::cos(x[i]);
  }
}

template <typename T, int VB>
PD_VM_INLINE void unary_range(int code, const T* x, T* y, int64_t b, int64_t e) {
  switch (code) {
#define PD_UNARY_CASE(C) case C: unary_loop<T, C, VB>(x, y, b, e); break;
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

// The vector builds of the float loops: AVX-512 and AVX2+FMA besides the package's SSE2
// baseline, picked at run time by vector_bytes() (common.h).
#ifdef PD_VECTOR_BUILDS
template <typename T>
__attribute__((target("avx512f,avx512dq,avx2,fma"))) void unary_range_avx512(
    int code, const T* x, T* y, int64_t b, int64_t e) {
  unary_range<T, 64>(code, x, y, b, e);
}
template <typename T>
__attribute__((target("avx2,fma"))) void unary_range_avx2(int code, const T* x, T* y,
                                                          int64_t b, int64_t e) {
  unary_range<T, 32>(code, x, y, b, e);
}
#endif

template <typename T>
void unary_range_any(int code, const T* x, T* y, int64_t b, int64_t e) {
#ifdef PD_VECTOR_BUILDS
  if constexpr (std::is_floating_point<T>::value) {
    switch (vector_bytes()) {
      case 64: return unary_range_avx512<T>(code, x, y, b, e);
      case 32: return unary_range_avx2<T>(code, x, y, b, e);
    }
  }
#endif
  unary_range<T, 16>(code, x, y, b, e);
}

// Integer dtypes take only the codes that need no float (checked before any loop runs).
void check_unary_dtype(int code, int dt, const char* op) {
  const bool is_float = dt == kFloat32 || dt == kFloat64;
  if (!is_float && code != kNeg && code != kAbs && code != kSquare && code != kSign &&
      code != kRelu)
    throw std::invalid_argument(std::string(op) + ": op needs a float dtype, received " +
                                dtype_name(dt));
}

void unary(int code, py::array x, py::array out) {
  // An unknown code must be refused here: unary_range throws it inside the parallel
  // region, where an exception ends the process.
  check_code(code, kUnaryCount, "unary");
  int dt = check_dtype(x, "unary", "x");
  check_array(x, "unary", "x", dt, -1, kRead);
  check_array(out, "unary", "out", dt, x.size(), kWrite);
  GilRelease nogil(x.size());
  PD_DISPATCH_NUMERIC(dt, "unary", {
    check_unary_dtype(code, dt, "unary");
    const scalar_t* xp = in_ptr<scalar_t>(x);
    scalar_t* yp = out_ptr<scalar_t>(out);
    parallel_chunks(x.size(), kParallelGrain,
                    [&](int64_t b, int64_t e) { unary_range_any<scalar_t>(code, xp, yp, b, e); });
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
PD_VM_INLINE T logaddexp_value(T a, T b) {
  if constexpr (std::is_same<T, float>::value) {  // branch-free, on vmath.h
    const float d = a - b, top = d > 0.0f ? a : b;
    const float y = top + vm::log1p(vm::exp(-vm::abs(d)));
    return a == b ? a + 0.693147180559945309417232121458176568f : d != d ? d : y;
  }
  if (a == b) return a + T(0.693147180559945309417232121458176568);
  T d = a - b;
  if (d > T(0)) return a + std::log1p(std::exp(-d));
  if (d <= T(0)) return b + std::log1p(std::exp(d));
  return d;
}

template <typename T>
PD_VM_INLINE T binary_value(int code, T a, T b) {
  switch (code) {
    case kLogaddexp: return logaddexp_value<T>(a, b);
    case kAtan2:
      if constexpr (std::is_same<T, float>::value) return vm::atan2(a, b);
      return T(std::atan2(a, b));
    case kHypot:
      if constexpr (std::is_same<T, float>::value) return vm::hypot(a, b);
      return T(std::hypot(a, b));
    case kNextafter:
      if constexpr (std::is_same<T, float>::value) return vm::nextafter(a, b);
      return T(std::nextafter(a, b));
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

// The inner loop, specialised on whether each operand moves (stride 1) or stays (0). VB
// (vector bytes) only makes each vector build its own instantiation.
template <typename T, int CODE, int VB = 16>
PD_VM_INLINE void binary_row(const T* a, int64_t sa, const T* b, int64_t sb, T* y, int64_t n) {
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

// The float transcendental codes also have vector builds (as the unary loops).
#ifdef PD_VECTOR_BUILDS
template <typename T, int CODE>
__attribute__((target("avx512f,avx512dq,avx2,fma"))) void binary_row_avx512(
    const T* a, int64_t sa, const T* b, int64_t sb, T* y, int64_t n) {
  binary_row<T, CODE, 64>(a, sa, b, sb, y, n);
}
template <typename T, int CODE>
__attribute__((target("avx2,fma"))) void binary_row_avx2(
    const T* a, int64_t sa, const T* b, int64_t sb, T* y, int64_t n) {
  binary_row<T, CODE, 32>(a, sa, b, sb, y, n);
}
#endif

template <typename T, int CODE>
inline void binary_row_any(const T* a, int64_t sa, const T* b, int64_t sb, T* y, int64_t n) {
#ifdef PD_VECTOR_BUILDS
  // Every float code: the fused kernel's blocks sit in L1, where the width of the vectors,
  // not memory, bounds even an add.
  if constexpr (std::is_floating_point<T>::value) {
    switch (vector_bytes()) {
      case 64: return binary_row_avx512<T, CODE>(a, sa, b, sb, y, n);
      case 32: return binary_row_avx2<T, CODE>(a, sa, b, sb, y, n);
    }
  }
#endif
  binary_row<T, CODE>(a, sa, b, sb, y, n);
}

template <typename T, int CODE>
void binary_typed(const Layout& L, const T* a, const T* b, T* y) {
  int last = L.ndim - 1;
  int64_t sa = L.strides[0][last], sb = L.strides[1][last];
  parallel_rows(L, [&](int64_t r0, int64_t r1) {
    for_rows<2>(L, r0, r1, [&](const int64_t* off, int64_t n, int64_t out_off) {
      binary_row_any<T, CODE>(a + off[0], sa, b + off[1], sb, y + out_off, n);
    });
  });
}

// Every binary code, for the switches that turn a runtime code into a template argument.
#define PD_BINARY_CODES(X)                                                              \
  X(kAdd) X(kSub) X(kMul) X(kDiv) X(kPow) X(kMaximum) X(kMinimum) X(kReluGrad) X(kAtan2)  \
  X(kHypot) X(kNextafter) X(kFmod) X(kRemainder) X(kFloorDiv) X(kBitAnd) X(kBitOr)        \
  X(kBitXor) X(kShiftLeft) X(kShiftRight) X(kGcd) X(kLcm) X(kLogaddexp)

template <typename T>
void binary_code(int code, const Layout& L, const T* a, const T* b, T* y) {
  switch (code) {
#define PD_BINARY_CASE(C) case C: binary_typed<T, C>(L, a, b, y); break;
    PD_BINARY_CODES(PD_BINARY_CASE)
#undef PD_BINARY_CASE
    default: throw std::invalid_argument("binary: unknown op code " + std::to_string(code));
  }
}

// One row of n elements (the fused kernel's blocks): binary_row_any for a runtime code.
template <typename T>
void binary_block(int code, const T* a, int64_t sa, const T* b, int64_t sb, T* y, int64_t n) {
  switch (code) {
#define PD_BINARY_CASE(C) case C: binary_row_any<T, C>(a, sa, b, sb, y, n); break;
    PD_BINARY_CODES(PD_BINARY_CASE)
#undef PD_BINARY_CASE
    default: break;  // codes are checked before any block runs
  }
}

// Codes that need a float, or an integer, dtype (checked before any loop runs).
void check_binary_dtype(int code, int dt, const char* op) {
  const bool is_float = dt == kFloat32 || dt == kFloat64;
  if (!is_float && (code == kAtan2 || code == kHypot || code == kNextafter || code == kLogaddexp))
    throw py::type_error(std::string(op) + ": op needs a float dtype, received " + dtype_name(dt));
  if (is_float && code >= kBitAnd && code <= kLcm)
    throw py::type_error(std::string(op) + ": op needs an integer dtype, received " +
                         dtype_name(dt));
}

void binary(int code, py::array a, py::array b, py::array out, py::array layout) {
  check_code(code, kBinaryCount, "binary");
  Layout L(layout, 2, "binary");
  int dt = check_dtype(a, "binary", "a");
  check_array(a, "binary", "a", dt, -1, kRead);
  check_array(b, "binary", "b", dt, -1, kRead);
  check_array(out, "binary", "out", dt, L.size, kWrite);
  require(L.reach(0) < a.size() && L.reach(1) < b.size(), "binary", "layout exceeds operand");
  check_binary_dtype(code, dt, "binary");
  GilRelease nogil(L.size);
  PD_DISPATCH_NUMERIC(dt, "binary", {
    binary_code<scalar_t>(code, L, in_ptr<scalar_t>(a), in_ptr<scalar_t>(b), out_ptr<scalar_t>(out));
  });
}

template <typename T>
PD_VM_INLINE bool compare_value(int code, T a, T b) {
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

// One row of n comparisons; sa, sb: 1 (moving) or 0 (broadcast). The code is a template
// argument: a switch inside the loop kept it scalar (twice the time of an add).
template <typename T, int CODE>
PD_VM_INLINE void compare_row_code(const T* a, int64_t sa, const T* b, int64_t sb, uint8_t* y,
                                   int64_t n) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = compare_value<T>(CODE, a[i], b[i]);
  } else if (sa == 1 && sb == 0) {
    const T bv = *b;
    for (int64_t i = 0; i < n; ++i) y[i] = compare_value<T>(CODE, a[i], bv);
  } else if (sa == 0 && sb == 1) {
    const T av = *a;
    for (int64_t i = 0; i < n; ++i) y[i] = compare_value<T>(CODE, av, b[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = compare_value<T>(CODE, a[i * sa], b[i * sb]);
  }
}

template <typename T>
PD_VM_INLINE void compare_rows(int code, const T* a, int64_t sa, const T* b, int64_t sb,
                               uint8_t* y, int64_t n) {
  switch (code) {
    case kGreater: return compare_row_code<T, kGreater>(a, sa, b, sb, y, n);
    case kGreaterEqual: return compare_row_code<T, kGreaterEqual>(a, sa, b, sb, y, n);
    case kLess: return compare_row_code<T, kLess>(a, sa, b, sb, y, n);
    case kLessEqual: return compare_row_code<T, kLessEqual>(a, sa, b, sb, y, n);
    case kEqual: return compare_row_code<T, kEqual>(a, sa, b, sb, y, n);
    case kNotEqual: return compare_row_code<T, kNotEqual>(a, sa, b, sb, y, n);
  }
}

// One row of n choices; sc, sa, sb: 1 (moving) or 0 (broadcast).
template <typename T>
PD_VM_INLINE void where_rows(const uint8_t* c, int64_t sc, const T* a, int64_t sa, const T* b,
                             int64_t sb, T* y, int64_t n) {
  if (sc == 1 && sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) y[i] = c[i] ? a[i] : b[i];
  } else if (sc == 1 && sa == 1 && sb == 0) {
    const T bv = *b;
    for (int64_t i = 0; i < n; ++i) y[i] = c[i] ? a[i] : bv;
  } else if (sc == 1 && sa == 0 && sb == 1) {
    const T av = *a;
    for (int64_t i = 0; i < n; ++i) y[i] = c[i] ? av : b[i];
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = c[i * sc] ? a[i * sa] : b[i * sb];
  }
}

#ifdef PD_VECTOR_BUILDS
template <typename T>
__attribute__((target("avx512f,avx512dq,avx512bw,avx2,fma"))) void compare_row_avx512(
    int code, const T* a, int64_t sa, const T* b, int64_t sb, uint8_t* y, int64_t n) {
  compare_rows<T>(code, a, sa, b, sb, y, n);
}
template <typename T>
__attribute__((target("avx2,fma"))) void compare_row_avx2(
    int code, const T* a, int64_t sa, const T* b, int64_t sb, uint8_t* y, int64_t n) {
  compare_rows<T>(code, a, sa, b, sb, y, n);
}
template <typename T>
__attribute__((target("avx512f,avx512dq,avx512bw,avx2,fma"))) void where_row_avx512(
    const uint8_t* c, int64_t sc, const T* a, int64_t sa, const T* b, int64_t sb, T* y,
    int64_t n) {
  where_rows<T>(c, sc, a, sa, b, sb, y, n);
}
template <typename T>
__attribute__((target("avx2,fma"))) void where_row_avx2(
    const uint8_t* c, int64_t sc, const T* a, int64_t sa, const T* b, int64_t sb, T* y,
    int64_t n) {
  where_rows<T>(c, sc, a, sa, b, sb, y, n);
}
#endif

// The widest build this CPU runs (vector_bytes(); avx512bw for the byte masks, which every
// AVX-512 CPU since Skylake-X has, else the AVX2 build).
inline int mask_vector_bytes() {
#ifdef PD_VECTOR_BUILDS
  static const int bytes = vector_bytes() == 64 && !__builtin_cpu_supports("avx512bw")
                               ? 32 : vector_bytes();
  return bytes;
#else
  return 16;
#endif
}

template <typename T>
void compare_row(int code, const T* a, int64_t sa, const T* b, int64_t sb, uint8_t* y,
                 int64_t n) {
#ifdef PD_VECTOR_BUILDS
  switch (mask_vector_bytes()) {
    case 64: return compare_row_avx512<T>(code, a, sa, b, sb, y, n);
    case 32: return compare_row_avx2<T>(code, a, sa, b, sb, y, n);
  }
#endif
  compare_rows<T>(code, a, sa, b, sb, y, n);
}

void compare(int code, py::array a, py::array b, py::array out, py::array layout) {
  check_code(code, kCompareCount, "compare");
  Layout L(layout, 2, "compare");
  int dt = check_dtype(a, "compare", "a");
  check_array(a, "compare", "a", dt, -1, kRead);
  check_array(b, "compare", "b", dt, -1, kRead);
  check_array(out, "compare", "out", kBool, L.size, kWrite);
  require(L.reach(0) < a.size() && L.reach(1) < b.size(), "compare", "layout exceeds operand");
  GilRelease nogil(L.size);
  PD_DISPATCH_ALL(dt, "compare", {
    const scalar_t* ap = in_ptr<scalar_t>(a);
    const scalar_t* bp = in_ptr<scalar_t>(b);
    uint8_t* yp = out_ptr<uint8_t>(out);
    int last = L.ndim - 1;
    int64_t sa = L.strides[0][last], sb = L.strides[1][last];
    parallel_rows(L, [&](int64_t r0, int64_t r1) {
      for_rows<2>(L, r0, r1, [&](const int64_t* off, int64_t n, int64_t o) {
        compare_row<scalar_t>(code, ap + off[0], sa, bp + off[1], sb, yp + o, n);
      });
    });
  });
}

template <typename T>
void where_row(const uint8_t* c, int64_t sc, const T* a, int64_t sa, const T* b, int64_t sb,
               T* y, int64_t n) {
#ifdef PD_VECTOR_BUILDS
  switch (mask_vector_bytes()) {
    case 64: return where_row_avx512<T>(c, sc, a, sa, b, sb, y, n);
    case 32: return where_row_avx2<T>(c, sc, a, sa, b, sb, y, n);
  }
#endif
  where_rows<T>(c, sc, a, sa, b, sb, y, n);
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
  GilRelease nogil(L.size);
  PD_DISPATCH_ALL(dt, "where", {
    const uint8_t* cp = in_ptr<uint8_t>(cond);
    const scalar_t* ap = in_ptr<scalar_t>(a);
    const scalar_t* bp = in_ptr<scalar_t>(b);
    scalar_t* yp = out_ptr<scalar_t>(out);
    int last = L.ndim - 1;
    int64_t sc = L.strides[0][last], sa = L.strides[1][last], sb = L.strides[2][last];
    parallel_rows(L, [&](int64_t r0, int64_t r1) {
      for_rows<3>(L, r0, r1, [&](const int64_t* off, int64_t n, int64_t o) {
        where_row<scalar_t>(cp + off[0], sc, ap + off[1], sa, bp + off[2], sb, yp + o, n);
      });
    });
  });
}

// The sign bit as a bit test: a shift of x's bits, which vectorizes (a shift and a narrowing
// per vector), where reading the sign of a zero with arithmetic needs a division.
template <typename T>
PD_VM_INLINE uint8_t sign_bit(T x) {
  if constexpr (std::is_same<T, uint8_t>::value) {
    return 0;  // bool
  } else {
    using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    static_assert(sizeof(T) == sizeof(Bits), "sign_bit: a 4- or 8-byte type");
    Bits u;
    std::memcpy(&u, &x, sizeof(T));
    return uint8_t(u >> (8 * sizeof(T) - 1));
  }
}

template <typename T, int VB>
PD_VM_INLINE void signbit_range(const T* x, uint8_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = sign_bit<T>(x[i]);
}
PD_VECTOR_VARIANTS(signbit_row, signbit_range, (const T* x, uint8_t* y, int64_t n), (x, y, n))

// One row of n predicates (codes are checked before any row runs).
template <typename T>
void predicate_row(int code, const T* x, uint8_t* y, int64_t n) {
  switch (code) {
    case kSignbit: return signbit_row<T>(x, y, n);
  }
}

void predicate(int code, py::array x, py::array out) {
  check_code(code, kPredicateCount, "predicate");
  int dt = check_dtype(x, "predicate", "x");
  check_array(x, "predicate", "x", dt, -1, kRead);
  check_array(out, "predicate", "out", kBool, x.size(), kWrite);
  GilRelease nogil(x.size());
  PD_DISPATCH_ALL(dt, "predicate", {
    const scalar_t* xp = in_ptr<scalar_t>(x);
    uint8_t* yp = out_ptr<uint8_t>(out);
    parallel_chunks(x.size(), kParallelGrain, [&](int64_t b, int64_t e) {
      predicate_row<scalar_t>(code, xp + b, yp + b, e - b);
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
    } else if constexpr (std::is_floating_point_v<From> && sizeof(To) == 1) {
      // A float beyond a byte's range is undefined behaviour converted directly; through
      // int64 it wraps modulo 256, as NumPy's astype does on x86.
      for (int64_t i = b; i < e; ++i) y[i] = static_cast<To>(static_cast<int64_t>(x[i]));
    } else {
      for (int64_t i = b; i < e; ++i) y[i] = static_cast<To>(x[i]);
    }
  });
}

// cast alone also reads and writes int8 and uint8, the storage dtypes of quantized weights
// (paddle/highlevel/quantizers.py): no other kernel takes them, and the graph lets no other
// op read them (paddle/lowlevel/graph.py, STORAGE_DTYPES). Numbered as NumPy numbers them.
constexpr int kCastInt8 = 1, kCastUint8 = 2;

int cast_dtype(const py::array& a, const char* arg) {
  const int num =
      py::detail::array_descriptor_proxy(py::detail::array_proxy(a.ptr())->descr)->type_num;
  if (num == kCastInt8 || num == kCastUint8) return num;  // one byte: no byte order
  const int dt = dtype_of(a);
  if (dt == kUnsupported || !native_byte_order(a.dtype()))
    throw py::type_error(arg_where("cast", arg) +
                         "expected an array of bool, int32, int64, float32 or float64 in "
                         "native byte order, received dtype " + numpy_dtype_name(a) +
                         " (cast also takes int8 and uint8)");
  return dt;
}

#define PD_DISPATCH_CAST(DTYPE, ...)                                                   \
  switch (DTYPE) {                                                                    \
    case kCastInt8: { using scalar_t = int8_t; __VA_ARGS__; break; }                  \
    case kCastUint8: { using scalar_t = uint8_t; __VA_ARGS__; break; }                \
    default: PD_DISPATCH_ALL(DTYPE, "cast", __VA_ARGS__);                             \
  }

void cast(py::array x, py::array out) {
  int from = cast_dtype(x, "x"), to = cast_dtype(out, "out");
  check_layout(x, "cast", "x", -1, kRead);
  check_layout(out, "cast", "out", x.size(), kWrite);
  GilRelease nogil(x.size());
  PD_DISPATCH_CAST(from, {
    using from_t = scalar_t;
    const from_t* xp = in_ptr<from_t>(x);
    PD_DISPATCH_CAST(to, { cast_loop<from_t, scalar_t>(xp, out_ptr<scalar_t>(out), x.size(), to == kBool); });
  });
}

// ---- fused elementwise programs (paddle/lowlevel/fusion/elementwise.py) -------------------
//
// A chain of elementwise ops run in one pass over memory: the output is walked in blocks of
// about kFusedBlock elements, and each block runs the instruction list on registers held in
// small per-thread buffers, with the same row loops as the single-op kernels above.
// Registers: the inputs first, then the temporaries, then the output. An input is full-size,
// a vector along the last axis (a bias) or a scalar, of the compute dtype T or bool. A
// comparison compares two T or two bools (logical_xor, logical_not), a where chooses
// between two T or two bools (logical_and, logical_or), a predicate (signbit) reads one T:
// bools are one byte, 0 or 1.
// A strided input is full-size but read in place from a wider array, element i at
// offset + i * step (a slice x[..., c] of x's last axis): each block gathers it into a
// tile first.
enum FusedKind { kFusedUnary, kFusedBinary, kFusedCompare, kFusedWhere, kFusedPredicate,
                 kFusedKindCount };
enum FusedShape { kFull, kLastAxis, kScalar, kStrided };
constexpr int64_t kFusedBlock = 1024;
constexpr int kFusedFields = 6;  // kind, code, dst, a, b, c

struct FusedSource {
  const char* p;
  int64_t stride;
};

// Checks the program against the registers' dtypes and shapes, so that nothing is left to
// check in the blocks (they run inside an OpenMP region). `is_bool` has one entry per
// register: the inputs' on entry, the others' filled in here.
void check_fused(const int64_t* prog, int64_t count, int inputs, int64_t temps,
                 std::vector<uint8_t>& is_bool, const std::vector<int64_t>& shape, int dt,
                 bool out_bool) {
  const char* op = "fused_elementwise";
  const int64_t out_reg = inputs + temps;
  std::vector<uint8_t> written(size_t(out_reg + 1), 0);
  for (int k = 0; k < inputs; ++k) written[k] = 1;
  auto source = [&](int64_t r, bool want_bool) {
    require(r >= 0 && r < out_reg && written[r], op, "reads a register not yet written");
    require(is_bool[r] == uint8_t(want_bool), op, "an operand's dtype does not fit");
  };
  auto bool_source = [&](int64_t r) {  // whether a comparison or where reads bools
    require(r >= 0 && r < out_reg && written[r], op, "reads a register not yet written");
    return is_bool[r] != 0;
  };
  require(count >= 1, op, "empty program");
  for (int64_t i = 0; i < count; ++i) {
    const int64_t* in = prog + i * kFusedFields;
    const int64_t kind = in[0], code = in[1], dst = in[2];
    require(kind >= 0 && kind < kFusedKindCount, op, "unknown instruction kind");
    require(dst >= inputs && dst <= out_reg, op, "writes an input register");
    require((dst == out_reg) == (i == count - 1), op, "only the last instruction writes out");
    if (kind == kFusedUnary) {
      check_code(int(code), kUnaryCount, op);
      check_unary_dtype(int(code), dt, op);
      source(in[3], false);
      require(in[3] >= inputs || shape[in[3]] == kFull || shape[in[3]] == kStrided, op,
              "a unary op of a broadcast input");
    } else if (kind == kFusedBinary) {
      check_code(int(code), kBinaryCount, op);
      check_binary_dtype(int(code), dt, op);
      source(in[3], false);
      source(in[4], false);
    } else if (kind == kFusedCompare) {
      check_code(int(code), kCompareCount, op);
      const bool bools = bool_source(in[3]);
      source(in[4], bools);
    } else if (kind == kFusedPredicate) {
      check_code(int(code), kPredicateCount, op);
      source(in[3], false);
      require(in[3] >= inputs || shape[in[3]] == kFull || shape[in[3]] == kStrided, op,
              "a predicate of a broadcast input");
    } else {
      source(in[3], true);
      const bool bools = bool_source(in[4]);
      source(in[5], bools);
    }
    const bool result_bool = kind == kFusedCompare || kind == kFusedPredicate ||
                             (kind == kFusedWhere && is_bool[in[4]]);
    // The blocks read each register's type from is_bool: a temporary keeps one.
    require(!written[dst] || is_bool[dst] == uint8_t(result_bool), op,
            "a temporary changes dtype");
    is_bool[dst] = result_bool;
    written[dst] = 1;
  }
  require(is_bool[out_reg] == uint8_t(out_bool), op, "the output's dtype does not fit");
}

// A comparison or a where on values of type V (the compute dtype T, or bool as uint8_t).
template <typename V>
void run_select(const int64_t* in, const std::vector<FusedSource>& reg, char* y, int64_t n) {
  const FusedSource& a = reg[in[3]];
  const FusedSource& b = reg[in[4]];
  if (in[0] == kFusedCompare) {
    compare_row<V>(int(in[1]), reinterpret_cast<const V*>(a.p), a.stride,
                   reinterpret_cast<const V*>(b.p), b.stride, reinterpret_cast<uint8_t*>(y), n);
    return;
  }
  const FusedSource& c = reg[in[5]];
  where_row<V>(reinterpret_cast<const uint8_t*>(a.p), a.stride, reinterpret_cast<const V*>(b.p),
               b.stride, reinterpret_cast<const V*>(c.p), c.stride, reinterpret_cast<V*>(y), n);
}

template <typename T>
void run_instruction(const int64_t* in, const std::vector<FusedSource>& reg,
                     const std::vector<uint8_t>& is_bool, char* y, int64_t n) {
  // Only the fields an instruction kind uses are read (check_fused checked those).
  const FusedSource& a = reg[in[3]];
  const int code = int(in[1]);
  switch (in[0]) {
    case kFusedUnary:
      unary_range_any<T>(code, reinterpret_cast<const T*>(a.p), reinterpret_cast<T*>(y), 0, n);
      break;
    case kFusedBinary: {
      const FusedSource& b = reg[in[4]];
      binary_block<T>(code, reinterpret_cast<const T*>(a.p), a.stride,
                      reinterpret_cast<const T*>(b.p), b.stride, reinterpret_cast<T*>(y), n);
      break;
    }
    case kFusedPredicate:
      predicate_row<T>(code, reinterpret_cast<const T*>(a.p), reinterpret_cast<uint8_t*>(y), n);
      break;
    default:  // the values compared, or chosen from: operand 0 of a comparison, 1 of a where
      if (is_bool[in[0] == kFusedCompare ? in[3] : in[4]]) {
        run_select<uint8_t>(in, reg, y, n);
      } else {
        run_select<T>(in, reg, y, n);
      }
  }
}

// n values of a strided input into its tile: tile[i] = src[(start + i) * step].
template <typename V>
inline void gather_strided(const char* src, int64_t start, int64_t step, char* tile, int64_t n) {
  const V* s = reinterpret_cast<const V*>(src) + start * step;
  V* t = reinterpret_cast<V*>(tile);
  for (int64_t i = 0; i < n; ++i) t[i] = s[i * step];
}

template <typename T>
void fused_blocks(const int64_t* prog, int64_t count, const std::vector<const char*>& in_ptrs,
                  const std::vector<int64_t>& shape, const std::vector<int64_t>& step,
                  const std::vector<uint8_t>& is_bool, int64_t temps, char* out, int64_t size,
                  int64_t last) {
  const int inputs = int(in_ptrs.size());
  const int64_t out_reg = inputs + temps;
  auto width = [&](int64_t r) { return int64_t(is_bool[r] ? 1 : sizeof(T)); };
  // Blocks of whole rows when rows are short (a last-axis vector is then tiled once per
  // thread), else pieces of one row (the vector is read in place).
  const bool whole_rows = last <= kFusedBlock;
  const int64_t rows_per = whole_rows ? kFusedBlock / last : 1;
  const int64_t block = whole_rows ? rows_per * last : kFusedBlock;
  const int64_t rows = size / last, pieces = whole_rows ? 1 : (last + block - 1) / block;
  const int64_t blocks = whole_rows ? (rows + rows_per - 1) / rows_per : rows * pieces;
  parallel_chunks(blocks, std::max<int64_t>(1, kParallelGrain / block), [&](int64_t b0,
                                                                            int64_t b1) {
    std::vector<T> scratch(size_t((temps + inputs) * block));
    char* temp = reinterpret_cast<char*>(scratch.data());
    char* tiles = temp + temps * block * int64_t(sizeof(T));
    for (int k = 0; k < inputs && whole_rows; ++k) {
      if (shape[k] != kLastAxis) continue;
      char* tile = tiles + k * block * int64_t(sizeof(T));
      for (int64_t r = 0; r < rows_per; ++r)
        std::memcpy(tile + r * last * width(k), in_ptrs[k], size_t(last * width(k)));
    }
    std::vector<FusedSource> reg(size_t(out_reg + 1));
    for (int64_t t = 0; t < temps; ++t)
      reg[inputs + t] = {temp + t * block * int64_t(sizeof(T)), 1};
    for (int64_t blk = b0; blk < b1; ++blk) {
      int64_t start = blk * block, n, col = 0;
      if (whole_rows) {
        n = std::min(block, size - start);
      } else {
        col = (blk % pieces) * block;
        start = (blk / pieces) * last + col;
        n = std::min(block, last - col);
      }
      for (int k = 0; k < inputs; ++k) {
        if (shape[k] == kFull) {
          reg[k] = {in_ptrs[k] + start * width(k), 1};
        } else if (shape[k] == kStrided) {
          char* tile = tiles + k * block * int64_t(sizeof(T));
          if (is_bool[k]) gather_strided<uint8_t>(in_ptrs[k], start, step[k], tile, n);
          else gather_strided<T>(in_ptrs[k], start, step[k], tile, n);
          reg[k] = {tile, 1};
        } else if (shape[k] == kScalar) {
          reg[k] = {in_ptrs[k], 0};
        } else if (whole_rows) {
          reg[k] = {tiles + k * block * int64_t(sizeof(T)), 1};
        } else {
          reg[k] = {in_ptrs[k] + col * width(k), 1};
        }
      }
      for (int64_t i = 0; i < count; ++i) {
        const int64_t* in = prog + i * kFusedFields;
        char* y = in[2] == out_reg ? out + start * width(out_reg) : const_cast<char*>(reg[in[2]].p);
        run_instruction<T>(in, reg, is_bool, y, n);
      }
    }
  });
}

// out = the program run over `inputs` (a list of arrays, each of dtype `dtype` or bool):
// `shapes` says how each input broadcasts (FusedShape), one int64 per input, or three
// (kind, offset, step: a kStrided input's element i is at offset + i * step; 0 and 1 for the
// others), `program` holds kFusedFields int64 per instruction, `temps` the temporaries'
// count, `last` the output's last axis.
void fused_elementwise(py::list inputs, py::array shapes, py::array program, int64_t temps,
                       int dtype, py::array out, int64_t last) {
  const char* op = "fused_elementwise";
  const int n_in = int(inputs.size());
  const int64_t* shape_p = check_spec(shapes, op, "shapes", -1);
  const bool triples = shapes.size() == 3 * int64_t(n_in) && n_in > 0;
  require(triples || shapes.size() == n_in, op, "expected one or three shape values per input");
  require(program.size() % kFusedFields == 0, op, "malformed program");
  const int64_t* prog = check_spec(program, op, "program", -1);
  const int64_t count = program.size() / kFusedFields;
  require(temps >= 0 && temps <= 256, op, "temporaries out of range");
  require(dtype == kFloat32 || dtype == kFloat64 || dtype == kInt32 || dtype == kInt64, op,
          "expected a float32, float64, int32 or int64 compute dtype");
  const int out_dt = check_dtype(out, op, "out");
  require(out_dt == dtype || out_dt == kBool, op, "the output's dtype does not fit");
  check_array(out, op, "out", out_dt, -1, kWrite);
  const int64_t size = out.size();
  require(last >= 1 && size % last == 0, op, "the last axis does not divide the output");
  std::vector<const char*> ptrs;
  const size_t n_inputs = static_cast<size_t>(n_in);
  std::vector<int64_t> shape(n_inputs), offset(n_inputs, 0), step(n_inputs, 1);
  for (int k = 0; k < n_in; ++k) {
    shape[k] = shape_p[triples ? 3 * k : k];
    if (triples) offset[k] = shape_p[3 * k + 1], step[k] = shape_p[3 * k + 2];
    require(shape[k] == kStrided ? offset[k] >= 0 && step[k] >= 1 && offset[k] < step[k]
                                 : offset[k] == 0 && step[k] == 1,
            op, "a strided input needs 0 <= offset < step (others 0 and 1)");
  }
  std::vector<uint8_t> is_bool(size_t(n_in + temps + 1), 0);
  std::vector<py::array> held;  // keeps each input alive while its pointer is used
  for (int k = 0; k < n_in; ++k) {
    py::handle h = inputs[k];
    require(py::isinstance<py::array>(h), op, "inputs must be arrays");
    py::array a = py::reinterpret_borrow<py::array>(h);
    const int dt = check_dtype(a, op, "input", k);
    require(dt == dtype || dt == kBool, op, "an input's dtype does not fit");
    require(shape[k] >= kFull && shape[k] <= kStrided, op, "unknown input shape kind");
    const int64_t want = shape[k] == kFull ? size : shape[k] == kLastAxis ? last
                         : shape[k] == kScalar ? 1 : size_mul(size, step[k], op);
    check_array(a, op, "input", dt, want, kRead, k);
    is_bool[k] = dt == kBool;
    ptrs.push_back(static_cast<const char*>(a.data()) + offset[k] * (dt == kBool ? 1 : a.itemsize()));
    held.push_back(a);
  }
  check_fused(prog, count, n_in, temps, is_bool, shape, dtype, out_dt == kBool);
  if (size == 0) return;
  char* y = static_cast<char*>(out.mutable_data());
  GilRelease nogil(size);  // (after every Python object is read; `held` outlives it)
  PD_DISPATCH_NUMERIC(dtype, op, {
    fused_blocks<scalar_t>(prog, count, ptrs, shape, step, is_bool, temps, y, size, last);
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
  m.def("predicate", &predicate,
        py::arg("code"), array_arg("x"), array_arg("out"),
        "bool y = p(x) elementwise; code from the Predicate table (0: signbit)");
  m.def("cast", &cast,
        array_arg("x"), array_arg("out"),
        "y = x converted to y's dtype");
  m.def("fused_elementwise", &fused_elementwise,
        py::arg("inputs"), array_arg("shapes"), array_arg("program"), py::arg("temps"),
        py::arg("dtype"), array_arg("out"), py::arg("last"),
        "out = a fused program of elementwise instructions, one pass over memory");
  // For eager calls: the same kernels making their output (csrc/fresh.h).
  def_fresh<&unary, 2>(m, "unary_fresh", "unary(code, x, out) making out like `like`");
  def_fresh<&binary, 3>(m, "binary_fresh", "binary(code, a, b, out, layout) making out");
  def_fresh<&compare, 3>(m, "compare_fresh", "compare(code, a, b, out, layout) making out");
  def_fresh<&where, 3>(m, "where_fresh", "where(cond, a, b, out, layout) making out");
  def_fresh<&cast, 1>(m, "cast_fresh", "cast(x, out) making out like `like`");
}

}  // namespace paddle
