// Shared by the CUDA sources of paddle's GPU backend (paddle/backend/cuda/raw.py compiles
// each .cu with NVRTC through cupy.RawModule, with this folder on the include path).
//
// Every kernel walks its elements with a grid-stride loop, so any grid size is correct and
// the launcher may cap the number of blocks. A kernel of several element types is a
// template; raw.py asks NVRTC for the instantiations its Python declarations name
// (`im2col<float>`, `im2col<double>`), so nothing is compiled that no op launches.
#pragma once

typedef long long i64;
typedef unsigned long long u64;

#define PD_LOOP(i, n)                                                                  \
  for (i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n);                    \
       i += (i64)blockDim.x * gridDim.x)

// splitmix64, as csrc/common.h: a stateless hash of a counter.
__device__ __forceinline__ u64 splitmix64(u64 z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The sum of v over the threads of a block (blockDim.x a power of two, at most 1024);
// every thread gets it. `shared` holds blockDim.x doubles.
__device__ __forceinline__ double block_sum(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] += shared[threadIdx.x + s];
    __syncthreads();
  }
  const double total = shared[0];
  __syncthreads();
  return total;
}
