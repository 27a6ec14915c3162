// Data movement: strided copies (transpose, slice, broadcast, concat, pad), fill,
// gather and its gradient scatter-add, one-hot.
#include "common.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace paddle {
namespace {

template <typename T>
void strided_copy_typed(const T* src, T* dst, int nd, const int64_t* shape, const int64_t* ss,
                        const int64_t* ds, int64_t total) {
  int64_t inner = shape[nd - 1], s_in = ss[nd - 1], d_in = ds[nd - 1];
  int64_t rows = total / inner;
  bool par = total >= kParallelGrain && rows > 1;
  const int threads = max_threads();
#pragma omp parallel if (par) num_threads(threads)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t r0 = rows * t / nt, r1 = rows * (t + 1) / nt;
    std::vector<int64_t> idx(nd, 0);
    int64_t rem = r0, so = 0, dof = 0;
    for (int d = nd - 2; d >= 0; --d) { idx[d] = rem % shape[d]; rem /= shape[d]; }
    for (int d = 0; d < nd - 1; ++d) { so += idx[d] * ss[d]; dof += idx[d] * ds[d]; }
    for (int64_t r = r0; r < r1; ++r) {
      const T* s = src + so;
      T* o = dst + dof;
      if (s_in == 1 && d_in == 1) {
        std::memcpy(o, s, sizeof(T) * inner);
      } else if (s_in == -1 && d_in == 1) {
        // reverse (flip along the last axis): with the strides known the loop vectorizes
        // (loads and a lane permute), where the general one below stays scalar
        for (int64_t i = 0; i < inner; ++i) o[i] = s[-i];
      } else {
        for (int64_t i = 0; i < inner; ++i) o[i * d_in] = s[i * s_in];
      }
      for (int d = nd - 2; d >= 0; --d) {
        so += ss[d]; dof += ds[d];
        if (++idx[d] < shape[d]) break;
        so -= ss[d] * shape[d]; dof -= ds[d] * shape[d];
        idx[d] = 0;
      }
    }
  }
}

// spec: [ndim, shape[ndim], src_strides[ndim], dst_strides[ndim], src_offset, dst_offset];
// source strides may be negative (reverse), destination strides not.
void strided_copy(py::array src, py::array dst, py::array spec) {
  const char* op = "strided_copy";
  const int64_t* p = check_spec(spec, op, "spec", -1);
  require(spec.size() >= 1, op, "argument 'spec' is empty");
  const int nd = check_rank(p[0], op, "spec");
  if (spec.size() != 3 + 3 * int64_t(nd))
    throw std::invalid_argument(std::string(op) + ": argument 'spec' of rank " +
                                std::to_string(nd) + " expected " + std::to_string(3 + 3 * nd) +
                                " values, received " + std::to_string(spec.size()));
  const int64_t *shape = p + 1, *ss = p + 1 + nd, *ds = p + 1 + 2 * nd;
  int64_t so = p[1 + 3 * nd], dof = p[2 + 3 * nd], total = 1;
  for (int d = 0; d < nd; ++d) {
    // (a negative source stride reads backwards: reverse)
    require(shape[d] >= 0 && ss[d] > INT64_MIN && ds[d] >= 0, op, "negative extent");
    total = size_mul(total, shape[d], op);
  }
  int dt = check_dtype(src, op, "src");
  check_array(src, op, "src", dt, -1, kRead);
  check_array(dst, op, "dst", dt, -1, kWrite);
  if (total == 0) return;
  require(so >= 0 && dof >= 0, op, "negative offset");
  // The first and last elements either side reaches, proven inside its array.
  int64_t s_lo = so, s_hi = so, d_hi = dof;
  for (int d = 0; d < nd; ++d) {
    const int64_t reach = size_mul(shape[d] - 1, ss[d] < 0 ? -ss[d] : ss[d], op);
    if (ss[d] < 0) {
      require(!__builtin_sub_overflow(s_lo, reach, &s_lo), op, "spec reaches outside the arrays");
    } else {
      s_hi = size_add(s_hi, reach, op);
    }
    d_hi = size_add(d_hi, size_mul(shape[d] - 1, ds[d], op), op);
  }
  require(s_lo >= 0 && s_hi < src.size() && d_hi < dst.size(), op,
          "spec reaches outside the arrays");
  GilRelease nogil(total);
  switch (src.itemsize()) {
    case 1: strided_copy_typed<uint8_t>(in_ptr<uint8_t>(src) + so, out_ptr<uint8_t>(dst) + dof, nd, shape, ss, ds, total); break;
    case 4: strided_copy_typed<uint32_t>(in_ptr<uint32_t>(src) + so, out_ptr<uint32_t>(dst) + dof, nd, shape, ss, ds, total); break;
    case 8: strided_copy_typed<uint64_t>(in_ptr<uint64_t>(src) + so, out_ptr<uint64_t>(dst) + dof, nd, shape, ss, ds, total); break;
    default: throw std::invalid_argument("strided_copy: unsupported item size");
  }
}

