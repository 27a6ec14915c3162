// Dense linear algebra on LAPACK (scipy-openblas32's LAPACKE, prefixed `scipy_`), never
// hand-written: LU (getrf), solve (getrf + getrs), slogdet (getrf), triangular solve (trsm),
// Cholesky (potrf), symmetric eigendecomposition (syevd), general eigendecomposition (geev),
// SVD (gesdd) and QR (geqrf + orgqr).
//
// Every binding takes a batch of B row-major matrices, contiguous, and writes its outputs
// into the caller's arrays. Failures follow JAX (what Keras's JAX backend returns): a
// singular matrix gives inf/NaN from solve and sign 0, log|det| -inf from slogdet; a matrix
// that is not positive definite gives a Cholesky factor of NaN; a decomposition that does
// not converge gives NaN outputs. Nothing throws for bad values, only for bad arguments.
#include <lapacke.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "blas.h"

namespace paddle {
namespace {

constexpr int kRow = LAPACK_ROW_MAJOR;

// ---- float / double overloads of the LAPACK routines ---------------------------------------

int getrf(int m, int n, float* a, int* ipiv) {
  return scipy_LAPACKE_sgetrf(kRow, m, n, a, n, ipiv);
}
int getrf(int m, int n, double* a, int* ipiv) {
  return scipy_LAPACKE_dgetrf(kRow, m, n, a, n, ipiv);
}
int getrs(int n, int k, const float* a, const int* ipiv, float* b) {
  return scipy_LAPACKE_sgetrs(kRow, 'N', n, k, a, n, ipiv, b, k);
}
int getrs(int n, int k, const double* a, const int* ipiv, double* b) {
  return scipy_LAPACKE_dgetrs(kRow, 'N', n, k, a, n, ipiv, b, k);
}
int potrf(int n, float* a) { return scipy_LAPACKE_spotrf(kRow, 'L', n, a, n); }
int potrf(int n, double* a) { return scipy_LAPACKE_dpotrf(kRow, 'L', n, a, n); }
int syevd(int n, float* a, float* w) { return scipy_LAPACKE_ssyevd(kRow, 'V', 'L', n, a, n, w); }
int syevd(int n, double* a, double* w) {
  return scipy_LAPACKE_dsyevd(kRow, 'V', 'L', n, a, n, w);
}
int geev(int n, float* a, float* wr, float* wi, float* vr) {
  float vl = 0;  // jobvl 'N': the left eigenvectors are not computed
  return scipy_LAPACKE_sgeev(kRow, 'N', 'V', n, a, n, wr, wi, &vl, 1, vr, n);
}
int geev(int n, double* a, double* wr, double* wi, double* vr) {
  double vl = 0;
  return scipy_LAPACKE_dgeev(kRow, 'N', 'V', n, a, n, wr, wi, &vl, 1, vr, n);
}
int gesdd(char job, int m, int n, float* a, float* s, float* u, int ldu, float* vt, int ldvt) {
  return scipy_LAPACKE_sgesdd(kRow, job, m, n, a, n, s, u, ldu, vt, ldvt);
}
int gesdd(char job, int m, int n, double* a, double* s, double* u, int ldu, double* vt,
          int ldvt) {
  return scipy_LAPACKE_dgesdd(kRow, job, m, n, a, n, s, u, ldu, vt, ldvt);
}
int geqrf(int m, int n, float* a, float* tau) {
  return scipy_LAPACKE_sgeqrf(kRow, m, n, a, n, tau);
}
int geqrf(int m, int n, double* a, double* tau) {
  return scipy_LAPACKE_dgeqrf(kRow, m, n, a, n, tau);
}
int orgqr(int m, int n, int k, float* a, const float* tau) {
  return scipy_LAPACKE_sorgqr(kRow, m, n, k, a, n, tau);
}
int orgqr(int m, int n, int k, double* a, const double* tau) {
  return scipy_LAPACKE_dorgqr(kRow, m, n, k, a, n, tau);
}
void trsm(bool lower, int n, int k, const float* a, float* b) {
  scipy_cblas_strsm(CblasRowMajor, CblasLeft, lower ? CblasLower : CblasUpper, CblasNoTrans,
                    CblasNonUnit, n, k, 1.0f, a, n, b, k);
}
void trsm(bool lower, int n, int k, const double* a, double* b) {
  scipy_cblas_dtrsm(CblasRowMajor, CblasLeft, lower ? CblasLower : CblasUpper, CblasNoTrans,
                    CblasNonUnit, n, k, 1.0, a, n, b, k);
}

template <typename T>
void fill_nan(T* p, int64_t n) {
  std::fill(p, p + n, std::numeric_limits<T>::quiet_NaN());
}

// ---- argument checks ------------------------------------------------------------------------

void check_dims(std::initializer_list<int64_t> dims, const char* op) {
  for (int64_t d : dims)
    require(d >= 0 && d < INT_MAX, op, "matrix sizes out of range for the 32-bit LAPACK");
}

int float_input(const py::array& a, const char* op, int64_t size) {
  int dt = check_dtype(a, op, "a");
  require(dt == kFloat32 || dt == kFloat64, op, "expected a float32 or float64 matrix");
  check_array(a, op, "a", dt, size, kRead);
  return dt;
}

// ---- bindings ---------------------------------------------------------------------------------

void lu(py::array a, py::array lu_out, py::array piv_out, int64_t B, int64_t m, int64_t n) {
  const char* op = "linalg_lu";
  check_dims({B, m, n}, op);
  const int64_t k = std::min(m, n), size = size_of({B, m, n}, op);
  int dt = float_input(a, op, size);
  check_array(lu_out, op, "lu_out", dt, size, kWrite);
  check_array(piv_out, op, "piv_out", kInt32, size_mul(B, k, op), kWrite);
  int32_t* piv = out_ptr<int32_t>(piv_out);
  PD_DISPATCH_FLOAT(dt, op, {
    scalar_t* out = out_ptr<scalar_t>(lu_out);
    std::memcpy(out, in_ptr<scalar_t>(a), sizeof(scalar_t) * size);
    std::vector<int> ipiv(std::max<int64_t>(k, 1));
    for (int64_t i = 0; i < B; ++i) {
      getrf(int(m), int(n), out + i * m * n, ipiv.data());  // info > 0: singular, still an LU
      for (int64_t j = 0; j < k; ++j) piv[i * k + j] = ipiv[j] - 1;  // 0-based, as SciPy
    }
  });
}

void slogdet(py::array a, py::array sign_out, py::array log_out, int64_t B, int64_t n) {
  const char* op = "linalg_slogdet";
  check_dims({B, n}, op);
  int dt = float_input(a, op, size_of({B, n, n}, op));
  check_array(sign_out, op, "sign_out", dt, B, kWrite);
  check_array(log_out, op, "log_out", dt, B, kWrite);
  PD_DISPATCH_FLOAT(dt, op, {
    std::vector<scalar_t> work(std::max<int64_t>(n * n, 1));
    std::vector<int> ipiv(std::max<int64_t>(n, 1));
    scalar_t* sign = out_ptr<scalar_t>(sign_out);
    scalar_t* logdet = out_ptr<scalar_t>(log_out);
    for (int64_t i = 0; i < B; ++i) {
      std::memcpy(work.data(), in_ptr<scalar_t>(a) + i * n * n, sizeof(scalar_t) * n * n);
      getrf(int(n), int(n), work.data(), ipiv.data());
      scalar_t s = 1, total = 0;
      for (int64_t j = 0; j < n; ++j) {
        scalar_t d = work[j * n + j];
        if (ipiv[j] != j + 1) s = -s;
        if (d < 0) s = -s;
        if (d == 0) s = 0;
        total += std::log(std::abs(d));
      }
      if (std::isnan(total)) s = std::numeric_limits<scalar_t>::quiet_NaN();
      sign[i] = s;
      logdet[i] = s == 0 ? -std::numeric_limits<scalar_t>::infinity() : total;
    }
  });
}

void solve(py::array a, py::array b, py::array x_out, int64_t B, int64_t n, int64_t k) {
  const char* op = "linalg_solve";
  check_dims({B, n, k}, op);
  int dt = float_input(a, op, size_of({B, n, n}, op));
  const int64_t bsize = size_of({B, n, k}, op);
  check_array(b, op, "b", dt, bsize, kRead);
  check_array(x_out, op, "x_out", dt, bsize, kWrite);
  if (n == 0 || k == 0) return;
  PD_DISPATCH_FLOAT(dt, op, {
    std::vector<scalar_t> work(n * n);
    std::vector<int> ipiv(n);
    scalar_t* x = out_ptr<scalar_t>(x_out);
    std::memcpy(x, in_ptr<scalar_t>(b), sizeof(scalar_t) * bsize);
    for (int64_t i = 0; i < B; ++i) {
      std::memcpy(work.data(), in_ptr<scalar_t>(a) + i * n * n, sizeof(scalar_t) * n * n);
      getrf(int(n), int(n), work.data(), ipiv.data());
      // A zero pivot divides by zero in getrs: inf/NaN, as JAX's LU-based solve gives.
      getrs(int(n), int(k), work.data(), ipiv.data(), x + i * n * k);
    }
  });
}

void solve_triangular(py::array a, py::array b, py::array x_out, int64_t B, int64_t n,
                      int64_t k, bool lower) {
  const char* op = "linalg_solve_triangular";
  check_dims({B, n, k}, op);
  int dt = float_input(a, op, size_of({B, n, n}, op));
  const int64_t bsize = size_of({B, n, k}, op);
  check_array(b, op, "b", dt, bsize, kRead);
  check_array(x_out, op, "x_out", dt, bsize, kWrite);
  if (n == 0 || k == 0) return;
  PD_DISPATCH_FLOAT(dt, op, {
    scalar_t* x = out_ptr<scalar_t>(x_out);
    std::memcpy(x, in_ptr<scalar_t>(b), sizeof(scalar_t) * bsize);
    for (int64_t i = 0; i < B; ++i)
      trsm(lower, int(n), int(k), in_ptr<scalar_t>(a) + i * n * n, x + i * n * k);
  });
}

void cholesky(py::array a, py::array l_out, int64_t B, int64_t n) {
  const char* op = "linalg_cholesky";
  check_dims({B, n}, op);
  const int64_t size = size_of({B, n, n}, op);
  int dt = float_input(a, op, size);
  check_array(l_out, op, "l_out", dt, size, kWrite);
  PD_DISPATCH_FLOAT(dt, op, {
    scalar_t* l = out_ptr<scalar_t>(l_out);
    std::memcpy(l, in_ptr<scalar_t>(a), sizeof(scalar_t) * size);
    for (int64_t i = 0; i < B; ++i) {
      scalar_t* m = l + i * n * n;
      if (n > 0 && potrf(int(n), m) != 0) {
        fill_nan(m, n * n);  // not positive definite: NaN, as JAX
        continue;
      }
      for (int64_t r = 0; r < n; ++r) std::fill(m + r * n + r + 1, m + (r + 1) * n, scalar_t(0));
    }
  });
}

void eigh(py::array a, py::array w_out, py::array v_out, int64_t B, int64_t n) {
  const char* op = "linalg_eigh";
  check_dims({B, n}, op);
  const int64_t size = size_of({B, n, n}, op);
  int dt = float_input(a, op, size);
  check_array(w_out, op, "w_out", dt, size_mul(B, n, op), kWrite);
  check_array(v_out, op, "v_out", dt, size, kWrite);
  PD_DISPATCH_FLOAT(dt, op, {
    scalar_t* v = out_ptr<scalar_t>(v_out);
    scalar_t* w = out_ptr<scalar_t>(w_out);
    std::memcpy(v, in_ptr<scalar_t>(a), sizeof(scalar_t) * size);
    for (int64_t i = 0; i < B; ++i)
      if (n > 0 && syevd(int(n), v + i * n * n, w + i * n) != 0) {
        fill_nan(v + i * n * n, n * n);
        fill_nan(w + i * n, n);
      }
  });
}

// General (non-symmetric) eigendecomposition: w_out (B, n) and v_out (B, n, n) are complex,
// written as interleaved (re, im) pairs (NumPy's complex64/complex128 layout seen as floats).
// geev gives a complex pair's vectors as two real columns (re, im) of the first of the pair;
// they are unpacked here, the second vector the conjugate of the first. Each vector has unit
// norm and its largest component real (LAPACK's normalization, which JAX and NumPy keep).
template <typename T>
bool all_finite(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(p[i])) return false;
  return true;
}

template <typename T>
void eig_matrix(int64_t n, T* a, T* wr, T* wi, T* vr, T* w, T* v) {
  // A matrix holding inf or NaN, or one geev does not converge on, gives NaN everywhere, as
  // JAX (geev itself would return some finite components beside the NaN eigenvalues).
  if (!all_finite(a, n * n) || geev(int(n), a, wr, wi, vr) != 0 || !all_finite(wr, n) ||
      !all_finite(wi, n)) {
    fill_nan(w, 2 * n);
    fill_nan(v, 2 * n * n);
    return;
  }
  for (int64_t j = 0; j < n; ++j) {
    w[2 * j] = wr[j];
    w[2 * j + 1] = wi[j];
  }
  for (int64_t j = 0; j < n; ++j) {
    const bool pair = wi[j] != T(0) && j + 1 < n;
    for (int64_t r = 0; r < n; ++r) {
      T* out = v + 2 * (r * n + j);
      if (pair) {
        const T re = vr[r * n + j], im = vr[r * n + j + 1];
        out[0] = re, out[1] = im;  // column j: re + i im; column j + 1: re - i im
        out[2] = re, out[3] = -im;
      } else {
        out[0] = vr[r * n + j], out[1] = T(0);
      }
    }
    if (pair) ++j;
  }
}

void eig(py::array a, py::array w_out, py::array v_out, int64_t B, int64_t n) {
  const char* op = "linalg_eig";
  check_dims({B, n}, op);
  const int64_t size = size_of({B, n, n}, op);
  int dt = float_input(a, op, size);
  check_array(w_out, op, "w_out", dt, size_of({B, n, 2}, op), kWrite);
  check_array(v_out, op, "v_out", dt, size_mul(size, 2, op), kWrite);
  PD_DISPATCH_FLOAT(dt, op, {
    std::vector<scalar_t> work(std::max<int64_t>(n * n, 1)), vr(std::max<int64_t>(n * n, 1));
    std::vector<scalar_t> wr(std::max<int64_t>(n, 1)), wi(std::max<int64_t>(n, 1));
    const scalar_t* in = in_ptr<scalar_t>(a);
    scalar_t* w = out_ptr<scalar_t>(w_out);
    scalar_t* v = out_ptr<scalar_t>(v_out);
    for (int64_t i = 0; i < B && n > 0; ++i) {
      std::memcpy(work.data(), in + i * n * n, sizeof(scalar_t) * n * n);  // geev overwrites
      eig_matrix<scalar_t>(n, work.data(), wr.data(), wi.data(), vr.data(), w + 2 * i * n,
                           v + 2 * i * n * n);
    }
  });
}

// job: 0 singular values only, 1 reduced U (m, k) and Vt (k, n), 2 full U (m, m), Vt (n, n).
void svd(py::array a, py::array u_out, py::array s_out, py::array vt_out, int64_t B, int64_t m,
         int64_t n, int job) {
  const char* op = "linalg_svd";
  check_dims({B, m, n}, op);
  check_code(job, 3, op);
  const int64_t k = std::min(m, n);
  int dt = float_input(a, op, size_of({B, m, n}, op));
  const int64_t ucols = job == 2 ? m : k, vrows = job == 2 ? n : k;
  check_array(s_out, op, "s_out", dt, size_mul(B, k, op), kWrite);
  check_array(u_out, op, "u_out", dt, job ? size_of({B, m, ucols}, op) : 0, kWrite);
  check_array(vt_out, op, "vt_out", dt, job ? size_of({B, vrows, n}, op) : 0, kWrite);
  const char jobz = job == 0 ? 'N' : job == 1 ? 'S' : 'A';
  PD_DISPATCH_FLOAT(dt, op, {
    std::vector<scalar_t> work(std::max<int64_t>(m * n, 1));
    scalar_t dummy[1] = {0};
    scalar_t* s = out_ptr<scalar_t>(s_out);
    for (int64_t i = 0; i < B; ++i) {
      std::memcpy(work.data(), in_ptr<scalar_t>(a) + i * m * n, sizeof(scalar_t) * m * n);
      scalar_t* u = job ? out_ptr<scalar_t>(u_out) + i * m * ucols : dummy;
      scalar_t* vt = job ? out_ptr<scalar_t>(vt_out) + i * vrows * n : dummy;
      if (k == 0) {  // an empty matrix: full U and Vt are identities
        if (job == 2) {
          for (int64_t r = 0; r < m; ++r)
            for (int64_t c = 0; c < m; ++c) u[r * m + c] = r == c;
          for (int64_t r = 0; r < n; ++r)
            for (int64_t c = 0; c < n; ++c) vt[r * n + c] = r == c;
        }
        continue;
      }
      int info = gesdd(jobz, int(m), int(n), work.data(), s + i * k, u,
                       int(job ? ucols : 1), vt, int(job ? n : 1));
      if (info != 0) {
        fill_nan(s + i * k, k);
        if (job) {
          fill_nan(u, m * ucols);
          fill_nan(vt, vrows * n);
        }
      }
    }
  });
}

// complete: Q (m, m) and R (m, n); else Q (m, k) and R (k, n), k = min(m, n).
void qr(py::array a, py::array q_out, py::array r_out, int64_t B, int64_t m, int64_t n,
        bool complete) {
  const char* op = "linalg_qr";
  check_dims({B, m, n}, op);
  const int64_t k = std::min(m, n), qc = complete ? m : k, rr = complete ? m : k;
  int dt = float_input(a, op, size_of({B, m, n}, op));
  check_array(q_out, op, "q_out", dt, size_of({B, m, qc}, op), kWrite);
  check_array(r_out, op, "r_out", dt, size_of({B, rr, n}, op), kWrite);
  PD_DISPATCH_FLOAT(dt, op, {
    std::vector<scalar_t> work(std::max<int64_t>(m * n, 1)), tau(std::max<int64_t>(k, 1));
    for (int64_t i = 0; i < B; ++i) {
      scalar_t* q = out_ptr<scalar_t>(q_out) + i * m * qc;
      scalar_t* r = out_ptr<scalar_t>(r_out) + i * rr * n;
      std::memcpy(work.data(), in_ptr<scalar_t>(a) + i * m * n, sizeof(scalar_t) * m * n);
      if (m > 0 && n > 0) geqrf(int(m), int(n), work.data(), tau.data());
      for (int64_t row = 0; row < rr; ++row)
        for (int64_t c = 0; c < n; ++c)
          r[row * n + c] = (row < m && c >= row) ? work[row * n + c] : scalar_t(0);
      // Q from the reflectors: the first min(qc, n) columns of the factored matrix.
      for (int64_t row = 0; row < m; ++row)
        for (int64_t c = 0; c < qc; ++c) q[row * qc + c] = c < n ? work[row * n + c] : 0;
      if (m > 0 && qc > 0) orgqr(int(m), int(qc), int(k), q, tau.data());
    }
  });
}

}  // namespace

