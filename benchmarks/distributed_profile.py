#!/usr/bin/env python3
"""Where the time of a data-parallel step goes, and the best scaling this machine allows.

    python benchmarks/distributed_profile.py ceiling     # 1 process alone vs 2 at once
    python benchmarks/distributed_profile.py breakdown   # mpiexec -n 1 vs -n 2, per phase
    python benchmarks/distributed_profile.py allreduce   # the gradients' message alone
    BENCH_ROUNDS=7 BENCH_STEPS=60 python benchmarks/distributed_profile.py cnn ceiling

The model is the MLP (or the CNN) of benchmarks/distributed.py (Adam, batch 128 per rank,
float32, one thread per process). The machine is shared, so every measurement alternates
its cases round after round (A, B, A, B, ...) within one run and reports medians, and the
ratios that matter are formed within that run.

- `ceiling`: the training step in one process alone, then in two independent processes
  at the same time (each its own model, no communication, started together). The second
  over the first is the best scaling efficiency two processes can reach on these cores:
  whatever they share (memory bandwidth, caches, hyperthreads) costs it. Two kernels
  tell which: products of 64 x 64 matrices (arithmetic in L1: slowed only by a
  hyperthread sibling, or by sharing a core) and copies of 32 MB (memory bandwidth).
  Each step's CPU time (`time.thread_time`) is shown beside its wall time: on a machine
  other programs share, wall times include waiting for a core, CPU times do not.
- `breakdown`: `train_on_batch` under `mpiexec -n 1` and `mpiexec -n 2` (the gradients
  averaged by an allreduce; through shared memory with every rank updating all the
  parameters, "whole update"; and as paddle does on one machine, each rank updating its
  share, "split update": paddle/distributed/sharding.py), each step cut into forward +
  backward (the rest; also each rank's own, the slower and the faster), packing the
  gradients into the flat buffer, waiting for the slower rank (a barrier placed before
  the averaging, so its own time is measured apart from the imbalance), the averaging,
  the update, and the exchange of the updated shares.
- `allreduce`: the gradients' flat float32 buffer summed over 2 ranks by paddle's
  communicator (`Iallreduce` polled), by a blocking `Allreduce`, and each rank's memcpy of
  the same buffer (a yardstick: a shared-memory allreduce copies it a few times).
"""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import distributed as bench  # noqa: E402  (models, data and the launcher's environment)

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
STEPS = int(os.environ.get("BENCH_STEPS", "40"))
WARMUP = 5
PHASES = ["step", "forward+backward", "pack", "wait", "average", "update", "exchange",
          "step, CPU time"]
SLOWER, FASTER = "  slower rank's", "  faster rank's"  # forward+backward, rank by rank


# ---- instrumentation (only in this benchmark's processes) ----------------------------------

class Timers:
    """Seconds per phase for the current step, collected per step."""

    def __init__(self):
        self.current = {}
        self.steps = []

    def add(self, phase, seconds):
        self.current[phase] = self.current.get(phase, 0.0) + seconds

    def end_step(self, seconds, cpu_seconds):
        phases = dict(self.current, step=seconds)
        phases["step, CPU time"] = cpu_seconds
        phases["forward+backward"] = seconds - sum(self.current.values())
        self.steps.append(phases)
        self.current = {}


def instrument(timers, averaging):
    """Time the update kernel and the averaging of the gradients, phase by phase
    (`averaging`: "allreduce", "shared" or "whole": shared memory, the update not split)."""
    from paddle import _C
    from paddle.distributed import gradients, mpi, sharding
    mpi.SHARED_MEMORY = averaging != "allreduce"
    sharding.ENABLED = averaging == "shared"
    clock = time.perf_counter

    adam = _C.adam

    def timed_adam(*args):
        t0 = clock()
        adam(*args)
        timers.add("update", clock() - t0)
    _C.adam = timed_adam  # looked up when the update kernel is prepared

    def bind(self, grads, comm, share_only=False):
        # The gradients the executor computed in place need no copy (as in paddle's bind).
        plan = [(mean, [(view, grads[i]) for view, i in zip(views, members)
                        if not gradients._same(view, grads[i])])
                for mean, members, views in self.buffers]

        def reduce():
            for mean, pairs in plan:
                t0 = clock()
                for view, g in pairs:
                    np.copyto(view, g)
                t1 = clock()
                comm.barrier("profile")
                t2 = clock()
                (mean.mean_share if share_only else mean)("averaging gradients")
                t3 = clock()
                timers.add("pack", t1 - t0)
                timers.add("wait", t2 - t1)
                timers.add("average", t3 - t2)
        return reduce
    gradients.FlatGradients.bind = bind

    shards_bind = sharding.Shards.bind

    def bind_shards(self, params, grads):
        reduce, exchange, means = shards_bind(self, params, grads)

        def timed_exchange():
            t0 = clock()
            exchange()
            timers.add("exchange", clock() - t0)
        return reduce, timed_exchange, means
    sharding.Shards.bind = bind_shards


