// Shared helpers of the CPU kernels: argument checks, array access, dtype dispatch,
// parallel loops.
//
// paddle._C is public: anyone can call any binding with anything. So every binding checks
// every argument itself, with the check_* helpers below, before it touches any data:
//   - the dtype: one of paddle's five (bool, int32, int64, float32, float64) in native byte
//     order; object, big-endian and every other dtype is a TypeError (check_dtype);
//   - the layout the kernel assumes: C-contiguous and aligned (check_array);
//   - the size a spec or layout implies, computed in int64 and refused when it overflows
//     (size_mul/size_add/size_of, check_rank), and every element offset a kernel will
//     reach proven inside its array;
//   - writability of every array the kernel writes (Access kWrite), outputs and in-place
//     state alike (optimizer slots, moving statistics);
//   - every index before any is used (first_outside);
//   - the thread count (max_threads: never more than thread_limit()).
// The plan's Python side checked shapes and dtypes when it built the plan; these checks are
// the second line. They cost O(rank + number of arguments) per call (index checks: one pass
// over the indices), never a pass over the data.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;

namespace paddle {

// The dtypes paddle uses, numbered as NumPy numbers them on LP64 (kUnsupported: any other).
enum DType : int {
  kUnsupported = -1, kBool = 0, kInt32 = 5, kInt64 = 7, kFloat32 = 11, kFloat64 = 12
};

// Whether a binding reads an array or writes it (in place counts as writing).
enum Access { kRead, kWrite };

// The highest rank a spec or layout may declare (NumPy's own limit).
constexpr int64_t kMaxRank = 64;

// Tensors at or above this many elements are split over the OpenMP threads.
constexpr int64_t kParallelGrain = 1 << 15;

// ---- relu ----------------------------------------------------------------------------------

// relu, the one spelling every kernel uses (the elementwise op, and the epilogues of batch
// norm, convolution and products): x < 0 ? 0 : x keeps NaN with one compare and a blend, so
// loops over it vectorize (the two tests of `x > 0 || x != x` kept them scalar).
template <typename T>
__attribute__((always_inline)) inline T relu_of(T x) {
  return x < T(0) ? T(0) : x;
}

// ---- errors --------------------------------------------------------------------------------

// A ValueError "op: what", for messages built with numbers (inside `if (!ok)`).
[[noreturn]] inline void fail(const char* op, const std::string& what) {
  throw std::invalid_argument(std::string(op) + ": " + what);
}

// A ValueError "op: what". The message is a literal: a std::string argument would be built
// (and allocated) on every call, failing or not, and these checks run on every kernel call;
// a message that needs numbers is built inside `if (!ok)` by the caller.
inline void require(bool ok, const char* op, const char* what) {
  if (!ok) throw std::invalid_argument(std::string(op) + ": " + what);
}

// "op: argument 'name' " (or 'name[index]' for an array of a list): the start of every
// message about one argument. Messages are built only when a check fails: the checks run on
// every call and must not allocate.
inline std::string arg_where(const char* op, const std::string& arg, int64_t index = -1) {
  return std::string(op) + ": argument '" + arg +
         (index >= 0 ? "[" + std::to_string(index) + "]" : std::string()) + "' ";
}

// ---- dtypes --------------------------------------------------------------------------------

inline std::string dtype_name(int d) {
  switch (d) {
    case kBool: return "bool";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case kFloat32: return "float32";
    case kFloat64: return "float64";
    default: return "an unsupported dtype";
  }
}

// The DType of a, from NumPy's type number (so int64 is int64 whichever C type NumPy named
// it), or kUnsupported; byte order is check_dtype's concern. Reads a's descriptor in place,
// making no py::dtype: kernels call this inside OpenMP regions, whose threads do not hold
// the GIL, so it must not touch reference counts (a py::dtype temporary there raced on
// float32's count until NumPy reported deallocating it).
inline int dtype_of(const py::array& a) {
  const auto* descr = py::detail::array_descriptor_proxy(py::detail::array_proxy(a.ptr())->descr);
  switch (descr->type_num) {
    case 0: return kBool;
    case 5: return kInt32;
    case 7: case 9: return kInt64;  // long and long long: both 64-bit (asserted below)
    case 11: return kFloat32;
    case 12: return kFloat64;
    default: return kUnsupported;
  }
}
static_assert(sizeof(long) == 8, "paddle's dtype numbers assume LP64");

// NumPy's own name of a's dtype ('object', '>f4', 'float16'), for messages.
inline std::string numpy_dtype_name(const py::array& a) { return py::str(a.dtype()); }

inline bool native_byte_order(const py::dtype& d) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  return d.byteorder() != '>';
#else
  return d.byteorder() != '<';
#endif
}

