// Shared helpers of the CPU kernels: array access, dtype dispatch, parallel loops.
//
// Every kernel receives NumPy arrays the plan allocated. The Python side has already
// checked shapes and dtypes when it built the plan; these checks are the second line,
// cheap enough to run on every call, so a wrong array can never corrupt memory.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <omp.h>

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace paddle {

// NumPy type numbers of the dtypes paddle uses.
enum DType : int { kBool = 0, kInt32 = 5, kInt64 = 7, kFloat32 = 11, kFloat64 = 12 };

// Tensors at or above this many elements are split over the OpenMP threads.
constexpr int64_t kParallelGrain = 1 << 15;

inline int dtype_of(const py::array& a) {
  int num = py::detail::array_descriptor_proxy(py::detail::array_proxy(a.ptr())->descr)->type_num;
  if (num == 9 || num == 10) return kInt64;  // long long / unsigned long long alias on LP64
  if (num == 1 || num == 2) return kBool;    // (u)int8 handled as bytes
  return num;
}

inline std::string dtype_name(int d) {
  switch (d) {
    case kBool: return "bool";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case kFloat32: return "float32";
    case kFloat64: return "float64";
    default: return "dtype#" + std::to_string(d);
  }
}

inline void require(bool ok, const char* op, const std::string& what) {
  if (!ok) throw std::invalid_argument(std::string(op) + ": " + what);
}

// Sizes computed from a spec, checked: a spec that lies must not wrap around int64 to a
// small size that then passes check_array.
inline int64_t size_mul(int64_t a, int64_t b, const char* op) {
  int64_t r;
  require(a >= 0 && b >= 0 && !__builtin_mul_overflow(a, b, &r), op,
          "sizes out of range (negative or overflowing int64)");
  return r;
}

inline int64_t size_add(int64_t a, int64_t b, const char* op) {
  int64_t r;
  require(a >= 0 && b >= 0 && !__builtin_add_overflow(a, b, &r), op,
          "sizes out of range (negative or overflowing int64)");
  return r;
}

inline int64_t size_of(std::initializer_list<int64_t> dims, const char* op) {
  int64_t n = 1;
  for (int64_t d : dims) n = size_mul(n, d, op);
  return n;
}

inline void check_array(const py::array& a, const char* op, int dtype, int64_t size,
                        bool writable) {
  require(py::detail::check_flags(a.ptr(), py::array::c_style), op, "array is not C-contiguous");
  require(dtype_of(a) == dtype, op,
          "expected dtype " + dtype_name(dtype) + ", received " + dtype_name(dtype_of(a)));
  require(size < 0 || a.size() == size, op,
          "expected " + std::to_string(size) + " elements, received " + std::to_string(a.size()));
  if (writable) require(a.writeable(), op, "output array is read-only");
}

template <typename T>
inline const T* in_ptr(const py::array& a) { return static_cast<const T*>(a.data()); }

template <typename T>
inline T* out_ptr(py::array& a) { return static_cast<T*>(a.mutable_data()); }

inline bool parallel_for_size(int64_t n) { return n >= kParallelGrain && omp_get_max_threads() > 1; }

// Calls f(begin, end) over [0, n) in one chunk per thread when n is large enough.
template <typename F>
inline void parallel_chunks(int64_t n, int64_t grain, F f) {
  int threads = omp_get_max_threads();
  if (n < grain || threads <= 1) {
    f(int64_t(0), n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t begin = n * t / nt, end = n * (t + 1) / nt;
    if (begin < end) f(begin, end);
  }
}

// Dispatches on a float dtype: body is instantiated with `scalar_t`.
#define PD_DISPATCH_FLOAT(DTYPE, OP, ...)                                              \
  switch (DTYPE) {                                                                    \
    case ::paddle::kFloat32: { using scalar_t = float; __VA_ARGS__; break; }          \
    case ::paddle::kFloat64: { using scalar_t = double; __VA_ARGS__; break; }         \
    default: throw std::invalid_argument(std::string(OP) + ": unsupported dtype " +   \
                                         ::paddle::dtype_name(DTYPE));                \
  }

#define PD_DISPATCH_NUMERIC(DTYPE, OP, ...)                                            \
  switch (DTYPE) {                                                                    \
    case ::paddle::kFloat32: { using scalar_t = float; __VA_ARGS__; break; }          \
    case ::paddle::kFloat64: { using scalar_t = double; __VA_ARGS__; break; }         \
    case ::paddle::kInt64: { using scalar_t = int64_t; __VA_ARGS__; break; }          \
    case ::paddle::kInt32: { using scalar_t = int32_t; __VA_ARGS__; break; }          \
    default: throw std::invalid_argument(std::string(OP) + ": unsupported dtype " +   \
                                         ::paddle::dtype_name(DTYPE));                \
  }

#define PD_DISPATCH_ALL(DTYPE, OP, ...)                                                \
  switch (DTYPE) {                                                                    \
    case ::paddle::kFloat32: { using scalar_t = float; __VA_ARGS__; break; }          \
    case ::paddle::kFloat64: { using scalar_t = double; __VA_ARGS__; break; }         \
    case ::paddle::kInt64: { using scalar_t = int64_t; __VA_ARGS__; break; }          \
    case ::paddle::kInt32: { using scalar_t = int32_t; __VA_ARGS__; break; }          \
    case ::paddle::kBool: { using scalar_t = uint8_t; __VA_ARGS__; break; }           \
    default: throw std::invalid_argument(std::string(OP) + ": unsupported dtype " +   \
                                         ::paddle::dtype_name(DTYPE));                \
  }

// splitmix64 of a counter: a stateless generator, so every element's draw depends only on
// (seed, index) and random kernels give the same numbers whatever the thread count.
inline uint64_t splitmix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// One binding file per concern, each with its init function (called from module.cpp).
void init_elementwise(py::module_& m);
void init_reduce(py::module_& m);
void init_matmul(py::module_& m);
void init_copy(py::module_& m);
void init_softmax(py::module_& m);
void init_optim(py::module_& m);
void init_random(py::module_& m);

}  // namespace paddle
