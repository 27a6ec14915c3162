"""Keras's `keras.utils.Config`: a dict of settings read as attributes, which can be frozen.

Example:
    >>> import paddle as pd
    >>> config = pd.utils.Config(learning_rate=0.1)
    >>> config.momentum = 0.9
    >>> config.learning_rate, sorted(config.keys())
    (0.1, ['learning_rate', 'momentum'])
"""
import copy
import json


class Config:
    """Settings as attributes and items (`config.lr`, `config["lr"]`), a `freeze()` making
    them read-only, `as_dict()` and `to_json()`.

    Example:
        >>> import paddle as pd
        >>> config = pd.utils.Config(units=8)
        >>> config.freeze()
        >>> config.units = 4
        Traceback (most recent call last):
        ...
        ValueError: Config: cannot change a frozen config (call unfreeze() first)
    """

    __slots__ = ("_config", "_frozen")

    def __init__(self, **kwargs):
        object.__setattr__(self, "_config", dict(kwargs))
        object.__setattr__(self, "_frozen", False)

    @property
    def frozen(self):
        """Whether the config is read-only."""
        return self._frozen

    def freeze(self):
        """Make the config read-only."""
        object.__setattr__(self, "_frozen", True)

    def unfreeze(self):
        """Make the config writable again."""
        object.__setattr__(self, "_frozen", False)

    def _raise_if_frozen(self):
        if self._frozen:
            raise ValueError("Config: cannot change a frozen config (call unfreeze() first)")

    def as_dict(self):
        """A copy of the settings as a dict."""
        return copy.copy(self._config)

    def to_json(self):
        """The settings as JSON text."""
        return json.dumps(self._config)

    def keys(self):
        return self._config.keys()

    def values(self):
        return self._config.values()

    def items(self):
        return self._config.items()

    def pop(self, *args):
        self._raise_if_frozen()
        return self._config.pop(*args)

    def update(self, *args, **kwargs):
        self._raise_if_frozen()
        return self._config.update(*args, **kwargs)

    def get(self, keyname, value=None):
        return self._config.get(keyname, value)

    def __setattr__(self, name, value):
        self._raise_if_frozen()
        self._config[name] = value

    def __getattr__(self, name):
        try:
            return self._config[name]
        except KeyError:
            raise AttributeError(f"Config: no setting {name!r}; the settings are "
                                 f"{sorted(self._config)}") from None

    def __setitem__(self, key, item):
        self._raise_if_frozen()
        self._config[key] = item

    def __getitem__(self, key):
        return self._config[key]

    def __delitem__(self, key):
        self._raise_if_frozen()
        del self._config[key]

    def __contains__(self, item):
        return item in self._config

    def __iter__(self):
        return iter(self._config)

    def __len__(self):
        return len(self._config)

    def __repr__(self):
        return f"<Config {self._config}>"
