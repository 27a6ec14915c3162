"""Exporting trained models to other runtimes: `model.export(path, format="onnx")`.

One sub-package per format (`paddle.export.onnx`); `export_model` picks it by name.
"""
import os

FORMATS = ("onnx",)


def export_model(model, filepath, format="onnx", **options):
    """Writes `model` to `filepath` in `format` (see `Model.export`)."""
    if not isinstance(format, str) or format.lower() not in FORMATS:
        raise ValueError(f"export: expected format {' or '.join(map(repr, FORMATS))}, "
                         f"received {format!r}")
    try:
        path = os.fspath(filepath)
    except TypeError:
        raise TypeError(f"export: expected filepath to be a path, received "
                        f"{type(filepath).__name__}") from None
    from paddle.export.onnx import export_onnx
    return export_onnx(model, path, **options)
