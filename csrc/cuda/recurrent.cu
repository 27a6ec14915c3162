// LSTM and GRU cells, one launch per time step, as csrc/nn/recurrent.cpp computes them; the
// products between steps (the recurrent kernel, the weight gradients) are cuBLAS GEMMs
// issued by paddle/backend/cuda/nn_recurrent.py.
//
// Layouts (batch-major, as the CPU kernel): x (N, T, F); xw = x W, the input projection of
// every step (N, T, G*U) without bias; gates (N, T, 4U) saved for the backward pass (LSTM
// i, f, c~, o after activation; GRU z, r, h~ and, reset_after, the recurrent part of h~);
// hs, cs (N, T, U). `h` and `c` (N, U) hold the running state: a cell reads the previous
// state there and writes the new one in place (same element, same thread). `rec` is the
// step's recurrent product (N, G*U). mask (N, T) and rdrop (N, U) may be null.
// kinds: 0 LSTM, 1 GRU reset_after (bias (2, 3U)), 2 GRU classic (bias (3U,)).
#include "common.cuh"

template <typename T>
__device__ __forceinline__ T sigmoid(T v) { return T(1) / (T(1) + exp(-v)); }

// LSTM and GRU (reset_after) forward cell at step t, one thread per (n, u).
template <typename T>
__global__ void rnn_cell(const T* xw, const T* b, const T* rec, T* h, T* c, T* gates, T* hs,
                         T* cs, const T* mask, i64 kind, i64 N, i64 T_, i64 U, i64 t) {
  const i64 G = kind == 0 ? 4 : 3, GU = G * U;
  PD_LOOP(i, N * U) {
    const i64 n = i / U, u = i % U, s = n * T_ + t;
    const T* gx = xw + s * GU;
    const T* rc = rec + n * GU;
    T* gt = gates + s * 4 * U;
    const T h_prev = h[i];
    T h_new;
    if (kind == 0) {
      const T c_prev = c[i];
      const T ig = sigmoid((gx[u] + b[u]) + rc[u]);
      const T fg = sigmoid((gx[U + u] + b[U + u]) + rc[U + u]);
      const T cg = tanh((gx[2 * U + u] + b[2 * U + u]) + rc[2 * U + u]);
      const T og = sigmoid((gx[3 * U + u] + b[3 * U + u]) + rc[3 * U + u]);
      gt[u] = ig; gt[U + u] = fg; gt[2 * U + u] = cg; gt[3 * U + u] = og;
      T c_new = fg * c_prev + ig * cg;
      h_new = og * tanh(c_new);
      if (mask && mask[s] == T(0)) { h_new = h_prev; c_new = c_prev; }
      c[i] = c_new;
      cs[s * U + u] = c_new;
    } else {
      const T* br = b + GU;
      const T z = sigmoid((gx[u] + b[u]) + rc[u] + br[u]);
      const T rg = sigmoid((gx[U + u] + b[U + u]) + rc[U + u] + br[U + u]);
      const T rech = rc[2 * U + u] + br[2 * U + u];
      const T hh = tanh((gx[2 * U + u] + b[2 * U + u]) + rg * rech);
      gt[u] = z; gt[U + u] = rg; gt[2 * U + u] = hh; gt[3 * U + u] = rech;
      h_new = z * h_prev + (T(1) - z) * hh;
      if (mask && mask[s] == T(0)) h_new = h_prev;
    }
    h[i] = h_new;
    hs[s * U + u] = h_new;
  }
}

// Classic GRU, first half of step t: z and r from the product with R[:, :2U] (`rec`, (N, 2U)),
// and rh = r * (the previous h the product read, `hr`) for the second product.
template <typename T>
__global__ void gru_classic_gates(const T* xw, const T* b, const T* rec, const T* hr,
                                  T* gates, T* rh, i64 N, i64 T_, i64 U, i64 t) {
  PD_LOOP(i, N * U) {
    const i64 n = i / U, u = i % U, s = n * T_ + t;
    const T* gx = xw + s * 3 * U;
    const T* rc = rec + n * 2 * U;
    T* gt = gates + s * 4 * U;
    gt[u] = sigmoid((gx[u] + b[u]) + rc[u]);
    gt[U + u] = sigmoid((gx[U + u] + b[U + u]) + rc[U + u]);
    rh[i] = gt[U + u] * hr[i];
  }
}

// Classic GRU, second half: h~ = tanh(x_h + (r * h) R_h) from `rec` (N, U), the new state.
template <typename T>
__global__ void gru_classic_state(const T* xw, const T* b, const T* rec, T* h, T* gates,
                                  T* hs, const T* mask, i64 N, i64 T_, i64 U, i64 t) {
  PD_LOOP(i, N * U) {
    const i64 n = i / U, u = i % U, s = n * T_ + t;
    T* gt = gates + s * 4 * U;
    const T hh = tanh((xw[s * 3 * U + 2 * U + u] + b[2 * U + u]) + rec[i]);
    gt[2 * U + u] = hh;
    gt[3 * U + u] = T(0);
    const T h_prev = h[i];
    T h_new = gt[u] * h_prev + (T(1) - gt[u]) * hh;
    if (mask && mask[s] == T(0)) h_new = h_prev;
    h[i] = h_new;
    hs[s * U + u] = h_new;
  }
}

// out[i] = a[i] * m[i] over n elements (the previous h times the recurrent dropout).
template <typename T>
__global__ void multiply(const T* a, const T* m, T* out, i64 n) {
  PD_LOOP(i, n) out[i] = a[i] * m[i];
}

