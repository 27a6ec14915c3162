"""Updates of a layer's own state made by its call (every assignment a call on symbolic
inputs builds: a stateful RNN writing its final states, a user's `self.total.assign_add`),
kept beside the outputs of that call: whatever computes one of those outputs (a fit,
evaluate or predict step, an eager call on arrays) runs the updates with it, as Keras 3
runs `self.states[i].assign(...)` inside the call.

The updates are `assign` ops, which run after every other op of a run; what the call
builds after an assignment reads the value assigned (program order inside a trace, see
paddle/lowlevel/ops/state.py), and the next run reads what this one wrote.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.highlevel.layers import state_updates
    >>> total = pd.Variable("state_updates_example", shape=[2], initializer="zeros",
    ...                     trainable=False)
    >>> x = pd.data("state_updates_example_x", shape=[None, 2])
    >>> y = total + pd.sum(x, axis=0)
    >>> state_updates.attach([y], [pd.assign(total, y)])
    >>> len(state_updates.reached([y * 2.0]))
    1
"""
import weakref

from paddle.lowlevel.executor import topological_nodes

_UPDATES = weakref.WeakKeyDictionary()  # the Node of an output -> [update ops]


def attach(outputs, updates):
    """Run `updates` (assign ops) whenever one of `outputs` (Variables) is computed."""
    for out in outputs:
        if out.node is not None:
            _UPDATES.setdefault(out.node, []).extend(updates)


def reached(fetches):
    """The update ops attached to the outputs that `fetches` are computed from (each once,
    in the order met)."""
    if not _UPDATES:
        return []
    found, seen = [], set()
    for node in topological_nodes(list(fetches)):
        for update in _UPDATES.get(node, ()):
            if id(update) not in seen:
                seen.add(id(update))
                found.append(update)
    return found
