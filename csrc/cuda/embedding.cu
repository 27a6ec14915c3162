// Embedding lookup: rows of a table at int64 ids (csrc/nn/embedding.cpp). An id outside
// the table is never read: its row is written as zeros, `flag` is set and the lowest such
// position is recorded in `bad` (both reset before the launch); after the run the host
// reads them and raises csrc/nn/embedding.cpp's error.
#include "common.cuh"

template <typename T>
__global__ void embedding(const i64* ids, const T* table, T* out, u64* bad, int* flag, i64 k,
                          i64 rows, i64 dim) {
  const i64 d = dim > 0 ? dim : 1;  // a table of width 0 still has its ids checked
  PD_LOOP(i, k * d) {
    const i64 j = i / d, id = ids[j];
    if (id >= 0 && id < rows) {
      if (dim) out[i] = table[id * dim + i % dim];
    } else {
      if (dim) out[i] = T(0);
      if (i % d == 0) {
        atomicMin(bad, (u64)j);
        *flag = 1;
      }
    }
  }
}
