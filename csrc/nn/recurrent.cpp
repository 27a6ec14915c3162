// LSTM and GRU over whole batch-major sequences (N, T, F), Keras weight layouts, and their
// gradients through time.
//
// The batch rows are independent all along the sequence, so each OpenMP thread takes a
// slice of rows and runs their whole recurrence alone, with no barrier per step: first the
// input projection of all its steps as one GEMM, then per step one small GEMM with the
// recurrent kernel and the gate arithmetic. The backward pass walks the steps in reverse
// the same way, keeping the pre-activation gradients; the weight gradients are then a few
// large GEMMs over all N * T rows. The cell's elementwise arithmetic runs on vectors for
// float32 (gate_math.h: its sigmoid and tanh, the LSTM's whole cell); docs/performance.md
// has the measurements behind these choices.
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
#include <memory>
#include <vector>

#include "../blas.h"
#include "gate_math.h"
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
    if (!(kind >= 0 && kind <= 2))
      fail(op, "argument 'kind' expected 0 (LSTM), 1 or 2 (GRU), received " + std::to_string(kind));
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
    // K up to F + U: the LSTM's backward multiplies rows [x | h_prev] (backward_typed).
    check_blas_dims(size_mul(N, T, op), size_mul(G, U, op), size_add(F, U, op), op);
  }
  bool has_cell() const { return kind == kLSTM; }
};

// Asks the caches for n values at p, ahead of their use (for writing when W). A step's rows
// lie T steps apart, too far for the hardware prefetchers, and each row's work is short:
// the elementwise passes stalled on memory without this.
template <bool W = false, typename T>
inline void prefetch(const T* p, int64_t n) {
  const char* b = reinterpret_cast<const char*>(p);
  for (int64_t k = 0; k < n * int64_t(sizeof(T)); k += 64) __builtin_prefetch(b + k, W ? 1 : 0);
}

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

// The elementwise arithmetic of one row's step (gate_math.h): the LSTM's whole cell, and
// the sigmoid or tanh of a span (the GRU's gates), in place. Vectors for float32, std::exp
// and std::tanh for float64.
template <typename T>
struct Cell {
  void activate(T* x, int64_t n, bool tanh_) const {
    for (int64_t i = 0; i < n; ++i) x[i] = tanh_ ? std::tanh(x[i]) : sigmoid(x[i]);
  }
  void forward(T* gt, const T* b, const T* c_prev, T* c, T* h, int64_t U) const {
    for (int64_t u = 0; u < U; ++u) {
      const T ig = sigmoid(gt[u] + b[u]), fg = sigmoid(gt[U + u] + b[U + u]),
              cg = std::tanh(gt[2 * U + u] + b[2 * U + u]),
              og = sigmoid(gt[3 * U + u] + b[3 * U + u]);
      gt[u] = ig; gt[U + u] = fg; gt[2 * U + u] = cg; gt[3 * U + u] = og;
      c[u] = fg * c_prev[u] + ig * cg;
      h[u] = og * std::tanh(c[u]);
    }
  }
  void backward(const T* gt, const T* c, const T* c_prev, const T* dhs, const T* dcs, T* dh,
                T* dc, T* dx, int64_t U) const {
    for (int64_t u = 0; u < U; ++u) {
      const T ig = gt[u], fg = gt[U + u], cg = gt[2 * U + u], og = gt[3 * U + u];
      const T tc = std::tanh(c[u]);
      const T dhv = dhs[u] + dh[u];
      const T dcv = dcs[u] + dc[u] + dhv * og * (T(1) - tc * tc);
      dx[u] = dcv * cg * ig * (T(1) - ig);
      dx[U + u] = dcv * c_prev[u] * fg * (T(1) - fg);
      dx[2 * U + u] = dcv * ig * (T(1) - cg * cg);
      dx[3 * U + u] = dhv * tc * og * (T(1) - og);
      dc[u] = dcv * fg;
      dh[u] = T(0);  // h_prev is reached only through the recurrent product
    }
  }
};

