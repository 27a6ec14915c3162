"""Throw bad and edge-case input at paddle, each case in a child process, and classify what
happens.

Not a test: a tool to find crashes, hangs, silent garbage and unhelpful error messages.
Every case is a short Python snippet (run with `np` and `pd` imported); the report prints
the snippet of each case that is not OK, so it is its own reproducer.

Run (from the repository root, with the development venv):

    python tools/fuzz_inputs.py                      # every case, a summary, the non-OK ones
    python tools/fuzz_inputs.py --filter conv        # cases whose area/name contains 'conv'
    python tools/fuzz_inputs.py --list               # the case names, nothing run
    python tools/fuzz_inputs.py --show NAME          # one case's snippet
    python tools/fuzz_inputs.py --run NAME           # one case in this process (debugging)
    python tools/fuzz_inputs.py --jobs 2 --timeout 20 --memory-gb 4 --all
    python tools/fuzz_inputs.py --sweep 400 --bitflips 300 --json out.json   # a longer hunt

Areas: ops.* (every public op of paddle.lowlevel.ops and the nn ops), executor and graph
(feeds, Variables, optimizers, threads), layers.* (constructors and inputs of every layer),
model.* (compile/fit/evaluate/predict/on_batch with bad data), saving (random, truncated and
bit-flipped HDF5 files; saving.untrusted: crafted ones, docs/security.md), reader (decorators), internal (the C++ kernels called with specs
that lie) and sweep (random geometries of the kernels against NumPy references).

Each case runs in a process forked from a parent that has imported paddle but never run a
kernel, with its address space capped (--memory-gb, so an absurd allocation fails instead
of getting the machine's OOM killer involved) and a wall-clock limit (--timeout; a case
that passes it is a HANG). Outcomes:

    OK           a Python exception whose message names the op/layer and what was wrong,
                 or a correct result
    BAD MESSAGE  an exception, but an unhelpful one: AttributeError/KeyError/'NoneType'...
                 from the internals, or a message that does not name the op/layer
    CRASH        the child died of a signal (segfault, abort) or exited without a report
    HANG         the child ran past the time limit
    GARBAGE      no error, but a wrong or NaN result from finite input, or invalid input
                 silently accepted

The exit status is 1 when any case is CRASH, HANG or GARBAGE (BAD MESSAGEs are listed but
do not fail the run).
"""

import argparse
import json
import os
import re
import resource
import signal
import sys
import tempfile
import textwrap
import time
import traceback

OUTCOMES = ("OK", "BAD MESSAGE", "CRASH", "HANG", "GARBAGE")


class Case:
    """One snippet. `who`: words of which an error message must name one (the op or layer);
    `expect`: 'error' (invalid input: must raise), 'ok' (valid: must run; the snippet checks
    its result with `check`), or 'either' (an edge case: a clean error or a correct result)."""

    def __init__(self, area, name, code, who, expect="error", own=None):
        self.area, self.name = area, f"{area}/{name}"
        self.code = textwrap.dedent(code).strip("\n")
        self.who = [who] if isinstance(who, str) else list(who)
        self.expect = expect
        self.own = own  # an exception type the snippet's own code raises (passed through)


CASES = []
_names = set()


class Setup(str):
    """Setup code: dedents itself and what is added to it, so snippets written at different
    indentations join into one."""

    def __add__(self, other):
        return Setup(
            textwrap.dedent(self).strip("\n") + "\n" + textwrap.dedent(other).strip("\n") + "\n"
        )


def case(area, name, code, who, expect="error", own=None):
    c = Case(area, name, code, who, expect, own)
    compile(c.code, c.name, "exec")  # a driver bug must not pass for an outcome
    k, base = 1, c.name
    while c.name in _names:  # generated cases may share a name: number them
        k += 1
        c.name = f"{base}#{k}"
    _names.add(c.name)
    CASES.append(c)


# ---- what a snippet can use (defined in the child) --------------------------------------

PRELUDE = r'''
import numpy as np
import paddle as pd


class Garbage(Exception):
    """A result that is wrong, or invalid input that was accepted."""


def check(ok, what):
    if not ok:
        raise Garbage(what)


def close(got, want, what="result", tol=1e-4):
    got, want = np.asarray(got), np.asarray(want)
    check(got.shape == want.shape, f"{what}: shape {got.shape}, expected {want.shape}")
    check(np.allclose(got, want, rtol=tol, atol=tol, equal_nan=True),
          f"{what}: values differ from the reference (max abs diff "
          f"{np.nanmax(np.abs(got.astype(float) - want.astype(float))) if got.size else 0})")


def finite(got, what="result"):
    check(np.all(np.isfinite(np.asarray(got, dtype=float))), f"{what} has NaN/inf from finite input")


def rnd(*shape, dtype="float32", seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def ref_conv2d(x, w, strides=(1, 1), pads=((0, 0), (0, 0)), dilation=(1, 1), groups=1):
    """Direct NHWC convolution (filters (kh, kw, cin // groups, cout)); padding is never
    materialized, so huge pads and dilations work."""
    x = x.astype(np.float64)
    n, h, wd, c = x.shape
    kh, kw, cg, co = w.shape
    eh, ew = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    oh = (h + sum(pads[0]) - eh) // strides[0] + 1
    ow = (wd + sum(pads[1]) - ew) // strides[1] + 1
    y = np.zeros((n, oh, ow, co))
    cog = co // groups
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    ih = i * strides[0] - pads[0][0] + a * dilation[0]
                    iw = j * strides[1] - pads[1][0] + b * dilation[1]
                    if not (0 <= ih < h and 0 <= iw < wd):
                        continue
                    for g in range(groups):
                        y[:, i, j, g * cog:(g + 1) * cog] += x[:, ih, iw, g * cg:(g + 1) * cg] @ \
                            w[a, b, :, g * cog:(g + 1) * cog]
    return y


def same_pads(size, k, s, d=1):
    eff = (k - 1) * d + 1
    total = max((-(-size // s) - 1) * s + eff - size, 0)
    return total // 2, total - total // 2


def ref_max_pool_grad(x, k, s, pads):
    """d sum(max_pool(x)) / dx: one per window at its first maximum (row-major)."""
    n, h, w, c = x.shape
    oh = (h + sum(pads[0]) - k[0]) // s[0] + 1
    ow = (w + sum(pads[1]) - k[1]) // s[1] + 1
    g = np.zeros(x.shape)
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    h0, w0 = max(i * s[0] - pads[0][0], 0), max(j * s[1] - pads[1][0], 0)
                    win = x[b, h0:max(i * s[0] - pads[0][0] + k[0], 0),
                            w0:max(j * s[1] - pads[1][0] + k[1], 0), ch]
                    a, bb = np.unravel_index(np.argmax(win), win.shape)
                    g[b, h0 + a, w0 + bb, ch] += 1
    return g


def _sig(v):
    return 1 / (1 + np.exp(-v))


def ref_rnn(kind, x, W, R, b, h0=None, c0=None):
    """Keras's LSTM (gates i, f, c, o) / GRU (z, r, h; reset_after or not), every step's h."""
    n, t, _ = x.shape
    u = R.shape[0]
    h = np.zeros((n, u)) if h0 is None else h0.astype(np.float64)
    c = np.zeros((n, u)) if c0 is None else c0.astype(np.float64)
    out = []
    for s in range(t):
        if kind == "lstm":
            z = x[:, s] @ W + h @ R + b
            i, f, g, o = _sig(z[:, :u]), _sig(z[:, u:2 * u]), np.tanh(z[:, 2 * u:3 * u]), \
                _sig(z[:, 3 * u:])
            c = f * c + i * g
            h = o * np.tanh(c)
        elif kind == "gru":  # reset_after, bias (2, 3u)
            xz, hz = x[:, s] @ W + b[0], h @ R + b[1]
            zg, r = _sig(xz[:, :u] + hz[:, :u]), _sig(xz[:, u:2 * u] + hz[:, u:2 * u])
            hh = np.tanh(xz[:, 2 * u:] + r * hz[:, 2 * u:])
            h = zg * h + (1 - zg) * hh
        else:  # gru with the reset gate before the product, bias (3u,)
            xz = x[:, s] @ W + b
            zg = _sig(xz[:, :u] + h @ R[:, :u])
            r = _sig(xz[:, u:2 * u] + h @ R[:, u:2 * u])
            hh = np.tanh(xz[:, 2 * u:] + (r * h) @ R[:, 2 * u:])
            h = zg * h + (1 - zg) * hh
        out.append(h)
    return np.stack(out, 1)


def ref_pool(x, k, s, pads=((0, 0), (0, 0)), kind="max"):
    """NHWC pooling over the input elements each window covers (padding never counts)."""
    n, h, w, c = x.shape
    oh = (h + sum(pads[0]) - k[0]) // s[0] + 1
    ow = (w + sum(pads[1]) - k[1]) // s[1] + 1
    y = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * s[0] - pads[0][0], j * s[1] - pads[1][0]
            win = x[:, max(h0, 0):max(h0 + k[0], 0), max(w0, 0):max(w0 + k[1], 0), :]
            y[:, i, j] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return y
'''

# Exceptions that come from internals rather than from a check that was written for users.
_INTERNAL_TYPES = {
    "AttributeError",
    "KeyError",
    "NameError",
    "UnboundLocalError",
    "ZeroDivisionError",
    "AssertionError",
    "RecursionError",
    "SystemError",
    "StopIteration",
    "UnicodeDecodeError",
    "FloatingPointError",
}
_INTERNAL_PATTERNS = [
    r"'NoneType'",
    r"object has no attribute",
    r"unsupported operand",
    r"not subscriptable",
    r"object is not (callable|iterable)",
    r"invalid literal for int",
    r"setting an array element",
    r"could not broadcast",
    r"operands could not be broadcast",
    r"too many values to unpack",
    r"not enough values to unpack",
    r"cannot convert float (NaN|infinity)",
    r"Python int too large",
    r"tuple index out of range",
    r"list index out of range",
    r"index \d+ is out of bounds for axis",
    r"^Unable to allocate",
    r"array is too big",
    r"maximum supported dimension",
    r"negative dimensions are not allowed",
    r"takes \d+ positional argument",
    r"missing \d+ required positional",
    r"'<' not supported",
    r"'>' not supported",
    r"object of type .* has no len",
    r"only integer scalar arrays",
    r"an integer is required",
    r"cannot be interpreted as an integer",
    r"must be real number",
    r"argument must be a string or",
    r"object cannot be interpreted",
    r"float\(\) argument must be",
    r"int\(\) argument must be",
    r"incompatible function arguments",
    r"Unable to (open|synchronously open) file",
    r"bad object header",
    r"truth value of an array",
]


def classify(case, report):
    """(outcome, detail) of a finished case from the child's report."""
    kind = report.get("kind")
    if kind == "garbage":
        return "GARBAGE", report["message"]
    if kind == "ok":
        if case.expect == "error":
            return "GARBAGE", "accepted silently (expected an error)"
        return "OK", ""
    etype, msg = report["type"], report["message"]
    line = f"{etype}: {msg}"
    if etype == case.own:
        return "OK", line + " (the user's own exception, passed through)"
    if case.expect == "ok":
        return "BAD MESSAGE", "valid input refused: " + line
    if etype in _INTERNAL_TYPES:
        return "BAD MESSAGE", line
    if etype == "IndexError" and not re.search(r"(outside|out of range|position)", msg):
        return "BAD MESSAGE", line
    if etype in ("SyntaxError", "IndentationError"):
        return "BAD MESSAGE", "(driver bug) " + line
    named = [msg.lower().find(w.lower()) for w in case.who if w.lower() in msg.lower()]
    for pat in _INTERNAL_PATTERNS:
        found = re.search(pat, msg)
        # NumPy/HDF5 wording is fine as the detail of a message of paddle's own that has
        # already said which op/input/file it is about
        if found and not (named and min(named) < found.start()):
            return "BAD MESSAGE", line
    if not any(w.lower() in msg.lower() for w in case.who):
        return "BAD MESSAGE", f"does not name {'/'.join(case.who)}: {line}"
    return "OK", line


# ---- running a case in a child ----------------------------------------------------------


def _child(case, out_path, memory_gb):
    """Runs in the forked child: never returns."""
    try:
        limit = int(memory_gb * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)  # progress bars and prints of the code under test
        scope = {}
        exec(PRELUDE, scope)
        report = _execute(case, scope)
    except BaseException as e:  # the prelude itself failed
        report = {"kind": "error", "type": type(e).__name__, "message": f"(driver) {e}"}
    with open(out_path, "w") as f:
        json.dump(report, f)
    os._exit(0)


def _execute(case, scope):
    try:
        exec(compile(case.code, f"<{case.name}>", "exec"), scope)
        return {"kind": "ok"}
    except scope["Garbage"] as e:
        return {"kind": "garbage", "message": str(e)}
    except BaseException as e:
        tb = traceback.extract_tb(e.__traceback__)
        return {
            "kind": "error",
            "type": type(e).__name__,
            "message": str(e)[:600],
            "where": f"{tb[-1].filename}:{tb[-1].lineno}" if tb else "",
        }


def run_cases(cases, jobs, timeout, memory_gb, progress):
    """{case name: (outcome, detail)}; `jobs` children at a time."""
    tmp = tempfile.mkdtemp(prefix="paddle-fuzz-")
    pending, running, results = list(cases), {}, {}
    while pending or running:
        while pending and len(running) < jobs:
            c = pending.pop(0)
            out = os.path.join(tmp, f"{len(results) + len(running)}.json")
            err = os.path.join(tmp, f"{len(results) + len(running)}.err")
            pid = os.fork()
            if pid == 0:
                fd = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(fd, 2)
                _child(c, out, memory_gb)
            running[pid] = (c, out, err, time.monotonic())
        time.sleep(0.005)
        for pid, (c, out, err, start) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done == 0:
                if time.monotonic() - start > timeout:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    results[c.name] = ("HANG", f"still running after {timeout} s")
                    del running[pid]
                    progress(c, results[c.name])
                continue
            del running[pid]
            stderr = _tail(err)
            if os.WIFSIGNALED(status):
                sig = signal.Signals(os.WTERMSIG(status)).name
                results[c.name] = (
                    "CRASH",
                    f"killed by {sig}" + (f"; stderr: {stderr}" if stderr else ""),
                )
            elif not os.path.exists(out):
                results[c.name] = (
                    "CRASH",
                    f"exited with status {os.WEXITSTATUS(status)} "
                    f"without a report; stderr: {stderr}",
                )
            else:
                with open(out) as f:
                    results[c.name] = classify(c, json.load(f))
            progress(c, results[c.name])
    return results


def _tail(path, n=400):
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return ""
    text = "\n".join(line for line in text.splitlines() if "Warning" not in line and line.strip())
    return text[-n:]


# ---- the cases --------------------------------------------------------------------------

NOT_ARRAYS = {"none": "None", "str": "'abc'", "object": "object()", "dict": "{'a': 1}"}
BAD_INTS = {
    "zero": "0",
    "negative": "-1",
    "float": "1.5",
    "bool": "True",
    "none": "None",
    "str": "'2'",
    "huge": "2**62",
    "nan": "float('nan')",
}


def lowlevel_unary_cases():
    ops = [
        "neg",
        "abs",
        "exp",
        "log",
        "log1p",
        "sqrt",
        "square",
        "sign",
        "relu",
        "sigmoid",
        "tanh",
        "erf",
        "elu",
        "gelu",
        "leaky_relu",
        "silu",
        "softplus",
        "softmax",
        "log_softmax",
        "ones_like",
        "zeros_like",
    ]
    ref = {
        "neg": "-a",
        "abs": "np.abs(a)",
        "exp": "np.exp(a)",
        "log": "np.log(np.abs(a) + 1)",
        "log1p": "np.log1p(np.abs(a))",
        "sqrt": "np.sqrt(np.abs(a))",
        "square": "a * a",
        "sign": "np.sign(a)",
        "relu": "np.maximum(a, 0)",
        "sigmoid": "1 / (1 + np.exp(-a))",
        "tanh": "np.tanh(a)",
        "softplus": "np.logaddexp(0, a)",
        "silu": "a / (1 + np.exp(-a))",
        "softmax": "np.exp(a) / np.exp(a).sum(-1, keepdims=True)",
        "log_softmax": "a - np.log(np.exp(a).sum(-1, keepdims=True))",
        "ones_like": "np.ones_like(a)",
        "zeros_like": "np.zeros_like(a)",
    }
    for op in ops:
        for label, value in NOT_ARRAYS.items():
            case("ops.unary", f"{op}-{label}", f"pd.{op}({value})", op)
        case("ops.unary", f"{op}-ragged", f"pd.{op}([[1.0], [1.0, 2.0]])", op)
        case(
            "ops.unary",
            f"{op}-bool",
            f"""
            x = pd.data("x", [None, 3], "bool")
            pd.eval(pd.{op}(x), {{x: np.ones((2, 3), bool)}})""",
            [op, "bool"],
            "error" if op not in ("ones_like", "zeros_like") else "either",
        )
        case(
            "ops.unary",
            f"{op}-int64",
            f"""
            x = pd.data("x", [None, 3], "int64")
            r = pd.eval(pd.{op}(x), {{x: np.arange(6).reshape(2, 3) - 2}})
            check(r.dtype == np.int64, "dtype " + str(r.dtype))""",
            [op, "int"],
            "either",
        )
        if op in ref:
            case(
                "ops.unary",
                f"{op}-float64-noncontiguous",
                f"""
                a = rnd(4, 6, dtype="float64")[:, ::2]
                x = pd.data("x", [None, 3], "float64")
                r = pd.eval(pd.{op}({'pd.abs(x) + 1.0' if op == 'log' else
                                     'pd.abs(x)' if op in ('log1p', 'sqrt') else 'x'}), {{x: a}})
                close(r, {ref[op]})""",
                op,
                "ok",
            )
        case(
            "ops.unary",
            f"{op}-zero-size",
            f"""
            x = pd.data("x", [None, 3])
            r = pd.eval(pd.{op}(x), {{x: np.zeros((0, 3), np.float32)}})
            check(r.shape == (0, 3), "shape " + str(r.shape))""",
            op,
            "either",
        )
        case(
            "ops.unary",
            f"{op}-nan-inf",
            f"""
            a = np.array([[np.nan, np.inf, -np.inf, 0.0]], np.float32)
            x = pd.data("x", [None, 4])
            r = pd.eval(pd.{op}(x), {{x: a}})
            check(r.shape == (1, 4), "shape")""",
            op,
            "either",
        )
        case(
            "ops.unary",
            f"{op}-rank0",
            f"""
            r = pd.eval(pd.{op}(pd.constant(0.5)))
            check(np.shape(r) == (), "shape " + str(np.shape(r)))""",
            op,
            "either",
        )
    for op in ("softmax", "log_softmax"):
        for label, axis in {
            "axis-out": 5,
            "axis-float": 1.0,
            "axis-str": "'a'",
            "axis-none": None,
            "axis-bool": True,
            "axis-list": [0, 1],
        }.items():
            case(
                "ops.unary",
                f"{op}-{label}",
                f"""
                x = pd.data("x", [None, 3])
                pd.eval(pd.{op}(x, axis={axis!r}), {{x: np.ones((2, 3), np.float32)}})""",
                [op, "axis"],
            )
        case(
            "ops.unary",
            f"{op}-empty-class-axis",
            f"""
            x = pd.data("x", [None, None])
            pd.eval(pd.{op}(x), {{x: np.ones((2, 0), np.float32)}})""",
            op,
        )
    case(
        "ops.unary",
        "softmax-large-values",
        """
        a = np.array([[1e30, -1e30, 0.0], [88.0, 89.0, 90.0]], np.float32)
        r = pd.eval(pd.softmax(pd.constant(a)))
        finite(r)
        close(r.sum(-1), np.ones(2))""",
        "softmax",
        "ok",
    )
    case(
        "ops.unary", "leaky_relu-slope-str", "pd.leaky_relu(pd.constant([1.0]), 'a')", "leaky_relu"
    )
    case("ops.unary", "elu-alpha-none", "pd.eval(pd.elu(pd.constant([-1.0]), None))", "elu")


def lowlevel_binary_cases():
    ops = [
        "add",
        "sub",
        "mul",
        "div",
        "pow",
        "maximum",
        "minimum",
        "greater",
        "greater_equal",
        "less",
        "less_equal",
        "equal",
        "not_equal",
    ]
    ref = {
        "add": "a + b",
        "sub": "a - b",
        "mul": "a * b",
        "div": "a / b",
        "pow": "np.abs(a) ** b",
        "maximum": "np.maximum(a, b)",
        "minimum": "np.minimum(a, b)",
        "greater": "a > b",
        "greater_equal": "a >= b",
        "less": "a < b",
        "less_equal": "a <= b",
        "equal": "a == b",
        "not_equal": "a != b",
    }
    for op in ops:
        case(
            "ops.binary", f"{op}-shapes", f"pd.{op}(pd.data('a', [None, 3]), pd.data('b', [4]))", op
        )
        case(
            "ops.binary",
            f"{op}-fed-shapes",
            f"""
            a, b = pd.data("a", [None, 3]), pd.data("b", [None, 3])
            pd.eval(pd.{op}(a, b), {{a: np.ones((2, 3), np.float32), b: np.ones((5, 3), np.float32)}})""",
            [op, "broadcast"],
        )
        case(
            "ops.binary",
            f"{op}-int-float",
            f"""
            pd.{op}(pd.data('a', [3], 'int64'), pd.data('b', [3]))""",
            [op, "dtype"],
        )
        case(
            "ops.binary",
            f"{op}-float32-float64",
            f"""
            pd.{op}(pd.data('a', [3], 'float64'), pd.data('b', [3]))""",
            [op, "dtype"],
        )
        compare = op in ("greater", "greater_equal", "less", "less_equal", "equal", "not_equal")
        case(
            "ops.binary",
            f"{op}-bool",
            f"""
            a, b = pd.data('a', [4], 'bool'), pd.data('b', [4], 'bool')
            u, v = np.array([0, 0, 1, 1], bool), np.array([0, 1, 0, 1], bool)
            r = pd.eval(pd.{op}(a, b), {{a: u, b: v}})
            a, b = u, v
            close(r, {ref[op]})""",
            [op, "bool"],
            "either" if compare else "error",
        )
        case("ops.binary", f"{op}-none", f"pd.{op}(pd.data('a', [3]), None)", op)
        case("ops.binary", f"{op}-str", f"pd.{op}(pd.data('a', [3]), 'x')", op)
        case(
            "ops.binary",
            f"{op}-int-scalar-float",
            f"""
            a = pd.data('a', [3], 'int64')
            r = pd.eval(pd.{op}(a, 2.5), {{a: np.array([1, 2, 3])}})
            a, b = np.array([1, 2, 3]), 2.5
            close(r, {ref[op]})""",
            [op, "dtype", "float"],
            "either",
        )
        case(
            "ops.binary",
            f"{op}-broadcast-values",
            f"""
            a, b = rnd(2, 1, 3, dtype="float64"), rnd(4, 1, seed=1, dtype="float64")
            x, y = pd.data("x", [None, 1, 3], "float64"), pd.data("y", [4, 1], "float64")
            lhs = pd.abs(x) if "{op}" == "pow" else x
            r = pd.eval(pd.{op}(lhs, y), {{x: a, y: b}})
            close(r, {ref[op]})""",
            op,
            "ok",
        )
    case(
        "ops.binary",
        "div-int",
        """
        a = pd.data('a', [3], 'int64')
        pd.eval(a / a, {a: np.array([1, 0, 3])})""",
        ["div", "float"],
    )
    case("ops.binary", "where-cond-float", "pd.where(pd.constant([1.0]), 1.0, 2.0)", "where")
    case(
        "ops.binary",
        "where-shapes",
        """
        pd.where(pd.constant([True, False]), pd.constant([1.0, 2.0, 3.0]), 0.0)""",
        "where",
    )
    case(
        "ops.binary",
        "where-fed-cond",
        """
        c, x = pd.data("c", [None], "bool"), pd.data("x", [None])
        pd.eval(pd.where(c, x, 0.0), {c: np.array([True, False]), x: np.ones(3, np.float32)})""",
        "where",
    )
    case(
        "ops.binary",
        "clip-min-above-max",
        """
        r = pd.eval(pd.clip(pd.constant([0.0, 5.0, 10.0]), 6.0, 4.0))""",
        "clip",
        "either",
    )
    for dt in ("'float16'", "'complex64'", "'str'", "object", "None", "'int8'", "'uint8'"):
        case("ops.binary", f"cast-{dt}", f"pd.cast(pd.constant([1.0]), {dt})", "cast")
    case(
        "ops.binary",
        "cast-nan-to-int",
        """
        x = pd.data("x", [None])
        r = pd.eval(pd.cast(x, "int64"), {x: np.array([np.nan, np.inf, 1e30], np.float32)})""",
        "cast",
        "either",
    )
    case(
        "ops.binary",
        "cast-float-to-bool",
        """
        r = pd.eval(pd.cast(pd.constant([0.0, 0.5, -1.0, np.nan]), "bool"))
        close(r, np.array([0.0, 0.5, -1.0, np.nan]).astype(bool))""",
        "cast",
        "ok",
    )
    case(
        "ops.binary",
        "cast-int64-to-int32-overflow",
        """
        x = pd.data("x", [None], "int64")
        r = pd.eval(pd.cast(x, "int32"), {x: np.array([2**40, -2**40])})""",
        "cast",
        "either",
    )


