"""PyDataset and any object with __len__/__getitem__ as a source for fit/evaluate/predict."""
import numpy as np
import pytest

import paddle as pd

RNG = np.random.default_rng(0)
X = RNG.normal(size=(40, 3)).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)


class Batches(pd.utils.PyDataset):
    def __init__(self, batch_size=8, with_y=True, **kwargs):
        super().__init__(**kwargs)
        self.batch_size, self.with_y = batch_size, with_y
        self.order = np.arange(len(X))
        self.epochs_ended, self.epochs_begun, self.reads = 0, 0, []

    def __len__(self):
        return -(-len(X) // self.batch_size)

    def __getitem__(self, i):
        self.reads.append(i)
        pick = self.order[i * self.batch_size:(i + 1) * self.batch_size]
        return (X[pick], Y[pick]) if self.with_y else X[pick]

    def on_epoch_begin(self):
        self.epochs_begun += 1

    def on_epoch_end(self):
        self.epochs_ended += 1
        self.order = RNG.permutation(len(X))


def _model():
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
    model.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")
    return model


def test_fit_evaluate_predict_on_a_pydataset():
    ds = Batches()
    model = _model()
    history = model.fit(ds, epochs=4, verbose=0, validation_data=Batches())
    assert ds.epochs_ended == 4 and ds.epochs_begun == 4
    assert ds.reads[:5] == [0, 1, 2, 3, 4] and len(ds.reads) == 20
    losses = history.history["loss"]
    assert losses[-1] < losses[0] / 4, losses  # it learns
    assert len(history.history["val_loss"]) == 4
    loss = model.evaluate(Batches(), verbose=0)
    np.testing.assert_allclose(loss, model.evaluate(X, Y, batch_size=8, verbose=0), rtol=1e-5)
    np.testing.assert_allclose(model.predict(Batches(with_y=False)), model.predict(X),
                               rtol=1e-6)


def test_same_training_as_arrays_in_the_same_order():
    """A PyDataset that serves the arrays' batches in order trains exactly as the arrays."""
    a, b = _model(), _model()
    a.fit(Batches(), epochs=1, verbose=0)  # its on_epoch_end shuffles after the first pass
    b.fit(X, Y, batch_size=8, shuffle=False, epochs=1, verbose=0)
    np.testing.assert_allclose(a.get_weights()[0], b.get_weights()[0], rtol=1e-6)


def test_steps_per_epoch_and_plain_indexable_objects():
    class Plain:  # not a PyDataset: __len__ and __getitem__ are enough
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return X[i * 8:(i + 1) * 8], Y[i * 8:(i + 1) * 8], np.ones(8, np.float32)
    model = _model()
    history = model.fit(Plain(), epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    ds = Batches()
    model.fit(ds, epochs=1, steps_per_epoch=2, verbose=0)
    assert ds.reads == [0, 1]


def test_workers_read_ahead_in_order():
    ds = Batches(workers=3, max_queue_size=2)
    model = _model()
    out = model.predict(Batches(with_y=False, workers=3))
    np.testing.assert_allclose(out, model.predict(X), rtol=1e-6)
    model.fit(ds, epochs=1, verbose=0)
    assert sorted(ds.reads) == list(range(5))


def test_errors():
    with pytest.raises(ValueError, match="Batches: expected workers as a positive integer"):
        Batches(workers=0)
    with pytest.raises(ValueError, match="expected max_queue_size as a positive integer"):
        Batches(max_queue_size="2")
    model = _model()
    with pytest.raises(ValueError, match="a Batches yields \\(x, y\\) batches itself"):
        model.fit(Batches(), Y, verbose=0)

    class BadLen(pd.utils.PyDataset):
        def __len__(self):
            return -1

        def __getitem__(self, i):
            return X, Y
    with pytest.raises(ValueError, match="BadLen: expected __len__ to return the number of "
                                         "batches"):
        model.fit(BadLen(), verbose=0)

    class Missing(pd.utils.PyDataset):
        def __len__(self):
            return 1
    with pytest.raises(NotImplementedError, match="Missing must implement __getitem__"):
        model.fit(Missing(), verbose=0)
