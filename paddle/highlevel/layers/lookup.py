"""Vocabulary lookups that run on the host: StringLookup and IntegerLookup, as Keras's.

Keras computes these with TensorFlow's hash tables even on its JAX backend; paddle computes
them with Python dicts and NumPy on the host, before the graph runs (see
paddle/lowlevel/strings.py): called on a model input, a lookup layer gives a *host input*,
a numeric data Variable whose values the executor computes from the fed strings or
integers. The first op of the model then receives numbers. Called on NumPy arrays (or
lists), the layers compute at once and return NumPy arrays.

The vocabulary, its order after `adapt` (by count, ties by the token, both descending,
as Keras's `np.lexsort` makes it), the mask and OOV indices, the encodings (one_hot,
multi_hot, count, tf_idf) and the several-OOV-buckets hash (Keras's FarmHash64 for
strings, `token % n` for integers) follow Keras 3's `IndexLookup`.

Example:
    >>> import paddle as pd
    >>> layer = pd.layers.StringLookup(vocabulary=["a", "b", "c", "d"])
    >>> layer([["a", "c", "d"], ["d", "z", "b"]]).tolist()
    [[1, 3, 4], [4, 0, 2]]
"""
import collections
import numbers
import os

import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.graph import Variable, data
from paddle.lowlevel.strings import as_strings, host_input
from paddle.highlevel.layers.base import Layer
from paddle.highlevel.layers.farmhash import fingerprint64

MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


def adapt_batches(data_, steps, where):
    """The batches `adapt` reads: one array (or nested list), or each item of an iterable
    of batches ((x, y) items give their x), at most `steps` of them."""
    if isinstance(data_, Variable):
        data_ = data_.val()
    if isinstance(data_, (np.ndarray, list, tuple, str, bytes)):
        yield data_
        return
    if not hasattr(data_, "__iter__") and not hasattr(data_, "__getitem__"):
        raise TypeError(f"{where}: expected an array or an iterable of batches, received "
                        f"{type(data_).__name__}")
    items = (data_[i] for i in range(len(data_))) if hasattr(data_, "__len__") and \
        hasattr(data_, "__getitem__") and not hasattr(data_, "__iter__") else iter(data_)
    for i, batch in enumerate(items):
        if steps is not None and i >= steps:
            return
        yield batch[0] if isinstance(batch, tuple) else batch


def encode_host(ids, mode, depth, idf=None):
    """Keras's `encode_categorical_inputs` on the host: ids < 0 (masked) are dropped;
    one_hot adds an axis (replacing a last axis of 1), multi_hot / count / tf_idf reduce
    the last axis (a rank-1 input is one sample). float32."""
    ids = np.asarray(ids, np.int64)
    if ids.ndim == 0:
        ids = ids[None]
    if ids.size and ids.max() >= depth:
        raise ValueError(f"index {int(ids.max())} is outside the encoding's depth {depth}")
    if mode == "one_hot":
        if ids.ndim > 1 and ids.shape[-1] == 1:
            ids = ids[..., 0]
        out = np.zeros(ids.shape + (depth,), np.float32)
        where = ids >= 0
        out[where, ids[where]] = 1.0
        return out
    rows = ids.reshape(int(np.prod(ids.shape[:-1])), ids.shape[-1])  # a row may be empty
    out = np.zeros((rows.shape[0], depth), np.float32)
    for r, row in enumerate(rows):
        row = row[row >= 0]
        if mode == "multi_hot":
            out[r, row] = 1.0
        else:
            np.add.at(out[r], row, 1.0)
    out = out.reshape(ids.shape[:-1] + (depth,))
    return out * idf if mode == "tf_idf" else out