def lowlevel_matmul_reduce_cases():
    mm = [
        ("rank0", "pd.constant(1.0)", "pd.constant([1.0])"),
        ("inner", "pd.data('a', [None, 3])", "pd.data('b', [4, 2])"),
        ("int", "pd.data('a', [2, 3], 'int64')", "pd.data('b', [3, 2], 'int64')"),
        ("mixed", "pd.data('a', [2, 3], 'float64')", "pd.data('b', [3, 2])"),
        ("batch", "pd.data('a', [2, 2, 3])", "pd.data('b', [3, 3, 2])"),
        ("none", "pd.data('a', [2, 3])", "None"),
        ("str", "pd.data('a', [2, 3])", "'w'"),
    ]
    for label, a, b in mm:
        case("ops.matmul", label, f"pd.matmul({a}, {b})", "matmul")
    case(
        "ops.matmul",
        "fed-inner",
        """
        a, b = pd.data("a", [None, None]), pd.data("b", [None, None])
        pd.eval(pd.matmul(a, b), {a: np.ones((2, 3), np.float32), b: np.ones((4, 2), np.float32)})""",
        "matmul",
    )
    case(
        "ops.matmul",
        "fed-batch",
        """
        a, b = pd.data("a", [None, 2, 3]), pd.data("b", [None, 3, 2])
        pd.eval(a @ b, {a: np.ones((2, 2, 3), np.float32), b: np.ones((3, 3, 2), np.float32)})""",
        "matmul",
    )
    for label, sa, sb in [
        ("zero-k", (2, 0), (0, 4)),
        ("zero-m", (0, 3), (3, 4)),
        ("zero-batch", (0, 2, 3), (0, 3, 4)),
        ("vec-vec", (3,), (3,)),
        ("batched-zero-k", (5, 2, 0), (5, 0, 4)),
        ("broadcast", (2, 1, 2, 3), (4, 3, 5)),
        ("vec-mat", (3,), (2, 3, 4)),
    ]:
        case(
            "ops.matmul",
            f"values-{label}",
            f"""
            a, b = rnd(*{sa}), rnd(*{sb}, seed=1)
            close(pd.eval(pd.matmul(pd.constant(a), pd.constant(b))), a @ b)""",
            "matmul",
            "ok",
        )
    case(
        "ops.matmul",
        "transpose-noncontiguous-feed",
        """
        a = rnd(3, 4).T
        x = pd.data("x", [None, 3])
        close(pd.eval(pd.matmul(x, pd.constant(np.eye(3, dtype=np.float32))), {x: a}), a)""",
        "matmul",
        "ok",
    )
    case(
        "ops.matmul",
        "nan-inf",
        """
        a = np.array([[np.nan, 1.0], [np.inf, 0.0]], np.float32)
        r = pd.eval(pd.matmul(pd.constant(a), pd.constant(np.eye(2, dtype=np.float32))))""",
        "matmul",
        "either",
    )
    for op in ("sum", "mean", "max", "min", "argmax"):
        for label, axis in {
            "out-of-range": 3,
            "neg-out": -4,
            "float": 1.0,
            "bool": True,
            "str": "'x'",
            "repeated": (1, 1),
            "nested": [[0]],
        }.items():
            if op == "argmax" and label == "repeated":
                continue
            case(
                "ops.reduce",
                f"{op}-axis-{label}",
                f"pd.{op}(pd.data('x', [None, 3]), axis={axis!r})",
                [op, "axis"],
            )
        case(
            "ops.reduce",
            f"{op}-empty-axis-fed",
            f"""
            x = pd.data("x", [None, 3])
            r = pd.eval(pd.{op}(x, axis=0), {{x: np.zeros((0, 3), np.float32)}})
            check(r.shape == (3,), "shape")
            {'check(np.all(r == 0), "sum of nothing")' if op == 'sum' else
             'check(np.all(np.isnan(r)), "mean of nothing should be NaN (as NumPy)")'
             if op == 'mean' else ''}""",
            [op, "empty"],
            "either" if op in ("sum", "mean") else "error",
        )
        case(
            "ops.reduce",
            f"{op}-bool",
            f"""
            x = pd.data("x", [None], "bool")
            pd.eval(pd.{op}(x), {{x: np.ones(3, bool)}})""",
            [op, "bool"],
        )
        case(
            "ops.reduce",
            f"{op}-nan",
            f"""
            a = np.array([[1.0, np.nan, 3.0]], np.float32)
            r = pd.eval(pd.{op}(pd.constant(a), axis=-1))
            close(r, np.{op if op != 'argmax' else 'argmax'}(a, axis=-1))""",
            op,
            "ok",
        )
        case(
            "ops.reduce",
            f"{op}-int64-values",
            f"""
            a = np.array([[5, -2, 7], [1, 1, 0]])
            r = pd.eval(pd.{op}(pd.constant(a), axis=1))
            close(r, np.{op}(a, axis=1))""",
            [op, "float"],
            "either" if op == "mean" else "ok",
        )
        case(
            "ops.reduce",
            f"{op}-noncontiguous-axes",
            f"""
            a = rnd(2, 3, 4, 5, dtype="float64")
            r = pd.eval(pd.{op}(pd.constant(a, dtype="float64"), axis={'(0, 2)' if op != 'argmax' else 2}))
            close(r, np.{op}(a, axis={'(0, 2)' if op != 'argmax' else 2}))""",
            op,
            "ok",
        )
    case(
        "ops.reduce",
        "sum-keepdims-str",
        "pd.sum(pd.data('x', [2]), keepdims='no')",
        "sum",
        "either",
    )
    case(
        "ops.reduce",
        "argmax-axis-none-keepdims",
        """
        a = rnd(3, 4)
        r = pd.eval(pd.argmax(pd.constant(a), axis=None, keepdims=True))
        close(r, np.argmax(a, axis=None, keepdims=True))""",
        "argmax",
        "ok",
    )


def lowlevel_shape_cases():
    x = "pd.data('x', [None, 2, 3])"
    bad_reshape = {
        "two-unknown": "[-1, -1]",
        "minus-two": "[-2, 3]",
        "float": "[1.5, 4]",
        "str": "'abc'",
        "none": "None",
        "size": "[5, 5]",
        "zero-infer": "[0, -1]",
        "huge": "[2**62, 2**62]",
        "bool": "[True, 6]",
        "nested": "[[2], 3]",
        "int-not-list": "7",
    }
    for label, shape in bad_reshape.items():
        case(
            "ops.shape",
            f"reshape-{label}",
            f"""
            x = {x}
            pd.eval(pd.reshape(x, {shape}), {{x: np.ones((4, 2, 3), np.float32)}})""",
            "reshape",
        )
    case(
        "ops.shape",
        "reshape-fed-mismatch",
        """
        x = pd.data("x", [None, 5])
        pd.eval(pd.reshape(x, [-1, 2]), {x: np.ones((3, 5), np.float32)})""",
        "reshape",
    )
    case(
        "ops.shape",
        "reshape-wrap-overflow",
        """
        x = pd.data("x", [None])
        y = pd.reshape(x, [2**32, 2**32])
        pd.eval(y, {x: np.ones(0, np.float32)})""",
        "reshape",
    )
    bad_perm = {
        "repeat": "[0, 0, 1]",
        "out": "[0, 1, 3]",
        "short": "[1, 0]",
        "float": "[0.0, 2, 1]",
        "str": "'abc'",
        "neg": "[-1, 0, 1]",
        "none-item": "[None, 0, 1]",
    }
    for label, perm in bad_perm.items():
        case("ops.shape", f"transpose-{label}", f"pd.transpose({x}, {perm})", "transpose")
    case(
        "ops.shape",
        "transpose-rank0",
        "pd.eval(pd.transpose(pd.constant(1.0)))",
        "transpose",
        "either",
    )
    case("ops.shape", "concat-empty", "pd.concat([])", "concat")
    case(
        "ops.shape",
        "concat-shapes",
        "pd.concat([pd.data('a', [2, 3]), pd.data('b', [2, 4])], 0)",
        "concat",
    )
    case(
        "ops.shape",
        "concat-ranks",
        "pd.concat([pd.data('a', [2, 3]), pd.data('b', [2])], 0)",
        "concat",
    )
    case(
        "ops.shape",
        "concat-dtypes",
        "pd.concat([pd.data('a', [2]), pd.data('b', [2], 'int64')])",
        "concat",
    )
    case(
        "ops.shape", "concat-axis", "pd.concat([pd.data('a', [2]), pd.data('b', [2])], 1)", "concat"
    )
    case(
        "ops.shape",
        "concat-axis-float",
        "pd.concat([pd.data('a', [2]), pd.data('b', [2])], 0.0)",
        "concat",
    )
    case("ops.shape", "concat-not-list", "pd.concat(pd.data('a', [2]))", "concat")
    case(
        "ops.shape",
        "concat-fed-mismatch",
        """
        a, b = pd.data("a", [None, 3]), pd.data("b", [None, 3])
        pd.eval(pd.concat([a, b], 1), {a: np.ones((2, 3), np.float32), b: np.ones((4, 3), np.float32)})""",
        "concat",
    )
    case("ops.shape", "concat-rank0", "pd.concat([pd.constant(1.0), pd.constant(2.0)])", "concat")
    case(
        "ops.shape",
        "concat-values-zero",
        """
        a, b = rnd(2, 0), rnd(2, 3)
        close(pd.eval(pd.concat([pd.constant(a), pd.constant(b)], 1)), np.concatenate([a, b], 1))""",
        "concat",
        "ok",
    )
    for label, arg in {
        "zero": "0",
        "neg": "-2",
        "uneven": "4",
        "float": "1.5",
        "sizes-sum": "[1, 1]",
        "sizes-neg": "[-1, 4]",
        "sizes-float": "[1.5, 1.5]",
        "none": "None",
        "str": "'ab'",
        "bool": "True",
    }.items():
        case(
            "ops.shape",
            f"split-{label}",
            f"""
            x = pd.data("x", [None, 3])
            pd.eval(pd.split(x, {arg}, axis=1), {{x: np.ones((2, 3), np.float32)}})""",
            "split",
        )
    case("ops.shape", "split-axis", "pd.split(pd.data('x', [2, 2]), 2, axis=5)", "split")
    case("ops.shape", "split-unknown-axis", "pd.split(pd.data('x', [None, 2]), 2, axis=0)", "split")
    case(
        "ops.shape",
        "stack-shapes",
        "pd.stack([pd.data('a', [2]), pd.data('b', [3])])",
        ["stack", "concat"],
    )
    case(
        "ops.shape",
        "stack-axis",
        "pd.stack([pd.data('a', [2]), pd.data('b', [2])], axis=3)",
        ["stack", "axis", "expand_dims"],
    )
    case("ops.shape", "stack-empty", "pd.stack([])", "stack")
    for label, (begin, size) in {
        "neg-begin": ([-1, 0], [1, 1]),
        "size-big": ([0, 0], [3, 4]),
        "short": ([0], [1]),
        "size-neg": ([0, 0], [-2, 1]),
        "float": ([0.5, 0], [1, 1]),
        "none": (None, None),
        "huge": ([0, 0], [2**62, 1]),
        "str": ("ab", "cd"),
    }.items():
        case(
            "ops.shape",
            f"slice-{label}",
            f"""
            x = pd.data("x", [2, 3])
            pd.eval(pd.slice(x, {begin!r}, {size!r}), {{x: np.ones((2, 3), np.float32)}})""",
            "slice",
        )
    case(
        "ops.shape",
        "slice-fed-too-small",
        """
        x = pd.data("x", [None, 3])
        pd.eval(pd.slice(x, [3, 0], [2, 3]), {x: np.ones((2, 3), np.float32)})""",
        "slice",
    )
    for label, key in {
        "step0": "x[::0]",
        "index-out": "x[5]",
        "index-fed-out": "x[:, 7]",
        "too-many": "x[0, 0, 0, 0]",
        "float": "x[1.5]",
        "none": "x[None]",
        "list": "x[[0, 1]]",
        "bool": "x[True]",
        "str": "x['a']",
        "two-ellipsis": "x[..., ...]",
        "array": "x[np.array([0, 1])]",
        "var": "x[x]",
        "slice-float": "x[0.5:2]",
        "huge": "x[2**70]",
        "neg-out": "x[-9]",
    }.items():
        case(
            "ops.shape",
            f"getitem-{label}",
            f"""
            x = pd.data("x", [None, 3])
            pd.eval({key}, {{x: np.ones((4, 3), np.float32)}})""",
            ["slice", "index"],
        )
    for label, key, ref in [
        ("neg-step", "[::-1]", "[::-1]"),
        ("neg-step-2", "[::-2, 1:]", "[::-2, 1:]"),
        ("ellipsis", "[..., 1]", "[..., 1]"),
        ("neg-index", "[-1]", "[-1]"),
        ("empty", "[3:1]", "[3:1]"),
        ("big-stop", "[1:100]", "[1:100]"),
        ("neg-start-big", "[-100:2]", "[-100:2]"),
        ("step-big", "[::7]", "[::7]"),
        ("np-int", "[np.int64(2)]", "[2]"),
    ]:
        case(
            "ops.shape",
            f"getitem-values-{label}",
            f"""
            a = rnd(4, 3)
            x = pd.data("x", [None, 3])
            close(pd.eval(x{key}, {{x: a}}), a{ref})""",
            ["slice", "index"],
            "either",
        )
    for label, (idx, axis) in {
        "out": ("[0, 5]", 0),
        "neg": ("[-1]", 0),
        "float": ("[0.5]", 0),
        "axis": ("[0]", 3),
        "axis-float": ("[0]", 0.0),
        "bool": ("[True]", 0),
        "huge": ("[2**62]", 0),
    }.items():
        case(
            "ops.shape",
            f"gather-{label}",
            f"""
            x = pd.data("x", [None, 3])
            pd.eval(pd.gather(x, np.array({idx}), axis={axis!r}), {{x: np.ones((4, 3), np.float32)}})""",
            "gather",
        )
    case(
        "ops.shape",
        "gather-fed-out",
        """
        x, i = pd.data("x", [None, 3]), pd.data("i", [None], "int64")
        pd.eval(pd.gather(x, i), {x: np.ones((2, 3), np.float32), i: np.array([0, 2])})""",
        "gather",
    )
    case(
        "ops.shape",
        "gather-empty-table",
        """
        x, i = pd.data("x", [None, 3]), pd.data("i", [None], "int64")
        pd.eval(pd.gather(x, i), {x: np.ones((0, 3), np.float32), i: np.array([0])})""",
        "gather",
    )
    case(
        "ops.shape",
        "gather-grad-values",
        """
        x = pd.Variable("gx", [4, 2], initializer="ones")
        i = pd.constant(np.array([0, 0, 3]))
        g, = pd.gradients(pd.sum(pd.gather(x, i)), [x])
        close(pd.eval(g), np.array([[2, 2], [0, 0], [0, 0], [1, 1]], np.float32))""",
        "gather",
        "ok",
    )
    for label, depth in {
        "zero": "0",
        "neg": "-1",
        "float": "2.5",
        "bool": "True",
        "none": "None",
        "huge": "2**40",
        "huger": "2**62",
        "str": "'3'",
    }.items():
        case(
            "ops.shape",
            f"one_hot-depth-{label}",
            f"""
            pd.eval(pd.one_hot(pd.constant(np.array([0, 1])), {depth}))""",
            "one_hot",
        )
    case(
        "ops.shape",
        "one_hot-index-out",
        "pd.eval(pd.one_hot(pd.constant(np.array([0, 3])), 3))",
        "one_hot",
    )
    case(
        "ops.shape",
        "one_hot-index-neg",
        "pd.eval(pd.one_hot(pd.constant(np.array([-1])), 3))",
        "one_hot",
    )
    case("ops.shape", "one_hot-float-ids", "pd.one_hot(pd.constant([0.0, 1.0]), 3)", "one_hot")
    case(
        "ops.shape",
        "one_hot-dtype-bool",
        "pd.one_hot(pd.constant(np.array([0])), 3, 'bool')",
        "one_hot",
    )
    for label, pads in {
        "neg": "[(-1, 0), (0, 0)]",
        "count": "[(1, 1)]",
        "float": "[(0.5, 0), (0, 0)]",
        "huge": "[(2**40, 0), (0, 0)]",
        "huger": "[(2**62, 2**62), (0, 0)]",
        "none": "None",
        "triple": "[(0, 0, 0), (0, 0)]",
        "str": "'ab'",
    }.items():
        case(
            "ops.shape",
            f"pad-{label}",
            f"""
            x = pd.data("x", [None, 3])
            pd.eval(pd.pad(x, {pads}), {{x: np.ones((2, 3), np.float32)}})""",
            "pad",
        )
    case("ops.shape", "pad-value-str", "pd.pad(pd.data('x', [2]), [(1, 1)], 'a')", "pad")
    case(
        "ops.shape",
        "pad-values-zero-size",
        """
        a = np.zeros((0, 3), np.float32)
        close(pd.eval(pd.pad(pd.constant(a), [(1, 0), (0, 2)], 7.0)), np.pad(a, [(1, 0), (0, 2)],
              constant_values=7.0))""",
        "pad",
        "ok",
    )
    case("ops.shape", "squeeze-non1", "pd.squeeze(pd.data('x', [2, 3]), 0)", "squeeze")
    case("ops.shape", "squeeze-axis-out", "pd.squeeze(pd.data('x', [1, 3]), 4)", "squeeze")
    case("ops.shape", "squeeze-axis-float", "pd.squeeze(pd.data('x', [1, 3]), 0.0)", "squeeze")
    case(
        "ops.shape",
        "squeeze-fed-non1",
        """
        x = pd.data("x", [None, 3])
        pd.eval(pd.squeeze(x, 0), {x: np.ones((2, 3), np.float32)})""",
        "squeeze",
    )
    case("ops.shape", "squeeze-none-unknown", "pd.squeeze(pd.data('x', [None, 1]))", "squeeze")
    case("ops.shape", "expand_dims-out", "pd.expand_dims(pd.data('x', [2]), 3)", "expand_dims")
    case("ops.shape", "expand_dims-float", "pd.expand_dims(pd.data('x', [2]), 0.5)", "expand_dims")
    case("ops.shape", "flatten-rank0", "pd.flatten(pd.constant(1.0))", "flatten")
    case(
        "ops.shape",
        "flatten-zero",
        """
        x = pd.data("x", [None, 0, 3])
        r = pd.eval(pd.flatten(x), {x: np.ones((2, 0, 3), np.float32)})
        check(r.shape == (2, 0), str(r.shape))""",
        "flatten",
        "ok",
    )


def lowlevel_loss_cases():
    logits = "pd.data('logits', [None, 3])"
    feeds = "{lg: rnd(4, 3), lb: %s}"
    for label, labels in {
        "out-of-range": "np.array([0, 1, 3, 2])",
        "negative": "np.array([0, -1, 1, 2])",
        "batch-mismatch": "np.array([0, 1, 2])",
        "batch-of-one": "np.array([1])",
        "huge": "np.array([0, 1, 2**40, 0])",
    }.items():
        for op in ("softmax_cross_entropy", "cross_entropy", "accuracy"):
            case(
                "ops.loss",
                f"{op}-labels-{label}",
                f"""
                lg, lb = {logits}, pd.data("labels", [None], "int64")
                pd.eval(pd.{op}(lg, lb), {feeds % labels})""",
                [op, "softmax_cross_entropy", "in_top_k", "label", "labels"],
            )
    for op in ("softmax_cross_entropy", "cross_entropy", "accuracy"):
        case(
            "ops.loss",
            f"{op}-float-labels",
            f"pd.{op}({logits}, pd.data('l', [None]))",
            [op, "softmax_cross_entropy"],
        )
        case(
            "ops.loss",
            f"{op}-label-shape",
            f"pd.{op}({logits}, pd.data('l', [None, 2], 'int64'))",
            [op, "softmax_cross_entropy"],
        )
        case(
            "ops.loss",
            f"{op}-int-logits",
            f"pd.{op}(pd.data('lg', [None, 3], 'int64'), " "pd.data('l', [None], 'int64'))",
            [op, "float", "softmax_cross_entropy"],
        )
        case(
            "ops.loss",
            f"{op}-rank0-logits",
            f"pd.{op}(pd.constant(1.0), pd.constant(0))",
            [op, "softmax_cross_entropy"],
        )
        case(
            "ops.loss",
            f"{op}-none-labels",
            f"pd.{op}({logits}, None)",
            [op, "softmax_cross_entropy"],
        )
        case(
            "ops.loss",
            f"{op}-labels-n1",
            f"""
            lg, lb = {logits}, pd.data("labels", [None, 1], "int64")
            r = pd.eval(pd.{op}(lg, lb), {{lg: rnd(4, 3), lb: np.array([[0], [1], [2], [0]])}})
            finite(r)""",
            [op],
            "ok",
        )
        case(
            "ops.loss",
            f"{op}-zero-batch",
            f"""
            lg, lb = {logits}, pd.data("labels", [None], "int64")
            r = pd.eval(pd.{op}(lg, lb), {{lg: np.zeros((0, 3), np.float32), lb: np.zeros(0, np.int64)}})
            """,
            [op, "empty"],
            "either",
        )
    case(
        "ops.loss",
        "softmax_cross_entropy-values",
        """
        a, l = rnd(5, 4, dtype="float64") * 30, np.array([0, 3, 1, 2, 3])
        r = pd.eval(pd.softmax_cross_entropy(pd.constant(a, "float64"), pd.constant(l)))
        m = a.max(-1, keepdims=True)
        ref = (np.log(np.exp(a - m).sum(-1)) + m[:, 0]) - a[np.arange(5), l]
        close(r, ref)""",
        "softmax_cross_entropy",
        "ok",
    )
    case(
        "ops.loss",
        "softmax_cross_entropy-big-logits",
        """
        a = np.array([[1e30, 0.0, -1e30]], np.float32)
        r = pd.eval(pd.softmax_cross_entropy(pd.constant(a), pd.constant(np.array([1]))))
        finite(r)""",
        "softmax_cross_entropy",
        "ok",
    )
    for k in ("0", "-1", "1.5", "True", "None", "'2'", "5"):
        case(
            "ops.loss",
            f"accuracy-k-{k}",
            f"""
            lg, lb = {logits}, pd.data("labels", [None], "int64")
            r = pd.eval(pd.accuracy(lg, lb, k={k}), {{lg: rnd(4, 3), lb: np.array([0, 1, 2, 0])}})
            {'close(r, 1.0)' if k == '5' else ''}""",
            ["accuracy", "k"],
            "either" if k == "5" else "error",
        )
    case(
        "ops.loss",
        "accuracy-nan-scores",
        """
        r = pd.eval(pd.accuracy(pd.constant(np.full((2, 3), np.nan, np.float32)),
                                pd.constant(np.array([0, 1]))))""",
        "accuracy",
        "either",
    )
    for op in ("mse", "mae", "huber", "sigmoid_cross_entropy"):
        case(
            "ops.loss",
            f"{op}-shapes",
            f"pd.{op}(pd.data('a', [None, 3]), pd.data('b', [None, 4]))",
            [op, "broadcast", "sub", "mul", "where", "add"],
        )
        case(
            "ops.loss",
            f"{op}-fed-batch",
            f"""
            a, b = pd.data('a', [None, 3]), pd.data('b', [None, 3])
            pd.eval(pd.{op}(a, b), {{a: rnd(2, 3), b: rnd(3, 3)}})""",
            [op, "broadcast", "sub", "mul", "where", "add"],
        )
        case(
            "ops.loss",
            f"{op}-fed-one-target",
            f"""
            a, b = pd.data('a', [None, 3]), pd.data('b', [None, 3])
            pd.eval(pd.{op}(a, b), {{a: rnd(4, 3), b: rnd(1, 3)}})""",
            [op, "targets", "shape"],
        )
        case(
            "ops.loss",
            f"{op}-none",
            f"pd.{op}(pd.data('a', [None, 3]), None)",
            [op, "sub", "mul", "where"],
        )
        case(
            "ops.loss",
            f"{op}-str",
            f"pd.{op}(pd.data('a', [None, 3]), 'x')",
            [op, "sub", "mul", "where"],
        )
    case(
        "ops.loss",
        "huber-delta-neg",
        "pd.eval(pd.huber(pd.constant([1.0]), pd.constant([3.0]), -1.0))",
        "huber",
        "either",
    )
    case(
        "ops.loss",
        "cross_entropy-epsilon-str",
        """
        pd.cross_entropy(pd.constant([[0.5, 0.5]]), pd.constant(np.array([0])), 'e')""",
        ["cross_entropy", "clip", "epsilon"],
    )