template <>
struct Cell<float> {
  gates::Fns f = gates::fns();
  void activate(float* x, int64_t n, bool tanh_) const { f.activate(x, x, n, tanh_); }
  void forward(float* gt, const float* b, const float* c_prev, float* c, float* h,
               int64_t U) const {
    f.forward(gt, b, c_prev, c, h, U);
  }
  void backward(const float* gt, const float* c, const float* c_prev, const float* dhs,
                const float* dcs, float* dh, float* dc, float* dx, int64_t U) const {
    f.backward(gt, c, c_prev, dhs, dcs, dh, dc, dx, U);
  }
};

template <typename T>
void forward_typed(const Rnn& r, const T* x, const T* W, const T* R, const T* b, const T* h0,
                   const T* c0, T* hs, T* cs, T* gates, const T* mask, const T* rdrop) {
  const int64_t U = r.U, G = r.G, T_ = r.T, ld = 4 * U;  // gates rows are 4U wide
  // Scratch rows for every batch row, allocated here: nothing may throw inside the
  // parallel region. A thread uses the rows of its own slice.
  const Cell<T> cell;
  std::vector<T> rec_all(r.kind == kLSTM ? 0 : size_t(r.N) * G * U),
      rh_all(r.kind == kGRUClassic ? r.N * U : 0), hd_all(rdrop ? r.N * U : 0);
  over_rows(r, [&](int64_t n0, int64_t n1) {
    const int64_t rows = n1 - n0;
    T* rec = r.kind == kLSTM ? nullptr : rec_all.data() + n0 * G * U;
    T* rh = r.kind == kGRUClassic ? rh_all.data() + n0 * U : nullptr;
    T* hd = rdrop ? hd_all.data() + n0 * U : nullptr;
    // Input projection of every step of these rows: gates[:, :, :G*U] = x W + b_in (the
    // LSTM's cell adds its bias itself, saving a pass over the gates).
    T* g0 = gates + n0 * T_ * ld;
    if (r.kind != kLSTM)
      for (int64_t i = 0; i < rows * T_; ++i)
        for (int64_t j = 0; j < G * U; ++j) g0[i * ld + j] = b[j];
    blas_gemm(false, false, rows * T_, G * U, r.F, T(1), x + n0 * T_ * r.F, r.F, W, G * U,
              T(r.kind != kLSTM), g0, ld);
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
      if (r.kind == kLSTM)  // added to the input projection, in place
        blas_gemm(false, false, rows, rec_cols, U, T(1), hr, ldr, R, G * U, T(1),
                  gates + (n0 * T_ + t) * ld, T_ * ld);
      else
        blas_gemm(false, false, rows, rec_cols, U, T(1), hr, ldr, R, G * U, T(0), rec, G * U);
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t n = n0 + i;
        T* gt = gates + (n * T_ + t) * ld;
        const T* h_prev = hp + i * ldh;
        const T* rc = rec ? rec + i * G * U : nullptr;
        T* h = hs + (n * T_ + t) * U;
        if (r.kind == kLSTM) {
          const T* c_prev = t == 0 ? c0 + n * U : cs + (n * T_ + t - 1) * U;
          cell.forward(gt, b, c_prev, cs + (n * T_ + t) * U, h, U);
        } else if (r.kind == kGRU) {
          // z and r (contiguous), then h~ once r is known; the activations on whole spans.
          for (int64_t u = 0; u < 2 * U; ++u) gt[u] += rc[u] + b_rec[u];
          cell.activate(gt, 2 * U, false);
          for (int64_t u = 0; u < U; ++u) {
            const T rech = rc[2 * U + u] + b_rec[2 * U + u];
            gt[2 * U + u] += gt[U + u] * rech;
            gt[3 * U + u] = rech;
          }
          cell.activate(gt + 2 * U, U, true);
          for (int64_t u = 0; u < U; ++u)
            h[u] = gt[u] * h_prev[u] + (T(1) - gt[u]) * gt[2 * U + u];
        } else {
          const T* h_rec = hr + i * ldr;
          for (int64_t u = 0; u < 2 * U; ++u) gt[u] += rc[u];
          cell.activate(gt, 2 * U, false);
          for (int64_t u = 0; u < U; ++u) rh[i * U + u] = gt[U + u] * h_rec[u];
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
          gt[2 * U + u] += rec[i * U + u];
          gt[3 * U + u] = T(0);
        }
        cell.activate(gt + 2 * U, U, true);
        for (int64_t u = 0; u < U; ++u)
          h[u] = gt[u] * h_prev[u] + (T(1) - gt[u]) * gt[2 * U + u];
        if (mask && mask[n * T_ + t] == T(0)) keep_state(r, n, t, h0, c0, hs, cs);
      }
    }
  });
}

