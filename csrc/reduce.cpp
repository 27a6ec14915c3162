// Reductions over one block of axes: the plan views the input as [outer, reduced, inner]
// (axes merged where they are adjacent; non-adjacent axes become several passes).
#include "common.h"
#include "fresh.h"
#include "vmath.h"

#include <cstring>
#include <limits>
#include <type_traits>

namespace paddle {
namespace {

enum Reduce { kSum, kMax, kMin, kProd, kReduceCount };

// Branch-free, so that the loops below vectorize: `x > acc` and `x != x` are two compares
// and one blend in a vector build (`||` kept them scalar).
template <typename T, int CODE>
inline T combine(T acc, T x) {
  if (CODE == kSum) return acc + x;
  if (CODE == kProd) return acc * x;
  // NaN wins, as in NumPy (x != x only for NaN); a NaN accumulator stays NaN (no compare
  // with it is true).
  if (CODE == kMax) return ((x > acc) | (x != x)) ? x : acc;
  return ((x < acc) | (x != x)) ? x : acc;
}

template <typename T, int CODE>
inline T identity() {
  if (CODE == kSum) return T(0);
  if (CODE == kProd) return T(1);
  // -inf / inf for floats: the max of a row of -inf is -inf, not the lowest finite value
  if (CODE == kMax)
    return std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                : std::numeric_limits<T>::lowest();
  return std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                              : std::numeric_limits<T>::max();
}

// Partial results per row: the sum keeps its 8 (its rounding is pinned by tests), max, min
// and prod take 16, an AVX-512 register of float32. They are combined in a fixed order, so a
// row's result does not depend on the vector build or the thread.
template <int CODE>
constexpr int lanes() { return CODE == kSum ? 8 : 16; }

// max / min of one float row in a GCC vector of 16 lanes, NaN tracked in a mask beside:
// over an array of accumulators GCC kept the NaN-keeping select scalar and branching, on a
// vector type it emits vmaxps / vminps and one unordered compare per 16 values. max and min
// do not round: the result is the same in any order.
template <typename T, int CODE>
PD_VM_INLINE T row_extreme(const T* row, int64_t red) {
  typedef T V __attribute__((vector_size(16 * sizeof(T))));
  V acc = V{} + identity<T, CODE>();
  decltype(acc > acc) nan = {};
  int64_t r = 0;
  for (; r + 16 <= red; r += 16) {
    V v;
    std::memcpy(&v, row + r, sizeof(V));
    acc = CODE == kMax ? (v > acc ? v : acc) : (v < acc ? v : acc);
    nan |= v != v;
  }
  T out = identity<T, CODE>();
  bool bad = false;
  for (int k = 0; k < 16; ++k) {
    out = combine<T, CODE>(out, acc[k]);
    bad |= nan[k] != 0;
  }
  for (; r < red; ++r) out = combine<T, CODE>(out, row[r]);
  return bad ? std::numeric_limits<T>::quiet_NaN() : out;
}

// sum / prod of one row in a GCC vector of lanes<CODE>() partial results: lane k takes the
// row's values k, k + L, ... in order, the tail goes to lane 0, and the lanes are combined
// in order (the sum's order as its 8 scalar accumulators had it, so the same rounding).
template <typename T, int CODE>
PD_VM_INLINE T row_lanes(const T* row, int64_t red) {
  constexpr int L = lanes<CODE>();
  typedef T V __attribute__((vector_size(L * sizeof(T))));
  V acc = V{} + identity<T, CODE>();
  int64_t r = 0;
  for (; r + L <= red; r += L) {
    V v;
    std::memcpy(&v, row + r, sizeof(V));
    acc = CODE == kSum ? acc + v : acc * v;
  }
  T lane[L];
  std::memcpy(lane, &acc, sizeof(V));
  for (; r < red; ++r) lane[0] = combine<T, CODE>(lane[0], row[r]);
  T out = lane[0];
  for (int k = 1; k < L; ++k) out = combine<T, CODE>(out, lane[k]);
  return out;
}

// Rows [o0, o1) of contiguous values. VB: the vector build (common.h), only a label.
template <typename T, int CODE, int VB>
PD_VM_INLINE void rows_range(const T* x, T* y, int64_t o0, int64_t o1, int64_t red, T sc) {
  constexpr int L = lanes<CODE>();
  for (int64_t o = o0; o < o1; ++o) {
    const T* row = x + o * red;
    if constexpr ((CODE == kMax || CODE == kMin) && std::is_floating_point<T>::value) {
      y[o] = row_extreme<T, CODE>(row, red);
      continue;
    } else if constexpr (CODE == kSum || CODE == kProd) {
      const T v = row_lanes<T, CODE>(row, red);
      y[o] = CODE == kSum ? v * sc : v;
      continue;
    }
    T acc[L];
    for (int k = 0; k < L; ++k) acc[k] = identity<T, CODE>();
    int64_t r = 0;
    for (; r + L <= red; r += L)
      for (int k = 0; k < L; ++k) acc[k] = combine<T, CODE>(acc[k], row[r + k]);
    for (; r < red; ++r) acc[0] = combine<T, CODE>(acc[0], row[r]);
    T v = acc[0];
    for (int k = 1; k < L; ++k) v = combine<T, CODE>(v, acc[k]);
    y[o] = CODE == kSum ? v * sc : v;
  }
}

// Columns [b, e) of one [red, inner] block: whole rows accumulated into out.
template <typename T, int CODE, int VB>
PD_VM_INLINE void cols_range(const T* block, T* out, int64_t b, int64_t e, int64_t red,
                             int64_t inner, T sc, bool scaled) {
  for (int64_t i = b; i < e; ++i) out[i] = identity<T, CODE>();
  for (int64_t r = 0; r < red; ++r) {
    const T* row = block + r * inner;
    for (int64_t i = b; i < e; ++i) out[i] = combine<T, CODE>(out[i], row[i]);
  }
  if (CODE == kSum && scaled)
    for (int64_t i = b; i < e; ++i) out[i] *= sc;
}

#ifdef PD_VECTOR_BUILDS
template <typename T, int CODE>
__attribute__((target("avx512f,avx512dq,avx2,fma"))) void rows_avx512(
    const T* x, T* y, int64_t o0, int64_t o1, int64_t red, T sc) {
  rows_range<T, CODE, 64>(x, y, o0, o1, red, sc);
}
template <typename T, int CODE>
__attribute__((target("avx2,fma"))) void rows_avx2(const T* x, T* y, int64_t o0, int64_t o1,
                                                   int64_t red, T sc) {
  rows_range<T, CODE, 32>(x, y, o0, o1, red, sc);
}
template <typename T, int CODE>
__attribute__((target("avx512f,avx512dq,avx2,fma"))) void cols_avx512(
    const T* block, T* out, int64_t b, int64_t e, int64_t red, int64_t inner, T sc,
    bool scaled) {
  cols_range<T, CODE, 64>(block, out, b, e, red, inner, sc, scaled);
}
template <typename T, int CODE>
__attribute__((target("avx2,fma"))) void cols_avx2(const T* block, T* out, int64_t b,
                                                   int64_t e, int64_t red, int64_t inner,
                                                   T sc, bool scaled) {
  cols_range<T, CODE, 32>(block, out, b, e, red, inner, sc, scaled);
}
#endif

// The widest vector build this CPU runs (common.h vector_bytes), for rows and for columns.
template <typename T, int CODE>
void rows_picked(const T* x, T* y, int64_t o0, int64_t o1, int64_t red, T sc) {
#ifdef PD_VECTOR_BUILDS
  switch (vector_bytes()) {
    case 64: return rows_avx512<T, CODE>(x, y, o0, o1, red, sc);
    case 32: return rows_avx2<T, CODE>(x, y, o0, o1, red, sc);
  }
#endif
  rows_range<T, CODE, 16>(x, y, o0, o1, red, sc);
}

template <typename T, int CODE>
void cols_picked(const T* block, T* out, int64_t b, int64_t e, int64_t red, int64_t inner, T sc,
              bool scaled) {
#ifdef PD_VECTOR_BUILDS
  switch (vector_bytes()) {
    case 64: return cols_avx512<T, CODE>(block, out, b, e, red, inner, sc, scaled);
    case 32: return cols_avx2<T, CODE>(block, out, b, e, red, inner, sc, scaled);
  }
#endif
  cols_range<T, CODE, 16>(block, out, b, e, red, inner, sc, scaled);
}

template <typename T, int CODE>
void reduce_typed(const T* x, T* y, int64_t outer, int64_t red, int64_t inner, double scale) {
  const T sc = T(scale);
  int64_t total = outer * red * inner;
  if (inner == 1) {
    const int threads = max_threads();
    if (total >= kParallelGrain && outer > 1 && threads > 1) {
      parallel_chunks(outer, 2,
                      [&](int64_t b, int64_t e) { rows_picked<T, CODE>(x, y, b, e, red, sc); });
    } else {  // no parallel region at all: entering one with if(false) costs ~0.2 us
      rows_picked<T, CODE>(x, y, 0, outer, red, sc);
    }
    return;
  }
  // Reduce across rows: accumulate whole rows of `inner` values, split over inner.
  for (int64_t o = 0; o < outer; ++o) {
    const T* block = x + o * red * inner;
    T* out = y + o * inner;
    parallel_chunks(inner, total >= kParallelGrain ? 256 : inner + 1, [&](int64_t b, int64_t e) {
      cols_picked<T, CODE>(block, out, b, e, red, inner, sc, scale != 1.0);
    });
  }
}

void reduce(int code, py::array x, py::array out, int64_t outer, int64_t red, int64_t inner,
            double scale) {
  check_code(code, kReduceCount, "reduce");
  int dt = check_dtype(x, "reduce", "x");
  check_array(x, "reduce", "x", dt, size_of({outer, red, inner}, "reduce"), kRead);
  check_array(out, "reduce", "out", dt, size_of({outer, inner}, "reduce"), kWrite);
  require(red > 0 || code == kSum || code == kProd, "reduce", "max/min over an empty axis");
  GilRelease nogil(x.size());
  if (dt == kBool) {
    // any / all: max / min of the bytes (0 or 1, and a non-empty axis: the identities, 0
    // and 255, never reach the result), without casting to int32 and back.
    require(code == kMax || code == kMin, "reduce", "bool takes max or min only");
    const uint8_t* xp = in_ptr<uint8_t>(x);
    uint8_t* yp = out_ptr<uint8_t>(out);
    if (code == kMax) reduce_typed<uint8_t, kMax>(xp, yp, outer, red, inner, 1.0);
    else reduce_typed<uint8_t, kMin>(xp, yp, outer, red, inner, 1.0);
    return;
  }
  PD_DISPATCH_NUMERIC(dt, "reduce", {
    const scalar_t* xp = in_ptr<scalar_t>(x);
    scalar_t* yp = out_ptr<scalar_t>(out);
    switch (code) {
      case kSum: reduce_typed<scalar_t, kSum>(xp, yp, outer, red, inner, scale); break;
      case kMax: reduce_typed<scalar_t, kMax>(xp, yp, outer, red, inner, scale); break;
      case kMin: reduce_typed<scalar_t, kMin>(xp, yp, outer, red, inner, scale); break;
      case kProd: reduce_typed<scalar_t, kProd>(xp, yp, outer, red, inner, scale); break;
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
        "sum (times scale) / max / min / prod (bool: max / min) over the middle of [outer, red, inner]");
  m.def("argmax", &argmax,
        array_arg("x"), array_arg("out"), py::arg("outer"), py::arg("red"), py::arg("inner"),
        "int64 index of the maximum over the middle of [outer, red, inner]");
}

}  // namespace paddle
