"""FeatureSpace: one object that preprocesses a dict of structured features, as Keras's
`keras.utils.FeatureSpace`.

Each feature gets a model input (`get_inputs()`: shape (1,), float32, int64 or string)
and a preprocessing layer (Normalization, Rescaling, Discretization, IntegerLookup,
StringLookup, Hashing); crosses of features go through HashedCrossing; categorical
results are one-hot encoded with CategoryEncoding and everything is concatenated (or
returned as a dict). `get_encoded_features()` is the graph of all that, ready to feed a
model (`pd.Model(feature_space.get_inputs(), outputs)` trains on raw dicts of arrays);
calling the FeatureSpace on a dict of arrays computes it at once.

Example:
    >>> import numpy as np, paddle as pd
    >>> space = pd.utils.FeatureSpace(
    ...     {"age": "float_normalized", "city": "string_categorical"}, output_mode="concat")
    >>> space.adapt({"age": np.array([20.0, 40.0]), "city": np.array(["paris", "rome"])})
    >>> space({"age": np.array([30.0]), "city": np.array(["rome"])}).tolist()
    [[0.0, 0.0, 1.0, 0.0]]
"""
import itertools

import numpy as np

from paddle.lowlevel.executor import eval as run
from paddle.highlevel.layers.base import Input, Layer
from paddle.highlevel.layers.lookup import (HashedCrossing, Hashing, IntegerLookup,
                                            StringLookup)
from paddle.highlevel.layers.merge import Concatenate
from paddle.highlevel.layers.preprocessing import (CategoryEncoding, Discretization,
                                                   Normalization, Rescaling)
from paddle.highlevel.layers.core import Identity
from paddle.lowlevel.graph import FLOATS

_NAMES = itertools.count()


def _auto(prefix, name):
    return name or f"{prefix}_{next(_NAMES)}"


class Cross:
    """A crossing of features (`FeatureSpace.cross`)."""

    def __init__(self, feature_names, crossing_dim, output_mode="one_hot"):
        if output_mode not in ("int", "one_hot"):
            raise ValueError(f"FeatureSpace.cross: expected output_mode 'int' or 'one_hot', "
                             f"received {output_mode!r}")
        self.feature_names = tuple(feature_names)
        self.crossing_dim, self.output_mode = crossing_dim, output_mode

    @property
    def name(self):
        return "_X_".join(self.feature_names)

    def get_config(self):
        return {"feature_names": list(self.feature_names), "crossing_dim": self.crossing_dim,
                "output_mode": self.output_mode}


class Feature:
    """One feature: its input dtype, its preprocessing layer and its output mode."""

    def __init__(self, dtype, preprocessor, output_mode):
        if output_mode not in ("int", "one_hot", "float"):
            raise ValueError(f"FeatureSpace.feature: expected output_mode 'int', 'one_hot' "
                             f"or 'float', received {output_mode!r}")
        if not isinstance(preprocessor, Layer):
            raise TypeError(f"FeatureSpace.feature: expected a preprocessing layer, "
                            f"received {type(preprocessor).__name__}")
        self.dtype = "int64" if dtype in ("int32", "int64") else dtype
        self.preprocessor, self.output_mode = preprocessor, output_mode


