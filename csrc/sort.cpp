// Ordering and scans along one axis of x viewed as [outer, n, inner]: argsort (stable,
// NaN last either way, as NumPy's sort of x and of -x), cumulative
// sum/product, the adjacent difference (diff), and take_along_axis with its adjoint; and
// searchsorted, a binary search per value in a sorted 1-D sequence.
#include "common.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

namespace paddle {
namespace {

enum Cumulate { kCumSum, kCumProd, kCumulateCount };

template <typename T>
inline bool is_nan(T v) { return v != v; }

// Whether position a comes before position b of `row`: by value (NaN last), ties by
// position, so that a partial sort gives the same first k as the stable full sort.
template <typename T>
struct Before {
  const T* row;
  bool descending;
  bool operator()(int64_t a, int64_t b) const {
    const T u = row[a], v = row[b];
    if (is_nan(u) || is_nan(v)) return is_nan(u) == is_nan(v) ? a < b : is_nan(v);
    if (u != v) return descending ? u > v : u < v;
    return a < b;
  }
};

// out[o, :, i] = the first k positions of the stable order of x[o, :, i] (k = n: all of
// it, by a full sort; k < n: a partial sort, for top_k).
void argsort(py::array x, py::array out, int64_t outer, int64_t n, int64_t inner,
             bool descending, int64_t k) {
  const char* op = "argsort";
  int dt = check_dtype(x, op, "x");
  int64_t total = size_of({outer, n, inner}, op);
  require(k >= 0 && k <= n, op, "k must lie in [0, n]");
  check_array(x, op, "x", dt, total, kRead);
  check_array(out, op, "out", kInt64, size_of({outer, k, inner}, op), kWrite);
  if (total == 0 || k == 0) return;  // (and no loop over an outer * inner of empty rows)
  PD_DISPATCH_NUMERIC(dt, op, {
    const scalar_t* xp = in_ptr<scalar_t>(x);
    int64_t* yp = out_ptr<int64_t>(out);
    bool par = total >= kParallelGrain && outer * inner > 1;
    const int threads = max_threads();
    _Pragma("omp parallel num_threads(threads) if (par)")
    {
      std::vector<int64_t> order(n);
      std::vector<scalar_t> row(n);
      _Pragma("omp for schedule(static)")
      for (int64_t oi = 0; oi < outer * inner; ++oi) {
        int64_t o = oi / inner, i = oi % inner;
        const scalar_t* p = xp + o * n * inner + i;
        for (int64_t r = 0; r < n; ++r) row[r] = p[r * inner];
        std::iota(order.begin(), order.end(), int64_t(0));
        Before<scalar_t> before{row.data(), descending};
        if (k < n)
          std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        else
          std::sort(order.begin(), order.end(), before);  // ties by position: stable
        int64_t* q = yp + o * k * inner + i;
        for (int64_t r = 0; r < k; ++r) q[r * inner] = order[r];
      }
    }
  });
}

template <typename T>
void cumulate_typed(int code, const T* x, T* y, int64_t outer, int64_t n, int64_t inner) {
  int64_t total = outer * n * inner;
  bool par = total >= kParallelGrain && outer * inner > 1;
  const int threads = max_threads();
#pragma omp parallel for schedule(static) if (par) num_threads(threads)
  for (int64_t oi = 0; oi < outer * inner; ++oi) {
    int64_t o = oi / inner, i = oi % inner;
    const T* p = x + o * n * inner + i;
    T* q = y + o * n * inner + i;
    T acc = code == kCumSum ? T(0) : T(1);
    for (int64_t r = 0; r < n; ++r) {
      acc = code == kCumSum ? acc + p[r * inner] : acc * p[r * inner];
      q[r * inner] = acc;
    }
  }
}

// Running sum (code 0) or product (code 1) along the middle of [outer, n, inner].
void cumulate(int code, py::array x, py::array out, int64_t outer, int64_t n, int64_t inner) {
  const char* op = "cumulate";
  check_code(code, kCumulateCount, op);
  int dt = check_dtype(x, op, "x");
  int64_t total = size_of({outer, n, inner}, op);
  check_array(x, op, "x", dt, total, kRead);
  check_array(out, op, "out", dt, total, kWrite);
  if (total == 0) return;
  PD_DISPATCH_NUMERIC(dt, op, {
    cumulate_typed<scalar_t>(code, in_ptr<scalar_t>(x), out_ptr<scalar_t>(out), outer, n,
                             inner);
  });
}

// out[o, j, i] = x[o, j + 1, i] - x[o, j, i] for j < n - 1, x viewed as [outer, n, inner]:
// in a block of x, out[t] = x[t + inner] - x[t], one loop that vectorizes (no sliced copies).
void diff(py::array x, py::array out, int64_t outer, int64_t n, int64_t inner) {
  const char* op = "diff";
  int dt = check_dtype(x, op, "x");
  require(n >= 1, op, "empty axis");
  check_array(x, op, "x", dt, size_of({outer, n, inner}, op), kRead);
  check_array(out, op, "out", dt, size_of({outer, n - 1, inner}, op), kWrite);
  const int64_t span = (n - 1) * inner;  // out's values per block (checked: no overflow)
  GilRelease nogil(x.size());
  PD_DISPATCH_NUMERIC(dt, op, {
    const scalar_t* xp = in_ptr<scalar_t>(x);
    scalar_t* yp = out_ptr<scalar_t>(out);
    auto block = [&](int64_t o, int64_t t0, int64_t t1) {
      const scalar_t* s = xp + o * n * inner;
      scalar_t* d = yp + o * span;
      for (int64_t t = t0; t < t1; ++t) d[t] = s[t + inner] - s[t];
    };
    const int64_t grain = outer * span >= kParallelGrain ? 2 : std::numeric_limits<int64_t>::max();
    if (outer == 1) {  // one block (diff along the first axis): split it
      parallel_chunks(span, grain == 2 ? kParallelGrain / 4 : grain,
                      [&](int64_t b, int64_t e) { block(0, b, e); });
    } else {
      parallel_chunks(outer, grain, [&](int64_t b, int64_t e) {
        for (int64_t o = b; o < e; ++o) block(o, 0, span);
      });
    }
  });
}

// The IndexError for the index v at position i outside [0, n) ([-n, n) with wrap).
[[noreturn]] void outside_along(int64_t v, int64_t i, int64_t n, bool wrap, const char* op) {
  throw py::index_error(std::string(op) + ": index " + std::to_string(v) + " at position " +
                        std::to_string(i) + " is outside [" + (wrap ? "-" : "") +
                        (wrap ? std::to_string(n) : std::string("0")) + ", " +
                        std::to_string(n) + ")");
}

// Names the first index outside [0, n) ([-n, n) with wrap) of idx viewed as [outer, k,
// inner] (int64 without wrap through common.h's first_outside, the others by one loop).
template <typename I>
void check_along(const I* ip, int64_t count, int64_t n, bool wrap, const char* op) {
  int64_t i = -1;
  if constexpr (std::is_same<I, int64_t>::value) {
    if (!wrap) i = first_outside(ip, count, n);
  }
  if (i < 0 && (wrap || !std::is_same<I, int64_t>::value)) {
    const int64_t low = wrap ? -n : 0;
    for (int64_t at = 0; at < count; ++at)
      if (int64_t(ip[at]) < low || int64_t(ip[at]) >= n) { i = at; break; }
  }
  if (i >= 0) outside_along(int64_t(ip[i]), i, n, wrap, op);
}

// The indices' dtype: int32 (as Keras gives them) or int64, read as they are (no cast).
int index_dtype(const py::array& idx, const char* op) {
  const int it = check_dtype(idx, op, "idx");
  if (it != kInt32 && it != kInt64)
    throw py::type_error(std::string(op) + ": expected int32 or int64 indices, received " +
                         dtype_name(it));
  return it;
}

// out[o, j, i] = x[o, idx[o, j, i], i]: x is [outer, n, inner], idx and out [outer, k, inner];
// with wrap, a negative index counts from the end (+ n). One pass: each index is wrapped,
// checked and read at once (no separate pass over the indices); a chunk stops at its first
// index outside, and the first of all is raised after the loop.
template <typename I>
void take_along_typed(py::array& x, const I* ip, py::array& out, int dt, int64_t count,
                      int64_t n, int64_t k, int64_t inner, bool wrap, const char* op) {
  std::atomic<int64_t> first_bad{count};
  const int64_t shift = wrap ? n : 0;
  PD_DISPATCH_ALL(dt, op, {
    const scalar_t* xp = in_ptr<scalar_t>(x);
    scalar_t* yp = out_ptr<scalar_t>(out);
    // Each chunk finds its (o, i) once and counts on: two divisions per element cost
    // more than the copy.
    parallel_chunks(count, kParallelGrain, [&](int64_t b, int64_t e) {
      int64_t o = b / (k * inner), j = (b / inner) % k, i = b % inner;
      for (int64_t at = b; at < e; ++at) {
        int64_t v = int64_t(ip[at]);
        v += v < 0 ? shift : 0;
        if (uint64_t(v) >= uint64_t(n)) {
          int64_t seen = first_bad.load();
          while (at < seen && !first_bad.compare_exchange_weak(seen, at)) {}
          return;
        }
        yp[at] = xp[(o * n + v) * inner + i];
        if (++i == inner) {
          i = 0;
          if (++j == k) { j = 0; ++o; }
        }
      }
    });
  });
  const int64_t bad = first_bad.load();
  if (bad < count) outside_along(int64_t(ip[bad]), bad, n, wrap, op);
}

void take_along_axis(py::array x, py::array idx, py::array out, int64_t outer, int64_t n,
                     int64_t k, int64_t inner, bool wrap) {
  const char* op = "take_along_axis";
  int dt = check_dtype(x, op, "x");
  check_array(x, op, "x", dt, size_of({outer, n, inner}, op), kRead);
  int64_t count = size_of({outer, k, inner}, op);
  const int it = index_dtype(idx, op);
  check_array(idx, op, "idx", it, count, kRead);
  check_array(out, op, "out", dt, count, kWrite);
  if (it == kInt32)
    take_along_typed(x, in_ptr<int32_t>(idx), out, dt, count, n, k, inner, wrap, op);
  else
    take_along_typed(x, in_ptr<int64_t>(idx), out, dt, count, n, k, inner, wrap, op);
}

// take_along_axis's adjoint: out (zeroed first) [o, idx[o, j, i], i] += g[o, j, i].
template <typename I>
void take_along_grad_typed(py::array& g, const I* ip, py::array& out, int dt, int64_t outer,
                           int64_t count, int64_t n, int64_t k, int64_t inner, bool wrap,
                           const char* op) {
  check_along(ip, count, n, wrap, op);
  const int64_t shift = wrap ? n : 0;
  PD_DISPATCH_FLOAT(dt, op, {
    const scalar_t* gp = in_ptr<scalar_t>(g);
    scalar_t* yp = out_ptr<scalar_t>(out);
    std::fill(yp, yp + out.size(), scalar_t(0));
    if (count == 0) return;  // no loop over an outer of empty rows
    // Serial over j: repeated indices of one (o, i) accumulate without a race.
    bool par = count >= kParallelGrain && outer > 1;
    const int threads = max_threads();
    _Pragma("omp parallel for schedule(static) if (par) num_threads(threads)")
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < k; ++j)
        for (int64_t i = 0; i < inner; ++i) {
          int64_t e = (o * k + j) * inner + i;
          const int64_t v = int64_t(ip[e]);
          yp[(o * n + v + (v < 0 ? shift : 0)) * inner + i] += gp[e];
        }
  });
}

void take_along_axis_grad(py::array g, py::array idx, py::array out, int64_t outer, int64_t n,
                          int64_t k, int64_t inner, bool wrap) {
  const char* op = "take_along_axis_grad";
  int dt = check_dtype(g, op, "g");
  int64_t count = size_of({outer, k, inner}, op);
  check_array(g, op, "g", dt, count, kRead);
  const int it = index_dtype(idx, op);
  check_array(idx, op, "idx", it, count, kRead);
  check_array(out, op, "out", dt, size_of({outer, n, inner}, op), kWrite);
  if (it == kInt32)
    take_along_grad_typed(g, in_ptr<int32_t>(idx), out, dt, outer, count, n, k, inner, wrap,
                          op);
  else
    take_along_grad_typed(g, in_ptr<int64_t>(idx), out, dt, outer, count, n, k, inner, wrap,
                          op);
}

// NumPy's order for sorting and searching: NaN above everything (and equal to NaN).
// (bitwise & and |: no short-circuit branches, so the searches below compile to
// conditional moves)
template <typename T>
inline bool nan_less(T a, T b) { return (a < b) | (is_nan(b) & !is_nan(a)); }

// Whether the sequence's element s goes before the value v: s below v ('left'), or s not
// above v ('right').
template <typename T, bool kRight>
inline bool goes_before(T s, T v) { return kRight ? !nan_less(v, s) : nan_less(s, v); }

// yp[j] = the number of elements of the increasing seq[0, n) that go before values[j], for
// j in [b, e). A branch-free halving: the comparison picks the base by a conditional move.
// The halving depends on n alone, so kGroup values step together: their loads are
// independent, and the memory latency of one search overlaps those of the others.
template <typename T, bool kRight>
void search_range(const T* seq, int64_t n, const T* values, int32_t* yp, int64_t b,
                  int64_t e) {
  constexpr int kGroup = 32;
  if (n == 0) {
    std::fill(yp + b, yp + e, int32_t(0));
    return;
  }
  int64_t at[kGroup];  // each search's base, as an offset into seq
  for (int64_t j0 = b; j0 < e; j0 += kGroup) {
    const int g = int(std::min<int64_t>(kGroup, e - j0));
    const T* v = values + j0;
    for (int k = 0; k < g; ++k) at[k] = 0;
    for (int64_t len = n; len > 1;) {
      const int64_t half = len / 2;
      for (int k = 0; k < g; ++k)
        at[k] += half * int64_t(goes_before<T, kRight>(seq[at[k] + half], v[k]));
      len -= half;
    }
    for (int k = 0; k < g; ++k)
      yp[j0 + k] = int32_t(at[k] + int64_t(goes_before<T, kRight>(seq[at[k]], v[k])));
  }
}

// out[j] = the insertion position of values[j] in the sorted seq[0, n) (int32).
void searchsorted(py::array seq, py::array values, py::array out, bool right) {
  const char* op = "searchsorted";
  int dt = check_dtype(seq, op, "sorted_sequence");
  const int64_t n = seq.size();
  require(n <= std::numeric_limits<int32_t>::max(), op,
          "the sequence has more than 2**31 - 1 elements (int32 positions)");
  check_array(seq, op, "sorted_sequence", dt, n, kRead);
  const int64_t m = values.size();
  check_array(values, op, "values", dt, m, kRead);
  check_array(out, op, "out", kInt32, m, kWrite);
  if (m == 0) return;
  // A search costs about log2(n) dependent loads: the grain in values shrinks with it.
  int64_t steps = 1;
  while ((int64_t(1) << steps) < n + 1) ++steps;
  const int64_t grain = std::max<int64_t>(kParallelGrain / (4 * steps), 256);
  GilRelease nogil(m * steps);
  PD_DISPATCH_NUMERIC(dt, op, {
    const scalar_t* sp = in_ptr<scalar_t>(seq);
    const scalar_t* vp = in_ptr<scalar_t>(values);
    int32_t* yp = out_ptr<int32_t>(out);
    parallel_chunks(m, grain, [&](int64_t b, int64_t e) {
      if (right)
        search_range<scalar_t, true>(sp, n, vp, yp, b, e);
      else
        search_range<scalar_t, false>(sp, n, vp, yp, b, e);
    });
  });
}

}  // namespace