class HostLayer(Layer):
    """A preprocessing layer computed on the host with NumPy (strings and vocabularies):
    on NumPy arrays or lists it computes at once; on a model input (a data Variable) it
    gives a host input (paddle/lowlevel/strings.py) that the executor computes from the
    fed values before each run. Subclasses define `host_compute(array)`,
    `_output_spec(input_shape) -> (shape, dtype)`, `_text_input(value)` (whether it reads
    strings) and may check the input in `_check_graph_input`."""

    casts_integer_inputs = False

    def __call__(self, inputs, *args, **kwargs):
        if isinstance(inputs, (list, tuple)) or np.isscalar(inputs):
            inputs = np.asarray(inputs, dtype=object if self._text_input(inputs) else None)
        if isinstance(inputs, np.ndarray):
            return self.host_compute(inputs)
        return super().__call__(inputs, *args, **kwargs)

    def _check_graph_input(self, inputs):
        """Raise for an input the layer cannot read (the base accepts any)."""

    def call(self, inputs):
        if inputs.kind != "data":
            raise TypeError(at_user(
                f"{self.name}: this layer runs on the host, on a model input (pd.Input) or "
                f"another host preprocessing layer's output; received {inputs.name!r}, "
                "computed by ops in the graph"))
        if len(inputs.shape) < 1:
            raise ShapeError(at_user(f"{self.name}: expected an input with a batch axis, "
                                     f"received shape {inputs.shape}"))
        text = self._text_input(None)
        if text and inputs.dtype != "string":
            raise TypeError(at_user(f"{self.name}: expected a string input "
                                    f"(pd.Input(dtype='string')), received {inputs.name!r} "
                                    f"of dtype {inputs.dtype}"))
        if not text and inputs.dtype == "string":
            raise TypeError(at_user(f"{self.name}: expected a numeric input, received the "
                                    f"string input {inputs.name!r}"))
        self._check_graph_input(inputs)
        shape, dtype = self._output_spec(inputs.shape)
        out = data(f"{self.name}_out", shape, dtype)
        return host_input(out, [inputs], self.host_compute)


def _count(value, name, layer, low):
    if value is None:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
        raise ValueError(f"{layer}: expected {name} to be an integer >= {low}, received "
                         f"{value!r}")
    return int(value)


