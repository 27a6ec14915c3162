"""Areas catalog.*: issue 16's catalogue (pd.utils, pd.random, newer layers, optimizers,
metrics, activations)."""

from .core import case
from .layers import arg_words, snake


CATALOG_LAYERS = {
    # layer: (input shape without the batch, [bad constructor arguments])
    "ReLU": ((4,), ["max_value=-1", "negative_slope=-0.5", "threshold=None", "max_value='a'"]),
    "LeakyReLU": ((4,), ["negative_slope=-1", "negative_slope='a'"]),
    "PReLU": ((4,), ["shared_axes=[0]", "shared_axes='x'", "alpha_initializer='nope'",
                     "shared_axes=[5]"]),
    "ELU": ((4,), ["alpha=None", "alpha='a'"]),
    "Softmax": ((4,), ["axis='a'", "axis=[]", "axis=5", "axis=[1, 9]"]),
    "UpSampling1D": ((3, 2), ["0", "-1", "2.5", "None"]),
    "UpSampling2D": ((3, 3, 2), ["0", "(2, 0)", "(2, 2, 2)", "interpolation='cubic'",
                                "data_format='NHWC'", "2**40"]),
    "ZeroPadding1D": ((3, 2), ["-1", "(1, 2, 3)", "'a'", "1.5"]),
    "ZeroPadding2D": ((3, 3, 2), ["-1", "((1, 2, 3), 1)", "(1, 2, 3)", "data_format='x'",
                                 "2**62"]),
    "Cropping1D": ((3, 2), ["-1", "(2, 1)", "(5, 0)", "'a'"]),
    "Cropping2D": ((3, 3, 2), ["-1", "((2, 1), (0, 0))", "(3, 3)", "data_format='x'"]),
    "RepeatVector": ((4,), ["0", "-2", "2.0", "None", "2**62"]),
    "TimeDistributed": ((3, 4), ["None", "3", "'dense'"]),
    "SpatialDropout1D": ((3, 2), ["1.0", "-0.1", "'a'", "0.5, seed='x'", "0.5, seed=-1"]),
    "SpatialDropout2D": ((3, 3, 2), ["1.0", "0.5, data_format='x'"]),
    "GaussianNoise": ((4,), ["-1.0", "float('inf')", "'a'", "None"]),
    "GaussianDropout": ((4,), ["1.0", "-0.5", "float('nan')"]),
    "Subtract": (None, ["foo=1"]),
    "Dot": (None, ["axes='a'", "axes=(1, 2, 3)", "axes=0", "axes=1, normalize='x'"]),
}


