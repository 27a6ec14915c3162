#include "nn.h"
namespace paddle {
void init_pool(py::module_& m) {}
}  // namespace paddle
