// libpaddle_c: the C99 API of paddle_c.h, over the Python package through an embedded
// interpreter (pybind11's embed.h). There is one implementation of every op and layer: each
// pd_ call takes the GIL, wraps the caller's memory in NumPy views and calls the
// Python half, paddle/capi/calls.py, which drives the same Model methods a Python user
// calls. Nothing leaves a pd_ function but a pd_error: every entry point catches
// everything.
//
// Finding Python. The library knows where it lies (dladdr): <parent>/paddle/capi/lib/.
// <parent> goes on sys.path, so the package this library was built with is the one it
// imports. The interpreter (for the standard library and NumPy, h5py, ...) is the virtual
// environment the package is installed in (<parent> is its site-packages, pyvenv.cfg
// three folders up), else the interpreter that built the library (an in-place build).
// The configuration is isolated: PYTHONPATH, PYTHONHOME and the user's site-packages
// are ignored, Python installs no signal handlers in the host program.
#include <pybind11/embed.h>
#include <pybind11/numpy.h>

#include <dlfcn.h>
#include <limits.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "paddle_c.h"

#ifndef PD_BUILD_PYTHON
#define PD_BUILD_PYTHON ""
#endif

namespace py = pybind11;

struct pd_model {
  static constexpr uint64_t kMagic = 0x6c65646f6d5f6470ULL;  // "pd_model"
  uint64_t magic = kMagic;
  py::object loaded;                // a paddle.capi.calls.LoadedModel
  std::vector<std::string> names;   // trainable parameter names, in model order
};

namespace {

// ---- errors -------------------------------------------------------------------------------

// A failure detected here (not in Python): thrown inside an entry point, returned as its
// pd_error.
struct Failure {
  int32_t code;
  std::string msg;
};

thread_local std::string t_message;  // pd_error.msg: valid until this thread's next call

pd_error result(int32_t code, const char* msg) noexcept {
  try {
    t_message = msg;
  } catch (...) {  // no memory for the message: a static one
    return pd_error{code, "out of memory while reporting an error"};
  }
  return pd_error{code, t_message.c_str()};
}

pd_error ok() noexcept { return pd_error{PD_OK, ""}; }

// ---- finding and starting Python ----------------------------------------------------------

std::string dirname_of(const std::string& path) {
  size_t k = path.rfind('/');
  if (k == std::string::npos) return ".";
  return k == 0 ? "/" : path.substr(0, k);
}

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

std::string real(const std::string& path) {
  char buffer[PATH_MAX];
  return realpath(path.c_str(), buffer) ? std::string(buffer) : path;
}

// The folder holding paddle/ (site-packages, or the source tree of an in-place build).
std::string package_parent() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&pd_init), &info) == 0 || info.dli_fname == nullptr) {
    throw Failure{PD_INTERNAL, "pd_init: dladdr could not locate libpaddle_c"};
  }
  // <parent>/paddle/capi/lib/libpaddle_c.so
  return dirname_of(dirname_of(dirname_of(dirname_of(real(info.dli_fname)))));
}

// The python executable whose prefix and site-packages the interpreter takes.
std::string python_for(const std::string& parent) {
  std::string venv = dirname_of(dirname_of(dirname_of(parent)));  // <venv>/lib/pythonX.Y/
  if (exists(venv + "/pyvenv.cfg")) {
    for (const char* name : {"/bin/python3", "/bin/python"}) {
      if (exists(venv + name)) return venv + name;
    }
  }
  std::string built_with = PD_BUILD_PYTHON;
  return exists(built_with) ? built_with : std::string();
}

// Extension modules (NumPy, paddle._C) resolve the C API of Python in the global symbol
// scope. A host that dlopen()ed this library RTLD_LOCAL would hide libpython there.
void make_libpython_global() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&Py_IsInitialized), &info) != 0 && info.dli_fname) {
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  }
}

void start_interpreter(const std::string& python) {
  make_libpython_global();
  PyConfig config;
  PyConfig_InitIsolatedConfig(&config);
  if (!python.empty()) {
    PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, python.c_str());
    if (PyStatus_Exception(status)) {
      PyConfig_Clear(&config);
      throw Failure{PD_INTERNAL, std::string("pd_init: could not configure Python: ") +
                                     (status.err_msg ? status.err_msg : "?")};
    }
  }
  try {
    py::initialize_interpreter(&config, 0, nullptr, false);  // clears config
  } catch (const std::exception& e) {
    throw Failure{PD_INTERNAL, std::string("pd_init: Python did not start (") + python +
                                   "): " + e.what()};
  }
}

