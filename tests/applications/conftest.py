"""The applications' tests never reach the network: a weights file or class index missing
from the (temporary) Keras cache makes the guarded download fail as it does offline,
recording each address tried."""
import urllib.error

import pytest

from paddle.dataset import common


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    attempts = []

    def fail(url, timeout=None):
        attempts.append(url)
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    monkeypatch.setattr(common, "urlopen", fail)
    return attempts
