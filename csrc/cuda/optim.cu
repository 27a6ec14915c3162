// Fused optimizer updates, as csrc/optim.cpp (Keras 3 formulas): one launch updates every
// variable of one dtype in place.
//
// `table` holds, per tensor, five device pointers: the parameter, its gradient and up to
// three slots (0 where the optimizer keeps fewer); `offsets` the first flat element of each
// tensor in the launch (tensors + 1 entries). A thread finds its tensor by binary search.
// The step's scalars (learning rate, bias corrections: they change every step) are read
// from `hyper` in device memory, which the host refreshes before each run, so a captured
// CUDA graph updates with the current values. `proceed` (a device bool) is false in a run
// whose index checks failed: then nothing is written.
#include "common.cuh"

#define PD_SGD 0
#define PD_ADAM 1
#define PD_RMSPROP 2
#define PD_ADAGRAD 3
#define PD_ADAMAX 4
#define PD_NADAM 5
#define PD_LION 6
#define PD_FTRL 7
#define PD_DECAY 8
#define PD_ADADELTA 9
#define PD_EMA 10
#define PD_COLUMNS 5

template <typename T>
__device__ __forceinline__ T sign_of(T x) { return T((x > T(0)) - (x < T(0))); }

template <typename T>
__device__ void update_one(i64 algo, const double* h, T* p, const T* gp, T* s0, T* s1, T* s2) {
  const T g = gp ? *gp : T(0);
  switch (algo) {
    case PD_SGD: {  // h: lr, momentum, nesterov, use velocity
      const T lr = T(h[0]), mu = T(h[1]);
      if (h[3] == 0.0) {
        *p -= lr * g;
      } else {
        *s0 = mu * *s0 - lr * g;
        *p += h[2] != 0.0 ? mu * *s0 - lr * g : *s0;
      }
      break;
    }
    case PD_ADAM: {  // h: alpha, beta1, beta2, eps, lr * weight decay, decays, amsgrad;
                     // slots m, v, v_hat (amsgrad: the running maximum of v)
      const T b1 = T(h[1]), b2 = T(h[2]), a = T(h[0]), ep = T(h[3]), wd = T(h[4]);
      if (h[5] != 0.0) *p -= wd * *p;
      *s0 += (g - *s0) * (T(1) - b1);
      *s1 += (g * g - *s1) * (T(1) - b2);
      T v = *s1;
      if (h[6] != 0.0) {
        if (v > *s2) *s2 = v;
        v = *s2;
      }
      *p -= a * *s0 / (sqrt(v) + ep);
      break;
    }
    case PD_RMSPROP: {  // h: lr, rho, momentum, eps, centered; slots ms, mom, avg
      const T r = T(h[1]), lr = T(h[0]), ep = T(h[3]), mu = T(h[2]);
      *s0 = r * *s0 + (T(1) - r) * g * g;
      T denominator = *s0 + ep;
      if (h[4] != 0.0) {
        *s2 = r * *s2 + (T(1) - r) * g;
        denominator -= *s2 * *s2;
      }
      const T inc = lr * g / sqrt(denominator);
      if (h[2] > 0.0) {
        *s1 = mu * *s1 + inc;
        *p -= *s1;
      } else {
        *p -= inc;
      }
      break;
    }
    case PD_ADAGRAD: {  // h: lr, eps
      *s0 += g * g;
      *p -= T(h[0]) * g / sqrt(*s0 + T(h[1]));
      break;
    }
    case PD_ADAMAX: {  // h: lr / (1 - beta1^t), beta1, beta2, eps
      const T b1 = T(h[1]), b2 = T(h[2]);
      *s0 += (g - *s0) * (T(1) - b1);
      const T decayed = b2 * *s1, size = g < T(0) ? -g : g;
      *s1 = decayed > size ? decayed : size;
      *p -= T(h[0]) * *s0 / (*s1 + T(h[3]));
      break;
    }
    case PD_NADAM: {  // h: lr, beta1, beta2, eps, c_m, c_g, v_scale
      const T b1 = T(h[1]), b2 = T(h[2]);
      *s0 += (g - *s0) * (T(1) - b1);
      *s1 += (g * g - *s1) * (T(1) - b2);
      const T m_hat = T(h[4]) * *s0 + T(h[5]) * g;
      *p -= T(h[0]) * m_hat / (sqrt(*s1 * T(h[6])) + T(h[3]));
      break;
    }
    case PD_LION: {  // h: lr, beta1, beta2
      const T b1 = T(h[1]), b2 = T(h[2]);
      *p -= T(h[0]) * sign_of(*s0 * b1 + g * (T(1) - b1));
      *s0 = *s0 * b2 + g * (T(1) - b2);
      break;
    }
    case PD_FTRL: {  // h: lr, -lr_power, l1, l2 + beta / (2 lr), l2 shrinkage; slots acc, lin
      const T lr = T(h[0]), pw = T(h[1]), l1 = T(h[2]), l2r = T(h[3]), shrink = T(h[4]);
      const T grad = g + T(2) * shrink * *p;
      const T new_a = *s0 + g * g;
      const T new_pow = pow(new_a, pw);
      *s1 += grad - (new_pow - pow(*s0, pw)) / lr * *p;
      const T quadratic = new_pow / lr + T(2) * l2r;
      const T clipped = *s1 > l1 ? l1 : (*s1 < -l1 ? -l1 : *s1);
      *p = (clipped - *s1) / quadratic;
      *s0 = new_a;
      break;
    }
    case PD_ADADELTA: {  // h: lr, rho, eps; slots acc_grad, acc_delta
      const T lr = T(h[0]), r = T(h[1]), ep = T(h[2]);
      *s0 = r * *s0 + (T(1) - r) * g * g;
      const T delta = -(sqrt(*s1 + ep) * g) / sqrt(*s0 + ep);
      *s1 = r * *s1 + (T(1) - r) * delta * delta;
      *p += lr * delta;
      break;
    }
    case PD_EMA: {  // h: momentum, overwrite; slot average (no gradient)
      const T mu = T(h[0]);
      *s0 = mu * *s0 + (T(1) - mu) * *p;
      if (h[1] != 0.0) *p = *s0;
      break;
    }
    default:  // PD_DECAY, h: lr * weight decay
      *p -= *p * T(h[0]);
  }
}

