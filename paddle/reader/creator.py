"""Reader creators: turn arrays and files into readers."""
import os

import numpy as np


def np_array(x):
    """A reader over the rows of an array (its first axis).

    Args:
        x: a NumPy array, or anything `np.asarray` accepts, of rank 1 or more.

    Returns:
        A reader creator yielding `x[0]`, `x[1]`, ...

    Raises:
        ValueError: `x` is a scalar.

    Example:
        >>> import numpy as np
        >>> from paddle import reader
        >>> [row.tolist() for row in reader.creator.np_array(np.arange(6).reshape(3, 2))()]
        [[0, 1], [2, 3], [4, 5]]
    """
    array = np.asarray(x)
    if array.ndim == 0:
        raise ValueError(f"np_array: expected an array of rank 1 or more, received a scalar {array!r}")

    def array_reader():
        yield from array

    return array_reader


def text_file(path, encoding="utf-8"):
    """A reader over the lines of a text file, without their line endings.

    The file is opened afresh on each pass and closed when the pass ends or stops.

    Args:
        path: the file to read.
        encoding: its text encoding.

    Returns:
        A reader creator yielding one string per line.

    Raises:
        FileNotFoundError: (when iterated) the file does not exist.
        ValueError: (when iterated) the file is not text in `encoding`.

    Example:
        >>> import os, tempfile
        >>> from paddle import reader
        >>> path = os.path.join(tempfile.mkdtemp(), "lines.txt")
        >>> with open(path, "w") as f:
        ...     _ = f.write("first\\nsecond\\n")
        >>> list(reader.creator.text_file(path)())
        ['first', 'second']
    """
    path = os.fspath(path)

    def text_reader():
        with open(path, encoding=encoding) as lines:
            try:
                for line in lines:
                    yield line.rstrip("\r\n")
            except UnicodeDecodeError as e:
                raise ValueError(f"text_file: {path!r} is not {encoding} text ({e})") from None

    return text_reader
