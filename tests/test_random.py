"""pd.random: distributions, seeding (None / int / SeedGenerator), run-time shapes, dropout,
use inside a layer's call, and bad arguments."""
import numpy as np
import pytest

import paddle as pd
from gradcheck import check_gradients
from paddle.lowlevel.eager import tracing

N = 200_000


def test_distributions():
    v = pd.eval(pd.random.normal((N,), mean=-1.0, stddev=0.5, seed=1))
    assert abs(v.mean() + 1.0) < 0.01 and abs(v.std() - 0.5) < 0.01
    assert v.dtype == np.float32
    v = pd.eval(pd.random.uniform((N,), minval=-2.0, maxval=4.0, dtype="float64", seed=2))
    assert v.dtype == np.float64 and v.min() >= -2.0 and v.max() < 4.0
    assert abs(v.mean() - 1.0) < 0.02 and abs(v.var() - 3.0) < 0.05  # (b - a)^2 / 12
    v = pd.eval(pd.random.truncated_normal((N,), mean=3.0, stddev=2.0, seed=3))
    assert v.min() >= -1.0 and v.max() <= 7.0
    # a normal truncated at 2 sigma has std 0.8796 sigma
    assert abs(v.mean() - 3.0) < 0.02 and abs(v.std() - 2 * 0.8796) < 0.02
    v = pd.eval(pd.random.randint((N,), -2, 3, seed=4))
    assert v.dtype == np.int32 and set(np.unique(v).tolist()) == {-2, -1, 0, 1, 2}
    counts = np.bincount(v + 2) / N
    np.testing.assert_allclose(counts, 0.2, atol=0.01)
    assert pd.eval(pd.random.randint((3, 2), 0, 5, dtype="int64")).dtype == np.int64


@pytest.mark.parametrize("alpha", [0.3, 1.0, 2.5, 40.0])
def test_gamma_mean_variance_and_positivity(alpha):
    v = pd.eval(pd.random.gamma((N,), alpha=alpha, dtype="float64", seed=5))
    assert v.dtype == np.float64 and v.min() > 0
    # mean and variance alpha (scale 1); 5 standard errors of each estimate
    assert abs(v.mean() - alpha) < 5 * np.sqrt(alpha / N)
    assert abs(v.var() - alpha) < 5 * np.sqrt((2 * alpha ** 2 + 6 * alpha) / N)


def test_gamma_and_beta_of_tensors_of_parameters():
    v = pd.eval(pd.random.gamma((N, 2), alpha=np.array([0.5, 6.0]), dtype="float64", seed=9))
    np.testing.assert_allclose(v.mean(axis=0), [0.5, 6.0], rtol=0.02)
    np.testing.assert_allclose(v.var(axis=0), [0.5, 6.0], rtol=0.05)
    a = pd.data("gamma_alpha", shape=[None, 1])
    x = pd.data("gamma_like", shape=[None, 3])
    g = pd.eval(pd.random.gamma((None, 3), a, seed=2, like=x),
                {a: np.array([[2.0], [-1.0]], np.float32), x: np.zeros((2, 3), np.float32)})
    assert g.shape == (2, 3) and np.all(g[0] > 0) and np.all(np.isnan(g[1]))
    v = pd.eval(pd.random.beta((N,), pd.constant(np.float32(2.0)), np.float32(6.0), seed=3))
    assert abs(v.mean() - 0.25) < 0.003
    with pytest.raises(ValueError, match=r"gamma: expected alpha to broadcast to the shape "
                                         r"\(4,\), received alpha of shape \(3,\)"):
        pd.random.gamma((4,), np.ones(3))


def test_beta_binomial_categorical_statistics():
    a, b = 2.0, 5.0
    v = pd.eval(pd.random.beta((N,), a, b, seed=6))
    assert v.dtype == np.float32 and v.min() >= 0 and v.max() <= 1
    assert abs(v.mean() - a / (a + b)) < 0.002
    assert abs(v.var() - a * b / ((a + b) ** 2 * (a + b + 1))) < 0.001
    v = pd.eval(pd.random.binomial((N,), counts=12, probabilities=0.25, seed=7))
    assert v.dtype == np.float32 and set(np.unique(v)) <= set(range(13))
    assert abs(v.mean() - 3.0) < 0.02 and abs(v.var() - 2.25) < 0.04
    assert np.all(pd.eval(pd.random.binomial((5,), 0, 0.5)) == 0)
    assert np.all(pd.eval(pd.random.binomial((5,), 4, 1.0)) == 4)
    p = np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])
    v = pd.eval(pd.random.categorical(np.log(p).astype(np.float32), 50_000, seed=8))
    assert v.shape == (2, 50_000) and v.dtype == np.int32
    for row, probs in zip(v, p):
        np.testing.assert_allclose(np.bincount(row, minlength=3) / row.size, probs, atol=0.01)
    assert pd.eval(pd.random.categorical([[0.0, 0.0]], 3, dtype="int64")).dtype == np.int64


