#!/usr/bin/env python3
"""The profile of each of ../shared/bench/workloads.py's paddle cases: where a step's time
goes, kernel by kernel (pd.profiler), the table that the real-models speed work starts from.

    python benchmarks/profile_workloads.py                  # lstm transformer resnet
    python benchmarks/profile_workloads.py resnet50 --steps 2 --limit 30
    python benchmarks/profile_workloads.py resnet --by op   # one row per op

Each case is built by workloads.py's own builder, trained two batches outside the profile
(building, preparing, warming the caches), then `--steps` batches inside it; the table is
printed per case. Timings, not a test: run it on a quiet machine.
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "shared", "bench"))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", default=["lstm", "transformer", "resnet"])
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--by", default="kernel", choices=["kernel", "op", "layer"])
    parser.add_argument("--trace", help="folder for each case's Chrome trace")
    args = parser.parse_args(argv)
    import paddle as pd
    import workloads  # ../shared/bench/workloads.py
    for case in args.cases:
        batch = workloads.CASES[case]
        model = workloads.keras_style_model(pd, case)
        x, y = workloads.data(case, batch)
        predict = case.endswith("_predict")
        step = (lambda: model.predict_on_batch(x)) if predict else \
            (lambda: model.train_on_batch(x, y))
        for _ in range(2):
            step()
        with pd.profiler.profile() as prof:
            for _ in range(args.steps):
                step()
        per_step = sum(e.seconds for e in prof.events) / args.steps
        print(f"\n== {case} (batch {batch}): {per_step * 1e3:.1f} ms of kernels per step")
        print(prof.table(limit=args.limit, group_by=args.by))
        if args.trace:
            os.makedirs(args.trace, exist_ok=True)
            prof.export_chrome_trace(os.path.join(args.trace, f"{case}.json"))
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main(sys.argv[1:]))