void init_linalg(py::module_& m) {
  m.def("linalg_lu", &lu, array_arg("a"), array_arg("lu_out"), array_arg("piv_out"),
        py::arg("B"), py::arg("m"), py::arg("n"), "LU with partial pivoting (getrf)");
  m.def("linalg_slogdet", &slogdet, array_arg("a"), array_arg("sign_out"), array_arg("log_out"),
        py::arg("B"), py::arg("n"), "sign and log|det| from an LU (getrf)");
  m.def("linalg_solve", &solve, array_arg("a"), array_arg("b"), array_arg("x_out"),
        py::arg("B"), py::arg("n"), py::arg("k"), "a x = b (getrf + getrs)");
  m.def("linalg_solve_triangular", &solve_triangular, array_arg("a"), array_arg("b"),
        array_arg("x_out"), py::arg("B"), py::arg("n"), py::arg("k"), py::arg("lower"),
        "a x = b for a triangular (trsm)");
  m.def("linalg_cholesky", &cholesky, array_arg("a"), array_arg("l_out"), py::arg("B"),
        py::arg("n"), "lower Cholesky factor (potrf); NaN when not positive definite");
  m.def("linalg_eigh", &eigh, array_arg("a"), array_arg("w_out"), array_arg("v_out"),
        py::arg("B"), py::arg("n"), "symmetric eigendecomposition from the lower triangle");
  m.def("linalg_eig", &eig, array_arg("a"), array_arg("w_out"), array_arg("v_out"),
        py::arg("B"), py::arg("n"),
        "general eigendecomposition (geev): complex values and vectors as float pairs");
  m.def("linalg_svd", &svd, array_arg("a"), array_arg("u_out"), array_arg("s_out"),
        array_arg("vt_out"), py::arg("B"), py::arg("m"), py::arg("n"), py::arg("job"),
        "singular value decomposition (gesdd)");
  m.def("linalg_qr", &qr, array_arg("a"), array_arg("q_out"), array_arg("r_out"), py::arg("B"),
        py::arg("m"), py::arg("n"), py::arg("complete"), "QR decomposition (geqrf + orgqr)");
}

}  // namespace paddle
