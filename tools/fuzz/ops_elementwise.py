"""Areas ops.unary and ops.binary: the element-wise ops of paddle.lowlevel.ops with
bad arrays, dtypes, shapes and arguments."""

from .core import NOT_ARRAYS, case


def lowlevel_unary_cases():
    ops = [
        "neg",
        "abs",
        "exp",
        "log",
        "log1p",
        "sqrt",
        "square",
        "sign",
        "relu",
        "sigmoid",
        "tanh",
        "erf",
        "elu",
        "gelu",
        "leaky_relu",
        "silu",
        "softplus",
        "softmax",
        "log_softmax",
        "ones_like",
        "zeros_like",
    ]
    ref = {
        "neg": "-a",
        "abs": "np.abs(a)",
        "exp": "np.exp(a)",
        "log": "np.log(np.abs(a) + 1)",
        "log1p": "np.log1p(np.abs(a))",
        "sqrt": "np.sqrt(np.abs(a))",
        "square": "a * a",
        "sign": "np.sign(a)",
        "relu": "np.maximum(a, 0)",
        "sigmoid": "1 / (1 + np.exp(-a))",
        "tanh": "np.tanh(a)",
        "softplus": "np.logaddexp(0, a)",
        "silu": "a / (1 + np.exp(-a))",
        "softmax": "np.exp(a) / np.exp(a).sum(-1, keepdims=True)",
        "log_softmax": "a - np.log(np.exp(a).sum(-1, keepdims=True))",
        "ones_like": "np.ones_like(a)",
        "zeros_like": "np.zeros_like(a)",
    }
    for op in ops:
        for label, value in NOT_ARRAYS.items():
            case("ops.unary", f"{op}-{label}", f"pd.{op}({value})", op)
        case("ops.unary", f"{op}-ragged", f"pd.{op}([[1.0], [1.0, 2.0]])", op)
        case(
            "ops.unary",
            f"{op}-bool",
            f"""
            x = pd.data("x", [None, 3], "bool")
            pd.eval(pd.{op}(x), {{x: np.ones((2, 3), bool)}})""",
            [op, "bool"],
            "error" if op not in ("ones_like", "zeros_like") else "either",
        )
        case(
            "ops.unary",
            f"{op}-int64",
            f"""
            x = pd.data("x", [None, 3], "int64")
            r = pd.eval(pd.{op}(x), {{x: np.arange(6).reshape(2, 3) - 2}})
            check(r.dtype == np.int64, "dtype " + str(r.dtype))""",
            [op, "int"],
            "either",
        )
        if op in ref:
            case(
                "ops.unary",
                f"{op}-float64-noncontiguous",
                f"""
                a = rnd(4, 6, dtype="float64")[:, ::2]
                x = pd.data("x", [None, 3], "float64")
                r = pd.eval(pd.{op}({'pd.abs(x) + 1.0' if op == 'log' else
                                     'pd.abs(x)' if op in ('log1p', 'sqrt') else 'x'}), {{x: a}})
                close(r, {ref[op]})""",
                op,
                "ok",
            )
        case(
            "ops.unary",
            f"{op}-zero-size",
            f"""
            x = pd.data("x", [None, 3])
            r = pd.eval(pd.{op}(x), {{x: np.zeros((0, 3), np.float32)}})
            check(r.shape == (0, 3), "shape " + str(r.shape))""",
            op,
            "either",
        )
        case(
            "ops.unary",
            f"{op}-nan-inf",
            f"""
            a = np.array([[np.nan, np.inf, -np.inf, 0.0]], np.float32)
            x = pd.data("x", [None, 4])
            r = pd.eval(pd.{op}(x), {{x: a}})
            check(r.shape == (1, 4), "shape")""",
            op,
            "either",
        )
        case(
            "ops.unary",
            f"{op}-rank0",
            f"""
            r = pd.eval(pd.{op}(pd.constant(0.5)))
            check(np.shape(r) == (), "shape " + str(np.shape(r)))""",
            op,
            "either",
        )
    for op in ("softmax", "log_softmax"):
        for label, axis in {
            "axis-out": 5,
            "axis-float": 1.0,
            "axis-str": "'a'",
            "axis-none": None,
            "axis-bool": True,
            "axis-list": [0, 1],
        }.items():
            case(
                "ops.unary",
                f"{op}-{label}",
                f"""
                x = pd.data("x", [None, 3])
                pd.eval(pd.{op}(x, axis={axis!r}), {{x: np.ones((2, 3), np.float32)}})""",
                [op, "axis"],
            )
        case(
            "ops.unary",
            f"{op}-empty-class-axis",
            f"""
            x = pd.data("x", [None, None])
            pd.eval(pd.{op}(x), {{x: np.ones((2, 0), np.float32)}})""",
            op,
        )
    case(
        "ops.unary",
        "softmax-large-values",
        """
        a = np.array([[1e30, -1e30, 0.0], [88.0, 89.0, 90.0]], np.float32)
        r = pd.eval(pd.softmax(pd.constant(a)))
        finite(r)
        close(r.sum(-1), np.ones(2))""",
        "softmax",
        "ok",
    )
    case(
        "ops.unary", "leaky_relu-slope-str", "pd.leaky_relu(pd.constant([1.0]), 'a')", "leaky_relu"
    )
    case("ops.unary", "elu-alpha-none", "pd.eval(pd.elu(pd.constant([-1.0]), None))", "elu")