def test_new_draws_are_seeded_and_take_the_batch_at_run_time():
    x = pd.data("new_draws_x", shape=[None, 3])
    feed = {x: np.zeros((4, 3), np.float32)}
    for draw in (lambda s: pd.random.gamma((None, 2), 2.0, seed=s, like=x),
                 lambda s: pd.random.beta((None, 2), 2.0, 3.0, seed=s, like=x),
                 lambda s: pd.random.binomial((None, 2), 6, 0.5, seed=s, like=x),
                 lambda s: pd.random.categorical(x, 5, seed=s)):
        first, again = pd.eval(draw(3), feed), pd.eval(draw(3), feed)
        assert first.shape[0] == 4
        np.testing.assert_array_equal(first, again)
        pd.seed(11)
        a = pd.eval(draw(None), feed)
        pd.seed(11)
        np.testing.assert_array_equal(a, pd.eval(draw(None), feed))
    assert not np.array_equal(pd.eval(pd.random.gamma((50,), 2.0, seed=1)),
                              pd.eval(pd.random.gamma((50,), 2.0, seed=2)))


def test_int_seed_repeats_none_seed_follows_pd_seed():
    # Built as graph nodes (tracing): outside a trace they would be drawn once, at once.
    with tracing():
        fixed = pd.random.uniform((5,), seed=42)
        again = pd.random.uniform((5,), seed=42)
        free = pd.random.uniform((5,))
    np.testing.assert_array_equal(pd.eval(fixed), pd.eval(fixed))
    np.testing.assert_array_equal(pd.eval(fixed), pd.eval(again))
    pd.seed(3)
    a, b = pd.eval(free), pd.eval(free)
    assert not np.array_equal(a, b)  # a new draw every run
    pd.seed(3)
    np.testing.assert_array_equal(pd.eval(free), a)
    np.testing.assert_array_equal(pd.eval(free), b)


def test_seed_generator_new_draw_each_run_reproducible():
    def draws(gen):
        with tracing():  # a graph node: a new draw on every run
            v = pd.random.normal((4,), seed=gen)
        return [pd.eval(v) for _ in range(3)]
    a, b = draws(pd.random.SeedGenerator(7)), draws(pd.random.SeedGenerator(7))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], a[1])
    assert not np.array_equal(a[0], draws(pd.random.SeedGenerator(8))[0])
    pd.seed(5)
    c = draws(pd.random.SeedGenerator())
    pd.seed(5)
    np.testing.assert_array_equal(c[2], draws(pd.random.SeedGenerator())[2])
    gen = pd.random.SeedGenerator(1)
    state = gen.state
    first = gen.next()
    gen.state = state
    assert gen.next() == first
    assert pd.random.SeedGenerator.from_config(gen.get_config()).seed == 1


def test_run_time_sizes_from_like():
    x = pd.data("x", shape=[None, 3])
    noise = pd.random.normal((None, 3), like=x, seed=0)
    assert noise.shape == (None, 3)
    for batch in (2, 5):
        assert pd.eval(noise, {x: np.zeros((batch, 3), np.float32)}).shape == (batch, 3)
    same = pd.random.uniform(x, seed=0)  # a Variable stands for its own shape
    assert pd.eval(same, {x: np.zeros((4, 3), np.float32)}).shape == (4, 3)
    per_row = pd.random.uniform((None, 1), like=x, seed=0)
    assert pd.eval(per_row, {x: np.zeros((4, 3), np.float32)}).shape == (4, 1)


def test_run_time_sizes_from_the_shape_of_a_variable_and_the_batch_of_any_rank():
    # keras-io's GAN (custom_train_step guide): noise shaped as tf.shape(labels), and a
    # batch size read from images of another rank.
    images = pd.data("images", shape=[None, 4, 4, 1])
    labels = pd.concat([pd.ones_like(images[:, 0, 0]), pd.zeros_like(images[:, 0, 0])], axis=0)
    noise = pd.random.uniform(pd.shape(labels), seed=0)        # labels' own sizes: 2N
    latent = pd.random.normal((pd.shape(images)[0], 3), like=images, seed=0)  # N from rank 4
    out = pd.eval([noise, latent], {images: np.zeros((5, 4, 4, 1), np.float32)})
    assert [o.shape for o in out] == [(10, 1), (5, 3)]
    assert pd.shape(labels) == (None, 1) and pd.shape(pd.constant(np.ones(2))) == (2,)


