"""The examples in the reader docstrings run, and every public function has a docstring."""
import doctest
import importlib
import inspect

import pytest

MODULES = ["paddle.reader", "paddle.reader.decorator", "paddle.reader.parallel",
           "paddle.reader.creator", "paddle.reader.arrays"]


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_public_functions_have_full_docstrings():
    import paddle.reader as reader
    functions = [getattr(reader, n) for n in reader.__all__ if inspect.isfunction(getattr(reader, n))]
    functions += [reader.creator.np_array, reader.creator.text_file]
    for func in functions:
        doc = inspect.getdoc(func)
        assert doc and "Args:" in doc and "Returns:" in doc and ">>>" in doc, func.__name__
