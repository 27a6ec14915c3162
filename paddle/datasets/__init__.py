"""Keras's `keras.datasets` (`pd.datasets`): `mnist`, `fashion_mnist`, `cifar10`,
`cifar100`, `imdb`, `reuters`, `boston_housing` and `california_housing`, each with
Keras's `load_data` (and imdb's and reuters' `get_word_index`),
reading Keras's own cache files (`$KERAS_HOME/datasets`, else `~/.keras/datasets`) or
downloading them as Keras does, checked against Keras's hashes. The code lives in
`paddle/dataset/keras_files.py`; paddle's own data sets (readers) are `pd.dataset`.

Example:
    >>> import paddle as pd
    >>> sorted(m for m in ("mnist", "cifar10") if hasattr(pd.datasets, m))
    ['cifar10', 'mnist']
"""
from paddle.datasets import (  # noqa: F401
    boston_housing, california_housing, cifar10, cifar100, fashion_mnist, imdb, mnist,
    reuters)
