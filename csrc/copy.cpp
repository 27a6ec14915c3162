// Data movement: strided copies (transpose, slice, broadcast, concat, pad), fill,
// gather and its gradient scatter-add, one-hot.
#include "common.h"

#include <cstring>

namespace paddle {
namespace {

template <typename T>
void strided_copy_typed(const T* src, T* dst, int nd, const int64_t* shape, const int64_t* ss,
                        const int64_t* ds, int64_t total) {
  int64_t inner = shape[nd - 1], s_in = ss[nd - 1], d_in = ds[nd - 1];
  int64_t rows = total / inner;
  bool par = total >= kParallelGrain && rows > 1;
#pragma omp parallel if (par)
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

// spec: [ndim, shape[ndim], src_strides[ndim], dst_strides[ndim], src_offset, dst_offset]
void strided_copy(py::array src, py::array dst, py::array spec) {
  check_array(spec, "copy", kInt64, -1, false);
  const int64_t* p = in_ptr<int64_t>(spec);
  int nd = int(p[0]);
  require(nd >= 1 && spec.size() == 3 + 3 * nd, "copy", "malformed spec");
  const int64_t *shape = p + 1, *ss = p + 1 + nd, *ds = p + 1 + 2 * nd;
  int64_t so = p[1 + 3 * nd], dof = p[2 + 3 * nd], total = 1;
  for (int d = 0; d < nd; ++d) {
    require(shape[d] >= 0 && ss[d] >= 0 && ds[d] >= 0, "copy", "negative extent");
    total = size_mul(total, shape[d], "copy");
  }
  int dt = dtype_of(src);
  check_array(src, "copy", dt, -1, false);
  check_array(dst, "copy", dt, -1, true);
  if (total == 0) return;
  require(so >= 0 && dof >= 0, "copy", "negative offset");
  int64_t s_hi = so, d_hi = dof;
  for (int d = 0; d < nd; ++d) {
    s_hi = size_add(s_hi, size_mul(shape[d] - 1, ss[d], "copy"), "copy");
    d_hi = size_add(d_hi, size_mul(shape[d] - 1, ds[d], "copy"), "copy");
  }
  require(s_hi < src.size() && d_hi < dst.size(), "copy", "spec reaches outside the arrays");
  switch (src.itemsize()) {
    case 1: strided_copy_typed<uint8_t>(in_ptr<uint8_t>(src) + so, out_ptr<uint8_t>(dst) + dof, nd, shape, ss, ds, total); break;
    case 4: strided_copy_typed<uint32_t>(in_ptr<uint32_t>(src) + so, out_ptr<uint32_t>(dst) + dof, nd, shape, ss, ds, total); break;
    case 8: strided_copy_typed<uint64_t>(in_ptr<uint64_t>(src) + so, out_ptr<uint64_t>(dst) + dof, nd, shape, ss, ds, total); break;
    default: throw std::invalid_argument("copy: unsupported item size");
  }
}

void fill(py::array dst, double value) {
  int dt = dtype_of(dst);
  check_array(dst, "fill", dt, -1, true);
  PD_DISPATCH_ALL(dt, "fill", {
    scalar_t* p = out_ptr<scalar_t>(dst);
    std::fill(p, p + dst.size(), scalar_t(value));
  });
}

// Checks every index before any is used; names the first bad one.
void check_indices(const int64_t* idx, int64_t n, int64_t limit, const char* op) {
  for (int64_t i = 0; i < n; ++i)
    if (idx[i] < 0 || idx[i] >= limit)
      throw py::index_error(std::string(op) + ": index " + std::to_string(idx[i]) +
                            " at position " + std::to_string(i) + " is outside [0, " +
                            std::to_string(limit) + ")");
}

// out[o, j, i] = x[o, idx[j], i] for x viewed as [outer, n, inner].
void gather(py::array x, py::array idx, py::array out, int64_t outer, int64_t n, int64_t inner) {
  int dt = dtype_of(x);
  check_array(x, "gather", dt, size_of({outer, n, inner}, "gather"), false);
  check_array(idx, "gather", kInt64, -1, false);
  int64_t k = idx.size();
  check_array(out, "gather", dt, size_of({outer, k, inner}, "gather"), true);
  const int64_t* ip = in_ptr<int64_t>(idx);
  check_indices(ip, k, n, "gather");
  size_t row = size_t(inner) * x.itemsize();
  const char* xp = static_cast<const char*>(x.data());
  char* op = static_cast<char*>(out.mutable_data());
  bool par = outer * k * inner >= kParallelGrain;
#pragma omp parallel for schedule(static) if (par)
  for (int64_t o = 0; o < outer * k; ++o) {
    int64_t oo = o / k, j = o % k;
    std::memcpy(op + o * row, xp + (oo * n + ip[j]) * row, row);
  }
}

// out[o, idx[j], i] += g[o, j, i]; out is zeroed first. Repeated indices accumulate.
void scatter_add(py::array g, py::array idx, py::array out, int64_t outer, int64_t n,
                 int64_t inner) {
  int dt = dtype_of(g);
  check_array(idx, "scatter_add", kInt64, -1, false);
  int64_t k = idx.size();
  check_array(g, "scatter_add", dt, size_of({outer, k, inner}, "scatter_add"), false);
  check_array(out, "scatter_add", dt, size_of({outer, n, inner}, "scatter_add"), true);
  const int64_t* ip = in_ptr<int64_t>(idx);
  check_indices(ip, k, n, "scatter_add");
  PD_DISPATCH_FLOAT(dt, "scatter_add", {
    const scalar_t* gp = in_ptr<scalar_t>(g);
    scalar_t* op = out_ptr<scalar_t>(out);
    std::fill(op, op + out.size(), scalar_t(0));
    // Parallel over the inner axis keeps repeated indices race-free.
    parallel_chunks(inner, outer * k * inner >= kParallelGrain ? 64 : inner + 1,
                    [&](int64_t b, int64_t e) {
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < k; ++j) {
          const scalar_t* src = gp + (o * k + j) * inner;
          scalar_t* dst = op + (o * n + ip[j]) * inner;
          for (int64_t i = b; i < e; ++i) dst[i] += src[i];
        }
    });
  });
}

void one_hot(py::array idx, py::array out, int64_t depth) {
  check_array(idx, "one_hot", kInt64, -1, false);
  int dt = dtype_of(out);
  check_array(out, "one_hot", dt, size_mul(idx.size(), depth, "one_hot"), true);
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
  m.def("strided_copy", &strided_copy, "dst view = src view, both given by strides in a spec");
  m.def("fill", &fill, "every element of dst = value");
  m.def("gather", &gather, "rows of x along the middle axis of [outer, n, inner]");
  m.def("scatter_add", &scatter_add, "zero out, then add rows of g at indices");
  m.def("one_hot", &one_hot, "one-hot rows of the given depth");
}

}  // namespace paddle
