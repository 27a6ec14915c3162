"""The one way paddle reads an HDF5 file: model files, weights files, backups and the
Trainer's parameters all go through here.

A file may come from anyone, and HDF5 can make a dataset's bytes come from elsewhere: an
external link or a soft link to another file, external storage (raw bytes of any local
file, `/etc/passwd` included), a virtual dataset mapping other files. None of these is
part of the Keras layout, so all are refused. A dataset is read only after its declared
shape has been checked against the shape the model expects (`read(dataset, shape)`),
so a small compressed file cannot make paddle allocate what its header claims; what is
never asked for is never read. Every failure is a `CheckpointError` naming the file and
the object.

Example:
    >>> import os, tempfile, h5py, numpy as np
    >>> from paddle.highlevel.saving import hdf5_reader
    >>> path = os.path.join(tempfile.mkdtemp(), "p.h5")
    >>> with h5py.File(path, "w") as f:
    ...     f["fc_0/w"] = np.ones((2, 3), np.float32)
    >>> with hdf5_reader.open_file(path) as f:
    ...     float(hdf5_reader.read(hdf5_reader.dataset(f, "fc_0/w", path), (2, 3), path).sum())
    6.0
"""
import contextlib
import os
import zipfile

import h5py
import numpy as np

from paddle.errors import CheckpointError, CheckpointNotFoundError
from paddle.lowlevel.shapes import check_fits

NUMERIC_KINDS = "biuf"


SAVE_HINT = ("model.save('m.keras') writes a .keras zip archive, model.save('m.h5') and "
             "model.save_weights('m.h5') write HDF5")


@contextlib.contextmanager
def open_file(path, hint=SAVE_HINT):
    """The HDF5 file at `path`, opened read-only; h5py's errors inside the block (a
    truncated or damaged file) become CheckpointErrors naming it. A missing file is a
    CheckpointNotFoundError (a FileNotFoundError too). `hint` completes the message for a
    file that is not HDF5 at all, which names what the file holds instead."""
    if not os.path.exists(path):
        raise CheckpointNotFoundError(f"no checkpoint file at {path!r}")
    if os.path.isdir(path):
        raise CheckpointError(f"{path!r} is a folder, not a checkpoint file")
    with load_errors(path):
        try:
            if not h5py.is_hdf5(path):
                raise CheckpointError(_not_hdf5(path, hint))
            with h5py.File(path, "r") as f:
                yield f
        except CheckpointError:
            raise
        except (OSError, KeyError, ValueError, TypeError, RuntimeError, AttributeError,
                IndexError) as e:
            raise CheckpointError(f"cannot read {path!r} (truncated or damaged?): "
                                  f"{type(e).__name__}: {e}") from e


@contextlib.contextmanager
def load_errors(path):
    """Within the block (a whole load), running out of memory or of stack is a
    CheckpointError naming the file: whatever a file makes paddle do (a config nested
    200,000 deep for json's or Python's recursion limit, an allocation past the
    process's limit), its loader fails with the loader's error, which the C API reports
    as PD_CHECKPOINT_ERROR.

    Example:
        >>> from paddle.highlevel.saving import hdf5_reader
        >>> try:
        ...     with hdf5_reader.load_errors("m.keras"):
        ...         raise RecursionError("maximum recursion depth exceeded")
        ... except Exception as e:
        ...     print(type(e).__name__)
        CheckpointError
    """
    try:
        yield
    except RecursionError:
        # from None: the chained traceback would hold every frame of the recursion.
        raise CheckpointError(f"{path!r} is nested too deeply to load (Python's recursion "
                              "limit was reached while reading it); refused") from None
    except MemoryError as e:
        raise CheckpointError(f"{path!r}: loading it needs more memory than this process "
                              f"may use ({e or 'MemoryError'}); refused") from e


def _not_hdf5(path, hint):
    """The message for a file that is not HDF5: what its name promised (a `.keras` name is
    read as a zip first, so here it is neither) and what it holds instead."""
    expected = "a .keras file (a zip archive) nor an HDF5 file" \
        if str(path).endswith(".keras") else "an HDF5 file"
    if not os.path.isfile(path):  # reading a pipe or a device could block: not opened
        return f"{path!r} is not {expected}: it is a pipe, a socket or a device ({hint})"
    return f"{path!r} is not {expected}: it holds {describe_contents(path)} ({hint})"


# Leading bytes of the formats a checkpoint path most often holds by mistake.
MAGIC = ((b"PK\x03\x04", "a zip archive"), (b"\x89HDF\r\n\x1a\n", "an HDF5 file"),
         (b"\x1f\x8b", "gzip-compressed data"), (b"\x93NUMPY", "a NumPy .npy array"),
         (b"\x80\x02", "a Python pickle"), (b"\x80\x03", "a Python pickle"),
         (b"\x80\x04", "a Python pickle"), (b"\x80\x05", "a Python pickle"))


def describe_contents(path):
    """What the regular file at `path` holds, in words, from its first bytes: 'nothing (an empty
    file)', 'a zip archive', 'JSON text ...', 'text ...' or 'N bytes of an unknown format'.

    Example:
        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "m.keras")
        >>> with open(path, "w") as f:
        ...     _ = f.write("not a model")
        >>> describe_contents(path)
        "text ('not a model')"
    """
    with open(path, "rb") as f:
        head = f.read(256)
    if not head:
        return "nothing (an empty file)"
    for magic, name in MAGIC:
        if head.startswith(magic):
            return name if _whole(name, path) else f"the start of {name}, truncated or damaged"
    text = head.decode("utf-8", errors="replace")[:-1]  # the last may be a cut character
    if not all(c.isprintable() or c.isspace() for c in text) or "\ufffd" in text:
        return f"{os.path.getsize(path)} bytes of an unknown format (starting {head[:8]!r})"
    text = head.decode("utf-8", errors="replace")
    kind = "JSON text" if text.lstrip().startswith(("{", "[")) else "text"
    return f"{kind} ({text[:40].strip()!r}{'...' if len(text) > 40 else ''})"


