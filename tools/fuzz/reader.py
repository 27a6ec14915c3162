"""Area reader: the reader decorators with bad readers, sizes and arguments."""

from .core import Setup, case


def reader_cases():
    who_map = {
        "batch": "batch",
        "shuffle": "shuffle",
        "firstn": "firstn",
        "buffered": "buffered",
        "cache": "cache",
        "chain": "chain",
        "compose": "compose",
        "map_readers": "map_readers",
        "xmap_readers": "xmap_readers",
    }
    r = Setup("samples = lambda: iter(range(10))\n")
    calls = {
        "batch": [
            "samples, 0",
            "samples, -1",
            "samples, 2.5",
            "samples, None",
            "samples, True",
            "samples, '2'",
            "[1, 2, 3], 2",
            "None, 2",
            "samples, 2, drop_last='x'",
        ],
        "shuffle": ["samples, 0", "samples, -5", "samples, 1.5", "samples, None", "5, 3"],
        "firstn": ["samples, -1", "samples, 1.5", "samples, None", "samples, '3'", "None, 3"],
        "buffered": ["samples, 0", "samples, -1", "samples, 1.5", "None, 2", "samples, None"],
        "cache": ["None", "5", "[1, 2]"],
        "chain": ["", "samples, 5", "samples, None"],
        "compose": ["", "samples, 5", "samples, lambda: iter(range(3))"],
        "map_readers": ["None, samples", "lambda v: v", "lambda v: v, 5", "5, samples"],
        "xmap_readers": [
            "lambda v: v, samples, 0, 2",
            "lambda v: v, samples, 2, 0",
            "lambda v: v, samples, -1, 2",
            "None, samples, 2, 2",
            "lambda v: 1 / 0, samples, 2, 2",
            "lambda v: v, None, 2, 2",
            "lambda v: v, samples, 1.5, 2",
        ],
    }
    for fn, arg_list in calls.items():
        for args in arg_list:
            expect = "either" if (fn, args) in {("chain", ""), ("compose", "")} else "error"
            case(
                "reader",
                f"{fn}({args})",
                r + f"""
out = pd.reader.{fn}({args})
items = list(out())""",
                [who_map[fn], "reader", "callable"]
                + (["division"] if "1 / 0" in args else [])
                + (["aligned", "ComposeNotAligned"] if fn == "compose" else []),
                expect,
                own="ZeroDivisionError" if "1 / 0" in args else None,
            )
    case(
        "reader", "np_array-bad", "list(pd.reader.creator.np_array(None)())", ["np_array", "array"]
    )
    case(
        "reader",
        "np_array-rank0",
        "list(pd.reader.creator.np_array(np.float32(3))())",
        ["np_array", "array", "rank", "scalar"],
    )
    case(
        "reader",
        "text_file-missing",
        "list(pd.reader.creator.text_file('/nonexistent/x')())",
        ["text_file", "nonexistent", "No such file"],
    )
    case(
        "reader",
        "text_file-binary",
        """
        import tempfile, os
        p = os.path.join(tempfile.mkdtemp(), "b.txt")
        open(p, "wb").write(bytes(range(256)))
        list(pd.reader.creator.text_file(p)())""",
        ["text_file", "decode", "utf-8", "b.txt"],
    )
    case(
        "reader",
        "reader-raises",
        """
        def bad():
            yield 1
            raise RuntimeError("disk gone")
        list(pd.reader.buffered(bad, 2)())""",
        ["disk gone"],
    )
    case(
        "reader",
        "reader-not-iterator",
        "list(pd.reader.batch(lambda: 5, 2)())",
        ["batch", "reader", "iter"],
    )
    case(
        "reader",
        "to_arrays-ragged",
        "pd.reader.to_arrays([(np.ones(3), 1), (np.ones(2), 0)])",
        ["to_arrays", "field", "sample", "shape"],
    )
    case(
        "reader",
        "to_arrays-empty",
        "pd.reader.to_arrays([])",
        ["to_arrays", "empty", "sample"],
        "either",
    )
    case(
        "reader",
        "to_arrays-strings",
        "pd.reader.to_arrays([('a', 1), ('b', 0)])",
        ["to_arrays", "field", "number"],
        "either",
    )
    case(
        "reader",
        "to_arrays-mixed-fields",
        "pd.reader.to_arrays([(1, 2), (1,)])",
        ["to_arrays", "field", "sample"],
    )
    case(
        "reader", "iter_batches-bad", "list(pd.reader.iter_batches(5))", ["iter_batches", "reader"]
    )
