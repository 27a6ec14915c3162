"""Area sweep: random geometries of the kernels against NumPy references."""

from .core import case


SWEEP = 40  # random configurations per kernel family; --sweep raises it


def sweep_cases():
    """Random (seeded) geometries compared with NumPy: odd strides, paddings, dilations,
    groups, broadcasts and axes, sizes big enough to be split over OpenMP threads."""
    import random

    rng = random.Random(1234)
    for i in range(SWEEP):
        n, c_per_g, groups = rng.choice([1, 2, 3]), rng.choice([1, 2, 3]), rng.choice([1, 1, 2, 3])
        kh, kw = rng.randint(1, 4), rng.randint(1, 4)
        dh, dw = rng.choice([1, 1, 2, 3]), rng.choice([1, 1, 2])
        sh, sw = rng.choice([1, 1, 2, 3]), rng.choice([1, 2, 4])
        h, w = rng.randint((kh - 1) * dh + 1, 20), rng.randint((kw - 1) * dw + 1, 24)
        co = groups * rng.choice([1, 2, 5])
        pad = rng.choice(
            [
                "'valid'",
                "'same'",
                f"(({rng.randint(0, 3)}, {rng.randint(0, 3)}), "
                f"({rng.randint(0, 3)}, {rng.randint(0, 3)}))",
            ]
        )
        big = rng.random() < 0.25
        if big:  # big enough for several blocks and both OpenMP threads
            n, h, w = 8, max(h, 28), max(w, 28)
        xs, ws = (n, h, w, c_per_g * groups), (kh, kw, c_per_g, co)
        case(
            "sweep",
            f"conv2d-{i}",
            f"""
            a, w = rnd(*{xs}, dtype="float64"), rnd(*{ws}, seed=1, dtype="float64")
            pad = {pad}
            if pad == "same":
                pads = tuple(same_pads(n, k, s, d) for n, k, s, d in zip({xs}[1:3], {ws}[:2],
                                                                       ({sh}, {sw}), ({dh}, {dw})))
            elif pad == "valid":
                pads = ((0, 0), (0, 0))
            else:
                pads = pad
            ref = ref_conv2d(a, w, ({sh}, {sw}), pads, ({dh}, {dw}), {groups})
            if min(ref.shape[1:3]) < 1:
                raise ValueError("conv2d: the window is larger than the padded input (sweep)")
            x, wv = pd.constant(a, "float64"), pd.constant(w, "float64")
            y = pd.conv2d(x, wv, strides=({sh}, {sw}), padding=pad, dilation=({dh}, {dw}),
                          groups={groups})
            close(pd.eval(y), ref, tol=1e-8)
            gy = rnd(*ref.shape, seed=2, dtype="float64")
            dx, dw_ = pd.eval(pd.gradients(pd.sum(y * pd.constant(gy, "float64")), [x, wv]))
            lhs = float((ref * gy).sum())
            close(float((dx * a).sum()), lhs, "input gradient (adjoint identity)", tol=1e-6)
            close(float((dw_ * w).sum()), lhs, "filter gradient (adjoint identity)", tol=1e-6)""",
            ["conv2d", "window"],
            "either",
        )
    for i in range(SWEEP):
        kh, kw = rng.randint(1, 4), rng.randint(1, 4)
        sh, sw = rng.randint(1, 4), rng.randint(1, 4)
        h, w = rng.randint(kh, 30), rng.randint(kw, 30)
        n, c = rng.choice([1, 2, 16]), rng.choice([1, 3, 8])
        pad = rng.choice(["valid", "same"])
        kind = rng.choice(["max", "avg"])
        case(
            "sweep",
            f"{kind}_pool2d-{i}",
            f"""
            a = rnd({n}, {h}, {w}, {c}, dtype="float64")
            a[..., 0] = np.round(a[..., 0])  # ties: the first maximum takes the gradient
            pads = ((0, 0), (0, 0)) if "{pad}" == "valid" else tuple(
                same_pads(n, k, s) for n, k, s in zip(({h}, {w}), ({kh}, {kw}), ({sh}, {sw})))
            x = pd.constant(a, "float64")
            y = pd.{kind}_pool2d(x, ({kh}, {kw}), strides=({sh}, {sw}), padding="{pad}")
            close(pd.eval(y), ref_pool(a, ({kh}, {kw}), ({sh}, {sw}), pads, "{kind}"), tol=1e-10)
            g, = pd.gradients(pd.sum(y), [x])
            if "{kind}" == "max":
                close(pd.eval(g), ref_max_pool_grad(a, ({kh}, {kw}), ({sh}, {sw}), pads), "gradient")
            else:
                close(float(pd.eval(g).sum()), float(np.prod(pd.eval(y).shape)), "gradient sum")""",
            [f"{kind}_pool2d"],
            "ok",
        )
    for i in range(SWEEP):
        rank = rng.randint(1, 5)
        shape = [rng.choice([1, 1, 2, 3, 5, 7, 64]) for _ in range(rank)]
        other = [d if rng.random() < 0.6 else 1 for d in shape][rng.randint(0, rank - 1) :]
        op = rng.choice(["add", "sub", "mul", "maximum", "minimum", "less", "equal"])
        dt = rng.choice(["float32", "float64", "int64", "int32"])
        ref = {
            "add": "a + b",
            "sub": "a - b",
            "mul": "a * b",
            "maximum": "np.maximum(a, b)",
            "minimum": "np.minimum(a, b)",
            "less": "a < b",
            "equal": "a == b",
        }[op]
        swap = rng.random() < 0.5
        case(
            "sweep",
            f"{op}-broadcast-{i}",
            f"""
            a = (rnd(*{shape}) * 5).astype("{dt}")
            b = (rnd(*{other}, seed=1) * 5).astype("{dt}")
            {'a, b = b, a' if swap else ''}
            x, z = pd.data("x", list(a.shape), "{dt}"), pd.data("z", list(b.shape), "{dt}")
            close(pd.eval(pd.{op}(x, z), {{x: a, z: b}}), {ref})""",
            op,
            "ok",
        )
    for i in range(SWEEP):
        rank = rng.randint(1, 5)
        shape = [rng.choice([1, 2, 3, 4, 33]) for _ in range(rank)]
        axes = tuple(sorted(rng.sample(range(rank), rng.randint(1, rank))))
        op = rng.choice(["sum", "mean", "max", "min"])
        keep = rng.random() < 0.5
        case(
            "sweep",
            f"{op}-axes-{i}",
            f"""
            a = rnd(*{shape}, dtype="float64")
            r = pd.eval(pd.{op}(pd.constant(a, "float64"), axis={axes}, keepdims={keep}))
            close(r, np.{op}(a, axis={axes}, keepdims={keep}), tol=1e-10)""",
            op,
            "ok",
        )
    for i in range(SWEEP):
        rank = rng.randint(2, 5)
        shape = [rng.choice([1, 2, 3, 5, 40]) for _ in range(rank)]
        perm = list(range(rank))
        rng.shuffle(perm)
        index = tuple(
            rng.choice(
                [
                    f"{rng.randint(0, d - 1)}",
                    f"{rng.randint(0, d)}:",
                    f"::{rng.randint(1, 3)}",
                    f"{rng.randint(0, d)}:{rng.randint(0, d)}:" f"{rng.randint(1, 2)}",
                ]
            )
            for d in shape
        )
        case(
            "sweep",
            f"copies-{i}",
            f"""
            a = rnd(*{shape}, dtype="float64")
            x = pd.constant(a, "float64")
            close(pd.eval(pd.transpose(x, {perm})), np.transpose(a, {perm}))
            close(pd.eval(x[{", ".join(index)}]), a[{", ".join(index)}])
            parts = pd.split(x, [1, {shape[0]} - 1], axis=0)
            close(pd.eval(pd.concat(parts[::-1], axis=0)), np.concatenate([a[1:], a[:1]]))
            close(pd.eval(pd.pad(x, [(1, 0)] + [(0, 2)] * {rank - 1}, 3.0)),
                  np.pad(a, [(1, 0)] + [(0, 2)] * {rank - 1}, constant_values=3.0))""",
            ["transpose", "slice", "split", "concat", "pad"],
            "ok",
        )
    for i in range(SWEEP):
        ba = [rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2))]
        bb = [rng.choice([1, d]) for d in ba][rng.randint(0, len(ba)) if ba else 0 :]
        m, k, n = rng.choice([1, 2, 7, 65]), rng.choice([1, 3, 64]), rng.choice([1, 2, 9])
        ta, tb = rng.random() < 0.5, rng.random() < 0.5
        sa = ba + ([k, m] if ta else [m, k])
        sb = bb + ([n, k] if tb else [k, n])
        case(
            "sweep",
            f"matmul-{i}",
            f"""
            a, b = rnd(*{sa}, dtype="float64"), rnd(*{sb}, seed=1, dtype="float64")
            r = pd.eval(pd.matmul(pd.constant(a, "float64"), pd.constant(b, "float64"),
                                  transpose_a={ta}, transpose_b={tb}))
            close(r, np.matmul(np.swapaxes(a, -1, -2) if {ta} else a,
                               np.swapaxes(b, -1, -2) if {tb} else b), tol=1e-9)""",
            "matmul",
            "ok",
        )


