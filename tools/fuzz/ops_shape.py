"""Area ops.shape: reshape, transpose, concat, slicing, gather and the other shape ops."""

from .core import case


def lowlevel_shape_cases():
    x = "pd.data('x', [None, 2, 3])"
    bad_reshape = {
        "two-unknown": "[-1, -1]",
        "minus-two": "[-2, 3]",
        "float": "[1.5, 4]",
        "str": "'abc'",
        "none": "None",
        "size": "[5, 5]",
        "zero-infer": "[0, -1]",
        "huge": "[2**62, 2**62]",
        "bool": "[True, 6]",
        "nested": "[[2], 3]",
        "int-not-list": "7",
    }
    for label, shape in bad_reshape.items():
        case(
            "ops.shape",
            f"reshape-{label}",
            f"""
            x = {x}
            pd.eval(pd.reshape(x, {shape}), {{x: np.ones((4, 2, 3), np.float32)}})""",
            "reshape",
        )
    case(
        "ops.shape",
        "reshape-fed-mismatch",
        """
        x = pd.data("x", [None, 5])
        pd.eval(pd.reshape(x, [-1, 2]), {x: np.ones((3, 5), np.float32)})""",
        "reshape",
    )
    case(
        "ops.shape",
        "reshape-wrap-overflow",
        """
        x = pd.data("x", [None])
        y = pd.reshape(x, [2**32, 2**32])
        pd.eval(y, {x: np.ones(0, np.float32)})""",
        "reshape",
    )
    bad_perm = {
        "repeat": "[0, 0, 1]",
        "out": "[0, 1, 3]",
        "short": "[1, 0]",
        "float": "[0.0, 2, 1]",
        "str": "'abc'",
        "neg": "[-1, 0, 1]",
        "none-item": "[None, 0, 1]",
    }
    for label, perm in bad_perm.items():
        case("ops.shape", f"transpose-{label}", f"pd.transpose({x}, {perm})", "transpose")
    case(
        "ops.shape",
        "transpose-rank0",
        "pd.eval(pd.transpose(pd.constant(1.0)))",
        "transpose",
        "either",
    )
    case("ops.shape", "concat-empty", "pd.concat([])", "concat")
    case(
        "ops.shape",
        "concat-shapes",
        "pd.concat([pd.data('a', [2, 3]), pd.data('b', [2, 4])], 0)",
        "concat",
    )
    case(
        "ops.shape",
        "concat-ranks",
        "pd.concat([pd.data('a', [2, 3]), pd.data('b', [2])], 0)",
        "concat",
    )
    case(
        "ops.shape",
        "concat-dtypes",
        "pd.concat([pd.data('a', [2]), pd.data('b', [2], 'int64')])",
        "concat",
    )
    case(
        "ops.shape", "concat-axis", "pd.concat([pd.data('a', [2]), pd.data('b', [2])], 1)", "concat"
    )
    case(
        "ops.shape",
        "concat-axis-float",
        "pd.concat([pd.data('a', [2]), pd.data('b', [2])], 0.0)",
        "concat",
    )
    case("ops.shape", "concat-not-list", "pd.concat(pd.data('a', [2]))", "concat")
    case(
        "ops.shape",
        "concat-fed-mismatch",
        """
        a, b = pd.data("a", [None, 3]), pd.data("b", [None, 3])
        pd.eval(pd.concat([a, b], 1), {a: np.ones((2, 3), np.float32), b: np.ones((4, 3), np.float32)})""",
        "concat",
    )
    case("ops.shape", "concat-rank0", "pd.concat([pd.constant(1.0), pd.constant(2.0)])", "concat")
    case(
        "ops.shape",
        "concat-values-zero",
        """
        a, b = rnd(2, 0), rnd(2, 3)
        close(pd.eval(pd.concat([pd.constant(a), pd.constant(b)], 1)), np.concatenate([a, b], 1))""",
        "concat",
        "ok",
    )
    for label, arg in {
        "zero": "0",
        "neg": "-2",
        "uneven": "4",
        "float": "1.5",
        "sizes-sum": "[1, 1]",
        "sizes-neg": "[-1, 4]",
        "sizes-float": "[1.5, 1.5]",
        "none": "None",
        "str": "'ab'",
        "bool": "True",
    }.items():
        case(
            "ops.shape",
            f"split-{label}",
            f"""
            x = pd.data("x", [None, 3])
            pd.eval(pd.split(x, {arg}, axis=1), {{x: np.ones((2, 3), np.float32)}})""",
            "split",
        )
    case("ops.shape", "split-axis", "pd.split(pd.data('x', [2, 2]), 2, axis=5)", "split")
    case("ops.shape", "split-unknown-axis", "pd.split(pd.data('x', [None, 2]), 2, axis=0)", "split")
    case(
        "ops.shape",
        "stack-shapes",
        "pd.stack([pd.data('a', [2]), pd.data('b', [3])])",
        ["stack", "concat"],
    )
    case(
        "ops.shape",
        "stack-axis",
        "pd.stack([pd.data('a', [2]), pd.data('b', [2])], axis=3)",
        ["stack", "axis", "expand_dims"],
    )
    case("ops.shape", "stack-empty", "pd.stack([])", "stack")
    for label, (begin, size) in {
        "neg-begin": ([-1, 0], [1, 1]),
        "size-big": ([0, 0], [3, 4]),
        "short": ([0], [1]),
        "size-neg": ([0, 0], [-2, 1]),
        "float": ([0.5, 0], [1, 1]),
        "none": (None, None),
        "huge": ([0, 0], [2**62, 1]),
        "str": ("ab", "cd"),
    }.items():
        case(
            "ops.shape",
            f"slice-{label}",
            f"""
            x = pd.data("x", [2, 3])
            pd.eval(pd.slice(x, {begin!r}, {size!r}), {{x: np.ones((2, 3), np.float32)}})""",
            "slice",
        )
    case(
        "ops.shape",
        "slice-fed-too-small",
        """
        x = pd.data("x", [None, 3])
        pd.eval(pd.slice(x, [3, 0], [2, 3]), {x: np.ones((2, 3), np.float32)})""",
        "slice",
    )
    for label, key in {
        "step0": "x[::0]",
        "index-out": "x[5]",
        "index-fed-out": "x[:, 7]",
        "too-many": "x[0, 0, 0, 0]",
        "float": "x[1.5]",
        "none": "x[None]",
        "list": "x[[0, 1]]",
        "bool": "x[True]",
        "str": "x['a']",
        "two-ellipsis": "x[..., ...]",
        "array": "x[np.array([0, 1])]",
        "var": "x[x]",
        "slice-float": "x[0.5:2]",
        "huge": "x[2**70]",
        "neg-out": "x[-9]",
    }.items():
        case(
            "ops.shape",
            f"getitem-{label}",
            f"""
            x = pd.data("x", [None, 3])
            pd.eval({key}, {{x: np.ones((4, 3), np.float32)}})""",
            ["slice", "index"],
        )
    for label, key, ref in [
        ("neg-step", "[::-1]", "[::-1]"),
        ("neg-step-2", "[::-2, 1:]", "[::-2, 1:]"),
        ("ellipsis", "[..., 1]", "[..., 1]"),
        ("neg-index", "[-1]", "[-1]"),
        ("empty", "[3:1]", "[3:1]"),
        ("big-stop", "[1:100]", "[1:100]"),
        ("neg-start-big", "[-100:2]", "[-100:2]"),
        ("step-big", "[::7]", "[::7]"),
        ("np-int", "[np.int64(2)]", "[2]"),
    ]:
        case(
            "ops.shape",
            f"getitem-values-{label}",
            f"""
            a = rnd(4, 3)
            x = pd.data("x", [None, 3])
            close(pd.eval(x{key}, {{x: a}}), a{ref})""",
            ["slice", "index"],
            "either",
        )
    for label, (idx, axis) in {
        "out": ("[0, 5]", 0),
        "neg": ("[-1]", 0),
        "float": ("[0.5]", 0),
        "axis": ("[0]", 3),
        "axis-float": ("[0]", 0.0),
        "bool": ("[True]", 0),
        "huge": ("[2**62]", 0),
    }.items():
        case(
            "ops.shape",
            f"gather-{label}",
            f"""
            x = pd.data("x", [None, 3])
            pd.eval(pd.gather(x, np.array({idx}), axis={axis!r}), {{x: np.ones((4, 3), np.float32)}})""",
            "gather",
        )
    case(
        "ops.shape",
        "gather-fed-out",
        """
        x, i = pd.data("x", [None, 3]), pd.data("i", [None], "int64")
        pd.eval(pd.gather(x, i), {x: np.ones((2, 3), np.float32), i: np.array([0, 2])})""",
        "gather",
    )
    case(
        "ops.shape",
        "gather-empty-table",
        """
        x, i = pd.data("x", [None, 3]), pd.data("i", [None], "int64")
        pd.eval(pd.gather(x, i), {x: np.ones((0, 3), np.float32), i: np.array([0])})""",
        "gather",
    )
    case(
        "ops.shape",
        "gather-grad-values",
        """
        x = pd.Variable("gx", [4, 2], initializer="ones")
        i = pd.constant(np.array([0, 0, 3]))
        g, = pd.gradients(pd.sum(pd.gather(x, i)), [x])
        close(pd.eval(g), np.array([[2, 2], [0, 0], [0, 0], [1, 1]], np.float32))""",
        "gather",
        "ok",
    )
    for label, depth in {
        "zero": "0",
        "neg": "-1",
        "float": "2.5",
        "bool": "True",
        "none": "None",
        "huge": "2**40",
        "huger": "2**62",
        "str": "'3'",
    }.items():
        case(
            "ops.shape",
            f"one_hot-depth-{label}",
            f"""
            pd.eval(pd.one_hot(pd.constant(np.array([0, 1])), {depth}))""",
            "one_hot",
        )
    case(
        "ops.shape",
        "one_hot-index-out",
        "pd.eval(pd.one_hot(pd.constant(np.array([0, 3])), 3))",
        "one_hot",
    )
    case(
        "ops.shape",
        "one_hot-index-neg",
        "pd.eval(pd.one_hot(pd.constant(np.array([-1])), 3))",
        "one_hot",
    )
    case("ops.shape", "one_hot-float-ids", "pd.one_hot(pd.constant([0.0, 1.0]), 3)", "one_hot")
    case(
        "ops.shape",
        "one_hot-dtype-bool",
        "pd.one_hot(pd.constant(np.array([0])), 3, 'bool')",
        "one_hot",
    )
    for label, pads in {
        "neg": "[(-1, 0), (0, 0)]",
        "count": "[(1, 1)]",
        "float": "[(0.5, 0), (0, 0)]",
        "huge": "[(2**40, 0), (0, 0)]",
        "huger": "[(2**62, 2**62), (0, 0)]",
        "none": "None",
        "triple": "[(0, 0, 0), (0, 0)]",
        "str": "'ab'",
    }.items():
        case(
            "ops.shape",
            f"pad-{label}",
            f"""
            x = pd.data("x", [None, 3])
            pd.eval(pd.pad(x, {pads}), {{x: np.ones((2, 3), np.float32)}})""",
            "pad",
        )
    case("ops.shape", "pad-value-str", "pd.pad(pd.data('x', [2]), [(1, 1)], 'a')", "pad")
    case(
        "ops.shape",
        "pad-values-zero-size",
        """
        a = np.zeros((0, 3), np.float32)
        close(pd.eval(pd.pad(pd.constant(a), [(1, 0), (0, 2)], 7.0)), np.pad(a, [(1, 0), (0, 2)],
              constant_values=7.0))""",
        "pad",
        "ok",
    )
    case("ops.shape", "squeeze-non1", "pd.squeeze(pd.data('x', [2, 3]), 0)", "squeeze")
    case("ops.shape", "squeeze-axis-out", "pd.squeeze(pd.data('x', [1, 3]), 4)", "squeeze")
    case("ops.shape", "squeeze-axis-float", "pd.squeeze(pd.data('x', [1, 3]), 0.0)", "squeeze")
    case(
        "ops.shape",
        "squeeze-fed-non1",
        """
        x = pd.data("x", [None, 3])
        pd.eval(pd.squeeze(x, 0), {x: np.ones((2, 3), np.float32)})""",
        "squeeze",
    )
    case("ops.shape", "squeeze-none-unknown", "pd.squeeze(pd.data('x', [None, 1]))", "squeeze")
    case("ops.shape", "expand_dims-out", "pd.expand_dims(pd.data('x', [2]), 3)", "expand_dims")
    case("ops.shape", "expand_dims-float", "pd.expand_dims(pd.data('x', [2]), 0.5)", "expand_dims")
    case("ops.shape", "flatten-rank0", "pd.flatten(pd.constant(1.0))", "flatten")
    case(
        "ops.shape",
        "flatten-zero",
        """
        x = pd.data("x", [None, 0, 3])
        r = pd.eval(pd.flatten(x), {x: np.ones((2, 0, 3), np.float32)})
        check(r.shape == (2, 0), str(r.shape))""",
        "flatten",
        "ok",
    )


