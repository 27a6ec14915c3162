"""`pd.profiler`: where a step's time goes, kernel by kernel.

Inside `with pd.profiler.profile() as prof:`, every run of a program (a `fit` step,
`predict`, `pd.eval`) is timed call by call: each kernel's op, the layer whose call built it
(or "loss", "optimizer"), the user's line, its input and output shapes, its time, and its
FLOPs and bytes where they are known (paddle/profiler/costs.py). On the CPU the calls are
timed on the host clock; on a GPU each call sits between two CUDA events, and the program
runs op by op while profiled (a replayed CUDA graph cannot be split into kernels).
Outside a profile the runners pay one test of an empty list per run, nothing per kernel.

`prof.table()` groups the calls by op, layer, line and shapes, sorted by total time, with
each group's share of the profiled time and, where FLOPs or bytes are known, its rate
against the machine's peak (measured once: the best of a large float32 product and of a
large copy on the profiled device; pass `peak_flops=` / `peak_bandwidth=` to use datasheet
figures instead). `prof.export_chrome_trace("trace.json")` writes the timeline for
chrome://tracing or Perfetto; `prof.export_tensorboard(log_dir)` writes it where
TensorBoard's profile plugin finds it. In `fit`,
`pd.callbacks.ProfilerCallback(batches=(2, 4))` profiles batches 2 to 4 and prints the
table; `pd.callbacks.TensorBoard(profile_batch=(2, 4))` writes their trace into its log
folder.

Example:
    >>> import numpy as np, paddle as pd
    >>> model = pd.Sequential([pd.layers.Input(shape=(8,)), pd.layers.Dense(4, name="hidden"),
    ...                        pd.layers.Dense(1, name="out")])
    >>> model.compile(optimizer="adam", loss="mse")
    >>> x, y = np.ones((16, 8), np.float32), np.ones((16, 1), np.float32)
    >>> with pd.profiler.profile() as prof:
    ...     _ = model.train_on_batch(x, y)
    >>> ("matmul", "hidden") in {(e.op, e.layer) for e in prof.events}
    True
    >>> "matmul" in prof.table()
    True
"""
import contextlib
import gzip
import json
import os
import socket
import time

from paddle.devices import runner
from paddle.profiler.costs import bytes_moved, flops
from paddle.profiler.peak import machine_peak


class Event:
    """One kernel call of a profiled run (times in nanoseconds, host clock)."""

    __slots__ = ("op", "layer", "location", "inputs", "outputs", "dtype", "device", "start",
                 "end", "run", "flops", "bytes")

    def __init__(self, **fields):
        for k, v in fields.items():
            setattr(self, k, v)

    @property
    def seconds(self):
        return (self.end - self.start) / 1e9


_GROUPS = {
    "kernel": lambda e: (e.op, e.layer, e.location, tuple(map(tuple, e.inputs)), e.device),
    "op": lambda e: (e.op, e.device),
    "layer": lambda e: (e.layer, e.device)}


def _clip(text, width):
    """`text` cut to `width` characters, its end kept (the innermost layer of a path)."""
    return text if len(text) <= width else "…" + text[-(width - 1):]


