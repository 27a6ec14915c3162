"""Running cases: each in a forked child with its address space and time capped, and the
classification of what happened (OK, BAD MESSAGE, CRASH, HANG, GARBAGE)."""

import json
import os
import re
import resource
import signal
import tempfile
import time
import traceback

from .prelude import PRELUDE


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
