// Neural-network kernels (csrc/nn/): convolution, pooling, batch normalization and
// dropout, embedding, recurrent layers. One init function per file, all called by init_nn.
#pragma once

#include "../common.h"

namespace paddle {

void init_conv(py::module_& m);
void init_pool(py::module_& m);
void init_norm(py::module_& m);
void init_embedding(py::module_& m);
void init_recurrent(py::module_& m);

inline void init_nn(py::module_& m) {
  init_conv(m);
  init_pool(m);
  init_norm(m);
  init_embedding(m);
  init_recurrent(m);
}

// Copies a short run; a plain loop, because GCC would turn it into a memcpy call that
// costs more than the copy for the 1-16 element runs of thin convolutions.
template <typename T>
__attribute__((optimize("no-tree-loop-distribute-patterns")))
inline void copy_run(T* dst, const T* src, int64_t n) {
  if (n >= 64) {
    std::copy(src, src + n, dst);
    return;
  }
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

template <typename T>
__attribute__((optimize("no-tree-loop-distribute-patterns")))
inline void zero_run(T* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = T(0);
}


}  // namespace paddle
