"""Area internal: the C++ kernels called with specs that lie."""

from .core import case


def internal_cases():
    """The C++ kernels called directly with specs that lie: the second line of defence
    must refuse them (not a public API, but nothing may corrupt memory)."""
    big = "2**62"
    calls = {
        "conv2d-size-overflow": f"""
            spec = np.array([{big}, 4, 1, 1, 4, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1], np.int64)
            e = np.zeros(0, np.float32)
            pd._C.conv2d(e, np.ones(1, np.float32), e, e, spec, np.zeros(16, np.float32))""",
        "conv2d-backprop-input-size-overflow": f"""
            spec = np.array([{big}, 4, 1, 1, 4, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1], np.int64)
            e = np.zeros(0, np.float32)
            pd._C.conv2d_backprop_input(e, np.ones(1, np.float32), e, spec, np.zeros(16, np.float32))""",
        "max_pool2d-size-overflow": f"""
            spec = np.array([{big}, 4, 1, 1, 4, 1, 1, 1, 1, 1, 0, 0], np.int64)
            e = np.zeros(0, np.float32)
            pd._C.max_pool2d(e, e, np.zeros(0, np.int32), spec)""",
        "avg_pool2d_grad-size-overflow": f"""
            spec = np.array([{big}, 4, 1, 1, 4, 1, 1, 1, 1, 1, 0, 0], np.int64)
            e = np.zeros(0, np.float32)
            pd._C.avg_pool2d_grad(e, e, spec)""",
        "strided_copy-extent-overflow": f"""
            spec = np.array([2, 2, 2, {big}, {big}, 1, 1, 0, 0], np.int64)
            pd._C.strided_copy(np.ones(4, np.float32), np.ones(4, np.float32), spec)""",
        "strided_copy-offset-overflow": f"""
            spec = np.array([1, 2, 1, 1, {big} * 2 - 1, 0], np.int64)
            pd._C.strided_copy(np.ones(4, np.float32), np.ones(4, np.float32), spec)""",
        "matmul-size-overflow": f"""
            spec = np.array([{big}, 4, 1, 1, 0, 0] + [0] * 0, np.int64)
            pd._C.matmul(np.ones(4, np.float32), np.ones(4, np.float32), np.ones(0, np.float32), spec)""",
        "matmul-offset-overflow": f"""
            spec = np.array([1, 2, 2, 2, 0, 0, {big} * 2 - 1, 0], np.int64)
            pd._C.matmul(np.ones(4, np.float32), np.ones(4, np.float32), np.ones(4, np.float32), spec)""",
        "gather-size-overflow": f"""
            pd._C.gather(np.zeros(0, np.float32), np.zeros(4, np.int64), np.zeros(0, np.float32),
                         {big}, 4, 1)""",
        "scatter_add-size-overflow": f"""
            pd._C.scatter_add(np.zeros(0, np.float32), np.zeros(4, np.int64), np.zeros(0, np.float32),
                              {big}, 4, 1)""",
        "reduce-size-overflow": f"""
            pd._C.reduce(0, np.zeros(0, np.float32), np.zeros(0, np.float32), {big}, 4, 1, 1.0)""",
        "argmax-size-overflow": f"""
            pd._C.argmax(np.zeros(0, np.float32), np.zeros(0, np.int64), {big}, 4, 1)""",
        "one_hot-size-overflow": f"""
            pd._C.one_hot(np.zeros(4, np.int64), np.zeros(0, np.float32), {big})""",
        "softmax-negative-cols": """
            pd._C.softmax(np.ones(4, np.float32), np.ones(4, np.float32), -2, False)""",
        "in_top_k-k-negative": """
            pd._C.in_top_k(np.ones((2, 3), np.float32), np.zeros(2, np.int64), np.ones(2, np.float32), 3, -5)""",
        "batch_norm-size-overflow": f"""
            e = np.zeros(0, np.float32); c = np.ones(4, np.float32)
            pd._C.batch_norm(e, c, c, c, c, e, c.copy(), c.copy(), {big}, 4, 1, 0.9, 1e-3, True)""",
        "binary-layout-overflow": f"""
            lay = np.array([2, {big}, 4, 0, 0, 0, 0], np.int64)
            e = np.zeros(0, np.float32)
            pd._C.binary(0, np.ones(1, np.float32), np.ones(1, np.float32), e, lay)""",
        "binary-layout-stride-outside": """
            lay = np.array([1, 4, 5, 1], np.int64)
            pd._C.binary(0, np.ones(4, np.float32), np.ones(4, np.float32), np.ones(4, np.float32), lay)""",
        "rnn_forward-state-size": """
            x = np.ones((2, 3, 2), np.float32); w = np.ones((2, 8), np.float32); r = np.ones((2, 8), np.float32)
            b = np.ones(8, np.float32); h0 = np.ones(2, np.float32)
            pd._C.rnn_forward(0, x, w, r, b, h0, h0, np.ones((2, 3, 2), np.float32),
                              np.ones((2, 3, 2), np.float32), np.ones((2, 3, 8), np.float32),
                              np.empty(0, np.float32), np.empty(0, np.float32))""",
        "embedding-table-noncontiguous": """
            t = np.ones((4, 6), np.float32)[:, ::2]
            pd._C.embedding(np.zeros(3, np.int64), t, np.zeros((3, 3), np.float32))""",
        "dropout-out-readonly": """
            y = np.zeros(4, np.float32); y.flags.writeable = False
            pd._C.dropout(np.ones(4, np.float32), y, np.zeros(4, np.float32), 0.5, 1)""",
    }
    for label, code in calls.items():
        op = label.split("-")[0]
        case(
            "internal",
            label,
            code,
            [
                op,
                "spec",
                "size",
                "overflow",
                "elements",
                "outside",
                "malformed",
                "contiguous",
                "read-only",
                "k",
            ],
        )