def _conv_cases():
    x4, w4 = "pd.data('x', [None, 8, 8, 4])", "pd.Variable('w', [3, 3, 4, 6])"
    for label, kw in {
        "strides-0": "strides=0",
        "strides-neg": "strides=-1",
        "strides-float": "strides=1.5",
        "strides-bool": "strides=True",
        "strides-none": "strides=None",
        "strides-3": "strides=(1, 1, 1)",
        "strides-str": "strides='2'",
        "dilation-0": "dilation=0",
        "dilation-float": "dilation=2.0",
        "groups-0": "groups=0",
        "groups-neg": "groups=-2",
        "groups-3": "groups=3",
        "groups-float": "groups=2.0",
        "groups-bool": "groups=True",
        "groups-none": "groups=None",
        "padding-neg": "padding=-1",
        "padding-str": "padding='full'",
        "padding-float": "padding=1.5",
        "padding-none": "padding=None",
        "padding-short": "padding=((1,), (1,))",
        "padding-triple": "padding=(1, 1, 1)",
        "format": "data_format='NWHC'",
        "format-none": "data_format=None",
        "bias-shape": "bias=pd.constant(np.zeros(5, np.float32))",
        "bias-dtype": "bias=pd.constant(np.zeros(6), 'float64')",
        "bias-rank": "bias=pd.constant(np.zeros((1, 6), np.float32))",
        "window-big": "dilation=4",
        "strides-np": "strides=np.int64(2)",
        "padding-huge": "padding=2**40",
    }.items():
        expect = "either" if label in ("strides-np",) else "error"
        case(
            "ops.conv",
            f"conv2d-{label}",
            f"""
            x = {x4}
            pd.eval(pd.conv2d(x, {w4}, {kw}), {{x: rnd(2, 8, 8, 4)}})""",
            ["conv2d", "strides", "padding", "dilation", "groups", "bias", "data_format"],
            expect,
        )
    for label, (xs, ws) in {
        "rank3-x": ("[None, 8, 4]", "[3, 3, 4, 6]"),
        "rank3-w": ("[None, 8, 8, 4]", "[3, 4, 6]"),
        "channels": ("[None, 8, 8, 5]", "[3, 3, 4, 6]"),
        "int": ("[None, 8, 8, 4]", "[3, 3, 4, 6]"),
        "zero-filters": ("[None, 8, 8, 4]", "[3, 3, 4, 0]"),
        "zero-kernel": ("[None, 8, 8, 4]", "[0, 3, 4, 6]"),
        "zero-channels": ("[None, 8, 8, 0]", "[3, 3, 0, 6]"),
        "zero-spatial": ("[None, 0, 8, 4]", "[3, 3, 4, 6]"),
    }.items():
        dt = "'int64'" if label == "int" else "'float32'"
        case(
            "ops.conv",
            f"conv2d-{label}",
            f"""
            x = pd.data('x', {xs}, {dt})
            w = pd.constant(np.ones({ws}), dtype={dt})
            pd.eval(pd.conv2d(x, w), {{x: np.ones((2,) + tuple({xs})[1:], {dt})}})""",
            ["conv2d", "channels", "rank", "float"],
        )
    case(
        "ops.conv",
        "conv2d-fed-small",
        """
        x = pd.data("x", [None, None, None, 4])
        pd.eval(pd.conv2d(x, pd.Variable('w', [3, 3, 4, 6])), {x: rnd(2, 2, 2, 4)})""",
        "conv2d",
    )
    case(
        "ops.conv",
        "conv2d-zero-batch",
        """
        x = pd.data("x", [None, 8, 8, 4])
        r = pd.eval(pd.conv2d(x, pd.Variable('w', [3, 3, 4, 6])), {x: np.zeros((0, 8, 8, 4), np.float32)})
        check(r.shape == (0, 6, 6, 6), str(r.shape))""",
        "conv2d",
        "ok",
    )
    case(
        "ops.conv",
        "conv2d-fed-channels-zero",
        """
        x = pd.data("x", [None, 4, 4, None])
        w = pd.data("w", [3, 3, None, 2])
        pd.eval(pd.conv2d(x, w), {x: np.zeros((1, 4, 4, 0), np.float32), w: np.zeros((3, 3, 0, 2), np.float32)})""",
        "conv2d",
        "either",
    )
    case(
        "ops.conv",
        "conv2d-mixed-dtype",
        """
        x = pd.data("x", [None, 8, 8, 4], "float64")
        pd.conv2d(x, pd.Variable('w', [3, 3, 4, 6]))""",
        ["conv2d", "dtype"],
    )
    # numeric checks against a direct convolution
    geoms = [
        ("basic", (2, 7, 6, 4), (3, 3, 4, 5), (1, 1), "'valid'", (1, 1), 1),
        ("strided-same", (2, 7, 6, 4), (3, 2, 4, 6), (2, 3), "'same'", (1, 1), 1),
        ("dilated", (1, 9, 9, 2), (3, 3, 2, 3), (1, 2), "'same'", (2, 3), 1),
        ("groups", (2, 6, 6, 4), (3, 3, 2, 6), (1, 1), "1", (1, 1), 2),
        ("depthwise", (2, 6, 5, 3), (3, 3, 1, 6), (2, 1), "'same'", (1, 1), 3),
        ("pointwise", (3, 4, 4, 5), (1, 1, 5, 2), (1, 1), "'valid'", (1, 1), 1),
        ("explicit-pad", (1, 5, 5, 2), (2, 2, 2, 2), (1, 1), "((2, 0), (1, 3))", (1, 1), 1),
        ("window-equals-input", (2, 3, 3, 2), (3, 3, 2, 2), (1, 1), "'valid'", (1, 1), 1),
        ("big-stride", (1, 5, 5, 1), (1, 1, 1, 1), (10, 10), "'valid'", (1, 1), 1),
        ("huge-stride", (1, 5, 5, 2), (2, 2, 2, 1), (2**62, 2**62), "'same'", (1, 1), 1),
        ("dilation-2^62-same", (1, 3, 3, 1), (3, 3, 1, 1), (1, 1), "'same'", (2**62, 2**62), 1),
        (
            "dilation-2^61-valid-pad",
            (1, 2, 2, 1),
            (2, 1, 1, 1),
            (1, 1),
            "((2**61, 2**61), (0, 0))",
            (2**62 - 1, 1),
            1,
        ),
        ("huge-dilation-same", (1, 4, 4, 1), (3, 3, 1, 1), (1, 1), "'same'", (2**20, 2**20), 1),
        ("pad-bigger-than-input", (1, 2, 2, 1), (3, 3, 1, 1), (1, 1), "5", (1, 1), 1),
        ("one-pixel-float64", (2, 1, 1, 3), (1, 1, 3, 2), (1, 1), "'same'", (1, 1), 1),
    ]
    for label, xs, ws, st, pad, dil, g in geoms:
        dt = "float64" if "float64" in label else "float32"
        expect = "either" if "2^6" in label or label == "huge-stride" else "ok"
        case(
            "ops.conv",
            f"conv2d-values-{label}",
            f"""
            a, w = rnd(*{xs}, dtype="{dt}"), rnd(*{ws}, seed=1, dtype="{dt}")
            pad = {pad}
            if pad == "same":
                pads = tuple(same_pads(n, k, s, d) for n, k, s, d in zip({xs}[1:3], {ws}[:2], {st}, {dil}))
            elif pad == "valid":
                pads = ((0, 0), (0, 0))
            elif isinstance(pad, int):
                pads = ((pad, pad), (pad, pad))
            else:
                pads = pad
            x = pd.data("x", [None, *{xs}[1:]], "{dt}")
            wv = pd.constant(w, "{dt}")
            y = pd.conv2d(x, wv, strides={st}, padding=pad, dilation={dil}, groups={g})
            close(pd.eval(y, {{x: a}}), ref_conv2d(a, w, {st}, pads, {dil}, {g}), tol=1e-3)
            # the adjoints: <conv(x), g> = <x, conv^T(g)> = <w, dW(x, g)>
            gy = rnd(*pd.eval(y, {{x: a}}).shape, seed=2, dtype="{dt}")
            dx, dw = pd.gradients(pd.sum(y * pd.constant(gy, "{dt}")), [x, wv])
            dxv, dwv = pd.eval([dx, dw], {{x: a}})
            lhs = float((ref_conv2d(a, w, {st}, pads, {dil}, {g}) * gy).sum())
            close(float((dxv * a).sum()), lhs, "input gradient", tol=1e-2)
            close(float((dwv * w).sum()), lhs, "filter gradient", tol=1e-2)""",
            "conv2d",
            expect,
        )
    case(
        "ops.conv",
        "conv2d-nchw-values",
        """
        a, w = rnd(2, 3, 5, 5), rnd(3, 3, 3, 4, seed=1)
        y = pd.eval(pd.conv2d(pd.constant(a), pd.constant(w), padding="same", data_format="NCHW"))
        close(y, ref_conv2d(a.transpose(0, 2, 3, 1), w, pads=((1, 1), (1, 1))).transpose(0, 3, 1, 2), tol=1e-3)""",
        "conv2d",
        "ok",
    )
    case(
        "ops.conv",
        "conv2d-nan-input",
        """
        a = rnd(1, 4, 4, 1); a[0, 0, 0, 0] = np.nan
        y = pd.eval(pd.conv2d(pd.constant(a), pd.constant(np.ones((2, 2, 1, 1), np.float32))))
        check(np.isnan(y[0, 0, 0, 0]) and np.isfinite(y[0, 2, 2, 0]), "NaN not where it should be")""",
        "conv2d",
        "ok",
    )
    # transposed convolution
    for label, kw in {
        "output-zero": "output_shape=(0, 0)",
        "output-neg": "output_shape=(-1, 4)",
        "output-float": "output_shape=(4.5, 4)",
        "output-bad": "output_shape=(3, 3)",
        "output-huge": "output_shape=(2**20, 2**20)",
        "output-str": "output_shape='ab'",
        "output-rank": "output_shape=(1, 2, 3)",
        "output-none-item": "output_shape=(None, 4)",
        "strides-0": "strides=0",
        "dilation-neg": "dilation=-1",
        "padding-huge": "padding=2**40",
        "bias-shape": "bias=pd.constant(np.zeros(9, np.float32))",
        "format": "data_format='HWC'",
        "strides-huge": "strides=2**40",
    }.items():
        case(
            "ops.conv",
            f"conv2d_transpose-{label}",
            f"""
            x = pd.data("x", [None, 4, 4, 6])
            w = pd.Variable("wt", [3, 3, 2, 6])
            pd.eval(pd.conv2d_transpose(x, w, {kw}), {{x: rnd(1, 4, 4, 6)}})""",
            [
                "conv2d_transpose",
                "output_shape",
                "strides",
                "dilation",
                "padding",
                "bias",
                "data_format",
            ],
        )
    case(
        "ops.conv",
        "conv2d_transpose-channels",
        """
        pd.conv2d_transpose(pd.data("x", [None, 4, 4, 5]), pd.Variable("wt", [3, 3, 2, 6]))""",
        "conv2d_transpose",
    )
    case(
        "ops.conv",
        "conv2d_transpose-rank",
        """
        pd.conv2d_transpose(pd.data("x", [None, 4, 5]), pd.Variable("wt", [3, 3, 2, 6]))""",
        "conv2d_transpose",
    )
    for label, st, pad, out in [
        ("valid", 2, "'valid'", None),
        ("same", 2, "'same'", None),
        ("explicit", 1, "((1, 0), (0, 1))", None),
        ("output-shape", 2, "'same'", (8, 7)),
    ]:
        case(
            "ops.conv",
            f"conv2d_transpose-values-{label}",
            f"""
            a, w = rnd(2, 4, 4, 3), rnd(3, 3, 2, 3, seed=1)
            y = pd.conv2d_transpose(pd.constant(a), pd.constant(w), output_shape={out},
                                    strides={st}, padding={pad})
            r = pd.eval(y)
            # the adjoint test against the forward convolution it transposes
            b = rnd(*r.shape, seed=3)
            pad = {pad}
            if pad == "same":
                pads = tuple(same_pads(n, 3, {st}) for n in r.shape[1:3])
            elif pad == "valid":
                pads = ((0, 0), (0, 0))
            else:
                pads = pad
            fwd = ref_conv2d(b, w, ({st}, {st}), pads)
            check(fwd.shape == a.shape, f"forward of the output shape {{fwd.shape}} != {{a.shape}}")
            close(float((r * b).sum()), float((fwd * a).sum()), "adjoint", tol=1e-2)""",
            "conv2d_transpose",
            "ok",
        )
    # conv1d
    for label, kw in {
        "strides-0": "strides=0",
        "strides-pair": "strides=(1, 1)",
        "dilation-float": "dilation=1.0",
        "padding-causal-typo": "padding='casual'",
        "padding-neg": "padding=-2",
        "padding-pair-neg": "padding=(0, -1)",
        "groups-bad": "groups=3",
        "format": "data_format='NHWC'",
        "padding-huge": "padding=2**40",
    }.items():
        case(
            "ops.conv",
            f"conv1d-{label}",
            f"""
            x = pd.data("x", [None, 10, 4])
            pd.eval(pd.conv1d(x, pd.Variable("k1", [3, 4, 6]), {kw}), {{x: rnd(2, 10, 4)}})""",
            ["conv1d", "strides", "dilation", "padding", "groups", "data_format"],
        )
    case(
        "ops.conv",
        "conv1d-rank",
        "pd.conv1d(pd.data('x', [None, 10]), pd.Variable('k1', [3, 4, 6]))",
        "conv1d",
    )
    case(
        "ops.conv",
        "conv1d-filters-rank",
        "pd.conv1d(pd.data('x', [None, 10, 4]), pd.Variable('k1', [3, 4]))",
        "conv1d",
    )
    case(
        "ops.conv",
        "conv1d-causal-values",
        """
        a, w = rnd(2, 6, 3), rnd(3, 3, 2, seed=1)
        r = pd.eval(pd.conv1d(pd.constant(a), pd.constant(w), padding="causal", dilation=2))
        ref = ref_conv2d(a[:, None], w[None], pads=((0, 0), (4, 0)), dilation=(1, 2))[:, 0]
        close(r, ref, tol=1e-3)""",
        "conv1d",
        "ok",
    )


def _pool_cases():
    for op in ("max_pool2d", "avg_pool2d"):
        for label, kw in {
            "size-0": "0",
            "size-neg": "-1",
            "size-float": "2.5",
            "size-none": "None",
            "size-bool": "True",
            "size-triple": "(2, 2, 2)",
            "size-big": "9",
            "strides-0": "2, strides=0",
            "strides-float": "2, strides=1.0",
            "padding-int": "2, padding=1",
            "padding-str": "2, padding='full'",
            "format": "2, data_format='CHW'",
            "size-huge": "2**40",
            "size-huge-same": "2**40, padding='same'",
        }.items():
            case(
                "ops.pool",
                f"{op}-{label}",
                f"""
                x = pd.data("x", [None, 8, 8, 3])
                pd.eval(pd.{op}(x, {kw}), {{x: rnd(2, 8, 8, 3)}})""",
                [op, "pool_size", "strides", "padding", "data_format"],
                "either" if label == "size-huge-same" else "error",
            )
        case("ops.pool", f"{op}-rank", f"pd.{op}(pd.data('x', [None, 8, 3]), 2)", op)
        case(
            "ops.pool",
            f"{op}-int",
            f"""
            x = pd.data("x", [None, 4, 4, 1], "int64")
            pd.eval(pd.{op}(x, 2), {{x: np.ones((1, 4, 4, 1), np.int64)}})""",
            [op, "float"],
        )
        case(
            "ops.pool",
            f"{op}-fed-small",
            f"""
            x = pd.data("x", [None, None, None, 3])
            pd.eval(pd.{op}(x, 3), {{x: rnd(1, 2, 2, 3)}})""",
            op,
        )
        case(
            "ops.pool",
            f"{op}-zero-batch",
            f"""
            x = pd.data("x", [None, 4, 4, 3])
            r = pd.eval(pd.{op}(x, 2), {{x: np.zeros((0, 4, 4, 3), np.float32)}})
            check(r.shape == (0, 2, 2, 3), str(r.shape))""",
            op,
            "ok",
        )
        case(
            "ops.pool",
            f"{op}-zero-channels",
            f"""
            x = pd.data("x", [None, 4, 4, None])
            r = pd.eval(pd.{op}(x, 2), {{x: np.zeros((1, 4, 4, 0), np.float32)}})
            check(r.shape == (1, 2, 2, 0), str(r.shape))""",
            op,
            "either",
        )
        kind = "max" if op.startswith("max") else "avg"
        for label, xs, k, s, pad in [
            ("valid", (2, 7, 6, 3), (2, 3), (2, 2), "valid"),
            ("same", (2, 7, 6, 3), (3, 3), (2, 1), "same"),
            ("overlap", (1, 6, 6, 2), (3, 3), (1, 1), "valid"),
            ("window-bigger-same", (1, 3, 3, 2), (5, 5), (1, 1), "same"),
            ("huge-window-same", (1, 3, 2, 1), (2**15, 2**15), (2**15, 2**15), "same"),
            ("stride-bigger", (1, 9, 9, 1), (2, 2), (4, 5), "valid"),
        ]:
            case(
                "ops.pool",
                f"{op}-values-{label}",
                f"""
                a = rnd(*{xs})
                pads = ((0, 0), (0, 0)) if "{pad}" == "valid" else tuple(
                    same_pads(n, k, s) for n, k, s in zip({xs}[1:3], {k}, {s}))
                x = pd.constant(a)
                y = pd.{op}(x, {k}, strides={s}, padding="{pad}")
                close(pd.eval(y), ref_pool(a, {k}, {s}, pads, "{kind}"))
                g, = pd.gradients(pd.sum(y * y), [x])
                gv = pd.eval(g)
                finite(gv, "gradient")
                # sum of the gradient = sum over windows of 2y (max) / 2y (avg, spread over the covered elements)
                close(float(gv.sum()), float((2 * pd.eval(y)).sum()), "gradient sum", tol=1e-2)""",
                op,
                "ok",
            )
        case(
            "ops.pool",
            f"{op}-nan",
            f"""
            a = np.array([1.0, np.nan, 3.0, 2.0], np.float32).reshape(1, 2, 2, 1)
            b = np.array([np.nan, 1.0, 3.0, 2.0], np.float32).reshape(1, 2, 2, 1)
            ra, rb = pd.eval(pd.{op}(pd.constant(a), 2)), pd.eval(pd.{op}(pd.constant(b), 2))
            check(np.isnan(ra).all() and np.isnan(rb).all(),
                  f"a NaN in the window is dropped depending on its position: {{ra.ravel()}}, {{rb.ravel()}}")""",
            op,
            "ok",
        )
    for label, k in [
        ("window-2^32-wide", (2, 2**32)),
        ("window-2^31-tall", (2**31, 2)),
        ("window-2^62", (2**62, 2**62)),
    ]:
        case(
            "ops.pool",
            f"max_pool2d-grad-{label}",
            f"""
            a = rnd(1, 3, 3, 2)
            x = pd.constant(a)
            y = pd.max_pool2d(x, {k}, strides=1, padding="same")
            pads = tuple(same_pads(n, kk, 1) for n, kk in zip(a.shape[1:3], {k}))
            close(pd.eval(y), ref_pool(a, {k}, (1, 1), pads, "max"))
            g, = pd.gradients(pd.sum(y), [x])
            close(pd.eval(g), ref_max_pool_grad(a, {k}, (1, 1), pads), "gradient")""",
            ["max_pool2d", "pool_size", "window"],
            "either",
        )
    for op in ("max_pool1d", "avg_pool1d"):
        for label, kw in {
            "size-0": "0",
            "size-pair": "(2, 2)",
            "strides-neg": "2, strides=-1",
            "padding-causal": "2, padding='causal'",
            "rank": None,
        }.items():
            xs = "[None, 8]" if label == "rank" else "[None, 8, 3]"
            case(
                "ops.pool",
                f"{op}-{label}",
                f"""
                x = pd.data("x", {xs})
                pd.{op}(x, {kw or 2})""",
                [op, "pool_size", "strides", "padding"],
            )
    case(
        "ops.pool",
        "global_avg_pool2d-rank",
        "pd.global_avg_pool2d(pd.data('x', [None, 3]))",
        "global_avg_pool2d",
    )
    case(
        "ops.pool",
        "global_avg_pool2d-empty",
        """
        x = pd.data("x", [None, None, None, 3])
        r = pd.eval(pd.global_avg_pool2d(x), {x: np.zeros((1, 0, 0, 3), np.float32)})""",
        ["global_avg_pool2d", "empty", "mean", "sum"],
        "either",
    )


