"""Keras's `keras.tree` (`pd.tree`): functions over nested structures of lists, tuples,
namedtuples and dicts, with Keras's semantics (those of optree, which Keras uses).

- Lists, tuples, namedtuples and dicts (OrderedDict, defaultdict too) are nested; anything
  else is a leaf: None, strings, NumPy arrays, paddle Variables.
- A dict's values are visited in the order of its sorted keys (an OrderedDict's: in its
  own order), and structures are rebuilt with the dict's own key order.
- Two structures match only when each node has the same type (a list is not a tuple) and
  length, and each dict the same keys.

Pure Python; no optree needed.

Example:
    >>> import paddle as pd
    >>> pd.tree.flatten({"b": [1, 2], "a": (3, None)})
    [3, None, 1, 2]
    >>> pd.tree.map_structure(lambda x: x * 10, {"b": [1, 2], "a": 3})
    {'b': [10, 20], 'a': 30}
"""
import collections


class MAP_TO_NONE:
    """A value `traverse`'s function returns to replace a subtree by None (returning None
    itself means "keep going")."""


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(structure):
    """Whether `structure` is a list, tuple, namedtuple or dict (a node, not a leaf).

    Example:
        >>> import paddle as pd
        >>> pd.tree.is_nested([1]), pd.tree.is_nested("ab"), pd.tree.is_nested(None)
        (True, False, False)
    """
    return isinstance(structure, (list, tuple, dict))


def _keys(node):
    """The keys of a dict node in visiting order."""
    if isinstance(node, collections.OrderedDict):
        return list(node)
    try:
        return sorted(node)
    except TypeError:  # keys of mixed types: optree sorts them by their type, then value
        return sorted(node, key=lambda k: (type(k).__qualname__, repr(k)))


def _children(node):
    """[(key, child)] of a node in visiting order."""
    if isinstance(node, dict):
        return [(k, node[k]) for k in _keys(node)]
    return list(enumerate(node))


def _rebuild(node, values):
    """A node of the same type as `node` holding `values` (in visiting order)."""
    if isinstance(node, dict):
        by_key = dict(zip(_keys(node), values))
        if isinstance(node, collections.defaultdict):
            out = collections.defaultdict(node.default_factory)
            out.update((k, by_key[k]) for k in node)
            return out
        return type(node)((k, by_key[k]) for k in node)
    if _is_namedtuple(node):
        return type(node)(*values)
    if isinstance(node, tuple):
        return tuple(values) if type(node) is tuple else type(node)(values)
    return list(values) if type(node) is list else type(node)(values)


def flatten(structure):
    """The leaves of `structure`, in order (dicts by sorted key).

    Example:
        >>> import paddle as pd
        >>> pd.tree.flatten([1, {"y": 2, "x": (3,)}])
        [1, 3, 2]
    """
    return [leaf for _, leaf in flatten_with_path(structure)]


def flatten_with_path(structure):
    """[(path, leaf)], a path being the tuple of keys and indices from the root.

    Example:
        >>> import paddle as pd
        >>> pd.tree.flatten_with_path({"a": [1, 2]})
        [(('a', 0), 1), (('a', 1), 2)]
    """
    out = []

    def visit(node, path):
        if is_nested(node):
            for key, child in _children(node):
                visit(child, path + (key,))
        else:
            out.append((path, node))
    visit(structure, ())
    return out


def _check_same(a, b, check_types=True, where="assert_same_structure"):
    if is_nested(a) != is_nested(b) or (is_nested(a) and check_types and type(a) is not type(b)):
        if is_nested(a):
            raise ValueError(f"{where}: expected an instance of {type(a).__name__}, "
                             f"received {b!r}")
        raise ValueError(f"{where}: expected a leaf, received the structure {b!r}")
    if not is_nested(a):
        return
    if isinstance(a, dict):
        if set(a) != set(b):
            raise ValueError(f"{where}: expected a dict with keys {sorted(map(str, a))}, "
                             f"received keys {sorted(map(str, b))}")
    elif len(a) != len(b):
        raise ValueError(f"{where}: expected a {type(a).__name__} of length {len(a)}, "
                         f"received one of length {len(b)}: {b!r}")
    for (_, x), (_, y) in zip(_children(a), _children(b) if not isinstance(b, dict) else
                              [(k, b[k]) for k in _keys(a)]):
        _check_same(x, y, check_types, where)


def assert_same_structure(a, b, check_types=None):
    """Raise ValueError unless `a` and `b` have the same nesting (types, lengths, keys).

    Args:
        a, b: structures.
        check_types: kept for Keras's signature; node types are always compared (as
            Keras 3 does).

    Example:
        >>> import paddle as pd
        >>> pd.tree.assert_same_structure([1, (2,)], [3, (4,)])
    """
    _check_same(a, b, True)


def assert_same_paths(a, b):
    """Raise ValueError unless `a` and `b` have the same leaf paths (node types may differ:
    a list matches a tuple).

    Example:
        >>> import paddle as pd
        >>> pd.tree.assert_same_paths([1, 2], (3, 4))
    """
    pa = {p for p, _ in flatten_with_path(a)}
    pb = {p for p, _ in flatten_with_path(b)}
    if pa != pb:
        raise ValueError(f"assert_same_paths: `a` and `b` don't have the same paths; "
                         f"paths in `a` missing in `b`: {sorted(pa - pb, key=repr)}; paths in "
                         f"`b` missing in `a`: {sorted(pb - pa, key=repr)}")


