"""The shared core: a case (a snippet, who its error must name, what is expected) and the
list every area module adds its cases to."""

import textwrap


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