def _norm_cases():
    bn = Setup("""
        x = pd.data("x", [None, 4])
        mm = pd.Variable("mm", [4], initializer="zeros", trainable=False)
        mv = pd.Variable("mv", [4], initializer="ones", trainable=False)
    """)
    for label, kw in {
        "momentum-str": "momentum='a'",
        "momentum-neg": "momentum=-1.0",
        "momentum-big": "momentum=2.0",
        "momentum-nan": "momentum=float('nan')",
        "epsilon-neg": "epsilon=-1.0",
        "epsilon-nan": "epsilon=float('nan')",
        "epsilon-none": "epsilon=None",
        "axis-out": "axis=2",
        "axis-float": "axis=1.0",
        "axis-none": "axis=None",
        "epsilon-zero-const": "epsilon=0.0",
    }.items():
        # epsilon 0 over a constant input is 0 / 0: NaN is the right answer there
        expect = "either" if label == "epsilon-zero-const" else "error"
        case(
            "ops.norm",
            f"batch_norm-{label}",
            bn + f"""
        y = pd.batch_norm(x, None, None, mm, mv, {kw})
        r = pd.eval(y, {{x: np.ones((3, 4), np.float32)}}, training=True)
        {'finite(r)' if expect == 'error' else ''}
        finite(mm.val(), "moving mean"); finite(mv.val(), "moving variance")""",
            ["batch_norm", "momentum", "epsilon", "axis"],
            expect,
        )
    for label, arg in {
        "scale-shape": "pd.constant(np.ones(3, np.float32))",
        "scale-dtype": "pd.constant(np.ones(4), 'float64')",
        "scale-str": "'a'",
        "scale-rank": "pd.constant(np.ones((1, 4), np.float32))",
    }.items():
        case(
            "ops.norm",
            f"batch_norm-{label}",
            bn + f"""
        pd.batch_norm(x, {arg}, None, mm, mv)""",
            ["batch_norm", "scale"],
        )
    case(
        "ops.norm",
        "batch_norm-moving-const-train",
        """
        x = pd.data("x", [None, 2])
        c = pd.constant(np.zeros(2, np.float32))
        pd.eval(pd.batch_norm(x, None, None, c, c), {x: np.ones((3, 2), np.float32)}, training=True)""",
        ["batch_norm", "moving"],
    )
    case(
        "ops.norm",
        "batch_norm-moving-shape",
        """
        x = pd.data("x", [None, 4])
        pd.batch_norm(x, None, None, pd.Variable("mm", [3]), pd.Variable("mv", [4]))""",
        ["batch_norm", "moving_mean"],
    )
    case(
        "ops.norm",
        "batch_norm-int",
        """
        x = pd.data("x", [None, 4], "int64")
        pd.batch_norm(x, None, None, pd.Variable("mm", [4]), pd.Variable("mv", [4]))""",
        ["batch_norm", "float", "dtype"],
    )
    case(
        "ops.norm",
        "batch_norm-unknown-channels",
        """
        x = pd.data("x", [None, None])
        pd.batch_norm(x, None, None, pd.Variable("mm", [4]), pd.Variable("mv", [4]))""",
        ["batch_norm", "channel"],
    )
    case(
        "ops.norm",
        "batch_norm-fed-channels",
        """
        x = pd.data("x", [None, None])
        s = pd.constant(np.ones(4, np.float32))
        mm = pd.Variable("mm", [4], initializer="zeros", trainable=False)
        mv = pd.Variable("mv", [4], initializer="ones", trainable=False)
        pd.eval(pd.batch_norm(x, s, s, mm, mv), {x: np.ones((3, 5), np.float32)})""",
        "batch_norm",
    )
    case(
        "ops.norm",
        "batch_norm-empty-batch-train",
        bn + """
        r = pd.eval(pd.batch_norm(x, None, None, mm, mv), {x: np.zeros((0, 4), np.float32)}, training=True)
        check(r.shape == (0, 4), "shape")
        close(mm.val(), np.zeros(4), "moving mean after an empty batch")
        close(mv.val(), np.ones(4), "moving variance after an empty batch (it moved toward 0)")""",
        ["batch_norm", "empty"],
        "either",
    )
    case(
        "ops.norm",
        "batch_norm-single-example-train",
        bn + """
        r = pd.eval(pd.batch_norm(x, None, None, mm, mv), {x: rnd(1, 4)}, training=True)
        finite(r)""",
        "batch_norm",
        "ok",
    )
    case(
        "ops.norm",
        "batch_norm-values-nchw",
        """
        a = rnd(3, 4, 2, 5, dtype="float64") * 3 + 1
        x = pd.constant(a, "float64")
        mm = pd.Variable("mm", [4], "float64", initializer="zeros", trainable=False)
        mv = pd.Variable("mv", [4], "float64", initializer="ones", trainable=False)
        r = pd.eval(pd.batch_norm(x, None, None, mm, mv, axis=1, epsilon=1e-5), training=True)
        m, v = a.mean((0, 2, 3), keepdims=True), a.var((0, 2, 3), keepdims=True)
        close(r, (a - m) / np.sqrt(v + 1e-5))""",
        "batch_norm",
        "ok",
    )
    ln = Setup("x = pd.data('x', [None, 4])\n")
    for label, kw in {
        "axis-out": "axis=3",
        "axis-float": "axis=0.5",
        "axis-repeat": "axis=[1, 1]",
        "axis-empty": "axis=[]",
        "scale-shape": "pd.constant(np.ones(3, np.float32))",
        "epsilon-str": "epsilon='a'",
        "epsilon-neg": "epsilon=-1.0",
        "offset-str": "None, 'b'",
    }.items():
        if label == "scale-shape":
            call = f"pd.layer_norm(x, {kw}, None)"
        elif label == "offset-str":
            call = f"pd.layer_norm(x, {kw})"
        else:
            call = f"pd.layer_norm(x, None, None, {kw})"
        case(
            "ops.norm",
            f"layer_norm-{label}",
            ln + f"""
r = pd.eval({call}, {{x: np.ones((2, 4), np.float32)}})
finite(r)""",
            ["layer_norm", "axis", "scale", "epsilon", "offset"],
        )
    case(
        "ops.norm",
        "layer_norm-int",
        "pd.layer_norm(pd.data('x', [2, 4], 'int64'), None, None)",
        ["layer_norm", "float"],
    )
    case(
        "ops.norm",
        "layer_norm-constant-row",
        """
        r = pd.eval(pd.layer_norm(pd.constant(np.full((2, 4), 5.0, np.float32)), None, None))
        close(r, np.zeros((2, 4)))""",
        "layer_norm",
        "ok",
    )


def _nn_misc_cases():
    for label, rate in {
        "one": "1.0",
        "neg": "-0.1",
        "nan": "float('nan')",
        "str": "'0.5'",
        "bool": "True",
        "none": "None",
        "big": "1.5",
        "inf": "float('inf')",
        "np": "np.float32(0.5)",
        "array": "np.array([0.5])",
    }.items():
        case(
            "ops.nn",
            f"dropout-rate-{label}",
            f"""
            x = pd.data("x", [None, 4])
            r = pd.eval(pd.dropout(x, {rate}), {{x: np.ones((3, 4), np.float32)}}, training=True)
            check(set(np.unique(r).tolist()) <= {{0.0, 2.0}}, str(np.unique(r)))""",
            ["dropout", "rate"],
            "either" if label == "np" else "error",
        )
    case(
        "ops.nn",
        "dropout-int",
        """
        x = pd.data("x", [None, 4], "int64")
        pd.dropout(x, 0.5)""",
        ["dropout", "float"],
    )
    case(
        "ops.nn",
        "dropout-zero-size",
        """
        x = pd.data("x", [None, 4])
        r = pd.eval(pd.dropout(x, 0.5), {x: np.ones((0, 4), np.float32)}, training=True)
        check(r.shape == (0, 4), "shape")""",
        "dropout",
        "ok",
    )
    emb = Setup("table = pd.Variable('table', [5, 3])\n")
    for label, ids in {
        "out": "[0, 5]",
        "neg": "[-1]",
        "huge": "[2**62]",
        "float": "[0.5]",
        "bool": "[True]",
        "none": "None",
        "str": "'ab'",
    }.items():
        case(
            "ops.nn",
            f"embedding-ids-{label}",
            emb + f"pd.eval(pd.embedding(np.array({ids}), table))",
            ["embedding", "id"],
        )
    case(
        "ops.nn",
        "embedding-fed-out",
        emb + """
ids = pd.data("ids", [None], "int64")
pd.eval(pd.embedding(ids, table), {ids: np.array([4, 7, 0])})""",
        "embedding",
    )
    case(
        "ops.nn",
        "embedding-int32-fed",
        emb + """
ids = pd.data("ids", [None], "int32")
r = pd.eval(pd.embedding(ids, table), {ids: np.array([4, 0], np.int32)})
close(r, table.val()[[4, 0]])""",
        "embedding",
        "ok",
    )
    for label, tbl in {
        "rank1": "pd.constant(np.ones(5, np.float32))",
        "rank3": "pd.constant(np.ones((5, 3, 2), np.float32))",
        "int": "pd.constant(np.ones((5, 3), np.int64))",
        "empty": "pd.constant(np.ones((0, 3), np.float32))",
    }.items():
        case(
            "ops.nn",
            f"embedding-table-{label}",
            f"""
            pd.eval(pd.embedding(pd.constant(np.array([0])), {tbl}))""",
            ["embedding", "table", "id"],
        )
    case(
        "ops.nn",
        "embedding-float-ids-fed",
        emb + """
ids = pd.data("ids", [None], "int64")
pd.eval(pd.embedding(ids, table), {ids: np.array([0.5, 1.0])})""",
        ["embedding", "ids"],
    )
    case(
        "ops.nn",
        "embedding-grad-repeated",
        emb + """
ids = pd.constant(np.array([[1, 1], [4, 1]]))
g, = pd.gradients(pd.sum(pd.embedding(ids, table)), [table])
close(pd.eval(g), np.array([[0] * 3, [3] * 3, [0] * 3, [0] * 3, [1] * 3], np.float32))""",
        "embedding",
        "ok",
    )


def _rnn_cases():
    setups = {
        "lstm": (
            "k = pd.Variable('k', [3, 8]); rk = pd.Variable('rk', [2, 8]); b = pd.Variable('b', [8])",
            "[h0, c0]",
            2,
        ),
        "gru": (
            "k = pd.Variable('k', [3, 6]); rk = pd.Variable('rk', [2, 6]); b = pd.Variable('b', [2, 6])",
            "h0",
            1,
        ),
    }
    for op, (weights, state, n_states) in setups.items():
        head = Setup(f"x = pd.data('x', [None, None, 3])\n{weights}\n")
        for label, call in {
            "rank2": f"pd.{op}(pd.data('x2', [None, 3]), k, rk, b)",
            "rank4": f"pd.{op}(pd.data('x4', [None, 2, 2, 3]), k, rk, b)",
            "kernel-shape": f"pd.{op}(x, pd.Variable('k2', [4, 8]), rk, b)",
            "recurrent-shape": f"pd.{op}(x, k, pd.Variable('rk2', [3, 8]), b)",
            "bias-shape": f"pd.{op}(x, k, rk, pd.Variable('b2', [7]))",
            "int-x": f"pd.{op}(pd.data('xi', [None, 2, 3], 'int64'), k, rk, b)",
            "float64-x": f"pd.{op}(pd.data('xd', [None, 2, 3], 'float64'), k, rk, b)",
            "none-kernel": f"pd.{op}(x, None, rk, b)",
            "state-count": f"pd.{op}(x, k, rk, b, initial_state=[pd.data('h', [None, 2])] * {n_states + 1})",
            "state-shape": f"pd.{op}(x, k, rk, b, initial_state=[pd.data('h', [None, 3])] * {n_states})",
            "state-str": f"pd.{op}(x, k, rk, b, initial_state='zeros')",
        }.items():
            case(
                "ops.rnn",
                f"{op}-{label}",
                head + call,
                [op, "kernel", "state", "bias", "float", "3-D"],
            )
        feeds = "{x: rnd(%d, %d, 3), h: rnd(%d, 2)}"
        for label, (n, t, nh) in {
            "state-batch-mismatch": (4, 5, 3),
            "zero-steps": (2, 0, 2),
        }.items():
            st = "[h, h]" if op == "lstm" else "h"
            case(
                "ops.rnn",
                f"{op}-fed-{label}",
                head + f"""
h = pd.data("h", [None, 2])
pd.eval(pd.{op}(x, k, rk, b, initial_state={st}), {feeds % (n, t, nh)})""",
                [op, "state", "time step", "batch"],
            )
        case(
            "ops.rnn",
            f"{op}-zero-batch",
            head + f"""
r = pd.eval(pd.{op}(x, k, rk, b, return_sequences=True), {{x: np.zeros((0, 4, 3), np.float32)}})
check(r.shape == (0, 4, 2), str(r.shape))""",
            op,
            "ok",
        )
        case(
            "ops.rnn",
            f"{op}-rows-independent",
            head + f"""
a = rnd(5, 7, 3)
full = pd.eval(pd.{op}(x, k, rk, b, return_sequences=True), {{x: a}})
one = pd.eval(pd.{op}(x, k, rk, b, return_sequences=True), {{x: a[2:3]}})
close(full[2:3], one, "row 2 alone vs in the batch")
finite(full)""",
            op,
            "ok",
        )
        case(
            "ops.rnn",
            f"{op}-grad-finite",
            head + f"""
a = rnd(3, 4, 3)
y = pd.{op}(x, k, rk, b)
gs = pd.gradients(pd.sum(y * y), [x, k, rk, b])
for g in pd.eval(gs, {{x: a}}):
    finite(g, "gradient")""",
            op,
            "ok",
        )
        case(
            "ops.rnn",
            f"{op}-huge-values",
            head + f"""
r = pd.eval(pd.{op}(x, k, rk, b), {{x: np.full((2, 3, 3), 1e30, np.float32)}})
finite(r)""",
            op,
            "ok",
        )
        case(
            "ops.rnn",
            f"{op}-nan-in-one-row",
            head + f"""
a = rnd(3, 4, 3); a[0, 1, 1] = np.nan
r = pd.eval(pd.{op}(x, k, rk, b), {{x: a}})
finite(r[1:], "rows without NaN")""",
            op,
            "ok",
        )
    case(
        "ops.rnn",
        "gru-reset_after-str",
        """
        x = pd.data('x', [None, 2, 3])
        k = pd.Variable('k', [3, 6]); rk = pd.Variable('rk', [2, 6]); b = pd.Variable('b', [6])
        pd.gru(x, k, rk, b, reset_after='no')""",
        ["gru", "bias", "reset_after"],
    )


def lowlevel_nn_cases():
    _conv_cases()
    _pool_cases()
    _norm_cases()
    _nn_misc_cases()
    _rnn_cases()


def executor_cases():
    x = "x = pd.data('x', [None, 3])\ny = x * 2.0\n"
    feeds = {
        "ragged": "[[1, 2, 3], [4, 5]]",
        "object": "np.array([object()] * 3).reshape(1, 3)",
        "strings": "np.array([['a', 'b', 'c']])",
        "none": "None",
        "dict": "{'a': 1}",
        "complex": "np.ones((1, 3), np.complex64)",
        "datetime": "np.zeros((1, 3), 'datetime64[s]')",
        "rank1": "np.ones(3, np.float32)",
        "rank3": "np.ones((1, 1, 3), np.float32)",
        "width": "np.ones((2, 4), np.float32)",
        "scalar": "1.0",
        "bytes": "b'abc'",
        "int-overflow-float": "np.array([[1e300, 0, 0]])",
        "generator": "(i for i in range(3))",
        "structured": "np.zeros((1, 3), dtype=[('a', 'f4')])",
    }
    for label, value in feeds.items():
        case(
            "executor",
            f"feed-{label}",
            x + f"r = pd.eval(y, {{x: {value}}})\nfinite(r)",
            ["'x'", "input", "feed", "eval"],
        )
    for label, value, want in [
        ("noncontiguous", "rnd(4, 6)[:, ::2]", "rnd(4, 6)[:, ::2] * 2"),
        ("fortran", "np.asfortranarray(rnd(4, 3))", "rnd(4, 3) * 2"),
        ("big-endian", "rnd(4, 3).astype('>f4')", "rnd(4, 3) * 2"),
        ("float64", "rnd(4, 3, dtype='float64')", "rnd(4, 3, dtype='float64') * 2"),
        ("int", "np.arange(12).reshape(4, 3)", "np.arange(12).reshape(4, 3) * 2"),
        ("bool", "np.ones((4, 3), bool)", "np.ones((4, 3)) * 2"),
        ("float16", "rnd(4, 3).astype(np.float16)", "rnd(4, 3).astype(np.float16) * 2"),
        ("list", "[[1, 2, 3]]", "np.array([[2, 4, 6]])"),
        (
            "broadcast-view",
            "np.broadcast_to(np.arange(3.0), (4, 3))",
            "np.broadcast_to(np.arange(3.0), (4, 3)) * 2",
        ),
        ("zero-rows", "np.zeros((0, 3), np.float32)", "np.zeros((0, 3))"),
    ]:
        ro = (
            "a = %s\na.flags.writeable = False if a.flags.owndata else a.flags.writeable\n" % value
            if label not in ("list",)
            else f"a = {value}\n"
        )
        case(
            "executor",
            f"feed-values-{label}",
            x + ro + f"close(pd.eval(y, {{x: a}}), {want}, tol=1e-2)",
            ["'x'", "input"],
            "ok",
        )
    case(
        "executor",
        "feed-int-into-int32",
        """
        x = pd.data("x", [None], "int32")
        pd.eval(x + 1, {x: np.array([2**40])})""",
        ["'x'", "int32", "range"],
    )
    case(
        "executor",
        "feed-float-into-int",
        """
        x = pd.data("x", [None], "int64")
        pd.eval(x + 1, {x: np.array([1.5])})""",
        ["'x'", "int64"],
    )
    case(
        "executor",
        "feed-uint64-big",
        """
        x = pd.data("x", [None], "int64")
        pd.eval(x + 1, {x: np.array([2**63 + 5], np.uint64)})""",
        ["'x'", "int64", "range"],
    )
    case("executor", "feed-missing", "x = pd.data('x', [None])\npd.eval(x * 2.0, {})", ["'x'"])
    case(
        "executor",
        "feed-wrong-key",
        """
        x = pd.data('x', [None])
        pd.eval(x * 2.0, {pd.data('x2', [None]): np.ones(2, np.float32)})""",
        ["'x'"],
    )
    case(
        "executor",
        "feed-key-int",
        "x = pd.data('x', [None])\npd.eval(x * 2.0, {1: 2})",
        ["eval", "key"],
    )
    case(
        "executor",
        "feed-not-dict",
        "x = pd.data('x', [None])\npd.eval(x * 2.0, [1, 2])",
        ["eval", "feeds"],
    )
    case("executor", "targets-bad", "pd.eval([1, 2])", ["eval", "target"])
    case("executor", "targets-none", "pd.eval(None)", ["eval", "target"])
    case(
        "executor",
        "training-str",
        """
        x = pd.data('x', [None])
        pd.eval(x * 2.0, {x: np.ones(2, np.float32)}, training='no')""",
        "eval",
        "either",
    )
    case("executor", "device-bad", "pd.eval(pd.constant(1.0), device='tpu')", ["device", "tpu"])
    case("executor", "device-int", "pd.eval(pd.constant(1.0), device=3)", ["device"])
    case("executor", "data-shape-neg", "pd.data('x', [-1, 3])", ["data", "'x'", "shape"])
    case("executor", "data-shape-float", "pd.data('x', [2.5])", ["data", "'x'", "shape"])
    case("executor", "data-shape-str", "pd.data('x', 'abc')", ["data", "'x'", "shape"])
    case("executor", "data-dtype-bad", "pd.data('x', [2], 'float16')", ["data", "'x'", "dtype"])
    case("executor", "data-name-none", "pd.data(None, [2])", ["data", "name"])
    case("executor", "variable-shape-none", "pd.Variable('v', [None, 2])", ["Variable", "'v'"])
    case("executor", "variable-huge", "pd.Variable('v', [2**20, 2**20])", ["Variable", "'v'"])
    case("executor", "variable-huger", "pd.Variable('v', [2**40, 2**40])", ["Variable", "'v'"])
    case(
        "executor",
        "variable-init-bad",
        "pd.Variable('v', [2], initializer='nope')",
        ["Variable", "initializer", "nope"],
    )
    case(
        "executor",
        "variable-set_value-shape",
        "pd.Variable('v', [2]).set_value(np.ones(3))",
        ["set_value", "'v'"],
    )
    case(
        "executor",
        "variable-set_value-str",
        "pd.Variable('v', [2]).set_value(np.array(['a', 'b']))",
        ["set_value", "'v'"],
    )
    case(
        "executor",
        "variable-set_value-nan",
        """
        v = pd.Variable('v', [2])
        v.set_value(np.array([np.nan, 1.0]))""",
        ["set_value", "'v'"],
        "either",
    )
    case("executor", "constant-object", "pd.constant([object()])", ["constant", "object"])
    case("executor", "constant-ragged", "pd.constant([[1], [1, 2]])", ["constant"])
    case("executor", "constant-str", "pd.constant('abc')", ["constant"])
    case("executor", "constant-complex", "pd.constant(1j)", ["constant"])
    case("executor", "constant-huge-int", "pd.constant(2**70)", ["constant"])
    case(
        "executor",
        "constant-uint64",
        "pd.eval(pd.constant(np.array([2**64 - 1], np.uint64)) + 1)",
        ["constant", "int64", "range"],
    )
    case("executor", "gradients-bad", "pd.gradients(pd.constant(1.0), [1])", ["gradients"])
    case("executor", "gradients-none", "pd.gradients(None, [pd.Variable('v', [2])])", ["gradients"])
    case(
        "executor",
        "gradients-int-target",
        """
        v = pd.Variable('v', [2])
        pd.gradients(pd.cast(v, 'int64'), [v])""",
        ["gradients", "float", "int"],
        "either",
    )
    case(
        "executor",
        "namespace-bad",
        """
        with pd.namespace('a/b'):
            pass""",
        ["namespace"],
    )
    case(
        "executor",
        "many-specializations",
        """
        x = pd.data("x", [None, 3])
        y = pd.sum(x * 2.0, axis=1)
        for n in range(1, 30):
            close(pd.eval(y, {x: np.ones((n, 3), np.float32)}), np.full(n, 6.0))""",
        "eval",
        "ok",
    )
    case(
        "executor",
        "optimizer-lr-nan",
        """
        v = pd.Variable("v", [2], initializer="ones")
        opt = pd.optimizers.SGD(learning_rate=float("nan"))
        up = opt.minimize(pd.sum(v * v), var_list=[v])
        pd.eval(up)
        finite(v.val(), "parameter after a step")""",
        ["learning_rate", "SGD", "sgd"],
    )
    for opt, kw in [
        ("Adam", "learning_rate=-1.0"),
        ("Adam", "beta_1=1.5"),
        ("Adam", "epsilon=-1.0"),
        ("SGD", "momentum=-0.5"),
        ("SGD", "learning_rate='a'"),
        ("RMSprop", "rho=2.0"),
        ("Adam", "learning_rate=None"),
        ("Adagrad", "epsilon=float('nan')"),
        ("SGD", "clipnorm=-1.0"),
    ]:
        case(
            "executor",
            f"optimizer-{opt}-{kw.split('=')[0]}-{kw.split('=')[1][:5]}",
            f"""
            v = pd.Variable("v", [2], initializer="ones")
            opt = pd.optimizers.{opt}({kw})
            up = opt.minimize(pd.sum(v * v), var_list=[v])
            for _ in range(3):
                pd.eval(up)
            finite(v.val(), "parameter after steps")""",
            [opt, opt.lower(), kw.split("=")[0]],
            "either" if "learning_rate=-1" in kw else "error",
        )
    case("executor", "optimizer-name-bad", "pd.optimizers.get('adamz')", ["optimizer", "adamz"])
    case(
        "executor",
        "minimize-int-loss",
        """
        v = pd.Variable("v", [2], initializer="ones")
        pd.optimizers.SGD(0.1).minimize(pd.cast(v, 'int64'), var_list=[v])""",
        ["minimize", "loss", "float", "scalar", "gradients"],
    )
    case(
        "executor",
        "minimize-non-scalar",
        """
        v = pd.Variable("v", [2], initializer="ones")
        up = pd.optimizers.SGD(0.1).minimize(v * v, var_list=[v])
        pd.eval(up)""",
        ["minimize", "loss", "scalar"],
        "either",
    )
    case(
        "executor",
        "minimize-empty-varlist",
        """
        v = pd.Variable("v", [2], initializer="ones")
        pd.optimizers.SGD(0.1).minimize(pd.sum(v), var_list=[])""",
        ["minimize", "var_list"],
        "either",
    )
    case(
        "executor",
        "feed-huge-rows-zero-width",
        """
        x = pd.data("x", [None, None])
        pd.eval(pd.sum(x, axis=1), {x: np.empty((2**40, 0), np.float32)})""",
        ["sum", "memory"],
    )
    case("executor", "seed-bad", "pd.seed('a')", ["seed"])
    case("executor", "seed-neg", "pd.seed(-1)", ["seed"], "either")
    case("executor", "fc-size-0", "pd.fc(pd.data('x', [None, 3]), size=0)", ["fc", "size"])
    case("executor", "fc-size-float", "pd.fc(pd.data('x', [None, 3]), size=2.5)", ["fc", "size"])
    case(
        "executor",
        "fc-act-bad",
        "pd.fc(pd.data('x', [None, 3]), size=2, act='nope')",
        ["fc", "act", "nope", "activation"],
    )
    case("executor", "fc-unknown-width", "pd.fc(pd.data('x', [None, None]), size=2)", ["fc"])
    case(
        "executor",
        "fc-int-input",
        "pd.fc(pd.data('x', [None, 3], 'int64'), size=2)",
        ["fc", "float", "int64", "matmul"],
    )
    case("executor", "set_omp_threads-0", "pd._C.set_omp_threads(0)", ["set_omp_threads"])


