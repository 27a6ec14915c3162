"""Area ops.control_flow: cond, switch, while_loop, fori_loop, scan, map, associative_scan
and custom_gradient given bad predicates, indices, structures, carries and arguments."""

from .core import case

_X = "x = pd.constant(np.ones((2, 3), np.float32))\n"


def control_flow_cases():
    bad = {
        # cond: predicates that are not scalar bools, branches that disagree
        "cond-pred-float": ("pd.ops.cond(pd.sum(x), lambda: x, lambda: x)", "cond"),
        "cond-pred-vector": ("pd.ops.cond(x > 0.0, lambda: x, lambda: x)", "cond"),
        "cond-pred-int": ("pd.ops.cond(3, lambda: x, lambda: x)", "cond"),
        "cond-pred-none": ("pd.ops.cond(None, lambda: x, lambda: x)", "cond"),
        "cond-not-callable": ("pd.ops.cond(pd.sum(x) > 0.0, x, lambda: x)", "cond"),
        "cond-structures": ("pd.ops.cond(pd.sum(x) > 0.0, lambda: (x, x), lambda: x)",
                            "cond"),
        "cond-dtypes": ("pd.ops.cond(pd.sum(x) > 0.0, lambda: pd.cast(x, 'int32'), "
                        "lambda: x)", "switch"),
        "cond-shapes": ("pd.ops.cond(pd.sum(x) > 0.0, lambda: x, lambda: x[0])", "switch"),
        "cond-returns-str": ("pd.ops.cond(pd.sum(x) > 0.0, lambda: 'a', lambda: 'b')",
                             "cond"),
        # switch
        "switch-float-index": ("pd.ops.switch(pd.constant(1.0), [lambda: x])", "switch"),
        "switch-str-index": ("pd.ops.switch('1', [lambda: x])", "switch"),
        "switch-no-branches": ("pd.ops.switch(pd.constant(0), [])", "switch"),
        "switch-vector-index": ("pd.ops.switch(pd.constant([0, 1]), [lambda: x])", "switch"),
        # while_loop
        "while-pred-float": ("pd.ops.while_loop(lambda v: pd.sum(v), lambda v: v, x)",
                             "while_loop"),
        "while-shape-change": ("pd.ops.while_loop(lambda v: pd.sum(v) < 9.0, "
                               "lambda v: pd.concat([v, v]), x)", "while_loop"),
        "while-dtype-change": ("pd.ops.while_loop(lambda v: pd.sum(v) < 9.0, "
                               "lambda v: pd.cast(v, 'float64'), x)", "while_loop"),
        "while-structure": ("pd.ops.while_loop(lambda a, b: pd.sum(a) < 9.0, "
                            "lambda a, b: (a,), (x, x))", "while_loop"),
        "while-max-negative": ("pd.ops.while_loop(lambda v: pd.sum(v) < 9.0, lambda v: v, x, "
                               "maximum_iterations=-1)", "while_loop"),
        "while-max-float": ("pd.ops.while_loop(lambda v: pd.sum(v) < 9.0, lambda v: v, x, "
                            "maximum_iterations=2.5)", "while_loop"),
        "while-no-gradient": ("pd.gradients(pd.ops.while_loop(lambda v: pd.sum(v) < 9.0, "
                              "lambda v: v * 2.0, x), [x])", "while_loop"),
        # fori_loop
        "fori-float-bounds": ("pd.ops.fori_loop(pd.constant(0.0), pd.constant(2.0), "
                              "lambda i, v: v, x)", "fori_loop"),
        "fori-not-callable": ("pd.ops.fori_loop(0, 2, None, x)", "fori_loop"),
        # scan
        "scan-no-xs-no-length": ("pd.ops.scan(lambda c, v: (c, v), x)", "scan"),
        "scan-length-negative": ("pd.ops.scan(lambda c, v: (c, v), x, length=-2)", "scan"),
        "scan-length-mismatch": ("pd.ops.scan(lambda c, v: (c, v), pd.constant(0.0), x, "
                                 "length=5)", "scan"),
        "scan-scalar-xs": ("pd.ops.scan(lambda c, v: (c, v), pd.constant(0.0), "
                           "pd.constant(1.0))", "scan"),
        "scan-not-a-pair": ("pd.ops.scan(lambda c, v: c, pd.constant(0.0), x)", "scan"),
        "scan-carry-shape": ("pd.ops.scan(lambda c, v: (v, v), pd.constant(0.0), x)", "scan"),
        "scan-xs-steps": ("pd.ops.scan(lambda c, v: (c, v), pd.constant(0.0), "
                          "(x, pd.ones((5,))))", "scan"),
        "scan-unroll": ("pd.ops.scan(lambda c, v: (c, v), pd.constant(0.0), x, unroll=0)",
                        "scan"),
        "map-not-callable": ("pd.ops.map(3, x)", "map"),
        "associative-axis": ("pd.ops.associative_scan(lambda a, b: a + b, x, axis=4)",
                             "associative_scan"),
        "associative-empty": ("pd.ops.associative_scan(lambda a, b: a + b, [])",
                              "associative_scan"),
        "custom-gradient-bad-return": ("pd.ops.custom_gradient(lambda v: v)(x)",
                                       "custom_gradient"),
    }
    for label, (code, who) in bad.items():
        case("ops.control_flow", label, _X + code, who)
    case("ops.control_flow", "scan-fed-carry-grows",
         """
         v = pd.data("v", shape=[None])
         h, _ = pd.ops.scan(lambda c, x: (pd.concat([c, c]), None), v, length=2)
         pd.eval(h, {v: np.ones(2, np.float32)})""", "scan")
    case("ops.control_flow", "switch-index-clamped",
         """
         x = pd.constant(np.ones((2, 3), np.float32))
         k = pd.data("k", shape=[], dtype="int32")
         y = pd.ops.switch(k, [lambda: x, lambda: x * 2.0])
         close(pd.eval(y, {k: np.int32(-5)}), np.ones((2, 3)))
         close(pd.eval(y, {k: np.int32(7)}), 2 * np.ones((2, 3)))""", "switch", expect="ok")
    case("ops.control_flow", "scan-zero-steps",
         """
         c, ys = pd.ops.scan(lambda c, x: (c + x, x), pd.constant(1.0), pd.ones((0,)))
         close(pd.eval(c), 1.0)
         close(pd.eval(ys), np.ones((0,)))""", "scan", expect="ok")