def build(case):
    import paddle as pd
    pd.distributed.init(timeout=600)
    model = bench.paddle_model(case)
    return pd, model


def timed_steps(case, start_at=None, averaging="shared"):
    """Per-step phase times of STEPS training steps (after WARMUP), as a list of dicts."""
    timers = Timers()
    instrument(timers, averaging)
    pd, model = build(case)
    x, y = bench.data(case, "nhwc")
    for _ in range(WARMUP):
        model.train_on_batch(x, y)
    if pd.distributed.active():
        pd.distributed.barrier()
    elif start_at is not None:  # independent processes: start the timed steps together
        time.sleep(max(0.0, start_at - time.time()))
    timers.steps.clear()
    clock = time.perf_counter
    for _ in range(STEPS):
        t0, c0 = clock(), time.thread_time()
        model.train_on_batch(x, y)
        timers.end_step(clock() - t0, time.thread_time() - c0)
    from paddle import _C
    threads = {"omp": _C.omp_threads(), "blas": _C.blas_threads()}
    return pd, timers.steps, threads


def medians(steps):
    table = {p: statistics.median(s.get(p, 0.0) for s in steps) for p in PHASES}
    table["step, fastest"] = min(s["step"] for s in steps)  # the least disturbed step
    return table


# ---- workers ---------------------------------------------------------------------------------

def solo_worker(case, start_at):
    start_at = float(start_at)
    _, steps, threads = timed_steps(case, start_at)
    phases = medians(steps)
    # Two kernels that tell what the processes share, each started together again:
    # products of 64 x 64 matrices (in L1: arithmetic only, slowed by a hyperthread
    # sibling) and copies of 32 MB (memory bandwidth).
    a = np.ones((64, 64), np.float32)
    src, dst = np.ones(8 << 20, np.float32), np.empty(8 << 20, np.float32)
    kernels = {"64x64 matmul x200": lambda: [a @ a for _ in range(200)],
               "32 MB copy": lambda: np.copyto(dst, src)}
    for k, (name, f) in enumerate(kernels.items()):
        time.sleep(max(0.0, start_at + 4.0 * (k + 1) - time.time()))
        times = []
        for _ in range(40):
            t0 = time.perf_counter()
            f()
            times.append(time.perf_counter() - t0)
        phases[name] = statistics.median(times)
        phases[name + ", fastest"] = min(times)
    print("RESULT " + json.dumps({"phases": phases, "threads": threads}), flush=True)


def mpi_worker(case, averaging):
    pd, steps, threads = timed_steps(case, averaging=averaging)
    table = medians(steps)
    rows = pd.distributed.allreduce(np.array([list(table.values())]), op="mean")
    # Each rank's own forward + backward: the slower rank sets the pace of every step.
    own = np.zeros(pd.distributed.size())
    own[pd.distributed.rank()] = table["forward+backward"]
    own = pd.distributed.allreduce(own, op="sum")
    if pd.distributed.rank() == 0:
        phases = dict(zip(table, rows[0].tolist()))
        phases[SLOWER], phases[FASTER] = float(own.max()), float(own.min())
        print("RESULT " + json.dumps({"phases": phases, "threads": threads}), flush=True)


def allreduce_worker(case):
    import paddle as pd
    from mpi4py import MPI
    from paddle.distributed import mpi
    pd.distributed.init(timeout=600)
    _, model = build(case)
    count = sum(int(np.prod(w.shape)) for w in model.trainable_weights)
    comm = pd.distributed.world.world().grads
    allreduce = mpi.AllreduceMean(comm, count, np.float32)
    shared = comm.mean_buffer(count, np.float32)
    flat, copy = np.ones(count, np.float32), np.empty(count, np.float32)
    ways = {"shared memory (paddle)": lambda: shared("profile"),
            "Iallreduce, polled (paddle)": lambda: allreduce("profile"),
            "Allreduce (blocking)": lambda: comm.comm.Allreduce(MPI.IN_PLACE, flat),
            "memcpy of the buffer": lambda: np.copyto(copy, flat)}
    times = {name: [] for name in ways}
    for _ in range(ROUNDS):
        for name, f in ways.items():
            for _ in range(STEPS):
                comm.comm.Barrier()  # (blocking: returns at once on both ranks)
                t0 = time.perf_counter()
                f()
                times[name].append(time.perf_counter() - t0)
    if pd.distributed.rank() == 0:
        print(f"{count} float32 = {count * 4 / 1e6:.2f} MB averaged over 2 ranks, ms per call "
              f"over {ROUNDS} interleaved rounds of {STEPS} calls (the best call is what a quiet "
              f"machine gives; the median, what this one gave):")
        print(f"  {'':30} {'best':>7} {'median':>7}")
        for name, t in times.items():
            print(f"  {name:30} {min(t) * 1e3:7.3f} {statistics.median(t) * 1e3:7.3f}")


