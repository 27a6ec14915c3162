"""RandAugment and AugMix, as Keras's, and two of their operations: RandomSharpness and
RandomPosterization.

RandAugment applies `num_ops` operations in turn, each chosen per batch among Keras's
eleven (shear, translation, rotation, brightness, colour degeneration, contrast, sharpness,
posterization, solarization, auto-contrast, equalization), with every operation's strength
set by `factor`. As in Keras, each step computes the eleven candidates and keeps the drawn
one (`where` on the drawn index), so the layer is one graph for a batch of any size. Like
the other random image layers, all of them act in training runs only and are the identity
at inference.

Example:
    >>> import numpy as np, paddle as pd
    >>> x = np.random.default_rng(0).uniform(0, 255, (2, 8, 8, 3)).astype(np.float32)
    >>> bool(np.array_equal(pd.layers.RandAugment()(x), x))    # inference: the identity
    True
"""
import numbers

from paddle.lowlevel.ops.math import cast, clip, equal, pow as pow_, where
from paddle.lowlevel.ops.reduce import sum as reduce_sum
from paddle.lowlevel.ops.sampling import random as random_op
from paddle.lowlevel.ops.shape import pad
from paddle.lowlevel.ops.special import floor
from paddle.highlevel.layers.color_augmentation import (
    AutoContrast, RandomColorDegeneration, Solarization, _back, _keras_factor, _last,
    _to_range)
from paddle.highlevel.layers.histogram_augmentation import Equalization
from paddle.highlevel.layers.image_affine import RandomRotation, RandomShear, \
    RandomTranslation
from paddle.highlevel.layers.image_preprocessing import (
    RandomBrightness, RandomContrast, _RandomImage, _value_range, blend)
from paddle.lowlevel.graph import FLOATS


class RandomSharpness(_RandomImage):
    """In training, sharpens or blurs each image by a factor f drawn in `factor`, as
    Keras's: `x + (1 - 2 f) * (smoothed - x)`, clipped to value_range, where `smoothed` is
    the image under Keras's 3x3 smoothing kernel (centre 5/13, neighbours 1/13, zero
    padding); f = 0.5 keeps the image, lower values blur, higher ones sharpen. The identity
    at inference.

    Args:
        factor: a number f in [0, 1] for [0, f], or a pair (lower, upper) in [0, 1].
        value_range: the images' (low, high) range (default (0, 255)).
        data_format: "channels_last" (default) or "channels_first".
        seed: an int for the layer's own sequence of draws, or None.

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandomSharpness(0.5)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = _keras_factor(factor, "RandomSharpness", (0.0, 1.0))
        self.value_range = tuple(sorted(_value_range(value_range, "RandomSharpness")))

    def call(self, inputs):
        h, w = self._hw(inputs.shape)
        u = self.draw(inputs)
        sharpness = 2.0 * (self.factor[0] + u * (self.factor[1] - self.factor[0]))
        x = _last(inputs, self)
        padded = pad(x, [(0, 0), (1, 1), (1, 1), (0, 0)])
        around = None
        for i in range(3):
            for j in range(3):
                part = padded[:, i:i + h, j:j + w, :]
                around = part if around is None else around + part
        smoothed = around * (1.0 / 13.0) + x * (4.0 / 13.0)  # the centre weighs 5/13
        sharpened = clip(x + (1.0 - sharpness) * (smoothed - x), *self.value_range)
        return blend(inputs, _back(sharpened, self), self.training_flag(u))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


class RandomPosterization(_RandomImage):
    """In training, keeps `b` bits of each 8-bit value (values mapped to [0, 255], cut to
    integers, the lowest 8 - b bits cleared, mapped back), with b drawn per image as
    Keras's `randint(lower, upper)` (upper excluded; b = lower when they are equal); the
    identity at inference.

    Args:
        factor: a number f in [1, 8] for [1, f], or a pair (lower, upper) in [1, 8].
        value_range: the images' (low, high) range (default (0, 255)).
        data_format: "channels_last" (default) or "channels_first".
        seed: an int for the layer's own sequence of draws, or None.

    Example:
        >>> import numpy as np, paddle as pd
        >>> inp = pd.data("images", shape=(None, 1, 2, 1))
        >>> out = pd.layers.RandomPosterization((2, 2))(inp)
        >>> x = np.array([[[[200.0], [100.0]]]], np.float32)
        >>> pd.eval(out, {inp: x}, training=True).ravel().tolist()   # the top 2 bits
        [192.0, 64.0]
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.factor = _keras_factor(factor, "RandomPosterization", (1.0, 8.0))
        self.value_range = tuple(sorted(_value_range(value_range, "RandomPosterization")))

    def call(self, inputs):
        u = self.draw(inputs)
        low, high = self.factor
        bits = low if low == high else floor(low + u * (high - low))
        step = pow_(u * 0.0 + 2.0, 8.0 - bits)  # 2 ** (8 - bits), exact
        x = floor(clip(_to_range(inputs, self.value_range, (0.0, 255.0)), 0.0, 255.0))
        kept = _to_range(floor(x / step) * step, (0.0, 255.0), self.value_range)
        return blend(inputs, kept, self.training_flag(u))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