// The DType of argument `arg`, refused (TypeError) unless it is one of paddle's five in
// native byte order. Object arrays would have their PyObject pointers copied without
// reference counts; swapped bytes would be read as garbage.
inline int check_dtype(const py::array& a, const char* op, const char* arg,
                       int64_t index = -1) {
  const int dt = dtype_of(a);
  if (dt == kUnsupported || !native_byte_order(a.dtype()))
    throw py::type_error(arg_where(op, arg, index) +
                         "expected an array of bool, int32, int64, float32 or float64 in "
                         "native byte order, received dtype " + numpy_dtype_name(a));
  return dt;
}

// ---- sizes ---------------------------------------------------------------------------------

// Sizes computed from a spec, checked: a spec that lies must not wrap around int64 to a
// small size that then passes check_array.
inline int64_t size_mul(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  require(a >= 0 && b >= 0 && !__builtin_mul_overflow(a, b, &r), op,
          "sizes out of range (negative or overflowing int64)");
  return r;
}

inline int64_t size_add(int64_t a, int64_t b, const char* op) {
  int64_t r = 0;
  require(a >= 0 && b >= 0 && !__builtin_add_overflow(a, b, &r), op,
          "sizes out of range (negative or overflowing int64)");
  return r;
}

inline int64_t size_of(std::initializer_list<int64_t> dims, const char* op) {
  int64_t n = 1;
  for (int64_t d : dims) n = size_mul(n, d, op);
  return n;
}

// The rank a spec declares, as an int once it is known to lie in [1, kMaxRank]: read as
// int64 first, because int(p[0]) would truncate 2**32 + 1 to 1 and 3 * rank in int would wrap.
inline int check_rank(int64_t rank, const char* op, const char* arg) {
  if (rank < 1 || rank > kMaxRank)
    throw std::invalid_argument(arg_where(op, arg) + "declares rank " + std::to_string(rank) +
                                ", expected 1 to " + std::to_string(kMaxRank));
  return int(rank);
}

// ---- arrays --------------------------------------------------------------------------------

// Argument `arg` of `op`: dtype `dtype` (check_dtype's rules), C-contiguous and aligned (the
// kernels index it as a flat T*), `size` elements (any when size < 0), writable when the
// kernel writes it (a read-only memmap would segfault; a bytes object's buffer would be
// changed under Python's feet).
// check_array's rules but the dtype's: for the one binding (cast) that also takes the
// storage dtypes int8 and uint8 and checks them itself.
inline void check_layout(const py::array& a, const char* op, const char* arg, int64_t size,
                         Access access, int64_t index = -1) {
  if (!py::detail::check_flags(a.ptr(), py::array::c_style))
    throw std::invalid_argument(arg_where(op, arg, index) + "is not C-contiguous");
  if (!py::detail::check_flags(a.ptr(), py::detail::npy_api::NPY_ARRAY_ALIGNED_))
    throw std::invalid_argument(arg_where(op, arg, index) + "is not aligned to its dtype");
  if (size >= 0 && a.size() != size)
    throw std::invalid_argument(arg_where(op, arg, index) + "expected " + std::to_string(size) +
                                " elements, received " + std::to_string(a.size()));
  if (access == kWrite && !a.writeable())
    throw std::invalid_argument(arg_where(op, arg, index) + "is read-only");
}

inline void check_array(const py::array& a, const char* op, const char* arg, int dtype,
                        int64_t size, Access access, int64_t index = -1) {
  const int dt = check_dtype(a, op, arg, index);
  if (dt != dtype)
    throw py::type_error(arg_where(op, arg, index) + "expected dtype " + dtype_name(dtype) +
                         ", received " + dtype_name(dt));
  check_layout(a, op, arg, size, access, index);
}

// A spec: an int64 array of `count` values (any count when count < 0), returned as a pointer.
inline const int64_t* check_spec(const py::array& spec, const char* op, const char* arg,
                                 int64_t count) {
  check_array(spec, op, arg, kInt64, count, kRead);
  return static_cast<const int64_t*>(spec.data());
}

