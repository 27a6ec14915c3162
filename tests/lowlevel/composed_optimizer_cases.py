"""The small problem and the optimizer settings that test_optimizers_composed.py runs in
paddle and make_composed_optimizer_reference.py in Keras 3 (neither imported here).

Three weights: a matrix `w` (3, 2), a vector `b` (2,) and a rank-3 `t` (2, 3, 2) (so
Adafactor factors a matrix and a rank-3 weight, and Muon steps the matrix and AdamW the
others); the loss `sum((x @ w + b - 1) ** 2) + sum(s * (t - 0.5) ** 2)`. Each case is
(class name, constructor arguments): a learning rate given as [schedule name, arguments]
is that schedule; a "map" argument makes a MultiOptimizer over OptimizerMap(default,
{key: optimizer})."""
import numpy as np

STEPS = 5
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
S = (np.arange(12, dtype=np.float32).reshape(2, 3, 2) - 5.0) / 4.0
START = {"w": np.array([[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]], np.float32),
         "b": np.array([0.5, -0.5], np.float32),
         "t": (np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 10.0 - 0.4)}

CASES = {
    "adafactor": ("Adafactor", {"learning_rate": 0.1}),
    "adafactor_defaults": ("Adafactor", {}),
    "adafactor_clip": ("Adafactor", {"learning_rate": 0.05, "clip_threshold": 0.5,
                                     "relative_step": False, "epsilon_2": 0.01,
                                     "beta_2_decay": -0.5}),
    "adafactor_schedule": ("Adafactor", {"learning_rate": ["ExponentialDecay", {
        "initial_learning_rate": 0.2, "decay_steps": 2, "decay_rate": 0.5}]}),
    "adafactor_ema": ("Adafactor", {"learning_rate": 0.1, "use_ema": True, "ema_momentum": 0.5,
                                    "ema_overwrite_frequency": 2}),
    "muon": ("Muon", {"learning_rate": 0.05}),
    "muon_plain": ("Muon", {"learning_rate": 0.05, "nesterov": False, "rms_rate": None,
                            "ns_steps": 3, "weight_decay": None, "adam_lr_ratio": 0.5,
                            "momentum": 0.8}),
    "muon_exclude": ("Muon", {"learning_rate": 0.05, "exclude_layers": ["w"],
                              "adam_weight_decay": 0.1}),
    "sfadamw": ("ScheduleFreeAdamW", {"learning_rate": 0.1}),
    "sfadamw_warmup": ("ScheduleFreeAdamW", {"learning_rate": 0.1, "warmup_steps": 3,
                                             "weight_decay": 0.01, "beta_1": 0.8}),
    "sfadamw_clip": ("ScheduleFreeAdamW", {"learning_rate": 0.1, "global_clipnorm": 1.0}),
    "multi": ("MultiOptimizer", {"map": [["SGD", {"learning_rate": 0.1, "momentum": 0.9}],
                                         {"(.*/)?w": ["Adafactor", {"learning_rate": 0.1}],
                                          "(.*/)?t": ["Adam", {"learning_rate": 0.05}]}]}),
}
