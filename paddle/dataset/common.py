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

    A file already in the cache is trusted as it is (its checksum is not checked, so
    files copied in by hand, or unpacked, work); its reader reports a broken format.

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
            where to put it), or the download did not match its MD5.

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
        if os.path.isfile(os.path.join(folder, name)):
            return os.path.join(folder, name)
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


def _download(url, path, md5):
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


def read_maybe_gzip(path):
    """The bytes of a file, decompressed when it is gzipped (whatever its name says).

    Args:
        path: the file.

    Returns:
        bytes.

    Raises:
        DatasetError: the file cannot be read or its gzip stream is corrupt or truncated.

    Example:
        >>> import gzip, os, tempfile
        >>> from paddle.dataset import common
        >>> path = os.path.join(tempfile.mkdtemp(), "a.gz")
        >>> with gzip.open(path, "wb") as f:
        ...     _ = f.write(b"hello")
        >>> common.read_maybe_gzip(path)
        b'hello'
    """
    with reading(path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    return data


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
