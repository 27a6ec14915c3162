"""The import graph of a package: circles of files that import each other, and the imports
inside functions that give no reason.

    python tools/import_graph.py [PACKAGE_DIR]           # default: paddle
    python tools/import_graph.py paddle --unexplained    # also list those imports

An import inside a function is still an arrow (it runs the first time the function does),
so both kinds count. A circle is a strongly connected group of two or more files. An
import inside a function gives its reason in a comment on its line or on the line just above
(`# optional dependency: onnx`, `# lazy: serialization imports the layers`); `# noqa` alone
is no reason. Exit status 0; the last line sums up. tests/tools/test_import_graph.py holds
the package to its current numbers, so that they only go down.
"""
import argparse
import ast
import io
import os
import re
import sys
import tokenize
from dataclasses import dataclass, field


@dataclass
class Import:
    """One import statement of one module, and the modules of the package it points to."""
    module: str
    path: str
    line: int
    in_function: bool
    reason: bool
    targets: set = field(default_factory=set)


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def find_modules(root):
    """{dotted name: path} of every .py file under the package folder `root`."""
    base = os.path.dirname(os.path.abspath(root))
    found = {}
    for folder, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                name = os.path.relpath(path, base)[:-3].replace(os.sep, ".")
                found[name.removesuffix(".__init__")] = path
    return found


def _source_module(node, name, path):
    """The module a `from ... import` reads from, relative levels resolved."""
    if not node.level:
        return node.module or ""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    parts = package.split(".")
    base = ".".join(parts[:len(parts) - node.level + 1])
    return f"{base}.{node.module}" if node.module else base


def _reexports(modules):
    """{package: {name: module it comes from}} for the names each __init__.py imports."""
    out = {}
    for name, path in modules.items():
        if path.endswith("__init__.py"):
            tree = ast.parse(_read(path), path)
            names = out.setdefault(name, {})
            for node in tree.body:
                if isinstance(node, ast.ImportFrom):
                    for alias in node.names:
                        names[alias.asname or alias.name] = _source_module(node, name, path)
    return out


def _is_extension(package, attr, modules):
    """`from pkg import _C` where _C is a compiled module: built beside pkg/__init__.py, or
    declared in the setup.py above the package (a clean clone has not built it yet)."""
    if package not in modules:
        return False
    folder = os.path.dirname(modules[package])
    if f"{package}.{attr}" in _declared_extensions(folder):
        return True
    return any(f.startswith(attr + ".") and f.endswith((".so", ".pyd"))
               for f in os.listdir(folder))


def _declared_extensions(folder):
    """The extension modules ("paddle._C") that a setup.py in `folder` or above declares."""
    while True:
        setup = os.path.join(folder, "setup.py")
        if os.path.isfile(setup):
            return set(re.findall(r"Extension\(\s*[\"']([\w.]+)[\"']", _read(setup)))
        parent = os.path.dirname(folder)
        if parent == folder:
            return set()
        folder = parent


def _commented_lines(source):
    """(lines with a comment that says something, lines that are only such a comment)."""
    said, alone = set(), set()
    lines = source.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            text = re.sub(r"#\s*(noqa\b[:\w, ]*|type:\s*ignore\S*|pragma:.*)", "#", tok.string)
            if text.strip("# \t"):
                said.add(tok.start[0])
                if lines[tok.start[0] - 1].lstrip().startswith("#"):
                    alone.add(tok.start[0])
    return said, alone


def _statements(tree):
    """(import node, inside a function?) for every import of a module."""
    stack = [(tree, False)]
    while stack:
        node, inside = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, inside
        inner = inside or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def read_imports(name, path, modules, exports):
    """The Import statements of module `name`, each with its targets inside the package."""
    source = _read(path)
    said, alone = _commented_lines(source)
    found = []
    for node, inside in _statements(ast.parse(source, path)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            source_module = _source_module(node, name, path)
            targets = []
            for alias in node.names:
                origin = exports.get(source_module, {}).get(alias.name)
                if f"{source_module}.{alias.name}" in modules:  # a submodule
                    targets.append(f"{source_module}.{alias.name}")
                elif origin == source_module or _is_extension(source_module, alias.name,
                                                              modules):
                    continue  # the compiled extension
                elif origin is not None and origin != name:  # re-exported by an __init__
                    targets.append(origin)
                else:
                    targets.append(source_module)
        lines = range(node.lineno, node.end_lineno + 1)
        imp = Import(name, path, node.lineno, inside,
                     any(n in said for n in lines) or node.lineno - 1 in alone)
        for target in targets:
            while target and target not in modules:  # an attribute: its module
                target = target.rpartition(".")[0]
            if target and target != name:
                imp.targets.add(target)
        found.append(imp)
    return found


def circles(graph):
    """Strongly connected groups of two or more modules, each sorted (Tarjan, iterative)."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups, key=lambda g: (-len(g), g))


@dataclass
class Report:
    graph: dict        # module -> set of modules it imports
    circles: list      # sorted groups, largest first
    inner: list        # Import statements inside functions (any target, in the package or not)

    @property
    def largest(self):
        return len(self.circles[0]) if self.circles else 0

    @property
    def unexplained(self):
        return [imp for imp in self.inner if not imp.reason]


def analyse(root="paddle"):
    modules = find_modules(root)
    exports = _reexports(modules)
    graph, inner = {}, []
    for name, path in modules.items():
        statements = read_imports(name, path, modules, exports)
        graph[name] = set().union(*(imp.targets for imp in statements))
        inner += [imp for imp in statements if imp.in_function]
    return Report(graph, circles(graph), sorted(inner, key=lambda i: (i.path, i.line)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("package", nargs="?", default="paddle", help="the package folder")
    parser.add_argument("--unexplained", action="store_true",
                        help="list the imports inside functions that give no reason")
    args = parser.parse_args(argv)
    report = analyse(args.package)
    for group in report.circles:
        print(f"circle of {len(group)} files:")
        for member in group:
            ties = sorted(report.graph[member] & set(group))
            print(f"  {member} -> {', '.join(ties)}")
    if args.unexplained:
        print("imports inside functions without a reason:")
        for imp in report.unexplained:
            print(f"  {imp.path}:{imp.line}")
    print(f"{len(report.circles)} circle(s); largest {report.largest} files; "
          f"{len(report.inner)} imports inside functions, {len(report.unexplained)} "
          "without a reason")
    return 0


if __name__ == "__main__":
    sys.exit(main())