// The position of the first index outside [0, limit), or -1 when all lie inside. Every
// binding that indexes with user data scans the indices with it before using any.
inline int64_t first_outside(const int64_t* idx, int64_t n, int64_t limit) {
  for (int64_t i = 0; i < n; ++i)
    if (idx[i] < 0 || idx[i] >= limit) return i;
  return -1;
}

// An op code: one of the `count` entries of its enum.
inline void check_code(int code, int count, const char* op) {
  if (code < 0 || code >= count)
    throw std::invalid_argument(std::string(op) + ": unknown op code " + std::to_string(code) +
                                ", expected 0 to " + std::to_string(count - 1));
}

// The name of an array argument in a binding's signature (m.def): it must be a NumPy array
// already, as pybind11 would otherwise convert a list or a scalar into a temporary array, and
// what a kernel writes there would be lost without a word.
inline py::arg array_arg(const char* name) { return py::arg(name).noconvert(); }

template <typename T>
inline const T* in_ptr(const py::array& a) { return static_cast<const T*>(a.data()); }

// Only for arrays check_array passed as kWrite.
template <typename T>
inline T* out_ptr(py::array& a) { return static_cast<T*>(a.mutable_data()); }

// ---- threads -------------------------------------------------------------------------------

// The most OpenMP threads a kernel ever starts: 4 per hardware thread, at least 8, at most
// 1024. More only oversubscribes the cores, and far more (set_omp_threads(100000)) made
// thread creation fail inside a kernel (a segfault).
inline int thread_limit() {
  static const int limit = std::min(1024, std::max(8, 4 * omp_get_num_procs()));
  return limit;
}

// The threads a kernel uses: OpenMP's setting for this thread, capped by thread_limit() (the
// setting is per thread and OMP_NUM_THREADS may say anything).
inline int max_threads() { return std::max(1, std::min(omp_get_max_threads(), thread_limit())); }

// Calls f(begin, end) over [0, n) in one chunk per thread when n is large enough.
template <typename F>
inline void parallel_chunks(int64_t n, int64_t grain, F f) {
  int threads = max_threads();
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

// ---- the GIL -------------------------------------------------------------------------------

// Kernels give up the GIL while they compute, once every argument is checked, so that other
// Python threads run meanwhile (a reader decoding the next batch while the step runs).
// Inside the released region nothing may touch a Python object: no py::object made,
// copied or destroyed, no Python call (an array's data pointer, size, flags and itemsize are
// plain C fields of its struct; the arrays stay alive, as the caller holds them). The
// plans' runs are serialized by the executor's lock, eager programs by their own.
// Only from kGilGrain elements of work: releasing and retaking costs a fraction of a
// microsecond, but retaking it waits for whichever thread holds it, so small kernels keep
// it (a step of many small ops would otherwise wait on the reader at every op).
constexpr int64_t kGilGrain = int64_t(1) << 16;

class GilRelease {
 public:
  explicit GilRelease(int64_t work) {
    if (work >= kGilGrain && PyGILState_Check()) release_.emplace();
  }
 private:
  std::optional<py::gil_scoped_release> release_;
};

// ---- vector builds -------------------------------------------------------------------------

// Loops that gain from wide vectors (the convolutions' taps path, the transcendental
// elementwise functions) are also built for AVX2+FMA and AVX-512 with target attributes,
// besides the package's SSE2 baseline, and pick one at run time. vector_bytes() is the
// widest build this CPU runs: 64, 32 or 16. PADDLE_VECTOR_BYTES=16 or 32 picks a narrower
// one (PADDLE_CONV_VECTOR_BYTES, its older name, too; read once, at the first call), so
// that the tests can run every build a CPU supports.
#if defined(__x86_64__) && defined(__GNUC__)
#define PD_VECTOR_BUILDS 1
inline int vector_bytes() {
  static const int bytes = [] {
    const int widest =
        __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") ? 64 :
        __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 32 : 16;
    const char* asked = std::getenv("PADDLE_VECTOR_BYTES");
    if (!asked) asked = std::getenv("PADDLE_CONV_VECTOR_BYTES");
    const int want = asked ? std::atoi(asked) : widest;
    return want == 16 || want == 32 || want == 64 ? std::min(want, widest) : widest;
  }();
  return bytes;
}
#endif

// PD_VECTOR_VARIANTS(NAME, RANGE, PARAMS, ARGS) defines `template <typename T> void NAME
// PARAMS`, which runs `RANGE<T, VB> ARGS` in the widest vector build this CPU runs (VB: 64,
// 32 or 16, vector_bytes()), and the AVX-512 and AVX2+FMA builds it picks from. RANGE is a
// template <typename T, int VB> function marked PD_VM_INLINE (so that each build compiles
// its own copy with the target's instructions); PARAMS is the parenthesized parameter list
// (T its element type) and ARGS the parenthesized names of those parameters:
//     PD_VECTOR_VARIANTS(softmax_vec, softmax_range, (const T* x, T* y, int64_t n), (x, y, n))
#ifdef PD_VECTOR_BUILDS
#define PD_VECTOR_VARIANTS(NAME, RANGE, PARAMS, ARGS)                                      \
  template <typename T>                                                                   \
  __attribute__((target("avx512f,avx512dq,avx2,fma"))) void NAME##_avx512 PARAMS {         \
    RANGE<T, 64> ARGS;                                                                    \
  }                                                                                       \
  template <typename T>                                                                   \
  __attribute__((target("avx2,fma"))) void NAME##_avx2 PARAMS {                            \
    RANGE<T, 32> ARGS;                                                                    \
  }                                                                                       \
  template <typename T>                                                                   \
  void NAME PARAMS {                                                                      \
    switch (::paddle::vector_bytes()) {                                                   \
      case 64: return NAME##_avx512<T> ARGS;                                              \
      case 32: return NAME##_avx2<T> ARGS;                                                \
    }                                                                                     \
    RANGE<T, 16> ARGS;                                                                    \
  }