// Integers and bools must hold the value itself: converting NaN or an out-of-range double
// to an integer is undefined behaviour, and a bool byte other than 0 or 1 is not a bool.
template <typename T>
T fill_value(double value, int dt) {
  if (dt == kBool) return T(value != 0.0);
  if constexpr (std::is_integral<T>::value)
    if (!(std::isfinite(value) && value >= double(std::numeric_limits<T>::min()) &&
                value < -double(std::numeric_limits<T>::min())))
      fail("fill", "argument 'value' " + std::to_string(value) + " does not fit in " +
                        dtype_name(dt));
  return T(value);
}

void fill(py::array dst, double value) {
  int dt = check_dtype(dst, "fill", "dst");
  check_array(dst, "fill", "dst", dt, -1, kWrite);
  PD_DISPATCH_ALL(dt, "fill", {
    scalar_t* p = out_ptr<scalar_t>(dst);
    std::fill(p, p + dst.size(), fill_value<scalar_t>(value, dt));
  });
}

// Checks every index before any is used; names the first bad one.
void check_indices(const int64_t* idx, int64_t n, int64_t limit, const char* op) {
  const int64_t i = first_outside(idx, n, limit);
  if (i >= 0)
    throw py::index_error(std::string(op) + ": index " + std::to_string(idx[i]) +
                          " at position " + std::to_string(i) + " is outside [0, " +
                          std::to_string(limit) + ")");
}

// out[o, j, i] = x[o, idx[j], i] for x viewed as [outer, n, inner].
void gather(py::array x, py::array idx, py::array out, int64_t outer, int64_t n, int64_t inner) {
  int dt = check_dtype(x, "gather", "x");
  check_array(x, "gather", "x", dt, size_of({outer, n, inner}, "gather"), kRead);
  check_array(idx, "gather", "idx", kInt64, -1, kRead);
  int64_t k = idx.size();
  check_array(out, "gather", "out", dt, size_of({outer, k, inner}, "gather"), kWrite);
  const int64_t* ip = in_ptr<int64_t>(idx);
  check_indices(ip, k, n, "gather");
  GilRelease nogil(out.size());
  const size_t row = size_t(inner) * x.itemsize();
  const char* xp = static_cast<const char*>(x.data());
  char* op = static_cast<char*>(out.mutable_data());
  // Rows of one element (take of a flat array) are copied as values, not by memcpy; each
  // chunk finds its (o, j) once and counts on (a division per row cost more than the copy).
  auto rows = [&](auto one) {
    using T = decltype(one);
    parallel_chunks(outer * k, std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1)),
                    [&](int64_t b, int64_t e) {
      int64_t oo = b / k, j = b % k;
      for (int64_t o = b; o < e; ++o) {
        if constexpr (sizeof(T) == 1) std::memcpy(op + o * row, xp + (oo * n + ip[j]) * row, row);
        else reinterpret_cast<T*>(op)[o] = reinterpret_cast<const T*>(xp)[oo * n + ip[j]];
        if (++j == k) { j = 0; ++oo; }
      }
    });
  };
  if (inner == 1 && x.itemsize() == 4) rows(uint32_t());
  else if (inner == 1 && x.itemsize() == 8) rows(uint64_t());
  else rows(uint8_t());  // (memcpy of whole rows)
}

