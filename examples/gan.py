"""A GAN on a 2-D toy distribution, mixing the two levels of the API.

The generator is made of high-level layers (`pd.layers.Dense`) called on a `pd.data`
noise input; the discriminator is a plain function of `pd.fc` calls in a namespace, built
twice (on real and on generated points) with `reuse=True` the second time so both share
one set of weights. Two optimizers over disjoint `var_list`s train the two halves, each
step one `pd.eval` of a loss and its update op.

The real points come from a tilted Gaussian centred at (2, -1); after training, the
generated points' mean and covariance are printed beside the real ones.

    python examples/gan.py
"""
import numpy as np

import paddle as pd

CENTER = np.array([2.0, -1.0], np.float32)
MIXING = np.array([[0.5, 0.0], [0.3, 0.2]], np.float32)  # covariance MIXING @ MIXING.T


def real_batch(rng, n):
    return (rng.standard_normal((n, 2)).astype(np.float32) @ MIXING.T + CENTER)


def discriminator(points, reuse):
    """Logits of 'real' for each point; the second call reuses the first call's weights."""
    with pd.namespace("discriminator", reuse=reuse):
        h = pd.fc(points, size=32, act="relu")
        h = pd.fc(h, size=32, act="relu")
        return pd.fc(h, size=1)


def main():
    pd.seed(0)
    rng = np.random.default_rng(0)
    noise = pd.data("noise", shape=[None, 2])
    real = pd.data("real", shape=[None, 2])

    # High level: layers called on a low-level input.
    generator = [pd.layers.Dense(32, activation="relu"), pd.layers.Dense(32, activation="relu"),
                 pd.layers.Dense(2)]
    fake = noise
    for layer in generator:
        fake = layer(fake)

    # Low level: the same discriminator weights judge real and generated points.
    real_logits = discriminator(real, reuse=False)
    fake_logits = discriminator(fake, reuse=True)
    d_loss = pd.mean(pd.sigmoid_cross_entropy(real_logits, pd.ones_like(real_logits))) + \
        pd.mean(pd.sigmoid_cross_entropy(fake_logits, pd.zeros_like(fake_logits)))
    g_loss = pd.mean(pd.sigmoid_cross_entropy(fake_logits, pd.ones_like(fake_logits)))

    d_vars = [pd.get_variable(f"discriminator/fc_{k}/{p}") for k in range(3) for p in "wb"]
    g_vars = [w for layer in generator for w in layer.trainable_weights]
    d_step = pd.optimizers.Adam(learning_rate=2e-3, beta_1=0.5).minimize(d_loss, var_list=d_vars)
    g_step = pd.optimizers.Adam(learning_rate=2e-3, beta_1=0.5).minimize(g_loss, var_list=g_vars)

    batch = 128
    for step in range(1, 2001):
        z = rng.standard_normal((batch, 2)).astype(np.float32)
        d, _ = pd.eval([d_loss, d_step], feeds={real: real_batch(rng, batch), noise: z})
        z = rng.standard_normal((batch, 2)).astype(np.float32)
        g, _ = pd.eval([g_loss, g_step], feeds={noise: z})
        if step % 400 == 0:
            print(f"step {step:4d}  discriminator loss {float(d):.3f}  generator loss "
                  f"{float(g):.3f}")

    samples = pd.eval(fake, feeds={noise: rng.standard_normal((2000, 2)).astype(np.float32)})
    samples, target = samples.astype(np.float64), real_batch(rng, 2000).astype(np.float64)
    print("a few generated points:", np.round(samples[:4], 2).tolist())
    print(f"generated mean {np.round(samples.mean(0), 2).tolist()}  "
          f"real mean {np.round(target.mean(0), 2).tolist()}")
    print(f"generated cov  {np.round(np.cov(samples.T), 3).tolist()}")
    print(f"real cov       {np.round(np.cov(target.T), 3).tolist()}")
    assert np.abs(samples.mean(0) - CENTER).max() < 0.3, "the generator missed the target"
    return samples


if __name__ == "__main__":
    main()
