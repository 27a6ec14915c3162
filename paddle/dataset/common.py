"""Where data set files live, how they get there, and the error when they cannot be read.

Files are kept under `PADDLE_DATA_HOME` (default `~/.cache/paddle/dataset`), one folder per
data set: `$PADDLE_DATA_HOME/mnist/train-images-idx3-ubyte.gz`. A file already there is used
as it is, so a machine without network access works once the files are copied in. A
missing file is downloaded when its address is known, and checked against its MD5 sum when
that is known.
"""
import contextlib
import gzip
import hashlib
import http.client
import os
import stat
import sys
import time
import urllib.request
import zlib

from paddle._atomic import atomic_path
from paddle.errors import PaddleError

DEFAULT_HOME = os.path.join("~", ".cache", "paddle", "dataset")

# Downloads give up after this many seconds without data: an offline machine should get
# the "put the file here" message quickly, not hang.
TIMEOUT_SECONDS = 15
# ... and after this many seconds in all, or this many bytes: a server trickling a byte
# every few seconds, or sending without end, must not keep a download alive forever.
DEADLINE_SECONDS = 30 * 60
MAX_DOWNLOAD_BYTES = 4 << 30
# DEFLATE expands at most 1032 to 1 (a 258-byte match per code of under 2 bits): what a
# gzipped file may declare beyond that is a lie, refused before anything is read.
MAX_GZIP_RATIO = 1032

def urlopen(url, timeout):
    """`urllib.request.urlopen`, looked up at call time: a test that replaces either this
    function or urllib's own forbids the network (binding urllib's at import would keep
    the original, and a patched urllib would still download)."""
    return urllib.request.urlopen(url, timeout=timeout)


class DatasetError(PaddleError, OSError):
    """A data file that is missing, could not be downloaded, or is not in the expected format."""


def data_home():
    """The folder data sets are cached in: `$PADDLE_DATA_HOME` or `~/.cache/paddle/dataset`.

    Returns:
        An absolute path (which may not exist yet).

    Example:
        >>> import os
        >>> from paddle.dataset import common
        >>> os.path.isabs(common.data_home())
        True
    """
    return os.path.abspath(os.path.expanduser(os.environ.get("PADDLE_DATA_HOME") or DEFAULT_HOME))


def md5file(path):
    """The MD5 hex digest of a file, read in chunks.

    Args:
        path: the file.

    Returns:
        32 lowercase hex digits.

    Example:
        >>> import os, tempfile
        >>> from paddle.dataset import common
        >>> path = os.path.join(tempfile.mkdtemp(), "empty")
        >>> open(path, "wb").close()
        >>> common.md5file(path)
        'd41d8cd98f00b204e9800998ecf8427e'
    """
    digest = hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch(dataset, filename, urls=(), md5=None, alternatives=()):
    """The path of a data file in the cache, downloading it first when it is missing.

    A file already in the cache is used without its checksum (so files copied in by
    hand, or unpacked, work), but it is checked as a download is for the rest: it must
    be a regular file of at most MAX_DOWNLOAD_BYTES. Its reader then validates its
    contents as it does a download's (docs/security.md).

    Args:
        dataset: the data set's folder under `data_home()`, e.g. "mnist".
        filename: the file's name in that folder.
        urls: addresses to try in turn when the file is missing.
        md5: the expected MD5 of a downloaded file, or None when unknown.
        alternatives: other names accepted in place of `filename` when present, such as
            the uncompressed form of a `.gz` file.

    Returns:
        The absolute path of the file.

    Raises:
        DatasetError: the file is missing and could not be downloaded (the message says
            where to put it), the download did not match its MD5, or the cached file is
            not a regular file or is larger than a download may be.

    Example:
        >>> import os, tempfile
        >>> from paddle.dataset import common
        >>> os.environ["PADDLE_DATA_HOME"] = tempfile.mkdtemp()
        >>> os.makedirs(os.path.join(common.data_home(), "toy"))
        >>> open(os.path.join(common.data_home(), "toy", "toy.txt"), "w").close()
        >>> os.path.basename(common.fetch("toy", "toy.txt"))
        'toy.txt'
        >>> del os.environ["PADDLE_DATA_HOME"]
    """
    folder = os.path.join(data_home(), dataset)
    path = os.path.join(folder, filename)
    for name in (filename, *alternatives):
        if os.path.exists(os.path.join(folder, name)):
            return _checked_cached(os.path.join(folder, name))
    failures = []
    for url in urls:
        try:
            _download(url, path, md5)
            return path
        except (OSError, http.client.HTTPException) as error:  # URLError and timeouts are OSErrors
            failures.append(f"{url}: {error}")
    tried = f" and could not be downloaded ({'; '.join(failures)})" if failures else ""
    also = "".join(f" (or {os.path.join(folder, name)})" for name in alternatives)
    raise DatasetError(
        f"{dataset}: {filename} is missing{tried}. Download it yourself and save it as "
        f"{path}{also}, or set PADDLE_DATA_HOME to the folder that holds {dataset}/")