def sweep_more_cases():
    import random

    rng = random.Random(99)
    for i in range(SWEEP):
        kind = rng.choice(["lstm", "gru", "gru_classic"])
        n, t, f, u = (
            rng.choice([1, 2, 3, 64]),
            rng.choice([1, 2, 7]),
            rng.choice([1, 3]),
            rng.choice([1, 2, 5]),
        )
        g = 4 if kind == "lstm" else 3
        bshape = (2, g * u) if kind == "gru" else (g * u,)
        states = rng.random() < 0.5
        op = "lstm" if kind == "lstm" else "gru"
        extra = ", reset_after=False" if kind == "gru_classic" else ""
        init = (
            (
                "[pd.constant(h0, 'float64'), pd.constant(c0, 'float64')]"
                if kind == "lstm"
                else "pd.constant(h0, 'float64')"
            )
            if states
            else "None"
        )
        case(
            "sweep",
            f"{kind}-{i}",
            f"""
            a = rnd({n}, {t}, {f}, dtype="float64")
            W, R = rnd({f}, {g * u}, seed=1, dtype="float64"), rnd({u}, {g * u}, seed=2, dtype="float64")
            b = rnd(*{bshape}, seed=3, dtype="float64")
            h0, c0 = rnd({n}, {u}, seed=4, dtype="float64"), rnd({n}, {u}, seed=5, dtype="float64")
            x, Wv = pd.constant(a, "float64"), pd.constant(W, "float64")
            y = pd.{op}(x, Wv, pd.constant(R, "float64"), pd.constant(b, "float64"),
                        initial_state={init}, return_sequences=True{extra})
            want = ref_rnn("{kind}", a, W, R, b, *((h0, c0) if {states} else ()))
            close(pd.eval(y), want, tol=1e-9)
            # the gradient along a random direction against central differences
            gy = rnd(*want.shape, seed=6, dtype="float64")
            dx, dW = pd.eval(pd.gradients(pd.sum(y * pd.constant(gy, "float64")), [x, Wv]))
            eps = 1e-6
            for arr, grad, what in ((a, dx, "x"), (W, dW, "kernel")):
                v = rnd(*arr.shape, seed=7, dtype="float64")
                def loss(arr2):
                    args = (arr2, W) if what == "x" else (a, arr2)
                    return float((ref_rnn("{kind}", *args, R, b, *((h0, c0) if {states} else ()))
                                  * gy).sum())
                num = (loss(arr + eps * v) - loss(arr - eps * v)) / (2 * eps)
                close(float((grad * v).sum()), num, f"gradient of {{what}}", tol=1e-5)""",
            [op],
            "ok",
        )
    for i in range(SWEEP):
        rank = rng.randint(1, 4)
        shape = [rng.choice([1, 2, 5, 40]) for _ in range(rank)]
        axis = rng.randint(-rank, rank - 1)
        training = rng.random() < 0.6
        case(
            "sweep",
            f"batch_norm-{i}",
            f"""
            a = rnd(*{shape}, dtype="float64") * 3 + 2
            c = a.shape[{axis}]
            x = pd.constant(a, "float64")
            mm = pd.Variable("mm", [c], "float64", initializer="zeros", trainable=False)
            mv = pd.Variable("mv", [c], "float64", initializer="ones", trainable=False)
            scale = pd.constant(rnd(c, seed=1, dtype="float64"), "float64")
            y = pd.batch_norm(x, scale, None, mm, mv, momentum=0.5, epsilon=1e-3, axis={axis})
            r = pd.eval(y, training={training})
            axes = tuple(k for k in range(a.ndim) if k != {axis} % a.ndim)
            keep = [1] * a.ndim
            keep[{axis}] = c
            sc = rnd(c, seed=1, dtype="float64").reshape(keep)
            if {training}:
                m, v = a.mean(axes, keepdims=True), a.var(axes, keepdims=True)
                close(r, (a - m) / np.sqrt(v + 1e-3) * sc, tol=1e-8)
                close(mm.val(), 0.5 * m.ravel(), "moving mean", tol=1e-8)
                close(mv.val(), 0.5 + 0.5 * v.ravel(), "moving variance", tol=1e-8)
            else:
                close(r, a / np.sqrt(1 + 1e-3) * sc, tol=1e-8)""",
            "batch_norm",
            "ok",
        )
    for i in range(SWEEP):
        rows, dim = rng.choice([1, 3, 50]), rng.choice([1, 4, 33])
        ids_shape = [rng.choice([1, 2, 7]) for _ in range(rng.randint(1, 3))]
        case(
            "sweep",
            f"embedding-{i}",
            f"""
            table = rnd({rows}, {dim}, dtype="float64")
            ids = np.random.default_rng({i}).integers(0, {rows}, {ids_shape})
            t = pd.constant(table, "float64")
            y = pd.embedding(pd.constant(ids), t)
            close(pd.eval(y), table[ids])
            gy = rnd(*{ids_shape}, {dim}, seed=1, dtype="float64")
            g, = pd.gradients(pd.sum(y * pd.constant(gy, "float64")), [t])
            want = np.zeros_like(table)
            np.add.at(want, ids.ravel(), gy.reshape(-1, {dim}))
            close(pd.eval(g), want, "scatter-added gradient", tol=1e-10)""",
            "embedding",
            "ok",
        )
    for i in range(SWEEP):
        n, c = rng.choice([1, 3, 100]), rng.choice([1, 2, 10, 1000])
        case(
            "sweep",
            f"softmax_xent-{i}",
            f"""
            a = rnd({n}, {c}, dtype="float64") * 20
            labels = np.random.default_rng({i}).integers(0, {c}, {n})
            r = pd.eval(pd.softmax_cross_entropy(pd.constant(a, "float64"), pd.constant(labels)))
            m = a.max(-1, keepdims=True)
            want = np.log(np.exp(a - m).sum(-1)) + m[:, 0] - a[np.arange({n}), labels]
            close(r, want, tol=1e-9)
            close(pd.eval(pd.softmax(pd.constant(a, "float64"))),
                  np.exp(a - m) / np.exp(a - m).sum(-1, keepdims=True), tol=1e-12)
            acc = pd.eval(pd.accuracy(pd.constant(a, "float64"), pd.constant(labels)))
            close(acc, (a.argmax(-1) == labels).mean())""",
            ["softmax", "accuracy"],
            "ok",
        )
    for i in range(SWEEP):
        groups = 1  # conv2d_transpose has no groups
        cin, co = rng.choice([1, 3]), rng.choice([1, 2])
        k, s = rng.choice([1, 2, 3, 5]), rng.choice([1, 2, 3])
        h, w = rng.randint(1, 9), rng.randint(1, 9)
        pad = rng.choice(["valid", "same"])
        case(
            "sweep",
            f"conv2d_transpose-{i}",
            f"""
            a, w = rnd(2, {h}, {w}, {co}, dtype="float64"), rnd({k}, {k}, {cin // groups}, {co}, seed=1,
                                                              dtype="float64")
            # conv2d_transpose with filters (k, k, out, in) transposes conv2d(y, filters)
            y = pd.conv2d_transpose(pd.constant(a, "float64"), pd.constant(w, "float64"),
                                    strides={s}, padding="{pad}") if {groups} == 1 else None
            if y is None:
                raise ValueError("conv2d_transpose: groups (sweep: not a layer option)")
            r = pd.eval(y)
            b = rnd(*r.shape, seed=2, dtype="float64")
            pads = ((0, 0), (0, 0)) if "{pad}" == "valid" else tuple(
                same_pads(n, {k}, {s}) for n in r.shape[1:3])
            fwd = ref_conv2d(b, w, ({s}, {s}), pads)
            check(fwd.shape == a.shape, f"the output's convolution is {{fwd.shape}}, not {{a.shape}}")
            close(float((r * b).sum()), float((fwd * a).sum()), "adjoint identity", tol=1e-8)""",
            "conv2d_transpose",
            "either",
        )
