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
  check_array(ids, op, "ids", kInt64, -1, kRead);
  if (table.ndim() != 2)
    throw std::invalid_argument(std::string(op) + ": argument 'table' expected 2-D, received " +
                                shape_str(table));
  const int64_t rows = table.shape(0), dim = table.shape(1), k = ids.size();
  int dt = check_dtype(table, op, "table");
  check_array(table, op, "table", dt, -1, kRead);
  check_array(out, op, "out", dt, size_mul(k, dim, op), kWrite);
  const int64_t* ip = in_ptr<int64_t>(ids);
  const int64_t j = first_outside(ip, k, rows);
  if (j >= 0)
    throw py::index_error(std::string(op) + ": id " + std::to_string(ip[j]) + " at position " +
                          std::to_string(j) + " is outside the table's " +
                          std::to_string(rows) + " rows [0, " + std::to_string(rows) +
                          "): ids is " + shape_str(ids) + ", table is " + shape_str(table));
  const size_t row = size_t(dim) * table.itemsize();
  const char* tp = static_cast<const char*>(table.data());
  char* op_ = static_cast<char*>(out.mutable_data());
  const bool par = k * dim >= kParallelGrain;
  // The rows a few ids ahead are requested early: random rows of a large table are beyond
  // the hardware prefetchers, and one row's copy is too short to hide a miss.
  constexpr int64_t kAhead = 8;
#pragma omp parallel for schedule(static) if (par) num_threads(max_threads())
  for (int64_t j = 0; j < k; ++j) {
    if (j + kAhead < k)
      for (size_t c = 0; c < row; c += 64) __builtin_prefetch(tp + ip[j + kAhead] * row + c);
    std::memcpy(op_ + j * row, tp + ip[j] * row, row);
  }
}

}  // namespace

void init_embedding(py::module_& m) {
  m.def("embedding", &embedding,
        array_arg("ids"), array_arg("table"), array_arg("out"),
        "rows of table at ids; IndexError naming a bad id");
}

}  // namespace paddle