class IndexLookup(HostLayer):
    """The lookup both StringLookup and IntegerLookup are (Keras's IndexLookup)."""

    vocabulary_dtype = "string"

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=None,
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 sparse=False, pad_to_max_tokens=False, name=None, vocabulary_dtype=None,
                 vocabulary_size=None, oov_method="floormod", salt=None, **kwargs):
        # vocabulary_dtype: written in Keras's configs, implied here. vocabulary_size: in
        # a config without the vocabulary (an adapted layer's, which comes as an asset after
        # the model is rebuilt), the width of the multi_hot / count / tf_idf output.
        kind = type(self).__name__
        if oov_method not in ("floormod", "farmhash"):
            raise ValueError(f"{kind}: expected oov_method 'floormod' or 'farmhash', "
                             f"received {oov_method!r}")
        self.oov_method = oov_method
        super().__init__(name=name, **kwargs)
        self.max_tokens = _count(max_tokens, "max_tokens", kind, 2)
        self._saved_size = _count(vocabulary_size, "vocabulary_size", kind, 1) \
            if vocabulary is None else None
        self.num_oov_indices = _count(num_oov_indices, "num_oov_indices", kind, 0)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode == "tf-idf":
            output_mode = "tf_idf"
        if output_mode not in MODES:
            raise ValueError(f"{kind}: expected output_mode in {MODES}, received "
                             f"{output_mode!r}")
        if sparse:
            raise ValueError(f"{kind}: paddle has no sparse tensors, received sparse=True")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError(f"{kind}: pad_to_max_tokens=True needs max_tokens, received "
                             "max_tokens=None")
        if invert and output_mode != "int":
            raise ValueError(f"{kind}: invert=True needs output_mode='int', received "
                             f"{output_mode!r}")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"{kind}: idf_weights is used in output_mode 'tf_idf' only, "
                             f"received output_mode={output_mode!r}")
        if salt is not None:
            raise ValueError(f"{kind}: salt (Keras's SipHash of OOV tokens) is not "
                             f"supported, received salt={salt!r}")
        self.mask_token, self.oov_token = mask_token, oov_token
        self.invert, self.output_mode = bool(invert), output_mode
        self.sparse, self.pad_to_max_tokens = False, bool(pad_to_max_tokens)
        self.input_vocabulary = vocabulary
        self.input_idf_weights = idf_weights
        self._tokens = None       # the learned or given tokens, without special ones
        self._table = None        # token -> index
        self.idf_weights = None   # tf_idf: one weight per index (float32)
        self._counts = collections.Counter()
        self._documents = collections.Counter()
        self._num_documents = 0
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)
        elif output_mode == "tf_idf" and idf_weights is not None:
            raise ValueError(f"{kind}: idf_weights needs a vocabulary")

    # ---- the vocabulary -----------------------------------------------------------------

    def _oov_start_index(self):
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self):
        return self._oov_start_index() + self.num_oov_indices

    def vocabulary_size(self):
        """The size of the vocabulary with the mask and OOV indices."""
        return self._token_start_index() + len(self._tokens or ())

    def get_vocabulary(self, include_special_tokens=True):
        """The vocabulary in index order (with the mask and OOV tokens unless
        `include_special_tokens=False`)."""
        tokens = list(self._tokens or ())
        if not include_special_tokens:
            return tokens
        return [self.mask_token] * self._oov_start_index() + \
            [self.oov_token] * self.num_oov_indices + tokens

    def _token(self, value):
        """One vocabulary entry as the layer's token type."""
        raise NotImplementedError  # each subclass converts its own kind of token

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Set the vocabulary (a list, a 1-D array or the path of a text file with one
        token a line), and in tf_idf mode the idf weights (one per token)."""
        kind = self.name
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError(f"{kind}: idf_weights must be set in output_mode 'tf_idf'")
        if self.output_mode != "tf_idf" and idf_weights is not None:
            raise ValueError(f"{kind}: idf_weights is used in output_mode 'tf_idf' only")
        if isinstance(vocabulary, str):
            if not os.path.isfile(vocabulary):
                raise ValueError(f"{kind}: vocabulary file {vocabulary!r} does not exist")
            with open(vocabulary, encoding="utf-8") as f:
                lines = f.read().splitlines()
            while lines and lines[-1] == "":
                lines.pop()
            vocabulary = lines
        items = np.asarray(vocabulary, dtype=object).reshape(-1).tolist() \
            if not isinstance(vocabulary, (list, tuple)) else list(vocabulary)
        if not items:
            raise ValueError(f"{kind}: cannot set an empty vocabulary")
        tokens = [self._token(t) for t in items]
        start = self._token_start_index()
        special = [self.mask_token] * self._oov_start_index() + \
            [self.oov_token] * self.num_oov_indices
        if start and tokens[:start] == special:
            tokens = tokens[start:]
        repeated = [t for t, c in collections.Counter(tokens).items() if c > 1]
        if repeated:
            raise ValueError(f"{kind}: the vocabulary repeats the terms {repeated[:10]}; "
                             "give each term once")
        if self.mask_token is not None and self.mask_token in tokens:
            raise ValueError(f"{kind}: found the mask token {self.mask_token!r} inside the "
                             f"vocabulary at index {tokens.index(self.mask_token)}; leave "
                             f"it out or put the special tokens first, exactly {special}")
        if self.invert and self.oov_token is not None and self.oov_token in tokens:
            raise ValueError(f"{kind}: found the OOV token {self.oov_token!r} inside the "
                             f"vocabulary; leave it out or put the special tokens first, "
                             f"exactly {special}")
        size = start + len(tokens)
        if self.max_tokens is not None and size > self.max_tokens:
            raise ValueError(f"{kind}: the vocabulary holds {size} entries with the special "
                             f"tokens, more than max_tokens={self.max_tokens}")
        if idf_weights is not None:
            idf = np.asarray(idf_weights, np.float64).reshape(-1) if not isinstance(
                idf_weights, str) else np.array([np.nan, np.nan])
            if idf.size != len(items):
                raise ValueError(f"{kind}: expected one idf weight per vocabulary entry "
                                 f"({len(items)}), received {idf.size}")
            if len(items) > len(tokens):  # given with the special tokens: theirs are there
                front = []
            else:
                front = [float(np.mean(idf))] * start
            idf = np.concatenate([front, idf]).astype(np.float32)
            if self.pad_to_max_tokens and self.max_tokens is not None:
                idf = np.concatenate([idf, np.zeros(self.max_tokens - idf.size, np.float32)])
            self.idf_weights = idf
        self._freeze_check(size)
        self._set_tokens(tokens)
        self._has_input_vocabulary = True

    def _set_tokens(self, tokens):
        self._tokens = tokens
        start = self._token_start_index()
        self._table = {t: start + i for i, t in enumerate(tokens)}
        self._inverse = {i: t for t, i in self._table.items()}

    def _freeze_check(self, size):
        frozen = getattr(self, "_frozen_size", None)
        if frozen is not None and self.output_mode != "int" and not self.pad_to_max_tokens \
                and frozen != size:
            raise ValueError(f"{self.name}: the layer was called with a vocabulary of "
                             f"{frozen} entries; in output_mode {self.output_mode!r} without "
                             f"pad_to_max_tokens its size cannot change (received {size})")

    def adapt(self, data, steps=None):
        """Learn the vocabulary (and the idf weights in tf_idf mode) from `data`: an array
        or nested lists of tokens, or an iterable of batches (a list of arrays, a
        generator, a PyDataset or reader: (x, y) items give their x)."""
        if getattr(self, "_has_input_vocabulary", False):
            raise ValueError(f"{self.name}: cannot adapt after a vocabulary was set (the "
                             "vocabulary argument or set_vocabulary)")
        whole = isinstance(data, (np.ndarray, list, tuple))
        documents = []
        for batch in adapt_batches(data, steps, f"{self.name}: adapt"):
            array = self._tokens_of(batch, f"{self.name}: adapt")
            if array.ndim == 0:
                array = array.reshape(1)
            # As Keras: 1-D data given whole is one token per document; a 1-D batch of an
            # iterable is one document; rows otherwise.
            documents.append(array.reshape(-1, 1) if array.ndim == 1 and whole else
                             array.reshape(1, -1) if array.ndim == 1 else
                             array.reshape(array.shape[0], -1))
        self.adapt_documents(documents)

    def adapt_documents(self, batches):
        """Learn the vocabulary from batches of documents, each a sequence of token
        sequences (TextVectorization's split text)."""
        counts, documents, num_documents = collections.Counter(), collections.Counter(), 0
        seen = False
        for docs in batches:
            seen = True
            for doc in docs:
                doc = list(doc)
                counts.update(doc)
                if self.output_mode == "tf_idf":
                    documents.update(set(doc))
            num_documents += len(docs)
        if not seen:
            raise ValueError(f"{self.name}: adapt received no batches")
        for special in (self.mask_token, self.oov_token):
            counts.pop(special, None)
        # Keras: np.lexsort((tokens, counts))[::-1]: count descending, then token descending
        ordered = sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True)
        tokens = [t for t, _ in ordered]
        if self.max_tokens:
            tokens = tokens[:self.max_tokens - self._token_start_index()]
        if self.output_mode == "tf_idf":
            doc_counts = np.array([documents[t] for t in tokens], np.float64)
            idf = np.log(1 + num_documents / (1 + doc_counts)).astype(np.float32)
            mean = np.float32(np.mean(idf)) if idf.size else np.float32(0)
            idf = np.concatenate([np.full(self._token_start_index(), mean, np.float32), idf])
            if self.pad_to_max_tokens and self.max_tokens is not None:
                idf = np.concatenate([idf, np.zeros(self.max_tokens - idf.size, np.float32)])
            self.idf_weights = idf
        self._freeze_check(self._token_start_index() + len(tokens))
        self._set_tokens(tokens)

    # ---- the lookup ---------------------------------------------------------------------

    def _tokens_of(self, value, where):
        """`value` as an array of the layer's tokens (object array of str, or int64)."""
        raise NotImplementedError  # each subclass reads its own kind of token

    def _oov_bucket(self, token):
        raise NotImplementedError  # each subclass hashes its own kind of token

    def _depth(self):
        if self.pad_to_max_tokens:
            return self.max_tokens
        if self._tokens is None and self._saved_size is not None:
            return self._saved_size  # rebuilt from a config: the vocabulary comes next
        return self.vocabulary_size()

    def lookup(self, value):
        """The layer's output for `value` computed on the host (NumPy)."""
        if self._tokens is None:
            if self.output_mode != "int" and not self.pad_to_max_tokens:
                raise ValueError(f"{self.name}: in output_mode {self.output_mode!r} set the "
                                 "vocabulary (the vocabulary argument or adapt) before "
                                 "calling the layer")
            self._set_tokens([])
        if self.invert:
            return self._invert(value)
        ids = self.ids(self._tokens_of(value, self.name))
        if self.output_mode == "int":
            return ids
        return encode_host(ids, self.output_mode, self._depth(), self.idf_weights)

    def ids(self, array):
        """The vocabulary ids of an array of tokens (a masked token: 0 in int mode, -1,
        dropped by the encodings, otherwise)."""
        flat = array.reshape(-1).tolist()
        table, mask = self._table, self.mask_token
        default = -1 if self.num_oov_indices != 1 else self._oov_start_index()
        mask_id = 0 if self.output_mode == "int" else -1
        ids = np.fromiter((mask_id if mask is not None and t == mask else table.get(t, default)
                           for t in flat), np.int64, len(flat))
        if self.num_oov_indices == 0 and np.any(ids == -1):
            bad = [t for t, i in zip(flat, ids) if i == -1 and (mask is None or t != mask)]
            if bad:
                raise ValueError(f"{self.name}: with num_oov_indices=0 every input must be in "
                                 f"the vocabulary, found {bad[:5]}; set num_oov_indices=1")
        if self.num_oov_indices > 1:
            start = self._oov_start_index()
            for k, (t, i) in enumerate(zip(flat, ids)):
                if i == -1 and (mask is None or t != mask):
                    ids[k] = start + self._oov_bucket(t)
        return ids.reshape(array.shape)

    def _invert(self, value):
        ids = np.asarray(value)
        if ids.dtype.kind not in "iu":
            raise TypeError(f"{self.name}: invert=True looks up integer ids, received an "
                            f"array of {ids.dtype}")
        out = np.empty(ids.shape, dtype=object if self.vocabulary_dtype == "string"
                       else np.int64)
        flat, inverse = out.reshape(-1), self._inverse
        for k, i in enumerate(ids.reshape(-1).tolist()):
            flat[k] = self.mask_token if (i == 0 and self.mask_token is not None) else \
                inverse.get(i, self.oov_token)
        return out

    def _output_spec(self, shape):
        if self.output_mode == "int":
            return tuple(shape), "int64"
        depth = self._depth()
        shape = tuple(shape) or (1,)
        if self.output_mode == "one_hot":
            return (shape[:-1] if len(shape) > 1 and shape[-1] == 1 else shape) + (depth,), \
                "float32"
        return shape[:-1] + (depth,), "float32"

    def _text_input(self, value):
        return not self.invert and self.vocabulary_dtype == "string"

    def _check_graph_input(self, inputs):
        if self.invert and self.vocabulary_dtype == "string":
            raise TypeError(at_user(f"{self.name}: invert=True gives strings, which a model "
                                    "cannot compute with; call it on NumPy arrays"))
        if self._tokens is None and (self.output_mode == "int" or self.pad_to_max_tokens):
            self._set_tokens([])
        if self._tokens is None and self._saved_size is None:
            raise ValueError(at_user(f"{self.name}: in output_mode {self.output_mode!r} set "
                                     "the vocabulary (the vocabulary argument or adapt) "
                                     "before calling the layer"))
        self._frozen_size = self._depth()

    def host_compute(self, value):
        return self.lookup(value)

    # ---- saving: Keras's vocabulary asset and idf weights ----------------------------------

    def save_assets(self, dir_path):
        """An adapted vocabulary (not one given to the constructor, which the config holds)
        as Keras writes it: `vocabulary.txt`, one token a line, special tokens first."""
        if dir_path is None or self.input_vocabulary is not None or not self._tokens:
            return
        with open(os.path.join(dir_path, "vocabulary.txt"), "w", encoding="utf-8") as f:
            f.write("\n".join(str(t) for t in self.get_vocabulary(include_special_tokens=True)))

    def load_assets(self, dir_path):
        """The vocabulary of a file Keras (or paddle) wrote for an adapted layer; nothing
        when the config gave one. Tokens are read as the vocabulary's dtype (integers
        for IntegerLookup, checked); the idf weights of tf_idf come from the weights."""
        if dir_path is None:  # a file without assets (HDF5, or none saved for the layer)
            return
        path = os.path.join(dir_path, "vocabulary.txt")
        if self.input_vocabulary is not None or self._tokens or not os.path.isfile(path):
            return
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        while lines and lines[-1] == "":
            lines.pop()
        if self.vocabulary_dtype != "string":
            try:
                lines = [int(line) for line in lines]
            except ValueError:
                raise ValueError(f"{self.name}: {path} holds a token that is not an integer "
                                 f"({next(t for t in lines if not _is_int(t))!r})") from None
        self.set_vocabulary(lines, getattr(self, "_saved_idf_weights", None))

    def save_own_variables(self, store):
        """tf_idf's idf weights as Keras stores them (`idf_weights`)."""
        super().save_own_variables(store)
        if self.output_mode == "tf_idf" and self.idf_weights is not None:
            store["idf_weights"] = np.asarray(self.idf_weights)

    def load_own_variables(self, store):
        if self.output_mode == "tf_idf" and "idf_weights" in store:
            self._saved_idf_weights = np.asarray(store["idf_weights"], np.float32)
        rest = {k: store[k] for k in store.keys() if k != "idf_weights"} \
            if hasattr(store, "keys") else store
        super().load_own_variables(rest)

    def get_config(self):
        vocabulary = self.input_vocabulary
        if vocabulary is None and self._tokens is not None:
            vocabulary = list(self._tokens)  # adapted: saved with the config (Keras: asset)
        elif isinstance(vocabulary, np.ndarray):
            vocabulary = vocabulary.tolist()
        idf = self.input_idf_weights
        if self.output_mode == "tf_idf" and self.idf_weights is not None:
            idf = self.idf_weights[:self.vocabulary_size()].tolist() \
                if vocabulary is not self.input_vocabulary else np.asarray(idf).tolist()
        return {**super().get_config(), "invert": self.invert, "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "oov_token": self.oov_token,
                "mask_token": self.mask_token, "output_mode": self.output_mode,
                "sparse": self.sparse, "pad_to_max_tokens": self.pad_to_max_tokens,
                "vocabulary_dtype": self.vocabulary_dtype, "idf_weights": idf,
                "vocabulary": vocabulary, "oov_method": self.oov_method, "salt": None}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        vocabulary, idf = config.pop("vocabulary", None), config.pop("idf_weights", None)
        layer = cls(**config)
        if vocabulary is not None:
            if idf is not None and len(idf) == len(vocabulary) + layer._token_start_index():
                vocabulary = layer.get_vocabulary() + list(vocabulary)
            layer.set_vocabulary(vocabulary, idf)
        return layer


