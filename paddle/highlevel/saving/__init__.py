"""Saving and loading models: one dispatcher (api.py) choosing the format by the file's
name (formats.py), one registry of names (registry.py), objects to configs and back
(serialization.py, architecture.py for layers and models, compiling.py for compile
settings), Keras 3's `.keras` format (keras_v3.py), Keras's legacy HDF5 layout
(legacy_hdf5.py over hdf5_file.py) and the checked HDF5 reader every file goes through
(hdf5_reader.py). docs/saving.md describes the files.

This package imports none of its modules here: the layers import registry.py and
serialization.py, which sit below them, while api.py sits above the models. The public
names are `pd.saving.*`, `pd.models.*` and `pd.load_model`.
"""
