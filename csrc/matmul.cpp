// Batched matrix product with broadcast batch dims, on the BLAS.
//
// The plan passes a spec [B, M, N, K, ta, tb, a_offsets[B], b_offsets[B]]: for each of the
// B output matrices, where its A and B operands start (broadcast batch dims repeat an offset).
// With a bias (N values) and/or `relu`, each product is followed by out = relu(out + bias)
// on each thread's part while it is in cache: the matmul + add + relu of a Dense layer that
// paddle/lowlevel/fusion/matmul.py fuses, the same values as the three kernels. With relu_y
// (out's size), out is then masked as relu_grad(relu_y, out) would (kept where relu_y > 0,
// NaN not): the gradient a Dense layer's relu passes back, fused with its product.
#include "blas.h"
#include "fresh.h"

namespace paddle {
namespace {

// out[r, c] = (relu of) out[r, c] + bias[c] over rows [r0, r1), columns [c0, c1); NaN passes
// relu: common.h's relu_of, as every kernel. Then, with relu_y, out[r, c] = 0 unless
// relu_y[r, c] > 0 (relu_grad's mask).
template <typename T>
struct BiasRelu {
  T* out;
  const T* bias;
  int64_t N;
  bool relu;
  const T* relu_y = nullptr;
  void operator()(int64_t r0, int64_t r1, int64_t c0, int64_t c1) const {
    for (int64_t r = r0; r < r1; ++r) {
      T* o = out + r * N;
      if (bias)
        for (int64_t c = c0; c < c1; ++c) o[c] += bias[c];
      if (relu)
        for (int64_t c = c0; c < c1; ++c) o[c] = relu_of(o[c]);
      if (relu_y) {
        const T* m = relu_y + r * N;
        for (int64_t c = c0; c < c1; ++c) o[c] = m[c] > T(0) ? o[c] : T(0);
      }
    }
  }
};

void matmul(py::array a, py::array b, py::array out, py::array spec, py::array bias,
            bool relu, py::array relu_y) {
  const char* op = "matmul";
  const int64_t* s = check_spec(spec, op, "spec", -1);
  require(spec.size() >= 6, op, "malformed spec");
  int64_t B = s[0], M = s[1], N = s[2], K = s[3];
  bool ta = s[4] != 0, tb = s[5] != 0;
  require(B >= 0 && K >= 0 && spec.size() - 6 == size_mul(2, B, op), op, "malformed spec");
  const int64_t* a_off = s + 6;
  const int64_t* b_off = s + 6 + B;
  int dt = check_dtype(a, op, "a");
  check_array(a, op, "a", dt, -1, kRead);
  check_array(b, op, "b", dt, -1, kRead);
  check_array(out, op, "out", dt, size_of({B, M, N}, op), kWrite);
  if (bias.size()) check_array(bias, op, "bias", dt, N, kRead);  // empty: no bias
  if (relu_y.size()) check_array(relu_y, op, "relu_y", dt, out.size(), kRead);  // empty: none
  check_blas_dims(M, N, K, "matmul");
  const int64_t a_size = size_mul(M, K, "matmul"), b_size = size_mul(K, N, "matmul");
  for (int64_t i = 0; i < B; ++i)  // subtraction: an offset near INT64_MAX must not wrap
    require(a_off[i] >= 0 && a_off[i] <= a.size() - a_size && b_off[i] >= 0 &&
                b_off[i] <= b.size() - b_size,
            "matmul", "batch offset outside operand");
  GilRelease nogil(int64_t(std::min(double(kGilGrain), double(B) * M * N * std::max<int64_t>(K, 1) / 64)));
  PD_DISPATCH_FLOAT(dt, "matmul", {
    const scalar_t* ap = in_ptr<scalar_t>(a);
    const scalar_t* bp = in_ptr<scalar_t>(b);
    scalar_t* cp = out_ptr<scalar_t>(out);
    const scalar_t* biasp = bias.size() ? in_ptr<scalar_t>(bias) : nullptr;
    const scalar_t* maskp = relu_y.size() ? in_ptr<scalar_t>(relu_y) : nullptr;
    const BiasRelu<scalar_t> after{cp, biasp, N, relu, maskp};
    const bool epilogue = biasp || relu || maskp;
    if (B == 1 && epilogue) {
      gemm_parallel<scalar_t>(ta, tb, M, N, K, 1, ap + a_off[0], bp + b_off[0], 0, cp, after);
    } else if (B == 1) {
      gemm_parallel<scalar_t>(ta, tb, M, N, K, 1, ap + a_off[0], bp + b_off[0], 0, cp);
    } else if (K == 0) {
      std::fill(cp, cp + B * M * N, scalar_t(0));
      if (epilogue) after(0, B * M, 0, N);
    } else {
      int64_t lda = ta ? M : K, ldb = tb ? K : N;
      const int threads = max_threads();
      bool par = B * M * N * K >= (int64_t(1) << 16) && threads > 1;
      _Pragma("omp parallel for schedule(static) if (par) num_threads(threads)")
      for (int64_t i = 0; i < B; ++i) {
        blas_gemm(ta, tb, M, N, K, scalar_t(1), ap + a_off[i], lda, bp + b_off[i], ldb,
                  scalar_t(0), cp + i * M * N, N);
        if (epilogue) after(i * M, (i + 1) * M, 0, N);
      }
    }
  });
}

// The product alone (no bias, no relu): the eager entry's signature (fresh.h takes the
// kernel's arguments as they are, without pybind11's defaults).
void matmul_plain(py::array a, py::array b, py::array out, py::array spec) {
  matmul(std::move(a), std::move(b), std::move(out), std::move(spec), py::array_t<float>(0),
         false, py::array_t<float>(0));
}

}  // namespace

void init_matmul(py::module_& m) {
  def_fresh<&matmul_plain, 2>(m, "matmul_fresh",
                              "matmul(a, b, out, spec) making out (csrc/fresh.h)");
  m.def("matmul", &matmul,
        array_arg("a"), array_arg("b"), array_arg("out"), array_arg("spec"),
        py::arg("bias") = py::array_t<float>(0), py::arg("relu") = false,
        py::arg("relu_y") = py::array_t<float>(0),
        "out[B,M,N] = op(a) @ op(b) per batch, offsets from spec; + bias (N values, unless "
        "empty) and its relu with relu, then 0 where relu_y (out's size, unless empty) is "
        "not > 0; on each thread's part of out");
  m.def("blas_threads", []() { return scipy_openblas_get_num_threads(); },
        "threads of the BLAS (1: paddle splits products over its own threads)");
  m.def("omp_threads", []() { return max_threads(); }, "threads a kernel called now would use");
  m.def("thread_limit", &thread_limit,
        "the most threads a kernel ever uses: 4 per hardware thread, at least 8, at most 1024");
  m.def("set_omp_threads", [](int n) {
    if (n < 1 || n > thread_limit())
      throw std::invalid_argument("set_omp_threads: expected n from 1 to " +
                                  std::to_string(thread_limit()) + " (4 per hardware thread, " +
                                  "at least 8, at most 1024), received " + std::to_string(n));
    omp_set_num_threads(n);
  }, py::arg("n"), "threads the kernels use from now on (in this thread)");
}

}  // namespace paddle
