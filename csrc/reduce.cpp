// Reductions over one block of axes: the plan views the input as [outer, reduced, inner]
// (axes merged where they are adjacent; non-adjacent axes become several passes).
#include "common.h"
#include "fresh.h"

#include <limits>

namespace paddle {
namespace {

enum Reduce { kSum, kMax, kMin, kReduceCount };

template <typename T, int CODE>
inline T combine(T acc, T x) {
  if (CODE == kSum) return acc + x;
  // NaN wins, as in NumPy (x != x only for NaN).
  if (CODE == kMax) return (x > acc || x != x) ? x : acc;
  return (x < acc || x != x) ? x : acc;
}

template <typename T, int CODE>
inline T identity() {
  if (CODE == kSum) return T(0);
  // -inf / inf for floats: the max of a row of -inf is -inf, not the lowest finite value
  if (CODE == kMax)
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::max();
}

template <typename T, int CODE>
void reduce_typed(const T* x, T* y, int64_t outer, int64_t red, int64_t inner, double scale) {
  const T sc = T(scale);
  int64_t total = outer * red * inner;
  if (inner == 1) {
    // Rows of contiguous values: several accumulators keep the adds independent.
    auto rows = [&](int64_t o) {
      const T* row = x + o * red;
      T acc[8];
      for (int k = 0; k < 8; ++k) acc[k] = identity<T, CODE>();
      int64_t r = 0;
      for (; r + 8 <= red; r += 8)
        for (int k = 0; k < 8; ++k) acc[k] = combine<T, CODE>(acc[k], row[r + k]);
      for (; r < red; ++r) acc[0] = combine<T, CODE>(acc[0], row[r]);
      T v = acc[0];
      for (int k = 1; k < 8; ++k) v = combine<T, CODE>(v, acc[k]);
      y[o] = CODE == kSum ? v * sc : v;
    };
    const int threads = max_threads();
    if (total >= kParallelGrain && outer > 1 && threads > 1) {
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int64_t o = 0; o < outer; ++o) rows(o);
    } else {  // no parallel region at all: entering one with if(false) costs ~0.2 us
      for (int64_t o = 0; o < outer; ++o) rows(o);
    }
    return;
  }
  // Reduce across rows: accumulate whole rows of `inner` values, split over inner.
  for (int64_t o = 0; o < outer; ++o) {
    const T* block = x + o * red * inner;
    T* out = y + o * inner;
    parallel_chunks(inner, total >= kParallelGrain ? 256 : inner + 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = identity<T, CODE>();
      for (int64_t r = 0; r < red; ++r) {
        const T* row = block + r * inner;
        for (int64_t i = b; i < e; ++i) out[i] = combine<T, CODE>(out[i], row[i]);
      }
      if (CODE == kSum && scale != 1.0)
        for (int64_t i = b; i < e; ++i) out[i] *= sc;
    });
  }
}

void reduce(int code, py::array x, py::array out, int64_t outer, int64_t red, int64_t inner,
            double scale) {
  check_code(code, kReduceCount, "reduce");
  int dt = check_dtype(x, "reduce", "x");
  check_array(x, "reduce", "x", dt, size_of({outer, red, inner}, "reduce"), kRead);
  check_array(out, "reduce", "out", dt, size_of({outer, inner}, "reduce"), kWrite);
  require(red > 0 || code == kSum, "reduce", "max/min over an empty axis");
  GilRelease nogil(x.size());
  PD_DISPATCH_NUMERIC(dt, "reduce", {
    const scalar_t* xp = in_ptr<scalar_t>(x);
    scalar_t* yp = out_ptr<scalar_t>(out);
    switch (code) {
      case kSum: reduce_typed<scalar_t, kSum>(xp, yp, outer, red, inner, scale); break;
      case kMax: reduce_typed<scalar_t, kMax>(xp, yp, outer, red, inner, scale); break;
      case kMin: reduce_typed<scalar_t, kMin>(xp, yp, outer, red, inner, scale); break;
      default: throw std::invalid_argument("reduce: unknown op code");
    }
  });
}

// Index of the largest value along the reduced axis (first one on ties, or the first NaN,
// as NumPy).
void argmax(py::array x, py::array out, int64_t outer, int64_t red, int64_t inner) {
  int dt = check_dtype(x, "argmax", "x");
  check_array(x, "argmax", "x", dt, size_of({outer, red, inner}, "argmax"), kRead);
  check_array(out, "argmax", "out", kInt64, size_of({outer, inner}, "argmax"), kWrite);
  require(red > 0, "argmax", "empty axis");
  GilRelease nogil(x.size());
  PD_DISPATCH_NUMERIC(dt, "argmax", {
    const scalar_t* xp = in_ptr<scalar_t>(x);
    int64_t* yp = out_ptr<int64_t>(out);
    bool par = outer * red * inner >= kParallelGrain;
    const int threads = max_threads();
    _Pragma("omp parallel for schedule(static) if (par) num_threads(threads)")
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const scalar_t* p = xp + o * red * inner + i;
        int64_t best = 0;
        scalar_t bv = p[0];
        for (int64_t r = 1; r < red; ++r)
          if (p[r * inner] > bv || (p[r * inner] != p[r * inner] && bv == bv)) {
            bv = p[r * inner];
            best = r;
          }
        yp[o * inner + i] = best;
      }
  });
}

}  // namespace

void init_reduce(py::module_& m) {
  def_fresh<&reduce, 2>(m, "reduce_fresh", "reduce(code, x, out, ...) making out (csrc/fresh.h)");
  m.def("reduce", &reduce,
        py::arg("code"), array_arg("x"), array_arg("out"), py::arg("outer"), py::arg("red"),
        py::arg("inner"), py::arg("scale"),
        "sum (times scale) / max / min over the middle of [outer, red, inner]");
  m.def("argmax", &argmax,
        array_arg("x"), array_arg("out"), py::arg("outer"), py::arg("red"), py::arg("inner"),
        "int64 index of the maximum over the middle of [outer, red, inner]");
}

}  // namespace paddle
