"""Data-parallel training of a convnet on the 8x8 digits, on 1 or N processes.

    mpiexec -n 2 python examples/distributed_mnist.py     # two ranks (pip install ".[mpi]")
    python examples/distributed_mnist.py                  # the same script, one process

`pd.distributed.init()` at the top is the only change from a one-process script. With
several ranks, `fit` gives each rank its shard of every epoch's shuffled order,
`Optimizer.minimize`'s update averages the gradients of all ranks before applying them,
the logs are averaged, and rank 0 alone prints progress and writes the checkpoint. The
batch size is per rank: two ranks at 32 take the steps of one process at 64.
"""
import os
import tempfile

import numpy as np

import paddle as pd
from digits_convnet import build_model, load


def main():
    pd.distributed.init()
    rank, size = pd.distributed.rank(), pd.distributed.size()
    pd.seed(0)                       # the same seed everywhere: rank 0 shuffles for all
    x_train, y_train = load(pd.dataset.digits.train())
    x_test, y_test = load(pd.dataset.digits.test())
    if pd.distributed.is_chief():
        print(f"{size} rank(s); train {x_train.shape}, test {x_test.shape}")

    model = build_model()
    model.compile(optimizer=pd.optimizers.Adam(1e-3 * size),  # larger global batch
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    folder = os.environ.get("CHECKPOINT_DIR", tempfile.gettempdir())
    checkpoint = pd.callbacks.ModelCheckpoint(os.path.join(folder, "digits_best.h5"),
                                              monitor="val_accuracy", save_best_only=True)
    model.fit(x_train, y_train, batch_size=32, epochs=15, validation_split=0.1,
              callbacks=[checkpoint], verbose=2)

    # Every rank holds the same weights: each evaluates the whole test set alike.
    results = model.evaluate(x_test, y_test, batch_size=256, return_dict=True, verbose=0)
    if pd.distributed.is_chief():
        print(f"test loss {results['loss']:.4f}  test accuracy {results['accuracy']:.4f}")
    same = pd.distributed.allreduce(np.float64([results["accuracy"]]), op="mean")
    assert abs(float(same[0]) - results["accuracy"]) < 1e-12, "the ranks drifted apart"
    assert results["accuracy"] >= 0.93, "the convnet did not learn the digits"
    return results["accuracy"]


if __name__ == "__main__":
    main()
