"""A Lambda's function as JSON (its marshalled bytecode), and the checks that bytecode from
a file passes before it becomes a function again.

Loading bytecode runs code: whatever the function does, it does when the model is rebuilt.
So loaders refuse it by default (`safe_mode=True`, as in Keras 3); a caller who trusts
the file passes `safe_mode=False`. Even then the bytecode is checked first, because the
interpreter trusts a code object completely: a `LOAD_CONST` index past `co_consts`, a
stack deeper than `co_stacksize` or a jump into the middle of an instruction reads or
writes outside the interpreter's arrays and crashes the process. `load_function` checks
every instruction's operand against the table it indexes, the stack depth along every
path, jump and exception-handler targets, and the types of the constants and names, for
the code and every code object nested in it; anything wrong is a `CheckpointError`.

Example:
    >>> from paddle.highlevel.layers import bytecode
    >>> from paddle.highlevel.saving.serialization import safe_mode_scope
    >>> spec = bytecode.dump_function(lambda x, k=2: x * k)
    >>> with safe_mode_scope(False):
    ...     bytecode.load_function(spec, "lambda")(3)
    6
    >>> with safe_mode_scope(True):
    ...     bytecode.load_function(spec, "lambda")
    Traceback (most recent call last):
        ...
    paddle.errors.CheckpointError: Lambda layer 'lambda': its function is stored as Python bytecode, and loading it runs that code; this is refused in safe mode. If you trust the file, load it with safe_mode=False
"""
import base64
import binascii
import dis
import marshal
import sys
import types
import weakref

import numpy

from paddle.errors import CheckpointError
from paddle.highlevel.saving.serialization import in_safe_mode

FUNCTION_CLASS = "__function__"
PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"  # marshal's format is per version

# Instructions after which execution does not fall through to the next one.
_NO_FALLTHROUGH = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE",
                   "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT",
                   "JUMP_ABSOLUTE", "JUMP", "JUMP_NO_INTERRUPT"}
_JUMPS = set(dis.hasjrel) | set(dis.hasjabs)
_CONSTANT_TYPES = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))


# ---- dumping and loading ----------------------------------------------------------------

def dump_function(function):
    """A JSON-friendly form of a function: its marshalled code, defaults and closure."""
    code = getattr(function, "__code__", None)
    if code is None:
        raise TypeError(f"Lambda: cannot serialize {function!r}: only Python functions")
    closure = [c.cell_contents for c in function.__closure__ or ()]
    spec = {"class_name": FUNCTION_CLASS, "config": {
        "code": base64.b64encode(marshal.dumps(code)).decode("ascii"),
        "defaults": list(function.__defaults__ or ()), "closure": closure,
        "module": function.__module__, "python": PYTHON}}
    _remember(spec["config"], function)
    return spec


# Functions this process turned into configs (or loaded from trusted ones), by their
# marshalled code: a config given back unchanged is the caller's own function, not code
# from a file. Weak: a function no longer alive is forgotten.
_OWN = weakref.WeakValueDictionary()


def _remember(config, function):
    _OWN[config["code"]] = function


def _own_function(config):
    """The live function whose config `config` is, unchanged, or None."""
    function = _OWN.get(config.get("code"))
    if function is None:
        return None
    closure = [c.cell_contents for c in function.__closure__ or ()]
    same = _equal(list(config.get("defaults") or ()), list(function.__defaults__ or ())) and \
        _equal(list(config.get("closure") or ()), closure)
    return function if same else None


