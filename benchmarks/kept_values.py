#!/usr/bin/env python3
"""What keeping the folded batch-norm filters saves (paddle/lowlevel/kept_values.py):
ResNet-50's `predict_on_batch` (../shared/bench/workloads.py's resnet50_predict model) with
the folded filters kept, against the same call right after a `set_value` of one weight
(which makes that run fold them again), alternating in one process. CPU time of the
process, best and median of `rounds`, in ms. Timings, not a test.

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/kept_values.py --batch 1 --rounds 8
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
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args(argv)
    import paddle as pd
    import workloads  # ../shared/bench/workloads.py
    model = workloads.keras_style_model(pd, "resnet50_predict")
    x, _ = workloads.data("resnet50_predict", workloads.CASES["resnet50_predict"])
    x = np.ascontiguousarray(np.resize(x, (args.batch,) + x.shape[1:]))
    weight = model.trainable_weights[0]
    value = weight.val()
    for _ in range(2):
        model.predict_on_batch(x)
    kept, folded = [], []
    for _ in range(args.rounds):
        start = time.process_time()
        model.predict_on_batch(x)
        kept.append(time.process_time() - start)
        weight.set_value(value)  # the same values: only the write counts
        start = time.process_time()
        model.predict_on_batch(x)
        folded.append(time.process_time() - start)
    print(f"resnet50 predict_on_batch, batch {args.batch}: kept {min(kept) * 1e3:.1f} ms "
          f"(median {np.median(kept) * 1e3:.1f}), folded again {min(folded) * 1e3:.1f} ms "
          f"(median {np.median(folded) * 1e3:.1f}), CPU, "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '-')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
