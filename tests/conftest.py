"""Shared test setup: the test helpers are importable, the `gpu` marker skips without a GPU."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


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
