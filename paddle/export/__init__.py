"""Exporting trained models to other runtimes: `model.export(path, format="onnx")`, and
`ExportArchive` (Keras's class: several named endpoints in one archive of ONNX graphs,
read back by `load_archive`; see archive.py).

One sub-package per format (`paddle.export.onnx`), each registering its exporter in the
table `EXPORTERS` that `Model.export` reads (the model does not import this package);
`export_model` is `Model.export` returning what the exporter returns.

Example:
    >>> import paddle as pd
    >>> sorted(pd.export.EXPORTERS)
    ['onnx']
"""
from paddle.highlevel.models.model import EXPORTERS, export_model  # noqa: F401
from paddle.export import onnx  # noqa: F401  (registers "onnx" in EXPORTERS)
from paddle.export.archive import ExportArchive, LoadedArchive, load_archive  # noqa: F401,E402