// paddle.capi.calls, imported from <parent>; needs the GIL.
py::object import_calls(const std::string& parent) {
  py::list path = py::module_::import("sys").attr("path");
  if (!path.contains(parent)) path.insert(0, parent);
  py::module_ paddle = py::module_::import("paddle");
  std::string found = real(dirname_of(paddle.attr("__file__").cast<std::string>()));
  if (found != real(parent + "/paddle")) {
    throw Failure{PD_INTERNAL, "pd_init: libpaddle_c belongs to the paddle package in " +
                                   parent + ", but Python imported the one in " + found};
  }
  return py::module_::import("paddle.capi.calls");
}

struct Gil {
  PyGILState_STATE state;
  Gil() : state(PyGILState_Ensure()) {}
  ~Gil() { PyGILState_Release(state); }
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;
};

std::mutex g_start_mutex;
std::atomic<py::object*> g_calls{nullptr};  // the module; never freed (no finalization)

pd_error from_python(py::error_already_set& e);

// Starts Python (once) and imports the package (until it succeeds). Returns without the
// GIL: after the start it is released so that any thread can take it.
pd_error ensure_started() {
  if (g_calls.load(std::memory_order_acquire) != nullptr) return ok();
  std::lock_guard<std::mutex> lock(g_start_mutex);
  if (g_calls.load(std::memory_order_acquire) != nullptr) return ok();
  std::string parent = package_parent();
  bool ours = !Py_IsInitialized();
  if (ours) start_interpreter(python_for(parent));  // returns holding the GIL
  PyGILState_STATE state{};
  if (!ours) state = PyGILState_Ensure();
  pd_error status = ok();
  try {
    g_calls.store(new py::object(import_calls(parent)), std::memory_order_release);
  } catch (py::error_already_set& e) {
    status = from_python(e);
    std::string message = std::string("pd_init: import paddle failed: ") + status.msg;
    status = result(PD_INTERNAL, message.c_str());
  } catch (const Failure& f) {
    status = result(f.code, f.msg.c_str());
  } catch (const std::exception& e) {
    status = result(PD_INTERNAL, (std::string("pd_init: ") + e.what()).c_str());
  }
  if (ours) {
    PyEval_SaveThread();
  } else {
    PyGILState_Release(state);
  }
  return status;
}

py::object& calls_module() { return *g_calls.load(std::memory_order_acquire); }

// The Python exception as a pd_error: code and 'Class: message' from calls.py. GIL held.
pd_error from_python(py::error_already_set& e) {
  int32_t code = PD_INTERNAL;
  std::string message;
  try {
    py::object* module = g_calls.load(std::memory_order_acquire);
    if (module == nullptr) throw Failure{PD_INTERNAL, ""};  // paddle is not imported (yet)
    code = module->attr("code_of")(e.value()).cast<int32_t>();
    message = module->attr("describe")(e.value()).cast<std::string>();
  } catch (...) {
    code = PD_INTERNAL;
    message = e.what();
  }
  return result(code, message.c_str());
}

// pd_ calls run one at a time. The GIL alone does not do it: the interpreter hands it to
// another thread every few milliseconds, and two calls interleaved would build graphs and
// claim names together. Taken after the GIL, and waited for without it, so that no thread
// ever waits for the lock while holding the GIL the owner needs.
std::mutex g_call_mutex;

struct OneCallAtATime {
  OneCallAtATime() {
    if (!g_call_mutex.try_lock()) {
      PyThreadState* state = PyEval_SaveThread();
      try {
        g_call_mutex.lock();
      } catch (...) {
        PyEval_RestoreThread(state);
        throw;
      }
      PyEval_RestoreThread(state);
    }
  }
  ~OneCallAtATime() { g_call_mutex.unlock(); }
  OneCallAtATime(const OneCallAtATime&) = delete;
  OneCallAtATime& operator=(const OneCallAtATime&) = delete;
};

