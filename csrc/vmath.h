// Vectorizable float32 transcendental functions: exp, exp2, expm1, log, log2, log10,
// log1p, tanh, sigmoid, sinh, cosh, asinh, acosh, atanh, erf, erfc, erfinv, i0, sin,
// cos, atan, atan2, and hypot and nextafter (the unary and binary kernels build
// sigmoid and gelu on them; softplus, composed of ops, runs on exp and log1p).
//
// std::exp and friends are scalar calls into the C library: a loop over them runs one
// element at a time. These are branch-free (every "if" is a select the compiler turns into
// a blend), use only +, *, /, sqrt, float <-> int32 conversions and bit operations, and are
// always inlined, so a plain loop over them vectorizes: with 16 floats a vector under the
// AVX-512 builds (elementwise.cpp picks the widest build the CPU runs, as the taps path of
// the convolutions does). Each is a polynomial or rational approximation on a reduced
// range (Cephes's single-precision coefficients for exp, log, tanh, sin, cos, atan and
// erfc, and its Chebyshev series for i0; Eigen's/XLA's rational erf; Giles's
// erfinv), within a few float32 ulps of the exact value over the whole range, with C's
// results at the edges: 0, -0, denormals, infinities and NaN (tests/lowlevel/ops/
// test_vmath.py checks them against float64 references on dense grids).
//
// float64 keeps the C library (each function here is for float only).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>

#define PD_VM_INLINE __attribute__((always_inline)) inline

