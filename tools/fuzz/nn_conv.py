"""Areas ops.conv and ops.pool: convolutions and pooling (bad geometries and their
results against NumPy)."""

from .core import case


def conv_cases():
    x4, w4 = "pd.data('x', [None, 8, 8, 4])", "pd.Variable('w', [3, 3, 4, 6])"
    for label, kw in {
        "strides-0": "strides=0",
        "strides-neg": "strides=-1",
        "strides-float": "strides=1.5",
        "strides-bool": "strides=True",
        "strides-none": "strides=None",
        "strides-3": "strides=(1, 1, 1)",
        "strides-str": "strides='2'",
        "dilation-0": "dilation=0",
        "dilation-float": "dilation=2.0",
        "groups-0": "groups=0",
        "groups-neg": "groups=-2",
        "groups-3": "groups=3",
        "groups-float": "groups=2.0",
        "groups-bool": "groups=True",
        "groups-none": "groups=None",
        "padding-neg": "padding=-1",
        "padding-str": "padding='full'",
        "padding-float": "padding=1.5",
        "padding-none": "padding=None",
        "padding-short": "padding=((1,), (1,))",
        "padding-triple": "padding=(1, 1, 1)",
        "format": "data_format='NWHC'",
        "format-none": "data_format=None",
        "bias-shape": "bias=pd.constant(np.zeros(5, np.float32))",
        "bias-dtype": "bias=pd.constant(np.zeros(6), 'float64')",
        "bias-rank": "bias=pd.constant(np.zeros((1, 6), np.float32))",
        "window-big": "dilation=4",
        "strides-np": "strides=np.int64(2)",
        "padding-huge": "padding=2**40",
    }.items():
        expect = "either" if label in ("strides-np",) else "error"
        case(
            "ops.conv",
            f"conv2d-{label}",
            f"""
            x = {x4}
            pd.eval(pd.conv2d(x, {w4}, {kw}), {{x: rnd(2, 8, 8, 4)}})""",
            ["conv2d", "strides", "padding", "dilation", "groups", "bias", "data_format"],
            expect,
        )
    for label, (xs, ws) in {
        "rank3-x": ("[None, 8, 4]", "[3, 3, 4, 6]"),
        "rank3-w": ("[None, 8, 8, 4]", "[3, 4, 6]"),
        "channels": ("[None, 8, 8, 5]", "[3, 3, 4, 6]"),
        "int": ("[None, 8, 8, 4]", "[3, 3, 4, 6]"),
        "zero-filters": ("[None, 8, 8, 4]", "[3, 3, 4, 0]"),
        "zero-kernel": ("[None, 8, 8, 4]", "[0, 3, 4, 6]"),
        "zero-channels": ("[None, 8, 8, 0]", "[3, 3, 0, 6]"),
        "zero-spatial": ("[None, 0, 8, 4]", "[3, 3, 4, 6]"),
    }.items():
        dt = "'int64'" if label == "int" else "'float32'"
        case(
            "ops.conv",
            f"conv2d-{label}",
            f"""
            x = pd.data('x', {xs}, {dt})
            w = pd.constant(np.ones({ws}), dtype={dt})
            pd.eval(pd.conv2d(x, w), {{x: np.ones((2,) + tuple({xs})[1:], {dt})}})""",
            ["conv2d", "channels", "rank", "float"],
        )
    case(
        "ops.conv",
        "conv2d-fed-small",
        """
        x = pd.data("x", [None, None, None, 4])
        pd.eval(pd.conv2d(x, pd.Variable('w', [3, 3, 4, 6])), {x: rnd(2, 2, 2, 4)})""",
        "conv2d",
    )
    case(
        "ops.conv",
        "conv2d-zero-batch",
        """
        x = pd.data("x", [None, 8, 8, 4])
        r = pd.eval(pd.conv2d(x, pd.Variable('w', [3, 3, 4, 6])), {x: np.zeros((0, 8, 8, 4), np.float32)})
        check(r.shape == (0, 6, 6, 6), str(r.shape))""",
        "conv2d",
        "ok",
    )
    case(
        "ops.conv",
        "conv2d-fed-channels-zero",
        """
        x = pd.data("x", [None, 4, 4, None])
        w = pd.data("w", [3, 3, None, 2])
        pd.eval(pd.conv2d(x, w), {x: np.zeros((1, 4, 4, 0), np.float32), w: np.zeros((3, 3, 0, 2), np.float32)})""",
        "conv2d",
        "either",
    )
    case(
        "ops.conv",
        "conv2d-mixed-dtype",
        """
        x = pd.data("x", [None, 8, 8, 4], "float64")
        pd.conv2d(x, pd.Variable('w', [3, 3, 4, 6]))""",
        ["conv2d", "dtype"],
    )
    # numeric checks against a direct convolution
    geoms = [
        ("basic", (2, 7, 6, 4), (3, 3, 4, 5), (1, 1), "'valid'", (1, 1), 1),
        ("strided-same", (2, 7, 6, 4), (3, 2, 4, 6), (2, 3), "'same'", (1, 1), 1),
        ("dilated", (1, 9, 9, 2), (3, 3, 2, 3), (1, 2), "'same'", (2, 3), 1),
        ("groups", (2, 6, 6, 4), (3, 3, 2, 6), (1, 1), "1", (1, 1), 2),
        ("depthwise", (2, 6, 5, 3), (3, 3, 1, 6), (2, 1), "'same'", (1, 1), 3),
        ("pointwise", (3, 4, 4, 5), (1, 1, 5, 2), (1, 1), "'valid'", (1, 1), 1),
        ("explicit-pad", (1, 5, 5, 2), (2, 2, 2, 2), (1, 1), "((2, 0), (1, 3))", (1, 1), 1),
        ("window-equals-input", (2, 3, 3, 2), (3, 3, 2, 2), (1, 1), "'valid'", (1, 1), 1),
        ("big-stride", (1, 5, 5, 1), (1, 1, 1, 1), (10, 10), "'valid'", (1, 1), 1),
        ("huge-stride", (1, 5, 5, 2), (2, 2, 2, 1), (2**62, 2**62), "'same'", (1, 1), 1),
        ("dilation-2^62-same", (1, 3, 3, 1), (3, 3, 1, 1), (1, 1), "'same'", (2**62, 2**62), 1),
        (
            "dilation-2^61-valid-pad",
            (1, 2, 2, 1),
            (2, 1, 1, 1),
            (1, 1),
            "((2**61, 2**61), (0, 0))",
            (2**62 - 1, 1),
            1,
        ),
        ("huge-dilation-same", (1, 4, 4, 1), (3, 3, 1, 1), (1, 1), "'same'", (2**20, 2**20), 1),
        ("pad-bigger-than-input", (1, 2, 2, 1), (3, 3, 1, 1), (1, 1), "5", (1, 1), 1),
        ("one-pixel-float64", (2, 1, 1, 3), (1, 1, 3, 2), (1, 1), "'same'", (1, 1), 1),
    ]
    for label, xs, ws, st, pad, dil, g in geoms:
        dt = "float64" if "float64" in label else "float32"
        expect = "either" if "2^6" in label or label == "huge-stride" else "ok"
        case(
            "ops.conv",
            f"conv2d-values-{label}",
            f"""
            a, w = rnd(*{xs}, dtype="{dt}"), rnd(*{ws}, seed=1, dtype="{dt}")
            pad = {pad}
            if pad == "same":
                pads = tuple(same_pads(n, k, s, d) for n, k, s, d in zip({xs}[1:3], {ws}[:2], {st}, {dil}))
            elif pad == "valid":
                pads = ((0, 0), (0, 0))
            elif isinstance(pad, int):
                pads = ((pad, pad), (pad, pad))
            else:
                pads = pad
            x = pd.data("x", [None, *{xs}[1:]], "{dt}")
            wv = pd.constant(w, "{dt}")
            y = pd.conv2d(x, wv, strides={st}, padding=pad, dilation={dil}, groups={g})
            close(pd.eval(y, {{x: a}}), ref_conv2d(a, w, {st}, pads, {dil}, {g}), tol=1e-3)
            # the adjoints: <conv(x), g> = <x, conv^T(g)> = <w, dW(x, g)>
            gy = rnd(*pd.eval(y, {{x: a}}).shape, seed=2, dtype="{dt}")
            dx, dw = pd.gradients(pd.sum(y * pd.constant(gy, "{dt}")), [x, wv])
            dxv, dwv = pd.eval([dx, dw], {{x: a}})
            lhs = float((ref_conv2d(a, w, {st}, pads, {dil}, {g}) * gy).sum())
            close(float((dxv * a).sum()), lhs, "input gradient", tol=1e-2)
            close(float((dwv * w).sum()), lhs, "filter gradient", tol=1e-2)""",
            "conv2d",
            expect,
        )
    case(
        "ops.conv",
        "conv2d-nchw-values",
        """
        a, w = rnd(2, 3, 5, 5), rnd(3, 3, 3, 4, seed=1)
        y = pd.eval(pd.conv2d(pd.constant(a), pd.constant(w), padding="same", data_format="NCHW"))
        close(y, ref_conv2d(a.transpose(0, 2, 3, 1), w, pads=((1, 1), (1, 1))).transpose(0, 3, 1, 2), tol=1e-3)""",
        "conv2d",
        "ok",
    )
    case(
        "ops.conv",
        "conv2d-nan-input",
        """
        a = rnd(1, 4, 4, 1); a[0, 0, 0, 0] = np.nan
        y = pd.eval(pd.conv2d(pd.constant(a), pd.constant(np.ones((2, 2, 1, 1), np.float32))))
        check(np.isnan(y[0, 0, 0, 0]) and np.isfinite(y[0, 2, 2, 0]), "NaN not where it should be")""",
        "conv2d",
        "ok",
    )
    # transposed convolution
    for label, kw in {
        "output-zero": "output_shape=(0, 0)",
        "output-neg": "output_shape=(-1, 4)",
        "output-float": "output_shape=(4.5, 4)",
        "output-bad": "output_shape=(3, 3)",
        "output-huge": "output_shape=(2**20, 2**20)",
        "output-str": "output_shape='ab'",
        "output-rank": "output_shape=(1, 2, 3)",
        "output-none-item": "output_shape=(None, 4)",
        "strides-0": "strides=0",
        "dilation-neg": "dilation=-1",
        "padding-huge": "padding=2**40",
        "bias-shape": "bias=pd.constant(np.zeros(9, np.float32))",
        "format": "data_format='HWC'",
        "strides-huge": "strides=2**40",
    }.items():
        case(
            "ops.conv",
            f"conv2d_transpose-{label}",
            f"""
            x = pd.data("x", [None, 4, 4, 6])
            w = pd.Variable("wt", [3, 3, 2, 6])
            pd.eval(pd.conv2d_transpose(x, w, {kw}), {{x: rnd(1, 4, 4, 6)}})""",
            [
                "conv2d_transpose",
                "output_shape",
                "strides",
                "dilation",
                "padding",
                "bias",
                "data_format",
            ],
        )
    case(
        "ops.conv",
        "conv2d_transpose-channels",
        """
        pd.conv2d_transpose(pd.data("x", [None, 4, 4, 5]), pd.Variable("wt", [3, 3, 2, 6]))""",
        "conv2d_transpose",
    )
    case(
        "ops.conv",
        "conv2d_transpose-rank",
        """
        pd.conv2d_transpose(pd.data("x", [None, 4, 5]), pd.Variable("wt", [3, 3, 2, 6]))""",
        "conv2d_transpose",
    )
    for label, st, pad, out in [
        ("valid", 2, "'valid'", None),
        ("same", 2, "'same'", None),
        ("explicit", 1, "((1, 0), (0, 1))", None),
        ("output-shape", 2, "'same'", (8, 7)),
    ]:
        case(
            "ops.conv",
            f"conv2d_transpose-values-{label}",
            f"""
            a, w = rnd(2, 4, 4, 3), rnd(3, 3, 2, 3, seed=1)
            y = pd.conv2d_transpose(pd.constant(a), pd.constant(w), output_shape={out},
                                    strides={st}, padding={pad})
            r = pd.eval(y)
            # the adjoint test against the forward convolution it transposes
            b = rnd(*r.shape, seed=3)
            pad = {pad}
            if pad == "same":
                pads = tuple(same_pads(n, 3, {st}) for n in r.shape[1:3])
            elif pad == "valid":
                pads = ((0, 0), (0, 0))
            else:
                pads = pad
            fwd = ref_conv2d(b, w, ({st}, {st}), pads)
            check(fwd.shape == a.shape, f"forward of the output shape {{fwd.shape}} != {{a.shape}}")
            close(float((r * b).sum()), float((fwd * a).sum()), "adjoint", tol=1e-2)""",
            "conv2d_transpose",
            "ok",
        )
    # conv1d
    for label, kw in {
        "strides-0": "strides=0",
        "strides-pair": "strides=(1, 1)",
        "dilation-float": "dilation=1.0",
        "padding-causal-typo": "padding='casual'",
        "padding-neg": "padding=-2",
        "padding-pair-neg": "padding=(0, -1)",
        "groups-bad": "groups=3",
        "format": "data_format='NHWC'",
        "padding-huge": "padding=2**40",
    }.items():
        case(
            "ops.conv",
            f"conv1d-{label}",
            f"""
            x = pd.data("x", [None, 10, 4])
            pd.eval(pd.conv1d(x, pd.Variable("k1", [3, 4, 6]), {kw}), {{x: rnd(2, 10, 4)}})""",
            ["conv1d", "strides", "dilation", "padding", "groups", "data_format"],
        )
    case(
        "ops.conv",
        "conv1d-rank",
        "pd.conv1d(pd.data('x', [None, 10]), pd.Variable('k1', [3, 4, 6]))",
        "conv1d",
    )
    case(
        "ops.conv",
        "conv1d-filters-rank",
        "pd.conv1d(pd.data('x', [None, 10, 4]), pd.Variable('k1', [3, 4]))",
        "conv1d",
    )
    case(
        "ops.conv",
        "conv1d-causal-values",
        """
        a, w = rnd(2, 6, 3), rnd(3, 3, 2, seed=1)
        r = pd.eval(pd.conv1d(pd.constant(a), pd.constant(w), padding="causal", dilation=2))
        ref = ref_conv2d(a[:, None], w[None], pads=((0, 0), (4, 0)), dilation=(1, 2))[:, 0]
        close(r, ref, tol=1e-3)""",
        "conv1d",
        "ok",
    )


