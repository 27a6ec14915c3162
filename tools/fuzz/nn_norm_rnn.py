"""Areas ops.norm, ops.nn and ops.rnn: normalization, embedding and the other nn ops,
and the recurrent kernels."""

from .core import Setup, case


def norm_cases():
    bn = Setup("""
        x = pd.data("x", [None, 4])
        mm = pd.Variable("mm", [4], initializer="zeros", trainable=False)
        mv = pd.Variable("mv", [4], initializer="ones", trainable=False)
    """)
    for label, kw in {
        "momentum-str": "momentum='a'",
        "momentum-neg": "momentum=-1.0",
        "momentum-big": "momentum=2.0",
        "momentum-nan": "momentum=float('nan')",
        "epsilon-neg": "epsilon=-1.0",
        "epsilon-nan": "epsilon=float('nan')",
        "epsilon-none": "epsilon=None",
        "axis-out": "axis=2",
        "axis-float": "axis=1.0",
        "axis-none": "axis=None",
        "epsilon-zero-const": "epsilon=0.0",
    }.items():
        # epsilon 0 over a constant input is 0 / 0: NaN is the right answer there
        expect = "either" if label == "epsilon-zero-const" else "error"
        case(
            "ops.norm",
            f"batch_norm-{label}",
            bn + f"""
        y = pd.batch_norm(x, None, None, mm, mv, {kw})
        r = pd.eval(y, {{x: np.ones((3, 4), np.float32)}}, training=True)
        {'finite(r)' if expect == 'error' else ''}
        finite(mm.val(), "moving mean"); finite(mv.val(), "moving variance")""",
            ["batch_norm", "momentum", "epsilon", "axis"],
            expect,
        )
    for label, arg in {
        "scale-shape": "pd.constant(np.ones(3, np.float32))",
        "scale-dtype": "pd.constant(np.ones(4), 'float64')",
        "scale-str": "'a'",
        "scale-rank": "pd.constant(np.ones((1, 4), np.float32))",
    }.items():
        case(
            "ops.norm",
            f"batch_norm-{label}",
            bn + f"""
        pd.batch_norm(x, {arg}, None, mm, mv)""",
            ["batch_norm", "scale"],
        )
    case(
        "ops.norm",
        "batch_norm-moving-const-train",
        """
        x = pd.data("x", [None, 2])
        c = pd.constant(np.zeros(2, np.float32))
        pd.eval(pd.batch_norm(x, None, None, c, c), {x: np.ones((3, 2), np.float32)}, training=True)""",
        ["batch_norm", "moving"],
    )
    case(
        "ops.norm",
        "batch_norm-moving-shape",
        """
        x = pd.data("x", [None, 4])
        pd.batch_norm(x, None, None, pd.Variable("mm", [3]), pd.Variable("mv", [4]))""",
        ["batch_norm", "moving_mean"],
    )
    case(
        "ops.norm",
        "batch_norm-int",
        """
        x = pd.data("x", [None, 4], "int64")
        pd.batch_norm(x, None, None, pd.Variable("mm", [4]), pd.Variable("mv", [4]))""",
        ["batch_norm", "float", "dtype"],
    )
    case(
        "ops.norm",
        "batch_norm-unknown-channels",
        """
        x = pd.data("x", [None, None])
        pd.batch_norm(x, None, None, pd.Variable("mm", [4]), pd.Variable("mv", [4]))""",
        ["batch_norm", "channel"],
    )
    case(
        "ops.norm",
        "batch_norm-fed-channels",
        """
        x = pd.data("x", [None, None])
        s = pd.constant(np.ones(4, np.float32))
        mm = pd.Variable("mm", [4], initializer="zeros", trainable=False)
        mv = pd.Variable("mv", [4], initializer="ones", trainable=False)
        pd.eval(pd.batch_norm(x, s, s, mm, mv), {x: np.ones((3, 5), np.float32)})""",
        "batch_norm",
    )
    case(
        "ops.norm",
        "batch_norm-empty-batch-train",
        bn + """
        r = pd.eval(pd.batch_norm(x, None, None, mm, mv), {x: np.zeros((0, 4), np.float32)}, training=True)
        check(r.shape == (0, 4), "shape")
        close(mm.val(), np.zeros(4), "moving mean after an empty batch")
        close(mv.val(), np.ones(4), "moving variance after an empty batch (it moved toward 0)")""",
        ["batch_norm", "empty"],
        "either",
    )
    case(
        "ops.norm",
        "batch_norm-single-example-train",
        bn + """
        r = pd.eval(pd.batch_norm(x, None, None, mm, mv), {x: rnd(1, 4)}, training=True)
        finite(r)""",
        "batch_norm",
        "ok",
    )
    case(
        "ops.norm",
        "batch_norm-values-nchw",
        """
        a = rnd(3, 4, 2, 5, dtype="float64") * 3 + 1
        x = pd.constant(a, "float64")
        mm = pd.Variable("mm", [4], "float64", initializer="zeros", trainable=False)
        mv = pd.Variable("mv", [4], "float64", initializer="ones", trainable=False)
        r = pd.eval(pd.batch_norm(x, None, None, mm, mv, axis=1, epsilon=1e-5), training=True)
        m, v = a.mean((0, 2, 3), keepdims=True), a.var((0, 2, 3), keepdims=True)
        close(r, (a - m) / np.sqrt(v + 1e-5))""",
        "batch_norm",
        "ok",
    )
    ln = Setup("x = pd.data('x', [None, 4])\n")
    for label, kw in {
        "axis-out": "axis=3",
        "axis-float": "axis=0.5",
        "axis-repeat": "axis=[1, 1]",
        "axis-empty": "axis=[]",
        "scale-shape": "pd.constant(np.ones(3, np.float32))",
        "epsilon-str": "epsilon='a'",
        "epsilon-neg": "epsilon=-1.0",
        "offset-str": "None, 'b'",
    }.items():
        if label == "scale-shape":
            call = f"pd.layer_norm(x, {kw}, None)"
        elif label == "offset-str":
            call = f"pd.layer_norm(x, {kw})"
        else:
            call = f"pd.layer_norm(x, None, None, {kw})"
        case(
            "ops.norm",
            f"layer_norm-{label}",
            ln + f"""
r = pd.eval({call}, {{x: np.ones((2, 4), np.float32)}})
finite(r)""",
            ["layer_norm", "axis", "scale", "epsilon", "offset"],
        )
    case(
        "ops.norm",
        "layer_norm-int",
        "pd.layer_norm(pd.data('x', [2, 4], 'int64'), None, None)",
        ["layer_norm", "float"],
    )
    case(
        "ops.norm",
        "layer_norm-constant-row",
        """
        r = pd.eval(pd.layer_norm(pd.constant(np.full((2, 4), 5.0, np.float32)), None, None))
        close(r, np.zeros((2, 4)))""",
        "layer_norm",
        "ok",
    )