class StringLookup(IndexLookup):
    """Maps strings to integer ids through a vocabulary (Keras's StringLookup), on the host.

    Args:
        max_tokens: the largest vocabulary size (with the mask and OOV entries).
        num_oov_indices: how many ids out-of-vocabulary strings share (hashed with Keras's
            FarmHash64 when more than 1); 0 makes an unknown string an error.
        mask_token: a string that maps to id 0 (int mode) or is dropped (other modes).
        oov_token: the string `invert` gives for unknown ids ("[UNK]").
        vocabulary: a list of strings or the path of a text file (one a line); else learn
            it with `adapt(data)`.
        idf_weights: tf_idf mode: one weight per vocabulary entry.
        invert: map ids back to strings (NumPy inputs only: a model computes with numbers).
        output_mode: "int", "one_hot", "multi_hot", "count" or "tf_idf".
        pad_to_max_tokens: encode to `max_tokens` columns whatever the vocabulary's size.
        sparse: False only. encoding: "utf-8" only (bytes are decoded as UTF-8).

    Called on a `pd.Input(dtype="string")` it gives the ids as a numeric input of the
    model, computed from the fed strings on the host before each step.

    Example:
        >>> import paddle as pd
        >>> layer = pd.layers.StringLookup()
        >>> layer.adapt([["a", "c", "d"], ["d", "z", "b"]])
        >>> layer.get_vocabulary()
        ['[UNK]', 'd', 'z', 'c', 'b', 'a']
    """

    vocabulary_dtype = "string"

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 pad_to_max_tokens=False, sparse=False, encoding="utf-8", name=None, **kwargs):
        if encoding not in ("utf-8", "utf8", "UTF-8"):
            raise ValueError(f"StringLookup: expected encoding 'utf-8', received {encoding!r}")
        self.encoding = "utf-8"
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode,
                         sparse=sparse, pad_to_max_tokens=pad_to_max_tokens, name=name,
                         **kwargs)

    def _token(self, value):
        if isinstance(value, bytes):
            return as_strings(np.array([value], object), self.name)[0]
        if not isinstance(value, str):
            raise TypeError(f"{self.name}: expected string vocabulary entries, received "
                            f"{type(value).__name__} {value!r}")
        return value

    def _tokens_of(self, value, where):
        return as_strings(value, where)

    def _oov_bucket(self, token):
        return fingerprint64(token.encode("utf-8")) % self.num_oov_indices

    def get_config(self):
        return {**super().get_config(), "encoding": self.encoding}


