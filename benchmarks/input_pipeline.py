"""How much of a training step the image input pipeline costs: a folder of PNG files read by
`image_dataset_from_directory`, feeding `fit` of the CNN of ../shared/bench/compare.py
(on 32x32 RGB images, with RandomFlip and RandomRotation in the model), beside Keras on
TensorFlow reading the same folder with its own `image_dataset_from_directory` (tf.data,
prefetched as its guides do).

For each framework, in its own process:
    pipeline  the time to produce one batch, iterating the dataset alone;
    cpu       the CPU time of the process for one batch of that (all its threads; on a
              shared machine the steadier figure);
    step      the time of one `fit` step on arrays already in memory;
    fit       the time of one `fit` step reading the folder;
and the pipeline's share of the step, (fit - step) / fit (what reading the folder adds to
training; a pipeline that overlaps with compute adds less than its own time), and the
same share of the process's CPU time (cpu share: on a shared machine the steadier one;
it counts a pipeline's work in other threads too, so it is no measure of overlap). The
epochs on arrays and on the folder alternate, so that a change of load on a shared
machine falls on both.

    python benchmarks/input_pipeline.py                    # paddle alone
    python benchmarks/input_pipeline.py --keras /path/to/python-with-keras-and-tensorflow

Timings only (never asserted in tests); one run, on a quiet machine for figures to report.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

IMAGES = int(os.environ.get("BENCH_IMAGES", "2560"))
CLASSES, SIZE, BATCH = 10, 32, 128
EPOCHS = int(os.environ.get("BENCH_EPOCHS", "3"))


def make_folder(root):
    """IMAGES PNG files of SIZE x SIZE RGB noise in CLASSES class folders (Pillow)."""
    from PIL import Image
    rng = np.random.default_rng(0)
    for i in range(IMAGES):
        folder = os.path.join(root, f"class_{i % CLASSES}")
        os.makedirs(folder, exist_ok=True)
        pixels = rng.integers(0, 256, (SIZE, SIZE, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(os.path.join(folder, f"{i:05d}.png"))


def build(K):
    L = K.layers
    model = K.Sequential([
        L.Input(shape=(SIZE, SIZE, 3)), L.Rescaling(1 / 255.0), L.RandomFlip("horizontal"),
        L.RandomRotation(0.05), L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(2),
        L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(2), L.Flatten(),
        L.Dense(128, activation="relu"), L.Dense(CLASSES)])
    model.compile(optimizer=K.optimizers.Adam(1e-3),
                  loss=K.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def measure(framework, folder):
    """{"pipeline", "cpu", "step", "fit"} seconds per batch for `framework` ("paddle"/"keras")."""
    if framework == "paddle":
        import paddle as K
    else:
        os.environ.setdefault("KERAS_BACKEND", "tensorflow")
        import keras as K
    steps = IMAGES // BATCH
    dataset = K.utils.image_dataset_from_directory(
        folder, batch_size=BATCH, image_size=(SIZE, SIZE), shuffle=True, seed=0)
    if framework == "keras":
        import tensorflow as tf
        dataset = dataset.prefetch(tf.data.AUTOTUNE)
    for _ in dataset:  # once, so that file-system caches are warm for both
        pass
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(EPOCHS):
        for _ in dataset:
            pass
    pipeline = (time.perf_counter() - start) / (EPOCHS * steps)
    cpu = (time.process_time() - cpu) / (EPOCHS * steps)

    model = build(K)
    x = np.random.default_rng(0).uniform(0, 255, (IMAGES, SIZE, SIZE, 3)).astype("float32")
    y = np.random.default_rng(1).integers(0, CLASSES, IMAGES)
    on_arrays = lambda: model.fit(x, y, batch_size=BATCH, epochs=1, verbose=0)  # noqa: E731
    on_folder = lambda: model.fit(dataset, epochs=1, verbose=0)  # noqa: E731
    on_arrays()  # compile and warm up
    on_folder()
    times = {"step": [0.0, 0.0], "fit": [0.0, 0.0]}  # [wall, cpu]
    for _ in range(EPOCHS):
        for name, run in (("step", on_arrays), ("fit", on_folder)):
            start, cpu_start = time.perf_counter(), time.process_time()
            run()
            times[name][0] += (time.perf_counter() - start) / (EPOCHS * steps)
            times[name][1] += (time.process_time() - cpu_start) / (EPOCHS * steps)
    return {"pipeline": pipeline, "cpu": cpu, "step": times["step"][0],
            "fit": times["fit"][0], "step_cpu": times["step"][1], "fit_cpu": times["fit"][1]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keras", help="a Python with keras and tensorflow installed")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # (framework, folder)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(*args.one)))
        return
    with tempfile.TemporaryDirectory() as folder:
        make_folder(folder)
        runs = [("paddle", sys.executable)] + ([("keras", args.keras)] if args.keras else [])
        rows = []
        for name, python in runs:
            env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(
                os.path.abspath(__file__))))
            out = subprocess.run([python, __file__, "--one", name, folder], env=env,
                                 capture_output=True, text=True, check=True).stdout
            rows.append((name, json.loads(out.strip().splitlines()[-1])))
    print(f"{IMAGES} PNG files {SIZE}x{SIZE}, batch {BATCH}, {EPOCHS} epochs timed")
    print(f"{'framework':10} {'pipeline ms':>12} {'cpu ms':>7} {'step ms':>9} {'fit ms':>8} "
          f"{'share':>7} {'step cpu':>9} {'fit cpu':>8} {'cpu share':>9}")
    for name, r in rows:
        share = (r["fit"] - r["step"]) / r["fit"]
        cpu_share = (r["fit_cpu"] - r["step_cpu"]) / r["fit_cpu"]
        print(f"{name:10} {r['pipeline'] * 1e3:12.1f} {r['cpu'] * 1e3:7.1f} "
              f"{r['step'] * 1e3:9.1f} {r['fit'] * 1e3:8.1f} {share:7.1%} "
              f"{r['step_cpu'] * 1e3:9.1f} {r['fit_cpu'] * 1e3:8.1f} {cpu_share:9.1%}")


if __name__ == "__main__":
    main()
