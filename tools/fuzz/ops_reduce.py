"""Areas ops.matmul, ops.reduce and ops.loss: matmul, the reductions and the loss ops."""

from .core import case


def lowlevel_matmul_reduce_cases():
    mm = [
        ("rank0", "pd.constant(1.0)", "pd.constant([1.0])"),
        ("inner", "pd.data('a', [None, 3])", "pd.data('b', [4, 2])"),
        ("int", "pd.data('a', [2, 3], 'int64')", "pd.data('b', [3, 2], 'int64')"),
        ("mixed", "pd.data('a', [2, 3], 'float64')", "pd.data('b', [3, 2])"),
        ("batch", "pd.data('a', [2, 2, 3])", "pd.data('b', [3, 3, 2])"),
        ("none", "pd.data('a', [2, 3])", "None"),
        ("str", "pd.data('a', [2, 3])", "'w'"),
    ]
    for label, a, b in mm:
        case("ops.matmul", label, f"pd.matmul({a}, {b})", "matmul")
    case(
        "ops.matmul",
        "fed-inner",
        """
        a, b = pd.data("a", [None, None]), pd.data("b", [None, None])
        pd.eval(pd.matmul(a, b), {a: np.ones((2, 3), np.float32), b: np.ones((4, 2), np.float32)})""",
        "matmul",
    )
    case(
        "ops.matmul",
        "fed-batch",
        """
        a, b = pd.data("a", [None, 2, 3]), pd.data("b", [None, 3, 2])
        pd.eval(a @ b, {a: np.ones((2, 2, 3), np.float32), b: np.ones((3, 3, 2), np.float32)})""",
        "matmul",
    )
    for label, sa, sb in [
        ("zero-k", (2, 0), (0, 4)),
        ("zero-m", (0, 3), (3, 4)),
        ("zero-batch", (0, 2, 3), (0, 3, 4)),
        ("vec-vec", (3,), (3,)),
        ("batched-zero-k", (5, 2, 0), (5, 0, 4)),
        ("broadcast", (2, 1, 2, 3), (4, 3, 5)),
        ("vec-mat", (3,), (2, 3, 4)),
    ]:
        case(
            "ops.matmul",
            f"values-{label}",
            f"""
            a, b = rnd(*{sa}), rnd(*{sb}, seed=1)
            close(pd.eval(pd.matmul(pd.constant(a), pd.constant(b))), a @ b)""",
            "matmul",
            "ok",
        )
    case(
        "ops.matmul",
        "transpose-noncontiguous-feed",
        """
        a = rnd(3, 4).T
        x = pd.data("x", [None, 3])
        close(pd.eval(pd.matmul(x, pd.constant(np.eye(3, dtype=np.float32))), {x: a}), a)""",
        "matmul",
        "ok",
    )
    case(
        "ops.matmul",
        "nan-inf",
        """
        a = np.array([[np.nan, 1.0], [np.inf, 0.0]], np.float32)
        r = pd.eval(pd.matmul(pd.constant(a), pd.constant(np.eye(2, dtype=np.float32))))""",
        "matmul",
        "either",
    )
    for op in ("sum", "mean", "max", "min", "argmax"):
        for label, axis in {
            "out-of-range": 3,
            "neg-out": -4,
            "float": 1.0,
            "bool": True,
            "str": "'x'",
            "repeated": (1, 1),
            "nested": [[0]],
        }.items():
            if op == "argmax" and label == "repeated":
                continue
            case(
                "ops.reduce",
                f"{op}-axis-{label}",
                f"pd.{op}(pd.data('x', [None, 3]), axis={axis!r})",
                [op, "axis"],
            )
        case(
            "ops.reduce",
            f"{op}-empty-axis-fed",
            f"""
            x = pd.data("x", [None, 3])
            r = pd.eval(pd.{op}(x, axis=0), {{x: np.zeros((0, 3), np.float32)}})
            check(r.shape == (3,), "shape")
            {'check(np.all(r == 0), "sum of nothing")' if op == 'sum' else
             'check(np.all(np.isnan(r)), "mean of nothing should be NaN (as NumPy)")'
             if op == 'mean' else ''}""",
            [op, "empty"],
            "either" if op in ("sum", "mean") else "error",
        )
        case(
            "ops.reduce",
            f"{op}-bool",
            f"""
            x = pd.data("x", [None], "bool")
            pd.eval(pd.{op}(x), {{x: np.ones(3, bool)}})""",
            [op, "bool"],
        )
        case(
            "ops.reduce",
            f"{op}-nan",
            f"""
            a = np.array([[1.0, np.nan, 3.0]], np.float32)
            r = pd.eval(pd.{op}(pd.constant(a), axis=-1))
            close(r, np.{op if op != 'argmax' else 'argmax'}(a, axis=-1))""",
            op,
            "ok",
        )
        case(
            "ops.reduce",
            f"{op}-int64-values",
            f"""
            a = np.array([[5, -2, 7], [1, 1, 0]])
            r = pd.eval(pd.{op}(pd.constant(a), axis=1))
            close(r, np.{op}(a, axis=1))""",
            [op, "float"],
            "either" if op == "mean" else "ok",
        )
        case(
            "ops.reduce",
            f"{op}-noncontiguous-axes",
            f"""
            a = rnd(2, 3, 4, 5, dtype="float64")
            r = pd.eval(pd.{op}(pd.constant(a, dtype="float64"), axis={'(0, 2)' if op != 'argmax' else 2}))
            close(r, np.{op}(a, axis={'(0, 2)' if op != 'argmax' else 2}))""",
            op,
            "ok",
        )
    case(
        "ops.reduce",
        "sum-keepdims-str",
        "pd.sum(pd.data('x', [2]), keepdims='no')",
        "sum",
        "either",
    )
    case(
        "ops.reduce",
        "argmax-axis-none-keepdims",
        """
        a = rnd(3, 4)
        r = pd.eval(pd.argmax(pd.constant(a), axis=None, keepdims=True))
        close(r, np.argmax(a, axis=None, keepdims=True))""",
        "argmax",
        "ok",
    )