// Backward cell at step t (steps run in reverse), one thread per (n, u). `dh`, `dc` (N, U)
// carry the gradients reaching the state this step produced; the cell leaves in them what
// reaches the previous state directly (the recurrent product's share is added by
// `rnn_carry`). It writes the step's pre-activation gradients to dX (N, T, GU) and to the
// contiguous `dcur` (N, GU) the next product reads (for GRU reset_after, dRec and its
// `drcur` too), what the products read at this step to hprev (N, T, U) and, classic GRU,
// r * hprev to rh (N, T, U). h_prev: the state before the step (h0 or hs[:, t - 1]).
// dcs is null when no gradient reaches the cell states.
template <typename T>
__global__ void rnn_cell_grad(const T* gates, const T* hs, const T* cs, const T* h0,
                              const T* c0, const T* dhs, const T* dcs, T* dh, T* dc, T* dX,
                              T* dcur, T* dRec, T* drcur, T* hprev, T* rh, const T* mask,
                              const T* rdrop, i64 kind, i64 N, i64 T_, i64 U, i64 t) {
  const i64 G = kind == 0 ? 4 : 3, GU = G * U;
  PD_LOOP(i, N * U) {
    const i64 n = i / U, u = i % U, s = n * T_ + t;
    const T* gt = gates + s * 4 * U;
    const T h_prev = t == 0 ? h0[i] : hs[(s - 1) * U + u];
    const T hp = rdrop ? h_prev * rdrop[i] : h_prev;
    hprev[s * U + u] = hp;
    T* dxs = dX + s * GU;
    T* dxc = dcur + n * GU;
    if (mask && mask[s] == T(0)) {  // the step kept its state: gradients pass through
      for (i64 g = 0; g < G; ++g) { dxs[g * U + u] = T(0); dxc[g * U + u] = T(0); }
      if (kind == 1)
        for (i64 g = 0; g < G; ++g) { dRec[s * GU + g * U + u] = T(0); drcur[n * GU + g * U + u] = T(0); }
      if (kind == 2) rh[s * U + u] = T(0);
      dh[i] += dhs[s * U + u];
      if (kind == 0 && dcs) dc[i] += dcs[s * U + u];
      continue;
    }
    const T dhv = dhs[s * U + u] + dh[i];
    if (kind == 0) {
      const T ig = gt[u], fg = gt[U + u], cg = gt[2 * U + u], og = gt[3 * U + u];
      const T c_prev = t == 0 ? c0[i] : cs[(s - 1) * U + u];
      const T tc = tanh(cs[s * U + u]);
      const T dcv = (dcs ? dcs[s * U + u] : T(0)) + dc[i] + dhv * og * (T(1) - tc * tc);
      const T d0 = dcv * cg * ig * (T(1) - ig), d1 = dcv * c_prev * fg * (T(1) - fg);
      const T d2 = dcv * ig * (T(1) - cg * cg), d3 = dhv * tc * og * (T(1) - og);
      dxs[u] = d0; dxs[U + u] = d1; dxs[2 * U + u] = d2; dxs[3 * U + u] = d3;
      dxc[u] = d0; dxc[U + u] = d1; dxc[2 * U + u] = d2; dxc[3 * U + u] = d3;
      dc[i] = dcv * fg;
      dh[i] = T(0);  // h_prev is reached only through the recurrent product
    } else {
      const T z = gt[u], rg = gt[U + u], hh = gt[2 * U + u];
      const T dz = dhv * (h_prev - hh) * z * (T(1) - z);
      const T dah = dhv * (T(1) - z) * (T(1) - hh * hh);
      dxs[u] = dz; dxc[u] = dz;
      dxs[2 * U + u] = dah; dxc[2 * U + u] = dah;
      dh[i] = dhv * z;
      if (kind == 1) {
        const T dr = dah * gt[3 * U + u] * rg * (T(1) - rg);
        dxs[U + u] = dr; dxc[U + u] = dr;
        T* drs = dRec + s * GU;
        T* drc = drcur + n * GU;
        drs[u] = dz; drs[U + u] = dr; drs[2 * U + u] = dah * rg;
        drc[u] = dz; drc[U + u] = dr; drc[2 * U + u] = dah * rg;
      } else {
        rh[s * U + u] = rg * hp;
        dxs[U + u] = T(0); dxc[U + u] = T(0);  // set by gru_classic_grad_r
      }
    }
  }
}

// Classic GRU: the reset gate's gradient from drh = da_h R_h^T (N, U), and the share of the
// recurrent input that goes through r: dp = drh * r.
template <typename T>
__global__ void gru_classic_grad_r(const T* gates, const T* drh, const T* hprev, T* dX,
                                   T* dcur, T* dp, const T* mask, i64 N, i64 T_, i64 U,
                                   i64 t) {
  PD_LOOP(i, N * U) {
    const i64 n = i / U, u = i % U, s = n * T_ + t;
    const T rg = gates[s * 4 * U + U + u];
    const bool kept = mask && mask[s] == T(0);
    const T dr = kept ? T(0) : drh[i] * hprev[s * U + u] * rg * (T(1) - rg);
    dX[s * 3 * U + U + u] = dr;
    dcur[n * 3 * U + U + u] = dr;
    dp[i] = kept ? T(0) : drh[i] * rg;
  }
}

// dh += dp (times the recurrent dropout): what reached the recurrent product's input.
template <typename T>
__global__ void rnn_carry(T* dh, const T* dp, const T* rdrop, i64 n) {
  PD_LOOP(i, n) dh[i] += rdrop ? dp[i] * rdrop[i] : dp[i];
}
