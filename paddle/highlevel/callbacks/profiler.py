"""ProfilerCallback: profile some train batches of `fit` (paddle.profiler), print the
table, and write their trace."""
from paddle.highlevel.callbacks.base import Callback
from paddle.profiler import BatchProfiler


class ProfilerCallback(Callback):
    """Profile train batches of `fit` and print the table (and write a trace).

    Args:
        batches: a batch number or (first, last), 1-based, counted over the whole fit.
        trace: a path for the Chrome trace of those batches (None: none written).
        print_table: print `Profile.table()` when the last batch is done.

    After fit, `callback.profile` holds the `paddle.profiler.Profile`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> model = pd.Sequential([pd.layers.Input(shape=(8,)), pd.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> cb = pd.callbacks.ProfilerCallback(batches=(2, 3), print_table=False)
        >>> _ = model.fit(np.ones((64, 8)), np.ones((64, 1)), batch_size=16, verbose=0,
        ...               callbacks=[cb])
        >>> cb.profile.runs
        2
    """

    def __init__(self, batches=(2, 4), trace=None, print_table=True):
        super().__init__()
        self.trace, self.print_table, self.profile = trace, bool(print_table), None
        self._profiler = BatchProfiler(batches, self._done, "ProfilerCallback")

    def on_train_batch_begin(self, batch, logs=None):
        self._profiler.batch_begin()

    def on_train_batch_end(self, batch, logs=None):
        self._profiler.batch_end()

    def on_train_end(self, logs=None):
        self._profiler.stop()

    def _done(self, prof):
        self.profile = prof
        if self.trace is not None:
            prof.export_chrome_trace(self.trace)
        if self.print_table:
            print(prof.table())