// Runs `body` with the interpreter started, the GIL and the call lock held; whatever it
// throws becomes a pd_error.
template <class Body>
pd_error guarded(Body&& body) noexcept {
  try {
    pd_error started = ensure_started();
    if (started.code != PD_OK) return started;
    Gil gil;
    OneCallAtATime serialized;
    try {
      body();
      return ok();
    } catch (py::error_already_set& e) {
      return from_python(e);
    } catch (const Failure& f) {
      return result(f.code, f.msg.c_str());
    }
  } catch (const Failure& f) {
    return result(f.code, f.msg.c_str());
  } catch (const std::bad_alloc&) {
    return result(PD_OUT_OF_MEMORY, "MemoryError: out of memory");
  } catch (const std::exception& e) {
    return result(PD_INTERNAL, (std::string("internal error: ") + e.what()).c_str());
  } catch (...) {
    return result(PD_INTERNAL, "internal error: an unknown C++ exception");
  }
}

// ---- checks and conversions -------------------------------------------------------------

template <class T>
void not_null(const T* p, const char* where, const char* what) {
  if (p == nullptr) {
    throw Failure{PD_INVALID_ARGUMENT, std::string(where) + ": " + what + " is NULL"};
  }
}

pd_model& model_of(pd_model* m, const char* where) {
  not_null(m, where, "the model");
  if (m->magic != pd_model::kMagic) {
    throw Failure{PD_INVALID_ARGUMENT,
                  std::string(where) + ": the pointer is not a live pd_model (freed already?)"};
  }
  return *m;
}

// The NumPy dtype of a pd_tensor dtype code (made once, under the GIL and the call lock;
// kept for the life of the process, as the interpreter is).
const py::dtype& numpy_dtype(int32_t code) {
  static py::dtype* cache[4] = {nullptr, nullptr, nullptr, nullptr};
  if (cache[code] == nullptr) {
    switch (code) {
      case PD_FLOAT32: cache[code] = new py::dtype(py::dtype::of<float>()); break;
      case PD_FLOAT64: cache[code] = new py::dtype(py::dtype::of<double>()); break;
      case PD_INT32: cache[code] = new py::dtype(py::dtype::of<int32_t>()); break;
      default: cache[code] = new py::dtype(py::dtype::of<int64_t>()); break;
    }
  }
  return *cache[code];
}

// "pd_model_predict: inputs[0]", built only when a message needs it.
std::string label(const char* where, const char* what, int32_t index) {
  std::string out = std::string(where) + ": " + what;
  return index < 0 ? out : out + "[" + std::to_string(index) + "]";
}

// A read-only NumPy view of a caller's tensor (no copy), after checking what NumPy cannot.
py::array view_of(const pd_tensor& t, const char* where, const char* what, int32_t index) {
  if (t.dtype < PD_FLOAT32 || t.dtype > PD_INT64) {
    throw Failure{PD_INVALID_ARGUMENT,
                  label(where, what, index) + ": dtype " + std::to_string(t.dtype) +
                      " is not one of PD_FLOAT32 (0), PD_FLOAT64 (1), PD_INT32 (2), PD_INT64 (3)"};
  }
  if (t.rank < 0 || t.rank > 8) {
    throw Failure{PD_INVALID_ARGUMENT, label(where, what, index) + ": rank " +
                                           std::to_string(t.rank) + " is outside [0, 8]"};
  }
  int64_t count = 1;
  for (int32_t i = 0; i < t.rank; ++i) {
    if (t.shape[i] < 0) {
      throw Failure{PD_INVALID_ARGUMENT, label(where, what, index) + ": shape[" +
                                             std::to_string(i) + "] is " +
                                             std::to_string(t.shape[i]) + "; sizes are >= 0"};
    }
    if (t.shape[i] != 0 && count > INT64_MAX / 8 / t.shape[i]) {
      throw Failure{PD_INVALID_ARGUMENT,
                    label(where, what, index) + ": the shape's size overflows 64 bits"};
    }
    count *= t.shape[i];
  }
  if (t.data == nullptr && count != 0) {
    throw Failure{PD_INVALID_ARGUMENT, label(where, what, index) + ": data is NULL"};
  }
  static const int64_t empty = 0;  // NumPy wants a pointer even for no element
  const void* data = t.data != nullptr ? t.data : &empty;
  py::array array(numpy_dtype(t.dtype), std::vector<py::ssize_t>(t.shape, t.shape + t.rank),
                  data, py::none());
  py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return array;
}

