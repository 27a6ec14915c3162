"""pd.tree: Keras's nested-structure functions, with the values Keras 3.15 (optree) gives on
the same structures (read from Keras once and written here)."""
import collections

import numpy as np
import pytest

import paddle as pd

P = collections.namedtuple("P", "b a")
S = {"b": [1, (2, None)], "a": P(3, {"z": 4, "y": 5}), "c": ()}


def test_flatten_orders_dict_keys_and_keeps_namedtuple_fields():
    assert pd.tree.flatten(S) == [3, 5, 4, 1, 2, None]
    assert pd.tree.flatten_with_path(S) == [
        (("a", 0), 3), (("a", 1, "y"), 5), (("a", 1, "z"), 4), (("b", 0), 1),
        (("b", 1, 0), 2), (("b", 1, 1), None)]
    assert pd.tree.flatten(None) == [None]
    assert pd.tree.flatten(collections.OrderedDict([("b", 1), ("a", 2)])) == [1, 2]
    assert len(pd.tree.flatten(np.zeros(3))) == 1  # an array is a leaf


def test_map_structure_rebuilds_each_node_type():
    out = pd.tree.map_structure(lambda x: x, S)
    assert out == S and list(out) == ["b", "a", "c"] and isinstance(out["a"], P)
    assert pd.tree.map_structure(lambda x, y: x + y, [1, 2], [3, 4]) == [4, 6]
    assert pd.tree.map_structure(lambda x: None, [1, [2]]) == [None, [None]]
    od = pd.tree.map_structure(lambda x: x, collections.OrderedDict([("b", 1), ("a", 2)]))
    assert isinstance(od, collections.OrderedDict) and list(od) == ["b", "a"]


def test_predicates_and_packing():
    assert [pd.tree.is_nested(x) for x in (1, [], P(1, 2), "ab", None)] == [
        False, True, True, False, False]
    assert pd.tree.pack_sequence_as({"b": [0, 0], "a": (0,)}, [1, 2, 3]) == {
        "b": [2, 3], "a": (1,)}
    assert pd.tree.pack_sequence_as(P(0, 0), [1, 2]) == P(b=1, a=2)
    assert pd.tree.lists_to_tuples([1, [2, {"a": [3]}]]) == (1, (2, {"a": (3,)}))


def test_up_to_shapes_and_traverse():
    assert pd.tree.map_structure_up_to(([0], 0), lambda a, b: (a, b), ([1], 3), ([4], 5)) == (
        [(1, 4)], (3, 5))
    shapes = {"a": (2, 3), "b": [(None, 1), (4,)]}
    assert pd.tree.map_shape_structure(lambda s: s, shapes) == shapes
    assert pd.tree.traverse(lambda x: None, [1, [2]]) == [1, [2]]
    assert pd.tree.traverse(lambda x: "X" if x == [2] else None, [1, [2]]) == [1, "X"]
    assert pd.tree.traverse(lambda x: pd.tree.MAP_TO_NONE if x == 1 else None,
                            [1, [2]]) == [None, [2]]
    seen = []
    assert pd.tree.traverse(lambda x: seen.append(x), [1, [2]], top_down=False) == [1, [2]]
    assert seen == [1, 2, [2], [1, [2]]]


def test_mismatched_structures_raise_saying_what_was_expected():
    with pytest.raises(ValueError, match="expected an instance of list"):
        pd.tree.map_structure(lambda x, y: x + y, [1, 2], (3, 4))
    with pytest.raises(ValueError, match="expected an instance of list"):
        pd.tree.assert_same_structure([1, [2]], [3, 4])
    pd.tree.assert_same_structure([1, (2,)], [3, (4,)])
    with pytest.raises(ValueError, match="don't have the same paths"):
        pd.tree.assert_same_paths({"a": 1}, {"b": 1})
    pd.tree.assert_same_paths([1, 2], (3, 4))
    with pytest.raises(ValueError, match="3 leaves, received a flat sequence of 2"):
        pd.tree.pack_sequence_as([0, [0, 0]], [1, 2])
    with pytest.raises(TypeError, match="expected a callable"):
        pd.tree.map_structure(3, [1])
