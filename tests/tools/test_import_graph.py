"""tools/import_graph.py holds the package to its import numbers: its circles (files that
import each other in a loop, imports inside functions counted) and its imports inside
functions that give no reason may shrink, never grow (issue 24: imports run downward only)."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "tools", "import_graph.py")

_spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
import_graph = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(import_graph)

# Issue 24's target, reached: no circle of more than two files (the graph and the executor
# stay tied: graph.py's Variable.val() evaluates through the executor), and every import
# inside a function says why it is there. Before (the day this test was written): 2
# circles, of 75 and 20 files; 179 imports inside functions, 176 without a reason.
LARGEST_CIRCLE = 2
FILES_IN_CIRCLES = 2
UNEXPLAINED_INNER_IMPORTS = 0


@pytest.fixture(scope="module")
def report():
    return import_graph.analyse(os.path.join(ROOT, "paddle"))


def test_the_import_circles_of_paddle_do_not_grow(report):
    sizes = [len(group) for group in report.circles]
    assert report.largest <= LARGEST_CIRCLE, (
        f"an import circle of {report.largest} files (the bound is {LARGEST_CIRCLE}): "
        "python tools/import_graph.py lists what ties it")
    assert sum(sizes) <= FILES_IN_CIRCLES, (
        f"{sum(sizes)} files sit in import circles {sizes} (the bound is {FILES_IN_CIRCLES})")


def test_imports_inside_functions_without_a_reason_do_not_grow(report):
    unexplained = [f"{os.path.relpath(i.path, ROOT)}:{i.line}" for i in report.unexplained]
    assert len(unexplained) <= UNEXPLAINED_INNER_IMPORTS, (
        f"{len(unexplained)} imports inside functions give no reason (the bound is "
        f"{UNEXPLAINED_INNER_IMPORTS}): put a one-line comment on or above each new one "
        "(`# optional dependency: ...`, `# lazy: ...`), or import at the top. All of them: "
        + ", ".join(unexplained))


def _package(tmp_path, files):
    for name, text in files.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return str(tmp_path / "pkg")


def test_the_checker_finds_circles_through_functions_and_reexports(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "from .b import thing\n",
        "a.py": "from pkg import thing\n",             # re-exported: the arrow goes to b
        "b.py": "def f():\n    from . import c\nthing = 1\n",   # inside a function
        "c.py": "import pkg.a as a\n",
        "d.py": "import os\nfrom .a import x\n",      # points into the circle, not part of it
        "sub/__init__.py": "",
        "sub/e.py": "from ..d import y\nfrom .. import sub\n",
    })
    report = import_graph.analyse(root)
    assert report.circles == [["pkg.a", "pkg.b", "pkg.c"]]
    assert report.graph["pkg.a"] == {"pkg.b"}
    assert report.graph["pkg.sub.e"] == {"pkg.d", "pkg.sub"}
    assert [(i.module, i.line) for i in report.inner] == [("pkg.b", 2)]


def test_the_checker_reads_the_reason_of_an_import_inside_a_function(tmp_path):
    root = _package(tmp_path, {
        "__init__.py": "",
        "m.py": """\
            import json  # a module-level import needs no reason


            def f():
                import onnx  # optional dependency: the onnx extra
                # lazy: n imports m at its top
                from . import n
                import numpy  # noqa: F401
                s = "# not a comment"; import os
                return lambda: __import__("x")


            def g():
                import sys
            """,
        "n.py": "from . import m\n",
    })
    report = import_graph.analyse(root)
    assert [(i.line, i.reason) for i in report.inner] == [
        (5, True), (7, True), (8, False), (9, False), (14, False)]
    assert [i.line for i in report.unexplained] == [8, 9, 14]
    assert report.circles == [["pkg.m", "pkg.n"]]


def test_an_unbuilt_extension_that_setup_py_declares_is_no_import_of_the_package(tmp_path):
    # A clean clone (CI) has no pkg/_C*.so yet: `from pkg import _C` must not read as an
    # import of pkg/__init__.py, which would tie every kernel module into one circle.
    root = _package(tmp_path, {
        "__init__.py": "from pkg import ops\n",
        "ops.py": "from pkg import _C\n",
    })
    (tmp_path / "setup.py").write_text('ext = Pybind11Extension("pkg._C", ["core.cpp"])\n')
    assert import_graph.analyse(root).largest == 0
    (tmp_path / "setup.py").unlink()
    assert import_graph.analyse(root).largest == 2  # undeclared: read as the package's


def test_the_command_line_lists_and_sums_up(report):
    done = subprocess.run([sys.executable, SCRIPT, os.path.join(ROOT, "paddle"),
                           "--unexplained"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == (f"{len(report.circles)} circle(s); largest {report.largest} files; "
                         f"{len(report.inner)} imports inside functions, "
                         f"{len(report.unexplained)} without a reason")
    assert sum(line.startswith("circle of ") for line in lines) == len(report.circles)
