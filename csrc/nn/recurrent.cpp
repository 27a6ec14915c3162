// LSTM and GRU over whole batch-major sequences (N, T, F), Keras weight layouts, and their
// gradients through time.
//
// The batch rows are independent all along the sequence, so each OpenMP thread takes a
// slice of rows and runs their whole recurrence alone, with no barrier per step: first the
// input projection of all its steps as one GEMM, then per step one small GEMM with the
// recurrent kernel and the gate arithmetic. The backward pass walks the steps in reverse
// the same way, keeping the pre-activation gradients; the weight gradients are then a few
// large GEMMs over all N * T rows.
//
// kinds: 0 LSTM (gates i, f, c, o; bias (4U,)), 1 GRU reset_after (z, r, h; bias (2, 3U)),
// 2 GRU with the reset gate before the product (bias (3U,)).
// Saved per step in `gates` (N, T, 4U): LSTM i, f, c~, o after activation; GRU z, r, h~
// after activation and, for kind 1, the recurrent part of h~'s pre-activation.
//
// Two optional inputs (empty arrays when absent), as Keras's cells use them:
// - mask (N, T): a step whose mask is 0 keeps the previous state (h, and c for the LSTM),
//   and outputs it; its gradients pass straight to the previous state.
// - rdrop (N, U): recurrent dropout, a multiplier of the previous h in the recurrent
//   product only (not in the carried state nor in GRU's z * h_prev).
#include <cmath>
#include <vector>

#include "../blas.h"
#include "nn.h"
#include "../vmath.h"

namespace paddle {
namespace {

enum Kind { kLSTM = 0, kGRU = 1, kGRUClassic = 2 };

// The gates' activations: vmath.h's vectorizable ones in float32 (as the unary kernels),
// the C library's in float64.
template <typename T>
PD_VM_INLINE T sigmoid(T v) {
  if constexpr (std::is_same<T, float>::value) return vm::sigmoid(v);
  return T(1) / (T(1) + std::exp(-v));
}
template <typename T>
PD_VM_INLINE T tanh_of(T v) {
  if constexpr (std::is_same<T, float>::value) return vm::tanh(v);
  return std::tanh(v);
}

struct Rnn {
  int kind;
  int64_t N, T, F, U, G;  // G gates: 4 (LSTM) or 3 (GRU)
  const char* op;
  // Element counts of the operands, overflow-checked: (N, T, F), (F, G*U), (U, G*U),
  // (N, U), (N, T, U), the gates (N, T, 4U) and the bias.
  int64_t x_size, w_size, r_size, state_size, states_size, gates_size, bias_size;

