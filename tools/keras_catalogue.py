#!/usr/bin/env python3
"""Writes docs/keras_features.json: Keras 3's public API, read from an installed Keras.

Every public module of the installed Keras is read (walked recursively from `keras`: ops,
ops.numpy, ops.nn, config, backend, applications.vgg16, datasets.mnist, ...), so that
docs/keras.md measures paddle against all of Keras's public paths. The table of
docs/keras.md lists what Keras itself exports, never what paddle happens to
have, so its rows come from here. CI has no Keras: the catalogue is committed, and
docs/make_keras_table.py and tests/test_keras_table.py read the stored file. Regenerate it
when moving to another Keras release (any backend works; the catalogue records which):

    python -m venv /tmp/k && /tmp/k/bin/pip install keras jax[cpu]
    KERAS_BACKEND=jax /tmp/k/bin/python tools/keras_catalogue.py
    python docs/make_keras_table.py   # statuses are read from paddle; notes: keras_status.toml

For every public name of each module below it records its kind (class, function, module,
other) and signature (a class's `__init__` without `self`), each parameter as
`[name, kind, default]` with kind one of `pos` (positional-only), `arg`, `*args`, `kw`
(keyword-only), `**kwargs`, and default the `repr` of the default (None when there is
none). Names bound to the same object as another public name carry `alias_of`. The
`Model` and `Layer` categories list the members (methods, properties, attributes) of
`keras.Model` and `keras.Layer`, plus the public attributes a compiled functional model
and a bare layer set on themselves.
"""
import inspect
import json
import os
import sys

def public_modules(keras):
    """[(category, module path below `keras`)] of every public module of Keras, found by
    walking the package's public attributes recursively ("" is the top level, named
    "top level"): ops, ops.numpy, ..., applications.vgg16, datasets.mnist, utils.legacy."""
    found, queue = [("top level", "")], [("", keras)]
    while queue:
        path, module = queue.pop(0)
        for name in sorted(dir(module)):
            obj = getattr(module, name)
            if name.startswith("_") or name == "src" or not inspect.ismodule(obj):
                continue
            # Keras's public modules are `keras.<path>`; a leaked import (`keras.src.x`,
            # numpy) is not one.
            full = f"{path}.{name}" if path else name
            if obj.__name__ != f"keras.{full}":
                continue
            if all(full != p for _, p in found):
                found.append((full, full))
                queue.append((full, obj))
    return found[:1] + sorted(found[1:])


OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "docs", "keras_features.json")
KINDS = {inspect.Parameter.POSITIONAL_ONLY: "pos",
         inspect.Parameter.POSITIONAL_OR_KEYWORD: "arg",
         inspect.Parameter.VAR_POSITIONAL: "*args",
         inspect.Parameter.KEYWORD_ONLY: "kw",
         inspect.Parameter.VAR_KEYWORD: "**kwargs"}


def default_repr(value):
    """A default as stable text: an object whose repr carries an address gets its type."""
    if value is inspect.Parameter.empty:
        return None
    text = repr(value)
    return f"<{type(value).__name__}>" if " at 0x" in text else text


def signature(obj, drop_self):
    """[[name, kind, default], ...] of a callable, or None where Python cannot tell."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return None
    if drop_self and params:
        params = params[1:]
    return [[p.name, KINDS[p.kind], default_repr(p.default)] for p in params]


def kind_of(obj):
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "other"


def module_features(module):
    names = sorted(n for n in dir(module) if not n.startswith("_") and n != "src")
    features = {}
    for name in names:
        obj = getattr(module, name)
        kind = kind_of(obj)
        entry = {"kind": kind}
        if kind in ("class", "function"):
            entry["signature"] = signature(obj, drop_self=kind == "class")
            own = getattr(obj, "__name__", name)
            twins = [n for n in names if n != name and getattr(module, n) is obj]
            # The alias points at the name the object calls itself, when that is exported.
            if twins and own != name and own in twins:
                entry["alias_of"] = own
        features[name] = entry
    return features


def member_features(cls, instance):
    names = {n for n in dir(cls) if not n.startswith("_")}
    names |= {n for n in dir(instance) if not n.startswith("_")}
    features = {}
    for name in sorted(names):
        raw = inspect.getattr_static(cls, name, None)
        if isinstance(raw, property) or (raw is not None and not callable(raw)
                                         and not isinstance(raw, (staticmethod, classmethod))):
            features[name] = {"kind": "property"}
        elif raw is None:
            features[name] = {"kind": "attribute"}
        else:
            features[name] = {"kind": "method",
                              "signature": signature(getattr(cls, name),
                                                     drop_self=not isinstance(raw, (
                                                         staticmethod, classmethod)))}
    return features


def catalogue():
    import keras
    import importlib
    categories = {}
    for category, path in public_modules(keras):
        module = importlib.import_module("keras" + ("." + path if path else ""))
        categories[category] = {"module": "keras" + ("." + path if path else ""),
                                "features": module_features(module)}
    inp = keras.Input(shape=(3,))
    model = keras.Model(inp, keras.layers.Dense(2)(inp))
    model.compile(optimizer="adam", loss="mse")
    categories["Model"] = {"module": "keras.Model",
                           "features": member_features(keras.Model, model)}
    categories["Layer"] = {"module": "keras.Layer",
                           "features": member_features(keras.Layer, keras.Layer())}
    return {"keras_version": keras.__version__, "backend": keras.backend.backend(),
            "generated_by": "tools/keras_catalogue.py", "categories": categories}


def dumps(data):
    """JSON with one feature a line, so that a new Keras release reads as a short diff."""
    lines = ["{"]
    for key in ("keras_version", "backend", "generated_by"):
        lines.append(f" {json.dumps(key)}: {json.dumps(data[key])},")
    lines.append(' "categories": {')
    categories = list(data["categories"].items())
    for i, (category, content) in enumerate(categories):
        lines.append(f"  {json.dumps(category)}: {{\"module\": {json.dumps(content['module'])}, "
                     "\"features\": {")
        features = list(content["features"].items())
        for j, (name, entry) in enumerate(features):
            comma = "," if j < len(features) - 1 else ""
            lines.append(f"   {json.dumps(name)}: {json.dumps(entry, sort_keys=True)}{comma}")
        lines.append("  }}" + ("," if i < len(categories) - 1 else ""))
    lines += [" }", "}", ""]
    return "\n".join(lines)


def main():
    data = catalogue()
    with open(OUT, "w") as f:
        f.write(dumps(data))
    counts = {c: len(v["features"]) for c, v in data["categories"].items()}
    print(f"wrote {OUT}: Keras {data['keras_version']} ({data['backend']}), {counts}")


if __name__ == "__main__":
    sys.exit(main())
