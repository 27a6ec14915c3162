"""TextVectorization: text to token ids or vectors, on the host, as Keras's.

The steps are Keras 3's (`text_vectorization.py`), each reproduced as TensorFlow runs
it there: `tf.strings.lower` (ASCII letters only: TF's default encoding), the
punctuation regex of "strip_punctuation", `tf.strings.split` (ASCII whitespace, runs of
it as one, no empty tokens), `tf.strings.unicode_split` for "character", and
`tf.strings.ngrams` (every width in order, joined by a space); then a StringLookup with
mask token "" (index 0 pads, index 1 is "[UNK]"). Like the lookups it runs on the host
(paddle/lowlevel/strings.py): on a `pd.Input(dtype="string")` it gives the ids as a
numeric model input.

Example:
    >>> import paddle as pd
    >>> layer = pd.layers.TextVectorization(output_sequence_length=4)
    >>> layer.adapt(["foo bar", "bar baz", "baz bada boom"])
    >>> layer([["foo qux bar"], ["qux baz"]]).tolist()
    [[4, 1, 3, 0], [1, 2, 0, 0]]
"""
import numbers
import re

import numpy as np

from paddle.lowlevel.strings import as_strings
from paddle.highlevel.layers.lookup import HostLayer, StringLookup, adapt_batches, encode_host
from paddle.highlevel.saving.registry import get_registered_object, registered_key

# Keras's DEFAULT_STRIP_REGEX (`,-\.` is the range ',' to '.', as in RE2)
PUNCTUATION = re.compile(r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']')
ASCII_WHITESPACE = re.compile(r"[ \t\n\v\f\r]+")
ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
STANDARDIZE = ("lower_and_strip_punctuation", "lower", "strip_punctuation")
SPLIT = ("whitespace", "character")