# ---- high level -------------------------------------------------------------------------

LAYER_CTORS = {
    "Dense": [
        "0",
        "-1",
        "1.5",
        "None",
        "'3'",
        "True",
        "2**40",
        "3, activation='nope'",
        "3, kernel_initializer='nope'",
        "3, use_bias='x'",
        "3, dtype='int64'",
        "3, name='a/b'",
        "3, name=5",
        "3, foo=1",
    ],
    "Activation": ["'nope'", "None", "5"],
    "Reshape": ["(-1, -1)", "(0,)", "(2.5,)", "None", "'ab'", "(-2, 3)", "(2**62, 2**62)"],
    "Permute": ["(0, 1)", "(1, 1)", "(2, 3)", "None", "(1.0, 2)"],
    "Lambda": ["None", "5"],
    "Conv1D": [
        "0, 3",
        "4, 0",
        "4, 3, strides=0",
        "4, 3, padding='full'",
        "4, 3, dilation_rate=0",
        "4, 3, groups=3",
        "4, 3, data_format='NWC'",
        "4, (3, 3)",
        "-1, 3",
        "4, 3.5",
    ],
    "Conv2D": [
        "0, 3",
        "4, 0",
        "4, 3, strides=0",
        "4, 3, padding='causal'",
        "4, 3, dilation_rate=-1",
        "4, 3, groups=3",
        "4, (3, 3, 3)",
        "4, 3, activation='nope'",
        "4.0, 3",
        "4, 3, strides=(1, 2, 3)",
        "4, 2**40",
        "None, 3",
    ],
    "Conv2DTranspose": [
        "0, 3",
        "4, 3, strides=0",
        "4, 3, output_padding=-1",
        "4, 3, strides=2, output_padding=2",
        "4, 3, output_padding=1",
        "4, 3, padding='causal'",
        "4, 3, dilation_rate=0",
    ],
    "DepthwiseConv2D": [
        "0",
        "3, depth_multiplier=0",
        "3, depth_multiplier=-1",
        "3, strides=0",
        "3, depth_multiplier=1.5",
    ],
    "MaxPooling1D": ["0", "-1", "2, strides=0", "2, padding='causal'", "(2, 2)"],
    "MaxPooling2D": [
        "0",
        "(2, 0)",
        "2, strides=-1",
        "2, padding=1",
        "2.5",
        "2, data_format='NHWC'",
    ],
    "AveragePooling1D": ["0", "2, strides=0"],
    "AveragePooling2D": ["0", "2, strides=0", "(2, 2, 2)"],
    "GlobalAveragePooling2D": ["data_format='x'", "keepdims='yes'"],
    "GlobalMaxPooling1D": ["data_format='x'"],
    "BatchNormalization": [
        "axis=1.5",
        "momentum=2.0",
        "momentum=-1",
        "epsilon=-1.0",
        "epsilon='a'",
        "axis=None",
        "momentum=float('nan')",
        "epsilon=0.0",
    ],
    "LayerNormalization": ["axis=1.5", "epsilon=-1.0", "axis=[]", "epsilon=None", "axis='a'"],
    "Dropout": ["1.0", "-0.5", "'a'", "None", "1.5", "float('nan')", "0.5, seed='x'",
                "0.5, noise_shape='ab'", "0.5, noise_shape=(None, 0)",
                "0.5, noise_shape=(None, 7)", "0.5, noise_shape=(None, 1, 1)"],
    "Embedding": [
        "0, 3",
        "5, 0",
        "-1, 3",
        "5.5, 3",
        "None, 3",
        "5, 3, embeddings_initializer='nope'",
        "2**40, 2**10",
    ],
    "LSTM": [
        "0",
        "-1",
        "2.5",
        "None",
        "4, activation='nope'",
        "4, recurrent_activation='nope'",
        "4, dropout=2.0",
        "4, return_sequences='x'",
    ],
    "GRU": ["0", "-3", "4, reset_after='x'", "4, activation=None"],
    "SimpleRNN": ["0", "4, activation='nope'"],
    "Bidirectional": [
        "pd.layers.Dense(3)",
        "None",
        "pd.layers.LSTM(3), merge_mode='bad'",
        "'lstm'",
    ],
    "Concatenate": ["axis=1.5", "axis='a'", "axis=None"],
    "Add": ["foo=1"],
    "MultiHeadAttention": [
        "0, 4",
        "2, 0",
        "-1, 4",
        "2, 4, dropout=1.5",
        "2.5, 4",
        "None, 4",
        "2, 4, value_dim=0",
    ],
}


def layer_ctor_cases():
    for layer, args_list in LAYER_CTORS.items():
        for args in args_list:
            expect = "either" if args in ("None",) and layer in ("Activation",) else "error"
            if (layer, args) in {
                ("GRU", "4, activation=None"),
                ("Conv2D", "None, 3"),
                ("BatchNormalization", "epsilon=0.0"),
                ("Conv2DTranspose", "4, 3, strides=2, output_padding=2"),
                ("Conv2DTranspose", "4, 3, output_padding=1"),
                ("Concatenate", "axis=None"),
            }:
                expect = "either"
            case(
                "layers.ctor",
                f"{layer}({args})",
                f"""
                layer = pd.layers.{layer}({args})
                # building on a plausible input makes deferred checks run too
                shape = {{"Dense": (None, 4), "Activation": (None, 4), "Reshape": (None, 4),
                          "Permute": (None, 2, 3), "Lambda": (None, 4), "Conv1D": (None, 10, 4),
                          "Conv2D": (None, 8, 8, 4), "Conv2DTranspose": (None, 5, 5, 4),
                          "DepthwiseConv2D": (None, 8, 8, 4), "MaxPooling1D": (None, 8, 3),
                          "MaxPooling2D": (None, 8, 8, 3), "AveragePooling1D": (None, 8, 3),
                          "AveragePooling2D": (None, 8, 8, 3), "GlobalAveragePooling2D": (None, 4, 4, 3),
                          "GlobalMaxPooling1D": (None, 4, 3), "BatchNormalization": (None, 4),
                          "LayerNormalization": (None, 4), "Dropout": (None, 4), "Embedding": (None, 3),
                          "LSTM": (None, 5, 3), "GRU": (None, 5, 3), "SimpleRNN": (None, 5, 3),
                          "Bidirectional": (None, 5, 3), "MultiHeadAttention": (None, 5, 8)}}.get(
                          "{layer}")
                if "{layer}" in ("Concatenate", "Add"):
                    out = layer([pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(3,))])
                elif "{layer}" == "MultiHeadAttention":
                    q = pd.layers.Input(shape=(5, 8))
                    out = layer(q, q)
                else:
                    inp = pd.layers.Input(shape=shape[1:], dtype="int64" if "{layer}" == "Embedding" else "float32")
                    out = layer(inp)
                model = pd.Model(inputs=inp if "{layer}" not in ("Concatenate", "Add", "MultiHeadAttention") else None,
                                 outputs=out) if False else None
                a = (np.ones((2,) + shape[1:], np.int64) if "{layer}" == "Embedding" else
                     rnd(2, *shape[1:])) if shape else None
                if a is not None:
                    r = layer(a, training=True)
                    for v in (r if isinstance(r, list) else [r]):
                        finite(v)""",
                [layer, "".join(w for w in layer if w.isupper()).lower(), _snake(layer)]
                + _arg_words(args),
                expect,
            )


def _snake(name):
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)).lower()


def _arg_words(args):
    words = re.findall(r"([a-z_]+)=", args)
    return words + [
        "units",
        "filters",
        "kernel_size",
        "pool_size",
        "rate",
        "dims",
        "target_shape",
        "activation",
        "input_dim",
        "output_dim",
        "num_heads",
        "key_dim",
        "function",
        "axis",
        "layer",
        "callable",
    ]


LAYER_INPUTS = {  # layer constructor -> (good input shape, bad input shapes)
    "Dense(3)": ((4,), [()]),
    "Flatten()": ((2, 3), []),
    "Reshape((3, 2))": ((6,), [(5,), (7, 1)]),
    "Reshape((-1, 2))": ((6,), [(5,)]),
    "Permute((2, 1))": ((2, 3), [(2,), (2, 3, 4)]),
    "Conv1D(4, 3)": ((10, 2), [(10,), (2, 2), (10, 2, 1)]),
    "Conv2D(4, 3)": ((8, 8, 2), [(8, 8), (2, 2, 2), (8, 8, 2, 1)]),
    "Conv2D(4, 3, groups=2)": ((8, 8, 2), [(8, 8, 3)]),
    "Conv2DTranspose(4, 3)": ((5, 5, 2), [(5, 5)]),
    "DepthwiseConv2D(3)": ((8, 8, 2), [(8, 8), (2, 2, 2)]),
    "MaxPooling1D(2)": ((8, 3), [(8,), (1, 3)]),
    "MaxPooling2D(2)": ((8, 8, 3), [(8, 8), (1, 1, 3)]),
    "AveragePooling2D(3)": ((8, 8, 3), [(2, 2, 3)]),
    "GlobalAveragePooling1D()": ((8, 3), [(8,)]),
    "GlobalMaxPooling2D()": ((4, 4, 3), [(4, 3), (0, 0, 3)]),
    "BatchNormalization()": (
        (4,),
        [
            (),
        ],
    ),
    "BatchNormalization(axis=3)": ((4, 4), []),
    "LayerNormalization()": ((4,), []),
    "Dropout(0.5)": ((4,), []),
    "Embedding(5, 3)": ((4,), []),
    "LSTM(3)": ((5, 2), [(5,), (5, 2, 1), (0, 2)]),
    "GRU(3)": ((5, 2), [(5,), (0, 2)]),
    "SimpleRNN(3)": ((5, 2), [(5,), (0, 2)]),
    "Bidirectional(pd.layers.LSTM(3))": ((5, 2), [(5,)]),
    "Activation('softmax')": ((4,), [(0,)]),
}


def layer_input_cases():
    for ctor, (good, bads) in LAYER_INPUTS.items():
        name = ctor.split("(")[0]
        who = [name, _snake(name), "input", "expected"]
        for bad in bads:
            case(
                "layers.input",
                f"{ctor}-shape{bad}",
                f"""
                layer = pd.layers.{ctor}
                layer(pd.layers.Input(shape={bad!r}))
                r = layer(np.ones((2,) + {bad!r}, np.float32))
                finite(r)""",
                who,
            )
        if name in ("Embedding", "BatchNormalization") and "axis=3" in ctor:
            case(
                "layers.input",
                f"{ctor}-axis-out",
                f"pd.layers.{ctor}(pd.layers.Input(shape={good!r}))",
                who,
            )
            continue
        case(
            "layers.input",
            f"{ctor}-rebuilt-other-width",
            f"""
            layer = pd.layers.{ctor}
            layer(pd.layers.Input(shape={good!r}))
            layer(pd.layers.Input(shape={tuple(good[:-1]) + (good[-1] + 1,)!r}))""",
            who,
            (
                "either"
                if name
                in (
                    "Flatten",
                    "Dropout",
                    "Activation",
                    "GlobalAveragePooling1D",
                    "GlobalMaxPooling2D",
                    "MaxPooling1D",
                    "MaxPooling2D",
                    "AveragePooling2D",
                    "Permute",
                    "Embedding",
                )
                else "error"
            ),
        )
        if name != "Embedding":
            case(
                "layers.input",
                f"{ctor}-int-array",
                f"""
                layer = pd.layers.{ctor}
                r = layer(np.ones((2,) + {good!r}, np.int64))""",
                who + ["float", "int64", "dtype"],
                "either",
            )
            case(
                "layers.input",
                f"{ctor}-object-array",
                f"""
                layer = pd.layers.{ctor}
                layer(np.array([[object()] * {good[-1]}] * 2))""",
                who + ["object", "numbers"],
            )
            case(
                "layers.input",
                f"{ctor}-zero-batch",
                f"""
                layer = pd.layers.{ctor}
                r = layer(np.ones((0,) + {good!r}, np.float32))
                check(r.shape[0] == 0, str(r.shape))""",
                who,
                "either",
            )
            case(
                "layers.input",
                f"{ctor}-list-input",
                f"""
                layer = pd.layers.{ctor}
                layer([[1.0] * {good[-1]}])""",
                who + ["Variable", "array"],
            )
    case(
        "layers.input",
        "Embedding-ids-out",
        """
        layer = pd.layers.Embedding(5, 3)
        layer(np.array([[0, 5]]))""",
        ["embedding", "id"],
    )
    case(
        "layers.input",
        "Embedding-float-ids",
        """
        layer = pd.layers.Embedding(5, 3)
        r = layer(np.array([[0.0, 1.5]], np.float32))""",
        ["embedding", "id", "int"],
    )
    case(
        "layers.input",
        "Embedding-negative-ids",
        """
        layer = pd.layers.Embedding(5, 3)
        layer(np.array([[-1, 2]]))""",
        ["embedding", "id"],
    )
    case(
        "layers.input",
        "Concatenate-shapes",
        """
        pd.layers.Concatenate()([pd.layers.Input(shape=(3, 2)), pd.layers.Input(shape=(4, 2))])""",
        ["concatenate", "concat"],
    )
    case(
        "layers.input",
        "Concatenate-one",
        "pd.layers.Concatenate()(pd.layers.Input(shape=(3,)))",
        ["concatenate", "list"],
    )
    case(
        "layers.input",
        "Concatenate-fed-batch",
        """
        a, b = pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(3,))
        m = pd.Model([a, b], pd.layers.Concatenate()([a, b]))
        m.predict([np.ones((2, 3), np.float32), np.ones((3, 3), np.float32)])""",
        ["concat", "samples", "batch", "input"],
    )
    case(
        "layers.input",
        "Add-shapes",
        """
        pd.layers.Add()([pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(4,))])""",
        ["add"],
    )
    case("layers.input", "Add-empty", "pd.layers.Add()([])", ["add"])
    case(
        "layers.input",
        "Multiply-one",
        "pd.layers.Multiply()([pd.layers.Input(shape=(3,))])",
        ["multiply"],
    )
    case(
        "layers.input",
        "MultiHeadAttention-dims",
        """
        mha = pd.layers.MultiHeadAttention(2, 4)
        mha(pd.layers.Input(shape=(5, 8)), pd.layers.Input(shape=(6, 7)), pd.layers.Input(shape=(7, 7)))""",
        ["multi_head_attention", "value", "key", "MultiHeadAttention"],
    )
    case(
        "layers.input",
        "MultiHeadAttention-mask-shape",
        """
        mha = pd.layers.MultiHeadAttention(2, 4)
        q = np.ones((2, 5, 8), np.float32)
        mha(q, q, attention_mask=np.ones((2, 3, 3), bool))""",
        ["multi_head_attention", "mask", "MultiHeadAttention"],
    )
    case(
        "layers.input",
        "Lambda-returns-none",
        """
        pd.layers.Lambda(lambda x: None)(pd.layers.Input(shape=(3,)))
        """,
        ["lambda", "Variable"],
        "either",
    )
    for layer, states in (("LSTM", "[h, h]"), ("GRU", "h")):
        case(
            "layers.input",
            f"{layer}-initial-state-fed-batch",
            f"""
            x, h = pd.layers.Input(shape=(5, 3)), pd.layers.Input(shape=(4,))
            out = pd.layers.{layer}(4)(x, initial_state={states})
            model = pd.Model([x, h], out)
            model.predict([rnd(6, 5, 3), rnd(2, 4)])""",
            [layer.lower(), "state", "samples", "x[1]"],
        )
        case(
            "layers.input",
            f"{layer}-initial-state-units",
            f"""
            x, h = pd.layers.Input(shape=(5, 3)), pd.layers.Input(shape=(3,))
            pd.layers.{layer}(4)(x, initial_state={states})""",
            [layer.lower(), "state"],
        )
    case(
        "layers.input",
        "MultiHeadAttention-fed-batch",
        """
        q, v = pd.layers.Input(shape=(5, 8)), pd.layers.Input(shape=(6, 8))
        model = pd.Model([q, v], pd.layers.MultiHeadAttention(2, 4)(q, v))
        model.predict_on_batch([rnd(2, 5, 8), rnd(3, 6, 8)])""",
        ["multi_head_attention", "samples", "x[1]", "matmul"],
    )
    case(
        "layers.input",
        "Embedding-model-float-feed",
        """
        i = pd.layers.Input(shape=(3,), dtype="int64")
        model = pd.Model(i, pd.layers.Embedding(5, 2)(i))
        model.predict(np.array([[0.5, 1.0, 2.0]]))""",
        ["int64", "input", "cast"],
    )
    case(
        "layers.input",
        "Embedding-model-ids-out",
        """
        i = pd.layers.Input(shape=(3,), dtype="int64")
        model = pd.Model(i, pd.layers.Embedding(5, 2)(i))
        model.predict(np.array([[0, 1, 9]]))""",
        ["embedding", "id"],
    )
    case("layers.input", "Input-shape-neg", "pd.layers.Input(shape=(-1, 3))", ["input", "shape"])
    case("layers.input", "Input-shape-float", "pd.layers.Input(shape=(2.5,))", ["input", "shape"])
    case(
        "layers.input",
        "Input-shape-none",
        "pd.layers.Input(shape=None)",
        ["input", "shape"],
        "either",
    )
    case(
        "layers.input",
        "Input-dtype-bad",
        "pd.layers.Input(shape=(2,), dtype='float16')",
        ["input", "dtype"],
    )
    case(
        "layers.input",
        "Input-batch-size-neg",
        "pd.layers.Input(shape=(2,), batch_size=-1)",
        ["input", "shape", "batch_size"],
    )
    case(
        "layers.input",
        "set_weights-count",
        "pd.layers.Dense(2)(pd.layers.Input(shape=(3,)))\n"
        "l = pd.layers.Dense(2); l(pd.layers.Input(shape=(3,))); l.set_weights([np.ones((3, 2))])",
        ["set_weights", "dense"],
    )
    case(
        "layers.input",
        "set_weights-dtype",
        """
        l = pd.layers.Dense(2); l(pd.layers.Input(shape=(3,)))
        l.set_weights([np.array([['a'] * 2] * 3), np.zeros(2)])""",
        ["set_value", "set_weights", "dense"],
    )


def _model(kind="reg"):
    if kind == "reg":
        return Setup("""
            model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3), pd.layers.Dense(1)])
            model.compile("sgd", "mse")
            x, y = rnd(16, 4), rnd(16, 1, seed=1)
        """)
    if kind == "cls":
        return Setup("""
            model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)])
            model.compile("adam", pd.losses.SparseCategoricalCrossentropy(from_logits=True),
                          metrics=["accuracy"])
            x, y = rnd(16, 4), np.arange(16) % 3
        """)
    if kind == "two":
        return Setup("""
            a, b = pd.layers.Input(shape=(4,)), pd.layers.Input(shape=(2,))
            model = pd.Model([a, b], pd.layers.Dense(1)(pd.layers.Concatenate()([a, b])))
            model.compile("sgd", "mse")
            x, y = [rnd(16, 4), rnd(16, 2)], rnd(16, 1, seed=1)
        """)
    raise ValueError(kind)