  Rnn(const char* op_, int kind_, const py::array& x, const py::array& R) : kind(kind_), op(op_) {
    require(kind >= 0 && kind <= 2, op,
            "argument 'kind' expected 0 (LSTM), 1 or 2 (GRU), received " + std::to_string(kind));
    require(x.ndim() == 3 && R.ndim() == 2, op, "expected x (N, T, F) and a 2-D recurrent kernel");
    N = x.shape(0); T = x.shape(1); F = x.shape(2); U = R.shape(0);
    G = kind == kLSTM ? 4 : 3;
    require(T >= 1 && U >= 1, op, "empty sequence or no units");
    x_size = size_of({N, T, F}, op);
    w_size = size_of({F, G, U}, op);
    r_size = size_of({U, G, U}, op);
    state_size = size_of({N, U}, op);
    states_size = size_of({N, T, U}, op);
    gates_size = size_of({N, T, 4, U}, op);
    bias_size = size_of({kind == kGRU ? 2 : 1, G, U}, op);
    check_blas_dims(size_mul(N, T, op), size_mul(G, U, op), std::max(F, U), op);
  }
  bool has_cell() const { return kind == kLSTM; }
};

// A masked step: row n's state at step t is the one it started from.
template <typename T>
inline void keep_state(const Rnn& r, int64_t n, int64_t t, const T* h0, const T* c0, T* hs,
                       T* cs) {
  const int64_t U = r.U, s = n * r.T + t;
  const T* h_prev = t == 0 ? h0 + n * U : hs + (s - 1) * U;
  std::copy(h_prev, h_prev + U, hs + s * U);
  if (r.kind == kLSTM) {
    const T* c_prev = t == 0 ? c0 + n * U : cs + (s - 1) * U;
    std::copy(c_prev, c_prev + U, cs + s * U);
  }
}

// Splits rows [0, N) over the threads (one slice each) and calls f(n0, n1) per slice.
template <typename F>
void over_rows(const Rnn& r, F f) {
  if (r.N == 0) return;
  const int nt = int(std::min<int64_t>(max_threads(), r.N));
  const bool par = nt > 1 && r.N * r.T * r.G * r.U >= 4096;
  _Pragma("omp parallel num_threads(nt) if (par)")
  {
    const int t = omp_get_thread_num(), n = omp_get_num_threads();
    const int64_t n0 = r.N * t / n, n1 = r.N * (t + 1) / n;
    if (n1 > n0) f(n0, n1);
  }
}

template <typename T>
void forward_typed(const Rnn& r, const T* x, const T* W, const T* R, const T* b, const T* h0,
                   const T* c0, T* hs, T* cs, T* gates, const T* mask, const T* rdrop) {
  const int64_t U = r.U, G = r.G, T_ = r.T, ld = 4 * U;  // gates rows are 4U wide
  // Scratch rows for every batch row, allocated here: nothing may throw inside the
  // parallel region. A thread uses the rows of its own slice.
  std::vector<T> rec_all(size_t(r.N) * G * U), rh_all(r.kind == kGRUClassic ? r.N * U : 0),
      hd_all(rdrop ? r.N * U : 0);
  over_rows(r, [&](int64_t n0, int64_t n1) {
    const int64_t rows = n1 - n0;
    T* rec = rec_all.data() + n0 * G * U;
    T* rh = r.kind == kGRUClassic ? rh_all.data() + n0 * U : nullptr;
    T* hd = rdrop ? hd_all.data() + n0 * U : nullptr;
    // Input projection of every step of these rows: gates[:, :, :G*U] = x W + b_in.
    T* g0 = gates + n0 * T_ * ld;
    for (int64_t i = 0; i < rows * T_; ++i)
      for (int64_t j = 0; j < G * U; ++j) g0[i * ld + j] = b[j];
    blas_gemm(false, false, rows * T_, G * U, r.F, T(1), x + n0 * T_ * r.F, r.F, W, G * U, T(1),
              g0, ld);
    const T* b_rec = r.kind == kGRU ? b + G * U : nullptr;
    for (int64_t t = 0; t < T_; ++t) {
      // The previous state of row n: h0 at t = 0, else hs[n, t - 1] (stride T * U).
      const T* hp = t == 0 ? h0 + n0 * U : hs + (n0 * T_ + t - 1) * U;
      const int64_t ldh = t == 0 ? U : T_ * U;
      const int64_t rec_cols = r.kind == kGRUClassic ? 2 * U : G * U;
      // The recurrent product reads the previous h, times the recurrent dropout if any.
      const T* hr = hp;
      int64_t ldr = ldh;
      if (rdrop) {
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t u = 0; u < U; ++u)
            hd[i * U + u] = hp[i * ldh + u] * rdrop[(n0 + i) * U + u];
        hr = hd;
        ldr = U;
      }
      blas_gemm(false, false, rows, rec_cols, U, T(1), hr, ldr, R, G * U, T(0), rec, G * U);
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t n = n0 + i;
        T* gt = gates + (n * T_ + t) * ld;
        const T* h_prev = hp + i * ldh;
        const T* rc = rec + i * G * U;
        T* h = hs + (n * T_ + t) * U;
        if (r.kind == kLSTM) {
          const T* c_prev = t == 0 ? c0 + n * U : cs + (n * T_ + t - 1) * U;
          T* c = cs + (n * T_ + t) * U;
          for (int64_t u = 0; u < U; ++u) {
            const T ig = sigmoid(gt[u] + rc[u]);
            const T fg = sigmoid(gt[U + u] + rc[U + u]);
            const T cg = tanh_of(gt[2 * U + u] + rc[2 * U + u]);
            const T og = sigmoid(gt[3 * U + u] + rc[3 * U + u]);
            gt[u] = ig; gt[U + u] = fg; gt[2 * U + u] = cg; gt[3 * U + u] = og;
            c[u] = fg * c_prev[u] + ig * cg;
            h[u] = og * tanh_of(c[u]);
          }
        } else if (r.kind == kGRU) {
          for (int64_t u = 0; u < U; ++u) {
            const T z = sigmoid(gt[u] + rc[u] + b_rec[u]);
            const T rg = sigmoid(gt[U + u] + rc[U + u] + b_rec[U + u]);
            const T rech = rc[2 * U + u] + b_rec[2 * U + u];
            const T hh = tanh_of(gt[2 * U + u] + rg * rech);
            gt[u] = z; gt[U + u] = rg; gt[2 * U + u] = hh; gt[3 * U + u] = rech;
            h[u] = z * h_prev[u] + (T(1) - z) * hh;
          }
        } else {
          const T* h_rec = hr + i * ldr;
          for (int64_t u = 0; u < U; ++u) {
            gt[u] = sigmoid(gt[u] + rc[u]);
            gt[U + u] = sigmoid(gt[U + u] + rc[U + u]);
            rh[i * U + u] = gt[U + u] * h_rec[u];
          }
        }
        if (mask && r.kind != kGRUClassic && mask[n * T_ + t] == T(0)) keep_state(r, n, t, h0,
                                                                                 c0, hs, cs);
      }
      if (r.kind != kGRUClassic) continue;
      // h~ = tanh(x_h + (r * h_prev) R_h): a second product once r is known.
      blas_gemm(false, false, rows, U, U, T(1), rh, U, R + 2 * U, G * U, T(0), rec, U);
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t n = n0 + i;
        T* gt = gates + (n * T_ + t) * ld;
        const T* h_prev = hp + i * ldh;
        T* h = hs + (n * T_ + t) * U;
        for (int64_t u = 0; u < U; ++u) {
          const T hh = tanh_of(gt[2 * U + u] + rec[i * U + u]);
          gt[2 * U + u] = hh;
          gt[3 * U + u] = T(0);
          h[u] = gt[u] * h_prev[u] + (T(1) - gt[u]) * hh;
        }
        if (mask && mask[n * T_ + t] == T(0)) keep_state(r, n, t, h0, c0, hs, cs);
      }
    }
  });
}

