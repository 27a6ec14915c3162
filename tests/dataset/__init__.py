"""Tests of paddle.dataset, one file per module (a package: its test_docstrings.py and the
reader's are two modules)."""
