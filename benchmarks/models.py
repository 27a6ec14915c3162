"""The two models of ../shared/bench/compare.py, built with paddle's public API, for the
benchmarks that run them in other settings (distributed.py, distributed_profile.py, gpu.py).

    >>> from models import paddle_model   # from benchmarks/ (the scripts put it on sys.path)
    >>> paddle_model("mlp").count_params()
    669706
"""


def paddle_model(case):
    """compare.py's MLP (784-512-512-10) or CNN, compiled with Adam(1e-3) and softmax
    cross-entropy on logits, on the current device."""
    import paddle as pd
    L = pd.layers
    if case == "mlp":
        layers = [L.Input(shape=(784,)), L.Dense(512, activation="relu"),
                  L.Dense(512, activation="relu"), L.Dense(10)]
    else:
        layers = [L.Input(shape=(28, 28, 1)), L.Conv2D(32, 3, activation="relu"),
                  L.MaxPooling2D(2), L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(2),
                  L.Flatten(), L.Dense(128, activation="relu"), L.Dense(10)]
    model = pd.Sequential(layers)
    model.compile(optimizer=pd.optimizers.Adam(learning_rate=1e-3),
                  loss=pd.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model
