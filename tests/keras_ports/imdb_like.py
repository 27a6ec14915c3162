"""An offline stand-in for `keras.datasets.imdb.load_data(num_words=...)`, for the ported
keras-io text programs.

Keras downloads 25,000 + 25,000 reviews; here `load_data` makes 128 + 64 synthetic
ones of the same form: each review a Python list of word indices (1 the start mark, as
Keras's `start_char=1`, then words in `3..num_words-1`), of varying length (some longer
than the programs' `maxlen`, most shorter), labels 0 or 1 in an int64 array. A review's
label sets which of two small sets of "sentiment" words its words are sprinkled with, so
a model can learn it in a few epochs; every other word is drawn from the whole vocabulary.
"""
import numpy as np

_SENTIMENT_WORDS = {0: np.arange(10, 13), 1: np.arange(20, 23)}


class imdb:  # noqa: N801  (spelled as the module it stands for: keras.datasets.imdb)
    @staticmethod
    def load_data(num_words=20000, n_train=128, n_test=64, seed=0):
        """((x_train, y_train), (x_test, y_test)): object arrays of lists of ints and
        int64 labels, as Keras's `imdb.load_data` returns them."""
        rng = np.random.default_rng(seed)

        def make(n):
            labels = rng.integers(0, 2, size=n)
            reviews = np.empty(n, dtype=object)
            for i, label in enumerate(labels):
                length = int(rng.integers(20, 260))
                words = rng.integers(3, num_words, size=length)
                sentiment = rng.random(length) < 0.5
                words[sentiment] = rng.choice(_SENTIMENT_WORDS[int(label)], sentiment.sum())
                reviews[i] = [1] + words.tolist()
            return reviews, labels.astype(np.int64)

        return make(n_train), make(n_test)