// Column sums of a (rows, cols) matrix with row stride ld, added to out.
template <typename T>
void add_column_sums(const T* a, int64_t rows, int64_t cols, int64_t ld, T* out) {
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) out[j] += a[i * ld + j];
}

template <typename T>
void backward_typed(const Rnn& r, const T* x, const T* W, const T* R, const T* h0, const T* c0,
                    const T* hs, const T* cs, const T* gates, const T* dhs, const T* dcs, T* dx,
                    T* dW, T* dR, T* db, T* dh0, T* dc0, const T* mask, const T* rdrop) {
  const int64_t U = r.U, G = r.G, T_ = r.T, NT = r.N * r.T, GU = G * U;
  // dX: gradients of the input projection's pre-activations (N, T, G*U); dRec: of the
  // recurrent product's (GRU reset_after only, where they differ); hprev: what the
  // recurrent product read at each step (the previous state, times the recurrent dropout);
  // for the classic GRU, r * that.
  std::vector<T> dX(NT * GU), dRec(r.kind == kGRU ? NT * GU : 0), hprev(NT * U),
      rh(r.kind == kGRUClassic ? NT * U : 0);
  // Per batch row: the gradients reaching the state each step started from, carried to
  // the step before, and scratch; allocated here, as nothing may throw in the region.
  std::vector<T> dh_all(r.N * U, T(0)), dc_all(r.N * U, T(0)), drh_all(r.N * U),
      dp_all(r.N * U);
  over_rows(r, [&](int64_t n0, int64_t n1) {
    const int64_t rows = n1 - n0;
    T* dh = dh_all.data() + n0 * U;
    T* dc = dc_all.data() + n0 * U;
    T* drh = drh_all.data() + n0 * U;
    T* dp = dp_all.data() + n0 * U;  // gradient reaching the recurrent product's input
    for (int64_t t = T_ - 1; t >= 0; --t) {
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t n = n0 + i, s = n * T_ + t;
        const T* gt = gates + s * 4 * U;
        const T* h_prev = t == 0 ? h0 + n * U : hs + (s - 1) * U;
        const T* rd = rdrop ? rdrop + n * U : nullptr;
        T* hps = hprev.data() + s * U;
        for (int64_t u = 0; u < U; ++u) hps[u] = rd ? h_prev[u] * rd[u] : h_prev[u];
        T* dxs = dX.data() + s * GU;
        T* dhi = dh + i * U;
        const T* dhs_s = dhs + s * U;
        if (mask && mask[s] == T(0)) {
          // The step kept its state: everything passes to the previous one unchanged.
          std::fill(dxs, dxs + GU, T(0));
          if (r.kind == kGRU) std::fill(dRec.data() + s * GU, dRec.data() + (s + 1) * GU, T(0));
          if (r.kind == kGRUClassic) std::fill(rh.data() + s * U, rh.data() + (s + 1) * U, T(0));
          for (int64_t u = 0; u < U; ++u) dhi[u] += dhs_s[u];
          if (r.kind == kLSTM)
            for (int64_t u = 0; u < U; ++u) dc[i * U + u] += dcs[s * U + u];
          continue;
        }
        if (r.kind == kLSTM) {
          const T* c = cs + s * U;
          const T* c_prev = t == 0 ? c0 + n * U : cs + (s - 1) * U;
          T* dci = dc + i * U;
          for (int64_t u = 0; u < U; ++u) {
            const T ig = gt[u], fg = gt[U + u], cg = gt[2 * U + u], og = gt[3 * U + u];
            const T tc = tanh_of(c[u]);
            const T dhv = dhs_s[u] + dhi[u];
            const T dcv = dcs[s * U + u] + dci[u] + dhv * og * (T(1) - tc * tc);
            dxs[u] = dcv * cg * ig * (T(1) - ig);
            dxs[U + u] = dcv * c_prev[u] * fg * (T(1) - fg);
            dxs[2 * U + u] = dcv * ig * (T(1) - cg * cg);
            dxs[3 * U + u] = dhv * tc * og * (T(1) - og);
            dci[u] = dcv * fg;
            dhi[u] = T(0);  // h_prev is reached only through the recurrent product
          }
        } else {
          T* drs = r.kind == kGRU ? dRec.data() + s * GU : nullptr;
          for (int64_t u = 0; u < U; ++u) {
            const T z = gt[u], rg = gt[U + u], hh = gt[2 * U + u];
            const T dhv = dhs_s[u] + dhi[u];
            const T dz = dhv * (h_prev[u] - hh) * z * (T(1) - z);
            const T dah = dhv * (T(1) - z) * (T(1) - hh * hh);
            dxs[u] = dz;
            dxs[2 * U + u] = dah;
            dhi[u] = dhv * z;  // the direct path; the products are added below
            if (r.kind == kGRU) {
              const T rech = gt[3 * U + u];
              dxs[U + u] = dah * rech * rg * (T(1) - rg);
              drs[u] = dz;
              drs[U + u] = dxs[U + u];
              drs[2 * U + u] = dah * rg;
            } else {
              rh[s * U + u] = rg * hps[u];
            }
          }
        }
      }
      // dp = (gradient of the recurrent pre-activations) R^T: the gradient of what the
      // recurrent product read; h_prev gets it times the recurrent dropout.
      const T* src = r.kind == kGRU ? dRec.data() : dX.data();
      const int64_t first = (n0 * T_ + t) * GU, ld = T_ * GU;
      if (r.kind != kGRUClassic) {
        blas_gemm(false, true, rows, U, GU, T(1), src + first, ld, R, GU, T(0), dp, U);
      } else {
        // d(r * hr) = da_h R_h^T; it reaches r's pre-activation and hr.
        blas_gemm(false, true, rows, U, U, T(1), src + first + 2 * U, ld, R + 2 * U, GU, T(0),
                  drh, U);
        for (int64_t i = 0; i < rows; ++i) {
          const int64_t s = (n0 + i) * T_ + t;
          T* dxs = dX.data() + s * GU;
          const T* gt = gates + s * 4 * U;
          const T* hr = hprev.data() + s * U;
          const bool kept = mask && mask[s] == T(0);
          for (int64_t u = 0; u < U; ++u) {
            const T rg = gt[U + u];
            dxs[U + u] = kept ? T(0) : drh[i * U + u] * hr[u] * rg * (T(1) - rg);
            dp[i * U + u] = kept ? T(0) : drh[i * U + u] * rg;
          }
        }
        blas_gemm(false, true, rows, U, 2 * U, T(1), src + first, ld, R, GU, T(1), dp, U);
      }
      for (int64_t i = 0; i < rows; ++i) {
        const T* rd = rdrop ? rdrop + (n0 + i) * U : nullptr;
        for (int64_t u = 0; u < U; ++u)
          dh[i * U + u] += rd ? dp[i * U + u] * rd[u] : dp[i * U + u];
      }
    }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t u = 0; u < U; ++u) {
        dh0[(n0 + i) * U + u] = dh[i * U + u];
        if (r.kind == kLSTM) dc0[(n0 + i) * U + u] = dc[i * U + u];
      }
  });
  // Weight gradients over all N * T steps at once.
  gemm_parallel<T>(true, false, r.F, GU, NT, T(1), x, dX.data(), T(0), dW);
  gemm_parallel<T>(false, true, NT, r.F, GU, T(1), dX.data(), W, T(0), dx);
  std::fill(db, db + r.bias_size, T(0));
  add_column_sums(dX.data(), NT, GU, GU, db);
  if (r.kind == kGRU) {
    gemm_parallel<T>(true, false, U, GU, NT, T(1), hprev.data(), dRec.data(), T(0), dR);
    add_column_sums(dRec.data(), NT, GU, GU, db + GU);
  } else if (r.kind == kLSTM) {
    gemm_parallel<T>(true, false, U, GU, NT, T(1), hprev.data(), dX.data(), T(0), dR);
  } else {
    // dR[:, :2U] from hr, dR[:, 2U:] from r * hr (strided columns: plain BLAS).
    blas_gemm(true, false, U, 2 * U, NT, T(1), hprev.data(), U, dX.data(), GU, T(0), dR, GU);
    blas_gemm(true, false, U, U, NT, T(1), rh.data(), U, dX.data() + 2 * U, GU, T(0), dR + 2 * U,
              GU);
  }
}