def pool_cases():
    for op in ("max_pool2d", "avg_pool2d"):
        for label, kw in {
            "size-0": "0",
            "size-neg": "-1",
            "size-float": "2.5",
            "size-none": "None",
            "size-bool": "True",
            "size-triple": "(2, 2, 2)",
            "size-big": "9",
            "strides-0": "2, strides=0",
            "strides-float": "2, strides=1.0",
            "padding-int": "2, padding=1",
            "padding-str": "2, padding='full'",
            "format": "2, data_format='CHW'",
            "size-huge": "2**40",
            "size-huge-same": "2**40, padding='same'",
        }.items():
            case(
                "ops.pool",
                f"{op}-{label}",
                f"""
                x = pd.data("x", [None, 8, 8, 3])
                pd.eval(pd.{op}(x, {kw}), {{x: rnd(2, 8, 8, 3)}})""",
                [op, "pool_size", "strides", "padding", "data_format"],
                "either" if label == "size-huge-same" else "error",
            )
        case("ops.pool", f"{op}-rank", f"pd.{op}(pd.data('x', [None, 8, 3]), 2)", op)
        case(
            "ops.pool",
            f"{op}-int",
            f"""
            x = pd.data("x", [None, 4, 4, 1], "int64")
            pd.eval(pd.{op}(x, 2), {{x: np.ones((1, 4, 4, 1), np.int64)}})""",
            [op, "float"],
        )
        case(
            "ops.pool",
            f"{op}-fed-small",
            f"""
            x = pd.data("x", [None, None, None, 3])
            pd.eval(pd.{op}(x, 3), {{x: rnd(1, 2, 2, 3)}})""",
            op,
        )
        case(
            "ops.pool",
            f"{op}-zero-batch",
            f"""
            x = pd.data("x", [None, 4, 4, 3])
            r = pd.eval(pd.{op}(x, 2), {{x: np.zeros((0, 4, 4, 3), np.float32)}})
            check(r.shape == (0, 2, 2, 3), str(r.shape))""",
            op,
            "ok",
        )
        case(
            "ops.pool",
            f"{op}-zero-channels",
            f"""
            x = pd.data("x", [None, 4, 4, None])
            r = pd.eval(pd.{op}(x, 2), {{x: np.zeros((1, 4, 4, 0), np.float32)}})
            check(r.shape == (1, 2, 2, 0), str(r.shape))""",
            op,
            "either",
        )
        kind = "max" if op.startswith("max") else "avg"
        for label, xs, k, s, pad in [
            ("valid", (2, 7, 6, 3), (2, 3), (2, 2), "valid"),
            ("same", (2, 7, 6, 3), (3, 3), (2, 1), "same"),
            ("overlap", (1, 6, 6, 2), (3, 3), (1, 1), "valid"),
            ("window-bigger-same", (1, 3, 3, 2), (5, 5), (1, 1), "same"),
            ("huge-window-same", (1, 3, 2, 1), (2**15, 2**15), (2**15, 2**15), "same"),
            ("stride-bigger", (1, 9, 9, 1), (2, 2), (4, 5), "valid"),
        ]:
            case(
                "ops.pool",
                f"{op}-values-{label}",
                f"""
                a = rnd(*{xs})
                pads = ((0, 0), (0, 0)) if "{pad}" == "valid" else tuple(
                    same_pads(n, k, s) for n, k, s in zip({xs}[1:3], {k}, {s}))
                x = pd.constant(a)
                y = pd.{op}(x, {k}, strides={s}, padding="{pad}")
                close(pd.eval(y), ref_pool(a, {k}, {s}, pads, "{kind}"))
                g, = pd.gradients(pd.sum(y * y), [x])
                gv = pd.eval(g)
                finite(gv, "gradient")
                # sum of the gradient = sum over windows of 2y (max) / 2y (avg, spread over the covered elements)
                close(float(gv.sum()), float((2 * pd.eval(y)).sum()), "gradient sum", tol=1e-2)""",
                op,
                "ok",
            )
        case(
            "ops.pool",
            f"{op}-nan",
            f"""
            a = np.array([1.0, np.nan, 3.0, 2.0], np.float32).reshape(1, 2, 2, 1)
            b = np.array([np.nan, 1.0, 3.0, 2.0], np.float32).reshape(1, 2, 2, 1)
            ra, rb = pd.eval(pd.{op}(pd.constant(a), 2)), pd.eval(pd.{op}(pd.constant(b), 2))
            check(np.isnan(ra).all() and np.isnan(rb).all(),
                  f"a NaN in the window is dropped depending on its position: {{ra.ravel()}}, {{rb.ravel()}}")""",
            op,
            "ok",
        )
    for label, k in [
        ("window-2^32-wide", (2, 2**32)),
        ("window-2^31-tall", (2**31, 2)),
        ("window-2^62", (2**62, 2**62)),
    ]:
        case(
            "ops.pool",
            f"max_pool2d-grad-{label}",
            f"""
            a = rnd(1, 3, 3, 2)
            x = pd.constant(a)
            y = pd.max_pool2d(x, {k}, strides=1, padding="same")
            pads = tuple(same_pads(n, kk, 1) for n, kk in zip(a.shape[1:3], {k}))
            close(pd.eval(y), ref_pool(a, {k}, (1, 1), pads, "max"))
            g, = pd.gradients(pd.sum(y), [x])
            close(pd.eval(g), ref_max_pool_grad(a, {k}, (1, 1), pads), "gradient")""",
            ["max_pool2d", "pool_size", "window"],
            "either",
        )
    for op in ("max_pool1d", "avg_pool1d"):
        for label, kw in {
            "size-0": "0",
            "size-pair": "(2, 2)",
            "strides-neg": "2, strides=-1",
            "padding-causal": "2, padding='causal'",
            "rank": None,
        }.items():
            xs = "[None, 8]" if label == "rank" else "[None, 8, 3]"
            case(
                "ops.pool",
                f"{op}-{label}",
                f"""
                x = pd.data("x", {xs})
                pd.{op}(x, {kw or 2})""",
                [op, "pool_size", "strides", "padding"],
            )
    case(
        "ops.pool",
        "global_avg_pool2d-rank",
        "pd.global_avg_pool2d(pd.data('x', [None, 3]))",
        "global_avg_pool2d",
    )
    case(
        "ops.pool",
        "global_avg_pool2d-empty",
        """
        x = pd.data("x", [None, None, None, 3])
        r = pd.eval(pd.global_avg_pool2d(x), {x: np.zeros((1, 0, 0, 3), np.float32)})""",
        ["global_avg_pool2d", "empty", "mean", "sum"],
        "either",
    )
