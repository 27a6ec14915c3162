"""Stored arrays and their copies on devices: which copy holds the current value.

Parameters, constants, optimizer slots and batch-norm statistics are NumPy arrays owned by
the host (a Variable's `_value`, an optimizer's `slots(var)`). A plan on a GPU computes
with a copy of each on the device and writes its updates there, so the state stays in GPU
memory across steps. This module keeps, per host array, its device copies and the set of
places whose copy is current ("fresh"):

- a device plan asks `on_device(host, dev)` when it is prepared (the copy is made once)
  and calls `sync` before each run: a copy that went stale (the host was written, by
  `set_value` or `load_weights`) is uploaded again;
- after the run, `written(arrays, dev)` marks the device copies as the only current ones;
- the host reads through `on_host(host)` (`Variable.value`, `val()`, `get_weights`,
  saving, `optimizer.slots`), which downloads a stale array once, and writes through
  `host_written(host)` (`set_value`), which makes every device copy stale;
- `writes()` counts the writes of all stored arrays (`host_written`, and the runs that
  update them: `stored_written`), so that values computed from them alone can be kept
  while it stays the same.

A CPU plan is the same with the host as its device. While no device copy exists at all,
every call here returns at its first test, so CPU-only programs pay nothing.

Example:
    >>> import numpy as np
    >>> from paddle.devices import mirrors
    >>> a = np.zeros(2, np.float32)
    >>> mirrors.on_host(a) is a
    True
"""
import weakref

_MIRRORS = {}  # id(host array) -> _Mirror; entries go with their host array
_WRITES = [0]  # writes(): stored arrays written so far (any of them)
HOST = "cpu"


class _Mirror:
    __slots__ = ("host", "copies", "fresh")

    def __init__(self, host):
        self.host = weakref.ref(host)
        self.copies = {}  # device backend -> its array
        self.fresh = {HOST}


def _drop(key):
    _MIRRORS.pop(key, None)


def active():
    """Whether any host array has a device copy (else syncing has nothing to do)."""
    return bool(_MIRRORS)


def has_copy(host):
    """Whether `host` has a copy on a device (a GPU plan reads or writes it)."""
    return id(host) in _MIRRORS


def on_host(host):
    """`host`, holding the current value: downloaded from its device copy when that is newer."""
    if not _MIRRORS or host is None:
        return host
    m = _MIRRORS.get(id(host))
    if m is None or HOST in m.fresh:
        return host
    dev = next(iter(m.fresh))
    dev.download_into(host, m.copies[dev])
    m.fresh.add(HOST)
    return host


def host_written(host):
    """The host array was written: every device copy is stale (and `writes()` moves on)."""
    _WRITES[0] += 1
    if not _MIRRORS:
        return
    m = _MIRRORS.get(id(host))
    if m is not None:
        m.fresh = {HOST}


def on_device(host, dev, where):
    """The copy of `host` on backend `dev` (the host array itself for the CPU), made on
    first use and brought up to date; `where` names it in an out-of-memory error."""
    if dev.is_host:
        return on_host(host)
    m = _MIRRORS.get(id(host))
    if m is None:
        m = _MIRRORS[id(host)] = _Mirror(host)
        weakref.finalize(host, _drop, id(host))
    copy = m.copies.get(dev)
    if copy is None:
        copy = m.copies[dev] = dev.empty(host.shape, host.dtype, where)
        m.fresh.discard(dev)
    if dev not in m.fresh:
        dev.upload(copy, on_host(host))
        m.fresh.add(dev)
    return copy


def sync(hosts, dev):
    """Before a run on `dev`: every array of `hosts` current there (re-uploaded if stale)."""
    if not _MIRRORS:
        return
    if dev.is_host:
        for h in hosts:
            on_host(h)
        return
    for h in hosts:
        m = _MIRRORS.get(id(h))
        if m is not None and dev not in m.fresh:
            dev.upload(m.copies[dev], on_host(h))
            m.fresh.add(dev)


def written(hosts, dev):
    """After a run on `dev` that may have written `hosts`: only its copies are current.
    (The run's program says itself whether it wrote a stored value: `stored_written`.)"""
    if not _MIRRORS:
        return
    if dev.is_host:
        for h in hosts:
            m = _MIRRORS.get(id(h))
            if m is not None:
                m.fresh = {HOST}
        return
    for h in hosts:
        m = _MIRRORS.get(id(h))
        if m is not None:
            m.fresh = {dev}


def stored_written():
    """A stored array was written other than through `host_written` (a run's updates):
    `writes()` moves on."""
    _WRITES[0] += 1


def writes():
    """A count that moves on at every write of a stored array (`host_written`, a program's
    run that updates parameters, slots or statistics): values computed from stored arrays
    alone stay valid while it stays (paddle/lowlevel/kept_values.py)."""
    return _WRITES[0]


def forget(dev):
    """Drop every copy on `dev` (its memory is released; the host copies are made current)."""
    for m in list(_MIRRORS.values()):
        host = m.host()
        if dev in m.copies:
            if host is not None:
                on_host(host)
            del m.copies[dev]
            m.fresh.discard(dev)
