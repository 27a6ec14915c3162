"""Tests of paddle.reader, one file per module (a package: its test_docstrings.py and the
dataset's are two modules)."""