def pack_sequence_as(structure, flat_sequence):
    """`flat_sequence`'s values put in the shape of `structure` (the inverse of `flatten`).

    Example:
        >>> import paddle as pd
        >>> pd.tree.pack_sequence_as({"b": [0, 0], "a": 0}, [1, 2, 3])
        {'b': [2, 3], 'a': 1}
    """
    if not isinstance(flat_sequence, (list, tuple)):
        raise TypeError(f"pack_sequence_as: expected flat_sequence to be a list or tuple, "
                        f"received {type(flat_sequence).__name__}")
    values = iter(flat_sequence)
    count = len(flatten(structure))
    if count != len(flat_sequence):
        raise ValueError(f"pack_sequence_as: the structure has {count} leaves, received a "
                         f"flat sequence of {len(flat_sequence)} values")

    def build(node):
        if not is_nested(node):
            return next(values)
        return _rebuild(node, [build(child) for _, child in _children(node)])
    return build(structure)


def map_structure(func, *structures, none_is_leaf=True):
    """`func` applied to the leaves of `structures` (all of the same structure), in the
    structure of the first.

    Args:
        func: called with one leaf of each structure.
        *structures: one or more structures of the same nesting.
        none_is_leaf: None is a leaf (passed to `func`); with False, a None leaf stays None
            without calling `func`.

    Example:
        >>> import paddle as pd
        >>> pd.tree.map_structure(lambda a, b: a + b, [1, (2,)], [10, (20,)])
        [11, (22,)]
    """
    if not callable(func):
        raise TypeError(f"map_structure: expected a callable func, received {func!r}")
    if not structures:
        raise ValueError("map_structure: expected at least one structure")
    for other in structures[1:]:
        _check_same(structures[0], other, True, "map_structure")
    leaves = [flatten(s) for s in structures]
    out = [None if (not none_is_leaf and xs[0] is None) else func(*xs) for xs in zip(*leaves)]
    return pack_sequence_as(structures[0], out)


def map_structure_up_to(shallow_structure, func, *structures):
    """`func` applied to the subtrees of `structures` at the leaves of `shallow_structure`
    (a prefix of their nesting), in the structure of `shallow_structure`.

    Example:
        >>> import paddle as pd
        >>> pd.tree.map_structure_up_to([0, 0], len, [[1, 2], (3,)])
        [2, 1]
    """
    if not structures:
        raise ValueError("map_structure_up_to: expected at least one structure")

    def subtrees(shallow, node):
        if not is_nested(shallow):
            return [node]
        if not is_nested(node) or type(node) is not type(shallow):
            raise ValueError(f"map_structure_up_to: expected an instance of "
                             f"{type(shallow).__name__}, received {node!r}")
        if isinstance(shallow, dict):
            missing = set(shallow) - set(node)
            if missing:
                raise ValueError(f"map_structure_up_to: keys {sorted(map(str, missing))} "
                                 f"of the shallow structure are missing from {node!r}")
            return [t for k in _keys(shallow) for t in subtrees(shallow[k], node[k])]
        if len(shallow) != len(node):
            raise ValueError(f"map_structure_up_to: expected a {type(shallow).__name__} of "
                             f"length {len(shallow)}, received {node!r}")
        return [t for s, n in zip(shallow, node) for t in subtrees(s, n)]
    columns = [subtrees(shallow_structure, s) for s in structures]
    return pack_sequence_as(shallow_structure, [func(*xs) for xs in zip(*columns)])


def lists_to_tuples(structure):
    """`structure` with every list turned into a tuple.

    Example:
        >>> import paddle as pd
        >>> pd.tree.lists_to_tuples([1, [2, {"a": [3]}]])
        (1, (2, {'a': (3,)}))
    """
    if not is_nested(structure):
        return structure
    values = [lists_to_tuples(child) for _, child in _children(structure)]
    if isinstance(structure, list):
        return tuple(values)
    return _rebuild(structure, values)


def _is_shape(x):
    return isinstance(x, (list, tuple)) and not _is_namedtuple(x) and all(
        d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in x)


def map_shape_structure(func, structure):
    """`func` applied to each shape in `structure`, a shape being a list or tuple of ints
    and None (which is a leaf here, not a node).

    Example:
        >>> import paddle as pd
        >>> pd.tree.map_shape_structure(lambda s: s[-1], {"a": (2, 3), "b": [(None, 1)]})
        {'a': 3, 'b': [1]}
    """
    if _is_shape(structure) or not is_nested(structure):
        return func(structure)
    values = [map_shape_structure(func, child) for _, child in _children(structure)]
    return _rebuild(structure, values)


def traverse(func, structure, top_down=True):
    """Visit every node and leaf of `structure` with `func`, rebuilding it.

    Top-down (the default): `func(node)` returning None goes on into the node's children;
    any other value replaces the subtree (`MAP_TO_NONE` replaces it by None). Bottom-up:
    the children are visited first, then `func` is called on the rebuilt node; returning
    None keeps it, another value replaces it.

    Example:
        >>> import paddle as pd
        >>> pd.tree.traverse(lambda x: "X" if x == [2] else None, [1, [2]])
        [1, 'X']
    """
    if not callable(func):
        raise TypeError(f"traverse: expected a callable func, received {func!r}")

    def resolve(value, original):
        if value is None:
            return original
        return None if value is MAP_TO_NONE else value

    def down(node):
        result = func(node)
        if result is not None:
            return None if result is MAP_TO_NONE else result
        if not is_nested(node):
            return node
        return _rebuild(node, [down(child) for _, child in _children(node)])

    def up(node):
        if is_nested(node):
            node = _rebuild(node, [up(child) for _, child in _children(node)])
        return resolve(func(node), node)
    return down(structure) if top_down else up(structure)
