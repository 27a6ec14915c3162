#!/usr/bin/env python3
"""Where the bytes of ../shared/bench/workloads.py's paddle cases are: one process per case.

    python benchmarks/memory_workloads.py                    # every case
    python benchmarks/memory_workloads.py resnet50 --steps 2

Each case runs in a fresh process (so each peak is its own): the model is built by
workloads.py's builder, then `fit` (or `predict`) runs an epoch of `--steps` batches twice,
as workloads.py does. Printed per case, in MiB:

  peak       the process's peak resident memory (VmHWM), after the runs
  base       resident memory after `import paddle` and the data, before the model
  params     the model's weights (stored values: parameters, statistics)
  slots      the optimizer's slots (Adam's two moments)
  buffers    the plans' buffers: every array bound into a prepared kernel that is not a
             stored value or a feed (intermediates, gradients, workspaces), each allocation
             counted once over all the process's programs
  arena      of which in the programs' arenas (the planner's one buffer per device that
             every intermediate is an offset into; 0 before it existed)
  feeds      the programs' feed buffers
  programs   how many specialized programs are alive (train, predict, eager ops)

Memory, not timings: the figures hold on a shared machine.
"""
import argparse
import functools
import gc
import json
import os
import subprocess
import sys
import types

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "bench"))
MIB = 1 << 20


def status_mib(field):
    """A field of /proc/self/status (VmHWM, VmRSS), in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")


def bound_arrays(obj, depth=0):
    """The NumPy arrays a prepared kernel call holds: partial arguments, closure cells,
    and the items of lists and tuples among them."""
    if depth > 6:
        return
    if isinstance(obj, np.ndarray):
        yield obj
    elif isinstance(obj, functools.partial):
        for a in (obj.func, *obj.args, *obj.keywords.values()):
            yield from bound_arrays(a, depth + 1)
    elif isinstance(obj, types.FunctionType):
        for cell in obj.__closure__ or ():
            try:
                yield from bound_arrays(cell.cell_contents, depth + 1)
            except ValueError:  # an empty cell
                pass
    elif isinstance(obj, (list, tuple)):
        for a in obj:
            yield from bound_arrays(a, depth + 1)


def owner(a):
    """The array that owns `a`'s memory."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def breakdown(model):
    from paddle.lowlevel.executor import Program
    programs = [o for o in gc.get_objects() if isinstance(o, Program)]
    stored, feeds, buffers, arenas = {}, {}, {}, {}
    for p in programs:
        for a in p.stored:
            stored[id(owner(a))] = owner(a)
        for a in p.feeds:
            feeds[id(owner(a))] = owner(a)
        if getattr(p, "arena", None) is not None:
            arenas[id(owner(p.arena))] = owner(p.arena)
    for p in programs:
        for step in p.steps:
            for a in bound_arrays(step):
                o = owner(a)
                if id(o) not in stored and id(o) not in feeds:
                    buffers[id(o)] = o
    weights = sum(np.asarray(w.value).nbytes for w in model.weights)
    optimizer = getattr(model, "optimizer", None)
    slots = getattr(optimizer, "variables", None) or []
    slots = sum(np.asarray(v.value).nbytes for v in (slots() if callable(slots) else slots))
    return {"params": weights / MIB, "slots": slots / MIB,
            "buffers": sum(o.nbytes for o in buffers.values()) / MIB,
            "arena": sum(o.nbytes for o in arenas.values()) / MIB,
            "feeds": sum(o.nbytes for o in feeds.values()) / MIB,
            "programs": len(programs)}


def worker(case, steps):
    os.environ["BENCH_STEPS"] = str(steps)
    import paddle as pd  # noqa: F401
    import workloads  # ../shared/bench/workloads.py
    workloads.STEPS = steps
    batch = workloads.CASES[case]
    x, y = workloads.data(case, batch * steps)
    base = status_mib("VmRSS")
    model = workloads.keras_style_model(pd, case)
    for _ in range(2):
        if case.endswith("_predict"):
            model.predict(x, batch_size=batch, verbose=0)
        else:
            model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=False)
    out = {"case": case, "peak": status_mib("VmHWM"), "base": base, **breakdown(model)}
    print(json.dumps(out), flush=True)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*",
                        default=["lstm", "transformer", "resnet", "resnet50", "resnet50_predict"])
    parser.add_argument("--steps", type=int, default=6)
    args = parser.parse_args(argv)
    cols = ["peak", "base", "params", "slots", "buffers", "arena", "feeds"]
    print(f"{'case':<17}" + "".join(f"{c:>9}" for c in cols) + f"{'programs':>9}")
    for case in args.cases:
        run = subprocess.run([sys.executable, __file__, "--worker", case, str(args.steps)],
                             capture_output=True, text=True)
        lines = [ln for ln in run.stdout.splitlines() if ln.startswith("{")]
        if run.returncode or not lines:
            print(f"{case:<17} failed: {run.stderr.strip().splitlines()[-1:]}")
            continue
        r = json.loads(lines[-1])
        print(f"{case:<17}" + "".join(f"{r[c]:9,.0f}" for c in cols) + f"{r['programs']:9}",
              flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        np.seterr(all="ignore")
        worker(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(main(sys.argv[1:]))
