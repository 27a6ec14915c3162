#!/usr/bin/env python3
"""Data-parallel throughput: 1 process against 2, paddle beside PyTorch DDP (gloo).

    python benchmarks/distributed.py              # mlp and cnn, every side available
    python benchmarks/distributed.py mlp          # one case
    BENCH_SECONDS=3 BENCH_ROUNDS=5 python benchmarks/distributed.py

The models are the MLP and the CNN of ../shared/bench/compare.py (Adam(1e-3), softmax
cross-entropy, float32) at batch 128 per rank. Every side runs as a job of its own under
the `mpiexec` next to this Python, with one thread per process (OMP_NUM_THREADS=1,
torch.set_num_threads(1)):

- paddle, 1 process and 2 processes: `model.train_on_batch` after `pd.distributed.init()`,
  so each step of the 2-process job averages the gradients (through an MPI shared-memory
  window, the ranks being on one machine, and each rank updates its share of the
  parameters: paddle/distributed/sharding.py); for comparison, 2 processes again with
  every rank updating all the parameters ("whole upd."), and with the allreduce that
  ranks on several machines use (`MPI_Iallreduce`, the update whole too);
- PyTorch DDP, 1 and 2 processes: `DistributedDataParallel` over the gloo backend, ranks
  taken from the MPI launcher's environment (PyTorch only, never imported elsewhere;
  its columns are left out when it is not installed).

Each rank times rounds of steps (the step count is fixed by rank 0 from a warm-up so that
a round lasts about BENCH_SECONDS) between barriers; a job reports its median round.
The jobs of a case run BENCH_REPEATS times (default 3), taking turns (1 process, 2
processes, 1, 2, ...), so that a change in the machine's speed hits every side alike, and
each side's figure is the median of its jobs. (A job's best round, which this benchmark
reported before, favours the 1-process side: one process meets a fast moment of the
machine more often than two at once do; `BENCH_BEST=1` reports best rounds and the best
job instead.) Throughput is samples per second over all ranks; scaling efficiency is the
2-process throughput over twice the 1-process one.
"""
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

from models import paddle_model  # benchmarks/ is on sys.path: these scripts run from it

BATCH = 128
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "2"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
BEST = os.environ.get("BENCH_BEST") == "1"
CASES = ["mlp", "cnn"]


def data(case, layout):
    rng = np.random.default_rng(0)
    shape = (BATCH, 784) if case == "mlp" else \
        (BATCH, 28, 28, 1) if layout == "nhwc" else (BATCH, 1, 28, 28)
    return rng.standard_normal(shape, dtype=np.float32), \
        rng.integers(0, 10, BATCH).astype(np.int64)


# ---- workers: each returns (step, allreduce of a float64 vector, barrier) --------------

def paddle_worker(case, shared_memory=True, split_update=True):
    import paddle as pd
    from paddle.distributed import mpi, sharding
    mpi.SHARED_MEMORY = shared_memory
    sharding.ENABLED = split_update
    pd.distributed.init(timeout=600)
    model = paddle_model(case)
    x, y = data(case, "nhwc")
    return (lambda: model.train_on_batch(x, y)), \
        (lambda v: pd.distributed.allreduce(v, op="sum")), pd.distributed.barrier, \
        pd.distributed.rank(), pd.distributed.size()


def torch_worker(case):
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    torch.set_num_threads(1)
    rank = int(os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0")))
    size = int(os.environ.get("PMI_SIZE", os.environ.get("OMPI_COMM_WORLD_SIZE", "1")))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", os.environ.get("BENCH_TORCH_PORT", "29517"))
    dist.init_process_group("gloo", rank=rank, world_size=size)
    torch.manual_seed(0)
    if case == "mlp":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10))
    else:
        model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Linear(1600, 128), nn.ReLU(), nn.Linear(128, 10))
    model = nn.parallel.DistributedDataParallel(model)
    xn, yn = data(case, "nchw")
    x, y = torch.from_numpy(xn), torch.from_numpy(yn)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    lossf = nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss = lossf(model(x), y)
        loss.backward()
        opt.step()
        loss.item()

    def allreduce(v):
        t = torch.from_numpy(v.copy())
        dist.all_reduce(t)
        return t.numpy()
    return step, allreduce, dist.barrier, rank, size


