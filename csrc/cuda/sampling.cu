// Random draws on the device from a counter-based generator whose seed lives in device
// memory, so a captured CUDA graph draws new numbers at every replay: the host writes each
// run's seed there before the run (paddle/backend/cuda/sampling.py). A run draws from
// `*seed` exactly as csrc/random.cpp draws from a seed (splitmix64 of (seed, element
// index); Box-Muller for normals): the CPU kernel's numbers.
#include "common.cuh"

#define PD_TWO_POW_53 9007199254740992.0
#define PD_PI 3.14159265358979323846

__device__ __forceinline__ u64 run_base(const u64* seed) { return splitmix64(*seed); }

__device__ __forceinline__ double unit(u64 bits) { return double(bits >> 11) / PD_TWO_POW_53; }

__device__ __forceinline__ double std_normal(u64 base, u64 i) {
  const double u1 = (double(splitmix64(base + 2 * i) >> 11) + 1.0) / PD_TWO_POW_53;
  const double u2 = unit(splitmix64(base + 2 * i + 1));
  return sqrt(-2.0 * log(u1)) * cos(2.0 * PD_PI * u2);
}

__device__ __forceinline__ double truncated(u64 base, u64 i) {
  for (u64 attempt = 0; attempt < 64; ++attempt) {
    const double z = std_normal(splitmix64(base ^ (attempt * 0xD1B54A32D192ED03ull)), i);
    if (z >= -2.0 && z <= 2.0) return z;
  }
  return 0.0;
}

// As csrc/random.cpp's gamma_stream and std_gamma (Marsaglia and Tsang).
__device__ __forceinline__ u64 gamma_stream(u64 base, u64 attempt, u64 tag) {
  return splitmix64(base ^ ((3 * attempt + tag + 1) * 0x9E6C63D0676A9A99ull));
}

__device__ __forceinline__ double std_gamma(u64 base, u64 i, double alpha) {
  const double shape = alpha < 1.0 ? alpha + 1.0 : alpha;
  const double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  double g = d;
  for (u64 attempt = 0; attempt < 64; ++attempt) {
    const double z = std_normal(gamma_stream(base, attempt, 1), i);
    const double v = 1.0 + c * z;
    if (v <= 0.0) continue;
    const double v3 = v * v * v;
    const double u = (double(splitmix64(gamma_stream(base, attempt, 2) + i) >> 11) + 1.0) /
                     PD_TWO_POW_53;
    if (log(u) < 0.5 * z * z + d - d * v3 + d * log(v3)) { g = d * v3; break; }
  }
  if (alpha < 1.0) {
    const double u = (double(splitmix64(gamma_stream(base, 64, 0) + i) >> 11) + 1.0) /
                     PD_TWO_POW_53;
    g *= pow(u, 1.0 / alpha);
  }
  return g;
}

// kind: 0 uniform [a, b), 1 normal (a, b), 2 truncated normal, 3 randint [a, b), 4 keep
// mask (b with probability 1 - a, else 0), 6 gamma (shape a, scale b); as csrc/random.cpp.
template <typename T>
__global__ void random_fill(T* out, const u64* seed, i64 n, i64 kind, double a, double b) {
  const u64 base = run_base(seed);
  PD_LOOP(i, n) {
    const u64 k = (u64)i;
    double v;
    switch (kind) {
      case 0: v = a + (b - a) * unit(splitmix64(base + k)); break;
      case 1: v = a + b * std_normal(base, k); break;
      case 2: v = a + b * truncated(base, k); break;
      case 3: v = floor(a + (b - a) * unit(splitmix64(base + k))); break;
      case 6: v = b * std_gamma(base, k, a); break;
      default: v = unit(splitmix64(base + k)) >= a ? b : 0.0;
    }
    out[i] = T(v);
  }
}

// Gamma(alpha[i], 1) draws, as csrc/random.cpp's random_gamma (NaN where alpha is not > 0).
template <typename T>
__global__ void random_gamma(T* out, const T* alpha, const u64* seed, i64 n) {
  const u64 base = run_base(seed);
  PD_LOOP(i, n) {
    const double a = double(alpha[i]);
    out[i] = (isfinite(a) && a > 0) ? T(std_gamma(base, (u64)i, a)) : T(nan(""));
  }
}

// A permutation of 0..n-1 (Fisher-Yates, one draw per position): inherently sequential,
// one thread does it (shuffles are of a batch's indices, not of large tensors).
template <typename T>
__global__ void random_permutation(T* out, const u64* seed, i64 n) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  const u64 base = run_base(seed);
  for (i64 i = 0; i < n; ++i) out[i] = T(i);
  for (i64 i = n - 1; i > 0; --i) {
    const i64 j = (i64)(splitmix64(base + (u64)i) % (u64)(i + 1));
    const T t = out[i];
    out[i] = out[j];
    out[j] = t;
  }
}

// Inverted dropout, as csrc/nn/norm.cpp: mask = keep / (1 - rate) where the 53-bit draw is
// at least rate * 2^53, else 0; y = x * mask.
template <typename T>
__global__ void dropout(const T* x, T* y, T* mask, const u64* seed, i64 n, double rate) {
  const u64 base = run_base(seed);
  const u64 threshold = (u64)(rate * PD_TWO_POW_53);
  const T keep = T(1.0 / (1.0 - rate));
  PD_LOOP(i, n) {
    const T m = rate == 0.0 || (splitmix64(base + (u64)i) >> 11) >= threshold ? keep : T(0);
    mask[i] = m;
    y[i] = x[i] * m;
  }
}
