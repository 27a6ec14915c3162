"""Strings on the host: string inputs and the data Variables computed from them.

Strings never reach a kernel. A string input is a data Variable of dtype "string"
(`pd.Input(dtype="string")`); no op accepts it (graph.apply refuses it). A preprocessing
layer called on such an input (StringLookup, TextVectorization, Hashing) makes a *host
input*: a numeric data Variable that carries how to compute its value from the fed
strings, with NumPy on the host (`host_input`). The executor computes host inputs from
the feeds before a run (`host_feeds`), so a model's graph starts at the integers, and
`fit`, `predict` and `pd.eval` take the strings as they take any other input.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.lowlevel.strings import as_strings
    >>> as_strings(np.array([b"caf\\xc3\\xa9", "tea"], object), "x").tolist()
    ['café', 'tea']
"""
import numpy as np

STRING = "string"


def is_string_array(array):
    """True for NumPy arrays of text: str_ / bytes_ arrays and object arrays (of strings)."""
    return isinstance(array, np.ndarray) and array.dtype.kind in "USO"


def feed_dtype(array, float_dtype):
    """The dtype of a data Variable standing for fed `array`: text stays text ("string",
    read on the host by the preprocessing layers), integers stay integers (ids, labels:
    "int64"), everything else is `float_dtype`."""
    if is_string_array(array):
        return STRING
    return "int64" if array.dtype.kind in "iu" else float_dtype


def as_strings(value, where):
    """`value` (an array or nested lists of str or UTF-8 bytes) as an object array of str.

    Raises:
        TypeError: an element that is not a string, naming it and `where`.
        ValueError: bytes that are not UTF-8, naming the value and `where`.
    """
    array = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
    if array.dtype.kind == "U":
        return array.astype(object)
    if array.dtype.kind not in "SO":
        raise TypeError(f"{where}: expected strings, received an array of {array.dtype}")
    out = np.empty(array.shape, dtype=object)
    flat_in, flat_out = array.reshape(-1), out.reshape(-1)
    for i, item in enumerate(flat_in):
        if isinstance(item, (bytes, np.bytes_)):
            try:
                item = bytes(item).decode("utf-8")
            except UnicodeDecodeError as e:
                raise ValueError(f"{where}: expected UTF-8 text, received the undecodable "
                                 f"bytes {bytes(item)[:40]!r} at position {i} ({e.reason} "
                                 f"at byte {e.start})") from None
        elif not isinstance(item, str):
            raise TypeError(f"{where}: expected strings, received {type(item).__name__} "
                            f"{item!r} at position {i}")
        flat_out[i] = str(item)
    return out


def host_input(var, sources, compute):
    """Mark the data Variable `var` as computed on the host: `compute(*arrays)` of the
    values fed (or computed) for the Variables `sources`, returning a NumPy array."""
    var.host = (tuple(sources), compute)
    return var


def host_feeds(needed, feeds):
    """`feeds` with the values of the host inputs among `needed` added (computed from the
    fed values, by Variable or by name); `feeds` itself when none is a host input."""
    if not any(getattr(v, "host", None) is not None and v not in feeds for v in needed):
        return feeds
    feeds = dict(feeds)
    by_name = {k: val for k, val in feeds.items() if isinstance(k, str)}

    def value(v):
        if v in feeds:
            return feeds[v]
        host = getattr(v, "host", None)
        if host is None:
            if v.name in by_name:
                return by_name[v.name]
            return None  # the executor reports the missing feed
        sources, compute = host
        arrays = [value(s) for s in sources]
        if any(a is None for a in arrays):
            return None
        feeds[v] = compute(*arrays)
        return feeds[v]

    for v in needed:
        value(v)
    return feeds