class Profile:
    """The kernel calls recorded while it was active (`events`), and reports of them."""

    def __init__(self, peak_flops=None, peak_bandwidth=None):
        self.events, self.runs = [], 0
        self.peak_flops, self.peak_bandwidth = peak_flops, peak_bandwidth

    def add_run(self, device, hooks, spans):
        """Called by the runners after each timed run (paddle/devices/runner.py)."""
        self.runs += 1
        for index, start, end in spans:
            if 0 <= index < len(hooks.nodes):
                node = hooks.nodes[index]
                ins, outs, dtype = hooks.shapes[index]
                op, layer, where = node.op.name, node.scope, node.location
                cost = flops(op, ins, outs, node.attrs)
                moved = bytes_moved(ins, outs, dtype)
            else:  # the runner's own calls: the results' snapshot, the updates' gate
                op, layer, where, ins, outs, dtype, cost, moved = \
                    "(runner)", None, None, [], [], None, None, None
            self.events.append(Event(op=op, layer=layer, location=where, inputs=ins,
                                     outputs=outs, dtype=dtype, device=device, start=start,
                                     end=end, run=self.runs, flops=cost, bytes=moved))

    def summary(self, group_by="kernel"):
        """Rows, the most time first: dicts with op, layer, location, shapes, device, calls,
        seconds, share, flops, bytes. `group_by`: "kernel" (op, layer, line and shapes: one
        row per kernel of the step), "op" (every call of an op together) or "layer"."""
        if group_by not in _GROUPS:
            raise ValueError(f"profile: expected group_by one of {sorted(_GROUPS)}, received "
                             f"{group_by!r}")
        groups = {}
        for e in self.events:
            key = _GROUPS[group_by](e)
            row = groups.setdefault(key, dict(op=e.op, layer=e.layer, location=e.location,
                                              shapes=e.inputs, device=e.device, calls=0,
                                              seconds=0.0, flops=None, bytes=None))
            for field in ("op", "layer", "location"):  # what differs in a group: "(several)"
                if row[field] != getattr(e, field):
                    row[field] = "(several)"
            if row["shapes"] != e.inputs:
                row["shapes"] = []
            row["calls"] += 1
            row["seconds"] += e.seconds
            if e.flops is not None:
                row["flops"] = (row["flops"] or 0) + e.flops
            if e.bytes is not None:
                row["bytes"] = (row["bytes"] or 0) + e.bytes
        total = sum(r["seconds"] for r in groups.values()) or 1.0
        rows = sorted(groups.values(), key=lambda r: -r["seconds"])
        for r in rows:
            r["share"] = r["seconds"] / total
        return rows

    def table(self, limit=25, group_by="kernel"):
        """The summary as text: one line per group (see `summary`), the most time first."""
        rows = self.summary(group_by)
        if not rows:
            return "paddle profile: no kernel ran inside the profile"
        device = rows[0]["device"]
        flops_peak, bandwidth_peak = self._peaks(device)
        total = sum(r["seconds"] for r in rows)
        lines = [f"paddle profile: {self.runs} run(s), {len(self.events)} kernel calls, "
                 f"{total * 1e3:.2f} ms of kernels on {device} (peak used: "
                 f"{flops_peak / 1e9:.0f} GFLOP/s, {bandwidth_peak / 1e9:.1f} GB/s)",
                 f"{'op':<24} {'layer':<22} {'calls':>5} {'total ms':>9} {'share':>6} "
                 f"{'GFLOP/s':>8} {'%peak':>6} {'GB/s':>7} {'%bw':>5}  shapes / built at"]
        for r in rows[:limit]:
            seconds = r["seconds"] or 1e-12
            rate = r["flops"] / seconds if r["flops"] else None
            speed = r["bytes"] / seconds if r["bytes"] else None
            shapes = " ".join("x".join(map(str, s)) or "()" for s in r["shapes"])
            lines.append(
                f"{r['op'][:24]:<24} {_clip(r['layer'] or '-', 22):<22} {r['calls']:>5} "
                f"{r['seconds'] * 1e3:>9.3f} {r['share'] * 100:>5.1f}% "
                + (f"{rate / 1e9:>8.2f} {rate / flops_peak * 100:>5.1f}%" if rate else
                   f"{'-':>8} {'-':>6}")
                + (f" {speed / 1e9:>7.2f} {speed / bandwidth_peak * 100:>4.0f}%" if speed else
                   f" {'-':>7} {'-':>5}")
                + f"  {shapes} / {r['location'] or '?'}")
        if len(rows) > limit:
            rest = rows[limit:]
            lines.append(f"... {len(rest)} more groups, "
                         f"{sum(r['seconds'] for r in rest) * 1e3:.3f} ms")
        return "\n".join(lines)

    def __str__(self):
        return self.table()

    def _peaks(self, device):
        measured = None
        if self.peak_flops is None or self.peak_bandwidth is None:
            measured = machine_peak(device)
        return (self.peak_flops or measured[0]), (self.peak_bandwidth or measured[1])

    def chrome_trace(self):
        """The events as Chrome's trace-event JSON object (microseconds)."""
        origin = min((e.start for e in self.events), default=0)
        trace = []
        for e in self.events:
            trace.append({"name": e.op, "cat": e.layer or "-", "ph": "X",
                          "ts": (e.start - origin) / 1e3, "dur": (e.end - e.start) / 1e3,
                          "pid": e.device, "tid": f"run {e.run}",
                          "args": {"layer": e.layer, "built at": e.location,
                                   "inputs": e.inputs, "outputs": e.outputs,
                                   "dtype": e.dtype, "flops": e.flops, "bytes": e.bytes}})
        return {"traceEvents": trace, "displayTimeUnit": "ms"}

    def export_chrome_trace(self, path):
        """Write the timeline for chrome://tracing or ui.perfetto.dev; returns the path."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.chrome_trace(), f)
        return path

    def export_tensorboard(self, log_dir):
        """Write the timeline where TensorBoard's profile plugin looks for runs
        (log_dir/plugins/profile/<time>/<host>.trace.json.gz); returns the file's path."""
        run = time.strftime("%Y_%m_%d_%H_%M_%S")
        folder = os.path.join(os.fspath(log_dir), "plugins", "profile", run)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, f"{socket.gethostname()}.trace.json.gz")
        with gzip.open(path, "wt", encoding="utf-8") as f:
            json.dump(self.chrome_trace(), f)
        return path