def model_cases():
    who = [
        "x",
        "y",
        "input",
        "target",
        "sample",
        "batch",
        "sequential",
        "model",
        "fit",
        "evaluate",
        "predict",
        "label",
    ]
    bad_x = {
        "ragged": "[[1, 2, 3, 4], [1, 2]]",
        "object": "np.array([[object()] * 4] * 16)",
        "strings": "np.array([['a'] * 4] * 16)",
        "empty": "np.zeros((0, 4), np.float32)",
        "none": "None",
        "scalar": "3.0",
        "dict": "{'a': x}",
        "width": "rnd(16, 5)",
        "rank3": "rnd(16, 4, 1)",
        "rank1": "rnd(16)",
        "complex": "x.astype(np.complex64)",
        "short": "x[:10]",
        "list-of-rows": "x.tolist()",
        "str": "'data.csv'",
        "generator-bad": "(i for i in range(3))",
        "int-object": "np.array([1, 'a'] * 32).reshape(16, 4)",
    }
    for method in (
        "fit",
        "evaluate",
        "predict",
        "train_on_batch",
        "test_on_batch",
        "predict_on_batch",
    ):
        takes_y = method in ("fit", "evaluate", "train_on_batch", "test_on_batch")
        for label, value in bad_x.items():
            expect = (
                "either"
                if label in ("list-of-rows",) or (not takes_y and label in ("short", "empty"))
                else "error"
            )
            call = (
                f"model.{method}({value}"
                + (", y" if takes_y else "")
                + (", verbose=0" if method in ("fit", "evaluate") else "")
                + ")"
            )
            case(
                "model.x",
                f"{method}-x-{label}",
                _model() + f"""
            r = {call}
            {'finite(r)' if method in ('predict', 'predict_on_batch') else ''}""",
                who,
                expect,
            )
    bad_y = {
        "ragged": "[[1.0], [1.0, 2.0]] * 8",
        "strings": "np.array([['a']] * 16)",
        "short": "y[:10]",
        "long": "np.concatenate([y, y])",
        "empty": "np.zeros((0, 1), np.float32)",
        "object": "np.array([[object()]] * 16)",
        "wide": "rnd(16, 3)",
        "rank1": "y[:, 0]",
        "rank3": "y[:, :, None]",
        "flat-mismatch": "rnd(16)",
        "list-two": "[y, y]",
        "nan": "np.full((16, 1), np.nan, np.float32)",
    }
    for method in ("fit", "evaluate", "train_on_batch"):
        for label, value in bad_y.items():
            expect = "either" if label in ("rank1", "flat-mismatch", "rank3", "nan") else "error"
            extra = ", verbose=0" if method != "train_on_batch" else ""
            check_loss = ""
            if label in ("rank1", "flat-mismatch", "rank3"):
                # (N,) or (N, 1, 1) targets against (N, 1) predictions: a loss of the right size
                check_loss = """
            p = model.predict(x)
            yy = np.asarray(%s, np.float64).reshape(16, -1)[:, :1]
            want = float(((p - yy) ** 2).mean())
            got = model.evaluate(x, %s, verbose=0)
            close(got, want, "mse of (N,) targets vs (N, 1) predictions", tol=1e-3)""" % (
                    value,
                    value,
                )
            case(
                "model.y",
                f"{method}-y-{label}",
                _model() + f"""
            r = model.{method}(x, {value}{extra})
            {check_loss}""",
                who + ["loss", "mean_squared_error"],
                expect,
            )
    cls = _model("cls")
    for label, value in {
        "labels-out": "np.arange(16) % 5",
        "labels-neg": "-(np.arange(16) % 3)",
        "labels-float": "(np.arange(16) % 3) + 0.5",
        "labels-onehot": "np.eye(3)[np.arange(16) % 3]",
        "labels-huge": "np.full(16, 2**40)",
        "labels-nan": "np.full(16, np.nan)",
        "labels-bool": "np.ones(16, bool)",
    }.items():
        case(
            "model.cls",
            f"fit-{label}",
            cls + f"r = model.fit(x, {value}, verbose=0, epochs=1)",
            who + ["softmax_cross_entropy", "sparse", "class", "labels"],
            "either" if label in ("labels-bool",) else "error",
        )
    for label, kw in {
        "batch-0": "batch_size=0",
        "batch-neg": "batch_size=-4",
        "batch-float": "batch_size=2.5",
        "batch-bool": "batch_size=True",
        "batch-str": "batch_size='4'",
        "epochs-neg": "epochs=-1",
        "epochs-float": "epochs=1.5",
        "epochs-str": "epochs='2'",
        "vsplit-big": "validation_split=1.5",
        "vsplit-neg": "validation_split=-0.2",
        "vsplit-one": "validation_split=1.0",
        "vsplit-str": "validation_split='a'",
        "vdata-bad": "validation_data=(x,)",
        "vdata-width": "validation_data=(rnd(4, 5), rnd(4, 1))",
        "vdata-str": "validation_data='abc'",
        "steps-0": "steps_per_epoch=0",
        "steps-neg": "steps_per_epoch=-1",
        "steps-float": "steps_per_epoch=1.5",
        "sw-short": "sample_weight=np.ones(3)",
        "sw-nan": "sample_weight=np.full(16, np.nan)",
        "sw-neg": "sample_weight=-np.ones(16)",
        "sw-2d": "sample_weight=np.ones((16, 2))",
        "sw-str": "sample_weight=np.array(['a'] * 16)",
        "class-weight-list": "class_weight=[1, 2]",
        "class-weight-neg-key": "class_weight={-1: 2.0}",
        "class-weight-str": "class_weight={'a': 2.0}",
        "class-weight-nan": "class_weight={0: float('nan')}",
        "callbacks-bad": "callbacks=[1]",
        "callbacks-not-list": "callbacks=5",
        "initial-epoch-big": "initial_epoch=5",
        "vfreq-0": "validation_freq=0, validation_split=0.25",
        "shuffle-str": "shuffle='x'",
        "vbatch-0": "validation_data=(x, y), validation_batch_size=0",
    }.items():
        expect = (
            "either"
            if label
            in (
                "sw-neg",
                "initial-epoch-big",
                "shuffle-str",
                "sw-nan",
                "class-weight-nan",
                "class-weight-list",
            )
            else "error"
        )
        base = cls if label.startswith("class-weight") else _model()
        case(
            "model.fit",
            label,
            base + f"""
            h = model.fit(x, y, verbose=0, {kw})
            for k, v in h.history.items():
                {'finite(v, k)' if expect == 'error' else 'pass'}""",
            who
            + [
                "epochs",
                "validation",
                "steps",
                "callback",
                "class_weight",
                "sample_weight",
                "verbose",
                "initial_epoch",
                "shuffle",
                "batch_size",
            ],
            expect,
        )
    for label, kw in {
        "batch-0": "batch_size=0",
        "steps-0": "steps=0",
        "steps-neg": "steps=-2",
    }.items():
        case(
            "model.predict",
            label,
            _model() + f"model.predict(x, {kw})",
            who + ["batch_size", "steps"],
        )
        case(
            "model.evaluate",
            label,
            _model() + f"model.evaluate(x, y, verbose=0, {kw})",
            who + ["batch_size", "steps"],
        )
    two = _model("two")
    for label, call in {
        "one-input": "model.fit(x[0], y, verbose=0)",
        "three-inputs": "model.fit(x + [x[1]], y, verbose=0)",
        "batch-mismatch": "model.fit([x[0], x[1][:8]], y, verbose=0)",
        "swapped": "model.fit([x[1], x[0]], y, verbose=0)",
        "predict-one": "model.predict(x[0])",
        "predict-mismatch": "model.predict([x[0][:3], x[1][:5]])",
        "predict_on_batch-mismatch": "model.predict_on_batch([x[0][:3], x[1][:5]])",
        "tuple": "model.fit(tuple(x), y, verbose=0)",
        "call-mismatch": "model([x[0][:3], x[1][:5]])",
    }.items():
        case(
            "model.inputs",
            label,
            two + call,
            who + ["inputs", "arrays"],
            "either" if label == "tuple" else "error",
        )
    case(
        "model.compile",
        "loss-bad",
        Setup(_model().replace('"sgd", "mse"', '"sgd", "nope"')) + "",
        ["loss", "nope"],
    )
    case(
        "model.compile",
        "optimizer-bad",
        Setup(_model().replace('"sgd", "mse"', '"nope", "mse"')),
        ["optimizer", "nope"],
    )
    case(
        "model.compile",
        "metrics-bad",
        Setup(_model().replace('"sgd", "mse"', '"sgd", "mse", metrics=["nope"]')),
        ["metric", "nope"],
    )
    case(
        "model.compile",
        "metrics-not-list",
        Setup(_model().replace('"sgd", "mse"', '"sgd", "mse", metrics=5')),
        ["metric"],
    )
    case(
        "model.compile",
        "loss-weights-bad",
        Setup(_model().replace('"sgd", "mse"', '"sgd", "mse", loss_weights=["a"]'))
        + "model.fit(x, y, verbose=0)",
        ["loss_weights", "weight"],
    )
    case(
        "model.compile",
        "not-compiled",
        """
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
        model.fit(rnd(4, 4), rnd(4, 1), verbose=0)""",
        ["compile"],
    )
    case("model.compile", "fit-no-y", _model() + "model.fit(x, verbose=0)", ["target", "y", "loss"])
    case(
        "model.compile",
        "crossentropy-on-regression",
        """
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
        model.compile("sgd", "sparse_categorical_crossentropy")
        model.fit(rnd(8, 4), np.arange(8) % 3, verbose=0)""",
        ["softmax_cross_entropy", "label", "class", "sparse"],
    )
    case(
        "model.compile",
        "categorical-label-width",
        """
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3, activation="softmax")])
        model.compile("sgd", "categorical_crossentropy")
        model.fit(rnd(8, 4), np.eye(4)[np.arange(8) % 4], verbose=0)""",
        ["categorical", "shape", "broadcast", "y", "target"],
    )
    case(
        "model.stream",
        "iterable-bad-batches",
        _model() + """
        model.fit([(x[:4], y[:4]), (x[:4],), "abc"], verbose=0)""",
        who + ["batch"],
    )
    case(
        "model.stream",
        "reader-ragged",
        _model() + """
        def reader():
            yield from [(np.ones(4), np.ones(1)), (np.ones(3), np.ones(1))]
        model.fit(pd.reader.batch(reader, 2), verbose=0)""",
        who + ["sample", "field", "shape"],
    )
    case(
        "model.stream",
        "reader-returns-none",
        _model() + """
        model.fit(lambda: None, verbose=0)""",
        who + ["reader", "iterator", "iterable"],
    )
    case(
        "model.stream",
        "generator-of-nan",
        _model()
        + """
        h = model.fit(((np.full((4, 4), np.nan, np.float32), y[:4]) for _ in range(2)), verbose=0)""",
        who,
        "either",
    )
    case(
        "model.stream",
        "empty-iterable",
        _model() + "model.fit([], verbose=0)",
        who + ["no batch", "empty"],
    )
    case(
        "model.stream",
        "batches-mismatch",
        _model() + """
        model.fit([(x[:4], y[:3])], verbose=0)""",
        who + ["targets"],
    )
    case(
        "model.misc",
        "predict-nan-row",
        _model() + """
        a = x.copy(); a[0, 0] = np.nan
        r = model.predict(a)
        finite(r[1:], "rows without NaN")""",
        who,
        "ok",
    )
    case(
        "model.misc",
        "fit-nan-x-loss",
        _model() + """
        a = x.copy(); a[3, 1] = np.inf
        h = model.fit(a, y, verbose=0)""",
        who,
        "either",
    )
    case("model.misc", "get_layer-bad", _model() + "model.get_layer('nope')", ["get_layer", "nope"])
    case(
        "model.misc",
        "get_layer-index",
        _model() + "model.get_layer(index=10)",
        ["get_layer", "index", "layer"],
    )
    case(
        "model.misc",
        "model-outputs-not-variable",
        "pd.Model(pd.layers.Input(shape=(2,)), 5)",
        ["Model", "output"],
    )
    case(
        "model.misc",
        "model-inputs-not-data",
        """
        i = pd.layers.Input(shape=(2,))
        d = pd.layers.Dense(1)(i)
        pd.Model(d, d)""",
        ["Model", "input"],
    )
    case("model.misc", "sequential-not-layer", "pd.Sequential([5])", ["Sequential", "Layer"])
    case("model.misc", "sequential-pop-empty", "pd.Sequential().pop()", ["Sequential", "pop"])
    case(
        "model.misc",
        "set_weights-bad",
        _model() + "model.set_weights([1, 2])",
        ["set_weights", "sequential"],
    )
    case(
        "model.misc",
        "summary-unbuilt",
        "pd.Sequential([pd.layers.Dense(2)]).summary()",
        ["sequential", "built", "input"],
        "either",
    )
    case(
        "model.misc",
        "callback-raises",
        _model() + """
        class Boom(pd.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                raise RuntimeError("boom")
        model.fit(x, y, verbose=0, callbacks=[Boom()])""",
        ["boom"],
    )


BITFLIPS = 24  # per loader; --bitflips raises it


def saving_cases():
    prep = Setup("""
        import os, tempfile
        d = tempfile.mkdtemp()
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3), pd.layers.Dense(1)])
        model.compile("adam", "mse")
        model.fit(rnd(8, 4), rnd(8, 1), verbose=0)
        path = os.path.join(d, "m.h5")
        model.save(path)
        raw = open(path, "rb").read()
        bad = os.path.join(d, "bad.h5")
    """)
    who = ["checkpoint", "h5", "hdf5", "file", "bad.h5", "load", "weights"]
    for fn in ("load_model", "load_weights"):
        call = "pd.load_model(bad)" if fn == "load_model" else "model.load_weights(bad)"
        case(
            "saving",
            f"{fn}-random-bytes",
            prep + f"""
        open(bad, "wb").write(np.random.default_rng(0).bytes(4096))
        {call}""",
            who,
        )
        case(
            "saving",
            f"{fn}-empty",
            prep + f"""
        open(bad, "wb").close()
        {call}""",
            who,
        )
        case(
            "saving",
            f"{fn}-missing",
            prep + f"""
        bad = os.path.join(d, "nope.h5")
        {call}""",
            who,
        )
        case(
            "saving",
            f"{fn}-directory",
            prep + f"""
        bad = d
        {call}""",
            who,
        )
        case(
            "saving",
            f"{fn}-path-int",
            prep + f"""
        bad = 5
        {call}""",
            who + ["path", "str"],
        )
        case(
            "saving",
            f"{fn}-path-none",
            prep + f"""
        bad = None
        {call}""",
            who + ["path", "str"],
        )
        case(
            "saving",
            f"{fn}-text-file",
            prep + f"""
        open(bad, "w").write("not hdf5")
        {call}""",
            who,
        )
        case(
            "saving",
            f"{fn}-hdf5-foreign",
            prep + f"""
        import h5py
        with h5py.File(bad, "w") as f:
            f["x"] = np.ones(3)
        {call}""",
            who,
        )
        for frac in (0.05, 0.2, 0.5, 0.8, 0.95, 0.999):
            case(
                "saving",
                f"{fn}-truncated-{frac}",
                prep + f"""
        open(bad, "wb").write(raw[:int(len(raw) * {frac})])
        {call}""",
                who,
            )
        for seed in range(BITFLIPS):
            case(
                "saving",
                f"{fn}-bitflip-{seed}",
                prep + f"""
        rng = np.random.default_rng({seed})
        data = bytearray(raw)
        for pos in rng.integers(0, len(data), {1 + seed % 4}):
            data[pos] ^= 1 << int(rng.integers(0, 8))
        open(bad, "wb").write(bytes(data))
        before = [w.copy() for w in model.get_weights()]
        try:
            m = {call}
        except Exception:
            # nothing assigned when the load fails
            for a, b in zip(before, model.get_weights()):
                check(np.array_equal(a, b), "weights changed by a failed load")
            raise
        m = m if m is not None else model
        for w in m.get_weights():
            finite(w, "loaded weight")
        for a, b in zip(pd.load_model(path).get_weights(), m.get_weights()):
            check(np.array_equal(a, b), "a bit flip changed a weight without an error")""",
                who,
                "either",
            )
    case(
        "saving",
        "load_weights-other-model",
        prep + """
        other = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(5), pd.layers.Dense(1)])
        other.load_weights(path)""",
        who + ["shape", "dense"],
    )
    case(
        "saving",
        "load_weights-fewer-layers",
        prep + """
        other = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
        other.load_weights(path)""",
        who + ["layer"],
    )
    case("saving", "save-to-directory", prep + "model.save(d)", who + ["save", "directory"])
    case("saving", "save-path-int", prep + "model.save(5)", who + ["save", "path"])
    case(
        "saving",
        "save-no-overwrite",
        prep + "model.save(path, overwrite=False)",
        who + ["exists", "overwrite"],
    )
    case(
        "saving",
        "load_model-custom-objects-bad",
        prep + "pd.load_model(path, custom_objects=5)",
        who + ["custom_objects"],
    )


def saving_more_cases():
    prep = Setup("""
        import os, tempfile
        d = tempfile.mkdtemp()
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)])
        model.compile("sgd", "mse")
    """)
    who = ["checkpoint", "h5", "file", "save", "load", "path", "folder", "directory", "weights"]
    for label, call in {
        "save-missing-folder": "model.save('/nonexistent/folder/m.h5')",
        "save-keras-extension": "model.save(os.path.join(d, 'm.keras')); pd.load_model(os.path.join(d, 'm.keras'))",
        "load-weights-file-as-model": "model.save_weights(os.path.join(d, 'w.h5')); pd.load_model(os.path.join(d, 'w.h5'))",
        "save-weights-unbuilt": "pd.Sequential([pd.layers.Dense(2)]).save_weights(os.path.join(d, 'u.h5'))",
        "load-weights-unbuilt": "model.save_weights(os.path.join(d, 'w.h5')); pd.Sequential([pd.layers.Dense(1)]).load_weights(os.path.join(d, 'w.h5'))",
        "save-read-only-folder": "os.chmod(d, 0o500); model.save(os.path.join(d, 'm.h5'))",
        "load-while-file-is-a-pipe": "os.mkfifo(os.path.join(d, 'p.h5')); pd.load_model(os.path.join(d, 'p.h5'))",
        "keras-zip-escaping-member": "import zipfile; zipfile.ZipFile(os.path.join(d, 'e.keras'), 'w').writestr('../x', b'1'); pd.load_model(os.path.join(d, 'e.keras'))",
        "keras-zip-without-config": "import zipfile; zipfile.ZipFile(os.path.join(d, 'n.keras'), 'w').writestr('a.txt', b'1'); pd.load_model(os.path.join(d, 'n.keras'))",
        "keras-weights-other-model": "model.save_weights(os.path.join(d, 'w.weights.h5')); pd.Sequential([pd.layers.Input(shape=(5,)), pd.layers.Dense(1)]).load_weights(os.path.join(d, 'w.weights.h5'))",
    }.items():
        case("saving", label, prep + call, who, "either")
    case("saving", "model-from-json-garbage", prep + "pd.models.model_from_json('[1, 2]')",
         ["model_from_json"])
    case("saving", "clone-model-not-a-model", prep + "pd.models.clone_model(5)",
         ["clone_model"])
    untrusted_file_cases()


def untrusted_file_cases():
    """Files crafted as an attacker would (docs/security.md): each must be refused with a
    CheckpointError naming what is wrong, never run code, read other files or crash."""
    prep = Setup("""
        import base64, json, os, tempfile, h5py
        d = tempfile.mkdtemp()
        path = os.path.join(d, 'm.h5')
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Lambda(lambda x: x * 2.0),
                               pd.layers.Dense(2)])
        model.save(path)
        def crafted(edit_config=None, edit_file=None):
            with h5py.File(path, 'r+') as f:
                del f.attrs['paddle_checksum'], f['model_weights'].attrs['paddle_weights_checksum']
                if edit_config:
                    config = json.loads(f.attrs['model_config'])
                    edit_config(config['config']['layers'])
                    f.attrs['model_config'] = json.dumps(config).encode()
                if edit_file:
                    edit_file(f)
            return path
        def kernel(f):
            group = f['model_weights']
            layer = [n for n in group.attrs['layer_names'] if b'dense' in n][0].decode()
            return group[layer], group[layer].attrs['weight_names'][0].decode()
        def external(f):
            g, n = kernel(f)
            shape = g[n].shape
            del g[n]
            g.create_dataset(n, shape=shape, dtype='float32', external=[('/etc/hostname', 0, 4 * shape[0] * shape[1])])
        def huge(f):
            g, n = kernel(f)
            del g[n]
            g.create_dataset(n, shape=(40000, 40000), dtype='float32', chunks=(1000, 1000), compression='gzip')
        def garbage_code(layers):
            function = layers[1]['config']['function']['config']
            function['code'] = base64.b64encode(base64.b64decode(function['code'])[:-7]).decode()
        def units(layers):
            layers[2]['config']['units'] = 10 ** 12
    """)
    who = ["checkpoint", "lambda", "safe_mode", "external", "shape", "memory", "bytecode"]
    for label, call in {
        "lambda-in-safe-mode": "pd.load_model(path)",
        "lambda-short-bytecode": "pd.load_model(crafted(garbage_code), safe_mode=False)",
        "external-storage": "pd.load_model(crafted(edit_file=external), safe_mode=False)",
        "huge-declared-dataset": "pd.load_model(crafted(edit_file=huge), safe_mode=False)",
        "units-beyond-memory": "pd.load_model(crafted(units), safe_mode=False)",
    }.items():
        case("saving.untrusted", label, prep + call, who)


def reader_cases():
    who_map = {
        "batch": "batch",
        "shuffle": "shuffle",
        "firstn": "firstn",
        "buffered": "buffered",
        "cache": "cache",
        "chain": "chain",
        "compose": "compose",
        "map_readers": "map_readers",
        "xmap_readers": "xmap_readers",
    }
    r = Setup("samples = lambda: iter(range(10))\n")
    calls = {
        "batch": [
            "samples, 0",
            "samples, -1",
            "samples, 2.5",
            "samples, None",
            "samples, True",
            "samples, '2'",
            "[1, 2, 3], 2",
            "None, 2",
            "samples, 2, drop_last='x'",
        ],
        "shuffle": ["samples, 0", "samples, -5", "samples, 1.5", "samples, None", "5, 3"],
        "firstn": ["samples, -1", "samples, 1.5", "samples, None", "samples, '3'", "None, 3"],
        "buffered": ["samples, 0", "samples, -1", "samples, 1.5", "None, 2", "samples, None"],
        "cache": ["None", "5", "[1, 2]"],
        "chain": ["", "samples, 5", "samples, None"],
        "compose": ["", "samples, 5", "samples, lambda: iter(range(3))"],
        "map_readers": ["None, samples", "lambda v: v", "lambda v: v, 5", "5, samples"],
        "xmap_readers": [
            "lambda v: v, samples, 0, 2",
            "lambda v: v, samples, 2, 0",
            "lambda v: v, samples, -1, 2",
            "None, samples, 2, 2",
            "lambda v: 1 / 0, samples, 2, 2",
            "lambda v: v, None, 2, 2",
            "lambda v: v, samples, 1.5, 2",
        ],
    }
    for fn, arg_list in calls.items():
        for args in arg_list:
            expect = "either" if (fn, args) in {("chain", ""), ("compose", "")} else "error"
            case(
                "reader",
                f"{fn}({args})",
                r + f"""
out = pd.reader.{fn}({args})
items = list(out())""",
                [who_map[fn], "reader", "callable"]
                + (["division"] if "1 / 0" in args else [])
                + (["aligned", "ComposeNotAligned"] if fn == "compose" else []),
                expect,
                own="ZeroDivisionError" if "1 / 0" in args else None,
            )
    case(
        "reader", "np_array-bad", "list(pd.reader.creator.np_array(None)())", ["np_array", "array"]
    )
    case(
        "reader",
        "np_array-rank0",
        "list(pd.reader.creator.np_array(np.float32(3))())",
        ["np_array", "array", "rank", "scalar"],
    )
    case(
        "reader",
        "text_file-missing",
        "list(pd.reader.creator.text_file('/nonexistent/x')())",
        ["text_file", "nonexistent", "No such file"],
    )
    case(
        "reader",
        "text_file-binary",
        """
        import tempfile, os
        p = os.path.join(tempfile.mkdtemp(), "b.txt")
        open(p, "wb").write(bytes(range(256)))
        list(pd.reader.creator.text_file(p)())""",
        ["text_file", "decode", "utf-8", "b.txt"],
    )
    case(
        "reader",
        "reader-raises",
        """
        def bad():
            yield 1
            raise RuntimeError("disk gone")
        list(pd.reader.buffered(bad, 2)())""",
        ["disk gone"],
    )
    case(
        "reader",
        "reader-not-iterator",
        "list(pd.reader.batch(lambda: 5, 2)())",
        ["batch", "reader", "iter"],
    )
    case(
        "reader",
        "to_arrays-ragged",
        "pd.reader.to_arrays([(np.ones(3), 1), (np.ones(2), 0)])",
        ["to_arrays", "field", "sample", "shape"],
    )
    case(
        "reader",
        "to_arrays-empty",
        "pd.reader.to_arrays([])",
        ["to_arrays", "empty", "sample"],
        "either",
    )
    case(
        "reader",
        "to_arrays-strings",
        "pd.reader.to_arrays([('a', 1), ('b', 0)])",
        ["to_arrays", "field", "number"],
        "either",
    )
    case(
        "reader",
        "to_arrays-mixed-fields",
        "pd.reader.to_arrays([(1, 2), (1,)])",
        ["to_arrays", "field", "sample"],
    )
    case(
        "reader", "iter_batches-bad", "list(pd.reader.iter_batches(5))", ["iter_batches", "reader"]
    )


