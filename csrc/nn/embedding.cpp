// Embedding lookup: rows of a table at integer ids (the gradient is scatter_add, csrc/copy.cpp).
#include <cstring>

#include "nn.h"

namespace paddle {
namespace {

std::string shape_str(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t d = 0; d < a.ndim(); ++d)
    s += (d ? ", " : "") + std::to_string(a.shape(d));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

// out[j, :] = table[ids[j], :]; every id is checked before any row is copied.
void embedding(py::array ids, py::array table, py::array out) {
  const char* op = "embedding";
  check_array(ids, op, kInt64, -1, false);
  require(table.ndim() == 2, op, "expected a 2-D table");
  const int64_t rows = table.shape(0), dim = table.shape(1), k = ids.size();
  int dt = dtype_of(table);
  check_array(table, op, dt, rows * dim, false);
  check_array(out, op, dt, k * dim, true);
  const int64_t* ip = in_ptr<int64_t>(ids);
  for (int64_t j = 0; j < k; ++j)
    if (ip[j] < 0 || ip[j] >= rows)
      throw py::index_error(std::string(op) + ": id " + std::to_string(ip[j]) + " at position " +
                            std::to_string(j) + " is outside the table's " +
                            std::to_string(rows) + " rows [0, " + std::to_string(rows) +
                            "): ids is " + shape_str(ids) + ", table is " + shape_str(table));
  const size_t row = size_t(dim) * table.itemsize();
  const char* tp = static_cast<const char*>(table.data());
  char* op_ = static_cast<char*>(out.mutable_data());
  const bool par = k * dim >= kParallelGrain;
#pragma omp parallel for schedule(static) if (par)
  for (int64_t j = 0; j < k; ++j) std::memcpy(op_ + j * row, tp + ip[j] * row, row);
}

}  // namespace

void init_embedding(py::module_& m) {
  m.def("embedding", &embedding, "rows of table at ids; IndexError naming a bad id");
}

}  // namespace paddle
