"""Exceptions users see, and where in their code a graph was built."""
import os
import sys

from paddle import _settings as config  # a leaf module: the traceback-filtering switch

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class PaddleError(Exception):
    """Base class of paddle's own errors."""


class ShapeError(PaddleError, ValueError):
    """Shapes or dtypes that do not fit an op, raised when the op is built."""


class FeedError(PaddleError, ValueError):
    """A feed that is missing or does not match its `pd.data` input."""


class CheckpointError(PaddleError, OSError):
    """A checkpoint file that is missing, unreadable or does not fit the model."""


class CheckpointNotFoundError(CheckpointError, FileNotFoundError):
    """A checkpoint path with no file: a `CheckpointError` that is also Python's
    `FileNotFoundError`, as for any missing file (`except FileNotFoundError` catches it)."""


class ExportError(PaddleError, ValueError):
    """A model that cannot be exported (`model.export`): not built, or holding a layer or
    op the format has no mapping for; the message names the model and the layer."""


def user_location():
    """'file.py:line' of the innermost frame outside the paddle package, or ''."""
    frame = sys._getframe(1)
    while frame is not None:
        where = source_location(frame.f_code.co_filename, frame.f_lineno)
        if where:
            return where
        frame = frame.f_back
    return ""


def source_location(filename, line):
    """'file.py:line' for a line of user code, '' for one inside the paddle package."""
    path = os.path.abspath(filename)
    if path.startswith(_PACKAGE_DIR + os.sep):
        return ""
    return f"{os.path.basename(path)}:{line}"


def at_user(message):
    """The message with the user's file and line appended: '... (at train.py:14)'. With
    `pd.config.disable_traceback_filtering()`, the line of paddle that raised is added too
    ('... (at train.py:14; in paddle/highlevel/layers/core.py:80)')."""
    where = user_location()
    if not config.is_traceback_filtering_enabled():
        caller = sys._getframe(1)
        inner = os.path.relpath(os.path.abspath(caller.f_code.co_filename),
                                os.path.dirname(_PACKAGE_DIR))
        where = f"{where}; in {inner}:{caller.f_lineno}" if where else \
            f"in {inner}:{caller.f_lineno}"
    return f"{message} (at {where})" if where else message