void rnn_forward(int kind, py::array x, py::array W, py::array R, py::array b, py::array h0,
                 py::array c0, py::array hs, py::array cs, py::array gates, py::array mask,
                 py::array rdrop) {
  Rnn r("rnn_forward", kind, x, R);
  const char* op = r.op;
  int dt = check_dtype(x, op, "x");
  // The GRU has no cell state: c0 and cs are placeholders of any size, never touched.
  const int64_t cell = r.has_cell() ? r.state_size : -1, cells = r.has_cell() ? r.states_size : -1;
  check_array(x, op, "x", dt, r.x_size, kRead);
  check_array(W, op, "W", dt, r.w_size, kRead);
  check_array(R, op, "R", dt, r.r_size, kRead);
  check_array(b, op, "b", dt, r.bias_size, kRead);
  check_array(h0, op, "h0", dt, r.state_size, kRead);
  check_array(c0, op, "c0", dt, cell, kRead);
  check_array(hs, op, "hs", dt, r.states_size, kWrite);
  check_array(cs, op, "cs", dt, cells, kWrite);
  check_array(gates, op, "gates", dt, r.gates_size, kWrite);
  // Optional (empty when absent): the step mask (N, T) and the recurrent dropout (N, U).
  const bool has_mask = mask.size() > 0, has_rdrop = rdrop.size() > 0;
  check_array(mask, op, "mask", dt, has_mask ? r.N * r.T : 0, kRead);
  check_array(rdrop, op, "rdrop", dt, has_rdrop ? r.state_size : 0, kRead);
  GilRelease nogil(r.gates_size);
  PD_DISPATCH_FLOAT(dt, r.op, {
    forward_typed<scalar_t>(r, in_ptr<scalar_t>(x), in_ptr<scalar_t>(W), in_ptr<scalar_t>(R),
                            in_ptr<scalar_t>(b), in_ptr<scalar_t>(h0), in_ptr<scalar_t>(c0),
                            out_ptr<scalar_t>(hs), out_ptr<scalar_t>(cs),
                            out_ptr<scalar_t>(gates),
                            has_mask ? in_ptr<scalar_t>(mask) : nullptr,
                            has_rdrop ? in_ptr<scalar_t>(rdrop) : nullptr);
  });
}

