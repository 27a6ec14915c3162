"""Tests of pd.ops, Keras's `keras.ops` functions, one file per module of paddle/ops/."""
