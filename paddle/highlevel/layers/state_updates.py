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
from paddle.lowlevel.executor import topological_nodes


def attach(outputs, updates):
    """Run `updates` (assign ops) whenever one of `outputs` (Variables) is computed."""
    for out in outputs:
        if out.node is not None:
            # On the output itself: a table keyed weakly by its node would hold the
            # updates, which read the output, and so keep every graph alive for good.
            out.__dict__.setdefault("_state_updates", []).extend(updates)


def reached(fetches):
    """The update ops attached to the outputs that `fetches` are computed from (each once,
    in the order met)."""
    found, seen = [], set()
    for node in topological_nodes(list(fetches)):
        for out in node.outputs:
            for update in (out.__dict__.get("_state_updates", ()) if out is not None else ()):
                if id(update) not in seen:
                    seen.add(id(update))
                    found.append(update)
    return found
