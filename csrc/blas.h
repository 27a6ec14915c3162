// Matrix products on the BLAS (scipy-openblas32, prefixed C API), never hand-written.
//
// OpenBLAS keeps its own thread pool, which fights OpenMP's when both spin on two cores.
// So the BLAS always runs single-threaded (set once at import), and paddle splits big
// products over OpenMP threads itself: one pool, no contention.
#pragma once

#include <cblas.h>

#include <climits>

#include "common.h"

namespace paddle {

inline void blas_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha,
                      const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                      float* C, int64_t ldc) {
  scipy_cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    int(M), int(N), int(K), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));
}

inline void blas_gemm(bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha,
                      const double* A, int64_t lda, const double* B, int64_t ldb, double beta,
                      double* C, int64_t ldc) {
  scipy_cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    int(M), int(N), int(K), alpha, A, int(lda), B, int(ldb), beta, C, int(ldc));
}

inline void check_blas_dims(int64_t M, int64_t N, int64_t K, const char* op) {
  require(M < INT_MAX && N < INT_MAX && K < INT_MAX && M * K < INT_MAX && K * N < INT_MAX, op,
          "matrix too large for the 32-bit BLAS interface");
}

// What gemm_parallel runs on each thread's part of C once its product is done (rows
// [r0, r1) by columns [c0, c1)), while that part is still in cache: nothing by default.
struct NoEpilogue {
  void operator()(int64_t, int64_t, int64_t, int64_t) const {}
};

// C[M,N] = alpha * op(A) op(B) + beta * C, contiguous row-major operands (op = transpose
// when ta/tb), split over OpenMP threads along M or N when the product is big enough; then
// `epilogue` on each thread's part. Call only outside any OpenMP region.
template <typename T, typename Epilogue = NoEpilogue>
void gemm_parallel(bool ta, bool tb, int64_t M, int64_t N, int64_t K, T alpha, const T* A,
                   const T* B, T beta, T* C, Epilogue epilogue = Epilogue()) {
  int64_t lda = ta ? M : K, ldb = tb ? K : N;
  int threads = max_threads();
  bool big = M * N * K >= (int64_t(1) << 18) && threads > 1;
  if (!big) {
    blas_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, N);
    epilogue(0, M, 0, N);
    return;
  }
  bool split_m = M >= 4 * threads && M >= N / 4;
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    if (split_m) {
      int64_t m0 = M * t / nt, m1 = M * (t + 1) / nt;
      if (m1 > m0) {
        blas_gemm(ta, tb, m1 - m0, N, K, alpha, ta ? A + m0 : A + m0 * K, lda, B, ldb, beta,
                  C + m0 * N, N);
        epilogue(m0, m1, 0, N);
      }
    } else {
      int64_t n0 = N * t / nt, n1 = N * (t + 1) / nt;
      if (n1 > n0) {
        blas_gemm(ta, tb, M, n1 - n0, K, alpha, A, lda, tb ? B + n0 * K : B + n0, ldb, beta,
                  C + n0, N);
        epilogue(0, M, n0, n1);
      }
    }
  }
}

}  // namespace paddle