void rnn_backward(int kind, py::array x, py::array W, py::array R, py::array h0, py::array c0,
                  py::array hs, py::array cs, py::array gates, py::array dhs, py::array dcs,
                  py::array dx, py::array dW, py::array dR, py::array db, py::array dh0,
                  py::array dc0, py::array mask, py::array rdrop) {
  Rnn r("rnn_backward", kind, x, R);
  const char* op = r.op;
  int dt = check_dtype(x, op, "x");
  const int64_t cell = r.has_cell() ? r.state_size : -1, cells = r.has_cell() ? r.states_size : -1;
  check_array(x, op, "x", dt, r.x_size, kRead);
  check_array(W, op, "W", dt, r.w_size, kRead);
  check_array(R, op, "R", dt, r.r_size, kRead);
  check_array(h0, op, "h0", dt, r.state_size, kRead);
  check_array(c0, op, "c0", dt, cell, kRead);
  check_array(hs, op, "hs", dt, r.states_size, kRead);
  check_array(cs, op, "cs", dt, cells, kRead);
  check_array(gates, op, "gates", dt, r.gates_size, kRead);
  check_array(dhs, op, "dhs", dt, r.states_size, kRead);
  check_array(dcs, op, "dcs", dt, cells, kRead);
  check_array(dx, op, "dx", dt, r.x_size, kWrite);
  check_array(dW, op, "dW", dt, r.w_size, kWrite);
  check_array(dR, op, "dR", dt, r.r_size, kWrite);
  check_array(db, op, "db", dt, r.bias_size, kWrite);
  check_array(dh0, op, "dh0", dt, r.state_size, kWrite);
  check_array(dc0, op, "dc0", dt, cell, kWrite);
  const bool has_mask = mask.size() > 0, has_rdrop = rdrop.size() > 0;
  check_array(mask, op, "mask", dt, has_mask ? r.N * r.T : 0, kRead);
  check_array(rdrop, op, "rdrop", dt, has_rdrop ? r.state_size : 0, kRead);
  GilRelease nogil(r.gates_size);
  PD_DISPATCH_FLOAT(dt, r.op, {
    backward_typed<scalar_t>(
        r, in_ptr<scalar_t>(x), in_ptr<scalar_t>(W), in_ptr<scalar_t>(R), in_ptr<scalar_t>(h0),
        in_ptr<scalar_t>(c0), in_ptr<scalar_t>(hs), in_ptr<scalar_t>(cs), in_ptr<scalar_t>(gates),
        in_ptr<scalar_t>(dhs), in_ptr<scalar_t>(dcs), out_ptr<scalar_t>(dx),
        out_ptr<scalar_t>(dW), out_ptr<scalar_t>(dR), out_ptr<scalar_t>(db),
        out_ptr<scalar_t>(dh0), out_ptr<scalar_t>(dc0),
        has_mask ? in_ptr<scalar_t>(mask) : nullptr,
        has_rdrop ? in_ptr<scalar_t>(rdrop) : nullptr);
  });
}

}  // namespace

void init_recurrent(py::module_& m) {
  m.def("rnn_forward", &rnn_forward,
        py::arg("kind"), array_arg("x"), array_arg("W"), array_arg("R"), array_arg("b"),
        array_arg("h0"), array_arg("c0"), array_arg("hs"), array_arg("cs"), array_arg("gates"),
        array_arg("mask"), array_arg("rdrop"),
        "LSTM (kind 0) or GRU (1: reset_after, 2: classic) over (N, T, F): all hidden states, "
        "LSTM cell states, and the gates the backward pass needs");
  m.def("rnn_backward", &rnn_backward,
        py::arg("kind"), array_arg("x"), array_arg("W"), array_arg("R"), array_arg("h0"),
        array_arg("c0"), array_arg("hs"), array_arg("cs"), array_arg("gates"), array_arg("dhs"),
        array_arg("dcs"), array_arg("dx"), array_arg("dW"), array_arg("dR"), array_arg("db"),
        array_arg("dh0"), array_arg("dc0"), array_arg("mask"), array_arg("rdrop"),
        "gradients of rnn_forward's inputs from the gradients of its states");
}

}  // namespace paddle
