"""Atomic file writes: every file paddle saves (models, weights, checkpoints, Trainer
parameters, exports, plots) and downloads goes through `atomic_path`.

The data is written to a temporary file of a unique name in the target's folder, flushed
and fsynced, renamed over the target (`os.replace`, atomic on one file system) and the
folder fsynced, so the target is always either the old file or the whole new one. Two
saves to the same target at once (threads or processes) each write their own temporary
file; both succeed and the target is one of the two. A save killed on the way leaves its
temporary file behind: such files of ours (named `.<target>.<random>.paddle-tmp`) older
than a day are removed by the next save into that folder.

What sits at the target is checked before anything is written. A save replaces only a
regular file (or writes a new name): a folder, a FIFO, a device node or a socket is
refused, as is a file this process may not write (an in-place write, as Keras does it,
would fail on it too). The new file keeps the replaced file's permission bits and owner
(a checkpoint made private stays private), and is created private until it has them. A
symbolic link is followed: the file it points to is replaced and the link kept. A
missing folder is an error for saves (FileNotFoundError naming it); data-set downloads
create their cache folder.

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
import stat
import time

SUFFIX = ".paddle-tmp"
STALE_SECONDS = 24 * 3600
PERMISSIONS = 0o777  # the bits a replacing file copies (never setuid, setgid or sticky)

# What a target that is not a regular file is, for the error message.
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


@contextlib.contextmanager
def atomic_path(path, overwrite=True, suffix=SUFFIX, example="model.h5", create_folder=True,
                who="save"):
    """Yield a fresh temporary path beside `path` to write; on a normal exit it replaces
    `path` durably, on an exception it is removed and `path` is left as it was.

    Args:
        path: the target (a symbolic link is followed).
        overwrite: False refuses an existing target.
        suffix: the temporary file's suffix (stale ones are cleaned up by it).
        example: a file name for the message when `path` is a folder.
        create_folder: create a missing folder (with its parents) instead of refusing it:
            for a data-set download into its cache; model saves, exports and plots pass
            False (Keras does not create folders either).
        who: what saves, for the messages ("save", "export", "plot_model").

    Raises:
        IsADirectoryError: `path` is a folder.
        FileExistsError: `path` exists and overwrite is False.
        FileNotFoundError: the folder of `path` does not exist and create_folder is False.
        PermissionError: `path` exists and this process may not write it, or its owner
            cannot be kept.
        OSError: `path` exists and is not a regular file (a FIFO, a device node, a socket).
    """
    path = os.path.realpath(path)
    existing = _existing_target(path, overwrite, example, who)
    folder = os.path.dirname(path)
    _check_folder(path, create_folder, who)
    remove_stale(folder, suffix)
    tmp = _create_unique(path, suffix, existing is not None, who)
    try:
        if existing is not None:
            _take_over(tmp, path, existing, who)
        yield tmp
        _fsync_file(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.remove(tmp)
        raise
    fsync_folder(folder)


def write_bytes(path, data, who):
    """Write `data` to `path` through `atomic_path` (exports and plots); `who` names the
    caller in the errors. The folder must exist."""
    path = os.fspath(path)
    with atomic_path(path, example=f"file{os.path.splitext(path)[1]}", create_folder=False,
                     who=who) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)


def _existing_target(path, overwrite, example, who):
    """The os.stat of the regular file at `path`, None when nothing is there; errors for
    anything a save must not replace."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):  # its folder is checked next
        return None
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"{who}: {path} is a folder; give a file name such as "
                                f"{os.path.join(path, example)}")
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
        raise OSError(f"{who}: {path} is {kind}, not a regular file; paddle replaces only "
                      "regular files (give a file name, or remove what is there first)")
    if not overwrite:
        raise FileExistsError(f"{who}: {path} exists and overwrite=False")
    if not os.access(path, os.W_OK):
        raise PermissionError(f"{who}: {path} exists and is not writable (mode "
                              f"{stat.S_IMODE(st.st_mode):o}); it is left as it is")
    return st


def _check_folder(path, create, who):
    """The folder of `path` exists (or, with `create`, is created); errors naming it."""
    folder = os.path.dirname(path)
    if os.path.isdir(folder):
        return
    if create and not os.path.exists(folder):
        os.makedirs(folder, exist_ok=True)
        return
    if os.path.exists(folder):
        raise NotADirectoryError(f"{who}: cannot write {path}: {folder} is not a folder")
    raise FileNotFoundError(f"{who}: cannot write {path}: the folder {folder} does not "
                            "exist; create it first (a save creates no folder, as in Keras)")


def _create_unique(path, suffix, private, who):
    """Create (O_EXCL) a file beside `path` that no one else has: readable by this user
    only when `private` (it will replace a file whose permissions it takes over before any
    data is written: a descriptor opened on it meanwhile would outlive a later chmod),
    else as open() makes a new file (0o666 less the umask)."""
    folder, base = os.path.split(path)
    while True:
        tmp = os.path.join(folder, f".{base}.{secrets.token_hex(6)}{suffix}")
        try:
            os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY,
                             0o600 if private else 0o666))
            return tmp
        except FileExistsError:
            continue
        except OSError as e:  # a read-only folder or file system, no room, ...
            raise type(e)(f"{who}: cannot write {path}: {e.strerror or e}") from e


def _take_over(tmp, path, existing, who):
    """Give `tmp` the owner and permission bits of the file it will replace; before any
    data is written, so a private checkpoint is never readable by others, not even in its
    temporary file. PermissionError when the owner cannot be kept (another user's file)."""
    mine = os.stat(tmp)
    if (mine.st_uid, mine.st_gid) != (existing.st_uid, existing.st_gid):
        try:
            os.chown(tmp, existing.st_uid, existing.st_gid)
        except PermissionError:
            raise PermissionError(
                f"{who}: {path} belongs to uid {existing.st_uid}, gid {existing.st_gid}; "
                f"replacing it would give it to uid {mine.st_uid}, gid {mine.st_gid}, and "
                "this process cannot keep its owner: it is left as it is (save under "
                "another name, or remove it first)") from None
    os.chmod(tmp, stat.S_IMODE(existing.st_mode) & PERMISSIONS)


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
