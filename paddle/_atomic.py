"""Atomic file writes: every file paddle saves (models, weights, checkpoints, Trainer
parameters) and downloads goes through `atomic_path`.

The data is written to a temporary file of a unique name in the target's folder, flushed
and fsynced, renamed over the target (`os.replace`, atomic on one file system) and the
folder fsynced, so the target is always either the old file or the whole new one. Two
saves to the same target at once (threads or processes) each write their own temporary
file; both succeed and the target is one of the two. A save killed on the way leaves its
temporary file behind: such files of ours (named `.<target>.<random>.paddle-tmp`) older
than a day are removed by the next save into that folder.

Example:
    >>> import os, tempfile
    >>> from paddle import _atomic
    >>> folder = tempfile.mkdtemp()
    >>> target = os.path.join(folder, "notes.txt")
    >>> with _atomic.atomic_path(target) as tmp:
    ...     with open(tmp, "w") as f:
    ...         _ = f.write("saved")
    >>> with open(target) as f:
    ...     f.read(), os.listdir(folder)
    ('saved', ['notes.txt'])
"""
import contextlib
import os
import secrets
import time

SUFFIX = ".paddle-tmp"
STALE_SECONDS = 24 * 3600


@contextlib.contextmanager
def atomic_path(path, overwrite=True, suffix=SUFFIX, example="model.h5"):
    """Yield a fresh temporary path beside `path` to write; on a normal exit it replaces
    `path` durably, on an exception it is removed and `path` is left as it was.

    Raises:
        IsADirectoryError: `path` is a folder.
        FileExistsError: `path` exists and overwrite is False.
    """
    path = os.path.abspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(f"save: {path} is a folder; give a file name such as "
                                f"{os.path.join(path, example)}")
    if not overwrite and os.path.exists(path):
        raise FileExistsError(f"{path} exists and overwrite=False")
    folder, base = os.path.split(path)
    os.makedirs(folder, exist_ok=True)
    remove_stale(folder, suffix)
    tmp = _create_unique(folder, base, suffix)
    try:
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise
    fsync_folder(folder)


def _create_unique(folder, base, suffix):
    """Create (O_EXCL, permissions as the umask gives them) a file no one else has."""
    while True:
        tmp = os.path.join(folder, f".{base}.{secrets.token_hex(6)}{suffix}")
        try:
            os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
            return tmp
        except FileExistsError:
            continue


def _fsync_file(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_folder(folder):
    """Make a rename in `folder` durable; not every platform can open a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale(folder, suffix=SUFFIX, max_age=STALE_SECONDS):
    """Remove our temporary files (hidden, ending in `suffix`) in `folder` that are older
    than `max_age` seconds: left by saves that were killed. A live save's file is younger,
    and a file another process removes first is no error."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    now = time.time()
    for name in names:
        if not (name.startswith(".") and name.endswith(suffix)):
            continue
        full = os.path.join(folder, name)
        with contextlib.suppress(OSError):
            if now - os.lstat(full).st_mtime > max_age:
                os.remove(full)
