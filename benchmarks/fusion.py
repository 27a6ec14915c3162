#!/usr/bin/env python3
"""What the fusion pass (paddle/lowlevel/fusion/) saves on ../shared/bench/workloads.py's
training steps: CPU time per step with fusion on and off (PADDLE_FUSION=0), in one process on
the same model, the kernel calls per step, and the buffers each program allocates.

    OMP_NUM_THREADS=1 python benchmarks/fusion.py                # resnet transformer lstm
    OMP_NUM_THREADS=1 python benchmarks/fusion.py resnet --steps 8 --rounds 5

CPU time (time.process_time, the best of `--rounds` rounds of `--steps` steps, on and off
interleaved) rather than wall time, so that a shared machine disturbs it less: with
OMP_NUM_THREADS=1 it is the step's own work. Timings, not a test.
"""
import argparse
import gc
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "bench"))


def _buffers(executor, run):
    """(count, bytes) of the buffers of the programs `run` builds: every buffer is an
    offset in its program's arena (executor.Program: `intervals`, `arena`), so the bytes
    are those of the distinct arenas they lie in."""
    before = {id(o) for o in gc.get_objects() if isinstance(o, executor.Program)}
    run()
    made = [o for o in gc.get_objects()
            if isinstance(o, executor.Program) and id(o) not in before]
    arenas = {}
    for program in made:
        arena = getattr(program, "arena", None)
        while isinstance(getattr(arena, "base", None), np.ndarray):
            arena = arena.base  # the array that owns the arena's memory
        if arena is not None:
            arenas[id(arena)] = arena.nbytes
    return sum(len(getattr(p, "intervals", ())) for p in made), sum(arenas.values())


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["resnet", "transformer", "lstm"])
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    import paddle as pd
    from paddle.lowlevel import executor, fusion
    import workloads  # ../shared/bench/workloads.py
    for case in args.cases:
        x, y = workloads.data(case, workloads.CASES[case])
        memory, calls, best = {}, {}, {"1": np.inf, "0": np.inf}
        for flag in ("1", "0"):  # a fresh model each: its first step builds the programs
            fusion.set_enabled(flag == "1")
            model = workloads.keras_style_model(pd, case)
            memory[flag] = _buffers(executor, lambda: model.train_on_batch(x, y))
            with pd.profiler.profile() as prof:
                model.train_on_batch(x, y)
            calls[flag] = len(prof.events)
        step = lambda: model.train_on_batch(x, y)  # noqa: E731  (one model, both programs)
        for flag in ("1", "0"):  # builds the other program, warms both
            fusion.set_enabled(flag == "1")
            step()
        for _ in range(args.rounds):
            for flag in ("1", "0"):
                fusion.set_enabled(flag == "1")
                start = time.process_time()
                for _ in range(args.steps):
                    step()
                best[flag] = min(best[flag], (time.process_time() - start) / args.steps)
        fusion.set_enabled(None)
        on, off = best["1"], best["0"]
        print(f"{case}: {on * 1e3:.1f} ms CPU per step fused, {off * 1e3:.1f} ms unfused "
              f"({(off - on) / off * 100:+.1f}% saved); kernel calls {calls['1']} / "
              f"{calls['0']}; program buffers {memory['1'][0]} ({memory['1'][1] / 2**20:.1f} "
              f"MiB) / {memory['0'][0]} ({memory['0'][1] / 2**20:.1f} MiB)")
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main(sys.argv[1:]))