template <typename T>
void backward_typed(const Rnn& r, const T* x, const T* W, const T* R, const T* h0, const T* c0,
                    const T* hs, const T* cs, const T* gates, const T* dhs, const T* dcs, T* dx,
                    T* dW, T* dR, T* db, T* dh0, T* dc0, const T* mask, const T* rdrop) {
  const int64_t U = r.U, G = r.G, T_ = r.T, NT = r.N * r.T, GU = G * U;
  // dX: gradients of the input projection's pre-activations (N, T, G*U); dRec: of the
  // recurrent product's (GRU reset_after only, where they differ); hprev: what the
  // recurrent product read at each step (the previous state, times the recurrent dropout);
  // for the classic GRU, r * that. The LSTM keeps hprev beside a copy of x, rows [x | h]
  // (HL = F + U wide), so that dW and dR are one product with dX: the BLAS then packs dX,
  // the largest operand, once instead of twice.
  // Every entry is written before it is read: no zero-fill (new T[], not std::vector).
  const bool joint = r.kind == kLSTM;
  const int64_t F = r.F, HL = joint ? F + U : U;
  std::unique_ptr<T[]> dX_(new T[NT * GU]), dRec_(new T[r.kind == kGRU ? NT * GU : 0]),
      xh_(new T[NT * HL]), rh_(new T[r.kind == kGRUClassic ? NT * U : 0]);
  T *dX = dX_.get(), *dRec = dRec_.get(), *xh = xh_.get(), *rh = rh_.get();
  T* hprev = joint ? xh + F : xh;  // rows HL apart
  // R transposed (G*U, U): the per-step products dgates R^T then read it row-major, which
  // OpenBLAS runs 15-20% faster on these small M than the transposed operand.
  std::vector<T> RT(GU * U);
  for (int64_t u = 0; u < U; ++u)
    for (int64_t j = 0; j < GU; ++j) RT[j * U + u] = R[u * GU + j];
  const Cell<T> cell;
  // Per batch row: the gradients reaching the state each step started from, carried to
  // the step before, and scratch; allocated here, as nothing may throw in the region.
  std::vector<T> dh_all(r.N * U, T(0)), dc_all(r.N * U, T(0)), drh_all(r.N * U),
      dp_all(r.N * U), zero_row(dcs ? 0 : U, T(0));  // zero_row: dcs's rows when it is absent
  // The bias gradients, column sums of dX (and dRec), summed by each thread over its rows
  // step by step while they are in cache (a pass over all of dX after the region read
  // 13 MB on one thread); the threads' sums are added after it.
  const int64_t nb = r.kind == kGRU ? 2 * GU : GU;
  const int slots = max_threads();  // over_rows's team is at most this large
  std::vector<T> db_parts(size_t(slots) * nb, T(0));
  // The LSTM's [dW; dR] as the threads' shares over their own rows, summed after the region.
  std::unique_ptr<T[]> wr_parts(new T[joint ? slots * HL * GU : 0]);
  std::vector<char> wr_done(slots, 0);
  over_rows(r, [&](int64_t n0, int64_t n1) {
    const int64_t rows = n1 - n0;
    const int slot = omp_get_thread_num();
    T* dbp = db_parts.data() + slot * nb;
    // Adds this step's rows of dX (and dRec) to the thread's bias sums.
    auto sum_bias = [&](int64_t t) {
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t s = (n0 + i) * T_ + t;
        const T* dxs = dX + s * GU;
        for (int64_t j = 0; j < GU; ++j) dbp[j] += dxs[j];
        if (r.kind == kGRU) {
          const T* drs = dRec + s * GU;
          for (int64_t j = 0; j < GU; ++j) dbp[GU + j] += drs[j];
        }
      }
    };
    T* dh = dh_all.data() + n0 * U;
    T* dc = dc_all.data() + n0 * U;
    T* drh = drh_all.data() + n0 * U;
    T* dp = dp_all.data() + n0 * U;  // gradient reaching the recurrent product's input
    // out (rows, U) = beta * out + (rows of src, ld apart) R^T, as one product per gate
    // (K = U each, summed into out): OpenBLAS runs these small products without packing
    // R^T (its small-matrix kernels), where one K = G*U product repacks all of it every
    // step (docs/performance.md, "Recurrent layers").
    auto per_gate_product = [&](const T* a, int64_t lda, T* out, T beta) {
      for (int64_t g = 0; g < G; ++g)
        blas_gemm(false, false, rows, U, U, T(1), a + g * U, lda, RT.data() + g * U * U, U,
                  g == 0 ? beta : T(1), out, U);
    };
    for (int64_t t = T_ - 1; t >= 0; --t) {
      for (int64_t i = 0; i < rows; ++i) {
        const int64_t n = n0 + i, s = n * T_ + t;
        if (i + 1 < rows && r.kind == kLSTM) {  // the next row's operands of this step
          const int64_t q = s + T_;
          prefetch(gates + q * 4 * U, 4 * U);
          prefetch(cs + (q - 1) * U, 2 * U);  // c_prev and c
          if (t > 0) prefetch(hs + (q - 1) * U, U);
          prefetch(dhs + q * U, U);
          if (dcs) prefetch(dcs + q * U, U);
          prefetch<true>(dX + q * GU, GU);
          prefetch<true>(xh + q * HL, HL);
          prefetch(x + q * F, F);
        }
        const T* gt = gates + s * 4 * U;
        const T* h_prev = t == 0 ? h0 + n * U : hs + (s - 1) * U;
        const T* rd = rdrop ? rdrop + n * U : nullptr;
        T* hps = hprev + s * HL;
        if (joint) std::copy(x + s * F, x + (s + 1) * F, xh + s * HL);
        if (rd)
          for (int64_t u = 0; u < U; ++u) hps[u] = h_prev[u] * rd[u];
        else
          std::copy(h_prev, h_prev + U, hps);
        T* dxs = dX + s * GU;
        T* dhi = dh + i * U;
        const T* dhs_s = dhs + s * U;
        if (mask && mask[s] == T(0)) {
          // The step kept its state: everything passes to the previous one unchanged.
          std::fill(dxs, dxs + GU, T(0));
          if (r.kind == kGRU) std::fill(dRec + s * GU, dRec + (s + 1) * GU, T(0));
          if (r.kind == kGRUClassic) std::fill(rh + s * U, rh + (s + 1) * U, T(0));
          for (int64_t u = 0; u < U; ++u) dhi[u] += dhs_s[u];
          if (r.kind == kLSTM && dcs)
            for (int64_t u = 0; u < U; ++u) dc[i * U + u] += dcs[s * U + u];
          continue;
        }
        if (r.kind == kLSTM) {
          const T* c_prev = t == 0 ? c0 + n * U : cs + (s - 1) * U;
          cell.backward(gt, cs + s * U, c_prev, dhs_s, dcs ? dcs + s * U : zero_row.data(), dhi,
                        dc + i * U, dxs, U);
        } else {
          T* drs = r.kind == kGRU ? dRec + s * GU : nullptr;
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
      const T* src = r.kind == kGRU ? dRec : dX;
      const int64_t first = (n0 * T_ + t) * GU, ld = T_ * GU;
      if (r.kind != kGRUClassic && !rdrop) {
        // Straight into dh: the step's elementwise part left there only the direct path.
        per_gate_product(src + first, ld, dh, T(1));
        sum_bias(t);
        continue;
      }
      if (r.kind != kGRUClassic) {
        per_gate_product(src + first, ld, dp, T(0));
      } else {
        // d(r * hr) = da_h R_h^T; it reaches r's pre-activation and hr.
        blas_gemm(false, false, rows, U, U, T(1), src + first + 2 * U, ld, RT.data() + 2 * U * U,
                  U, T(0), drh, U);
        for (int64_t i = 0; i < rows; ++i) {
          const int64_t s = (n0 + i) * T_ + t;
          T* dxs = dX + s * GU;
          const T* gt = gates + s * 4 * U;
          const T* hr = hprev + s * HL;
          const bool kept = mask && mask[s] == T(0);
          for (int64_t u = 0; u < U; ++u) {
            const T rg = gt[U + u];
            dxs[U + u] = kept ? T(0) : drh[i * U + u] * hr[u] * rg * (T(1) - rg);
            dp[i * U + u] = kept ? T(0) : drh[i * U + u] * rg;
          }
        }
        blas_gemm(false, false, rows, U, 2 * U, T(1), src + first, ld, RT.data(), U, T(1), dp, U);
      }
      for (int64_t i = 0; i < rows; ++i) {
        const T* rd = rdrop ? rdrop + (n0 + i) * U : nullptr;
        for (int64_t u = 0; u < U; ++u)
          dh[i * U + u] += rd ? dp[i * U + u] * rd[u] : dp[i * U + u];
      }
      sum_bias(t);  // after the classic GRU's r-gate column, written above
    }
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t u = 0; u < U; ++u) {
        dh0[(n0 + i) * U + u] = dh[i * U + u];
        if (r.kind == kLSTM) dc0[(n0 + i) * U + u] = dc[i * U + u];
      }
    // The products over this thread's rows (n0 * T up to n1 * T, contiguous), in the same
    // region: dx, and the LSTM's share of [dW; dR]. Split this way each thread packs only
    // its own rows of dX for the BLAS; split by output rows, every thread packed all of it.
    const int64_t m = rows * T_, first = n0 * T_;
    blas_gemm(false, true, m, F, GU, T(1), dX + first * GU, GU, W, GU, T(0), dx + first * F, F);
    if (joint) {
      blas_gemm(true, false, HL, GU, m, T(1), xh + first * HL, HL, dX + first * GU, GU, T(0),
                wr_parts.get() + slot * HL * GU, GU);
      wr_done[slot] = 1;
    }
  });
  // Weight gradients over all N * T steps: the LSTM's shares summed into dW and dR.
  if (joint) {
    bool first = true;
    for (int k = 0; k < slots; ++k) {
      if (!wr_done[k]) continue;
      const T* part = wr_parts.get() + k * HL * GU;
      for (int64_t j = 0; j < F * GU; ++j) dW[j] = first ? part[j] : dW[j] + part[j];
      for (int64_t j = 0; j < U * GU; ++j)
        dR[j] = first ? part[F * GU + j] : dR[j] + part[F * GU + j];
      first = false;
    }
    if (first) {  // no rows (an empty batch)
      std::fill(dW, dW + F * GU, T(0));
      std::fill(dR, dR + U * GU, T(0));
    }
  } else {
    gemm_parallel<T>(true, false, r.F, GU, NT, T(1), x, dX, T(0), dW);
  }
  std::fill(db, db + r.bias_size, T(0));  // bias_size == nb
  for (int k = 0; k < slots; ++k)
    for (int64_t j = 0; j < nb; ++j) db[j] += db_parts[k * nb + j];
  if (r.kind == kGRU) {
    gemm_parallel<T>(true, false, U, GU, NT, T(1), hprev, dRec, T(0), dR);
  } else if (r.kind == kGRUClassic) {
    // dR[:, :2U] from hr, dR[:, 2U:] from r * hr (strided columns: plain BLAS).
    blas_gemm(true, false, U, 2 * U, NT, T(1), hprev, HL, dX, GU, T(0), dR, GU);
    blas_gemm(true, false, U, U, NT, T(1), rh, U, dX + 2 * U, GU, T(0), dR + 2 * U,
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
  // dcs is optional for the LSTM (empty when no gradient reaches the cell states).
  const bool has_dcs = r.has_cell() && dcs.size() > 0;
  check_array(dcs, op, "dcs", dt, has_dcs ? cells : r.has_cell() ? 0 : -1, kRead);
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
        in_ptr<scalar_t>(dhs), has_dcs ? in_ptr<scalar_t>(dcs) : nullptr, out_ptr<scalar_t>(dx),
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