def _whole(name, path):
    """Whether a file that starts as `name` reads as one (a zip or HDF5 file cut short does
    not: its directory or superblock is gone)."""
    if name == "a zip archive":
        return zipfile.is_zipfile(path)
    if name == "an HDF5 file":
        return h5py.is_hdf5(path)
    return True


def find(group, name, path):
    """group[name] (a group or dataset), or None when there is none, reached through hard
    links only: each step of a path 'a/b/c' is checked, since any of them could be a link
    to another file (h5py would follow it)."""
    node = group.file if name.startswith("/") else group
    for part in [p for p in name.split("/") if p not in ("", ".")]:
        if not isinstance(node, h5py.Group):
            return None
        link = node.get(part, getlink=True)
        if link is None:
            return None
        if isinstance(link, h5py.ExternalLink):
            raise CheckpointError(f"{path!r}: {node.name.rstrip('/')}/{part} is an external "
                                  f"link to {link.filename!r}; a checkpoint may not read "
                                  "other files")
        if isinstance(link, h5py.SoftLink):
            raise CheckpointError(f"{path!r}: {node.name.rstrip('/')}/{part} is a soft link "
                                  f"to {link.path!r}; checkpoints hold no links")
        node = node[part]
    return node


def member(group, name, path):
    """find(), with a CheckpointError when there is nothing of that name."""
    found = find(group, name, path)
    if found is None:
        raise CheckpointError(f"{path!r}: {group.name!r} holds no {name!r}")
    return found


def dataset_names(group, limit):
    """Up to `limit` paths of datasets under `group` (hard links only), for messages."""
    found, pending = [], [group]
    while pending and len(found) < limit:
        node = pending.pop(0)
        for name in sorted(node):
            if isinstance(node.get(name, getlink=True), h5py.HardLink):
                child = node[name]
                if isinstance(child, h5py.Dataset):
                    found.append(child.name.lstrip("/"))
                elif isinstance(child, h5py.Group):
                    pending.append(child)
    return sorted(found[:limit])


def has(group, name):
    """Whether `group` has a member `name` (of any kind: links are refused on use)."""
    return group.get(name, getlink=True) is not None


def dataset(group, name, path):
    """group[name] as a dataset whose bytes are in this file, of a numeric dtype; nothing
    of it read yet."""
    found = member(group, name, path)
    if not isinstance(found, h5py.Dataset):
        raise CheckpointError(f"{path!r}: {found.name!r} is a group where a dataset (a "
                              "weight) belongs")
    if found.is_virtual:
        raise CheckpointError(f"{path!r}: {found.name!r} is a virtual dataset, made of other "
                              "files' data; a checkpoint may not read other files")
    if found.id.get_create_plist().get_external_count():
        raise CheckpointError(f"{path!r}: {found.name!r} keeps its data in external files; "
                              "a checkpoint may not read other files")
    if found.dtype.kind not in NUMERIC_KINDS or found.dtype.fields is not None:
        raise CheckpointError(f"{path!r}: {found.name!r} holds {found.dtype}, not plain "
                              "numbers (bool, int or float)")
    return found


def read(dset, shape, path):
    """The values of a dataset from `dataset`, once its declared shape is `shape` (what
    the model expects) and it fits in memory."""
    if tuple(dset.shape) != tuple(shape):
        raise CheckpointError(f"{path!r}: {dset.name!r} has shape {tuple(dset.shape)}, "
                              f"expected {tuple(shape)}")
    try:
        check_fits(dset.shape, dset.dtype, f"{path!r}: {dset.name!r}")
    except MemoryError as e:
        raise CheckpointError(str(e)) from None
    try:
        return np.asarray(dset[()])
    except (OSError, ValueError, TypeError, RuntimeError) as e:
        raise CheckpointError(f"cannot read {dset.name!r} of {path!r} (truncated or "
                              f"damaged?): {type(e).__name__}: {e}") from e


def blocks(dset, path, limit=1 << 24):
    """A dataset's values in C order, a block of at most about `limit` bytes at a time
    (a checksum over data the model does not use needs no room for all of it)."""
    if dset.nbytes <= limit:
        yield read(dset, dset.shape, path)
        return
    for index in _block_slices(dset.shape, dset.dtype.itemsize, limit):
        try:
            yield np.asarray(dset[index])
        except (OSError, ValueError, TypeError, RuntimeError) as e:
            raise CheckpointError(f"cannot read {dset.name!r} of {path!r} (truncated or "
                                  f"damaged?): {type(e).__name__}: {e}") from e


def _block_slices(shape, itemsize, limit):
    """Index tuples that cut an array of `shape` into blocks of at most `limit` bytes
    (one row when a row alone is larger), in C order."""
    inner = itemsize
    for d in shape[1:]:
        inner *= d
    if inner <= limit or len(shape) == 1:
        step = max(1, limit // max(1, inner))
        for start in range(0, shape[0], step):
            yield (slice(start, start + step),)
        return
    for i in range(shape[0]):
        for rest in _block_slices(shape[1:], itemsize, limit):
            yield (slice(i, i + 1),) + rest
