"""Tests of the low level's ops, one file per family module of paddle/lowlevel/ops/."""
