// Batch normalization and its gradient, as csrc/nn/norm.cpp: x viewed as [outer, C, inner],
// per-channel statistics summed in double, two passes (mean, then squared deviations).
//
// A block per channel sums its [outer, inner] slice (a grid stride over channels when there
// are more channels than blocks) and folds the statistics into per-channel coefficients;
// a second, elementwise kernel applies them. Nothing goes back to the host.
#include "common.cuh"

#define PD_BLOCK 256

// Training: mean, inv_std and the moving statistics from the batch; inference: from the
// moving ones. Then y = x * a + b with a = inv_std * scale, b = offset - mean * a.
template <typename T>
__global__ void batch_norm_stats(const T* x, const T* scale, const T* offset, T* mm, T* mv,
                                 T* mean, T* inv_std, T* a, T* b, i64 outer, i64 C, i64 inner,
                                 double momentum, double eps, i64 training) {
  __shared__ double shared[PD_BLOCK];
  const i64 count = outer * inner;
  for (i64 c = blockIdx.x; c < C; c += gridDim.x) {
    if (training) {
      double s = 0;
      for (i64 k = threadIdx.x; k < count; k += blockDim.x)
        s += double(x[((k / inner) * C + c) * inner + k % inner]);
      const double mu = count > 0 ? block_sum(s, shared) / double(count) : 0.0;
      double q = 0;
      for (i64 k = threadIdx.x; k < count; k += blockDim.x) {
        const double d = double(x[((k / inner) * C + c) * inner + k % inner]) - mu;
        q += d * d;
      }
      const double var = count > 0 ? block_sum(q, shared) / double(count) : 0.0;
      if (threadIdx.x == 0) {
        mean[c] = T(mu);
        inv_std[c] = T(1.0 / sqrt(var + eps));
        if (count > 0) {  // an empty batch has no statistics to move toward
          mm[c] = T(double(mm[c]) * momentum + mu * (1.0 - momentum));
          mv[c] = T(double(mv[c]) * momentum + var * (1.0 - momentum));
        }
      }
    } else if (threadIdx.x == 0) {
      mean[c] = mm[c];
      inv_std[c] = T(1.0 / sqrt(double(mv[c]) + eps));
    }
    if (threadIdx.x == 0) {
      a[c] = inv_std[c] * scale[c];
      b[c] = offset[c] - mean[c] * a[c];
    }
  }
}

// y = x * a[c] + b[c]: the forward pass once the coefficients are known.
template <typename T>
__global__ void channel_affine(const T* x, const T* a, const T* b, T* y, i64 outer, i64 C,
                               i64 inner) {
  PD_LOOP(i, outer * C * inner) {
    const i64 c = (i / inner) % C;
    y[i] = x[i] * a[c] + b[c];
  }
}

template <typename T>
__global__ void batch_norm_grad_stats(const T* x, const T* scale, const T* mean,
                                      const T* inv_std, const T* g, T* dscale, T* doffset,
                                      T* k, T* p, T* q, i64 outer, i64 C, i64 inner,
                                      i64 training) {
  __shared__ double shared[PD_BLOCK];
  const i64 count = outer * inner;
  for (i64 c = blockIdx.x; c < C; c += gridDim.x) {
    double sg = 0, sgx = 0;
    const double m = double(mean[c]);
    for (i64 e = threadIdx.x; e < count; e += blockDim.x) {
      const i64 at = ((e / inner) * C + c) * inner + e % inner;
      sg += double(g[at]);
      sgx += double(g[at]) * (double(x[at]) - m);
    }
    sg = block_sum(sg, shared);
    sgx = block_sum(sgx, shared);
    if (threadIdx.x == 0) {
      const double is = double(inv_std[c]), kc = double(scale[c]) * is;
      dscale[c] = T(sgx * is);
      doffset[c] = T(sg);
      k[c] = T(kc);
      if (training && count > 0) {
        const double pc = -kc * is * is * sgx / double(count);
        p[c] = T(pc);
        q[c] = T(-kc * sg / double(count) - pc * m);
      } else {
        p[c] = T(0);
        q[c] = T(0);
      }
    }
  }
}

template <typename T>
__global__ void batch_norm_grad_apply(const T* x, const T* g, const T* k, const T* p,
                                      const T* q, T* dx, i64 outer, i64 C, i64 inner) {
  PD_LOOP(i, outer * C * inner) {
    const i64 c = (i / inner) % C;
    dx[i] = k[c] * g[i] + p[c] * x[i] + q[c];
  }
}