class IntegerLookup(IndexLookup):
    """Maps integers to contiguous ids through a vocabulary (Keras's IntegerLookup), on the
    host.

    Args: as StringLookup's, with integer tokens: `mask_token` (None) maps to id 0,
        `oov_token` (-1) is what `invert` gives for unknown ids; with several OOV
        indices an unknown integer goes to `value % num_oov_indices` (Keras's
        "floormod").

    Example:
        >>> import paddle as pd
        >>> layer = pd.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
        >>> layer([[12, 1138, 42], [42, 1000, 36]]).tolist()
        [[1, 3, 4], [4, 0, 2]]
    """

    vocabulary_dtype = "int64"

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
                 vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False, name=None,
                 **kwargs):
        if vocabulary_dtype != "int64":
            raise ValueError(f"IntegerLookup: only vocabulary_dtype='int64' is supported, "
                             f"received {vocabulary_dtype!r}")
        super().__init__(max_tokens=max_tokens, num_oov_indices=num_oov_indices,
                         mask_token=mask_token, oov_token=oov_token, vocabulary=vocabulary,
                         idf_weights=idf_weights, invert=invert, output_mode=output_mode,
                         sparse=sparse, pad_to_max_tokens=pad_to_max_tokens, name=name,
                         **kwargs)

    def _token(self, value):
        if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
            return int(value)
        if isinstance(value, str) and value.lstrip("-").isdigit():  # a vocabulary file line
            return int(value)
        raise TypeError(f"{self.name}: expected integer vocabulary entries, received "
                        f"{type(value).__name__} {value!r}")

    def _tokens_of(self, value, where):
        array = np.asarray(value)
        if array.dtype.kind not in "iu":
            raise TypeError(f"{where}: expected integers, received an array of "
                            f"{array.dtype}")
        return array.astype(np.int64)

    def _oov_bucket(self, token):
        if self.oov_method == "farmhash":  # Keras hashes the integer's decimal text
            return fingerprint64(str(token).encode("utf-8")) % self.num_oov_indices
        return token % self.num_oov_indices  # Keras's floormod (Python's % floors too)


