"""The run callables of the CUDA kernels are capturable in a CUDA graph, checked statically
(the simulated device re-runs Python callables, so it cannot see a host sync or an
allocation that a real capture would freeze or refuse): no function or lambda nested in a
kernel module's functions calls something that synchronizes with the host, reads a value
back, allocates or goes through CuPy's cuBLAS wrappers (paddle/devices/cuda/__init__.py, "run must be capturable"). The host
hooks a prepare function hands to the context (`ctx.before_run`, `after_run`, `check`,
`check_indices`, an `index_check` error) run outside the graph and may."""
import ast
import glob
import os

import paddle.devices.cuda as cuda

FORBIDDEN = {"float", "int", "bool", "item", "tolist", "get", "download", "download_into",
             "upload", "asnumpy", "nonzero", "empty", "empty_like", "zeros", "zeros_like",
             "ones", "full", "array", "asarray", "ascontiguousarray", "copy",
             # CuPy's cuBLAS wrappers, which refuse a capturing stream (gemm.product instead)
             "matmul", "dot", "tensordot", "einsum", "inner", "outer", "vdot", "kron"}
HOOKS = {"before_run": 0, "after_run": 0, "check": 1, "check_indices": 2, "index_check": 3}


def _called(call):
    fn = call.func
    return fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", None)


def violations(source, filename="<source>"):
    """(file, function, line, call) for each forbidden call in a run callable."""
    found = []
    for top in ast.parse(source).body:
        if not isinstance(top, ast.FunctionDef):
            continue
        hooks = {call.args[HOOKS[_called(call)]].id for call in ast.walk(top)
                 if isinstance(call, ast.Call) and _called(call) in HOOKS
                 and len(call.args) > HOOKS[_called(call)]
                 and isinstance(call.args[HOOKS[_called(call)]], ast.Name)}
        for inner in ast.walk(top):
            nested = isinstance(inner, ast.Lambda) or (
                isinstance(inner, ast.FunctionDef) and inner is not top and inner.name not in hooks)
            if not nested:
                continue
            for call in ast.walk(inner):
                if isinstance(call, ast.Call) and _called(call) in FORBIDDEN:
                    found.append((filename, top.name, call.lineno, _called(call)))
    return found


def test_the_check_finds_a_host_sync_and_an_allocation():
    source = '''
def _prepare(node, ins, outs, ctx):
    xp, total = ctx.xp, ctx.empty((), "float32")

    def counted():
        print(float(total))
    ctx.after_run(counted)

    def run():
        xp.sum(ins[0], out=total)
        outs[0][...] = float(total)
    return lambda: (run(), xp.zeros(3))
'''
    assert [(f, line, name) for _, f, line, name in violations(source)] == [
        ("_prepare", 11, "float"), ("_prepare", 12, "zeros")]


def test_no_kernel_module_syncs_or_allocates_inside_a_run():
    folder = os.path.dirname(cuda.__file__)
    found = []
    for path in sorted(glob.glob(os.path.join(folder, "*.py"))):
        with open(path, encoding="utf-8") as f:
            found += violations(f.read(), os.path.basename(path))
    assert not found


def test_the_check_finds_a_product_through_cupys_cublas():
    source = '''
def _prepare(node, ins, outs, ctx):
    xp = ctx.xp
    return lambda: xp.matmul(ins[0], ins[1], out=outs[0])
'''
    assert [(f, line, name) for _, f, line, name in violations(source)] == [
        ("_prepare", 4, "matmul")]
