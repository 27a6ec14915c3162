"""`RemoteMonitor`: each epoch's logs posted to an HTTP server, as Keras's (which uses the
`requests` package; paddle posts with Python's own urllib, so nothing extra is needed)."""
import json
import urllib.error
import urllib.parse
import urllib.request
import warnings

import numpy as np

from paddle.distributed import world
from paddle.highlevel.callbacks.base import Callback


class RemoteMonitor(Callback):
    """Post `{"epoch": epoch, **logs}` to `root + path` at the end of every epoch: as a
    form field `field` holding the JSON text (the default), or as a JSON body. A server
    that cannot be reached gives a warning, not an error. In distributed training, rank 0
    alone posts.

    Args:
        root: the server's root URL.
        path: the path below `root` the events are posted to.
        field: the form field holding the JSON (with `send_as_json=False`).
        headers: extra HTTP headers, a dict.
        send_as_json: post the logs as an "application/json" body.

    Example:
        >>> import paddle as pd
        >>> monitor = pd.callbacks.RemoteMonitor(root="http://localhost:9000")
        >>> monitor.root + monitor.path
        'http://localhost:9000/publish/epoch/end/'
    """

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/", field="data",
                 headers=None, send_as_json=False):
        super().__init__()
        if headers is not None and not isinstance(headers, dict):
            raise TypeError(f"RemoteMonitor: expected headers as a dict, received {headers!r}")
        self.root, self.path, self.field = root, path, field
        self.headers = headers
        self.send_as_json = bool(send_as_json)

    def on_epoch_end(self, epoch, logs=None):
        if not world.is_chief():
            return
        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            send[key] = value.item() if isinstance(value, (np.ndarray, np.generic)) else value
        headers = dict(self.headers or {})
        if self.send_as_json:
            body = json.dumps(send).encode()
            headers.setdefault("Content-Type", "application/json")
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = urllib.request.Request(self.root + self.path, data=body, headers=headers,
                                         method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
        except (urllib.error.URLError, OSError) as e:
            warnings.warn(f"RemoteMonitor: could not reach the server at {self.root}: {e}",
                          stacklevel=2)
