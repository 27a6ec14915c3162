// Color space conversions of images with 3 channels on the last axis (paddle/lowlevel/ops/
// color.py): each pixel read once and written once, with the arithmetic of the ops'
// compositions step by step (the same roundings: no contraction into fused multiply-adds,
// whatever the build's -ffp-contract; NaN through maximum and minimum as their kernels).
#include "common.h"
#include "vmath.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace paddle {
namespace {

#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")

enum Conversion { kRgbToHsv, kHsvToRgb, kConversionCount };

// The elementwise kernels' maximum and minimum (NaN wins when it is the first operand).
template <typename T>
PD_VM_INLINE T max_nan(T a, T b) { return ((a > b) | (a != a)) ? a : b; }
template <typename T>
PD_VM_INLINE T min_nan(T a, T b) { return ((a < b) | (a != a)) ? a : b; }

// The pixels are taken in blocks of kColorBlock: their channels split into three arrays,
// converted with plain loops over the arrays (selects, no branches: they vectorize), and
// interleaved again.
constexpr int64_t kColorBlock = 256;

template <typename T>
PD_VM_INLINE void rgb_to_hsv_block(const T* x, T* y, int64_t n) {
  T r[kColorBlock], g[kColorBlock], b[kColorBlock];
  const T eps = std::numeric_limits<T>::epsilon();
  for (int64_t i = 0; i < n; ++i) {
    r[i] = std::fabs(x[3 * i]) < eps ? T(0) : x[3 * i];
    g[i] = std::fabs(x[3 * i + 1]) < eps ? T(0) : x[3 * i + 1];
    b[i] = std::fabs(x[3 * i + 2]) < eps ? T(0) : x[3 * i + 2];
  }
  // (in short loops: GCC vectorizes each, not one loop of them all)
  T value[kColorBlock], span[kColorBlock], norm[kColorBlock];
  for (int64_t i = 0; i < n; ++i) value[i] = max_nan(r[i], g[i]);
  for (int64_t i = 0; i < n; ++i) value[i] = max_nan(value[i], b[i]);
  for (int64_t i = 0; i < n; ++i) span[i] = min_nan(r[i], g[i]);
  for (int64_t i = 0; i < n; ++i) span[i] = value[i] - min_nan(span[i], b[i]);
  for (int64_t i = 0; i < n; ++i) norm[i] = T(1) / (T(6) * (span[i] > T(0) ? span[i] : T(1)));
  for (int64_t i = 0; i < n; ++i) {
    const T from_g = norm[i] * (b[i] - r[i]) + T(2.0 / 6.0);
    const T from_b = norm[i] * (r[i] - g[i]) + T(4.0 / 6.0);
    const T from_r = norm[i] * (g[i] - b[i]);
    T hue = value[i] == g[i] ? from_g : from_b;
    hue = value[i] == r[i] ? from_r : hue;
    r[i] = (span[i] > T(0) ? hue : T(0)) + (hue < T(0) ? T(1) : T(0));
  }
  for (int64_t i = 0; i < n; ++i) {
    const T safe_value = value[i] > T(0) ? value[i] : T(1);
    g[i] = value[i] > T(0) ? span[i] / safe_value : T(0);
    b[i] = value[i];
  }
  for (int64_t i = 0; i < n; ++i) {
    y[3 * i] = r[i];
    y[3 * i + 1] = g[i];
    y[3 * i + 2] = b[i];
  }
}

template <typename T>
PD_VM_INLINE void hsv_to_rgb_pixel(const T* x, T* y) {
  const T hue = x[0], saturation = x[1], value = x[2];
  const T dh = (hue - std::floor(hue)) * T(6);
  auto clip = [](T v) { return min_nan(max_nan(v, T(0)), T(1)); };
  const T dr = clip(std::fabs(dh - T(3)) - T(1));
  const T dg = clip(T(2) - std::fabs(dh - T(2)));
  const T db = clip(T(2) - std::fabs(dh - T(4)));
  const T rest = T(1) - saturation;
  y[0] = value * (rest + saturation * dr);
  y[1] = value * (rest + saturation * dg);
  y[2] = value * (rest + saturation * db);
}

template <typename T, int CODE>
PD_VM_INLINE void convert_range(const T* x, T* y, int64_t p0, int64_t p1) {
  if (CODE == kRgbToHsv) {
    for (int64_t p = p0; p < p1; p += kColorBlock)
      rgb_to_hsv_block<T>(x + 3 * p, y + 3 * p, std::min(kColorBlock, p1 - p));
  } else {
    for (int64_t p = p0; p < p1; ++p) hsv_to_rgb_pixel<T>(x + 3 * p, y + 3 * p);
  }
}

#ifdef PD_VECTOR_BUILDS
template <typename T, int CODE>
__attribute__((target("avx512f,avx512dq,avx2,fma"))) void convert_avx512(const T* x, T* y,
                                                                         int64_t p0, int64_t p1) {
  convert_range<T, CODE>(x, y, p0, p1);
}
template <typename T, int CODE>
__attribute__((target("avx2,fma"))) void convert_avx2(const T* x, T* y, int64_t p0, int64_t p1) {
  convert_range<T, CODE>(x, y, p0, p1);
}
#endif

// (noinline: inlined into the caller, its loops would take the caller's -ffp-contract)
template <typename T, int CODE>
__attribute__((noinline)) void convert_any(const T* x, T* y, int64_t p0, int64_t p1) {
#ifdef PD_VECTOR_BUILDS
  switch (vector_bytes()) {
    case 64: return convert_avx512<T, CODE>(x, y, p0, p1);
    case 32: return convert_avx2<T, CODE>(x, y, p0, p1);
  }
#endif
  convert_range<T, CODE>(x, y, p0, p1);
}

#pragma GCC pop_options

// out = x converted (code: Conversion), both of 3 * pixels values, float32 or float64.
void color_convert(int code, py::array x, py::array out) {
  const char* op = "color_convert";
  check_code(code, kConversionCount, op);
  const int dt = check_dtype(x, op, "x");
  require(dt == kFloat32 || dt == kFloat64, op, "expected float32 or float64 images");
  require(x.size() % 3 == 0, op, "expected 3 channels on the last axis");
  check_array(x, op, "x", dt, -1, kRead);
  check_array(out, op, "out", dt, x.size(), kWrite);
  const int64_t pixels = x.size() / 3;
  GilRelease nogil(x.size());
  PD_DISPATCH_FLOAT(dt, op, {
    const scalar_t* xp = in_ptr<scalar_t>(x);
    scalar_t* yp = out_ptr<scalar_t>(out);
    parallel_chunks(pixels, kParallelGrain / 3, [&](int64_t p0, int64_t p1) {
      if (code == kRgbToHsv) convert_any<scalar_t, kRgbToHsv>(xp, yp, p0, p1);
      else convert_any<scalar_t, kHsvToRgb>(xp, yp, p0, p1);
    });
  });
}

}  // namespace

void init_color(py::module_& m) {
  m.def("color_convert", &color_convert, py::arg("code"), array_arg("x"), array_arg("out"),
        "out = x's pixels converted: code 0 RGB to HSV, 1 HSV to RGB (csrc/color.cpp)");
}

}  // namespace paddle