def nn_misc_cases():
    for label, rate in {
        "one": "1.0",
        "neg": "-0.1",
        "nan": "float('nan')",
        "str": "'0.5'",
        "bool": "True",
        "none": "None",
        "big": "1.5",
        "inf": "float('inf')",
        "np": "np.float32(0.5)",
        "array": "np.array([0.5])",
    }.items():
        case(
            "ops.nn",
            f"dropout-rate-{label}",
            f"""
            x = pd.data("x", [None, 4])
            r = pd.eval(pd.dropout(x, {rate}), {{x: np.ones((3, 4), np.float32)}}, training=True)
            check(set(np.unique(r).tolist()) <= {{0.0, 2.0}}, str(np.unique(r)))""",
            ["dropout", "rate"],
            "either" if label == "np" else "error",
        )
    case(
        "ops.nn",
        "dropout-int",
        """
        x = pd.data("x", [None, 4], "int64")
        pd.dropout(x, 0.5)""",
        ["dropout", "float"],
    )
    case(
        "ops.nn",
        "dropout-zero-size",
        """
        x = pd.data("x", [None, 4])
        r = pd.eval(pd.dropout(x, 0.5), {x: np.ones((0, 4), np.float32)}, training=True)
        check(r.shape == (0, 4), "shape")""",
        "dropout",
        "ok",
    )
    emb = Setup("table = pd.Variable('table', [5, 3])\n")
    for label, ids in {
        "out": "[0, 5]",
        "neg": "[-1]",
        "huge": "[2**62]",
        "float": "[0.5]",
        "bool": "[True]",
        "none": "None",
        "str": "'ab'",
    }.items():
        case(
            "ops.nn",
            f"embedding-ids-{label}",
            emb + f"pd.eval(pd.embedding(np.array({ids}), table))",
            ["embedding", "id"],
        )
    case(
        "ops.nn",
        "embedding-fed-out",
        emb + """
ids = pd.data("ids", [None], "int64")
pd.eval(pd.embedding(ids, table), {ids: np.array([4, 7, 0])})""",
        "embedding",
    )
    case(
        "ops.nn",
        "embedding-int32-fed",
        emb + """
ids = pd.data("ids", [None], "int32")
r = pd.eval(pd.embedding(ids, table), {ids: np.array([4, 0], np.int32)})
close(r, table.val()[[4, 0]])""",
        "embedding",
        "ok",
    )
    for label, tbl in {
        "rank1": "pd.constant(np.ones(5, np.float32))",
        "rank3": "pd.constant(np.ones((5, 3, 2), np.float32))",
        "int": "pd.constant(np.ones((5, 3), np.int64))",
        "empty": "pd.constant(np.ones((0, 3), np.float32))",
    }.items():
        case(
            "ops.nn",
            f"embedding-table-{label}",
            f"""
            pd.eval(pd.embedding(pd.constant(np.array([0])), {tbl}))""",
            ["embedding", "table", "id"],
        )
    case(
        "ops.nn",
        "embedding-float-ids-fed",
        emb + """
ids = pd.data("ids", [None], "int64")
pd.eval(pd.embedding(ids, table), {ids: np.array([0.5, 1.0])})""",
        ["embedding", "ids"],
    )
    case(
        "ops.nn",
        "embedding-grad-repeated",
        emb + """
ids = pd.constant(np.array([[1, 1], [4, 1]]))
g, = pd.gradients(pd.sum(pd.embedding(ids, table)), [table])
close(pd.eval(g), np.array([[0] * 3, [3] * 3, [0] * 3, [0] * 3, [1] * 3], np.float32))""",
        "embedding",
        "ok",
    )


