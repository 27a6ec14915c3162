"""Tests of paddle.distributed, one file per module (a package: its test_training.py and the
low level's are two modules)."""