def complex_cases():
    """view (bitcast), view_as_complex, polar and eig given wrong dtypes and shapes, and
    complex values given to ops that do not take them."""
    z = "pd.ops.view_as_complex(np.ones((3, 2), np.float32))"
    bad = {
        "view-indivisible": ("pd.ops.view(np.ones(3, np.int32), 'int64')", "view"),
        "view-scalar": ("pd.ops.view(np.float32(1), 'float64')", "view"),
        "view-bool": ("pd.ops.view(np.ones(2, np.int32), 'bool')", "view"),
        "view-dtype-str": ("pd.ops.view(np.ones(2, np.int32), 'abc')", "view"),
        "view-dtype-obj": ("pd.ops.view(np.ones(2, np.int32), object())", "view"),
        "view-fed-indivisible": ("""
            x = pd.data('x', [None], 'int32')
            pd.eval(pd.ops.view(x, 'int64'), {x: np.ones(3, np.int32)})""", "bitcast"),
        "view_as_complex-last": ("pd.ops.view_as_complex(np.ones((2, 3)))", "view_as_complex"),
        "view_as_complex-complex": (f"pd.ops.view_as_complex({z})", "view_as_complex"),
        "polar-complex": (f"pd.ops.polar({z}, 1.0)", "polar"),
        "eig-square": ("pd.ops.eig(np.ones((2, 3)))", "eig"),
        "eig-rank": ("pd.ops.eig(np.ones(3))", "eig"),
        "eig-complex": ("pd.ops.eig(pd.ops.view_as_complex(np.ones((2, 2, 2), np.float32)))",
                        ["eig", "cast"]),
        "complex-add": (f"{z} + {z}", "add"),
        "complex-sum": (f"pd.ops.sum({z})", "sum"),
        "complex-matmul": (f"pd.ops.matmul({z}, {z})", "matmul"),
        "complex-cast": (f"pd.cast({z}, 'float32')", "cast"),
        "complex-feed-real": ("""
            x = pd.data('x', [2])
            pd.eval(x * 2.0, {x: np.array([1j, 2j])})""", "'x'"),
    }
    for label, (code, who) in bad.items():
        case("ops.complex", label, code, who)
