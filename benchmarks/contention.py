#!/usr/bin/env python3
"""Step time while other processes keep the cores busy: paddle against PyTorch.

    python benchmarks/contention.py                        # resnet and lstm, 0 1 3 busy
    python benchmarks/contention.py resnet --busy 0 1 --steps 4 --rounds 3
    python benchmarks/contention.py --torch-python /path/to/python  # torch elsewhere

For each case of ../shared/bench/workloads.py named (trained through `fit`; PyTorch: its
equivalent module in a plain loop) and each count of busy processes (`yes > /dev/null`, the
k-th pinned to core k % cores with taskset where there is one), a fresh process per
framework builds the case, runs one warm-up epoch, then `--rounds` epochs of `--steps`
batches while the busy processes run; its step time is the median epoch's wall time per
batch. The degradation is that time over the time with 0 busy processes: with one core
taken by another process, a 2-thread step should take about 2x, like its peers'. A much
larger factor is the mark of threads that spin-wait at their barriers while the thread
they wait for is descheduled (docs/performance.md, "Sharing the machine").

`GOMP_SPINCOUNT=...` or `OMP_WAIT_POLICY=...` in the environment are passed on, so a
setting can be compared against paddle's default. Timings: run it on a quiet machine.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "shared", "bench")


def worker(fw, case, steps, rounds):
    sys.path.insert(0, BENCH)
    os.environ["BENCH_STEPS"] = str(steps)
    import workloads  # ../shared/bench/workloads.py
    workloads.STEPS = steps
    epoch, _ = workloads.build(fw, case, workloads.CASES[case])
    epoch()  # warm-up: plans, caches
    print(json.dumps({"ready": True}), flush=True)
    sys.stdin.readline()  # the busy processes are running
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        epoch()
        times.append((time.perf_counter() - t0) / steps)
    print(json.dumps({"step": statistics.median(times)}), flush=True)


def busy_processes(count):
    """`count` processes that keep a core busy, pinned round-robin where taskset exists."""
    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    procs = []
    for k in range(count):
        cmd = ["yes"]
        if shutil.which("taskset"):
            cmd = ["taskset", "-c", str(cores[k % len(cores)])] + cmd
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL))
    return procs


def step_time(python, fw, case, busy, args):
    p = subprocess.Popen([python, __file__, "--worker", fw, case, str(args.steps),
                          str(args.rounds)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                             filter(None, [os.environ.get("PYTHONPATH"), BENCH]))))
    line = p.stdout.readline()
    if not line.startswith("{"):
        p.wait()
        return None
    hogs = busy_processes(busy)
    try:
        p.stdin.write("go\n")
        p.stdin.flush()
        out = json.loads(p.stdout.readline() or '{"step": null}')
    finally:
        for h in hogs:
            h.kill()
            h.wait()
        p.stdin.close()
        p.wait()
    return out["step"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["resnet", "lstm"])
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 1, 3])
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--torch-python", default=sys.executable,
                        help="the interpreter that has PyTorch (default: this one)")
    parser.add_argument("--frameworks", nargs="+", default=["paddle", "torch"])
    args = parser.parse_args(argv)
    pythons = {"paddle": sys.executable, "torch": args.torch_python}
    print(f"{'case':<12}{'framework':<10}" + "".join(f"{f'{b} busy ms':>12}" for b in args.busy)
          + "".join(f"{f'x {b} busy':>10}" for b in args.busy if b))
    for case in args.cases:
        for fw in args.frameworks:
            times = [step_time(pythons[fw], fw, case, b, args) for b in args.busy]
            if any(t is None for t in times):
                print(f"{case:<12}{fw:<10} not run")
                continue
            base = times[args.busy.index(0)] if 0 in args.busy else None
            ratios = [t / base for b, t in zip(args.busy, times) if b] if base else []
            print(f"{case:<12}{fw:<10}" + "".join(f"{t * 1e3:12.1f}" for t in times)
                  + "".join(f"{r:10.2f}" for r in ratios), flush=True)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(main(sys.argv[1:]))
