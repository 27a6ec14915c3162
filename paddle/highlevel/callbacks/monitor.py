"""Helpers shared by the callbacks that watch a logged value."""
import warnings

from paddle.highlevel.training.progress import BOOKKEEPING

# ---- shared by the monitoring callbacks -------------------------------------------------

def _resolve_mode(mode, monitor, who):
    """'min' or 'max'; 'auto' maximizes accuracy-like names and minimizes the rest."""
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"{who}: expected mode 'auto', 'min' or 'max', received {mode!r}")
    if mode != "auto":
        return mode
    name = monitor[4:] if monitor.startswith("val_") else monitor
    higher_is_better = ("acc", "auc", "precision", "recall", "fmeasure", "f1")
    return "max" if any(word in name for word in higher_is_better) else "min"


def _improved(mode, current, reference, min_delta=0.0):
    """Whether `current` beats `reference` by more than min_delta in the mode's direction."""
    if reference is None:
        return True
    if mode == "min":
        return current < reference - abs(min_delta)
    return current > reference + abs(min_delta)


def _monitored(logs, monitor, who):
    """The monitored value as a float, or None with a warning naming the available keys."""
    value = (logs or {}).get(monitor)
    if value is None:
        keys = ", ".join(k for k in (logs or {}) if k not in BOOKKEEPING) or "none"
        warnings.warn(f"{who} monitors {monitor!r}, which is not in the logs; available "
                      f"keys: {keys}", stacklevel=3)
        return None
    return float(value)


def _learning_rate(model, who):
    """The optimizer's learning rate as a float (a schedule cannot be overridden)."""
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or not hasattr(optimizer, "learning_rate"):
        raise ValueError(f"{who}: the model has no optimizer with a learning_rate; compile "
                         "the model first")
    lr = optimizer.learning_rate
    try:
        return float(lr)
    except (TypeError, ValueError):
        raise TypeError(f"{who}: expected the optimizer's learning_rate to be a number, "
                        f"received {type(lr).__name__}; a schedule already sets it") from None