def _checked_cached(path):
    """`path`, a file found in the cache, once it is what a download could have left: a
    regular file (a FIFO or a device such as /dev/zero would never end) within
    MAX_DOWNLOAD_BYTES."""
    with reading(path):
        info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise DatasetError(f"{path} is not a regular file (a data file is downloaded as "
                           f"one); delete it to download it again")
    if info.st_size > MAX_DOWNLOAD_BYTES:
        raise DatasetError(f"{path} holds {info.st_size} bytes, more than the "
                           f"{MAX_DOWNLOAD_BYTES} a data file may have; delete it to "
                           f"download it again")
    return path


def fetch_file(path, urls, sha256=None, what=None, md5=None):
    """`path` (a file in a cache folder that is not paddle's, such as Keras's) when it is
    there, else downloaded to it from `urls` in turn, through the same guarded download
    as `fetch` (deadline, size cap), checked against its SHA-256 when given.

    Args:
        path: the file's absolute path.
        urls: addresses to try in turn when the file is missing.
        sha256: the expected SHA-256 of a download, or None when unknown.
        what: the data set's name, for the messages.
        md5: the expected MD5 of a download (where the publisher gives only that).

    Returns:
        `path`.

    Raises:
        DatasetError: the file is missing and could not be downloaded (the message says
            where to put it), or the download does not match its SHA-256.

    Example:
        >>> import os, tempfile
        >>> from paddle.dataset import common
        >>> path = os.path.join(tempfile.mkdtemp(), "here.txt")
        >>> open(path, "w").close()
        >>> common.fetch_file(path, urls=()) == path
        True
    """
    if os.path.exists(path):
        return _checked_cached(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    failures = []
    for url in urls:
        try:
            _download(url, path, md5, sha256)
            return path
        except (OSError, http.client.HTTPException) as error:
            failures.append(f"{url}: {error}")
    tried = f" and could not be downloaded ({'; '.join(failures)})" if failures else ""
    raise DatasetError(f"{what or os.path.basename(path)}: {path} is missing{tried}. "
                       f"Download it yourself ({' or '.join(urls) or 'its source'}) and save "
                       f"it as {path}")


def sha256file(path):
    """The SHA-256 hex digest of a file, read in chunks.

    Args:
        path: the file.

    Returns:
        64 lowercase hex digits.

    Example:
        >>> import os, tempfile
        >>> from paddle.dataset import common
        >>> path = os.path.join(tempfile.mkdtemp(), "empty")
        >>> open(path, "wb").close()
        >>> common.sha256file(path)[:16]
        'e3b0c44298fc1c14'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _download(url, path, md5, sha256=None):
    """Download `url` to `path` through a unique temporary file (`.name.<random>.part`,
    paddle/_atomic.py), so no half file is ever left under the name; such files of
    killed downloads are removed by a later download into the folder after a day."""
    print(f"Downloading {url} to {path}", file=sys.stderr)
    with atomic_path(path, suffix=".part") as partial:
        with open(partial, "wb") as out, urlopen(url, timeout=TIMEOUT_SECONDS) as response:
            _copy_limited(response, out, url)
        if md5 is not None and md5file(partial) != md5:
            raise DatasetError(
                f"the download has MD5 {md5file(partial)}, expected {md5} (a partial or altered file)")
        if sha256 is not None and sha256file(partial) != sha256:
            raise DatasetError(f"the download has SHA-256 {sha256file(partial)}, expected "
                               f"{sha256} (a partial or altered file)")


def _copy_limited(response, out, url):
    """Copy the response within DEADLINE_SECONDS and MAX_DOWNLOAD_BYTES."""
    declared = getattr(response, "headers", None) and response.headers.get("Content-Length")
    if declared and declared.isdigit() and int(declared) > MAX_DOWNLOAD_BYTES:
        raise DatasetError(f"{url} announces {int(declared)} bytes, more than the "
                           f"{MAX_DOWNLOAD_BYTES} a data file may have")
    # read1 returns what one receive brings (each within TIMEOUT_SECONDS), so the deadline
    # is checked while a slow server trickles; read(n) would wait for all n bytes.
    read = getattr(response, "read1", response.read)
    deadline, total = time.monotonic() + DEADLINE_SECONDS, 0
    while True:
        chunk = read(1 << 16)
        if not chunk:
            return
        total += len(chunk)
        if total > MAX_DOWNLOAD_BYTES:
            raise DatasetError(f"{url} sent more than {MAX_DOWNLOAD_BYTES} bytes, more than a "
                               "data file may have")
        if time.monotonic() > deadline:
            raise DatasetError(f"{url} took more than {DEADLINE_SECONDS} s to download "
                               f"({total} bytes so far)")
        out.write(chunk)


def read_maybe_gzip(path, max_bytes=MAX_DOWNLOAD_BYTES):
    """The bytes of a file, decompressed when it is gzipped (whatever its name says).

    Decompression stops past `max_bytes`: a small gzip bomb cannot fill the memory.
    A reader of a format with a header uses `open_maybe_gzip` and `read_exactly`
    instead, to read no more than its header declares.

    Args:
        path: the file.
        max_bytes: the most (decompressed) bytes the file may hold.

    Returns:
        bytes.

    Raises:
        DatasetError: the file cannot be read, its gzip stream is corrupt or truncated,
            or it holds more than `max_bytes`.

    Example:
        >>> import gzip, os, tempfile
        >>> from paddle.dataset import common
        >>> path = os.path.join(tempfile.mkdtemp(), "a.gz")
        >>> with gzip.open(path, "wb") as f:
        ...     _ = f.write(b"hello")
        >>> common.read_maybe_gzip(path)
        b'hello'
    """
    with reading(path), open_maybe_gzip(path) as (stream, _):
        data = read_exactly(stream, max_bytes)
        if stream.read(1):
            raise DatasetError(f"{path} holds more than {max_bytes} bytes (decompressed), "
                               "more than a data file may have")
    return data


@contextlib.contextmanager
def open_maybe_gzip(path):
    """The file's bytes as a stream, decompressed as they are read when it is gzipped.

    Use inside `reading(path)`, which turns the errors of a corrupt file into a
    `DatasetError`.

    Args:
        path: the file.

    Returns:
        A context manager giving (binary stream, capacity): capacity is the most bytes
        the stream can give, the file's size, or MAX_GZIP_RATIO times it when gzipped.

    Example:
        >>> import gzip, os, tempfile
        >>> from paddle.dataset import common
        >>> path = os.path.join(tempfile.mkdtemp(), "a.gz")
        >>> with open(path, "wb") as f:
        ...     _ = f.write(gzip.compress(b"hello"))
        >>> with common.open_maybe_gzip(path) as (stream, capacity):
        ...     stream.read(2), capacity > 5
        (b'he', True)
    """
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if f.read(2) != b"\x1f\x8b":
            f.seek(0)
            yield f, size
            return
        f.seek(0)
        with gzip.GzipFile(fileobj=f, mode="rb") as stream:
            yield stream, size * MAX_GZIP_RATIO


def read_exactly(stream, count, block=1 << 20):
    """Up to `count` bytes of `stream` (fewer only when it ends first), read a block at a
    time: the memory used follows what the stream holds, not what a header claims.

    Args:
        stream: a binary stream.
        count: how many bytes to read.
        block: the most bytes read at once.

    Returns:
        bytes, `count` of them unless the stream ended first.

    Example:
        >>> import io
        >>> from paddle.dataset import common
        >>> common.read_exactly(io.BytesIO(b"abcdef"), 4), common.read_exactly(io.BytesIO(b"ab"), 4)
        (b'abcd', b'ab')
    """
    chunks, held = [], 0
    while held < count:
        chunk = stream.read(min(block, count - held))
        if not chunk:
            break
        chunks.append(chunk)
        held += len(chunk)
    return b"".join(chunks)


@contextlib.contextmanager
def reading(path):
    """Turn the low-level errors of reading a data file into a `DatasetError` naming it.

    Args:
        path: the file being read.

    Returns:
        A context manager.

    Raises:
        DatasetError: an OSError, EOFError or zlib.error escaped the block.

    Example:
        >>> from paddle.dataset import common
        >>> try:
        ...     with common.reading("/no/such/file"):
        ...         open("/no/such/file")
        ... except common.DatasetError as error:
        ...     print("cannot read /no/such/file" in str(error))
        True
    """
    try:
        yield
    except DatasetError:
        raise
    except (OSError, EOFError, zlib.error) as error:
        raise DatasetError(f"cannot read {path}: {error}; delete it to download it again, "
                           f"or replace it with a good copy") from error
