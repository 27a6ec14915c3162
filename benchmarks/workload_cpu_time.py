#!/usr/bin/env python3
"""CPU time of one step of ../shared/bench/workloads.py's paddle cases (train_on_batch, or
predict_on_batch for the *_predict cases): the best of `--repeat` steps after two warm-up
steps, in ms. CPU time (all threads together), not wall time, so that a shared machine
perturbs it less; run it with OMP_NUM_THREADS=1 to compare two builds (point PYTHONPATH
at each, alternating).

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/workload_cpu_time.py resnet resnet50_predict
"""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "bench"))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["resnet", "resnet50_predict"])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    import paddle as pd
    import workloads  # ../shared/bench/workloads.py
    for case in args.cases:
        batch = workloads.CASES[case]
        model = workloads.keras_style_model(pd, case)
        x, y = workloads.data(case, batch)
        step = (lambda: model.predict_on_batch(x)) if case.endswith("_predict") else \
            (lambda: model.train_on_batch(x, y))
        for _ in range(2):
            step()
        best = float("inf")
        for _ in range(args.repeat):
            start = time.process_time()
            step()
            best = min(best, time.process_time() - start)
        print(f"{pd.__file__}: {case} (batch {batch}) {best * 1e3:.1f} ms CPU per step, "
              f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}")
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main(sys.argv[1:]))
