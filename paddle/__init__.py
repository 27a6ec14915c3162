"""paddle: a deep-learning library with a Keras-style high level on a graph-building low level."""
import numpy  # noqa: F401  (before the BLAS and the extension: see docs/architecture.md)

from paddle.errors import CheckpointError, FeedError, PaddleError, ShapeError  # noqa: F401
from paddle.lowlevel.random import seed  # noqa: F401
import scipy_openblas32  # noqa: F401,E402  (loads libscipy_openblas globally for paddle._C)

from paddle import _C  # noqa: F401,E402