def _ngrams(tokens, widths):
    out = []
    for n in widths:
        out.extend(" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1))
    return out


class TextVectorization(HostLayer):
    """Maps text to token ids (padded sequences) or to one vector per text (Keras's
    TextVectorization), on the host.

    Args:
        max_tokens: the largest vocabulary (with the padding "" and "[UNK]" entries).
        standardize: "lower_and_strip_punctuation" (default), "lower",
            "strip_punctuation", None, or a callable taking and returning a NumPy object
            array of str.
        split: "whitespace" (default), "character", None (whole strings are tokens), or a
            callable taking a 1-D object array of str and returning one token list per
            string.
        ngrams: None, an int n (widths 1..n) or a tuple of widths.
        output_mode: "int" (default), "multi_hot", "count" or "tf_idf".
        output_sequence_length: int mode: pad or cut each sequence to this length (else
            to the batch's longest).
        pad_to_max_tokens: multi_hot / count / tf_idf: `max_tokens` columns.
        vocabulary: a list of tokens or the path of a text file (one a line); else
            `adapt(data)` learns it (by count, ties by the token, both descending).
        idf_weights: tf_idf with a given vocabulary: one weight per token.
        sparse, ragged: False only. encoding: "utf-8" only.

    Example:
        >>> import paddle as pd
        >>> layer = pd.layers.TextVectorization(vocabulary=["earth", "wind", "and", "fire"])
        >>> layer.get_vocabulary()
        ['', '[UNK]', 'earth', 'wind', 'and', 'fire']
    """

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode="int",
                 output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", name=None,
                 vocabulary_size=None, **kwargs):
        # vocabulary_size: written in Keras's configs (the lookup's, below)
        kwargs.pop("dtype", None)
        super().__init__(name=name, **kwargs)
        if not (standardize is None or callable(standardize) or standardize in STANDARDIZE):
            raise ValueError(f"TextVectorization: expected standardize in {STANDARDIZE}, None "
                             f"or a callable, received {standardize!r}")
        if not (split is None or callable(split) or split in SPLIT):
            raise ValueError(f"TextVectorization: expected split in {SPLIT}, None or a "
                             f"callable, received {split!r}")
        if isinstance(ngrams, list):
            ngrams = tuple(ngrams)
        if not (ngrams is None or (isinstance(ngrams, numbers.Integral) and ngrams >= 1 and
                                   not isinstance(ngrams, bool)) or
                (isinstance(ngrams, tuple) and ngrams and all(
                    isinstance(n, numbers.Integral) and n >= 1 for n in ngrams))):
            raise ValueError(f"TextVectorization: expected ngrams as None, an integer >= 1 "
                             f"or a tuple of them, received {ngrams!r}")
        if output_sequence_length is not None and (
                not isinstance(output_sequence_length, numbers.Integral) or
                isinstance(output_sequence_length, bool) or output_sequence_length < 1):
            raise ValueError(f"TextVectorization: expected output_sequence_length as None or "
                             f"an integer >= 1, received {output_sequence_length!r}")
        if output_mode not in ("int", "multi_hot", "count", "tf_idf", "tf-idf", "binary"):
            raise ValueError(f"TextVectorization: expected output_mode in ('int', "
                             f"'multi_hot', 'count', 'tf_idf'), received {output_mode!r}")
        if output_mode != "int" and output_sequence_length is not None:
            raise ValueError(f"TextVectorization: output_sequence_length is used in "
                             f"output_mode 'int' only, received output_mode={output_mode!r}")
        if ragged or sparse:
            raise ValueError("TextVectorization: paddle has no ragged or sparse tensors, "
                             f"received ragged={ragged!r}, sparse={sparse!r}")
        if encoding not in ("utf-8", "utf8", "UTF-8"):
            raise ValueError(f"TextVectorization: expected encoding 'utf-8', received "
                             f"{encoding!r}")
        self.standardize, self.split, self._ngrams_arg = standardize, split, ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, numbers.Integral) \
            else ngrams
        self.output_sequence_length = output_sequence_length
        self.ragged, self.sparse, self.encoding = False, False, "utf-8"
        self._lookup_layer = StringLookup(
            max_tokens=max_tokens, vocabulary=vocabulary, idf_weights=idf_weights,
            pad_to_max_tokens=pad_to_max_tokens, mask_token="", output_mode=output_mode,
            vocabulary_size=vocabulary_size, name=f"{self.name}_lookup")
        self.output_mode = self._lookup_layer.output_mode

    # ---- the vocabulary -----------------------------------------------------------------

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary in index order ("" and "[UNK]" first unless
        `include_special_tokens=False`)."""
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        """The vocabulary's size with the padding and OOV entries."""
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Set the vocabulary (and tf_idf's weights), as StringLookup.set_vocabulary."""
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights)

    def adapt(self, data, batch_size=None, steps=None):
        """Learn the vocabulary from `data`: strings as an array or list (one text a row),
        or an iterable of batches of them (a generator, a PyDataset, a reader: (x, y)
        items give their x), at most `steps` batches."""
        whole = isinstance(data, (np.ndarray, list, tuple))

        def documents():
            for batch in adapt_batches(data, steps, f"{self.name}: adapt"):
                texts = as_strings(batch, f"{self.name}: adapt")
                if texts.ndim == 1 and whole:
                    texts = texts[:, None]
                elif texts.ndim == 0 or (texts.ndim == 1 and self.split is None):
                    texts = texts.reshape(1, -1)
                yield self._tokenize(texts)
        self._lookup_layer.adapt_documents(documents())

    # ---- the steps ----------------------------------------------------------------------

    def _standardize(self, texts):
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            texts = np.array([t.translate(ASCII_LOWER) for t in texts.reshape(-1)],
                             dtype=object).reshape(texts.shape)
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            texts = np.array([PUNCTUATION.sub("", t) for t in texts.reshape(-1)],
                             dtype=object).reshape(texts.shape)
        if callable(self.standardize):
            texts = as_strings(self.standardize(texts), f"{self.name}: standardize")
        return texts

    def _tokenize(self, texts):
        """One token list per text: texts (batch,) or (batch, 1) with a split; without
        one, each row's strings are its tokens."""
        texts = self._standardize(texts)
        if self.split is None:
            rows = [list(r) for r in (texts.reshape(-1, 1) if texts.ndim == 1 else
                                      texts.reshape(texts.shape[0], -1))]
        else:
            if texts.ndim > 1:
                if texts.shape[-1] != 1:
                    raise ValueError(f"{self.name}: to split strings the input must be of "
                                     f"rank 1 or have a last axis of size 1, received "
                                     f"shape {texts.shape}")
                texts = texts.reshape(texts.shape[:-1]).reshape(-1)
            if self.split == "whitespace":
                rows = [[t for t in ASCII_WHITESPACE.split(s) if t] for s in texts]
            elif self.split == "character":
                rows = [list(s) for s in texts]
            else:
                rows = [list(as_strings(np.asarray(list(r), dtype=object), f"{self.name}: "
                                        "split")) for r in self.split(texts)]
                if len(rows) != len(texts):
                    raise ValueError(f"{self.name}: split returned {len(rows)} token lists "
                                     f"for {len(texts)} strings")
        if self._ngrams is not None:
            rows = [_ngrams(r, self._ngrams) for r in rows]
        return rows

    def host_compute(self, value):
        texts = as_strings(value, self.name)
        if texts.ndim == 0:
            texts = texts.reshape(1)
        rows = self._tokenize(texts)
        lookup = self._lookup_layer
        flat = np.array([t for r in rows for t in r] or [""], dtype=object)
        if lookup._tokens is None and (lookup.output_mode == "int" or
                                       lookup.pad_to_max_tokens):
            lookup._set_tokens([])
        if lookup._tokens is None:
            raise ValueError(f"{self.name}: in output_mode {self.output_mode!r} set the "
                             "vocabulary (the vocabulary argument or adapt) before calling "
                             "the layer")
        ids = lookup.ids(flat) if any(rows) else np.zeros(0, np.int64)
        starts = np.cumsum([0] + [len(r) for r in rows])
        if self.output_mode != "int":
            return np.stack([encode_host(ids[a:b], self.output_mode, lookup._depth(),
                                         lookup.idf_weights) for a, b in
                             zip(starts[:-1], starts[1:])]) if rows else \
                np.zeros((0, lookup._depth()), np.float32)
        length = self.output_sequence_length
        if length is None:
            length = max((len(r) for r in rows), default=0)
        out = np.zeros((len(rows), length), np.int64)
        for k, (a, b) in enumerate(zip(starts[:-1], starts[1:])):
            row = ids[a:min(b, a + length)]
            out[k, :len(row)] = row
        if self.split is None and self.output_sequence_length is None and texts.ndim == 1:
            return out[:, 0] if out.shape[1] == 1 else out
        return out

    def _text_input(self, value):
        return True

    def _check_graph_input(self, inputs):
        lookup = self._lookup_layer
        if lookup._tokens is None and lookup.output_mode != "int" and \
                not lookup.pad_to_max_tokens and lookup._saved_size is None:
            raise ValueError(f"{self.name}: in output_mode {self.output_mode!r} set the "
                             "vocabulary (the vocabulary argument or adapt) before calling "
                             "the layer in a model")
        if lookup.output_mode != "int":
            lookup._frozen_size = lookup._depth()  # the model's width: a vocabulary must fit

    def _output_spec(self, shape):
        if self.output_mode == "int":
            return (shape[0], self.output_sequence_length), "int64"
        return (shape[0], self._lookup_layer._depth()), "float32"

    # ---- saving: the vocabulary of the lookup inside, as Keras writes it ------------------

    def save_own_variables(self, store):
        self._lookup_layer.save_own_variables(store)

    def load_own_variables(self, store):
        self._lookup_layer.load_own_variables(store)

    def save_assets(self, dir_path):
        self._lookup_layer.save_assets(dir_path)

    def load_assets(self, dir_path):
        self._lookup_layer.load_assets(dir_path)

    def get_config(self):
        lookup = self._lookup_layer
        config = lookup.get_config()
        return {**super().get_config(), "max_tokens": lookup.max_tokens,
                "standardize": _callable_config(self.standardize),
                "split": _callable_config(self.split), "ngrams": self._ngrams_arg,
                "output_mode": self.output_mode,
                "output_sequence_length": self.output_sequence_length,
                "pad_to_max_tokens": lookup.pad_to_max_tokens, "sparse": False,
                "ragged": False, "vocabulary": config["vocabulary"],
                "idf_weights": config["idf_weights"], "encoding": self.encoding,
                "vocabulary_size": lookup.vocabulary_size()}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        vocabulary, idf = config.pop("vocabulary", None), config.pop("idf_weights", None)
        for key in ("standardize", "split"):
            config[key] = _callable_from_config(config.get(key), key)
        layer = cls(**config)
        if vocabulary is not None:
            if idf is not None and len(idf) == len(vocabulary) + 1:
                vocabulary = ["[UNK]"] + list(vocabulary)  # the adapted layer's OOV weight
            layer.set_vocabulary(vocabulary, idf)
        return layer


def _callable_config(value):
    """A callable standardize / split as its registered name (Keras serializes it)."""
    if not callable(value):
        return value
    name = registered_key(value)
    if name is None:
        raise ValueError(f"TextVectorization: to save a callable standardize or split, "
                         f"register it with pd.saving.register_keras_serializable(); "
                         f"received {value!r}")
    return {"class_name": "function", "config": name, "registered_name": "function"}


def _callable_from_config(value, key):
    if not isinstance(value, dict):
        return value
    name = value.get("config")
    found = get_registered_object(name)
    if found is None:
        raise ValueError(f"TextVectorization: the config's {key} names the function "
                         f"{name!r}, which is not registered")
    return found