def catalog_cases():
    for layer, (shape, bad) in CATALOG_LAYERS.items():
        for args in bad:
            merge = shape is None
            case(
                "catalog.layers",
                f"{layer}({args})",
                f"""
                layer = pd.layers.{layer}({args})
                if {merge}:
                    out = layer([pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(3,))])
                    layer([rnd(2, 3), rnd(2, 3)])
                else:
                    out = layer(pd.layers.Input(shape={shape}))
                    finite(layer(rnd(2, *{shape}), training=True))""",
                [layer, snake(layer).replace("re_lu", "relu"), snake(layer)]
                + arg_words(args),
            )
    # layers fed inputs of the wrong rank or unknown sizes
    for layer, args, shape in [
        ("UpSampling2D", "", "(3, 4)"), ("UpSampling2D", "", "(None, 4, 2)"),
        ("Cropping1D", "(2, 3)", "(5, 2)"), ("RepeatVector", "2", "(3, 4)"),
        ("TimeDistributed", "pd.layers.Dense(2)", "(4,)"),
        ("TimeDistributed", "pd.layers.Dense(2)", "(None, 4)"),
        ("SpatialDropout1D", "0.5", "(4,)"), ("PReLU", "", "(None, 2)"),
        ("ZeroPadding2D", "", "(3,)"),
    ]:
        case(
            "catalog.inputs",
            f"{layer}({args})-on-{shape}",
            f"pd.layers.{layer}({args})(pd.layers.Input(shape={shape}))",
            [layer, snake(layer), "rank", "known", "cropping"],
        )
    for call in [
        "pd.layers.dot([pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(4,))], axes=1)",
        "pd.layers.subtract([pd.layers.Input(shape=(3,))] * 3)",
        "pd.layers.average([pd.layers.Input(shape=(3,))])",
        "pd.layers.maximum([pd.layers.Input(shape=(3,)), pd.layers.Input(shape=(4,))])",
    ]:
        case("catalog.inputs", call[10:50], call,
             ["dot", "subtract", "average", "maximum"])
    # pd.random
    for call in [
        "pd.random.normal((2, -1))", "pd.random.normal('3')", "pd.random.normal((None, 2))",
        "pd.random.normal((2,), stddev=-1.0)", "pd.random.normal((2,), mean=float('nan'))",
        "pd.random.normal((2,), dtype='int32')", "pd.random.normal((2,), seed=-1)",
        "pd.random.uniform((2,), 1.0, 1.0)", "pd.random.uniform((2,), 0.0, float('inf'))",
        "pd.random.randint((2,), 0, 0)", "pd.random.randint((2,), 0.5, 2)",
        "pd.random.randint((2,), 0, 2, dtype='bool')",
        "pd.random.truncated_normal((2,), seed='a')",
        "pd.random.dropout(pd.constant(np.ones((2, 3))), 1.0)",
        "pd.random.dropout(pd.constant(np.ones((2, 3))), 0.5, noise_shape=(2, 2))",
        "pd.random.dropout(pd.constant(np.ones((2, 3), np.int64)), 0.5)",
        "pd.random.SeedGenerator(2**63)", "pd.random.SeedGenerator('a')",
        "pd.random.normal((None, 3), like=pd.data('x', [None, 3, 1]))",
        "pd.random.shuffle(pd.constant(np.ones((2, 3))), axis=2)",
        "pd.random.shuffle(pd.constant(1.0))", "pd.random.shuffle(pd.constant(np.ones(3)), axis='0')",
    ]:
        case("catalog.random", call[10:60], call,
             ["pd.random", "SeedGenerator", "shape", "seed", "dtype"])
    # pd.utils
    for call in [
        "pd.utils.to_categorical([0, 3], num_classes=3)", "pd.utils.to_categorical([-1])",
        "pd.utils.to_categorical([0.5])", "pd.utils.to_categorical(['a'])",
        "pd.utils.to_categorical([0], num_classes=0)", "pd.utils.to_categorical([[0], [1, 2]])",
        "pd.utils.pad_sequences(3)", "pd.utils.pad_sequences([[1], 2])",
        "pd.utils.pad_sequences([[1, 2]], padding='middle')",
        "pd.utils.pad_sequences([[1, 2]], maxlen=-1)",
        "pd.utils.pad_sequences([[1, 2]], value='x')",
        "pd.utils.pad_sequences([np.ones((1, 3)), np.ones((1, 2))])",
        "pd.utils.pad_sequences([[1]], dtype='nope')",
        "pd.utils.normalize(np.ones((2, 2)), axis=3)", "pd.utils.normalize(np.ones(2), order=0)",
        "pd.utils.normalize(np.array(['a']))",
        "pd.utils.set_random_seed(-1)", "pd.utils.set_random_seed(1.5)",
        "pd.utils.PyDataset(workers=0)", "pd.utils.PyDataset(max_queue_size='2')",
    ]:
        case("catalog.utils", call[9:60], call,
             ["to_categorical", "pad_sequences", "normalize", "set_random_seed", "PyDataset"])
    case(
        "catalog.utils",
        "fit-on-a-bad-pydataset",
        """
        class Bad(pd.utils.PyDataset):
            def __len__(self):
                return -3
            def __getitem__(self, i):
                return rnd(2, 3), rnd(2, 1)
        model = pd.Sequential([pd.layers.Input(shape=(3,)), pd.layers.Dense(1)])
        model.compile("sgd", "mse")
        model.fit(Bad(), verbose=0)""",
        ["Bad", "__len__", "batches"],
    )
    # optimizers and schedules
    for opt, kw in [
        ("SGD", "clipnorm=1.0, global_clipnorm=1.0"), ("Adam", "clipvalue=-1.0"),
        ("Adam", "global_clipnorm=float('nan')"), ("RMSprop", "weight_decay=-0.1"),
        ("RMSprop", "centered='yes'"), ("Adamax", "beta_1=1.0"), ("Nadam", "epsilon=0"),
        ("Lion", "beta_1=0.0"), ("Lion", "beta_2=1.5"), ("Ftrl", "learning_rate_power=0.5"),
        ("Ftrl", "l1_regularization_strength=-1"), ("Ftrl", "learning_rate=0.0"),
        ("AdamW", "weight_decay=None"), ("Nadam", "weight_decay='a'"),
        ("Adafactor", "beta_2_decay=0.5"), ("Adafactor", "epsilon_2=0"),
        ("Adafactor", "clip_threshold=float('inf')"), ("Muon", "ns_steps=-1"),
        ("Muon", "rms_rate=float('nan')"), ("Muon", "exclude_layers='dense'"),
        ("ScheduleFreeAdamW", "beta_1=0.0"), ("ScheduleFreeAdamW", "warmup_steps=-2"),
    ]:
        case(
            "catalog.optimizers",
            f"{opt}({kw})",
            f"""
            v = pd.Variable("v", [2], initializer="ones")
            up = pd.optimizers.{opt}({kw}).minimize(pd.sum(v * v), var_list=[v])
            for _ in range(3):
                pd.eval(up)
            finite(v.val(), "parameter after steps")""",
            [opt, kw.split("=")[0], "learning rate"],
        )
    for sched in [
        "PolynomialDecay(0.1, decay_steps=0)", "PolynomialDecay(0.1, 10, power=-1)",
        "InverseTimeDecay(0.1, 0, 0.5)", "InverseTimeDecay(0.1, 2, -0.5)",
        "CosineDecay(0.1, 10, warmup_steps=-1)", "CosineDecay(0.1, 10, warmup_target='a')",
        "CosineDecayRestarts(0.1, 0)", "CosineDecayRestarts(0.1, 5, t_mul=0)",
        "CosineDecayRestarts(0.1, 5, m_mul=float('nan'))",
    ]:
        case("catalog.optimizers", sched, f"pd.optimizers.schedules.{sched}",
             [sched.split("(")[0]])
    # metrics and losses
    for call in [
        "pd.metrics.Precision(thresholds=1.5)", "pd.metrics.Recall(top_k=0)",
        "pd.metrics.Recall(class_id=-1)", "pd.metrics.F1Score(average='mean')",
        "pd.metrics.FBetaScore(beta=0)", "pd.metrics.AUC(num_thresholds=1)",
        "pd.metrics.AUC(curve='roc')", "pd.metrics.AUC(summation_method='x')",
        "pd.metrics.AUC(thresholds=[0.5, 2.0])", "pd.metrics.CosineSimilarity(axis=None)",
        "pd.losses.CosineSimilarity(axis='a')", "pd.losses.KLDivergence(reduction='mean')",
        "pd.metrics.F1Score().update_state(np.ones(4), np.ones(4))",
        "pd.metrics.Precision(class_id=5).update_state(np.ones((2, 3)), np.ones((2, 3)))",
        "pd.losses.poisson(np.ones((2, 3)), np.ones((2, 4)))",
        "pd.metrics.AUC().update_state(np.ones((2, 3)), np.ones((2, 4)))",
        "pd.losses.BinaryFocalCrossentropy(gamma=-1)",
        "pd.losses.CategoricalFocalCrossentropy(alpha=float('nan'))",
        "pd.losses.Dice(axis='all')", "pd.losses.Tversky(beta=-1)",
        "pd.losses.Hinge(reduction='mean')", "pd.losses.CategoricalGeneralizedCrossEntropy(q=0)",
        "pd.losses.categorical_generalized_cross_entropy(np.zeros((2, 3)), np.ones((2, 3)), 0.5)",
        "pd.losses.deserialize({'config': {}})", "pd.metrics.deserialize(3)",
        "pd.losses.dice(np.ones((2, 3)), np.ones((2, 3)), axis=5)",
        "pd.losses.categorical_hinge(np.ones((2, 3)), np.ones((2, 4)))",
        "pd.losses.binary_focal_crossentropy(np.ones((2, 3)), np.ones((2, 3), np.int64))",
        "pd.metrics.R2Score(class_aggregation='mean')", "pd.metrics.R2Score(num_regressors=-1)",
        "pd.metrics.R2Score().update_state(np.ones(4), np.ones(4))",
        "pd.metrics.PearsonCorrelation(axis='x')",
        "pd.metrics.BinaryCrossentropy(label_smoothing=2)",
        "pd.metrics.Hinge().update_state(np.ones((2, 3)), np.ones((2, 4)))",
        "pd.metrics.TruePositives(thresholds=[0.5, 1.5])",
        "pd.metrics.FalseNegatives(thresholds=[])",
        "pd.metrics.PrecisionAtRecall(1.5)", "pd.metrics.RecallAtPrecision(0.5, num_thresholds=0)",
        "pd.metrics.SensitivityAtSpecificity(0.5, class_id=7).update_state(np.ones((2, 3)), np.ones((2, 3)))",
        "pd.metrics.IoU(num_classes=3, target_class_ids=[3])", "pd.metrics.MeanIoU(num_classes=0)",
        "pd.metrics.MeanIoU(num_classes=2, ignore_class='void')",
        "pd.metrics.BinaryIoU(threshold=None)",
        "pd.metrics.MeanIoU(num_classes=2).update_state(np.zeros(4), np.zeros(6))",
        "pd.metrics.OneHotMeanIoU(num_classes=2, axis=3).update_state(np.eye(2), np.eye(2))",
    ]:
        name = call.split("(")[0].split(".")[-1]
        case("catalog.metrics", call[3:60], call, [name, snake(name), "auc", "f1_score"])
    # class ids outside [0, num_classes) leave the counts, as Keras: no error, a right result
    case("catalog.metrics", "MeanIoU-ids-out-of-range", """
        m = pd.metrics.MeanIoU(num_classes=3)
        m.update_state(np.array([-5, 9, 1, 2]), np.array([1e9, -1, 1, 0]))
        check(m.total_cm.sum() == 2 and m.total_cm[1, 1] == 1 and m.total_cm[2, 0] == 1,
              "only the in-range pairs counted")
        check(abs(m.result() - 1.0 / 3.0) < 1e-6, "the mean IoU of the counted pairs")""",
         ["MeanIoU"], expect="ok")


def activation_cases():
    """pd.activations' newer functions with bad arguments and inputs: each error names the
    function, the argument and the value."""
    for call in [
        "pd.activations.celu(np.ones(3, np.float32), alpha=0)",
        "pd.activations.celu(np.ones(3, np.float32), alpha=float('nan'))",
        "pd.activations.hard_shrink(np.ones(3, np.float32), threshold=-1)",
        "pd.activations.soft_shrink(np.ones(3, np.float32), threshold='a')",
        "pd.activations.squareplus(np.ones(3, np.float32), b=-4)",
        "pd.activations.threshold(np.ones(3, np.float32), 0.5, None)",
        "pd.activations.glu(np.ones(3, np.float32))",
        "pd.activations.glu(np.ones((2, 4), np.float32), axis=2)",
        "pd.activations.sparsemax(np.ones(3, np.float32), axis=True)",
        "pd.activations.sparse_plus(np.arange(3))",
    ]:
        name = call.split("(")[0].split(".")[-1]
        case("catalog.activations", call[15:60], call, [name])
