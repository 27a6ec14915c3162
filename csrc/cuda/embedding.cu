// Embedding lookup: rows of a table at int64 ids (csrc/nn/embedding.cpp). An id outside
// the table is never read: its row is written as zeros and the lowest such position is
// recorded in `bad` (set to the number of ids before the launch), which the host reads
// when it checks the run and reports as csrc/nn/embedding.cpp does.
#include "common.cuh"

template <typename T>
__global__ void embedding(const i64* ids, const T* table, T* out, u64* bad, i64 k, i64 rows,
                          i64 dim) {
  PD_LOOP(i, k * dim) {
    const i64 j = i / dim, id = ids[j];
    if (id >= 0 && id < rows) {
      out[i] = table[id * dim + i % dim];
    } else {
      out[i] = T(0);
      if (i % dim == 0) atomicMin(bad, (u64)j);
    }
  }
}
