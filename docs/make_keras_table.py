#!/usr/bin/env python3
"""Writes the tables of docs/keras.md: every public path of Keras 3 and what paddle has.

    python docs/make_keras_table.py          # rewrite the tables in docs/keras.md
    python docs/make_keras_table.py --check  # exit 1 if docs/keras.md is out of date

Rows come from docs/keras_features.json (every public module of Keras and its names and
signatures, written by tools/keras_catalogue.py from an installed Keras). Each row's status
is read from paddle itself, so it stays true as names are added: a Keras path
`keras.<module>.<name>` is present when `paddle.<module>.<name>` resolves and is not a stub
(a callable whose body raises NotImplementedError unconditionally counts as missing);
a present name is "same" when paddle's signature accepts Keras's arguments with Keras's
defaults, "differs" when it does not (the "arguments" column says how) or when
docs/keras_status.toml holds a curated note for it ("differs: <how>", what a Keras user
must know that signatures cannot tell). The page shows the coverage (present of all) per
module and in total, target 90%. tests/test_keras_table.py checks that docs/keras.md is
what this script writes (so the page fails its test when paddle changes under it) and
that every curated note belongs to a name paddle has. Only the part between the two
GENERATED markers is rewritten; the prose around is by hand.
"""
import ast
import importlib
import inspect
import json
import os
import re
import sys
import textwrap

import paddle as pd

DOCS = os.path.dirname(os.path.abspath(__file__))
CATALOGUE = os.path.join(DOCS, "keras_features.json")
STATUS = os.path.join(DOCS, "keras_status.toml")
PAGE = os.path.join(DOCS, "keras.md")
BEGIN = "<!-- BEGIN GENERATED TABLES (docs/make_keras_table.py) -->"
END = "<!-- END GENERATED TABLES -->"
MEMBER_CATEGORIES = ("Model", "Layer")
PRESENT = object()  # what paddle_object gives for a name that is there but holds None


def load_catalogue():
    with open(CATALOGUE) as f:
        return json.load(f)


def load_status():
    """{category: {name: status}} from docs/keras_status.toml. The file is TOML, in the
    subset read here (tomllib is Python 3.11+): `[section]` or `["section"]` headers,
    `name = "text"` (or `"name" = "text"`) lines with JSON-compatible strings, `#` comments."""
    status, section = {}, None
    with open(STATUS) as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            header = re.fullmatch(r'\[(?:"([^"]+)"|([A-Za-z_][A-Za-z0-9_.]*))\]', line)
            pair = re.fullmatch(r'(?:"([^"]+)"|([A-Za-z_][A-Za-z0-9_]*))\s*=\s*(".*")', line)
            if header:
                section = header.group(1) or header.group(2)
                if section in status:
                    raise ValueError(f"keras_status.toml:{number}: [{section}] twice")
                status[section] = {}
            elif pair and section is not None:
                name = pair.group(1) or pair.group(2)
                if name in status[section]:
                    raise ValueError(f"keras_status.toml:{number}: {name} twice in [{section}]")
                status[section][name] = json.loads(pair.group(3))
            else:
                raise ValueError(f"keras_status.toml:{number}: expected [section] or "
                                 f'name = "status", received {line!r}')
    return status


def parse_status(text):
    """("differs", note) from a curated note; the file holds nothing else (presence and
    sameness are read from paddle)."""
    word, _, note = text.partition(":")
    word, note = word.strip(), note.strip()
    if word != "differs" or not note:
        raise ValueError(f"keras_status.toml: expected 'differs: <how>' (whether a name is "
                         f"present is read from paddle), received {text!r}")
    return word, note


def is_stub(obj):
    """True for a function (a class: its `__init__`) whose body raises NotImplementedError
    unconditionally: a name that is there only to raise is not present."""
    target = obj
    if inspect.isclass(obj):
        target = next((vars(k)["__init__"] for k in obj.__mro__
                       if "__init__" in vars(k) and k is not object), None)
    target = inspect.unwrap(target) if callable(target) else None
    if not (inspect.isfunction(target) or inspect.ismethod(target)):
        return False
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(target)))
    except (OSError, TypeError, SyntaxError):
        return False
    func = tree.body[0] if tree.body else None
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    for statement in func.body:  # only the top level: a raise under an `if` is a check
        if isinstance(statement, ast.Raise) and statement.exc is not None:
            exc = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                return True
    return False


def paddle_namespace(category):
    """The paddle module a catalogue category maps to (None: paddle has no such module).
    A submodule counts whether or not something imported it already."""
    if category == "top level":
        return pd
    try:
        importlib.import_module(f"paddle.{category}")
    except ImportError:
        return None
    # The path must resolve as attributes too (`pd.ops.numpy`), as a Keras user writes it.
    obj = pd
    for part in category.split("."):
        obj = getattr(obj, part, None)
        if obj is None or not inspect.ismodule(obj):
            return None
    return obj


