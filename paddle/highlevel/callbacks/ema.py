"""SwapEMAWeights: evaluate (and predict) with the optimizer's moving averages of the weights."""
from paddle.highlevel.callbacks.base import Callback


class SwapEMAWeights(Callback):
    """Swaps the model's weights with the optimizer's exponential moving averages of them
    (`use_ema=True`) before evaluation and prediction, and back after (Keras 3).

    The swap is in place: each trainable weight and its average exchange values. With
    `swap_on_epoch=True` the averages are also in the model between `on_epoch_end` and the
    next `on_epoch_begin`, so that other callbacks (a `ModelCheckpoint`) see them; after the
    last epoch they stay, as `fit` then puts the averages in the weights anyway.

    Args:
        swap_on_epoch: also swap at the end and beginning of each epoch (False).

    Raises:
        TypeError: swap_on_epoch is not True or False.
        ValueError: (when it first swaps) the model's optimizer does not have `use_ema=True`
            or has not updated the model's weights yet.

    Example:
        >>> import numpy as np, paddle as pd
        >>> model = pd.Sequential([pd.layers.Input(shape=(2,)), pd.layers.Dense(1)])
        >>> model.compile(optimizer=pd.optimizers.SGD(0.1, use_ema=True), loss="mse")
        >>> x, y = np.ones((4, 2), "float32"), np.zeros((4, 1), "float32")
        >>> history = model.fit(x, y, epochs=2, validation_data=(x, y), verbose=0,
        ...                     callbacks=[pd.callbacks.SwapEMAWeights()])
        >>> sorted(history.history)
        ['loss', 'val_loss']
    """

    def __init__(self, swap_on_epoch=False):
        super().__init__()
        if not isinstance(swap_on_epoch, bool):
            raise TypeError(f"SwapEMAWeights: expected swap_on_epoch as True or False, "
                            f"received {swap_on_epoch!r}")
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _pairs(self):
        optimizer = getattr(self.model, "optimizer", None)
        if not getattr(optimizer, "use_ema", False):
            raise ValueError(f"SwapEMAWeights: expected a model compiled with an optimizer "
                             f"with use_ema=True, received {optimizer!r}")
        weights = self.model.trainable_weights
        has = {id(v) for v in optimizer.variables()}  # (== on Variables builds an op)
        missing = [w.name for w in weights if id(w) not in has]
        if missing:
            raise ValueError(f"SwapEMAWeights: the optimizer has no moving average for "
                             f"{missing} (it has not trained them yet)")
        return [(w, optimizer.slots(w)["average"]) for w in weights]

    def _swap(self):
        pairs = self._pairs()
        for weight, average in pairs:
            current = weight.val()
            weight.set_value(average)
            average[...] = current  # (slots() marked the array as written on the host)

    def _averages_from_model(self):
        for weight, average in self._pairs():
            average[...] = weight.val()

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap()
            self._ema_weights_in_model = False

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap()
            self._ema_weights_in_model = True
            # fit puts the averages in the weights at its end: after the last epoch they
            # must be the EMA values again, not the swapped-out raw weights.
            if epoch == self.params.get("epochs", 0) - 1:
                self._averages_from_model()

    def on_test_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._swap()
            self._ema_weights_in_model = True

    def on_test_end(self, logs=None):
        if self._ema_weights_in_model:
            self._swap()
            self._ema_weights_in_model = False

    on_predict_begin = on_test_begin
    on_predict_end = on_test_end
