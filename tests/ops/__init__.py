"""Tests of `pd.ops`, Keras's op namespace (a package: module names repeat across folders)."""
