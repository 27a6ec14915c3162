"""paddle's C API: the header `paddle_c.h` and the library `libpaddle_c`, and what a C
compiler needs to use them.

    cc -std=c99 prog.c $(python -m paddle.capi --cflags) $(python -m paddle.capi --libs)

The library embeds this Python and drives this package (see `paddle.capi.calls` and
docs/c_api.md). `--libs` gives the library folder, an rpath to it and `-lpaddle_c`, so the
program runs without LD_LIBRARY_PATH, PYTHONPATH or PYTHONHOME.

Example:
    >>> import os, paddle.capi
    >>> os.path.isfile(os.path.join(paddle.capi.include_dir(), "paddle_c.h"))
    True
    >>> paddle.capi.cflags() == "-I" + paddle.capi.include_dir()
    True
"""
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def include_dir():
    """The folder holding paddle_c.h."""
    return os.path.join(_HERE, "include")


def library_dir():
    """The folder holding libpaddle_c.so."""
    return os.path.join(_HERE, "lib")


def library_path():
    """The path of libpaddle_c.so; FileNotFoundError when it was not built."""
    path = os.path.join(library_dir(), "libpaddle_c.so")
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"paddle.capi: {path} does not exist; it is built with the package (pip install "
            ". or python setup.py build_ext --inplace) when Python has a shared libpython")
    return path


def cflags():
    """The compiler flags: the include path."""
    return f"-I{include_dir()}"


def libs():
    """The linker flags: library path, rpath and -lpaddle_c (FileNotFoundError when the
    library was not built)."""
    folder = os.path.dirname(library_path())
    return f"-L{folder} -Wl,-rpath,{folder} -lpaddle_c"