def lowlevel_binary_cases():
    ops = [
        "add",
        "sub",
        "mul",
        "div",
        "pow",
        "maximum",
        "minimum",
        "greater",
        "greater_equal",
        "less",
        "less_equal",
        "equal",
        "not_equal",
    ]
    ref = {
        "add": "a + b",
        "sub": "a - b",
        "mul": "a * b",
        "div": "a / b",
        "pow": "np.abs(a) ** b",
        "maximum": "np.maximum(a, b)",
        "minimum": "np.minimum(a, b)",
        "greater": "a > b",
        "greater_equal": "a >= b",
        "less": "a < b",
        "less_equal": "a <= b",
        "equal": "a == b",
        "not_equal": "a != b",
    }
    for op in ops:
        case(
            "ops.binary", f"{op}-shapes", f"pd.{op}(pd.data('a', [None, 3]), pd.data('b', [4]))", op
        )
        case(
            "ops.binary",
            f"{op}-fed-shapes",
            f"""
            a, b = pd.data("a", [None, 3]), pd.data("b", [None, 3])
            pd.eval(pd.{op}(a, b), {{a: np.ones((2, 3), np.float32), b: np.ones((5, 3), np.float32)}})""",
            [op, "broadcast"],
        )
        case(
            "ops.binary",
            f"{op}-int-float",
            f"""
            pd.{op}(pd.data('a', [3], 'int64'), pd.data('b', [3]))""",
            [op, "dtype"],
        )
        case(
            "ops.binary",
            f"{op}-float32-float64",
            f"""
            pd.{op}(pd.data('a', [3], 'float64'), pd.data('b', [3]))""",
            [op, "dtype"],
        )
        compare = op in ("greater", "greater_equal", "less", "less_equal", "equal", "not_equal")
        case(
            "ops.binary",
            f"{op}-bool",
            f"""
            a, b = pd.data('a', [4], 'bool'), pd.data('b', [4], 'bool')
            u, v = np.array([0, 0, 1, 1], bool), np.array([0, 1, 0, 1], bool)
            r = pd.eval(pd.{op}(a, b), {{a: u, b: v}})
            a, b = u, v
            close(r, {ref[op]})""",
            [op, "bool"],
            "either" if compare else "error",
        )
        case("ops.binary", f"{op}-none", f"pd.{op}(pd.data('a', [3]), None)", op)
        case("ops.binary", f"{op}-str", f"pd.{op}(pd.data('a', [3]), 'x')", op)
        case(
            "ops.binary",
            f"{op}-int-scalar-float",
            f"""
            a = pd.data('a', [3], 'int64')
            r = pd.eval(pd.{op}(a, 2.5), {{a: np.array([1, 2, 3])}})
            a, b = np.array([1, 2, 3]), 2.5
            close(r, {ref[op]})""",
            [op, "dtype", "float"],
            "either",
        )
        case(
            "ops.binary",
            f"{op}-broadcast-values",
            f"""
            a, b = rnd(2, 1, 3, dtype="float64"), rnd(4, 1, seed=1, dtype="float64")
            x, y = pd.data("x", [None, 1, 3], "float64"), pd.data("y", [4, 1], "float64")
            lhs = pd.abs(x) if "{op}" == "pow" else x
            r = pd.eval(pd.{op}(lhs, y), {{x: a, y: b}})
            close(r, {ref[op]})""",
            op,
            "ok",
        )
    case(
        "ops.binary",
        "div-int",
        """
        a = pd.data('a', [3], 'int64')
        pd.eval(a / a, {a: np.array([1, 0, 3])})""",
        ["div", "float"],
    )
    case("ops.binary", "where-cond-float", "pd.where(pd.constant([1.0]), 1.0, 2.0)", "where")
    case(
        "ops.binary",
        "where-shapes",
        """
        pd.where(pd.constant([True, False]), pd.constant([1.0, 2.0, 3.0]), 0.0)""",
        "where",
    )
    case(
        "ops.binary",
        "where-fed-cond",
        """
        c, x = pd.data("c", [None], "bool"), pd.data("x", [None])
        pd.eval(pd.where(c, x, 0.0), {c: np.array([True, False]), x: np.ones(3, np.float32)})""",
        "where",
    )
    case(
        "ops.binary",
        "clip-min-above-max",
        """
        r = pd.eval(pd.clip(pd.constant([0.0, 5.0, 10.0]), 6.0, 4.0))""",
        "clip",
        "either",
    )
    for dt in ("'float16'", "'complex64'", "'str'", "object", "None", "'int8'", "'uint8'"):
        case("ops.binary", f"cast-{dt}", f"pd.cast(pd.constant([1.0]), {dt})", "cast")
    case(
        "ops.binary",
        "cast-nan-to-int",
        """
        x = pd.data("x", [None])
        r = pd.eval(pd.cast(x, "int64"), {x: np.array([np.nan, np.inf, 1e30], np.float32)})""",
        "cast",
        "either",
    )
    case(
        "ops.binary",
        "cast-float-to-bool",
        """
        r = pd.eval(pd.cast(pd.constant([0.0, 0.5, -1.0, np.nan]), "bool"))
        close(r, np.array([0.0, 0.5, -1.0, np.nan]).astype(bool))""",
        "cast",
        "ok",
    )
    case(
        "ops.binary",
        "cast-int64-to-int32-overflow",
        """
        x = pd.data("x", [None], "int64")
        r = pd.eval(pd.cast(x, "int32"), {x: np.array([2**40, -2**40])})""",
        "cast",
        "either",
    )