def rnn_cases():
    setups = {
        "lstm": (
            "k = pd.Variable('k', [3, 8]); rk = pd.Variable('rk', [2, 8]); b = pd.Variable('b', [8])",
            "[h0, c0]",
            2,
        ),
        "gru": (
            "k = pd.Variable('k', [3, 6]); rk = pd.Variable('rk', [2, 6]); b = pd.Variable('b', [2, 6])",
            "h0",
            1,
        ),
    }
    for op, (weights, state, n_states) in setups.items():
        head = Setup(f"x = pd.data('x', [None, None, 3])\n{weights}\n")
        for label, call in {
            "rank2": f"pd.{op}(pd.data('x2', [None, 3]), k, rk, b)",
            "rank4": f"pd.{op}(pd.data('x4', [None, 2, 2, 3]), k, rk, b)",
            "kernel-shape": f"pd.{op}(x, pd.Variable('k2', [4, 8]), rk, b)",
            "recurrent-shape": f"pd.{op}(x, k, pd.Variable('rk2', [3, 8]), b)",
            "bias-shape": f"pd.{op}(x, k, rk, pd.Variable('b2', [7]))",
            "int-x": f"pd.{op}(pd.data('xi', [None, 2, 3], 'int64'), k, rk, b)",
            "float64-x": f"pd.{op}(pd.data('xd', [None, 2, 3], 'float64'), k, rk, b)",
            "none-kernel": f"pd.{op}(x, None, rk, b)",
            "state-count": f"pd.{op}(x, k, rk, b, initial_state=[pd.data('h', [None, 2])] * {n_states + 1})",
            "state-shape": f"pd.{op}(x, k, rk, b, initial_state=[pd.data('h', [None, 3])] * {n_states})",
            "state-str": f"pd.{op}(x, k, rk, b, initial_state='zeros')",
        }.items():
            case(
                "ops.rnn",
                f"{op}-{label}",
                head + call,
                [op, "kernel", "state", "bias", "float", "3-D"],
            )
        feeds = "{x: rnd(%d, %d, 3), h: rnd(%d, 2)}"
        for label, (n, t, nh) in {
            "state-batch-mismatch": (4, 5, 3),
            "zero-steps": (2, 0, 2),
        }.items():
            st = "[h, h]" if op == "lstm" else "h"
            case(
                "ops.rnn",
                f"{op}-fed-{label}",
                head + f"""
h = pd.data("h", [None, 2])
pd.eval(pd.{op}(x, k, rk, b, initial_state={st}), {feeds % (n, t, nh)})""",
                [op, "state", "time step", "batch"],
            )
        case(
            "ops.rnn",
            f"{op}-zero-batch",
            head + f"""
r = pd.eval(pd.{op}(x, k, rk, b, return_sequences=True), {{x: np.zeros((0, 4, 3), np.float32)}})
check(r.shape == (0, 4, 2), str(r.shape))""",
            op,
            "ok",
        )
        case(
            "ops.rnn",
            f"{op}-rows-independent",
            head + f"""
a = rnd(5, 7, 3)
full = pd.eval(pd.{op}(x, k, rk, b, return_sequences=True), {{x: a}})
one = pd.eval(pd.{op}(x, k, rk, b, return_sequences=True), {{x: a[2:3]}})
close(full[2:3], one, "row 2 alone vs in the batch")
finite(full)""",
            op,
            "ok",
        )
        case(
            "ops.rnn",
            f"{op}-grad-finite",
            head + f"""
a = rnd(3, 4, 3)
y = pd.{op}(x, k, rk, b)
gs = pd.gradients(pd.sum(y * y), [x, k, rk, b])
for g in pd.eval(gs, {{x: a}}):
    finite(g, "gradient")""",
            op,
            "ok",
        )
        case(
            "ops.rnn",
            f"{op}-huge-values",
            head + f"""
r = pd.eval(pd.{op}(x, k, rk, b), {{x: np.full((2, 3, 3), 1e30, np.float32)}})
finite(r)""",
            op,
            "ok",
        )
        case(
            "ops.rnn",
            f"{op}-nan-in-one-row",
            head + f"""
a = rnd(3, 4, 3); a[0, 1, 1] = np.nan
r = pd.eval(pd.{op}(x, k, rk, b), {{x: a}})
finite(r[1:], "rows without NaN")""",
            op,
            "ok",
        )
    case(
        "ops.rnn",
        "gru-reset_after-str",
        """
        x = pd.data('x', [None, 2, 3])
        k = pd.Variable('k', [3, 6]); rk = pd.Variable('rk', [2, 6]); b = pd.Variable('b', [6])
        pd.gru(x, k, rk, b, reset_after='no')""",
        ["gru", "bias", "reset_after"],
    )