def graph_cases():
    case(
        "graph",
        "deep-chain-eval",
        """
        x = pd.data("x", [None, 2])
        y = x
        for _ in range(20000):
            y = y + 1.0
        close(pd.eval(y, {x: np.zeros((1, 2), np.float32)}), np.full((1, 2), 20000.0))""",
        "eval",
        "ok",
    )
    case(
        "graph",
        "deep-chain-gradients",
        """
        v = pd.Variable("v", [2], initializer="ones")
        y = v
        for _ in range(5000):
            y = y * 1.0
        g, = pd.gradients(pd.sum(y), [v])
        close(pd.eval(g), np.ones(2))""",
        "gradients",
        "ok",
    )
    case(
        "graph",
        "wide-concat",
        """
        xs = [pd.constant(np.full((1, 1), i, np.float32)) for i in range(3000)]
        close(pd.eval(pd.concat(xs, 1)), np.arange(3000, dtype=np.float32)[None])""",
        "concat",
        "ok",
    )
    case(
        "graph",
        "variable-value-replaced",
        """
        w = pd.Variable("w", [3, 2], initializer="ones")
        x = pd.data("x", [None, 3])
        y = x @ w
        w.value = np.ones((4, 2), np.float32)
        pd.eval(y, {x: np.ones((1, 3), np.float32)})""",
        ["matmul", "'w'", "w"],
    )
    case(
        "graph",
        "variable-value-rebound-after-a-run",
        """
        w = pd.Variable("w", [3, 2], initializer="ones")
        x = pd.data("x", [None, 3])
        y = x @ w
        pd.eval(y, {x: np.ones((1, 3), np.float32)})
        w.value = np.full((3, 2), 5, np.float32)
        close(pd.eval(y, {x: np.ones((1, 3), np.float32)}), np.full((1, 2), 15.0))""",
        ["set_value", "'w'"],
        "either",
    )
    case(
        "graph",
        "variable-value-noncontiguous",
        """
        w = pd.Variable("w", [3, 2], initializer="ones")
        x = pd.data("x", [None, 3])
        y = x @ w
        w.value = np.ones((2, 3), np.float32).T
        r = pd.eval(y, {x: np.ones((1, 3), np.float32)})
        close(r, np.full((1, 2), 3.0))""",
        ["matmul", "'w'", "contiguous"],
        "either",
    )
    case(
        "graph",
        "variable-value-wrong-dtype",
        """
        w = pd.Variable("w", [3, 2], initializer="ones")
        y = pd.data("x", [None, 3]) @ w
        w.value = np.ones((3, 2), np.int64)  # cast as set_value does
        close(pd.eval(y, {"x": np.ones((1, 3), np.float32)}), np.full((1, 2), 3.0))""",
        ["set_value", "'w'", "dtype"],
        "either",
    )
    case(
        "graph",
        "two-threads-one-graph",
        """
        import threading
        x = pd.data("x", [None, 64])
        w = pd.Variable("w", [64, 64])
        y = x
        for _ in range(20):
            y = pd.tanh(y @ w)
        feeds = [rnd(8, 64, seed=s) for s in range(2)]
        wants = [pd.eval(y, {x: a}) for a in feeds]
        wrong = []
        def work(a, want):
            wrong.extend(1 for _ in range(300) if not np.array_equal(pd.eval(y, {x: a}), want))
        ts = [threading.Thread(target=work, args=p) for p in zip(feeds, wants)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        check(not wrong, f"{len(wrong)} of 600 results from two threads were wrong")""",
        "eval",
        "ok",
    )
    case(
        "graph",
        "feed-mutated-between-runs",
        """
        x = pd.data("x", [None, 3])
        y = pd.sum(x, axis=1)
        a = np.ones((2, 3), np.float32)
        r1 = pd.eval(y, {x: a})
        a[:] = 2
        close(pd.eval(y, {x: a}), np.full(2, 6.0))
        close(r1, np.full(2, 3.0), "an earlier result changed")""",
        "eval",
        "ok",
    )


SWEEP = 40  # random configurations per kernel family; --sweep raises it


def sweep_cases():
    """Random (seeded) geometries compared with NumPy: odd strides, paddings, dilations,
    groups, broadcasts and axes, sizes big enough to be split over OpenMP threads."""
    import random

    rng = random.Random(1234)
    for i in range(SWEEP):
        n, c_per_g, groups = rng.choice([1, 2, 3]), rng.choice([1, 2, 3]), rng.choice([1, 1, 2, 3])
        kh, kw = rng.randint(1, 4), rng.randint(1, 4)
        dh, dw = rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2])
        sh, sw = rng.choice([1, 1, 2, 3]), rng.choice([1, 2, 4])
        h, w = rng.randint((kh - 1) * dh + 1, 20), rng.randint((kw - 1) * dw + 1, 24)
        co = groups * rng.choice([1, 2, 5])
        pad = rng.choice(
            [
                "'valid'",
                "'same'",
                f"(({rng.randint(0, 3)}, {rng.randint(0, 3)}), "
                f"({rng.randint(0, 3)}, {rng.randint(0, 3)}))",
            ]
        )
        big = rng.random() < 0.25
        if big:  # big enough for several blocks and both OpenMP threads
            n, h, w = 8, max(h, 28), max(w, 28)
        xs, ws = (n, h, w, c_per_g * groups), (kh, kw, c_per_g, co)
        case(
            "sweep",
            f"conv2d-{i}",
            f"""
            a, w = rnd(*{xs}, dtype="float64"), rnd(*{ws}, seed=1, dtype="float64")
            pad = {pad}
            if pad == "same":
                pads = tuple(same_pads(n, k, s, d) for n, k, s, d in zip({xs}[1:3], {ws}[:2],
                                                                       ({sh}, {sw}), ({dh}, {dw})))
            elif pad == "valid":
                pads = ((0, 0), (0, 0))
            else:
                pads = pad
            ref = ref_conv2d(a, w, ({sh}, {sw}), pads, ({dh}, {dw}), {groups})
            if min(ref.shape[1:3]) < 1:
                raise ValueError("conv2d: the window is larger than the padded input (sweep)")
            x, wv = pd.constant(a, "float64"), pd.constant(w, "float64")
            y = pd.conv2d(x, wv, strides=({sh}, {sw}), padding=pad, dilation=({dh}, {dw}),
                          groups={groups})
            close(pd.eval(y), ref, tol=1e-8)
            gy = rnd(*ref.shape, seed=2, dtype="float64")
            dx, dw_ = pd.eval(pd.gradients(pd.sum(y * pd.constant(gy, "float64")), [x, wv]))
            lhs = float((ref * gy).sum())
            close(float((dx * a).sum()), lhs, "input gradient (adjoint identity)", tol=1e-6)
            close(float((dw_ * w).sum()), lhs, "filter gradient (adjoint identity)", tol=1e-6)""",
            ["conv2d", "window"],
            "either",
        )
    for i in range(SWEEP):
        kh, kw = rng.randint(1, 4), rng.randint(1, 4)
        sh, sw = rng.randint(1, 4), rng.randint(1, 4)
        h, w = rng.randint(kh, 30), rng.randint(kw, 30)
        n, c = rng.choice([1, 2, 16]), rng.choice([1, 3, 8])
        pad = rng.choice(["valid", "same"])
        kind = rng.choice(["max", "avg"])
        case(
            "sweep",
            f"{kind}_pool2d-{i}",
            f"""
            a = rnd({n}, {h}, {w}, {c}, dtype="float64")
            a[..., 0] = np.round(a[..., 0])  # ties: the first maximum takes the gradient
            pads = ((0, 0), (0, 0)) if "{pad}" == "valid" else tuple(
                same_pads(n, k, s) for n, k, s in zip(({h}, {w}), ({kh}, {kw}), ({sh}, {sw})))
            x = pd.constant(a, "float64")
            y = pd.{kind}_pool2d(x, ({kh}, {kw}), strides=({sh}, {sw}), padding="{pad}")
            close(pd.eval(y), ref_pool(a, ({kh}, {kw}), ({sh}, {sw}), pads, "{kind}"), tol=1e-10)
            g, = pd.gradients(pd.sum(y), [x])
            if "{kind}" == "max":
                close(pd.eval(g), ref_max_pool_grad(a, ({kh}, {kw}), ({sh}, {sw}), pads), "gradient")
            else:
                close(float(pd.eval(g).sum()), float(np.prod(pd.eval(y).shape)), "gradient sum")""",
            [f"{kind}_pool2d"],
            "ok",
        )
    for i in range(SWEEP):
        rank = rng.randint(1, 5)
        shape = [rng.choice([1, 1, 2, 3, 5, 7, 64]) for _ in range(rank)]
        other = [d if rng.random() < 0.6 else 1 for d in shape][rng.randint(0, rank - 1) :]
        op = rng.choice(["add", "sub", "mul", "maximum", "minimum", "less", "equal"])
        dt = rng.choice(["float32", "float64", "int64", "int32"])
        ref = {
            "add": "a + b",
            "sub": "a - b",
            "mul": "a * b",
            "maximum": "np.maximum(a, b)",
            "minimum": "np.minimum(a, b)",
            "less": "a < b",
            "equal": "a == b",
        }[op]
        swap = rng.random() < 0.5
        case(
            "sweep",
            f"{op}-broadcast-{i}",
            f"""
            a = (rnd(*{shape}) * 5).astype("{dt}")
            b = (rnd(*{other}, seed=1) * 5).astype("{dt}")
            {'a, b = b, a' if swap else ''}
            x, z = pd.data("x", list(a.shape), "{dt}"), pd.data("z", list(b.shape), "{dt}")
            close(pd.eval(pd.{op}(x, z), {{x: a, z: b}}), {ref})""",
            op,
            "ok",
        )
    for i in range(SWEEP):
        rank = rng.randint(1, 5)
        shape = [rng.choice([1, 2, 3, 4, 33]) for _ in range(rank)]
        axes = tuple(sorted(rng.sample(range(rank), rng.randint(1, rank))))
        op = rng.choice(["sum", "mean", "max", "min"])
        keep = rng.random() < 0.5
        case(
            "sweep",
            f"{op}-axes-{i}",
            f"""
            a = rnd(*{shape}, dtype="float64")
            r = pd.eval(pd.{op}(pd.constant(a, "float64"), axis={axes}, keepdims={keep}))
            close(r, np.{op}(a, axis={axes}, keepdims={keep}), tol=1e-10)""",
            op,
            "ok",
        )
    for i in range(SWEEP):
        rank = rng.randint(2, 5)
        shape = [rng.choice([1, 2, 3, 5, 40]) for _ in range(rank)]
        perm = list(range(rank))
        rng.shuffle(perm)
        index = tuple(
            rng.choice(
                [
                    f"{rng.randint(0, d - 1)}",
                    f"{rng.randint(0, d)}:",
                    f"::{rng.randint(1, 3)}",
                    f"{rng.randint(0, d)}:{rng.randint(0, d)}:" f"{rng.randint(1, 2)}",
                ]
            )
            for d in shape
        )
        case(
            "sweep",
            f"copies-{i}",
            f"""
            a = rnd(*{shape}, dtype="float64")
            x = pd.constant(a, "float64")
            close(pd.eval(pd.transpose(x, {perm})), np.transpose(a, {perm}))
            close(pd.eval(x[{", ".join(index)}]), a[{", ".join(index)}])
            parts = pd.split(x, [1, {shape[0]} - 1], axis=0)
            close(pd.eval(pd.concat(parts[::-1], axis=0)), np.concatenate([a[1:], a[:1]]))
            close(pd.eval(pd.pad(x, [(1, 0)] + [(0, 2)] * {rank - 1}, 3.0)),
                  np.pad(a, [(1, 0)] + [(0, 2)] * {rank - 1}, constant_values=3.0))""",
            ["transpose", "slice", "split", "concat", "pad"],
            "ok",
        )
    for i in range(SWEEP):
        ba = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))]
        bb = [rng.choice([1, d]) for d in ba][rng.randint(0, len(ba)) if ba else 0 :]
        m, k, n = rng.choice([1, 2, 7, 65]), rng.choice([1, 3, 64]), rng.choice([1, 2, 9])
        ta, tb = rng.random() < 0.5, rng.random() < 0.5
        sa = ba + ([k, m] if ta else [m, k])
        sb = bb + ([n, k] if tb else [k, n])
        case(
            "sweep",
            f"matmul-{i}",
            f"""
            a, b = rnd(*{sa}, dtype="float64"), rnd(*{sb}, seed=1, dtype="float64")
            r = pd.eval(pd.matmul(pd.constant(a, "float64"), pd.constant(b, "float64"),
                                  transpose_a={ta}, transpose_b={tb}))
            close(r, np.matmul(np.swapaxes(a, -1, -2) if {ta} else a,
                               np.swapaxes(b, -1, -2) if {tb} else b), tol=1e-9)""",
            "matmul",
            "ok",
        )


def sweep_more_cases():
    import random

    rng = random.Random(99)
    for i in range(SWEEP):
        kind = rng.choice(["lstm", "gru", "gru_classic"])
        n, t, f, u = (
            rng.choice([1, 2, 3, 64]),
            rng.choice([1, 2, 7]),
            rng.choice([1, 3]),
            rng.choice([1, 2, 5]),
        )
        g = 4 if kind == "lstm" else 3
        bshape = (2, g * u) if kind == "gru" else (g * u,)
        states = rng.random() < 0.5
        op = "lstm" if kind == "lstm" else "gru"
        extra = ", reset_after=False" if kind == "gru_classic" else ""
        init = (
            (
                "[pd.constant(h0, 'float64'), pd.constant(c0, 'float64')]"
                if kind == "lstm"
                else "pd.constant(h0, 'float64')"
            )
            if states
            else "None"
        )
        case(
            "sweep",
            f"{kind}-{i}",
            f"""
            a = rnd({n}, {t}, {f}, dtype="float64")
            W, R = rnd({f}, {g * u}, seed=1, dtype="float64"), rnd({u}, {g * u}, seed=2, dtype="float64")
            b = rnd(*{bshape}, seed=3, dtype="float64")
            h0, c0 = rnd({n}, {u}, seed=4, dtype="float64"), rnd({n}, {u}, seed=5, dtype="float64")
            x, Wv = pd.constant(a, "float64"), pd.constant(W, "float64")
            y = pd.{op}(x, Wv, pd.constant(R, "float64"), pd.constant(b, "float64"),
                        initial_state={init}, return_sequences=True{extra})
            want = ref_rnn("{kind}", a, W, R, b, *((h0, c0) if {states} else ()))
            close(pd.eval(y), want, tol=1e-9)
            # the gradient along a random direction against central differences
            gy = rnd(*want.shape, seed=6, dtype="float64")
            dx, dW = pd.eval(pd.gradients(pd.sum(y * pd.constant(gy, "float64")), [x, Wv]))
            eps = 1e-6
            for arr, grad, what in ((a, dx, "x"), (W, dW, "kernel")):
                v = rnd(*arr.shape, seed=7, dtype="float64")
                def loss(arr2):
                    args = (arr2, W) if what == "x" else (a, arr2)
                    return float((ref_rnn("{kind}", *args, R, b, *((h0, c0) if {states} else ()))
                                  * gy).sum())
                num = (loss(arr + eps * v) - loss(arr - eps * v)) / (2 * eps)
                close(float((grad * v).sum()), num, f"gradient of {{what}}", tol=1e-5)""",
            [op],
            "ok",
        )
    for i in range(SWEEP):
        rank = rng.randint(1, 4)
        shape = [rng.choice([1, 2, 5, 40]) for _ in range(rank)]
        axis = rng.randint(-rank, rank - 1)
        training = rng.random() < 0.6
        case(
            "sweep",
            f"batch_norm-{i}",
            f"""
            a = rnd(*{shape}, dtype="float64") * 3 + 2
            c = a.shape[{axis}]
            x = pd.constant(a, "float64")
            mm = pd.Variable("mm", [c], "float64", initializer="zeros", trainable=False)
            mv = pd.Variable("mv", [c], "float64", initializer="ones", trainable=False)
            scale = pd.constant(rnd(c, seed=1, dtype="float64"), "float64")
            y = pd.batch_norm(x, scale, None, mm, mv, momentum=0.5, epsilon=1e-3, axis={axis})
            r = pd.eval(y, training={training})
            axes = tuple(k for k in range(a.ndim) if k != {axis} % a.ndim)
            keep = [1] * a.ndim
            keep[{axis}] = c
            sc = rnd(c, seed=1, dtype="float64").reshape(keep)
            if {training}:
                m, v = a.mean(axes, keepdims=True), a.var(axes, keepdims=True)
                close(r, (a - m) / np.sqrt(v + 1e-3) * sc, tol=1e-8)
                close(mm.val(), 0.5 * m.ravel(), "moving mean", tol=1e-8)
                close(mv.val(), 0.5 + 0.5 * v.ravel(), "moving variance", tol=1e-8)
            else:
                close(r, a / np.sqrt(1 + 1e-3) * sc, tol=1e-8)""",
            "batch_norm",
            "ok",
        )
    for i in range(SWEEP):
        rows, dim = rng.choice([1, 3, 50]), rng.choice([1, 4, 33])
        ids_shape = [rng.choice([1, 2, 7]) for _ in range(rng.randint(1, 3))]
        case(
            "sweep",
            f"embedding-{i}",
            f"""
            table = rnd({rows}, {dim}, dtype="float64")
            ids = np.random.default_rng({i}).integers(0, {rows}, {ids_shape})
            t = pd.constant(table, "float64")
            y = pd.embedding(pd.constant(ids), t)
            close(pd.eval(y), table[ids])
            gy = rnd(*{ids_shape}, {dim}, seed=1, dtype="float64")
            g, = pd.gradients(pd.sum(y * pd.constant(gy, "float64")), [t])
            want = np.zeros_like(table)
            np.add.at(want, ids.ravel(), gy.reshape(-1, {dim}))
            close(pd.eval(g), want, "scatter-added gradient", tol=1e-10)""",
            "embedding",
            "ok",
        )
    for i in range(SWEEP):
        n, c = rng.choice([1, 3, 100]), rng.choice([1, 2, 10, 1000])
        case(
            "sweep",
            f"softmax_xent-{i}",
            f"""
            a = rnd({n}, {c}, dtype="float64") * 20
            labels = np.random.default_rng({i}).integers(0, {c}, {n})
            r = pd.eval(pd.softmax_cross_entropy(pd.constant(a, "float64"), pd.constant(labels)))
            m = a.max(-1, keepdims=True)
            want = np.log(np.exp(a - m).sum(-1)) + m[:, 0] - a[np.arange({n}), labels]
            close(r, want, tol=1e-9)
            close(pd.eval(pd.softmax(pd.constant(a, "float64"))),
                  np.exp(a - m) / np.exp(a - m).sum(-1, keepdims=True), tol=1e-12)
            acc = pd.eval(pd.accuracy(pd.constant(a, "float64"), pd.constant(labels)))
            close(acc, (a.argmax(-1) == labels).mean())""",
            ["softmax", "accuracy"],
            "ok",
        )
    for i in range(SWEEP):
        groups = 1  # conv2d_transpose has no groups
        cin, co = rng.choice([1, 3]), rng.choice([1, 2])
        k, s = rng.choice([1, 2, 3, 5]), rng.choice([1, 2, 3])
        h, w = rng.randint(1, 9), rng.randint(1, 9)
        pad = rng.choice(["valid", "same"])
        case(
            "sweep",
            f"conv2d_transpose-{i}",
            f"""
            a, w = rnd(2, {h}, {w}, {co}, dtype="float64"), rnd({k}, {k}, {cin // groups}, {co}, seed=1,
                                                              dtype="float64")
            # conv2d_transpose with filters (k, k, out, in) transposes conv2d(y, filters)
            y = pd.conv2d_transpose(pd.constant(a, "float64"), pd.constant(w, "float64"),
                                    strides={s}, padding="{pad}") if {groups} == 1 else None
            if y is None:
                raise ValueError("conv2d_transpose: groups (sweep: not a layer option)")
            r = pd.eval(y)
            b = rnd(*r.shape, seed=2, dtype="float64")
            pads = ((0, 0), (0, 0)) if "{pad}" == "valid" else tuple(
                same_pads(n, {k}, {s}) for n in r.shape[1:3])
            fwd = ref_conv2d(b, w, ({s}, {s}), pads)
            check(fwd.shape == a.shape, f"the output's convolution is {{fwd.shape}}, not {{a.shape}}")
            close(float((r * b).sum()), float((fwd * a).sum()), "adjoint identity", tol=1e-8)""",
            "conv2d_transpose",
            "either",
        )


def internal_cases():
    """The C++ kernels called directly with specs that lie: the second line of defence
    must refuse them (not a public API, but nothing may corrupt memory)."""
    big = "2**62"
    calls = {
        "conv2d-size-overflow": f"""
            spec = np.array([{big}, 4, 1, 1, 4, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1], np.int64)
            e = np.zeros(0, np.float32)
            pd._C.conv2d(e, np.ones(1, np.float32), e, e, spec, np.zeros(16, np.float32))""",
        "conv2d-backprop-input-size-overflow": f"""
            spec = np.array([{big}, 4, 1, 1, 4, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1], np.int64)
            e = np.zeros(0, np.float32)
            pd._C.conv2d_backprop_input(e, np.ones(1, np.float32), e, spec, np.zeros(16, np.float32))""",
        "max_pool2d-size-overflow": f"""
            spec = np.array([{big}, 4, 1, 1, 4, 1, 1, 1, 1, 1, 0, 0], np.int64)
            e = np.zeros(0, np.float32)
            pd._C.max_pool2d(e, e, np.zeros(0, np.int32), spec)""",
        "avg_pool2d_grad-size-overflow": f"""
            spec = np.array([{big}, 4, 1, 1, 4, 1, 1, 1, 1, 1, 0, 0], np.int64)
            e = np.zeros(0, np.float32)
            pd._C.avg_pool2d_grad(e, e, spec)""",
        "strided_copy-extent-overflow": f"""
            spec = np.array([2, 2, 2, {big}, {big}, 1, 1, 0, 0], np.int64)
            pd._C.strided_copy(np.ones(4, np.float32), np.ones(4, np.float32), spec)""",
        "strided_copy-offset-overflow": f"""
            spec = np.array([1, 2, 1, 1, {big} * 2 - 1, 0], np.int64)
            pd._C.strided_copy(np.ones(4, np.float32), np.ones(4, np.float32), spec)""",
        "matmul-size-overflow": f"""
            spec = np.array([{big}, 4, 1, 1, 0, 0] + [0] * 0, np.int64)
            pd._C.matmul(np.ones(4, np.float32), np.ones(4, np.float32), np.ones(0, np.float32), spec)""",
        "matmul-offset-overflow": f"""
            spec = np.array([1, 2, 2, 2, 0, 0, {big} * 2 - 1, 0], np.int64)
            pd._C.matmul(np.ones(4, np.float32), np.ones(4, np.float32), np.ones(4, np.float32), spec)""",
        "gather-size-overflow": f"""
            pd._C.gather(np.zeros(0, np.float32), np.zeros(4, np.int64), np.zeros(0, np.float32),
                         {big}, 4, 1)""",
        "scatter_add-size-overflow": f"""
            pd._C.scatter_add(np.zeros(0, np.float32), np.zeros(4, np.int64), np.zeros(0, np.float32),
                              {big}, 4, 1)""",
        "reduce-size-overflow": f"""
            pd._C.reduce(0, np.zeros(0, np.float32), np.zeros(0, np.float32), {big}, 4, 1, 1.0)""",
        "argmax-size-overflow": f"""
            pd._C.argmax(np.zeros(0, np.float32), np.zeros(0, np.int64), {big}, 4, 1)""",
        "one_hot-size-overflow": f"""
            pd._C.one_hot(np.zeros(4, np.int64), np.zeros(0, np.float32), {big})""",
        "softmax-negative-cols": """
            pd._C.softmax(np.ones(4, np.float32), np.ones(4, np.float32), -2, False)""",
        "in_top_k-k-negative": """
            pd._C.in_top_k(np.ones((2, 3), np.float32), np.zeros(2, np.int64), np.ones(2, np.float32), 3, -5)""",
        "batch_norm-size-overflow": f"""
            e = np.zeros(0, np.float32); c = np.ones(4, np.float32)
            pd._C.batch_norm(e, c, c, c, c, e, c.copy(), c.copy(), {big}, 4, 1, 0.9, 1e-3, True)""",
        "binary-layout-overflow": f"""
            lay = np.array([2, {big}, 4, 0, 0, 0, 0], np.int64)
            e = np.zeros(0, np.float32)
            pd._C.binary(0, np.ones(1, np.float32), np.ones(1, np.float32), e, lay)""",
        "binary-layout-stride-outside": """
            lay = np.array([1, 4, 5, 1], np.int64)
            pd._C.binary(0, np.ones(4, np.float32), np.ones(4, np.float32), np.ones(4, np.float32), lay)""",
        "rnn_forward-state-size": """
            x = np.ones((2, 3, 2), np.float32); w = np.ones((2, 8), np.float32); r = np.ones((2, 8), np.float32)
            b = np.ones(8, np.float32); h0 = np.ones(2, np.float32)
            pd._C.rnn_forward(0, x, w, r, b, h0, h0, np.ones((2, 3, 2), np.float32),
                              np.ones((2, 3, 2), np.float32), np.ones((2, 3, 8), np.float32),
                              np.empty(0, np.float32), np.empty(0, np.float32))""",
        "embedding-table-noncontiguous": """
            t = np.ones((4, 6), np.float32)[:, ::2]
            pd._C.embedding(np.zeros(3, np.int64), t, np.zeros((3, 3), np.float32))""",
        "dropout-out-readonly": """
            y = np.zeros(4, np.float32); y.flags.writeable = False
            pd._C.dropout(np.ones(4, np.float32), y, np.zeros(4, np.float32), 0.5, 1)""",
    }
    for label, code in calls.items():
        op = label.split("-")[0]
        case(
            "internal",
            label,
            code,
            [
                op,
                "spec",
                "size",
                "overflow",
                "elements",
                "outside",
                "malformed",
                "contiguous",
                "read-only",
                "k",
            ],
        )


