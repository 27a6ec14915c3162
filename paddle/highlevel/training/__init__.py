"""Training: compile / fit / evaluate / predict and what they stand on.

- `loop.py`: `Trainable`, the training half of `Model` (compile, the loops, the
  `*_on_batch` calls, `compute_loss`, `train_step` / `test_step`).
- `step.py`: `Step`, one compiled step, and `trace_step`, the one tracer of a model's own
  `train_step` / `test_step` / `predict_step`.
- `keras_api.py`: Keras 3's attributes around the loop (`predict_step`,
  `make_train_function`, compile configs, execution settings).
- `checks.py`: checks of a batch before a step runs (empty batches, class labels).
- `data/`: the one data-input adapter (`data.adapt`): arrays (`arrays.py`), readers,
  iterables and generators of batches (`streams.py`) and PyDatasets (`py_dataset.py`)
  plug in under it; `adapter_utils.py` holds Keras's batch packing and `split_dataset`.
- `progress.py`: the progress bar (`Progbar`: fit's, through `ProgbarLogger`, and Keras's `pd.utils.Progbar`).
- `event_trainer.py`: the seeds' `Trainer` and `Inferencer` (training driven by events, a
  thin layer over `Model.fit`).

Nothing is imported here: `from paddle.highlevel.training.loop import Trainable`.
"""
