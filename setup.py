"""Builds paddle's native core, paddle._C, from csrc/ against scipy-openblas32's BLAS, and
the C API, paddle/capi/lib/libpaddle_c.so, from csrc/capi/ against libpython."""
import glob
import json
import os
import sys
import sysconfig

import scipy_openblas32
from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext, naive_recompile
from setuptools import setup
from setuptools.command.build_py import build_py

# Compile the C++ files in parallel and, in a development tree, only the changed ones.
ParallelCompile("PADDLE_BUILD_JOBS", default=2, needs_recompile=naive_recompile).install()

openmp = [] if sys.platform == "darwin" else ["-fopenmp"]
ext = Pybind11Extension(
    "paddle._C",
    sorted(glob.glob(os.path.join("csrc", "*.cpp")) + glob.glob(os.path.join("csrc", "nn", "*.cpp"))),
    include_dirs=["csrc", scipy_openblas32.get_include_dir()],
    library_dirs=[scipy_openblas32.get_lib_dir()],
    # No rpath: `import scipy_openblas32` in paddle/__init__.py loads the library globally.
    libraries=[scipy_openblas32.get_library()],
    # -fno-trapping-math: no kernel reads the floating-point exception flags, and without it
    # GCC keeps a branch for every select with a float arm (it may not compute an arm that
    # could raise a flag), so loops over csrc/vmath.h's functions did not vectorize.
    extra_compile_args=["-O3", "-fno-math-errno", "-fno-trapping-math", "-ffp-contract=fast"]
    + openmp,
    extra_link_args=openmp,
    cxx_std=17,
)

extensions = [ext]

# The C API embeds this interpreter: it links libpython, which must be a shared library
# (a static-only Python cannot be embedded by a shared library; see docs/c_api.md).
# PD_BUILD_PYTHON names the interpreter for an in-place build; an installed library finds
# the virtual environment it lies in.
CAPI = "paddle.capi.lib.libpaddle_c"
if sysconfig.get_config_var("Py_ENABLE_SHARED"):
    python_lib = sysconfig.get_config_var("LDLIBRARY")  # libpython3.11.so
    python_dir = sysconfig.get_config_var("LIBDIR")
    extensions.append(Pybind11Extension(
        CAPI,
        sorted(glob.glob(os.path.join("csrc", "capi", "*.cpp"))),
        include_dirs=[os.path.join("paddle", "capi", "include")],
        define_macros=[("PD_BUILD_PYTHON", json.dumps(sys.executable))],
        library_dirs=[python_dir],
        runtime_library_dirs=[python_dir],
        libraries=[python_lib[3:].split(".so")[0], "dl"],
        extra_compile_args=["-O2"],
        extra_link_args=["-Wl,-soname,libpaddle_c.so"],
        cxx_std=17,
    ))
else:
    print("paddle: this Python has no shared libpython; the C API (libpaddle_c) is not built",
          file=sys.stderr)


class BuildExt(build_ext):
    """Creates the object folders first (the parallel compiler does not), and names the C
    API a plain shared library (libpaddle_c.so, not an extension module's name)."""

    def run(self):
        if self.inplace:  # the in-place copy does not create the library's folder
            os.makedirs(os.path.join("paddle", "capi", "lib"), exist_ok=True)
        super().run()

    def build_extension(self, extension):
        for source in extension.sources:
            os.makedirs(os.path.join(self.build_temp, os.path.dirname(source)), exist_ok=True)
        super().build_extension(extension)

    def get_ext_filename(self, fullname):
        if fullname.split(".")[-1] == CAPI.split(".")[-1]:
            return os.path.join(*fullname.split(".")[:-1], "libpaddle_c.so")
        return super().get_ext_filename(fullname)


class BuildPy(build_py):
    """Also copies the CUDA C sources (csrc/cuda/*.cu, *.cuh), which the GPU backend compiles
    at run time with NVRTC, into the package (paddle/devices/cuda/cu/), so an installed
    paddle finds them."""

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "paddle", "devices", "cuda", "cu")
        os.makedirs(target, exist_ok=True)
        for source in sorted(glob.glob(os.path.join("csrc", "cuda", "*.cu*"))):
            self.copy_file(source, os.path.join(target, os.path.basename(source)))


setup(ext_modules=extensions, cmdclass={"build_ext": BuildExt, "build_py": BuildPy})