py::list views_of(const pd_tensor* tensors, int32_t n, const char* where, const char* what,
                  const char* count) {
  if (n < 0) {
    throw Failure{PD_INVALID_ARGUMENT, std::string(where) + ": " + count + " is " +
                                           std::to_string(n) + "; counts are >= 0"};
  }
  if (tensors == nullptr && n != 0) {
    throw Failure{PD_INVALID_ARGUMENT, std::string(where) + ": " + what + " is NULL with " +
                                           count + " = " + std::to_string(n)};
  }
  py::list out(n);
  for (int32_t i = 0; i < n; ++i) {
    out[static_cast<size_t>(i)] = view_of(tensors[i], where, what, i);
  }
  return out;
}

// A library-owned copy of a C-contiguous NumPy array of one of the four dtypes (calls.py
// guarantees both).
pd_tensor copy_out(py::handle obj) {
  py::array array = py::reinterpret_borrow<py::array>(obj);
  pd_tensor t;
  std::memset(&t, 0, sizeof t);
  t.dtype = -1;
  py::dtype dtype = array.dtype();
  for (int32_t code = PD_FLOAT32; code <= PD_INT64 && t.dtype < 0; ++code) {
    if (dtype.equal(numpy_dtype(code))) t.dtype = code;
  }
  if (t.dtype < 0 || array.ndim() > 8 || (array.flags() & py::array::c_style) == 0) {
    throw Failure{PD_INTERNAL, "a result that is not a C-contiguous array of a pd_tensor dtype"};
  }
  t.rank = static_cast<int32_t>(array.ndim());
  for (int32_t i = 0; i < t.rank; ++i) t.shape[i] = array.shape(i);
  size_t bytes = static_cast<size_t>(array.nbytes());
  t.data = std::malloc(bytes > 0 ? bytes : 1);
  if (t.data == nullptr) throw std::bad_alloc();
  if (bytes > 0) std::memcpy(t.data, array.data(), bytes);
  return t;
}

void clear(pd_tensor* tensors, int32_t n) {
  if (tensors == nullptr) return;
  for (int32_t i = 0; i < n; ++i) tensors[i].data = nullptr;
}

// The shared body of train_on_batch, evaluate and forward_backward.
pd_error run_batch(const char* where, const char* method, pd_model* m, const pd_tensor* x,
                   int32_t nx, const pd_tensor* y, int32_t ny, double* loss) {
  return guarded([&] {
    pd_model& model = model_of(m, where);
    py::list xs = views_of(x, nx, where, "x", "nx");
    py::list ys = views_of(y, ny, where, "y", "ny");
    double value = model.loaded.attr(method)(xs, ys).cast<double>();
    if (loss != nullptr) *loss = value;
  });
}

}  // namespace

// ---- the API ----------------------------------------------------------------------------

