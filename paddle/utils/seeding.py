"""`set_random_seed`: one call seeds everything that draws random numbers.

Example:
    >>> import numpy as np, paddle as pd
    >>> pd.utils.set_random_seed(7); a = np.random.rand()
    >>> pd.utils.set_random_seed(7); a == np.random.rand()
    True
"""
import numbers
import random

import numpy as np

from paddle.lowlevel import random_state as _state


def set_random_seed(seed):
    """Seed Python's `random`, NumPy's global generator and paddle's random state (`pd.seed`:
    initializers, shuffling, dropout, `pd.random` draws), as `keras.utils.set_random_seed`.

    Args:
        seed: an integer in [0, 2**32).

    Raises:
        ValueError: anything else.
    """
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or \
            not 0 <= seed < 2 ** 32:
        raise ValueError(f"set_random_seed: expected an integer in [0, 2**32), received "
                         f"{seed!r}")
    random.seed(int(seed))
    np.random.seed(int(seed))
    _state.seed(int(seed))