def operations(factor, value_range, interpolation, seed, data_format):
    """Keras's augmentation layers of RandAugment and AugMix, by Keras's attribute names,
    with Keras's arguments (each seeded from the layer's seed)."""
    f, vr = factor, value_range
    common = {"seed": seed, "data_format": data_format}
    return {
        "random_shear": RandomShear(x_factor=f, y_factor=f, interpolation=interpolation,
                                    **common),
        "random_translation": RandomTranslation(f, f, interpolation=interpolation, **common),
        "random_rotation": RandomRotation(f, interpolation=interpolation, **common),
        "random_brightness": RandomBrightness(f, value_range=vr, **common),
        "random_color_degeneration": RandomColorDegeneration(f, value_range=vr, **common),
        "random_contrast": RandomContrast(f, value_range=vr, **common),
        "random_sharpness": RandomSharpness(f, value_range=vr, **common),
        "random_posterization": RandomPosterization(max(1, int(8 * f[1])), value_range=vr,
                                                    **common),
        "solarization": Solarization(f, f, value_range=vr, **common),
        "auto_contrast": AutoContrast(value_range=vr),
        "equalization": Equalization(value_range=vr, data_format=data_format),
    }


def apply_drawn(layer, images, candidates, count):
    """images through the candidate whose index an integer draw in [0, count) picks, per
    batch (an index past the candidates, or -1 at inference, keeps the images)."""
    chosen = random_op((1, 1, 1, 1), "randint", 0, float(count), images.dtype, None,
                       layer._seed_fn, inference_value=-1.0)
    out = images
    for k, candidate in enumerate(candidates):
        out = where(equal(chosen, float(k)), candidate(images), out)
    return out