class FeatureSpace:
    """Preprocesses a dict of structured features (Keras's `keras.utils.FeatureSpace`).

    Args:
        features: {name: a type name or `FeatureSpace.<type>(...)`}; types: "float",
            "float_rescaled", "float_normalized", "float_discretized",
            "integer_categorical", "string_categorical", "integer_hashed",
            "string_hashed".
        output_mode: "concat" (one float32 matrix) or "dict" (one array per feature).
        crosses: tuples of feature names, or `FeatureSpace.cross(...)`: hashed crossings.
        crossing_dim, hashing_dim, num_discretization_bins: the sizes the type names use.

    Example:
        >>> import numpy as np, paddle as pd
        >>> space = pd.utils.FeatureSpace({"n": "integer_categorical"}, output_mode="dict")
        >>> space.adapt({"n": np.array([3, 3, 7])})
        >>> space({"n": np.array([7, 1])})["n"].tolist()
        [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """

    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode="one_hot"):
        """A hashed crossing of the named features into `crossing_dim` bins."""
        return Cross(feature_names, crossing_dim, output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode):
        """A feature of your own: its dtype, preprocessing layer and output mode."""
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None):
        """A float feature, as it is."""
        name = _auto("float", name)
        return Feature("float32", Identity(name=f"{name}_preprocessor"), "float")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None):
        """A float feature times `scale` plus `offset`."""
        name = _auto("float_rescaled", name)
        return Feature("float32", Rescaling(scale, offset, name=f"{name}_preprocessor"),
                       "float")

    @classmethod
    def float_normalized(cls, name=None):
        """A float feature normalized to the statistics `adapt` learns."""
        name = _auto("float_normalized", name)
        return Feature("float32", Normalization(axis=-1, name=f"{name}_preprocessor"),
                       "float")

    @classmethod
    def float_discretized(cls, num_bins, bin_boundaries=None, output_mode="one_hot",
                          name=None):
        """A float feature bucketed into `num_bins` (learned by `adapt`) or by the given
        boundaries."""
        name = _auto("float_discretized", name)
        layer = Discretization(num_bins=None if bin_boundaries else num_bins,
                               bin_boundaries=bin_boundaries, name=f"{name}_preprocessor")
        return Feature("float32", layer, output_mode)

    @classmethod
    def integer_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot",
                            name=None):
        """An integer category, looked up in the vocabulary `adapt` learns."""
        name = _auto("integer_categorical", name)
        return Feature("int64", IntegerLookup(max_tokens=max_tokens,
                                              num_oov_indices=num_oov_indices,
                                              name=f"{name}_preprocessor"), output_mode)

    @classmethod
    def string_categorical(cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot",
                           name=None):
        """A string category, looked up in the vocabulary `adapt` learns."""
        name = _auto("string_categorical", name)
        return Feature("string", StringLookup(max_tokens=max_tokens,
                                              num_oov_indices=num_oov_indices,
                                              name=f"{name}_preprocessor"), output_mode)

    @classmethod
    def string_hashed(cls, num_bins, output_mode="one_hot", name=None):
        """A string category hashed into `num_bins`."""
        name = _auto("string_hashed", name)
        return Feature("string", Hashing(num_bins, name=f"{name}_preprocessor"), output_mode)

    @classmethod
    def integer_hashed(cls, num_bins, output_mode="one_hot", name=None):
        """An integer category hashed into `num_bins`."""
        name = _auto("integer_hashed", name)
        return Feature("int64", Hashing(num_bins, name=f"{name}_preprocessor"), output_mode)

    def __init__(self, features, output_mode="concat", crosses=None, crossing_dim=32,
                 hashing_dim=32, num_discretization_bins=32, name=None):
        if not isinstance(features, dict) or not features:
            raise ValueError(f"FeatureSpace: expected features as a non-empty dict, "
                             f"received {features!r}")
        if output_mode not in ("dict", "concat"):
            raise ValueError(f"FeatureSpace: expected output_mode 'dict' or 'concat', "
                             f"received {output_mode!r}")
        self.name = name or "feature_space"
        self.crossing_dim, self.hashing_dim = crossing_dim, hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.output_mode = output_mode
        self.features = {n: self._standardize(n, f) for n, f in features.items()}
        self.crosses = []
        for c in crosses or ():
            if not isinstance(c, Cross):
                unknown = [n for n in c if n not in self.features]
                if unknown:
                    raise ValueError(f"FeatureSpace: crosses name features that are not in "
                                     f"`features`: {unknown}")
                c = Cross(c, crossing_dim)
            self.crosses.append(c)
        self.preprocessors = {n: f.preprocessor for n, f in self.features.items()}
        self.crossers = {c.name: HashedCrossing(c.crossing_dim, name=c.name)
                         for c in self.crosses}
        self.inputs = None
        self.encoded_features = None
        self._adapted = False

    def _standardize(self, name, feature):
        if isinstance(feature, Feature):
            return feature
        makers = {"float": lambda: self.float(name=name),
                  "float_normalized": lambda: self.float_normalized(name=name),
                  "float_rescaled": lambda: self.float_rescaled(name=name),
                  "float_discretized": lambda: self.float_discretized(
                      self.num_discretization_bins, name=name),
                  "integer_categorical": lambda: self.integer_categorical(name=name),
                  "string_categorical": lambda: self.string_categorical(name=name),
                  "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=name),
                  "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=name)}
        if feature not in makers:
            raise ValueError(f"FeatureSpace: feature {name!r} has the unknown type "
                             f"{feature!r}; expected one of {sorted(makers)} or "
                             "FeatureSpace.feature(...)")
        return makers[feature]()

    def _adaptable(self):
        found = []
        for name, layer in self.preprocessors.items():
            if isinstance(layer, Normalization) and layer.input_mean is not None:
                continue
            if isinstance(layer, Discretization) and layer.num_bins is None:
                continue
            if isinstance(layer, (IntegerLookup, StringLookup)) and \
                    getattr(layer, "_has_input_vocabulary", False):
                continue
            if hasattr(layer, "adapt"):
                found.append(name)
        return found

    def adapt(self, dataset):
        """Learn every feature's statistics or vocabulary from `dataset`: a dict of arrays,
        or an iterable of dict batches (a generator, a PyDataset; (x, y) items give their
        x)."""
        batches = [dataset] if isinstance(dataset, dict) else None
        if batches is None:
            if not hasattr(dataset, "__iter__"):
                raise ValueError(f"FeatureSpace.adapt: expected a dict of arrays or an "
                                 f"iterable of dicts, received {type(dataset).__name__}")
            batches = [b[0] if isinstance(b, tuple) else b for b in dataset]
        for b in batches:
            if not isinstance(b, dict):
                raise ValueError(f"FeatureSpace.adapt: expected dict batches, received "
                                 f"{type(b).__name__}")
            missing = [n for n in self.features if n not in b]
            if missing:
                raise ValueError(f"FeatureSpace.adapt: the data lacks the features {missing}")
        for name in self._adaptable():
            columns = [self._column(b[name], name) for b in batches]
            self.preprocessors[name].adapt(columns if len(columns) > 1 else columns[0])
        self._adapted = True
        self.get_encoded_features()

    def _column(self, values, name):
        dtype = self.features[name].dtype
        array = np.asarray(values, dtype=object if dtype == "string" else None)
        if array.ndim == 0:
            array = array.reshape(1, 1)
        elif array.ndim == 1:
            array = array[:, None]
        if dtype == "float32":
            return array.astype(np.float32)
        if dtype == "int64":
            if array.dtype.kind not in "iu":
                raise TypeError(f"FeatureSpace: feature {name!r} expects integers, received "
                                f"an array of {array.dtype}")
            return array.astype(np.int64)
        return array

    def get_inputs(self):
        """{name: model input} of the features."""
        self.get_encoded_features()
        return self.inputs

    def get_encoded_features(self):
        """The encoded features built on `get_inputs()`: one float32 Variable ("concat")
        or a dict of them."""
        if self.encoded_features is not None:
            return self.encoded_features
        if not self._adapted and self._adaptable():
            raise ValueError("FeatureSpace: call adapt(dataset) before using it")
        self.inputs = {n: Input(shape=(1,), dtype=f.dtype, name=n)
                       for n, f in self.features.items()}
        done = {n: self.preprocessors[n](self.inputs[n]) for n in sorted(self.features)}
        crossed = {c.name: self.crossers[c.name]([done[n] for n in c.feature_names])
                   for c in self.crosses}
        encoded = {}
        specs = [(n, done[n], self.features[n]) for n in sorted(done)] + \
            [(c.name, crossed[c.name], c) for c in sorted(self.crosses, key=lambda c: c.name)]
        for name, value, spec in specs:
            if spec.output_mode == "one_hot":
                value = CategoryEncoding(self._cardinality(name, value),
                                         output_mode="multi_hot")(value)
            elif self.output_mode == "concat" and value.dtype not in FLOATS:
                raise ValueError(f"FeatureSpace: cannot concatenate the feature {name!r}: it "
                                 f"is not encoded (dtype {value.dtype}); use output_mode="
                                 "'dict'")
            encoded[name] = value
        self.encoded_features = encoded if self.output_mode == "dict" else \
            Concatenate(axis=-1)(list(encoded.values()))
        return self.encoded_features

    def _cardinality(self, name, value):
        layer = self.preprocessors.get(name) or self.crossers.get(name)
        if value.dtype not in ("int64", "int32"):
            raise ValueError(f"FeatureSpace: feature {name!r} has output_mode='one_hot', so "
                             f"its preprocessor must give integers, not {value.dtype}")
        if isinstance(layer, (IntegerLookup, StringLookup)):
            return layer.vocabulary_size()
        if isinstance(layer, CategoryEncoding):
            return layer.num_tokens
        if isinstance(layer, Discretization):
            return len(layer.bin_boundaries) + 1
        if isinstance(layer, (Hashing, HashedCrossing)):
            return layer.num_bins
        raise ValueError(f"FeatureSpace: feature {name!r} has output_mode='one_hot' but its "
                         "preprocessor's number of values is unknown; use output_mode='int'")

    def __call__(self, data):
        """The encoded features of a dict of arrays (NumPy: a matrix, or a dict of them)."""
        if not isinstance(data, dict):
            raise ValueError(f"FeatureSpace: expected a dict of arrays, received "
                             f"{type(data).__name__}")
        encoded = self.get_encoded_features()
        missing = [n for n in self.features if n not in data]
        if missing:
            raise ValueError(f"FeatureSpace: the data lacks the features {missing}")
        scalar = all(np.ndim(data[n]) == 0 for n in self.features)
        feeds = {self.inputs[n]: self._column(data[n], n) for n in self.features}
        names = list(encoded) if isinstance(encoded, dict) else None
        values = run(list(encoded.values()) if names else encoded, feeds)
        if names:
            values = dict(zip(names, values))
            return {k: v[0] for k, v in values.items()} if scalar else values
        return values[0] if scalar else values

    def get_config(self):
        """The constructor arguments of the built-in feature types and crosses."""
        return {"output_mode": self.output_mode, "crossing_dim": self.crossing_dim,
                "hashing_dim": self.hashing_dim,
                "num_discretization_bins": self.num_discretization_bins,
                "crosses": [c.get_config() for c in self.crosses]}