# ---- issue 16's catalogue: pd.utils, pd.random, new layers, optimizers, metrics ----------

CATALOG_LAYERS = {
    # layer: (input shape without the batch, [bad constructor arguments])
    "ReLU": ((4,), ["max_value=-1", "negative_slope=-0.5", "threshold=None", "max_value='a'"]),
    "LeakyReLU": ((4,), ["negative_slope=-1", "negative_slope='a'"]),
    "PReLU": ((4,), ["shared_axes=[0]", "shared_axes='x'", "alpha_initializer='nope'",
                     "shared_axes=[5]"]),
    "ELU": ((4,), ["alpha=None", "alpha='a'"]),
    "Softmax": ((4,), ["axis='a'", "axis=[]", "axis=5", "axis=[1, 9]"]),
    "UpSampling1D": ((3, 2), ["0", "-1", "2.5", "None"]),
    "UpSampling2D": ((3, 3, 2), ["0", "(2, 0)", "(2, 2, 2)", "interpolation='cubic'",
                                "data_format='NHWC'", "2**40"]),
    "ZeroPadding1D": ((3, 2), ["-1", "(1, 2, 3)", "'a'", "1.5"]),
    "ZeroPadding2D": ((3, 3, 2), ["-1", "((1, 2, 3), 1)", "(1, 2, 3)", "data_format='x'",
                                 "2**62"]),
    "Cropping1D": ((3, 2), ["-1", "(2, 1)", "(5, 0)", "'a'"]),
    "Cropping2D": ((3, 3, 2), ["-1", "((2, 1), (0, 0))", "(3, 3)", "data_format='x'"]),
    "RepeatVector": ((4,), ["0", "-2", "2.0", "None", "2**62"]),
    "TimeDistributed": ((3, 4), ["None", "3", "'dense'"]),
    "SpatialDropout1D": ((3, 2), ["1.0", "-0.1", "'a'", "0.5, seed='x'", "0.5, seed=-1"]),
    "SpatialDropout2D": ((3, 3, 2), ["1.0", "0.5, data_format='x'"]),
    "GaussianNoise": ((4,), ["-1.0", "float('inf')", "'a'", "None"]),
    "GaussianDropout": ((4,), ["1.0", "-0.5", "float('nan')"]),
    "Subtract": (None, ["foo=1"]),
    "Dot": (None, ["axes='a'", "axes=(1, 2, 3)", "axes=0", "axes=1, normalize='x'"]),
}


def catalog_cases():
    for layer, (shape, bad) in CATALOG_LAYERS.items():
        for args in bad:
            merge = shape is None
            case(
                "catalog.layers",
                f"{layer}({args})",
                f"""
                layer = pd.layers.{layer}({args})
                if {merge}:
                    out = layer([pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(3,))])
                    layer([rnd(2, 3), rnd(2, 3)])
                else:
                    out = layer(pd.layers.Input(shape={shape}))
                    finite(layer(rnd(2, *{shape}), training=True))""",
                [layer, _snake(layer).replace("re_lu", "relu"), _snake(layer)]
                + _arg_words(args),
            )
    # layers fed inputs of the wrong rank or unknown sizes
    for layer, args, shape in [
        ("UpSampling2D", "", "(3, 4)"), ("UpSampling2D", "", "(None, 4, 2)"),
        ("Cropping1D", "(2, 3)", "(5, 2)"), ("RepeatVector", "2", "(3, 4)"),
        ("TimeDistributed", "pd.layers.Dense(2)", "(4,)"),
        ("TimeDistributed", "pd.layers.Dense(2)", "(None, 4)"),
        ("SpatialDropout1D", "0.5", "(4,)"), ("PReLU", "", "(None, 2)"),
        ("ZeroPadding2D", "", "(3,)"),
    ]:
        case(
            "catalog.inputs",
            f"{layer}({args})-on-{shape}",
            f"pd.layers.{layer}({args})(pd.layers.Input(shape={shape}))",
            [layer, _snake(layer), "rank", "known", "cropping"],
        )
    for call in [
        "pd.layers.dot([pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(4,))], axes=1)",
        "pd.layers.subtract([pd.layers.Input(shape=(3,))] * 3)",
        "pd.layers.average([pd.layers.Input(shape=(3,))])",
        "pd.layers.maximum([pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(4,))])",
    ]:
        case("catalog.inputs", call[10:50], call,
             ["dot", "subtract", "average", "maximum"])
    # pd.random
    for call in [
        "pd.random.normal((2, -1))", "pd.random.normal('3')", "pd.random.normal((None, 2))",
        "pd.random.normal((2,), stddev=-1.0)", "pd.random.normal((2,), mean=float('nan'))",
        "pd.random.normal((2,), dtype='int32')", "pd.random.normal((2,), seed=-1)",
        "pd.random.uniform((2,), 1.0, 1.0)", "pd.random.uniform((2,), 0.0, float('inf'))",
        "pd.random.randint((2,), 0, 0)", "pd.random.randint((2,), 0.5, 2)",
        "pd.random.randint((2,), 0, 2, dtype='bool')",
        "pd.random.truncated_normal((2,), seed='a')",
        "pd.random.dropout(pd.constant(np.ones((2, 3))), 1.0)",
        "pd.random.dropout(pd.constant(np.ones((2, 3))), 0.5, noise_shape=(2, 2))",
        "pd.random.dropout(pd.constant(np.ones((2, 3), np.int64)), 0.5)",
        "pd.random.SeedGenerator(2**63)", "pd.random.SeedGenerator('a')",
        "pd.random.normal((None, 3), like=pd.data('x', [None, 3, 1]))",
        "pd.random.shuffle(pd.constant(np.ones((2, 3))), axis=2)",
        "pd.random.shuffle(pd.constant(1.0))", "pd.random.shuffle(pd.constant(np.ones(3)), axis='0')",
    ]:
        case("catalog.random", call[10:60], call,
             ["pd.random", "SeedGenerator", "shape", "seed", "dtype"])
    # pd.utils
    for call in [
        "pd.utils.to_categorical([0, 3], num_classes=3)", "pd.utils.to_categorical([-1])",
        "pd.utils.to_categorical([0.5])", "pd.utils.to_categorical(['a'])",
        "pd.utils.to_categorical([0], num_classes=0)", "pd.utils.to_categorical([[0], [1, 2]])",
        "pd.utils.pad_sequences(3)", "pd.utils.pad_sequences([[1], 2])",
        "pd.utils.pad_sequences([[1, 2]], padding='middle')",
        "pd.utils.pad_sequences([[1, 2]], maxlen=-1)",
        "pd.utils.pad_sequences([[1, 2]], value='x')",
        "pd.utils.pad_sequences([np.ones((1, 3)), np.ones((1, 2))])",
        "pd.utils.pad_sequences([[1]], dtype='nope')",
        "pd.utils.normalize(np.ones((2, 2)), axis=3)", "pd.utils.normalize(np.ones(2), order=0)",
        "pd.utils.normalize(np.array(['a']))",
        "pd.utils.set_random_seed(-1)", "pd.utils.set_random_seed(1.5)",
        "pd.utils.PyDataset(workers=0)", "pd.utils.PyDataset(max_queue_size='2')",
    ]:
        case("catalog.utils", call[9:60], call,
             ["to_categorical", "pad_sequences", "normalize", "set_random_seed", "PyDataset"])
    case(
        "catalog.utils",
        "fit-on-a-bad-pydataset",
        """
        class Bad(pd.utils.PyDataset):
            def __len__(self):
                return -3
            def __getitem__(self, i):
                return rnd(2, 3), rnd(2, 1)
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
        model.compile("sgd", "mse")
        model.fit(Bad(), verbose=0)""",
        ["Bad", "__len__", "batches"],
    )
    # optimizers and schedules
    for opt, kw in [
        ("SGD", "clipnorm=1.0, global_clipnorm=1.0"), ("Adam", "clipvalue=-1.0"),
        ("Adam", "global_clipnorm=float('nan')"), ("RMSprop", "weight_decay=-0.1"),
        ("RMSprop", "centered='yes'"), ("Adamax", "beta_1=1.0"), ("Nadam", "epsilon=0"),
        ("Lion", "beta_1=0.0"), ("Lion", "beta_2=1.5"), ("Ftrl", "learning_rate_power=0.5"),
        ("Ftrl", "l1_regularization_strength=-1"), ("Ftrl", "learning_rate=0.0"),
        ("AdamW", "weight_decay=None"), ("Nadam", "weight_decay='a'"),
    ]:
        case(
            "catalog.optimizers",
            f"{opt}({kw})",
            f"""
            v = pd.Variable("v", [2], initializer="ones")
            up = pd.optimizers.{opt}({kw}).minimize(pd.sum(v * v), var_list=[v])
            for _ in range(3):
                pd.eval(up)
            finite(v.val(), "parameter after steps")""",
            [opt, kw.split("=")[0], "learning rate"],
        )
    for sched in [
        "PolynomialDecay(0.1, decay_steps=0)", "PolynomialDecay(0.1, 10, power=-1)",
        "InverseTimeDecay(0.1, 0, 0.5)", "InverseTimeDecay(0.1, 2, -0.5)",
        "CosineDecay(0.1, 10, warmup_steps=-1)", "CosineDecay(0.1, 10, warmup_target='a')",
        "CosineDecayRestarts(0.1, 0)", "CosineDecayRestarts(0.1, 5, t_mul=0)",
        "CosineDecayRestarts(0.1, 5, m_mul=float('nan'))",
    ]:
        case("catalog.optimizers", sched, f"pd.optimizers.schedules.{sched}",
             [sched.split("(")[0]])
    # metrics and losses
    for call in [
        "pd.metrics.Precision(thresholds=1.5)", "pd.metrics.Recall(top_k=0)",
        "pd.metrics.Recall(class_id=-1)", "pd.metrics.F1Score(average='mean')",
        "pd.metrics.FBetaScore(beta=0)", "pd.metrics.AUC(num_thresholds=1)",
        "pd.metrics.AUC(curve='roc')", "pd.metrics.AUC(summation_method='x')",
        "pd.metrics.AUC(thresholds=[0.5, 2.0])", "pd.metrics.CosineSimilarity(axis=None)",
        "pd.losses.CosineSimilarity(axis='a')", "pd.losses.KLDivergence(reduction='mean')",
        "pd.metrics.F1Score().update_state(np.ones(4), np.ones(4))",
        "pd.metrics.Precision(class_id=5).update_state(np.ones((2, 3)), np.ones((2, 3)))",
        "pd.losses.poisson(np.ones((2, 3)), np.ones((2, 4)))",
        "pd.metrics.AUC().update_state(np.ones((2, 3)), np.ones((2, 4)))",
        "pd.losses.BinaryFocalCrossentropy(gamma=-1)",
        "pd.losses.CategoricalFocalCrossentropy(alpha=float('nan'))",
        "pd.losses.Dice(axis='all')", "pd.losses.Tversky(beta=-1)",
        "pd.losses.Hinge(reduction='mean')", "pd.losses.CategoricalGeneralizedCrossEntropy(q=0)",
        "pd.losses.categorical_generalized_cross_entropy(np.zeros((2, 3)), np.ones((2, 3)), 0.5)",
        "pd.losses.deserialize({'config': {}})", "pd.metrics.deserialize(3)",
        "pd.losses.dice(np.ones((2, 3)), np.ones((2, 3)), axis=5)",
        "pd.losses.categorical_hinge(np.ones((2, 3)), np.ones((2, 4)))",
        "pd.losses.binary_focal_crossentropy(np.ones((2, 3)), np.ones((2, 3), np.int64))",
        "pd.metrics.R2Score(class_aggregation='mean')", "pd.metrics.R2Score(num_regressors=-1)",
        "pd.metrics.R2Score().update_state(np.ones(4), np.ones(4))",
        "pd.metrics.PearsonCorrelation(axis='x')",
        "pd.metrics.BinaryCrossentropy(label_smoothing=2)",
        "pd.metrics.Hinge().update_state(np.ones((2, 3)), np.ones((2, 4)))",
        "pd.metrics.TruePositives(thresholds=[0.5, 1.5])",
        "pd.metrics.FalseNegatives(thresholds=[])",
        "pd.metrics.PrecisionAtRecall(1.5)", "pd.metrics.RecallAtPrecision(0.5, num_thresholds=0)",
        "pd.metrics.SensitivityAtSpecificity(0.5, class_id=7).update_state(np.ones((2, 3)), np.ones((2, 3)))",
        "pd.metrics.IoU(num_classes=3, target_class_ids=[3])", "pd.metrics.MeanIoU(num_classes=0)",
        "pd.metrics.MeanIoU(num_classes=2, ignore_class='void')",
        "pd.metrics.BinaryIoU(threshold=None)",
        "pd.metrics.MeanIoU(num_classes=2).update_state(np.zeros(4), np.zeros(6))",
        "pd.metrics.OneHotMeanIoU(num_classes=2, axis=3).update_state(np.eye(2), np.eye(2))",
    ]:
        name = call.split("(")[0].split(".")[-1]
        case("catalog.metrics", call[3:60], call, [name, _snake(name), "auc", "f1_score"])
    # class ids outside [0, num_classes) leave the counts, as Keras: no error, a right result
    case("catalog.metrics", "MeanIoU-ids-out-of-range", """
        m = pd.metrics.MeanIoU(num_classes=3)
        m.update_state(np.array([-5, 9, 1, 2]), np.array([1e9, -1, 1, 0]))
        check(m.total_cm.sum() == 2 and m.total_cm[1, 1] == 1 and m.total_cm[2, 0] == 1,
              "only the in-range pairs counted")
        check(abs(m.result() - 1.0 / 3.0) < 1e-6, "the mean IoU of the counted pairs")""",
         ["MeanIoU"], expect="ok")


def activation_cases():
    """pd.activations' newer functions with bad arguments and inputs: each error names the
    function, the argument and the value."""
    for call in [
        "pd.activations.celu(np.ones(3, np.float32), alpha=0)",
        "pd.activations.celu(np.ones(3, np.float32), alpha=float('nan'))",
        "pd.activations.hard_shrink(np.ones(3, np.float32), threshold=-1)",
        "pd.activations.soft_shrink(np.ones(3, np.float32), threshold='a')",
        "pd.activations.squareplus(np.ones(3, np.float32), b=-4)",
        "pd.activations.threshold(np.ones(3, np.float32), 0.5, None)",
        "pd.activations.glu(np.ones(3, np.float32))",
        "pd.activations.glu(np.ones((2, 4), np.float32), axis=2)",
        "pd.activations.sparsemax(np.ones(3, np.float32), axis=True)",
        "pd.activations.sparse_plus(np.arange(3))",
    ]:
        name = call.split("(")[0].split(".")[-1]
        case("catalog.activations", call[15:60], call, [name])


def watch_ship_cases():
    """TensorBoard, plot_model, plot_history and model.export on bad input (they need the
    tensorboard, plot and onnx extras; where one is missing its ImportError says so)."""
    prep = Setup("""
        import os, tempfile
        d = tempfile.mkdtemp()
        model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(1)], name="fuzzed")
        model.compile("sgd", "mse")
        x, y = np.ones((4, 4), np.float32), np.ones((4, 1), np.float32)
        open(os.path.join(d, "file"), "w").close()
    """)
    who = ["tensorboard", "log_dir", "histogram_freq", "update_freq", "write_graph"]
    for label, call in {
        "log-dir-is-a-file": "model.fit(x, y, verbose=0, callbacks=[pd.callbacks.TensorBoard(os.path.join(d, 'file'))])",
        "log-dir-under-a-file": "model.fit(x, y, verbose=0, callbacks=[pd.callbacks.TensorBoard(os.path.join(d, 'file', 'logs'))])",
        "log-dir-not-a-path": "pd.callbacks.TensorBoard(log_dir=3.5)",
        "histogram-freq-negative": "pd.callbacks.TensorBoard(d, histogram_freq=-2)",
        "update-freq-word": "pd.callbacks.TensorBoard(d, update_freq='step')",
        "update-freq-zero": "pd.callbacks.TensorBoard(d, update_freq=0)",
        "write-graph-string": "pd.callbacks.TensorBoard(d, write_graph='no')",
    }.items():
        case("tensorboard", label, prep + call, who)
    who = ["plot_model", "model_to_dot", "plot_history", "model", "history", "to_file",
           "rankdir", "fuzzed"]
    for label, call in {
        "unbuilt-sequential": "pd.utils.plot_model(pd.Sequential([pd.layers.Dense(2)]), os.path.join(d, 'm.png'))",
        "a-layer-not-a-model": "pd.utils.plot_model(pd.layers.Dense(2), os.path.join(d, 'm.png'))",
        "unknown-extension": "pd.utils.plot_model(model, os.path.join(d, 'm.bmp'))",
        "missing-folder": "pd.utils.plot_model(model, os.path.join(d, 'no', 'm.dot'))",
        "rankdir-word": "pd.utils.model_to_dot(model, rankdir='up')",
        "history-empty": "pd.utils.plot_history({}, os.path.join(d, 'h.png'))",
        "history-a-list": "pd.utils.plot_history([1.0, 0.5], os.path.join(d, 'h.png'))",
        "history-strings": "pd.utils.plot_history({'loss': ['a']}, os.path.join(d, 'h.png'))",
        "history-unknown-metric": "pd.utils.plot_history({'loss': [1.0]}, os.path.join(d, 'h.png'), metrics='auc')",
    }.items():
        case("plots", label, prep + call, who)
    who = ["export", "fuzzed", "format", "filepath", "opset", "layer", "model"]
    for label, call in {
        "unbuilt-sequential": "pd.Sequential([pd.layers.Dense(2)]).export(os.path.join(d, 'm.onnx'))",
        "unknown-format": "model.export(os.path.join(d, 'm.tflite'), format='tflite')",
        "path-not-a-path": "model.export(12)",
        "missing-folder": "model.export(os.path.join(d, 'no', 'm.onnx'))",
        "old-opset": "model.export(os.path.join(d, 'm.onnx'), opset_version=9)",
        "lambda-layer": "pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Lambda(lambda t: t * 2.0)], name='fuzzed').export(os.path.join(d, 'm.onnx'))",
        "attention-layer": "q = pd.Input(shape=(4, 8)); pd.Model(q, pd.layers.MultiHeadAttention(2, 4)(q, q), name='fuzzed').export(os.path.join(d, 'm.onnx'))",
        "custom-activation": "pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(2, activation=lambda t: t * pd.sigmoid(t))], name='fuzzed').export(os.path.join(d, 'm.onnx'))",
        "ops-outside-layers": "i = pd.Input(shape=(3,)); pd.Model(i, pd.layers.Dense(2)(i) * 3.0, name='fuzzed').export(os.path.join(d, 'm.onnx'))",
        "transpose-conv-unknown-size": "i = pd.Input(shape=(None, None, 2)); pd.Model(i, pd.layers.Conv2DTranspose(2, 3)(i), name='fuzzed').export(os.path.join(d, 'm.onnx'))",
    }.items():
        case("export", label, prep + call + "\ncheck(not os.path.exists(os.path.join(d, 'm.onnx')), 'a partial file was left')", who)


GENERATORS = [
    lowlevel_unary_cases,
    lowlevel_binary_cases,
    lowlevel_matmul_reduce_cases,
    lowlevel_shape_cases,
    lowlevel_loss_cases,
    lowlevel_nn_cases,
    executor_cases,
    graph_cases,
    layer_ctor_cases,
    layer_input_cases,
    model_cases,
    saving_cases,
    saving_more_cases,
    reader_cases,
    internal_cases,
    catalog_cases,
    activation_cases,
    watch_ship_cases,
    sweep_cases,
    sweep_more_cases,
]


# ---- command line -----------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--filter", default="", help="run cases whose name contains this")
    parser.add_argument("--jobs", type=int, default=2, help="children at a time")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    parser.add_argument("--memory-gb", type=float, default=4.0, help="address space per case")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--show", metavar="NAME", help="print one case's snippet")
    parser.add_argument("--run", metavar="NAME", help="run one case in this process")
    parser.add_argument("--all", action="store_true", help="print every case's outcome")
    parser.add_argument("--json", metavar="PATH", help="write {case: [outcome, detail]} here")
    parser.add_argument(
        "--bitflips", type=int, default=BITFLIPS, help="damaged copies of a saved model per loader"
    )
    parser.add_argument(
        "--sweep", type=int, default=SWEEP, help="random geometries per kernel family"
    )
    args = parser.parse_args(argv)
    globals()["BITFLIPS"], globals()["SWEEP"] = args.bitflips, args.sweep

    for gen in GENERATORS:
        gen()
    by_name = {c.name: c for c in CASES}
    if args.list:
        for c in CASES:
            print(c.name)
        return 0
    if args.show or args.run:
        c = by_name.get(args.show or args.run)
        if c is None:
            print(f"no case named {args.show or args.run!r}", file=sys.stderr)
            return 2
        print(c.code)
        if args.run:
            scope = {}
            exec(PRELUDE, scope)
            exec(compile(c.code, f"<{c.name}>", "exec"), scope)
            print("-- ran without an exception")
        return 0

    cases = [c for c in CASES if args.filter in c.name]
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    import numpy  # noqa: F401  (children inherit the imports: each case starts in ms)
    import paddle  # noqa: F401

    done = [0]

    def progress(c, result):
        done[0] += 1
        if result[0] != "OK" or args.all:
            print(
                f"[{done[0]}/{len(cases)}] {result[0]:11} {c.name}: {result[1][:300]}", flush=True
            )

    start = time.monotonic()
    results = run_cases(cases, args.jobs, args.timeout, args.memory_gb, progress)
    counts = {}
    for c in cases:
        outcome = results[c.name][0]
        counts.setdefault(c.area, dict.fromkeys(OUTCOMES, 0))[outcome] += 1
    print(f"\n{len(cases)} cases in {time.monotonic() - start:.0f} s")
    print(f"{'area':16}" + "".join(f"{o:>13}" for o in OUTCOMES))
    for area, row in counts.items():
        print(f"{area:16}" + "".join(f"{row[o]:>13}" for o in OUTCOMES))
    total = {o: sum(row[o] for row in counts.values()) for o in OUTCOMES}
    print(f"{'total':16}" + "".join(f"{total[o]:>13}" for o in OUTCOMES))
    bad = [c for c in cases if results[c.name][0] in ("CRASH", "HANG", "GARBAGE")]
    for c in bad:
        print(f"\n--- {results[c.name][0]}: {c.name}\n{results[c.name][1]}\n{c.code}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({c.name: results[c.name] for c in cases}, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