@contextlib.contextmanager
def profile(peak_flops=None, peak_bandwidth=None):
    """Record every kernel call of the runs inside the block; yields the `Profile`.

    Args:
        peak_flops, peak_bandwidth: the machine's peak FLOP/s and bytes/s for the table's
            percentages (None: measured once on the profiled device).
    """
    prof = Profile(peak_flops, peak_bandwidth)
    runner.RECORDERS.append(prof)
    try:
        yield prof
    finally:
        runner.RECORDERS.remove(prof)


def _batches(batches, where):
    """(first, last) train batches, 1-based and inclusive, from an int or a pair."""
    if isinstance(batches, str):  # Keras's "first,last"
        parts = batches.split(",")
        batches = tuple(int(b) for b in parts) if all(p.strip().isdigit() for p in parts) \
            else batches
    if isinstance(batches, int) and not isinstance(batches, bool):
        batches = (batches, batches)
    if not (isinstance(batches, (tuple, list)) and len(batches) == 2 and
            all(isinstance(b, int) and not isinstance(b, bool) and b >= 1 for b in batches)
            and batches[0] <= batches[1]):
        raise ValueError(f"{where}: expected a batch number >= 1 or a pair (first, last) of "
                         f"them, first <= last, received {batches!r}")
    return tuple(batches)


class BatchProfiler:
    """Profiles train batches first..last (1-based, counted over the whole fit) from a
    callback's batch hooks; `done(profile)` is called with the profile after the last."""

    def __init__(self, batches, done, where):
        self.first, self.last = _batches(batches, where)
        self.done, self.seen, self._context, self.profile = done, 0, None, None

    def batch_begin(self):
        self.seen += 1
        if self.seen == self.first and self._context is None:
            self._context = profile()
            self.profile = self._context.__enter__()

    def batch_end(self):
        if self._context is not None and self.seen >= self.last:
            self.stop()

    def stop(self):
        if self._context is not None:
            context, self._context = self._context, None
            context.__exit__(None, None, None)
            self.done(self.profile)
