"""One lock over the stored state: parameters, constants, optimizer slots and iteration
counts, moving statistics.

A plan run holds it from its first kernel to its last (paddle/lowlevel/executor.py): a run
computes with one set of values, and a training step's updates (the weights, the slots,
`optimizer.iterations`, the moving statistics) appear to everyone else all at once.
Whoever reads or writes several stored values as one set holds it too: `set_weights`,
`get_weights` and `load_weights` (a predict running in another thread sees the old weights
or the new ones, never a mix), and saves (their snapshot is taken before or after a step
of a `fit` running in another thread, never in the middle of one). docs/security.md states
the contract this gives a model shared between threads.

Reentrant: a callable a run invokes (a learning-rate schedule) may itself evaluate, and a
save inside a callback of `fit` takes it again.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.lowlevel import stored_state
    >>> w = pd.Variable("stored_state_w", shape=[2], initializer="zeros")
    >>> with stored_state.LOCK:  # no plan runs in between: one consistent set
    ...     w.set_value(np.ones(2)); w.val().tolist()
    [1.0, 1.0]
"""
import threading

LOCK = threading.RLock()