def _sample_instances():
    """A compiled functional model and a bare layer: some members are set per instance."""
    inp = pd.Input(shape=(3,))
    model = pd.Model(inp, pd.layers.Dense(2)(inp))
    model.compile(optimizer="adam", loss="mse")
    return {"Model": (pd.Model, model), "Layer": (pd.layers.Layer, pd.layers.Layer())}


_INSTANCES = {}


def paddle_object(category, name, keras_kind):
    """What paddle has under Keras's name, or None. A module in paddle where Keras has a
    class or function is an internal module that leaks, not the feature."""
    if category in MEMBER_CATEGORIES:
        if not _INSTANCES:
            _INSTANCES.update(_sample_instances())
        cls, instance = _INSTANCES[category]
        raw = inspect.getattr_static(cls, name, None)
        if raw is not None:
            return getattr(cls, name)
        try:
            value = getattr(instance, name)
        except AttributeError:
            return None
        return PRESENT if value is None else value  # an attribute that holds None is there
    namespace = paddle_namespace(category)
    if namespace is pd and keras_kind == "module":
        try:  # a subpackage is there whether or not something imported it already
            importlib.import_module(f"paddle.{name}")
        except ImportError:
            pass
    if namespace is not None and keras_kind == "module" and namespace is not pd:
        try:  # likewise below the top level (paddle.applications.vgg16)
            importlib.import_module(f"{namespace.__name__}.{name}")
        except ImportError:
            pass
    if namespace is None or not hasattr(namespace, name):
        return None
    obj = getattr(namespace, name)
    if obj is None:
        return PRESENT
    if inspect.ismodule(obj) and keras_kind != "module":
        return None
    if callable(obj) and is_stub(obj):
        return None
    return obj


def _params(func, drop_self):
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return None
    return params[1:] if drop_self and params else params


def accepted_arguments(obj, is_method=False):
    """{name: default or inspect.Parameter.empty} of the arguments paddle's callable
    accepts by name, or None when it cannot be read. For a class: its `__init__`, and while
    that forwards `**kwargs`, the `__init__`s above it in the MRO (a layer's base accepts
    `name`, `dtype`, ...) plus a layer's `weight_regularizers` and `weight_constraints` keywords."""
    if inspect.isclass(obj):
        accepted = {}
        for klass in obj.__mro__:
            if "__init__" not in vars(klass) or klass is object:
                continue
            params = _params(vars(klass)["__init__"], drop_self=True)
            if params is None:
                return None
            if not params:  # a mixin's bare __init__ is not where forwarded kwargs go
                continue
            for p in params:
                if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                    accepted.setdefault(p.name, p.default)
            if not any(p.kind == p.VAR_KEYWORD for p in params):
                break
        for key in [*(getattr(obj, "weight_regularizers", {}) or {}),
                    *(getattr(obj, "weight_constraints", {}) or {})]:
            accepted.setdefault(key, None)
        return accepted
    params = _params(obj, drop_self=is_method and not inspect.ismethod(obj))
    if params is None:
        return None
    return {p.name: p.default for p in params if p.kind not in (p.VAR_POSITIONAL,
                                                                 p.VAR_KEYWORD)}


def positional_names(obj, is_method=False):
    """The names paddle's callable binds positionally, in order (a class: its own
    `__init__`), or None when they cannot be read."""
    func = obj.__init__ if inspect.isclass(obj) else obj
    params = _params(func, drop_self=inspect.isclass(obj) or (is_method and not
                                                              inspect.ismethod(obj)))
    if params is None:
        return None
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def signature_differences(category, name, entry, obj):
    """(Keras argument names paddle lacks, [(name, keras default, paddle default)],
    (Keras positional names, paddle's) when a positional call would bind differently)."""
    keras_sig = entry.get("signature")
    if obj is None or keras_sig is None or not callable(obj):
        return [], [], None
    is_method = category in MEMBER_CATEGORIES
    accepted = accepted_arguments(obj, is_method=is_method)
    if accepted is None:
        return [], [], None
    lacking, defaults, order = [], [], None
    keras_positional = [p for p, kind, _ in keras_sig if kind in ("pos", "arg")]
    ours_positional = positional_names(obj, is_method=is_method)
    # A name at a position where Keras has another binds a positional call differently
    # (the arguments paddle lacks are listed as such, and those it takes by keyword only,
    # past its last positional one, bind no differently).
    shared = [p for p in keras_positional if p in accepted]
    if ours_positional is not None and any(k != o for k, o in zip(shared, ours_positional)):
        order = (shared, ours_positional)
    for pname, kind, default in keras_sig:
        if kind in ("*args", "**kwargs"):
            continue
        if pname not in accepted:
            lacking.append(pname)
            continue
        ours = accepted[pname]
        ours = None if ours is inspect.Parameter.empty else repr(ours)
        if default is not None and ours is not None and ours != default:
            defaults.append((pname, default, ours))
    return lacking, defaults, order


