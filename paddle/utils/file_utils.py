"""`get_file`: Keras's cached-file lookup, without the network.

`get_file` never downloads (the data sets and the applications' weights do, through
paddle/dataset/common.py's guarded download). It finds the file in Keras's cache
(`~/.keras/datasets` by default, or under `$KERAS_HOME`: files Keras downloaded before are
found), checks its hash when one is given, and copies `file://` origins into the cache; an
`http(s)://` origin whose file is not cached raises a ValueError saying where to put it.
Archives are not extracted (`extract`/`untar` are refused: extract it yourself, with care
for untrusted archives, see docs/security.md).

Example:
    >>> import os, tempfile, paddle as pd
    >>> src = os.path.join(tempfile.mkdtemp(), "numbers.csv")
    >>> with open(src, "w") as f:
    ...     _ = f.write("1,2,3\\n")
    >>> cache = tempfile.mkdtemp()
    >>> path = pd.utils.get_file(origin="file://" + src, cache_dir=cache)
    >>> with open(path) as f:
    ...     os.path.relpath(path, cache), f.read()
    ('datasets/numbers.csv', '1,2,3\\n')
"""
import hashlib
import os
import shutil
import urllib.parse

from paddle.dataset.keras_files import keras_home as _keras_home  # the one rule of it


def _hash(path, algorithm):
    digest = hashlib.sha256() if algorithm == "sha256" else hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _algorithm(file_hash, algorithm):
    if algorithm == "auto":
        return "sha256" if len(str(file_hash)) == 64 else "md5"
    return algorithm


def validate_file(fpath, file_hash, algorithm="auto"):
    """Whether the file's hash is `file_hash` ("sha256" or "md5"; "auto": sha256 for a
    64-character hash, md5 otherwise), as Keras's `validate_file`."""
    algorithm = _algorithm(file_hash, algorithm)
    if algorithm not in ("sha256", "md5"):
        raise ValueError(f"get_file: expected hash_algorithm 'auto', 'sha256' or 'md5', "
                         f"received {algorithm!r}")
    return _hash(fpath, algorithm) == str(file_hash)


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None, force_download=False):
    """The path of a file in Keras's cache, without downloading (see the module docstring).

    Args:
        fname: the file's name in the cache (default: the last part of `origin`'s path).
        origin: where the file comes from: a `file://` URL or a local path is copied into
            the cache; an `http(s)://` URL is only used for its name and in the error.
        untar, extract, archive_format: Keras's archive extraction; paddle refuses
            `untar=True` and `extract=True`.
        md5_hash, file_hash, hash_algorithm: the expected hash of the file; a cached file
            that does not match is refused (a local origin is copied again).
        cache_subdir: the folder under cache_dir ("datasets").
        cache_dir: the cache's root (default `$KERAS_HOME` or `~/.keras`).
        force_download: copy a local origin again even when cached.

    Returns:
        The file's path in the cache.

    Raises:
        ValueError: no origin, a name with a path in it, extraction asked for, a remote file
            that is not cached, a hash that does not match.
    """
    if origin is None:
        raise ValueError('get_file: please specify the "origin" argument (URL of the file)')
    if untar or extract:
        raise ValueError(f"get_file: paddle does not extract archives (received "
                         f"untar={untar!r}, extract={extract!r}); call it without them and "
                         "extract the file it returns yourself")
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    if file_hash is not None:
        hash_algorithm = _algorithm(file_hash, hash_algorithm)
    parsed = urllib.parse.urlsplit(str(origin))
    local = parsed.path if parsed.scheme == "file" else \
        str(origin) if parsed.scheme == "" else None
    fname = os.fspath(fname) if fname is not None else ""
    if not fname:
        fname = os.path.basename(parsed.path)
        if not fname:
            raise ValueError(f"get_file: can't parse the file name from the origin "
                             f"{origin!r}; please specify the `fname` argument")
    elif os.sep in fname:
        raise ValueError(f"get_file: paths are not accepted as fname (use cache_dir for the "
                         f"folder), received fname={fname!r}")
    target = os.path.join(os.path.expanduser(cache_dir or _keras_home()), cache_subdir, fname)
    cached = os.path.exists(target) and not force_download
    if cached and file_hash is not None and not validate_file(target, file_hash,
                                                               hash_algorithm):
        if local is None:
            raise ValueError(f"get_file: the cached file {target!r} does not match the "
                             f"{hash_algorithm} hash {file_hash!r}, and paddle does not "
                             f"download {origin!r}: replace the file")
        cached = False
    if cached:
        return target
    if local is None:
        raise ValueError(f"get_file: {target!r} is not in the cache and paddle does not "
                         f"download ({origin!r}): fetch the file yourself and put it there, "
                         "or pass a file:// origin")
    if not os.path.isfile(local):
        raise ValueError(f"get_file: the origin {origin!r} is not a file")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    partial = target + ".part"
    shutil.copyfile(local, partial)
    if file_hash is not None and not validate_file(partial, file_hash, hash_algorithm):
        os.remove(partial)
        raise ValueError(f"get_file: {origin!r} does not match the {hash_algorithm} hash "
                         f"{file_hash!r}")
    os.replace(partial, target)
    return target