class RandAugment(_RandomImage):
    """RandAugment (Cubuk et al., 2019), as Keras's: in training, `num_ops` operations in
    turn, each drawn per batch among shear, translation, rotation, brightness, colour
    degeneration, contrast, sharpness, posterization, solarization, auto-contrast and
    equalization, all with strength `factor`; the identity at inference.

    Args:
        value_range: the images' (low, high) range (default (0, 255)).
        num_ops: the number of operations applied in turn, an integer >= 0 (default 2).
        factor: the strength, a number f in [0, 1] for [0, f] or a pair (default 0.5).
        interpolation: "bilinear" (default) or "nearest", for the geometric operations.
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.RandAugment(num_ops=3)(pd.layers.Input(shape=(8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    OPERATIONS = ("random_shear", "random_translation", "random_rotation",
                  "random_brightness", "random_color_degeneration", "random_contrast",
                  "random_sharpness", "random_posterization", "solarization", "auto_contrast",
                  "equalization")

    def __init__(self, value_range=(0, 255), num_ops=2, factor=0.5, interpolation="bilinear",
                 seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = tuple(sorted(_value_range(value_range, "RandAugment")))
        if not isinstance(num_ops, numbers.Integral) or isinstance(num_ops, bool) or \
                num_ops < 0:
            raise ValueError(f"RandAugment: expected num_ops as an integer >= 0, received "
                             f"num_ops={num_ops!r}")
        self.num_ops = int(num_ops)
        self.factor = _keras_factor(factor, "RandAugment", (0.0, 1.0))
        if interpolation not in ("bilinear", "nearest"):
            raise ValueError(f"RandAugment: expected interpolation 'bilinear' or 'nearest', "
                             f"received {interpolation!r}")
        self.interpolation = interpolation
        self._operations = self._make_operations(seed, self.data_format)

    def _make_operations(self, seed, data_format):
        ops = operations(self.factor, self.value_range, self.interpolation, seed, data_format)
        return [ops[name] for name in self.OPERATIONS]

    def call(self, inputs):
        self._hw(inputs.shape)
        images = inputs if inputs.dtype in FLOATS else \
            cast(inputs, "float32")
        for _ in range(self.num_ops):  # the operation of each step, drawn per batch
            images = apply_drawn(self, images, self._operations, len(self._operations))
        return images

    def get_config(self):
        return {**super().get_config(), "value_range": list(self.value_range),
                "num_ops": self.num_ops, "factor": list(self.factor),
                "interpolation": self.interpolation}


class AugMix(_RandomImage):
    """AugMix (Hendrycks et al., 2020), as Keras's: in training, `num_chains` chains of
    `chain_depth` steps, each step an operation drawn per batch among Keras's (or none),
    are mixed with Dirichlet(alpha) weights, and the mixture with the original by a
    Beta(alpha, alpha) weight, clipped to value_range; the identity at inference.

    Args:
        value_range: the images' (low, high) range (default (0, 255)).
        num_chains: the number of chains, an integer >= 1 (default 3).
        chain_depth: the steps of a chain, an integer >= 1 (default 3).
        factor: the operations' strength, a number f in [0, 1] for [0, f] or a pair
            (default 0.3).
        alpha: the Dirichlet and Beta parameter, a number > 0 (default 1.0).
        all_ops: use all eleven operations (default), or the seven without brightness,
            colour degeneration, contrast and sharpness.
        interpolation: "bilinear" (default) or "nearest".
        seed: an int for the layer's own sequence of draws, or None.
        data_format: "channels_last" (default) or "channels_first".

    Example:
        >>> import paddle as pd
        >>> pd.layers.AugMix(num_chains=2, chain_depth=1)(pd.layers.Input((8, 8, 3))).shape
        (None, 8, 8, 3)
    """

    ALL_OPS = ("random_shear", "random_translation", "random_rotation", "random_posterization",
               "solarization", "auto_contrast", "equalization", "random_brightness",
               "random_color_degeneration", "random_contrast", "random_sharpness")

    def __init__(self, value_range=(0, 255), num_chains=3, chain_depth=3, factor=0.3,
                 alpha=1.0, all_ops=True, interpolation="bilinear", seed=None,
                 data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        self.value_range = tuple(sorted(_value_range(value_range, "AugMix")))
        for name, value in (("num_chains", num_chains), ("chain_depth", chain_depth)):
            if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
                raise ValueError(f"AugMix: expected {name} as an integer >= 1, received "
                                 f"{name}={value!r}")
        self.num_chains, self.chain_depth = int(num_chains), int(chain_depth)
        self.factor = _keras_factor(factor, "AugMix", (0.0, 1.0))
        if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool) or \
                not 0 < alpha < float("inf"):
            raise ValueError(f"AugMix: expected alpha as a number > 0, received "
                             f"alpha={alpha!r}")
        self.alpha, self.all_ops = float(alpha), bool(all_ops)
        if interpolation not in ("bilinear", "nearest"):
            raise ValueError(f"AugMix: expected interpolation 'bilinear' or 'nearest', "
                             f"received {interpolation!r}")
        self.interpolation = interpolation
        ops = operations(self.factor, self.value_range, interpolation, seed, self.data_format)
        names = self.ALL_OPS if self.all_ops else self.ALL_OPS[:7]
        self._operations = [ops[name] for name in names]

    def _gammas(self, shape, images, inference_value):
        return random_op(shape, "gamma", self.alpha, 1.0, images.dtype, None, self._seed_fn,
                         inference_value=inference_value)

    def call(self, inputs):
        self._hw(inputs.shape)
        images = inputs if inputs.dtype in FLOATS else \
            cast(inputs, "float32")
        g = self._gammas((self.num_chains,), images, 1.0)
        chain_weights = g / reduce_sum(g)                    # Dirichlet(alpha), per batch
        x, y = self._gammas((1,), images, 1.0), self._gammas((1,), images, 0.0)
        keep = x / (x + y)                                   # Beta(alpha, alpha); 1 at inference
        mixed = None
        count = len(self._operations) + 1                    # Keras's choice includes "none"
        for c in range(self.num_chains):
            chain = images
            for _ in range(self.chain_depth):
                chain = apply_drawn(self, chain, self._operations, count)
            term = chain * chain_weights[c]
            mixed = term if mixed is None else mixed + term
        out = clip(keep * images + (1.0 - keep) * mixed, *self.value_range)
        return blend(images, out, self.training_flag(self.draw(images, per_image=False)))

    def get_config(self):
        return {**super().get_config(), "value_range": list(self.value_range),
                "num_chains": self.num_chains, "chain_depth": self.chain_depth,
                "factor": list(self.factor), "alpha": self.alpha, "all_ops": self.all_ops,
                "interpolation": self.interpolation}