#else
#define PD_VECTOR_VARIANTS(NAME, RANGE, PARAMS, ARGS) \
  template <typename T>                               \
  void NAME PARAMS {                                  \
    RANGE<T, 16> ARGS;                                \
  }
#endif

// ---- dtype dispatch ------------------------------------------------------------------------

// Dispatches on a float dtype: body is instantiated with `scalar_t`.
#define PD_DISPATCH_FLOAT(DTYPE, OP, ...)                                              \
  switch (DTYPE) {                                                                    \
    case ::paddle::kFloat32: { using scalar_t = float; __VA_ARGS__; break; }          \
    case ::paddle::kFloat64: { using scalar_t = double; __VA_ARGS__; break; }         \
    default: throw py::type_error(std::string(OP) + ": expected float32 or float64, " \
                                  "received " + ::paddle::dtype_name(DTYPE));         \
  }

#define PD_DISPATCH_NUMERIC(DTYPE, OP, ...)                                            \
  switch (DTYPE) {                                                                    \
    case ::paddle::kFloat32: { using scalar_t = float; __VA_ARGS__; break; }          \
    case ::paddle::kFloat64: { using scalar_t = double; __VA_ARGS__; break; }         \
    case ::paddle::kInt64: { using scalar_t = int64_t; __VA_ARGS__; break; }          \
    case ::paddle::kInt32: { using scalar_t = int32_t; __VA_ARGS__; break; }          \
    default: throw py::type_error(std::string(OP) + ": expected float32, float64, "   \
                                  "int32 or int64, received " +                       \
                                  ::paddle::dtype_name(DTYPE));                       \
  }

#define PD_DISPATCH_ALL(DTYPE, OP, ...)                                                \
  switch (DTYPE) {                                                                    \
    case ::paddle::kFloat32: { using scalar_t = float; __VA_ARGS__; break; }          \
    case ::paddle::kFloat64: { using scalar_t = double; __VA_ARGS__; break; }         \
    case ::paddle::kInt64: { using scalar_t = int64_t; __VA_ARGS__; break; }          \
    case ::paddle::kInt32: { using scalar_t = int32_t; __VA_ARGS__; break; }          \
    case ::paddle::kBool: { using scalar_t = uint8_t; __VA_ARGS__; break; }           \
    default: throw py::type_error(std::string(OP) + ": unsupported dtype " +          \
                                  ::paddle::dtype_name(DTYPE));                       \
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
void init_color(py::module_& m);
void init_reduce(py::module_& m);
void init_matmul(py::module_& m);
void init_linalg(py::module_& m);
void init_copy(py::module_& m);
void init_softmax(py::module_& m);
void init_layer_norm(py::module_& m);
void init_optim(py::module_& m);
void init_random(py::module_& m);
void init_sort(py::module_& m);
void init_png(py::module_& m);

}  // namespace paddle
