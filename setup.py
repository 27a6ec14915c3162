"""Builds paddle's native core, paddle._C, from csrc/ against scipy-openblas32's BLAS."""
import glob
import os
import sys

import scipy_openblas32
from pybind11.setup_helpers import ParallelCompile, Pybind11Extension, build_ext, naive_recompile
from setuptools import setup

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
    extra_compile_args=["-O3", "-fno-math-errno", "-ffp-contract=fast"] + openmp,
    extra_link_args=openmp,
    cxx_std=17,
)


class BuildExt(build_ext):
    """Creates the object folders first: the parallel compiler does not."""

    def build_extension(self, extension):
        for source in extension.sources:
            os.makedirs(os.path.join(self.build_temp, os.path.dirname(source)), exist_ok=True)
        super().build_extension(extension)


setup(ext_modules=[ext], cmdclass={"build_ext": BuildExt})
