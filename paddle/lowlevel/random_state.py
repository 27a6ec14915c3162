"""The one random state of paddle: initializers, shuffling and dropout all draw from it.

`pd.seed(n)` resets it, so a run is reproducible end to end.

Example:
    >>> import paddle as pd
    >>> pd.seed(0); a = pd.lowlevel.random_state.generator().random()
    >>> pd.seed(0); b = pd.lowlevel.random_state.generator().random()
    >>> a == b
    True
"""
import numpy as np

_gen = np.random.default_rng()


def seed(n):
    """Reset paddle's random state so what follows is reproducible.

    Args:
        n: a non-negative integer.
    """
    global _gen
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 0:
        raise ValueError(f"seed: expected a non-negative integer, received {n!r}")
    _gen = np.random.default_rng(int(n))


def generator():
    """The NumPy Generator behind paddle's random state (shared, not a copy)."""
    return _gen


def next_seed():
    """A fresh 63-bit seed for a kernel that draws its own numbers (dropout)."""
    return int(_gen.integers(0, 2**63 - 1))


def get_state():
    """The random state as a JSON-friendly dict, for checkpoints."""
    return _gen.bit_generator.state


def set_state(state):
    """Restore a state returned by `get_state`."""
    _gen.bit_generator.state = state