class Hashing(HostLayer):
    """Hashes strings or integers into `num_bins` bins (Keras's Hashing), on the host:
    the bin of a value is FarmHash64 of its text (integers as their decimal text, floats
    first cast to integers) modulo the bins, as TensorFlow's `to_hash_bucket_fast`, so a
    saved Keras model and paddle agree.

    Args:
        num_bins: the number of bins (with the mask bin when `mask_value` is set).
        mask_value: a value that goes to bin 0 (the others then hash into the rest).
        salt: not supported (Keras's SipHash with a key); None only.
        output_mode: "int" (int64 bins), "one_hot", "multi_hot" or "count".
        sparse: False only.

    Example:
        >>> import paddle as pd
        >>> pd.layers.Hashing(num_bins=3)([["A"], ["B"], ["C"], ["D"], ["E"]]).tolist()
        [[1], [0], [1], [1], [2]]
    """

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False,
                 **kwargs):
        kwargs.pop("dtype", None)
        super().__init__(**kwargs)
        _count(num_bins, "num_bins", "Hashing", 1)
        if num_bins is None:
            raise ValueError("Hashing: expected num_bins to be an integer >= 1, received None")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Hashing: expected output_mode in ('int', 'one_hot', "
                             f"'multi_hot', 'count'), received {output_mode!r}")
        if sparse:
            raise ValueError("Hashing: paddle has no sparse tensors, received sparse=True")
        if salt is not None:
            raise ValueError(f"Hashing: salt (Keras's keyed SipHash) is not supported, "
                             f"received salt={salt!r}")
        self.num_bins, self.mask_value, self.salt = int(num_bins), mask_value, None
        self.output_mode, self.sparse = output_mode, False

    def _text_input(self, value):
        if value is None:
            return getattr(self, "_graph_text", True)
        return any(isinstance(v, (str, bytes)) for v in np.asarray(
            value, dtype=object).reshape(-1)[:1])

    def call(self, inputs):
        self._graph_text = inputs.dtype == "string"
        return super().call(inputs)

    def host_compute(self, value):
        array = np.asarray(value)
        if array.dtype.kind in "USO":
            texts = as_strings(array, self.name)
        elif array.dtype.kind in "iuf":
            texts = array.astype(np.int64).astype(str).astype(object)
        else:
            raise TypeError(f"{self.name}: expected strings or numbers, received an array "
                            f"of {array.dtype}")
        if self.output_mode == "one_hot" and texts.ndim and texts.shape[-1] == 1:
            texts, array = texts[..., 0], array[..., 0]
        bins = self.num_bins - 1 if self.mask_value is not None and self.num_bins > 1 \
            else self.num_bins
        flat = texts.reshape(-1)
        ids = np.fromiter((fingerprint64(t.encode("utf-8")) % bins for t in flat), np.int64,
                          flat.size).reshape(texts.shape)
        if bins != self.num_bins:
            masked = (array == self.mask_value) if array.dtype.kind not in "USO" else \
                (texts == self.mask_value)
            ids = np.where(masked, 0, ids + 1)
        if self.output_mode == "int":
            return ids
        return encode_host(ids, self.output_mode, self.num_bins)

    def _output_spec(self, shape):
        shape = tuple(shape)
        if self.output_mode == "int":
            return shape, "int64"
        if self.output_mode == "one_hot" and len(shape) > 1 and shape[-1] == 1:
            shape = shape[:-1]
            return shape + (self.num_bins,), "float32"
        if self.output_mode == "one_hot":
            return shape + (self.num_bins,), "float32"
        return shape[:-1] + (self.num_bins,), "float32"

    def get_config(self):
        return {**super().get_config(), "num_bins": self.num_bins, "salt": self.salt,
                "mask_value": self.mask_value, "output_mode": self.output_mode,
                "sparse": self.sparse}