def _equal(a, b):
    """a == b for config values (arrays compare by identity: their == is elementwise)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        try:
            if x is not y and not bool(x == y):
                return False
        except (TypeError, ValueError):
            return False
    return True


def load_function(spec, layer_name):
    """The function `dump_function` described, its bytecode checked first.

    Raises:
        CheckpointError: in safe mode (always); outside any scope, for bytecode this
            process did not write; or the bytecode is from another Python version, does
            not unmarshal, or fails a check.
    """
    where = f"Lambda layer {layer_name!r}"
    safe_mode = in_safe_mode()
    if safe_mode:
        raise CheckpointError(
            f"{where}: its function is stored as Python bytecode, and loading it runs that "
            "code; this is refused in safe mode. If you trust the file, load it with "
            "safe_mode=False")
    config = spec.get("config", spec) if isinstance(spec, dict) else None
    if not isinstance(config, dict) or not isinstance(config.get("code"), str):
        raise CheckpointError(f"{where}: expected the function as {{'code': base64 text, "
                              f"...}}, received {str(spec)[:80]!r}")
    if safe_mode is None:  # no loader said whether the config is trusted
        own = _own_function(config)
        if own is None:
            raise CheckpointError(
                f"{where}: its function is stored as Python bytecode that this process did "
                "not write, and loading it runs that code; outside a loader's "
                "safe_mode=False this is refused (as Keras 3's Lambda.from_config refuses "
                "it). If you trust the config, rebuild it within "
                "paddle.highlevel.saving.serialization.safe_mode_scope(False), or load its file "
                "with safe_mode=False")
        return own
    saved_by = config.get("python", PYTHON)
    if saved_by != PYTHON:
        raise CheckpointError(f"{where}: the function's bytecode was saved by Python "
                              f"{saved_by}; this is Python {PYTHON}, which cannot run it")
    try:
        code = marshal.loads(base64.b64decode(config["code"], validate=True))
    except (EOFError, ValueError, TypeError, binascii.Error) as e:
        raise CheckpointError(f"{where}: the function's bytecode is damaged "
                              f"({type(e).__name__}: {e})") from None
    if not isinstance(code, types.CodeType):
        raise CheckpointError(f"{where}: expected a code object in the function's bytecode, "
                              f"received {type(code).__name__}")
    code = checked_code(code, where)
    function = _make_function(code, config, where)
    _remember(config, function)  # trusted by the caller: its config may be given back
    return function


def _make_function(code, config, where):
    defaults, closure = config.get("defaults") or (), config.get("closure") or ()
    if not isinstance(defaults, (list, tuple)) or not isinstance(closure, (list, tuple)):
        raise CheckpointError(f"{where}: the function's defaults and closure must be lists, "
                              f"received {defaults!r} and {closure!r}")
    if len(closure) != len(code.co_freevars):
        raise CheckpointError(f"{where}: the function reads {len(code.co_freevars)} "
                              f"variables of its closure {code.co_freevars}, the file holds "
                              f"{len(closure)} values")
    module = sys.modules.get(config.get("module") or "") \
        if isinstance(config.get("module"), str) else None
    # The root package is loaded by now (it loads this module); it is found, not imported,
    # so that this module stays below it.
    scope = dict(vars(module)) if module is not None else {"pd": sys.modules["paddle"],
                                                           "np": numpy}
    cells = tuple(types.CellType(v) for v in closure) or None
    return types.FunctionType(code, scope, code.co_name, tuple(defaults) or None, cells)


# ---- checking a code object -------------------------------------------------------------

def checked_code(code, where):
    """A copy of `code` rebuilt from its plain instructions, after checking it and every
    code object among its constants (CheckpointError naming `where` on the first fault)."""
    consts = tuple(checked_code(c, where) if isinstance(c, types.CodeType) else
                   _checked_constant(c, code, where) for c in code.co_consts)
    # co_code gives the instructions without the interpreter's specialized forms and
    # with zeroed inline caches: a copy built from it runs no cached guess of the file's.
    code = code.replace(co_code=code.co_code, co_consts=consts)
    for field in ("co_names", "co_varnames", "co_freevars", "co_cellvars"):
        names = getattr(code, field)
        if not all(type(n) is str for n in names):
            raise _fault(where, code, f"{field} holds a name that is not a str")
    _check_layout(code, where)
    instructions = _instructions(code, where)
    _check_operands(code, instructions, where)
    _check_stack(code, instructions, where)
    return code


def _checked_constant(value, code, where):
    if isinstance(value, (tuple, frozenset)):
        for item in value:
            _checked_constant(item, code, where)
    elif not isinstance(value, _CONSTANT_TYPES):
        raise _fault(where, code, f"a constant of type {type(value).__name__}, which Python "
                                  "never compiles into code")
    return value


def _fault(where, code, what):
    return CheckpointError(f"{where}: the function's bytecode is damaged or crafted: "
                           f"{getattr(code, 'co_name', '?')!r}: {what}")


def _check_layout(code, where):
    """Every instruction slot holds a known opcode, followed by the inline cache entries
    that opcode owns (dis skips cache slots, and the interpreter aborts on reaching one)."""
    raw, offset = code.co_code, 0
    while offset < len(raw):
        op = raw[offset]
        if dis.opname[op].startswith("<") or dis.opname[op] == "CACHE":
            raise _fault(where, code, f"unknown opcode {op} at offset {offset}")
        offset += 2 * (1 + _cache_entries(op))
    if offset != len(raw):
        raise _fault(where, code, "its instructions end in the middle of an instruction")


def _cache_entries(op):
    table = getattr(dis, "_inline_cache_entries", None)  # Python 3.11+: a list, 3.13: a dict
    if table is None:
        return 0
    return table.get(dis.opname[op], 0) if isinstance(table, dict) else table[op]


def _instructions(code, where):
    """dis's reading of the code; it resolves every const, name, local and free-variable
    operand in the tables the interpreter indexes, so an index past one is an IndexError
    here and an out-of-bounds read there."""
    try:
        instructions = list(dis.get_instructions(code))
    except (IndexError, KeyError, ValueError) as e:
        raise _fault(where, code, f"an operand indexes past its table "
                                  f"({type(e).__name__}: {e})") from None
    if not instructions:
        raise _fault(where, code, "it holds no instruction")
    return instructions


def _check_operands(code, instructions, where):
    offsets = {i.offset for i in instructions}
    for ins in instructions:
        if ins.opname.startswith("<"):
            raise _fault(where, code, f"unknown opcode {ins.opcode} at offset {ins.offset}")
        if ins.opcode in _JUMPS and ins.argval not in offsets:
            raise _fault(where, code, f"{ins.opname} at offset {ins.offset} jumps to "
                                      f"{ins.argval!r}, which starts no instruction")
        if ins.opname == "COPY_FREE_VARS" and ins.arg != len(code.co_freevars):
            raise _fault(where, code, f"COPY_FREE_VARS {ins.arg} for "
                                      f"{len(code.co_freevars)} free variables")
    for entry in _exception_table(code, where):
        if entry.target not in offsets or not 0 <= entry.start < entry.end <= \
                len(code.co_code):
            raise _fault(where, code, f"an exception handler at {entry.target} for "
                                      f"[{entry.start}, {entry.end}) lies outside its code")


def _exception_table(code, where):
    parse = getattr(dis, "_parse_exception_table", None)  # Python 3.11+
    if parse is None:
        return []
    try:
        return parse(code)
    except (IndexError, ValueError) as e:
        raise _fault(where, code, f"its exception table is damaged ({e})") from None


def _effect(ins, jump, code, where):
    if ins.opname == "RETURN_GENERATOR":
        return 1  # the generator is resumed with the sent value on its stack (POP_TOP next)
    try:
        if ins.opcode < dis.HAVE_ARGUMENT:
            return dis.stack_effect(ins.opcode)
        return dis.stack_effect(ins.opcode, ins.arg, jump=jump)
    except ValueError as e:
        raise _fault(where, code, f"{ins.opname} at offset {ins.offset}: {e}") from None


def _check_stack(code, instructions, where):
    """Walk every path (from the start and from each exception handler) with its stack
    depth: never below zero, never past co_stacksize (the frame's stack is allocated at
    that size and not checked again), the same depth wherever paths meet (as the compiler
    makes it), and no path running off the end of the code."""
    position = {ins.offset: k for k, ins in enumerate(instructions)}
    starts = [(0, 0)] + [(e.target, e.depth + 1 + int(e.lasti))
                         for e in _exception_table(code, where)]
    depth_at, pending = {}, list(starts)
    while pending:
        offset, depth = pending.pop()
        k = position.get(offset)
        if k is None:
            raise _fault(where, code, f"a path reaches offset {offset}, which starts no "
                                      "instruction")
        while True:
            ins = instructions[k]
            if ins.offset in depth_at:
                if depth_at[ins.offset] != depth:
                    raise _fault(where, code, f"paths meet at offset {ins.offset} with "
                                              f"stack depths {depth_at[ins.offset]} and {depth}")
                break
            if not 0 <= depth <= code.co_stacksize:
                raise _fault(where, code, f"the stack reaches depth {depth} at offset "
                                          f"{ins.offset}; the code declares "
                                          f"co_stacksize={code.co_stacksize}")
            depth_at[ins.offset] = depth
            if ins.opcode in _JUMPS:
                pending.append((ins.argval, depth + _effect(ins, True, code, where)))
            if ins.opname in _NO_FALLTHROUGH:
                break
            depth += _effect(ins, False, code, where)
            k += 1
            if k == len(instructions):
                raise _fault(where, code, "execution runs past its last instruction")