def rows(catalogue, status):
    """[(category, module, [(name, entry, word, note, (lacking, defaults, order))])], word
    one of "same", "differs", "missing", read from paddle (note: the curated note)."""
    out = []
    for category, content in catalogue["categories"].items():
        curated = status.get(category, {})
        table = []
        for name, entry in content["features"].items():
            note = parse_status(curated[name])[1] if name in curated else ""
            obj = paddle_object(category, name, entry["kind"])
            differences = signature_differences(category, name, entry, obj)
            if obj is None:
                word, note = "missing", ""
            elif note or any(differences):
                word = "differs"
            else:
                word = "same"
            table.append((name, entry, word, note, differences))
        out.append((category, content["module"], table))
    return out


def stale_notes(catalogue, status):
    """Curated notes that no longer describe a row: a category or name Keras lacks, or a
    name paddle lacks (the note would be hidden under "missing")."""
    stale = []
    for category, notes in status.items():
        features = catalogue["categories"].get(category, {}).get("features", {})
        for name in notes:
            if name not in features:
                stale.append(f"[{category}] {name}: Keras has no such name")
            elif paddle_object(category, name, features[name]["kind"]) is None:
                stale.append(f"[{category}] {name}: paddle has no such name")
    return stale


def coverage(counts):
    """'present of all (percent)' of a {same, differs, missing} count."""
    present = counts["same"] + counts["differs"]
    total = present + counts["missing"]
    return f"{present} of {total} ({100 * present / max(total, 1):.0f}%)"


def _arguments_cell(differences):
    lacking, defaults, order = differences
    parts = []
    if lacking:
        parts.append("lacks " + ", ".join(f"`{n}`" for n in lacking))
    for pname, keras_default, ours in defaults:
        parts.append(f"`{pname}` defaults to `{ours}` (Keras `{keras_default}`)")
    if order is not None:
        parts.append("positional order `(" + ", ".join(order[1]) + ")` (Keras, of those "
                     "paddle has: `(" + ", ".join(order[0]) + ")`)")
    return "; ".join(parts).replace("|", "\\|")


def render(catalogue, status):
    lines = [BEGIN, ""]
    totals = {"same": 0, "differs": 0, "missing": 0}
    summary = ["| Keras module | present | same | differs | missing |", "|---|---|---|---|---|"]
    sections = []
    for category, module, table in rows(catalogue, status):
        counts = {"same": 0, "differs": 0, "missing": 0}
        body = ["| Keras name | kind | paddle | arguments |", "|---|---|---|---|"]
        for name, entry, word, note, differences in table:
            counts[word] += 1
            label = f"`{name}`"
            if "alias_of" in entry:
                label += f" (= `{entry['alias_of']}`)"
            verdict = word + (f": {note}" if note else "")
            body.append(f"| {label} | {entry['kind']} | {verdict.replace('|', chr(92) + '|')} "
                        f"| {_arguments_cell(differences) if word != 'missing' else ''} |")
        missing = [f"`{name}`" for name, _, word, _, _ in table if word == "missing"]
        head = [f"### `{module}`", "", f"Present: {coverage(counts)}."
                + (" Missing: " + ", ".join(missing) + "." if missing else ""), ""]
        for key in totals:
            totals[key] += counts[key]
        summary.append(f"| [`{module}`](#{module.replace('.', '').lower()}) | "
                       f"{coverage(counts)} | {counts['same']} | {counts['differs']} | "
                       f"{counts['missing']} |")
        sections += head + body + [""]
    summary.append(f"| all | {coverage(totals)} | {totals['same']} | {totals['differs']} | "
                   f"{totals['missing']} |")
    lines += [f"Keras {catalogue['keras_version']} (catalogue read with the "
              f"{catalogue['backend']} backend): {coverage(totals)} of Keras's public paths "
              f"are present in paddle (target: 90%).", ""] + summary + [""] + sections
    lines.append(END)
    return "\n".join(lines)


def page_with_tables(page, tables):
    start, end = page.index(BEGIN), page.index(END) + len(END)
    return page[:start] + tables + page[end:]


def main(argv):
    with open(PAGE) as f:
        page = f.read()
    wanted = page_with_tables(page, render(load_catalogue(), load_status()))
    if "--check" in argv:
        if wanted != page:
            print("docs/keras.md is stale: run python docs/make_keras_table.py")
            return 1
        return 0
    with open(PAGE, "w") as f:
        f.write(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
