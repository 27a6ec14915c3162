// The native core of paddle: one module, one init function per binding file.
#include <cblas.h>

#include "common.h"
#include "nn/nn.h"

PYBIND11_MODULE(_C, m) {
  m.doc() = "paddle's CPU kernels (C++, OpenMP, OpenBLAS)";
  // One thread pool (OpenMP); the BLAS runs single-threaded inside it (see blas.h).
  scipy_openblas_set_num_threads(1);
  paddle::init_elementwise(m);
  paddle::init_color(m);
  paddle::init_reduce(m);
  paddle::init_matmul(m);
  paddle::init_linalg(m);
  paddle::init_copy(m);
  paddle::init_softmax(m);
  paddle::init_layer_norm(m);
  paddle::init_optim(m);
  paddle::init_random(m);
  paddle::init_sort(m);
  paddle::init_png(m);
  paddle::init_nn(m);
}
