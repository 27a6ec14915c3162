"""Throw bad and edge-case input at paddle, each case in a child process, and classify what
happens.

Not a test: a tool to find crashes, hangs, silent garbage and unhelpful error messages.
Every case is a short Python snippet (run with `np` and `pd` imported); the report prints
the snippet of each case that is not OK, so it is its own reproducer.

Run (from the repository root, with the development venv; `python -m tools.fuzz` takes the
same options as `python tools/fuzz_inputs.py`):

    python tools/fuzz_inputs.py                      # every case, a summary, the non-OK ones
    python tools/fuzz_inputs.py --filter conv        # cases whose area/name contains 'conv'
    python tools/fuzz_inputs.py --list               # the case names, nothing run
    python tools/fuzz_inputs.py --show NAME          # one case's snippet
    python tools/fuzz_inputs.py --run NAME           # one case in this process (debugging)
    python tools/fuzz_inputs.py --jobs 2 --timeout 20 --memory-gb 4 --all
    python tools/fuzz_inputs.py --sweep 400 --bitflips 300 --json out.json   # a longer hunt

Areas: ops.* (every public op of paddle.lowlevel.ops and the nn ops), executor and graph
(feeds, Variables, optimizers, threads), layers.* (constructors and inputs of every layer),
model.* (compile/fit/evaluate/predict/on_batch with bad data), saving (random, truncated and
bit-flipped HDF5 files; saving.untrusted: crafted ones, docs/security.md), reader
(decorators), internal (the C++ kernels called with specs that lie), catalog.* (issue 16's
catalogue), tensorboard, plots and export, and sweep (random geometries of the kernels against NumPy references).

Each case runs in a process forked from a parent that has imported paddle but never run a
kernel, with its address space capped (--memory-gb, so an absurd allocation fails instead
of getting the machine's OOM killer involved) and a wall-clock limit (--timeout; a case
that passes it is a HANG). Outcomes:

    OK           a Python exception whose message names the op/layer and what was wrong,
                 or a correct result
    BAD MESSAGE  an exception, but an unhelpful one: AttributeError/KeyError/'NoneType'...
                 from the internals, or a message that does not name the op/layer
    CRASH        the child died of a signal (segfault, abort) or exited without a report
    HANG         the child ran past the time limit
    GARBAGE      no error, but a wrong or NaN result from finite input, or invalid input
                 silently accepted

The exit status is 1 when any case is CRASH, HANG or GARBAGE (BAD MESSAGEs are listed but
do not fail the run).

The package: `core` (a case and the list of them), `prelude` (what a snippet can use),
`runner` (the forked children and the classification), `cli` (the options and the order the
areas are generated in), and one module per area of the library: `ops_elementwise`,
`ops_reduce`, `ops_shape`, `nn_conv`, `nn_norm_rnn`, `executor`, `layers`, `model`, `saving`,
`reader`, `internal`, `catalog`, `outputs`, `sweep`, `control_flow`. A new op or argument
belongs in its area's case tables; a new area is a module whose generator is listed in `cli.GENERATORS`.
"""
