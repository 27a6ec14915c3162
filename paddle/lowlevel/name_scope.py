"""Keras's `keras.name_scope`: a block whose variables are named under a prefix, which is
paddle's `pd.namespace`.

Example:
    >>> import paddle as pd
    >>> with pd.name_scope("block"):
    ...     w = pd.Variable("w", shape=[2], initializer="zeros")
    >>> w.name
    'block/w'
"""
from paddle.lowlevel.graph import namespace

KERAS_OPTIONS = ("caller", "deduplicate", "override_parent")


def name_scope(name, **kwargs):
    """Name the variables and layers' weights created inside `name/...`, as Keras's
    `name_scope` (paddle's `pd.namespace(name)`; nested scopes nest their prefixes).

    Args:
        name: the prefix, a non-empty string without '/'.
        **kwargs: Keras's `caller`, `deduplicate` and `override_parent`, accepted and
            ignored (paddle names are unique anyway: a clash gets `_1`, `_2`, ...).

    Returns:
        A context manager.

    Raises:
        TypeError: another keyword argument.

    Example:
        >>> import paddle as pd
        >>> with pd.name_scope("outer"), pd.name_scope("inner"):
        ...     v = pd.Variable("v", shape=[1], initializer="ones")
        >>> v.name
        'outer/inner/v'
    """
    unknown = sorted(set(kwargs) - set(KERAS_OPTIONS))
    if unknown:
        raise TypeError(f"name_scope: unexpected arguments {unknown}; expected only "
                        f"{', '.join(KERAS_OPTIONS)}")
    return namespace(name)