void init_sort(py::module_& m) {
  m.def("argsort", &argsort, array_arg("x"), array_arg("out"), py::arg("outer"), py::arg("n"),
        py::arg("inner"), py::arg("descending"), py::arg("k"),
        "the first k of the int64 stable order along the middle of [outer, n, inner] (NaN "
        "last)");
  m.def("cumulate", &cumulate, py::arg("code"), array_arg("x"), array_arg("out"),
        py::arg("outer"), py::arg("n"), py::arg("inner"),
        "running sum (0) or product (1) along the middle of [outer, n, inner]");
  m.def("diff", &diff, array_arg("x"), array_arg("out"), py::arg("outer"), py::arg("n"),
        py::arg("inner"), "out[o, j, i] = x[o, j + 1, i] - x[o, j, i] along the middle of "
        "[outer, n, inner]");
  m.def("take_along_axis", &take_along_axis, array_arg("x"), array_arg("idx"),
        array_arg("out"), py::arg("outer"), py::arg("n"), py::arg("k"), py::arg("inner"),
        py::arg("wrap") = false,
        "out[o, j, i] = x[o, idx[o, j, i], i] (wrap: a negative index + n)");
  m.def("take_along_axis_grad", &take_along_axis_grad, array_arg("g"), array_arg("idx"),
        array_arg("out"), py::arg("outer"), py::arg("n"), py::arg("k"), py::arg("inner"),
        py::arg("wrap") = false,
        "out[o, idx[o, j, i], i] += g[o, j, i] (out zeroed first; wrap: a negative index + n)");
  m.def("searchsorted", &searchsorted, array_arg("seq"), array_arg("values"),
        array_arg("out"), py::arg("right"),
        "int32 insertion positions of values in the increasing 1-D seq (NaN last)");
}

}  // namespace paddle