def run_worker(side, case):
    step, allreduce, barrier, rank, size = (
        paddle_worker(case) if side == "paddle" else
        paddle_worker(case, shared_memory=False) if side == "paddle-allreduce" else
        paddle_worker(case, split_update=False) if side == "paddle-whole" else
        torch_worker(case))
    for _ in range(3):  # build plans, warm caches
        step()
    barrier()
    start = time.perf_counter()
    for _ in range(5):
        step()
    per_step = allreduce(np.array([time.perf_counter() - start]))[0] / size / 5
    steps = max(5, int(SECONDS / per_step))
    rounds = []
    for _ in range(ROUNDS):
        barrier()
        start = time.perf_counter()
        for _ in range(steps):
            step()
        barrier()
        elapsed = allreduce(np.array([time.perf_counter() - start]))[0] / size
        rounds.append(steps * BATCH * size / elapsed)
    if rank == 0:
        figure = max(rounds) if BEST else statistics.median(rounds)
        print("RESULT " + json.dumps({"samples_per_s": figure, "steps": steps}), flush=True)


# ---- launcher ---------------------------------------------------------------------------

def mpiexec():
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    return here if os.path.exists(here) else "mpiexec"


def launch(side, case, n):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    command = [mpiexec(), "-n", str(n), sys.executable, os.path.abspath(__file__),
               "--worker", side, case]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])["samples_per_s"]
    raise RuntimeError(f"{side} {case} on {n} process(es) failed:\n{done.stdout}\n"
                       f"{done.stderr}")


def torch_available():
    try:
        import torch  # noqa: F401
        import torch.distributed as dist
        return dist.is_available() and dist.is_gloo_available()
    except ImportError:
        return False


def main(cases):
    sides = ["paddle"] + (["torch"] if torch_available() else [])
    if "torch" not in sides:
        print("PyTorch (with gloo) is not installed: its columns are left out")
    header = "case  batch/rank  paddle 1p  paddle 2p  efficiency  2p whole upd.  efficiency" \
        "  2p allreduce  efficiency"
    if "torch" in sides:
        header += "  torch 1p  torch 2p  torch eff.  paddle/torch (2p)"
    print(header + "   (samples/s, all ranks)")
    jobs = [(s, n) for s in sides for n in (1, 2)] + [("paddle-whole", 2),
                                                      ("paddle-allreduce", 2)]
    for case in cases:
        runs = {job: [] for job in jobs}
        for _ in range(REPEATS):  # the jobs take turns
            for job in jobs:
                runs[job].append(launch(job[0], case, job[1]))
        pick = max if BEST else statistics.median
        r = {job: pick(values) for job, values in runs.items()}
        line = f"{case:4}  {BATCH:10}  {r['paddle', 1]:9.0f}  {r['paddle', 2]:9.0f}  " \
               f"{r['paddle', 2] / (2 * r['paddle', 1]):10.0%}  " \
               f"{r['paddle-whole', 2]:13.0f}  " \
               f"{r['paddle-whole', 2] / (2 * r['paddle', 1]):10.0%}  " \
               f"{r['paddle-allreduce', 2]:12.0f}  " \
               f"{r['paddle-allreduce', 2] / (2 * r['paddle', 1]):10.0%}"
        if "torch" in sides:
            line += f"  {r['torch', 1]:8.0f}  {r['torch', 2]:8.0f}  " \
                    f"{r['torch', 2] / (2 * r['torch', 1]):10.0%}  " \
                    f"{r['paddle', 2] / r['torch', 2]:17.2f}x"
        print(line, flush=True)


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "--worker":
        run_worker(sys.argv[2], sys.argv[3])
    else:
        chosen = [c for c in sys.argv[1:] if c in CASES] or CASES
        unknown = [c for c in sys.argv[1:] if c not in CASES]
        if unknown:
            sys.exit(f"unknown cases {unknown}; choose among {CASES}")
        main(chosen)
