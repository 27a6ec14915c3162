// scatter_add, gather's adjoint (csrc/copy.cpp): with out zeroed first, out[o, idx[j], i] +=
// g[o, j, i] for every flat index position j. The op clips the indices into [0, n) before
// the launch (and checks them on the device), so nothing is written outside `out`. Indices
// that repeat add through atomics: the order of those additions, and so the last bits of
// such a float sum, may change from run to run.
#include "common.cuh"

template <typename T>
__global__ void scatter_add(const T* g, const i64* idx, T* out, i64 outer, i64 k, i64 inner,
                            i64 n) {
  PD_LOOP(e, outer * k * inner) {
    const i64 i = e % inner, j = (e / inner) % k, o = e / (inner * k);
    atomicAdd(out + (o * n + idx[j]) * inner + i, g[e]);
  }
}
