"""The polling loop every collective waits in (paddle/distributed/polling.py)."""
import time

import pytest

from paddle.distributed import polling


class Late:
    """done() turns true on the n-th poll."""

    def __init__(self, n):
        self.n, self.polls = n, 0

    def __call__(self):
        self.polls += 1
        return self.polls >= self.n


def test_returns_at_once_when_already_done():
    done = Late(1)
    polling.wait_until(done, 1.0, pytest.fail)
    assert done.polls == 1


def test_polls_until_done_and_runs_the_check():
    done, checks = Late(1000), []
    polling.wait_until(done, 10.0, pytest.fail, check=lambda: checks.append(1))
    assert done.polls == 1000
    assert len(checks) == 999 // polling.CHECK_EVERY


def test_timeout_calls_on_timeout(monkeypatch):
    monkeypatch.setattr(polling, "SPIN_SECONDS", 0.01)

    class Expired(Exception):
        pass

    def expire():
        raise Expired

    start = time.monotonic()
    with pytest.raises(Expired):
        polling.wait_until(lambda: False, 0.05, expire)
    assert time.monotonic() - start >= 0.05


def test_naps_after_the_spin(monkeypatch):
    monkeypatch.setattr(polling, "SPIN_SECONDS", 0.0)
    naps = []
    monkeypatch.setattr(polling.time, "sleep", lambda s: naps.append(s))
    polling.wait_until(Late(3 * polling.CHECK_EVERY), None, pytest.fail)
    # done() is called 3 * CHECK_EVERY times: once before the loop, then once per failed
    # poll and once more to end it. The first CHECK_EVERY failed polls yield the core; at
    # the clock check after them the spin is over, and every later failed poll naps.
    assert all(s == polling.NAP for s in naps)
    assert len(naps) == (3 * polling.CHECK_EVERY - 2) - polling.CHECK_EVERY