_CROSS_MUL = 0xc6a4a7935bd1e995
_CROSS_KEY = 0xDECAFCAFFE  # tf.sparse.cross_hashed's default hash key


def _fingerprint_cat64(fp1, fp2):
    """TensorFlow's FingerprintCat64: the hash of a pair of 64-bit fingerprints."""
    mask = (1 << 64) - 1
    result = fp1 ^ _CROSS_MUL
    product = (fp2 * _CROSS_MUL) & mask
    result ^= ((product ^ (product >> 47)) * _CROSS_MUL) & mask
    result = (result * _CROSS_MUL) & mask
    result = ((result ^ (result >> 47)) * _CROSS_MUL) & mask
    return result ^ (result >> 47)


class HashedCrossing(HostLayer):
    """Crosses categorical features by hashing their combination into `num_bins` bins
    (Keras's HashedCrossing), on the host: TensorFlow's `sparse.cross_hashed` (strings
    by FarmHash64, integers as they are, joined with FingerprintCat64), so the bins are
    Keras's.

    Args:
        num_bins: the number of bins.
        output_mode: "int" (int64 bins) or "one_hot".
        sparse: False only.

    Call it on a list or tuple of at least two features of the same shape ((batch,) or
    (batch, 1)), integers or strings: NumPy arrays, or model inputs and host
    preprocessing layers' outputs.

    Example:
        >>> import numpy as np, paddle as pd
        >>> layer = pd.layers.HashedCrossing(num_bins=5)
        >>> layer((np.array(["A", "B", "A", "B", "A"]), np.array([101, 101, 101, 102, 102])))
        array([1, 4, 1, 1, 3])
    """

    def __init__(self, num_bins, output_mode="int", sparse=False, name=None, dtype=None,
                 **kwargs):
        super().__init__(name=name, **kwargs)
        _count(num_bins, "num_bins", "HashedCrossing", 1)
        if num_bins is None:
            raise ValueError("HashedCrossing: expected num_bins to be an integer >= 1, "
                             "received None")
        if output_mode not in ("int", "one_hot"):
            raise ValueError(f"HashedCrossing: expected output_mode 'int' or 'one_hot', "
                             f"received {output_mode!r}")
        if sparse:
            raise ValueError("HashedCrossing: paddle has no sparse tensors, received "
                             "sparse=True")
        self.num_bins, self.output_mode, self.sparse = int(num_bins), output_mode, False

    def __call__(self, inputs, *args, **kwargs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"{self.name}: expected a list or tuple of at least two "
                             f"features, received {type(inputs).__name__}")
        if all(not isinstance(x, Variable) for x in inputs):
            return self.host_compute(*[np.asarray(x, dtype=object) if any(
                isinstance(v, (str, bytes)) for v in np.asarray(x, dtype=object).reshape(-1))
                else np.asarray(x) for x in inputs])
        return Layer.__call__(self, list(inputs), *args, **kwargs)

    def _text_input(self, value):
        return False

    def _keys(self, array):
        if array.dtype.kind in "USO":
            return [fingerprint64(t.encode("utf-8")) for t in
                    as_strings(array, self.name).reshape(-1)]
        if array.dtype.kind not in "iu":
            raise TypeError(f"{self.name}: expected integer or string features, received "
                            f"an array of {array.dtype}")
        return [int(v) & ((1 << 64) - 1) for v in array.reshape(-1)]

    def host_compute(self, *arrays):
        shape = arrays[0].shape
        if any(a.shape != shape for a in arrays):
            raise ValueError(f"{self.name}: expected features of one shape, received "
                             f"{[a.shape for a in arrays]}")
        if len(shape) > 2 or (len(shape) == 2 and shape[1] != 1):
            raise ValueError(f"{self.name}: expected features of shape (batch,) or "
                             f"(batch, 1), received {shape}")
        keys = [self._keys(a) for a in arrays]
        out = []
        for row in zip(*keys):
            h = _CROSS_KEY
            for key in row:
                h = _fingerprint_cat64(h, key)
            out.append(h % self.num_bins)
        ids = np.asarray(out, np.int64).reshape(shape)
        if self.output_mode == "int":
            return ids
        return encode_host(ids, "one_hot", self.num_bins)

    def call(self, inputs):
        for x in inputs:
            if x.kind != "data":
                raise TypeError(at_user(
                    f"{self.name}: crossing runs on the host, on model inputs or host "
                    f"preprocessing layers' outputs; received {x.name!r}, computed by ops "
                    "in the graph"))
            if x.dtype not in ("string", "int64", "int32"):
                raise TypeError(at_user(f"{self.name}: expected integer or string "
                                        f"features, received {x.name!r} of {x.dtype}"))
        shapes = {tuple(x.shape[1:]) for x in inputs}
        if len(shapes) != 1 or next(iter(shapes)) not in ((), (1,)):
            raise ShapeError(at_user(f"{self.name}: expected features of one shape, "
                                     f"(batch,) or (batch, 1), received "
                                     f"{[x.shape for x in inputs]}"))
        shape = tuple(inputs[0].shape)
        spec = (shape, "int64") if self.output_mode == "int" else \
            ((shape[0], self.num_bins), "float32")
        out = data(f"{self.name}_out", *spec)
        return host_input(out, list(inputs), self.host_compute)

    def get_config(self):
        return {**super().get_config(), "num_bins": self.num_bins,
                "output_mode": self.output_mode, "sparse": self.sparse}


def _is_int(text):
    try:
        int(text)
    except ValueError:
        return False
    return True