// out[o, idx[j], i] += g[o, j, i]; out is zeroed first. Repeated indices accumulate.
void scatter_add(py::array g, py::array idx, py::array out, int64_t outer, int64_t n,
                 int64_t inner) {
  int dt = check_dtype(g, "scatter_add", "g");
  check_array(idx, "scatter_add", "idx", kInt64, -1, kRead);
  int64_t k = idx.size();
  check_array(g, "scatter_add", "g", dt, size_of({outer, k, inner}, "scatter_add"), kRead);
  check_array(out, "scatter_add", "out", dt, size_of({outer, n, inner}, "scatter_add"), kWrite);
  const int64_t* ip = in_ptr<int64_t>(idx);
  check_indices(ip, k, n, "scatter_add");
  GilRelease nogil(out.size() + g.size());
  PD_DISPATCH_FLOAT(dt, "scatter_add", {
    const scalar_t* gp = in_ptr<scalar_t>(g);
    scalar_t* op = out_ptr<scalar_t>(out);
    // Parallel over the inner axis keeps repeated indices race-free. Each thread zeroes its
    // own columns first (no barrier needed; one thread zeroing all of out took as long as the
    // adds on an embedding's gradient), and asks for the rows a few ids ahead: they are
    // random rows of a large table, beyond the hardware prefetchers.
    parallel_chunks(inner, outer * k * inner >= kParallelGrain ? 64 : inner + 1,
                    [&](int64_t b, int64_t e) {
      if (b == 0 && e == inner) {
        std::fill(op, op + outer * n * inner, scalar_t(0));
      } else {
        for (int64_t row = 0; row < outer * n; ++row)
          std::fill(op + row * inner + b, op + row * inner + e, scalar_t(0));
      }
      constexpr int64_t kAhead = 8;
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < k; ++j) {
          if (j + kAhead < k) {
            const char* next =
                reinterpret_cast<const char*>(op + (o * n + ip[j + kAhead]) * inner + b);
            for (int64_t c = 0; c < (e - b) * int64_t(sizeof(scalar_t)); c += 64)
              __builtin_prefetch(next + c, 1);
          }
          const scalar_t* src = gp + (o * k + j) * inner;
          scalar_t* dst = op + (o * n + ip[j]) * inner;
          for (int64_t i = b; i < e; ++i) dst[i] += src[i];
        }
    });
  });
}

void one_hot(py::array idx, py::array out, int64_t depth) {
  check_array(idx, "one_hot", "idx", kInt64, -1, kRead);
  int dt = check_dtype(out, "one_hot", "out");
  check_array(out, "one_hot", "out", dt, size_mul(idx.size(), depth, "one_hot"), kWrite);
  const int64_t* ip = in_ptr<int64_t>(idx);
  check_indices(ip, idx.size(), depth, "one_hot");
  PD_DISPATCH_NUMERIC(dt, "one_hot", {
    scalar_t* op = out_ptr<scalar_t>(out);
    std::fill(op, op + out.size(), scalar_t(0));
    for (int64_t i = 0; i < idx.size(); ++i) op[i * depth + ip[i]] = scalar_t(1);
  });
}

}  // namespace

void init_copy(py::module_& m) {
  m.def("strided_copy", &strided_copy,
        array_arg("src"), array_arg("dst"), array_arg("spec"),
        "dst view = src view, both given by strides in a spec");
  m.def("fill", &fill,
        array_arg("dst"), py::arg("value"),
        "every element of dst = value");
  m.def("gather", &gather,
        array_arg("x"), array_arg("idx"), array_arg("out"), py::arg("outer"), py::arg("n"),
        py::arg("inner"),
        "rows of x along the middle axis of [outer, n, inner]");
  m.def("scatter_add", &scatter_add,
        array_arg("g"), array_arg("idx"), array_arg("out"), py::arg("outer"), py::arg("n"),
        py::arg("inner"),
        "zero out, then add rows of g at indices");
  m.def("one_hot", &one_hot,
        array_arg("idx"), array_arg("out"), py::arg("depth"),
        "one-hot rows of the given depth");
}

}  // namespace paddle
