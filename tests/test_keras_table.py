"""docs/keras.md's table of Keras 3's public paths stays true.

The rows are Keras's own names, every public module of Keras (docs/keras_features.json, read
from Keras by tools/keras_catalogue.py); whether paddle has each name, and whether its
signature matches, is read from paddle; docs/keras_status.toml holds curated "differs"
notes only. These tests fail when paddle changes under the page (docs/keras.md is not what
docs/make_keras_table.py writes: a name appeared or disappeared, a signature changed) and
when a curated note belongs to a name Keras or paddle lacks.
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


def test_catalogue_covers_every_public_module():
    """The catalogue walks Keras's modules recursively: ops and its submodules, config,
    backend, applications.*, datasets.*, ... are all rows."""
    for category in ("ops", "ops.numpy", "ops.nn", "ops.linalg", "ops.image", "config",
                     "backend", "tree", "dtype_policies", "quantizers", "applications.vgg16",
                     "datasets.mnist", "legacy.saving", "optimizers.legacy"):
        assert CATALOGUE["categories"][category]["features"], category
    assert CATALOGUE["categories"]["ops.numpy"]["module"] == "keras.ops.numpy"


def test_curated_notes_are_valid_and_current():
    for category, notes in STATUS.items():
        for text in notes.values():
            table.parse_status(text)  # raises on anything but "differs: <how>"
    stale = table.stale_notes(CATALOGUE, STATUS)
    assert not stale, "; ".join(stale) + f": {FIX}"


def test_status_is_read_from_paddle():
    """Present, same and differs come from paddle: a name paddle has is present, one it
    lacks is missing, a curated note makes a present name differ."""
    rows = {category: {name: word for name, _, word, _, _ in table_rows}
            for category, _, table_rows in table.rows(CATALOGUE, STATUS)}
    assert rows["layers"]["Dense"] in ("same", "differs")
    assert rows["top level"]["Model"] == "differs"  # a curated note
    fake = {"keras_version": "3.x", "backend": "jax", "categories": {"layers": {
        "module": "keras.layers", "features": {
            "Dense": CATALOGUE["categories"]["layers"]["features"]["Dense"],
            "NoSuchLayer": {"kind": "class", "signature": []}}}}}
    words = {name: word for name, _, word, _, _ in table.rows(fake, {})[0][2]}
    assert words["NoSuchLayer"] == "missing"
    assert words["Dense"] in ("same", "differs")
    page = table.render(fake, {})
    assert "1 of 2 (50%)" in page and "Missing: `NoSuchLayer`." in page


def test_a_stub_that_only_raises_is_missing():
    def stub(x):
        """Not done."""
        raise NotImplementedError("later")

    def checks_then_raises(x):
        if x is None:
            raise ValueError("x")
        raise NotImplementedError

    def raises_on_one_case(x):
        if x:
            raise NotImplementedError("only this case")
        return x

    class Stub:
        def __init__(self, units):
            raise NotImplementedError

    assert table.is_stub(stub) and table.is_stub(checks_then_raises) and table.is_stub(Stub)
    assert not table.is_stub(raises_on_one_case)
    assert not table.is_stub(len)  # no Python source: judged by presence alone


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


def test_tables_show_coverage_per_module_and_in_total():
    with open(table.PAGE) as f:
        page = f.read()
    assert "| all |" in page and "(target: 90%)" in page
    assert "### `keras.ops.numpy`" in page and "### `keras.config`" in page