namespace paddle {
namespace vm {

PD_VM_INLINE int32_t bits(float x) { int32_t i; std::memcpy(&i, &x, 4); return i; }
PD_VM_INLINE float from_bits(int32_t i) { float x; std::memcpy(&x, &i, 4); return x; }
PD_VM_INLINE float abs(float x) { return from_bits(bits(x) & 0x7fffffff); }
// x with the sign of s.
PD_VM_INLINE float copysign(float x, float s) {
  return from_bits((bits(x) & 0x7fffffff) | (bits(s) & int32_t(0x80000000u)));
}
// x rounded to the nearest integer (halves to even) for |x| < 2^22: adding 1.5 * 2^23
// pushes the fraction out of the mantissa.
PD_VM_INLINE float round(float x) { return (x + 12582912.0f) - 12582912.0f; }
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// 2^n for an integer n in [-252, 254], as two normal factors (so results in the denormal
// range round once, in the last multiplication).
PD_VM_INLINE float scale2(float y, int32_t n) {
  const int32_t half = n >> 1;
  return y * from_bits((half + 127) << 23) * from_bits((n - half + 127) << 23);
}

// e^r - 1 for |r| <= ln2 / 2 (a little beyond is fine): r + r^2 P(r), P of degree 5.
PD_VM_INLINE float expm1_reduced(float r) {
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  return p * r * r + r;
}
PD_VM_INLINE float exp_reduced(float r) { return expm1_reduced(r) + 1.0f; }

// e^c = m 2^n for c in [-160, 160]: c = n ln2 + r with |r| <= ln2 / 2 (ln2 in two parts,
// so n ln2 is exact), m = e^r by a degree-7 polynomial. Callers that scale e^c apply 2^n
// last (scale2), so that a result in range stays finite, or rounds once into the
// denormals, where e^c alone would overflow or underflow (i0, erfc).
struct ExpParts {
  float m;
  int32_t n;
};
PD_VM_INLINE ExpParts exp_parts(float c) {
  const float n = round(c * 1.44269504088896341f);
  const float r = (c - n * 0.693359375f) - n * -2.12194440e-4f;
  return {exp_reduced(r), int32_t(n)};
}

// e^x: exp_parts, times 2^n.
PD_VM_INLINE float exp(float x) {
  float c = x > -104.0f ? x : -104.0f;  // also maps NaN to a number; fixed at the end
  c = c < 89.0f ? c : 89.0f;
  const ExpParts e = exp_parts(c);
  float y = scale2(e.m, e.n);
  y = x > 88.72283935546875f ? kInf : y;
  y = x < -103.97207708f ? 0.0f : y;
  return x != x ? x : y;
}

// 2^x: x = n + f with |f| <= 1/2 (exact), 2^f = e^(f ln2), times 2^n: integers give
// powers of two exactly.
PD_VM_INLINE float exp2(float x) {
  float c = x > -152.0f ? x : -152.0f;
  c = c < 129.0f ? c : 129.0f;
  const float n = round(c);
  float y = scale2(exp_reduced((c - n) * 0.693147180559945309f), int32_t(n));
  y = x >= 128.0f ? kInf : y;
  y = x < -151.0f ? 0.0f : y;
  return x != x ? x : y;
}

// e^x - 1 without the cancellation near 0: x = n ln2 + r as exp, then
// 2^n (e^r - 1) + (2^n - 1), where 2^n - 1 is exact for the n that matter (|n| <= 24);
// beyond, e^x - 1 itself (2^n alone would overflow for n = 128).
PD_VM_INLINE float expm1(float x) {
  float c = x > -104.0f ? x : -104.0f;
  c = c < 89.0f ? c : 89.0f;
  const float n = round(c * 1.44269504088896341f);
  const float r = (c - n * 0.693359375f) - n * -2.12194440e-4f;
  const float m = expm1_reduced(r);
  const float two_n = scale2(1.0f, int32_t(n < 24.0f ? n : 24.0f));
  float y = n <= 24.0f ? m * two_n + (two_n - 1.0f) : scale2(m + 1.0f, int32_t(n)) - 1.0f;
  y = x > 88.72283935546875f ? kInf : y;
  y = x == 0.0f ? x : y;  // -0 stays -0
  return x != x ? x : y;
}

// log x = e ln2 + log(m) for x = m 2^e with m in [sqrt(1/2), sqrt(2)): `e`, and
// log(m) as f + f^3 P(f) - f^2/2 (f = m - 1), so that log2 and log10 scale
// the two parts apart (powers of two and of ten come out exact). Denormals are scaled by
// 2^23 first; zero, negatives, infinities and NaN are the callers'.
struct LogParts {
  float e, f, fzp, half_z;  // log(m) = f + (fzp - half_z)
};
PD_VM_INLINE LogParts log_parts(float x) {
  // Every select below is between floats: a bool turned into an int (e -= low) stopped
  // GCC from vectorizing loops that call log after exp.
  const bool tiny = x < 1.17549435e-38f;
  const float s = tiny ? x * 8388608.0f : x;
  const int32_t i = bits(s);
  float e = float(((i >> 23) & 0xff) - 126);  // s = m 2^e with m in [1/2, 1)
  const float m = from_bits((i & 0x007fffff) | 0x3f000000);
  const bool low = m < 0.707106781186547524f;
  e = low ? e - 1.0f : e;
  e = tiny ? e - 23.0f : e;
  const float f = (low ? m + m : m) - 1.0f;
  const float z = f * f;
  float p = 7.0376836292e-2f;
  p = p * f - 1.1514610310e-1f;
  p = p * f + 1.1676998740e-1f;
  p = p * f - 1.2420140846e-1f;
  p = p * f + 1.4249322787e-1f;
  p = p * f - 1.6668057665e-1f;
  p = p * f + 2.0000714765e-1f;
  p = p * f - 2.4999993993e-1f;
  p = p * f + 3.3333331174e-1f;
  return {e, f, f * z * p, 0.5f * z};
}

// log's edges: +inf, -inf at 0, NaN below 0 and for NaN.
PD_VM_INLINE float log_edges(float x, float y) {
  y = x == kInf ? kInf : y;
  y = x == 0.0f ? -kInf : y;
  y = x < 0.0f ? kNaN : y;
  return x != x ? x : y;
}

// log x: log(m) + e ln2 (ln2 in two parts).
PD_VM_INLINE float log(float x) {
  const LogParts p = log_parts(x);
  const float y = (p.f + (p.fzp + p.e * -2.12194440e-4f - p.half_z)) + p.e * 0.693359375f;
  return log_edges(x, y);
}

// log2 x: e + log(m) / ln2 (e is exact: powers of two give integers).
PD_VM_INLINE float log2(float x) {
  const LogParts p = log_parts(x);
  const float lm = p.f + (p.fzp - p.half_z);
  const float y = p.e + (lm * 1.925963e-8f + lm * 1.44269502162933349609f);
  return log_edges(x, y);
}

// log10 x: e log10(2) + log(m) log10(e), the constants in two parts (log10(2)'s first
// part has 12 bits, so that e times it is exact).
PD_VM_INLINE float log10(float x) {
  const LogParts p = log_parts(x);
  const float lm = p.f + (p.fzp - p.half_z);
  const float y = ((p.e * 4.605039e-06f + lm * -1.010305e-08f) +
                   lm * 0.43429449200630187988f) + p.e * 0.301025390625f;
  return log_edges(x, y);
}

// log(1 + x) without the rounding of 1 + x: log(u) for u = 1 + x, corrected by
// (x - (u - 1)) / u, the part of x that u lost.
PD_VM_INLINE float log1p(float x) {
  const float u = 1.0f + x;
  float y = log(u) + (x - (u - 1.0f)) / u;
  y = u == 1.0f ? x : y;  // |x| below half an ulp of 1 (and -0 stays -0)
  y = x == kInf ? kInf : y;
  y = x == -1.0f ? -kInf : y;
  return x != x ? x : y;
}

// tanh: x + x^3 P(x^2) for |x| < 0.625, else 1 - 2 / (e^2|x| + 1) with x's sign.
PD_VM_INLINE float tanh(float x) {
  const float a = abs(x);
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * a + a;
  const float big = 1.0f - 2.0f / (exp(a + a) + 1.0f);
  return copysign(a < 0.625f ? small : big, x);  // -0 stays -0
}

// 1 / (1 + e^-x), as e^x / (1 + e^x) for negative x (where e^-x would overflow long
// before the result leaves the denormals).
PD_VM_INLINE float sigmoid(float x) {
  const float e = exp(-abs(x));
  return (x < 0.0f ? e : 1.0f) / (1.0f + e);
}

// sinh and cosh from t = e^(|x|/2) (halving is exact; e^|x| = t t overflows only where
// the result does): (t t -+ 1 / (t t)) / 2. sinh below 1 in magnitude: x + x^3 P(x^2)
// (Cephes's sinhf), which has no cancellation. Signs: sinh odd (-0 stays -0), cosh even.
PD_VM_INLINE float sinh(float x) {
  const float a = abs(x), t = exp(0.5f * a), u = 1.0f / t;
  const float big = (0.5f * t) * t - (0.5f * u) * u;
  const float z = a * a;
  float p = 2.03721912945e-4f;
  p = p * z + 8.33028376239e-3f;
  p = p * z + 1.66667160211e-1f;
  const float small = p * z * a + a;
  return copysign(a < 1.0f ? small : big, x);  // (NaN: stays NaN)
}
PD_VM_INLINE float cosh(float x) {
  const float a = abs(x), t = exp(0.5f * a), u = 1.0f / t;
  return (0.5f * t) * t + (0.5f * u) * u;
}

// asinh: x + x^3 P(x^2) below 1/2 in magnitude (Cephes's asinhf), log(a + sqrt(a^2 + 1))
// for a = |x| above (no cancellation there), log(a) + ln2 beyond 2^28 (where a^2 would
// overflow and 1 / (4 a^2) is below float32's resolution); x's sign.
PD_VM_INLINE float asinh(float x) {
  const float a = abs(x), z = a * a;
  float p = 2.0122003309e-2f;
  p = p * z - 4.2699340972e-2f;
  p = p * z + 7.4847586088e-2f;
  p = p * z - 1.6666288134e-1f;
  const float small = p * z * a + a;
  const bool huge = a >= 268435456.0f;
  const float s = huge ? 1.0f : a;  // in range on both sides
  const float big = log(huge ? a : s + __builtin_sqrtf(s * s + 1.0f)) +
                    (huge ? 0.693147180559945309f : 0.0f);
  return copysign(a < 0.5f ? small : big, x);
}

// acosh: log1p(d + sqrt(d (a + 1))) with d = x - 1 (exact near 1: no cancellation), log(x)
// + ln2 beyond 2^28; NaN below 1.
PD_VM_INLINE float acosh(float x) {
  const float s = x < 268435456.0f ? x : 1.0f;
  const float d = s - 1.0f;
  const float small = log1p(d + __builtin_sqrtf(d * (s + 1.0f)));
  const float y = x < 268435456.0f ? small : log(x) + 0.693147180559945309f;
  return x < 1.0f ? kNaN : y;
}

// atanh: log1p(2a / (1 - a)) / 2 for a = |x| (1 - a is exact from 1/2 on): inf at 1, NaN
// beyond; x's sign.
PD_VM_INLINE float atanh(float x) {
  const float a = abs(x);
  const float y = 0.5f * log1p((a + a) / (1.0f - a));
  return a > 1.0f ? kNaN : copysign(y, x);
}

// erf: x P(x^2) / Q(x^2) on [-4, 4] (erf is +-1 in float32 beyond), Eigen's and XLA's
// rational approximation.
PD_VM_INLINE float erf(float x) {
  float c = x > -4.0f ? x : -4.0f;
  c = c < 4.0f ? c : 4.0f;
  const float z = c * c;
  float p = -2.72614225801306e-10f;
  p = p * z + 2.77068142495902e-08f;
  p = p * z - 2.10102402082508e-06f;
  p = p * z - 5.69250639462346e-05f;
  p = p * z - 7.34990630326855e-04f;
  p = p * z - 2.95459980854025e-03f;
  p = p * z - 1.60960333262415e-02f;
  float q = -1.45660718464996e-05f;
  q = q * z - 2.13374055278905e-04f;
  q = q * z - 1.68282697438203e-03f;
  q = q * z - 7.37332916720468e-03f;
  q = q * z - 1.42647390514189e-02f;
  const float y = c * (p / q);  // p / q first: c * p would lose denormal c's digits
  return x != x ? x : y;
}

// erfc: 1 - erf(x) for |x| < 1 (erf(x) < 0.85 there: the subtraction costs a few ulps at
// most, as XLA's); beyond, e^(-x^2) R(1/x^2) / |x| with Cephes's erfcf coefficients (one
// set on [1, 2), one from 2 on), 2 minus that for x <= -1. No cancellation for large x:
// e^(-x^2) is e^(-h^2) e^(-(x - h)(x + h)) for h = x cut to 12 bits, so that h^2 is exact
// and the rounding of x^2 (amplified by x^2 in the exponential) never happens; the power
// of two of e^(-h^2) is applied last, so results in the denormals round once.
PD_VM_INLINE float erfc(float x) {
  const float a = abs(x);
  // erfc(10.5) is below half the smallest denormal; NaN takes 10.5 (fixed at the end).
  const float c = a < 1.0f ? 1.0f : (a < 10.5f ? a : 10.5f);
  const float q = 1.0f / c, z = q * q;
  float p = 2.326819970068386e-2f;  // 1 <= c < 2
  p = p * z - 1.387039388740657e-1f;
  p = p * z + 3.687424674597105e-1f;
  p = p * z - 5.824733027278666e-1f;
  p = p * z + 6.210004621745983e-1f;
  p = p * z - 4.944515323274145e-1f;
  p = p * z + 3.404879937665872e-1f;
  p = p * z - 2.741127028184656e-1f;
  p = p * z + 5.638259427386472e-1f;
  float r = -1.047766399936249e+1f;  // c >= 2
  r = r * z + 1.297719955372516e+1f;
  r = r * z - 7.495518717768503e+0f;
  r = r * z + 2.921019019210786e+0f;
  r = r * z - 1.015265279202700e+0f;
  r = r * z + 4.218463358204948e-1f;
  r = r * z - 2.820767439740514e-1f;
  r = r * z + 5.641895067754075e-1f;
  const float h = from_bits(bits(c) & int32_t(0xfffff000u));
  const ExpParts e = exp_parts(-(h * h));
  const float tail = exp_reduced(-((c - h) * (c + h)));  // |(c - h)(c + h)| < 0.09
  const float big = scale2(e.m * (tail * (q * (c < 2.0f ? p : r))), e.n);
  const float y = a < 1.0f ? 1.0f - erf(x) : (x < 0.0f ? 2.0f - big : big);
  return x != x ? x : y;
}

// I0, the modified Bessel function of the first kind: Cephes's Chebyshev series of
// e^-a I0(a) for a = |x|, on [0, 8] in a / 2 - 2 and beyond 8 in 32 / a - 2 (times
// 1 / sqrt(a)), with the float32 share of the coefficients (the highest orders dropped add
// up to below 1e-9). The large-argument series is padded with leading zeros (Clenshaw's
// sums stay 0 through them), so that one loop runs either series, picked per element. e^a
// is applied as exp_parts' mantissa and power of two, the power last: I0 stays finite up
// to 91.9, where e^a alone overflows at 88.7. (I1 keeps the C library: its series, of
// e^-a I1(a) / a, cancels near 8 and loses 4 bits in float32.)
constexpr int kI0Terms = 20;
constexpr float kI0Small[kI0Terms] = {
    -5.18979560163526290666e-10f, 2.65982372468238665035e-9f, -1.30002500998624804212e-8f,
    6.04699502254191894932e-8f, -2.67079385394061173391e-7f, 1.11738753912010371815e-6f,
    -4.41673835845875056359e-6f, 1.64484480707288970893e-5f, -5.75419501008210370398e-5f,
    1.88502885095841655729e-4f, -5.76375574538582365885e-4f, 1.63947561694133579842e-3f,
    -4.32430999505057594430e-3f, 1.05464603945949983183e-2f, -2.37374148058994688156e-2f,
    4.93052842396707084878e-2f, -9.49010970480476444210e-2f, 1.71620901522208775349e-1f,
    -3.04682672343198398683e-1f, 6.76795274409476084995e-1f};
constexpr float kI0Large[kI0Terms] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    3.39623202570838634515e-9f, 2.26666899049817806459e-8f, 2.04891858946906374183e-7f,
    2.89137052083475648297e-6f, 6.88975834691682398426e-5f, 3.36911647825569408990e-3f,
    8.04490411014108831608e-1f};

PD_VM_INLINE float i0(float x) {
  const float ax = abs(x);
  const float a = ax < 95.0f ? ax : 95.0f;  // I0(95) is far beyond float32
  const bool small = a <= 8.0f;
  const float big_a = a > 8.0f ? a : 8.0f;  // (NaN: 95 then; fixed at the end)
  const float t = small ? 0.5f * a - 2.0f : 32.0f / big_a - 2.0f;
  float b0 = 0.0f, b1 = 0.0f, b2 = 0.0f;
#pragma GCC unroll 32
  for (int k = 0; k < kI0Terms; ++k) {
    b2 = b1;
    b1 = b0;
    b0 = t * b1 - b2 + (small ? kI0Small[k] : kI0Large[k]);
  }
  const float s = 0.5f * (b0 - b2);
  const ExpParts e = exp_parts(a);
  const float y = scale2(e.m * (small ? s : s / __builtin_sqrtf(big_a)), e.n);
  return x != x ? x : y;
}

// erfinv: Giles's single-precision approximation ("Approximating the erfinv function", GPU
// Computing Gems, 2011): a polynomial in w = -log(1 - y^2), one for w < 5, one in sqrt(w)
// beyond; +-inf at +-1, NaN outside [-1, 1].
PD_VM_INLINE float erfinv(float y) {
  const float w = -log((1.0f - y) * (1.0f + y));
  const float a = w - 2.5f;
  float p = 2.81022636e-08f;
  p = p * a + 3.43273939e-07f;
  p = p * a - 3.5233877e-06f;
  p = p * a - 4.39150654e-06f;
  p = p * a + 0.00021858087f;
  p = p * a - 0.00125372503f;
  p = p * a - 0.00417768164f;
  p = p * a + 0.246640727f;
  p = p * a + 1.50140941f;
  const float b = __builtin_sqrtf(w < 5.0f ? 5.0f : w) - 3.0f;  // in range on both sides
  float q = -0.000200214257f;
  q = q * b + 0.000100950558f;
  q = q * b + 0.00134934322f;
  q = q * b - 0.00367342844f;
  q = q * b + 0.00573950773f;
  q = q * b - 0.0076224613f;
  q = q * b + 0.00943887047f;
  q = q * b + 1.00167406f;
  q = q * b + 2.83297682f;
  float r = (w < 5.0f ? p : q) * y;
  r = abs(y) == 1.0f ? copysign(kInf, y) : r;
  return (abs(y) > 1.0f || y != y) ? kNaN : r;
}

// sin and cos share one reduction: x = q pi/2 + r, |r| <= pi/4 (pi/2 in three parts),
// then sin(r) or cos(r) by quadrant. Exact enough for |x| < 8192; callers recompute larger
// arguments with the C library (vm::kTrigLimit), whose reduction is exact for all x.
constexpr float kTrigLimit = 8192.0f;
PD_VM_INLINE float sin_cos(float x, int32_t shift) {
  const float c = abs(x) < kTrigLimit ? x : 0.0f;  // NaN and large x: any in-range value
  const float qf = round(c * 0.636619772367581343f);
  const float r = ((c - qf * 1.5703125f) - qf * 4.837512969970703125e-4f) -
                  qf * 7.54978995489188216e-8f;
  const int32_t q = int32_t(qf) + shift;  // cos(x) = sin(x + pi/2)
  const float z = r * r;
  float s = -1.9515295891e-4f;
  s = s * z + 8.3321608736e-3f;
  s = s * z - 1.6666654611e-1f;
  s = s * z * r + r;
  float k = 2.443315711809948e-5f;
  k = k * z - 1.388731625493765e-3f;
  k = k * z + 4.166664568298827e-2f;
  k = k * z * z - 0.5f * z + 1.0f;
  float y = (q & 1) ? k : s;
  y = from_bits(bits(y) ^ int32_t((uint32_t(q) & 2u) << 30));  // quadrants 2, 3: negated
  y = (shift == 0 && x == 0.0f) ? x : y;  // sin(-0) = -0
  return (x != x || abs(x) == kInf) ? kNaN : y;
}
PD_VM_INLINE float sin(float x) { return sin_cos(x, 0); }
PD_VM_INLINE float cos(float x) { return sin_cos(x, 1); }

// atan on [0, inf]: reduced to |t| <= tan(pi/8) by atan(x) = pi/4 + atan((x - 1)/(x + 1))
// or pi/2 + atan(-1/x), then t + t^3 P(t^2).
PD_VM_INLINE float atan_positive(float x) {
  const bool big = x > 2.414213562373095f, mid = x > 0.4142135623730950f;
  const float num = big ? -1.0f : mid ? x - 1.0f : x;
  const float den = big ? x : mid ? x + 1.0f : 1.0f;
  const float t = num / den;
  const float base = big ? 1.570796326794896619f : mid ? 0.785398163397448310f : 0.0f;
  const float z = t * t;
  float p = 8.05374449538e-2f;
  p = p * z - 1.38776856032e-1f;
  p = p * z + 1.99777106478e-1f;
  p = p * z - 3.33329491539e-1f;
  return base + (p * z * t + t);
}
PD_VM_INLINE float atan(float x) {
  const float y = copysign(atan_positive(abs(x)), x);
  return x != x ? x : y;
}

// atan2(y, x): atan of min/max of |y|, |x| (in [0, 1]), then mirrored into the quadrant:
// pi/2 - a when |y| > |x|, pi - a when x is negative (-0 included), y's sign. C's results
// for zeros and infinities (both infinite: pi/4 or 3pi/4).
PD_VM_INLINE float atan2(float y, float x) {
  const float ay = abs(y), ax = abs(x);
  const bool steep = ay > ax;
  const float lo = steep ? ax : ay, hi = steep ? ay : ax;
  float t = lo / hi;
  t = hi == 0.0f ? 0.0f : t;
  t = lo == kInf ? 1.0f : t;  // both infinite
  float a = atan_positive(t);
  a = steep ? 1.570796326794896619f - a : a;
  a = bits(x) < 0 ? 3.141592653589793238f - a : a;
  const float r = copysign(a, y);
  return (x != x || y != y) ? x + y : r;
}

// hypot(a, b) = big sqrt(1 + (small / big)^2), so that nothing overflows or underflows on
// the way; C's results at the edges: an infinite operand gives inf (even beside a NaN),
// else a NaN gives NaN, two zeros give 0.
PD_VM_INLINE float hypot(float a, float b) {
  const float x = abs(a), y = abs(b);
  const float big = x > y ? x : y, small = x > y ? y : x;
  const float r = small / (big == 0.0f ? 1.0f : big);
  float h = big * __builtin_sqrtf(1.0f + r * r);
  h = big == 0.0f ? 0.0f : h;
  h = (x != x || y != y) ? kNaN : h;
  return (x == kInf || y == kInf) ? kInf : h;
}

// The float after a in the direction of b, on the bits: one step of the integer that holds
// a's magnitude, up when moving away from zero, down when towards it; from a zero, the
// smallest denormal with b's sign; a NaN operand gives NaN, a == b gives b.
PD_VM_INLINE float nextafter(float a, float b) {
  const int32_t i = bits(a);
  const bool away = (a < b) == (a > 0.0f);  // (a is not 0 here)
  float y = from_bits(away ? i + 1 : i - 1);
  y = a == 0.0f ? copysign(1.40129846e-45f, b) : y;
  y = a == b ? b : y;
  return (a != a || b != b) ? a + b : y;
}

}  // namespace vm
}  // namespace paddle