def lowlevel_loss_cases():
    logits = "pd.data('logits', [None, 3])"
    feeds = "{lg: rnd(4, 3), lb: %s}"
    for label, labels in {
        "out-of-range": "np.array([0, 1, 3, 2])",
        "negative": "np.array([0, -1, 1, 2])",
        "batch-mismatch": "np.array([0, 1, 2])",
        "batch-of-one": "np.array([1])",
        "huge": "np.array([0, 1, 2**40, 0])",
    }.items():
        for op in ("softmax_cross_entropy", "cross_entropy", "accuracy"):
            case(
                "ops.loss",
                f"{op}-labels-{label}",
                f"""
                lg, lb = {logits}, pd.data("labels", [None], "int64")
                pd.eval(pd.{op}(lg, lb), {feeds % labels})""",
                [op, "softmax_cross_entropy", "in_top_k", "label", "labels"],
            )
    for op in ("softmax_cross_entropy", "cross_entropy", "accuracy"):
        case(
            "ops.loss",
            f"{op}-float-labels",
            f"pd.{op}({logits}, pd.data('l', [None]))",
            [op, "softmax_cross_entropy"],
        )
        case(
            "ops.loss",
            f"{op}-label-shape",
            f"pd.{op}({logits}, pd.data('l', [None, 2], 'int64'))",
            [op, "softmax_cross_entropy"],
        )
        case(
            "ops.loss",
            f"{op}-int-logits",
            f"pd.{op}(pd.data('lg', [None, 3], 'int64'), " "pd.data('l', [None], 'int64'))",
            [op, "float", "softmax_cross_entropy"],
        )
        case(
            "ops.loss",
            f"{op}-rank0-logits",
            f"pd.{op}(pd.constant(1.0), pd.constant(0))",
            [op, "softmax_cross_entropy"],
        )
        case(
            "ops.loss",
            f"{op}-none-labels",
            f"pd.{op}({logits}, None)",
            [op, "softmax_cross_entropy"],
        )
        case(
            "ops.loss",
            f"{op}-labels-n1",
            f"""
            lg, lb = {logits}, pd.data("labels", [None, 1], "int64")
            r = pd.eval(pd.{op}(lg, lb), {{lg: rnd(4, 3), lb: np.array([[0], [1], [2], [0]])}})
            finite(r)""",
            [op],
            "ok",
        )
        case(
            "ops.loss",
            f"{op}-zero-batch",
            f"""
            lg, lb = {logits}, pd.data("labels", [None], "int64")
            r = pd.eval(pd.{op}(lg, lb), {{lg: np.zeros((0, 3), np.float32), lb: np.zeros(0, np.int64)}})
            """,
            [op, "empty"],
            "either",
        )
    case(
        "ops.loss",
        "softmax_cross_entropy-values",
        """
        a, l = rnd(5, 4, dtype="float64") * 30, np.array([0, 3, 1, 2, 3])
        r = pd.eval(pd.softmax_cross_entropy(pd.constant(a, "float64"), pd.constant(l)))
        m = a.max(-1, keepdims=True)
        ref = (np.log(np.exp(a - m).sum(-1)) + m[:, 0]) - a[np.arange(5), l]
        close(r, ref)""",
        "softmax_cross_entropy",
        "ok",
    )
    case(
        "ops.loss",
        "softmax_cross_entropy-big-logits",
        """
        a = np.array([[1e30, 0.0, -1e30]], np.float32)
        r = pd.eval(pd.softmax_cross_entropy(pd.constant(a), pd.constant(np.array([1]))))
        finite(r)""",
        "softmax_cross_entropy",
        "ok",
    )
    for k in ("0", "-1", "1.5", "True", "None", "'2'", "5"):
        case(
            "ops.loss",
            f"accuracy-k-{k}",
            f"""
            lg, lb = {logits}, pd.data("labels", [None], "int64")
            r = pd.eval(pd.accuracy(lg, lb, k={k}), {{lg: rnd(4, 3), lb: np.array([0, 1, 2, 0])}})
            {'close(r, 1.0)' if k == '5' else ''}""",
            ["accuracy", "k"],
            "either" if k == "5" else "error",
        )
    case(
        "ops.loss",
        "accuracy-nan-scores",
        """
        r = pd.eval(pd.accuracy(pd.constant(np.full((2, 3), np.nan, np.float32)),
                                pd.constant(np.array([0, 1]))))""",
        "accuracy",
        "either",
    )
    for op in ("mse", "mae", "huber", "sigmoid_cross_entropy"):
        case(
            "ops.loss",
            f"{op}-shapes",
            f"pd.{op}(pd.data('a', [None, 3]), pd.data('b', [None, 4]))",
            [op, "broadcast", "sub", "mul", "where", "add"],
        )
        case(
            "ops.loss",
            f"{op}-fed-batch",
            f"""
            a, b = pd.data('a', [None, 3]), pd.data('b', [None, 3])
            pd.eval(pd.{op}(a, b), {{a: rnd(2, 3), b: rnd(3, 3)}})""",
            [op, "broadcast", "sub", "mul", "where", "add"],
        )
        case(
            "ops.loss",
            f"{op}-fed-one-target",
            f"""
            a, b = pd.data('a', [None, 3]), pd.data('b', [None, 3])
            pd.eval(pd.{op}(a, b), {{a: rnd(4, 3), b: rnd(1, 3)}})""",
            [op, "targets", "shape"],
        )
        case(
            "ops.loss",
            f"{op}-none",
            f"pd.{op}(pd.data('a', [None, 3]), None)",
            [op, "sub", "mul", "where"],
        )
        case(
            "ops.loss",
            f"{op}-str",
            f"pd.{op}(pd.data('a', [None, 3]), 'x')",
            [op, "sub", "mul", "where"],
        )
    case(
        "ops.loss",
        "huber-delta-neg",
        "pd.eval(pd.huber(pd.constant([1.0]), pd.constant([3.0]), -1.0))",
        "huber",
        "either",
    )
    case(
        "ops.loss",
        "cross_entropy-epsilon-str",
        """
        pd.cross_entropy(pd.constant([[0.5, 0.5]]), pd.constant(np.array([0])), 'e')""",
        ["cross_entropy", "clip", "epsilon"],
    )
