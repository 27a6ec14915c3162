"""`pad_sequences`: sequences of different lengths as one 2-D array, as Keras pads them.

Example:
    >>> import paddle as pd
    >>> pd.utils.pad_sequences([[1, 2, 3], [4]], maxlen=2).tolist()
    [[2, 3], [0, 4]]
"""
import numbers

import numpy as np

_SIDES = ("pre", "post")


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """Pad (and cut) a list of sequences to one length.

    Args:
        sequences: a list of sequences (lists or arrays); their items may themselves be
            arrays of one shape (a sequence of feature vectors).
        maxlen: the length of every row (default: the longest sequence's).
        dtype: the dtype of the result (`"int32"` as in Keras; use `"float32"` for floats).
        padding: `"pre"` pads before each sequence, `"post"` after it.
        truncating: `"pre"` drops values from the start of a longer sequence, `"post"` from
            its end.
        value: the padding value.

    Returns:
        An array of shape `(len(sequences), maxlen) + item shape`.

    Raises:
        ValueError: a padding, truncating, maxlen or dtype that is none of the above, items of
            different shapes, or text values for a numeric dtype.

    Example:
        >>> import paddle as pd
        >>> pd.utils.pad_sequences([[1], [2, 3]], padding="post", value=-1).tolist()
        [[1, -1], [2, 3]]
        >>> pd.utils.pad_sequences([[1, 2, 3]], maxlen=2, truncating="post").tolist()
        [[1, 2]]
    """
    where = "pad_sequences"
    if isinstance(sequences, (str, bytes)) or not hasattr(sequences, "__len__"):
        raise ValueError(f"{where}: expected a list of sequences, received "
                         f"{type(sequences).__name__}")
    for name, side in (("padding", padding), ("truncating", truncating)):
        if side not in _SIDES:
            raise ValueError(f"{where}: expected {name} 'pre' or 'post', received {side!r}")
    if maxlen is not None and (not isinstance(maxlen, numbers.Integral) or
                               isinstance(maxlen, bool) or maxlen < 0):
        raise ValueError(f"{where}: expected maxlen as an integer >= 0 or None, received "
                         f"{maxlen!r}")
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise ValueError(f"{where}: expected a NumPy dtype, received {dtype!r}") from None
    rows, lengths = [], []
    for i, s in enumerate(sequences):
        if isinstance(s, (str, bytes)) or not hasattr(s, "__len__"):
            raise ValueError(f"{where}: expected sequence {i} to be a list or an array, "
                             f"received {type(s).__name__} {s!r}")
        rows.append(s)
        lengths.append(len(s))
    if maxlen is None:
        maxlen = max(lengths, default=0)
    sample_shape = ()
    for s in rows:  # the shape of one item, from the first non-empty sequence (as Keras)
        if len(s):
            sample_shape = np.asarray(s).shape[1:]
            break
    if isinstance(value, str) and dtype.kind not in "OUS":
        raise ValueError(f"{where}: dtype {dtype} does not hold the text padding value "
                         f"{value!r}; use dtype=object or a numeric value")
    out = np.full((len(rows), maxlen) + sample_shape, value, dtype=dtype)
    for i, s in enumerate(rows):
        if not len(s) or not maxlen:
            continue
        kept = np.asarray(s)[-maxlen:] if truncating == "pre" else np.asarray(s)[:maxlen]
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"{where}: sequence {i} has items of shape {kept.shape[1:]}, "
                             f"expected {sample_shape} (the shape of the first one)")
        if kept.dtype.kind in "OUS" and dtype.kind not in "OUS":
            raise ValueError(f"{where}: sequence {i} holds text, which dtype {dtype} cannot "
                             f"hold")
        if padding == "post":
            out[i, :len(kept)] = kept
        else:
            out[i, maxlen - len(kept):] = kept
    return out
