"""Errors of distributed training."""
from paddle.errors import PaddleError


class DistributedError(PaddleError, RuntimeError):
    """Ranks that disagree (shapes, dtypes, data sizes) or a world used wrongly."""


class CollectiveTimeout(DistributedError, TimeoutError):
    """A collective waited longer than the world's timeout for the other ranks."""