# ---- launcher --------------------------------------------------------------------------------

def environment():
    return dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")


def result(done):
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"a worker failed:\n{done.stdout}\n{done.stderr}")


def solo(case, n):
    """n independent processes started together; their results."""
    start_at = time.time() + 5.0  # past their imports and warm-up
    procs = [subprocess.Popen([sys.executable, __file__, "--solo", case, str(start_at)],
                              env=environment(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(n)]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=600)
        out.append(result(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)))
    return out


def ceiling(case):
    alone, pair = [], []
    for _ in range(ROUNDS):
        alone.append(solo(case, 1)[0]["phases"])
        pair.extend(r["phases"] for r in solo(case, 2))
    names = ["step", "step, fastest", "step, CPU time", "forward+backward", "update",
             "64x64 matmul x200", "64x64 matmul x200, fastest", "32 MB copy",
             "32 MB copy, fastest"]
    a, b = ({p: (min if "fastest" in p else statistics.median)(r[p] for r in rows)
             for p in names} for rows in (alone, pair))
    print(f"{case}, no communication, ms (median over {ROUNDS} interleaved rounds of "
          f"{STEPS} steps; threads per process: {solo(case, 1)[0]['threads']}):")
    print(f"  {'':26} {'1 process':>10} {'2 at once':>10} {'1 / 2':>6}")
    for p in names:
        print(f"  {p:26} {a[p] * 1e3:10.3f} {b[p] * 1e3:10.3f} {a[p] / b[p]:6.0%}")
    print(f"  ceiling on scaling efficiency (1-process step / 2-process step): "
          f"{a['step'] / b['step']:.0%}")


def breakdown(case):
    runs = {"mpiexec -n 1": (1, "shared"), "2, allreduce": (2, "allreduce"),
            "2, whole update": (2, "whole"), "2, split update": (2, "shared")}
    times = {name: [] for name in runs}
    for _ in range(ROUNDS):
        for name, (n, averaging) in runs.items():
            command = [bench.mpiexec(), "-n", str(n), sys.executable, __file__, "--mpi", case,
                       averaging]
            times[name].append(result(subprocess.run(command, env=environment(),
                                                     capture_output=True, text=True,
                                                     timeout=600))["phases"])
    table = {name: dict(medians(t), **{"step, fastest": min(r["step, fastest"] for r in t)},
                        **{p: statistics.median(r[p] for r in t) for p in (SLOWER, FASTER)})
             for name, t in times.items()}
    print(f"{case}, ms per step, mean of the ranks' medians, median over {ROUNDS} interleaved "
          f"rounds of {STEPS} steps (a barrier before averaging separates the wait for the "
          f"slower rank):")
    print(f"  {'phase':18}" + "".join(f"{name:>16}" for name in runs))
    for p in PHASES[:2] + [SLOWER, FASTER] + PHASES[2:] + ["step, fastest"]:
        print(f"  {p:18}" + "".join(f"{table[name][p] * 1e3:16.3f}" for name in runs))
    one = table["mpiexec -n 1"]["step"]
    print("  scaling efficiency (1-rank step / 2-rank step):" +
          "".join(f"  {name}: {one / table[name]['step']:.0%}" for name in runs if name[0] == "2"))


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--solo"]:
        solo_worker(args[1], args[2])
    elif args[:1] == ["--mpi"]:
        mpi_worker(args[1], args[2])
    elif args[:1] == ["--allreduce"]:
        allreduce_worker(args[1])
    else:
        case = "cnn" if "cnn" in args else "mlp"
        modes = [a for a in args if a != case and a != "mlp"] or ["ceiling", "breakdown"]
        for mode in modes:
            if mode == "ceiling":
                ceiling(case)
            elif mode == "breakdown":
                breakdown(case)
            elif mode == "allreduce":
                print(subprocess.run([bench.mpiexec(), "-n", "2", sys.executable, __file__,
                                      "--allreduce", case], env=environment(),
                                     capture_output=True, text=True, timeout=600).stdout,
                      end="")
            else:
                sys.exit(f"unknown mode {mode!r}; choose ceiling, breakdown or allreduce")
