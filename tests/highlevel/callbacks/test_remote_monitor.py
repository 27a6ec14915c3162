"""pd.callbacks.RemoteMonitor posts each epoch's logs to an HTTP server (a local one here)."""
import http.server
import json
import threading
import urllib.parse

import numpy as np
import pytest

import paddle as pd


@pytest.fixture
def server():
    received = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers["Content-Length"])).decode()
            received.append((self.path, self.headers["Content-Type"], body,
                             self.headers.get("X-Run")))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}", received
    httpd.shutdown()
    httpd.server_close()
    thread.join()


def _fit(callback, epochs=2):
    model = pd.Sequential([pd.Input(shape=(2,)), pd.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), epochs=epochs,
              verbose=0, callbacks=[callback])


def test_posts_each_epoch_as_a_form_field(server):
    root, received = server
    _fit(pd.callbacks.RemoteMonitor(root=root, headers={"X-Run": "7"}))
    assert len(received) == 2
    path, kind, body, run = received[1]
    assert path == "/publish/epoch/end/" and kind == "application/x-www-form-urlencoded"
    sent = json.loads(urllib.parse.parse_qs(body)["data"][0])
    assert sent["epoch"] == 1 and isinstance(sent["loss"], float) and run == "7"


def test_posts_json(server):
    root, received = server
    _fit(pd.callbacks.RemoteMonitor(root=root, path="/logs", send_as_json=True), epochs=1)
    path, kind, body, _ = received[0]
    assert path == "/logs" and kind == "application/json"
    assert set(json.loads(body)) == {"epoch", "loss"}


def test_an_unreachable_server_warns():
    with pytest.warns(UserWarning, match="could not reach the server"):
        _fit(pd.callbacks.RemoteMonitor(root="http://127.0.0.1:9"), epochs=1)
    with pytest.raises(TypeError, match="expected headers as a dict"):
        pd.callbacks.RemoteMonitor(headers=["x"])
