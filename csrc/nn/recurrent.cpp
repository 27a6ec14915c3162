#include "nn.h"
namespace paddle {
void init_recurrent(py::module_& m) {}
}  // namespace paddle
