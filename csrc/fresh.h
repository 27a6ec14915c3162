// Kernel entries that make their own output, for eager calls (paddle/lowlevel/eager.py).
//
// An eager op on a tiny array runs one kernel, and there pybind11's dispatch (a loop over
// overloads, a caster per argument), allocating the output in Python and a second Python
// call to make it read-only cost several times what the kernel does. `NAME_fresh(like,
// args...)` is the binding `NAME(args...)` with its output argument left out: it allocates
// a C-contiguous array of `like`'s shape and dtype, runs the very same C++ function on it
// (every check included) and returns it read-only. It is a plain METH_FASTCALL function:
// each argument goes through the caster pybind11 would use, arrays without conversion (as
// array_arg), anything else as pybind11's second pass converts it.
//
// Only for kernels that write every element of their output and only read their other
// arguments: the output is fresh memory, and two threads may run one entry at once.
#pragma once

#include "common.h"

#include <tuple>
#include <type_traits>
#include <utility>

namespace paddle {
namespace fresh_detail {

// A new C-contiguous array of `like`'s shape and dtype (one of paddle's five).
inline py::array new_like(PyObject* like, const char* name) {
  if (!py::isinstance<py::array>(like))
    throw py::type_error(std::string(name) + ": argument 'like' expected a NumPy array");
  py::array ref = py::reinterpret_borrow<py::array>(like);
  check_dtype(ref, name, "like");
  const auto* proxy = py::detail::array_proxy(like);
  auto& api = py::detail::npy_api::get();
  PyObject* descr = proxy->descr;
  Py_INCREF(descr);  // PyArray_NewFromDescr steals it
  PyObject* out = api.PyArray_NewFromDescr_(api.PyArray_Type_, descr, proxy->nd,
                                            proxy->dimensions, nullptr, nullptr, 0, nullptr);
  if (!out) throw py::error_already_set();
  return py::reinterpret_steal<py::array>(out);
}

// Loads argument I of the kernel: the fresh output at position Out, else the caller's
// argument (the caller passes all but the output, after `like`).
template <size_t I, int Out, typename Caster, typename Arg>
bool load(Caster& caster, PyObject* const* args, const py::array& out) {
  if (int(I) == Out) return caster.load(out, false);
  constexpr bool is_array = std::is_same<std::decay_t<Arg>, py::array>::value;
  return caster.load(args[int(I) < Out ? I : I - 1], !is_array);
}

template <int Out, typename... Args, size_t... I>
void call(void (*kernel)(Args...), PyObject* const* args, const py::array& out,
          const char* name, std::index_sequence<I...>) {
  std::tuple<py::detail::make_caster<Args>...> casters;
  const bool loaded = (load<I, Out, std::tuple_element_t<I, decltype(casters)>, Args>(
                           std::get<I>(casters), args, out) && ...);
  if (!loaded)
    throw py::type_error(std::string(name) + ": arguments of the wrong types (arrays must "
                         "be NumPy arrays)");
  kernel(py::detail::cast_op<Args>(std::get<I>(casters))...);
}

template <auto Kernel, int Out, typename... Args>
PyObject* entry(PyObject* const* args, Py_ssize_t nargs, const char* name,
                void (*)(Args...)) {
  if (nargs != Py_ssize_t(sizeof...(Args))) {  // like, then every argument but the output
    PyErr_Format(PyExc_TypeError, "%s: expected %d arguments, received %zd", name,
                 int(sizeof...(Args)), nargs);
    return nullptr;
  }
  try {
    py::array out = new_like(args[0], name);
    call<Out>(Kernel, args + 1, out, name, std::index_sequence_for<Args...>{});
    py::detail::array_proxy(out.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return out.release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {
    py::detail::try_translate_exceptions();  // ValueError, TypeError... as the binding's
  }
  return nullptr;
}

// `self` is the entry's name (a str), for its own messages.
template <auto Kernel, int Out>
PyObject* fastcall(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  return entry<Kernel, Out>(args, nargs, PyUnicode_AsUTF8(self), Kernel);
}

}  // namespace fresh_detail

// Adds `name` to m: Kernel (a binding's function) with its argument number Out (from 0)
// made by the entry, as described above.
template <auto Kernel, int Out>
void def_fresh(py::module_& m, const char* name, const char* doc) {
  auto* call = reinterpret_cast<void (*)(void)>(&fresh_detail::fastcall<Kernel, Out>);
  static PyMethodDef def{name, reinterpret_cast<PyCFunction>(call), METH_FASTCALL, doc};
  py::str self(name);
  PyObject* fn = PyCFunction_NewEx(&def, self.ptr(), nullptr);  // holds its own reference
  if (!fn) throw py::error_already_set();
  m.add_object(name, py::reinterpret_steal<py::object>(fn));
}

}  // namespace paddle