// The last of the `tensors` packed tensors starting at or before flat element i.
__device__ __forceinline__ i64 tensor_at(const i64* offsets, i64 tensors, i64 i) {
  i64 lo = 0, hi = tensors - 1;
  while (lo < hi) {
    const i64 mid = (lo + hi + 1) / 2;
    if (offsets[mid] <= i) lo = mid; else hi = mid - 1;
  }
  return lo;
}

template <typename T>
__global__ void apply_updates(const u64* table, const i64* offsets, i64 tensors, i64 total,
                              const double* hyper, i64 algo, const bool* proceed) {
  if (!*proceed) return;
  PD_LOOP(i, total) {
    const i64 lo = tensor_at(offsets, tensors, i);
    const i64 j = i - offsets[lo];
    const u64* row = table + lo * PD_COLUMNS;
    T* at[PD_COLUMNS];
    for (int k = 0; k < PD_COLUMNS; ++k) at[k] = row[k] ? (T*)row[k] + j : (T*)0;
    update_one<T>(algo, hyper, at[0], at[1], at[2], at[3], at[4]);
  }
}

// Lamb, as csrc/optim.cpp: `hyper` holds lr, beta1, beta2, eps, 1 / (1 - beta1^t),
// 1 / (1 - beta2^t). First a block per tensor moves its moments and sums |w|^2 and |r|^2
// (r = m_hat / (sqrt(v_hat) + eps)) into norms[2 t], norms[2 t + 1]; then an elementwise
// pass takes w -= lr * ratio * r, ratio = |w| / |r| (1 when either is 0).
#define PD_LAMB_BLOCK 256

template <typename T>
__device__ __forceinline__ T lamb_step(const double* h, T m, T v) {
  return m * T(h[4]) / (sqrt(v * T(h[5])) + T(h[3]));
}

template <typename T>
__global__ void lamb_norms(const u64* table, const i64* offsets, i64 tensors,
                           const double* hyper, double* norms, const bool* proceed) {
  __shared__ double shared[PD_LAMB_BLOCK];
  if (!*proceed) return;
  const T b1 = T(hyper[1]), b2 = T(hyper[2]);
  for (i64 t = blockIdx.x; t < tensors; t += gridDim.x) {
    const u64* row = table + t * PD_COLUMNS;
    T* p = (T*)row[0];
    const T* g = (const T*)row[1];
    T *m = (T*)row[2], *v = (T*)row[3];
    const i64 n = offsets[t + 1] - offsets[t];
    double sw = 0, sr = 0;
    for (i64 j = threadIdx.x; j < n; j += blockDim.x) {
      m[j] += (g[j] - m[j]) * (T(1) - b1);
      v[j] += (g[j] * g[j] - v[j]) * (T(1) - b2);
      const T r = lamb_step<T>(hyper, m[j], v[j]);
      sw += double(p[j]) * double(p[j]);
      sr += double(r) * double(r);
    }
    sw = block_sum(sw, shared);
    sr = block_sum(sr, shared);
    if (threadIdx.x == 0) {
      norms[2 * t] = sqrt(sw);
      norms[2 * t + 1] = sqrt(sr);
    }
  }
}

template <typename T>
__global__ void lamb_apply(const u64* table, const i64* offsets, i64 tensors, i64 total,
                           const double* hyper, const double* norms, const bool* proceed) {
  if (!*proceed) return;
  PD_LOOP(i, total) {
    const i64 lo = tensor_at(offsets, tensors, i);
    const i64 j = i - offsets[lo];
    const u64* row = table + lo * PD_COLUMNS;
    const double w_norm = norms[2 * lo], r_norm = norms[2 * lo + 1];
    const T step = T(hyper[0] * ((w_norm > 0 && r_norm > 0) ? w_norm / r_norm : 1.0));
    ((T*)row[0])[j] -= step * lamb_step<T>(hyper, ((T*)row[2])[j], ((T*)row[3])[j]);
  }
}
