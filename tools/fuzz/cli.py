"""The command line: `python tools/fuzz_inputs.py ...` or `python -m tools.fuzz ...` (see
the package's docstring for the options)."""

import argparse
import json
import os
import sys
import time

from . import (catalog, control_flow, executor, internal, layers, model, nn_conv,
               nn_norm_rnn, ops_elementwise, ops_reduce, ops_shape, outputs, reader, saving,
               sweep)
from . import __doc__ as fuzz_doc
from .core import CASES, OUTCOMES
from .prelude import PRELUDE
from .runner import run_cases

# In this order: a generated case whose name is taken gets the next free `#k`.
GENERATORS = [
    ops_elementwise.lowlevel_unary_cases,
    ops_elementwise.lowlevel_binary_cases,
    ops_reduce.lowlevel_matmul_reduce_cases,
    ops_shape.lowlevel_shape_cases,
    ops_shape.complex_cases,
    ops_reduce.lowlevel_loss_cases,
    nn_conv.conv_cases,
    nn_conv.pool_cases,
    nn_norm_rnn.norm_cases,
    nn_norm_rnn.nn_misc_cases,
    nn_norm_rnn.rnn_cases,
    executor.executor_cases,
    executor.graph_cases,
    layers.layer_ctor_cases,
    layers.layer_input_cases,
    model.model_cases,
    saving.saving_cases,
    saving.saving_more_cases,
    reader.reader_cases,
    internal.internal_cases,
    catalog.catalog_cases,
    catalog.activation_cases,
    outputs.watch_ship_cases,
    sweep.sweep_cases,
    sweep.sweep_more_cases,
    control_flow.control_flow_cases,
]


def all_cases():
    """Every case, generated once (with the current BITFLIPS and SWEEP)."""
    if not CASES:
        for gen in GENERATORS:
            gen()
    return CASES


def main(argv=None):
    parser = argparse.ArgumentParser(description=fuzz_doc.split("\n")[0])
    parser.add_argument("--filter", default="", help="run cases whose name contains this")
    parser.add_argument("--jobs", type=int, default=2, help="children at a time")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per case")
    parser.add_argument("--memory-gb", type=float, default=4.0, help="address space per case")
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    parser.add_argument("--show", metavar="NAME", help="print one case's snippet")
    parser.add_argument("--run", metavar="NAME", help="run one case in this process")
    parser.add_argument("--all", action="store_true", help="print every case's outcome")
    parser.add_argument("--json", metavar="PATH", help="write {case: [outcome, detail]} here")
    parser.add_argument(
        "--bitflips", type=int, default=saving.BITFLIPS, help="damaged copies of a saved model per loader"
    )
    parser.add_argument(
        "--sweep", type=int, default=sweep.SWEEP, help="random geometries per kernel family"
    )
    args = parser.parse_args(argv)
    saving.BITFLIPS, sweep.SWEEP = args.bitflips, args.sweep  # read by their generators

    all_cases()
    by_name = {c.name: c for c in CASES}
    if args.list:
        for c in CASES:
            print(c.name)
        return 0
    if args.show or args.run:
        c = by_name.get(args.show or args.run)
        if c is None:
            print(f"no case named {args.show or args.run!r}", file=sys.stderr)
            return 2
        print(c.code)
        if args.run:
            scope = {}
            exec(PRELUDE, scope)
            exec(compile(c.code, f"<{c.name}>", "exec"), scope)
            print("-- ran without an exception")
        return 0

    cases = [c for c in CASES if args.filter in c.name]
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    import numpy  # noqa: F401  (children inherit the imports: each case starts in ms)
    import paddle  # noqa: F401

    done = [0]

    def progress(c, result):
        done[0] += 1
        if result[0] != "OK" or args.all:
            print(
                f"[{done[0]}/{len(cases)}] {result[0]:11} {c.name}: {result[1][:300]}", flush=True
            )

    start = time.monotonic()
    results = run_cases(cases, args.jobs, args.timeout, args.memory_gb, progress)
    counts = {}
    for c in cases:
        outcome = results[c.name][0]
        counts.setdefault(c.area, dict.fromkeys(OUTCOMES, 0))[outcome] += 1
    print(f"\n{len(cases)} cases in {time.monotonic() - start:.0f} s")
    print(f"{'area':16}" + "".join(f"{o:>13}" for o in OUTCOMES))
    for area, row in counts.items():
        print(f"{area:16}" + "".join(f"{row[o]:>13}" for o in OUTCOMES))
    total = {o: sum(row[o] for row in counts.values()) for o in OUTCOMES}
    print(f"{'total':16}" + "".join(f"{total[o]:>13}" for o in OUTCOMES))
    bad = [c for c in cases if results[c.name][0] in ("CRASH", "HANG", "GARBAGE")]
    for c in bad:
        print(f"\n--- {results[c.name][0]}: {c.name}\n{results[c.name][1]}\n{c.code}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({c.name: results[c.name] for c in cases}, f, indent=1)
    return 1 if bad else 0
