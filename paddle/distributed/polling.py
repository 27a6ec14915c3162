"""Waiting for a collective without MPI's blocking calls (which cannot give up).

A rank that reaches a collective first polls it. For the first `SPIN_SECONDS` it polls
back to back, offering its core to any other runnable thread between polls
(`sched_yield`): with one rank per core the partner's arrival is seen within
microseconds, and on a machine with more ranks than cores the yield hands the core to the
rank being waited for. After that it naps `NAP` seconds between polls, so a rank stuck
waiting for a slow one (a long evaluation, a checkpoint) does not burn a core.

The ranks of a data-parallel step meet twice per step, a fraction of a millisecond apart
when they are balanced: napping there (about 0.6 ms a nap, the scheduler's wake-up
included) cost the two-process MLP of benchmarks/distributed.py a tenth of its
throughput, which the spin takes back.
"""
import os
import time

SPIN_SECONDS = 0.05  # poll back to back (yielding the core) this long before napping
NAP = 0.0005         # seconds between polls after that
CHECK_EVERY = 64     # polls between looks at the clock for the timeout


def wait_until(done, timeout, on_timeout, check=None):
    """Return once `done()` is true.

    Args:
        done: a callable polled until it returns True.
        timeout: seconds to wait at most, or None for no limit.
        on_timeout: called (it must raise) when `timeout` passes first.
        check: optional callable run every CHECK_EVERY polls (an asynchronous error check).
    """
    if done():
        return
    start = time.monotonic()
    spin_end = start + SPIN_SECONDS
    deadline = None if timeout is None else start + timeout
    yield_core = getattr(os, "sched_yield", None) or (lambda: None)
    polls = 0
    napping = False
    while not done():
        polls += 1
        if napping:
            time.sleep(NAP)
        else:
            yield_core()
        if polls % CHECK_EVERY == 0:
            if check is not None:
                check()
            now = time.monotonic()
            napping = now > spin_end
            if deadline is not None and now > deadline:
                on_timeout()
