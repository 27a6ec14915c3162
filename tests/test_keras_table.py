"""docs/keras.md's table of Keras 3 features stays true.

The rows are Keras's own names (docs/keras_features.json, read from Keras by
tools/keras_catalogue.py); the statuses are curated in docs/keras_status.toml. These tests
fail when paddle changes under the table: a name marked missing appears, a name marked
same or differs disappears, a "same" name's signature stops accepting Keras's arguments,
or docs/keras.md is not what docs/make_keras_table.py writes.
"""
import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = "edit docs/keras_status.toml, then run python docs/make_keras_table.py"


def _load_generator():
    spec = importlib.util.spec_from_file_location(
        "make_keras_table", os.path.join(ROOT, "docs", "make_keras_table.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


table = _load_generator()
CATALOGUE = table.load_catalogue()
STATUS = table.load_status()
CATEGORIES = list(CATALOGUE["categories"])


def test_catalogue_comes_from_keras_3():
    assert CATALOGUE["keras_version"].startswith("3.")
    assert CATALOGUE["generated_by"] == "tools/keras_catalogue.py"
    for category in ("layers", "losses", "metrics", "callbacks", "optimizers",
                     "optimizers.schedules", "Model", "Layer"):
        assert CATALOGUE["categories"][category]["features"], category
    # A few names every Keras 3 has: the catalogue is Keras's list, not paddle's.
    layers = CATALOGUE["categories"]["layers"]["features"]
    assert {"Dense", "Conv3D", "SeparableConv2D", "TextVectorization"} <= set(layers)
    assert ["units", "arg", None] in layers["Dense"]["signature"]


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_keras_name_has_one_valid_status(category):
    features = CATALOGUE["categories"][category]["features"]
    curated = STATUS.get(category, {})
    unlisted = sorted(set(features) - set(curated))
    unknown = sorted(set(curated) - set(features))
    assert not unlisted, f"[{category}] has no status for {unlisted}: {FIX}"
    assert not unknown, f"[{category}] has statuses for names Keras lacks: {unknown}: {FIX}"
    for name, text in curated.items():
        table.parse_status(text)  # raises on anything but same / differs: how / missing
    assert set(STATUS) == set(CATEGORIES)


@pytest.mark.parametrize("category", CATEGORIES)
def test_statuses_match_what_paddle_has(category):
    wrong = []
    for name, entry in CATALOGUE["categories"][category]["features"].items():
        word, _ = table.parse_status(STATUS[category][name])
        present = table.paddle_object(category, name, entry["kind"]) is not None
        if word == "missing" and present:
            wrong.append(f"{name} is marked missing but paddle now has it")
        if word != "missing" and not present:
            wrong.append(f"{name} is marked {word} but paddle has no such name")
    assert not wrong, f"[{category}] " + "; ".join(wrong) + f": {FIX}"


@pytest.mark.parametrize("category", CATEGORIES)
def test_same_means_keras_signature_is_accepted(category):
    wrong = []
    for name, entry in CATALOGUE["categories"][category]["features"].items():
        if table.parse_status(STATUS[category][name])[0] != "same":
            continue
        obj = table.paddle_object(category, name, entry["kind"])
        lacking, defaults, order = table.signature_differences(category, name, entry, obj)
        if lacking:
            wrong.append(f"{name} does not accept Keras's {lacking}")
        if defaults:
            wrong.append(f"{name} has other defaults {defaults}")
        if order:
            wrong.append(f"{name} binds positional arguments differently {order}")
    assert not wrong, f"[{category}] marked same: " + "; ".join(wrong) + f": {FIX}"


def test_signature_differences_are_found():
    """The comparison itself: a lacking argument, a default and a positional order."""
    entry = {"kind": "function", "signature": [["a", "arg", None], ["b", "arg", "1"],
                                               ["c", "kw", "None"], ["kwargs", "**kwargs",
                                                                     None]]}

    def ours(a, c=None, b=2):
        return a, b, c
    lacking, defaults, order = table.signature_differences("utils", "f", entry, ours)
    assert lacking == [] and defaults == [("b", "1", "2")]
    assert order == (["a", "b"], ["a", "c", "b"])

    def fewer(a, b=1):
        return a, b
    assert table.signature_differences("utils", "f", entry, fewer) == (["c"], [], None)


def test_keras_md_is_up_to_date():
    with open(table.PAGE) as f:
        page = f.read()
    wanted = table.page_with_tables(page, table.render(CATALOGUE, STATUS))
    assert page == wanted, "docs/keras.md is stale: run python docs/make_keras_table.py"


def test_status_file_reads_as_toml():
    """The small reader of docs/make_keras_table.py agrees with a real TOML parser."""
    tomllib = pytest.importorskip("tomllib")
    with open(table.STATUS, "rb") as f:
        assert tomllib.load(f) == STATUS
