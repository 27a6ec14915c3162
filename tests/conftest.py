"""Shared test setup: the test helpers are importable, the `gpu` marker skips without a GPU."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

# NumPy's own OpenBLAS runs single-threaded in the tests, as paddle's does (csrc/module.cpp):
# the tests' arrays are small, and on a busy 2-core machine two BLAS threads that spin while
# they wait for each other made the simulated GPU (NumPy) up to five times slower (the
# digits convnet test: 4 s on idle cores, 89 s under a load of 6, 34 s with one thread).
# Set before anything imports NumPy (OpenBLAS reads it once); the user's setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def pytest_collection_modifyitems(config, items):
    from paddle.devices import cuda
    if cuda.available:
        return
    skip = pytest.mark.skip(reason="marked gpu: needs an NVIDIA GPU and CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter):
    """One line on what was skipped and why, even under -q (which shows no reasons):
    without a GPU the `gpu` tests are most of them."""
    reasons = skip_reasons(terminalreporter.stats.get("skipped", []))
    if reasons:
        total = sum(reasons.values())
        common = "; ".join(f"{reason} ({n})" for reason, n in reasons.most_common(3))
        others = len(reasons) - 3
        more = f"; {others} other reason{'s' if others > 1 else ''}" if others > 0 else ""
        terminalreporter.write_line(f"{total} skipped: {common}{more} (-rs lists each)")


def skip_reasons(reports):
    """Counter of the reasons of skipped test reports ({'marked gpu: needs ...': n})."""
    from collections import Counter
    reasons = Counter()
    for report in reports:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reasons[reason.removeprefix("Skipped: ")] += 1
    return reasons
