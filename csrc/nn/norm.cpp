#include "nn.h"
namespace paddle {
void init_norm(py::module_& m) {}
}  // namespace paddle
