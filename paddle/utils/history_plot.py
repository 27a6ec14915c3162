"""Learning curves: `plot_history` draws a History with matplotlib, one panel per metric.

Drawing goes through matplotlib's object interface on the Agg canvas (no pyplot state, no
window), so it works on servers and in threads. Install it with
`pip install "paddle-graph[plot]"`.
"""
import io
import math
import numbers
import os

from paddle._atomic import write_bytes

OPTIONAL_REQUIREMENTS = ("matplotlib",)  # docstring examples run only where it is installed

FORMATS = ("png", "svg", "pdf", "jpg", "jpeg", "ps", "eps")


def _series(history, who):
    """{name: [values]} from a History, or a dict of lists such as `history.history`."""
    values = getattr(history, "history", history)
    if not isinstance(values, dict):
        raise TypeError(f"{who}: expected a History (what fit returns) or a dict of lists, "
                        f"received {type(history).__name__}")
    if not values or not any(len(v) for v in values.values()):
        raise ValueError(f"{who}: the history is empty: there is nothing to draw (fit for at "
                         "least one epoch)")
    for name, series in values.items():
        if not isinstance(series, (list, tuple)) or not all(
                isinstance(v, numbers.Real) for v in series):
            raise TypeError(f"{who}: expected history[{name!r}] to be a list of numbers, "
                            f"received {series!r}")
    return values


def plot_history(history, to_file="history.png", metrics=None, dpi=100):
    """Draws training and validation curves: one panel per metric, epochs along x.

    Each panel shows a metric (`loss`, `accuracy`, ...) and, when the history has it, its
    `val_` counterpart. The file is written to a temporary name beside `to_file` and renamed
    into place: a failure leaves no partial file.

    Args:
        history: the History that `fit` returns, or a dict such as `history.history`.
        to_file: the image file (png, svg, pdf, jpg, ps or eps, by extension).
        metrics: the names to draw (default: every name in the history without `val_`).
        dpi: the picture's resolution.

    Returns:
        The matplotlib Figure.

    Raises:
        TypeError, ValueError: not a history, an empty one, or an unknown metric name.
        ImportError: matplotlib is missing (says how to install it).

    Example:
        >>> import paddle as pd
        >>> history = {"loss": [0.9, 0.5, 0.3], "val_loss": [1.0, 0.7, 0.6],
        ...            "accuracy": [0.5, 0.7, 0.8], "val_accuracy": [0.4, 0.6, 0.7]}
        >>> figure = pd.utils.plot_history(history, to_file="history.png")
        >>> [axes.get_title() for axes in figure.axes]
        ['loss', 'accuracy']
        >>> [line.get_label() for line in figure.axes[0].get_lines()]
        ['loss', 'val_loss']
    """
    who = "plot_history"
    values = _series(history, who)
    path = os.fspath(to_file)
    ext = os.path.splitext(path)[1][1:].lower()
    if ext not in FORMATS:
        raise ValueError(f"{who}: cannot tell the image format from to_file {path!r}; "
                         f"expected an extension among {', '.join(FORMATS)}")
    names = [k for k in values if not k.startswith("val_")] or list(values)
    if metrics is not None:
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [m for m in metrics if m not in values]
        if unknown:
            raise ValueError(f"{who}: {unknown} are not in the history; it holds "
                             f"{sorted(values)}")
        names = metrics
    try:  # optional dependency (the "plot" extra), for each of the three imports
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # optional dependency
        from matplotlib.figure import Figure  # optional dependency
        from matplotlib.ticker import MaxNLocator  # optional dependency
    except ImportError:
        raise ImportError(f"{who}: the 'matplotlib' package is not installed; install it "
                          "with pip install 'paddle-graph[plot]' (or pip install "
                          "matplotlib)") from None
    columns = min(len(names), 2)
    rows = math.ceil(len(names) / columns)
    figure = Figure(figsize=(5.0 * columns, 3.5 * rows), dpi=dpi, layout="constrained")
    FigureCanvasAgg(figure)
    epochs = getattr(history, "epoch", None)
    for i, name in enumerate(names):
        axes = figure.add_subplot(rows, columns, i + 1)
        for key in (name, f"val_{name}"):
            series = values.get(key)
            if not series:
                continue
            x = [e + 1 for e in epochs] if epochs and len(epochs) == len(series) \
                else range(1, len(series) + 1)
            axes.plot(list(x), list(series), marker="o" if len(series) < 30 else None,
                      markersize=3, label=key)
        axes.set_title(name)
        axes.set_xlabel("epoch")
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_ylabel(name)
        axes.grid(True, alpha=0.3)
        axes.legend()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="jpeg" if ext == "jpg" else ext)
    write_bytes(path, buffer.getvalue(), who)
    return figure
