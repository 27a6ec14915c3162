"""Keras 3 for the interoperability tests, on the PyTorch or JAX backend: `keras` (the
module), or the importing test module is skipped; `quiet`, a fixture silencing the warnings
Keras and torch give about the legacy format and more (import it into the test module)."""
import os
import warnings

import pytest

if "KERAS_BACKEND" not in os.environ:  # PyTorch's or JAX's, whichever is installed
    import importlib.util
    os.environ["KERAS_BACKEND"] = "torch" if importlib.util.find_spec("torch") or \
        not importlib.util.find_spec("jax") else "jax"
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    keras = pytest.importorskip("keras")
if not keras.__version__.startswith("3.") or keras.backend.backend() not in ("torch", "jax"):
    pytest.skip(f"needs Keras 3 on the PyTorch or JAX backend, found Keras "
                f"{keras.__version__} on {keras.backend.backend()}", allow_module_level=True)


@pytest.fixture(autouse=True)
def quiet():
    with warnings.catch_warnings():  # Keras warns about the legacy format, torch about more
        warnings.simplefilter("ignore")
        yield