extern "C" {

pd_error pd_init(void) {
  return guarded([] {});
}

pd_error pd_set_device(const char* device) {
  return guarded([&] {
    not_null(device, "pd_set_device", "device");
    calls_module().attr("set_device")(py::str(device));
  });
}

pd_error pd_model_load(const char* path, pd_model** out) {
  if (out != nullptr) *out = nullptr;
  return guarded([&] {
    not_null(out, "pd_model_load", "out");
    not_null(path, "pd_model_load", "path");
    py::object loaded = calls_module().attr("load")(py::str(path));
    auto model = std::make_unique<pd_model>();
    for (py::handle name : loaded.attr("param_names")) {
      model->names.push_back(name.cast<std::string>());
    }
    model->loaded = std::move(loaded);
    *out = model.release();
  });
}

pd_error pd_model_save(pd_model* m, const char* path) {
  return guarded([&] {
    pd_model& model = model_of(m, "pd_model_save");
    not_null(path, "pd_model_save", "path");
    model.loaded.attr("save")(py::str(path));
  });
}

void pd_model_free(pd_model* m) {
  if (m == nullptr || m->magic != pd_model::kMagic) return;
  guarded([&] {
    m->magic = 0;
    delete m;  // drops the LoadedModel with the GIL held
  });
}

void pd_tensor_free(pd_tensor* t) {
  if (t == nullptr) return;
  std::free(t->data);
  t->data = nullptr;
}

pd_error pd_model_num_outputs(pd_model* m, int32_t* n) {
  return guarded([&] {
    pd_model& model = model_of(m, "pd_model_num_outputs");
    not_null(n, "pd_model_num_outputs", "n");
    *n = model.loaded.attr("num_outputs").cast<int32_t>();
  });
}

pd_error pd_model_predict(pd_model* m, const pd_tensor* inputs, int32_t n_inputs,
                          pd_tensor* outputs, int32_t n_outputs) {
  if (n_outputs > 0) clear(outputs, n_outputs);
  return guarded([&] {
    const char* where = "pd_model_predict";
    pd_model& model = model_of(m, where);
    py::list xs = views_of(inputs, n_inputs, where, "inputs", "n_inputs");
    if (n_outputs < 0 || (outputs == nullptr && n_outputs != 0)) {
      throw Failure{PD_INVALID_ARGUMENT, std::string(where) +
                                             ": outputs is NULL or n_outputs (" +
                                             std::to_string(n_outputs) + ") is negative"};
    }
    py::list results = model.loaded.attr("predict")(xs, n_outputs);
    if (static_cast<int32_t>(results.size()) != n_outputs) {
      throw Failure{PD_INTERNAL,
                    std::string(where) + ": the model returned another number of outputs"};
    }
    std::vector<pd_tensor> filled;
    try {
      for (py::handle r : results) filled.push_back(copy_out(r));
    } catch (...) {
      for (pd_tensor& t : filled) std::free(t.data);
      throw;
    }
    for (size_t i = 0; i < filled.size(); ++i) outputs[i] = filled[i];
  });
}

pd_error pd_model_train_on_batch(pd_model* m, const pd_tensor* x, int32_t nx,
                                 const pd_tensor* y, int32_t ny, double* loss) {
  return run_batch("pd_model_train_on_batch", "train", m, x, nx, y, ny, loss);
}

pd_error pd_model_evaluate(pd_model* m, const pd_tensor* x, int32_t nx, const pd_tensor* y,
                           int32_t ny, double* loss) {
  return run_batch("pd_model_evaluate", "evaluate", m, x, nx, y, ny, loss);
}

pd_error pd_model_forward_backward(pd_model* m, const pd_tensor* x, int32_t nx,
                                   const pd_tensor* y, int32_t ny, double* loss) {
  return run_batch("pd_model_forward_backward", "forward_backward", m, x, nx, y, ny, loss);
}

pd_error pd_model_num_params(pd_model* m, int32_t* n) {
  return guarded([&] {
    pd_model& model = model_of(m, "pd_model_num_params");
    not_null(n, "pd_model_num_params", "n");
    *n = static_cast<int32_t>(model.names.size());
  });
}

pd_error pd_model_param_name(pd_model* m, int32_t i, const char** name) {
  if (name != nullptr) *name = nullptr;
  return guarded([&] {
    pd_model& model = model_of(m, "pd_model_param_name");
    not_null(name, "pd_model_param_name", "name");
    int32_t n = static_cast<int32_t>(model.names.size());
    if (i < 0 || i >= n) {
      throw Failure{PD_INVALID_ARGUMENT, "pd_model_param_name: index " + std::to_string(i) +
                                             " is outside [0, " + std::to_string(n) + ")"};
    }
    *name = model.names[static_cast<size_t>(i)].c_str();
  });
}

pd_error pd_model_get_param(pd_model* m, const char* name, pd_tensor* out) {
  if (out != nullptr) out->data = nullptr;
  return guarded([&] {
    pd_model& model = model_of(m, "pd_model_get_param");
    not_null(name, "pd_model_get_param", "name");
    not_null(out, "pd_model_get_param", "out");
    *out = copy_out(model.loaded.attr("get_param")(py::str(name)));
  });
}

pd_error pd_model_set_param(pd_model* m, const char* name, const pd_tensor* value) {
  return guarded([&] {
    pd_model& model = model_of(m, "pd_model_set_param");
    not_null(name, "pd_model_set_param", "name");
    not_null(value, "pd_model_set_param", "value");
    py::array array = view_of(*value, "pd_model_set_param", "value", -1);
    model.loaded.attr("set_param")(py::str(name), array);
  });
}

pd_error pd_model_get_grad(pd_model* m, const char* name, pd_tensor* out) {
  if (out != nullptr) out->data = nullptr;
  return guarded([&] {
    pd_model& model = model_of(m, "pd_model_get_grad");
    not_null(name, "pd_model_get_grad", "name");
    not_null(out, "pd_model_get_grad", "out");
    *out = copy_out(model.loaded.attr("get_grad")(py::str(name)));
  });
}

}  // extern "C"