def test_dropout_values_noise_shape_and_gradient():
    x = pd.constant(np.ones((4, 6, 8), np.float32))
    y = pd.eval(pd.random.dropout(x, 0.25, seed=0))
    assert set(np.unique(y).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert abs((y == 0).mean() - 0.25) < 0.05
    y = pd.eval(pd.random.dropout(x, 0.5, noise_shape=(None, 1, 8), seed=1))
    assert np.all(y == y[:, :1, :])  # whole time steps share the mask
    assert pd.random.dropout(x, 0.0) is x
    # a fixed seed draws the same mask every run, so central differences apply
    check_gradients(lambda v: pd.random.dropout(v, 0.4, seed=9),
                    [np.random.default_rng(0).normal(size=(3, 5))])


def test_shuffle():
    x = pd.data("x", shape=[None, 3])
    gen = pd.random.SeedGenerator(4)
    y = pd.random.shuffle(x, seed=gen)
    a = np.arange(30, dtype=np.float32).reshape(10, 3)
    first, second = pd.eval(y, {x: a}), pd.eval(y, {x: a})
    for out in (first, second):  # rows kept whole, every row once
        assert sorted(out[:, 0].tolist()) == a[:, 0].tolist()
        np.testing.assert_array_equal(out[:, 1:], out[:, :1] + [1, 2])
    assert not np.array_equal(first, second)
    assert pd.eval(y, {x: a[:4]}).shape == (4, 3)  # the length comes from the fed batch
    cols = pd.eval(pd.random.shuffle(pd.constant(a), axis=-1, seed=3))
    np.testing.assert_array_equal(np.sort(cols, axis=1), a)
    np.testing.assert_array_equal(pd.eval(pd.random.shuffle(pd.constant(a), seed=7)),
                                  pd.eval(pd.random.shuffle(pd.constant(a), seed=7)))
    # every order appears: 3 items, 6 orders, 600 draws
    with tracing():
        z = pd.random.shuffle(pd.constant(np.arange(3.0)))
    seen = {tuple(pd.eval(z).tolist()) for _ in range(600)}
    assert len(seen) == 6
    check_gradients(lambda v: pd.random.shuffle(v, seed=5), [np.random.default_rng(0)
                                                             .normal(size=(4, 3))])


def test_keras_vae_sampling_layer_as_written():
    """keras-io's VAE `Sampling` layer with keras renamed to pd: the batch size of
    `ops.shape(z_mean)[0]` is None here and comes from the call's input at run time."""
    class Sampling(pd.layers.Layer):
        """Uses (z_mean, z_log_var) to sample z, the vector encoding a digit."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.seed_generator = pd.random.SeedGenerator(1337)

        def call(self, inputs):
            z_mean, z_log_var = inputs
            batch = pd.ops.shape(z_mean)[0]
            dim = pd.ops.shape(z_mean)[1]
            epsilon = pd.random.normal(shape=(batch, dim), seed=self.seed_generator)
            return z_mean + pd.ops.exp(0.5 * z_log_var) * epsilon

    mean, log_var = pd.layers.Input(shape=(2,)), pd.layers.Input(shape=(2,))
    z = Sampling()([mean, log_var])
    assert z.shape == (None, 2)
    model = pd.Model([mean, log_var], z)
    ones = np.ones((5000, 2), np.float32)
    draws = model.predict([ones, np.log(ones * 4.0)], verbose=0, batch_size=5000)
    assert draws.shape == (5000, 2)
    assert abs(draws.mean() - 1.0) < 0.1 and abs(draws.std() - 2.0) < 0.1
    assert model.predict([ones[:3], ones[:3]], verbose=0).shape == (3, 2)
    class Batched(pd.layers.Layer):  # a None at axis 0 alone is the batch, at any rank
        def call(self, x):
            return pd.random.normal((None, 2, 2))
    batched = Batched()(pd.layers.Input(shape=(2,)))
    assert batched.shape == (None, 2, 2)
    with pytest.raises(ValueError, match=r"normal: the shape \(2, None, 2\) has None sizes, "
                                         r"which need like= a Variable of rank 3, or any rank "
                                         r"when only axis 0 \(the batch\) is None"):
        class Wrong(pd.layers.Layer):
            def call(self, x):
                return pd.random.normal((2, None, 2))
        Wrong()(pd.layers.Input(shape=(2,)))


def test_inside_a_layer_call_a_new_draw_each_step():
    class Sampling(pd.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.seed_generator = pd.random.SeedGenerator(1337)

        def call(self, inputs, training=False):
            z_mean, z_log_var = inputs
            eps = pd.random.normal((None, 2), like=z_mean, seed=self.seed_generator)
            return z_mean + pd.exp(0.5 * z_log_var) * eps

    def run():
        mean, log_var = pd.layers.Input(shape=(2,)), pd.layers.Input(shape=(2,))
        model = pd.Model([mean, log_var], Sampling()([mean, log_var]))
        zeros = np.zeros((3, 2), np.float32)
        return [model.predict([zeros, zeros], verbose=0) for _ in range(2)]
    a, b = run(), run()
    assert not np.array_equal(a[0], a[1])
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


@pytest.mark.parametrize("call, match", [
    (lambda: pd.random.normal((2, -1)), r"normal: expected shape as a tuple of sizes >= 0"),
    (lambda: pd.random.normal("3"), r"expected shape as a tuple"),
    (lambda: pd.random.normal((None, 2)), r"has None sizes, which need like= a Variable of "
                                          r"rank 2, or any rank when only axis 0 \(the batch\) "
                                          r"is None \(or a layer call or train_step whose input "
                                          r"has one\); received no like="),
    (lambda: pd.random.normal((2, None), like=pd.data("r3", shape=[None, 2, None])),
     r"has None sizes, .* received like= of shape \(None, 2, None\)"),
    (lambda: pd.random.normal((2,), stddev=-1.0), r"expected stddev a finite number >= 0"),
    (lambda: pd.random.normal((2,), mean=float("nan")), r"expected mean a finite number"),
    (lambda: pd.random.normal((2,), dtype="int32"), r"expected a float dtype, received 'int32'"),
    (lambda: pd.random.normal((2,), seed=-1), r"expected seed as None, an integer"),
    (lambda: pd.random.normal((2,), seed="a"), r"expected seed as None"),
    (lambda: pd.random.uniform((2,), 1.0, 1.0), r"uniform: expected minval < maxval"),
    (lambda: pd.random.randint((2,), 0, 0), r"randint: expected minval < maxval"),
    (lambda: pd.random.randint((2,), 0.5, 2), r"randint: expected an integer minval"),
    (lambda: pd.random.dropout(pd.constant(np.ones((2, 3))), 1.0), r"expected rate in \[0, 1\)"),
    (lambda: pd.random.dropout(pd.constant(np.ones((2, 3))), 0.5, noise_shape=(2,)),
     r"expected noise_shape with one size per axis"),
    (lambda: pd.random.dropout(pd.constant(np.ones((2, 3))), 0.5, noise_shape=(2, 2)),
     r"does not broadcast against the input"),
    (lambda: pd.random.SeedGenerator(2 ** 63), r"SeedGenerator: expected an integer seed"),
    (lambda: pd.random.shuffle(pd.constant(np.ones((2, 3))), axis=2),
     r"shuffle: expected an axis of an input of shape \(2, 3\), received 2"),
    (lambda: pd.random.shuffle(pd.constant(1.0)), r"shuffle: expected an input of rank >= 1"),
    (lambda: pd.random.gamma((2,), 0.0), r"gamma: expected alpha a finite number > 0, "
                                         r"received 0.0"),
    (lambda: pd.random.gamma((2,), 1.0, dtype="int32"), r"expected a float dtype"),
    (lambda: pd.random.beta((2,), 1.0, -1.0), r"beta: expected beta a finite number > 0"),
    (lambda: pd.random.binomial((2,), 2.5, 0.5), r"binomial: expected counts an integer "
                                                 r"number of trials >= 0, received 2.5"),
    (lambda: pd.random.binomial((2,), 3, 1.5), r"expected probabilities in \[0, 1\]"),
    (lambda: pd.random.categorical(pd.constant(np.ones(3, np.float32)), 2),
     r"categorical: expected logits as a 2-D float tensor \(batch, classes\), received "
     r"shape \(3,\)"),
    (lambda: pd.random.categorical(pd.constant(np.ones((2, 3), np.float32)), 0),
     r"expected num_samples as an integer >= 1, received 0"),
    (lambda: pd.random.categorical(pd.constant(np.ones((2, 3), np.float32)), 2, dtype="float32"),
     r"expected dtype 'int32' or 'int64'"),
])
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_pd_random_is_the_keras_module():
    assert pd.random.normal is not None and not hasattr(pd.random, "generator")
    assert pd.lowlevel.random_state.generator() is not None  # the state stays where it was
