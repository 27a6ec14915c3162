"""Control flow as graph ops: `switch` (and `cond`), `while_loop`, `scan`; `stop_gradient`
and `custom_gradient`.

A branch or a loop body is a Python function traced once into a *subgraph*
(paddle/lowlevel/subgraph.py): it is called on placeholder Variables of the carried
shapes and dtypes, and the nodes it built are copied onto placeholders of their own, so
that the subgraph reads nothing of the outer graph. Outer Variables the function used
(parameters, other ops' outputs, inputs) are *captured*: they become inputs of the
control-flow op, so their values are computed outside and their gradients flow back.
The op's kernel (one for every device, paddle/devices/nested.py) runs the subgraph's own
plan on the same device: a switch runs one branch, a while loop repeats its body while
the predicate holds, a scan runs its body once per step and stacks what each step gives.

Gradients are built from the same ops: a switch's is a switch of its branches'
gradients; a scan's is a reverse scan over the carries each step saw (the op's extra
outputs), whose body is the forward body's gradient subgraph; a while loop, whose trip
count is known only when it runs, has none (as JAX's `while_loop` refuses reverse mode)
unless it has a `maximum_iterations`: then its gradient is that of a scan of that many
steps; `fori_loop` with Python bounds is a scan and has one.

Example:
    >>> import numpy as np, paddle as pd
    >>> from paddle.lowlevel.ops.control_flow import scan
    >>> xs = pd.constant(np.array([1.0, 2.0, 3.0], np.float32))
    >>> total, partial = scan(lambda c, x: (c + x, c * x), pd.constant(0.0), xs)
    >>> float(pd.eval(total)), pd.eval(partial).tolist()
    (6.0, [0.0, 2.0, 9.0])
"""
import numpy as np

from paddle.errors import ShapeError, at_user
from paddle.lowlevel.gradients import gradients
from paddle.lowlevel.graph import FLOATS, Variable, apply, as_variable
from paddle.lowlevel.op import OPS, Op, fmt_shape, register
from paddle.lowlevel.ops.math import add, cast, greater, mul, zeros_like
from paddle.lowlevel.subgraph import (check_invariant, compatible, describe, flatten, merge,
                                      paths, same_structure, tensors, trace, unflatten)

__all__ = ["cond", "custom_gradient", "scan", "stop_gradient", "switch", "while_loop"]


@register
class Switch(Op):
    """Run branch `index` (clamped to the branches) of `branches` on the operands.

    Inputs: [index, *operands, *captured of branch 0, *captured of branch 1, ...];
    attrs: `branches` (Subgraphs), `selects` (the input positions each branch reads).
    """

    name = "switch"
    runs_programs = True

    def infer(self, index, *inputs, branches, selects, definition=None):
        if index[0] != () or index[1] not in ("int32", "int64", "bool"):
            self.fail(f"expected a scalar integer index (a scalar bool predicate for cond), "
                      f"received {index[1]}", ("index", index[0]))
        everything = (index,) + inputs
        outs = None
        for k, (branch, select) in enumerate(zip(branches, selects)):
            got = branch.infer([everything[i] for i in select])
            if outs is None:
                outs = got
                continue
            if len(got) != len(outs):
                self.fail(f"branch {k} returns {len(got)} tensors, branch 0 returns {len(outs)}")
            for j, ((s0, d0), (s1, d1)) in enumerate(zip(outs, got)):
                if d0 != d1 or not compatible(s0, s1):
                    self.fail(f"output {j} of branch {k} is {fmt_shape(s1)} {d1}, of branch 0 "
                              f"{fmt_shape(s0)} {d0}: every branch returns the same shapes "
                              "and dtypes")
            outs = [(merge(s0, s1), d0) for (s0, d0), (s1, _) in zip(outs, got)]
        return list(outs)

    def grad(self, node, grads):
        branches, selects = node.attrs["branches"], node.attrs["selects"]
        ins = node.inputs
        # One gradient per distinct float input, at its first position (an operand may
        # also be captured: the gradient of the Variable covers both roles).
        first = {}
        for i in range(1, len(ins)):
            if ins[i].dtype in FLOATS:
                first.setdefault(id(ins[i]), i)
        wanted = sorted(first.values())
        if not wanted:
            return [None] * len(ins)
        flowing = [(j, g) for j, g in enumerate(grads) if g is not None]

        def branch_gradient(k):
            def fn():
                outs = branches[k].call([ins[i] for i in selects[k]])
                ys = [outs[j] for j, _ in flowing if outs[j].dtype in FLOATS]
                gys = [g for j, g in flowing if outs[j].dtype in FLOATS]
                got = gradients(ys, [ins[i] for i in wanted], gys) if ys else [None] * len(wanted)
                return [zeros_like(ins[i]) if g is None else g for i, g in zip(wanted, got)]
            return fn

        result = switch(ins[0], [branch_gradient(k) for k in range(len(branches))])
        out = [None] * len(ins)
        for i, g in zip(wanted, result):
            out[i] = g
        return out


def switch(index, branches, *operands):
    """Run `branches[index]` on `operands` (Keras's `ops.switch`): the index is clamped to
    [0, len(branches) - 1]; every branch returns the same structure of tensors of the
    same shapes and dtypes. A Python or NumPy index just calls its branch.

    Example:
        >>> import paddle as pd
        >>> from paddle.lowlevel.ops.control_flow import switch
        >>> k = pd.constant(1, dtype="int32")
        >>> y = switch(k, [lambda x: x + 1.0, lambda x: x * 10.0], pd.constant(2.0))
        >>> float(pd.eval(y))
        20.0
    """
    branches = list(branches)
    if not branches or not all(callable(b) for b in branches):
        raise TypeError(at_user(f"switch: expected a non-empty list of callables as branches, "
                                f"received {branches!r}"))
    if not isinstance(index, Variable):
        if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)) and \
                not (isinstance(index, np.ndarray) and index.shape == () and
                     index.dtype.kind in "iu"):
            raise TypeError(at_user(f"switch: expected an integer index, received {index!r}"))
        return branches[min(max(int(index), 0), len(branches) - 1)](*operands)
    return _switch(index, branches, operands, "switch")


def _switch(index, branches, operands, what):
    """The switch node (or its structured outputs) on Variables."""
    if index.shape != () or index.dtype not in ("int32", "int64", "bool"):
        raise TypeError(at_user(f"{what}: expected a scalar "
                                f"{'bool predicate' if what == 'cond' else 'integer index'}, "
                                f"received a Variable of shape {fmt_shape(index.shape)} and "
                                f"dtype {index.dtype}"))
    args, definition = tensors(list(operands), what)
    names = paths(definition, "operands")
    specs = [(a.shape, a.dtype) for a in args]
    graphs, result_definition, inputs, selects = [], None, [index] + args, []
    labels = ["false_fn", "true_fn"] if what == "cond" else \
        [f"branches[{k}]" for k in range(len(branches))]
    for k, branch in enumerate(branches):
        graph, out_definition = trace(branch, specs, definition, f"{what}: {labels[k]}", names)
        if result_definition is None:
            result_definition = out_definition
        elif not same_structure(result_definition, out_definition):
            raise ValueError(at_user(f"{what}: the branches return different structures: "
                                     f"{labels[k]} returns {describe(out_definition)}, "
                                     f"{labels[0]} returns {describe(result_definition)}"))
        graphs.append(graph)
        positions = {id(v): i for i, v in reversed(list(enumerate(inputs)))}
        select = list(range(1, 1 + len(args)))
        for v in graph.captured:  # a Variable both branches read is one input
            if id(v) not in positions:
                positions[id(v)] = len(inputs)
                inputs.append(v)
            select.append(positions[id(v)])
        selects.append(tuple(select))
    if not graphs[0].outputs:
        return unflatten(result_definition, [])
    outs = apply(OPS["switch"], inputs, {"branches": tuple(graphs), "selects": tuple(selects)})
    return unflatten(result_definition, outs if isinstance(outs, list) else [outs])


def cond(pred, true_fn, false_fn):
    """`true_fn()` if `pred` else `false_fn()` (Keras's `ops.cond`), as one op that runs
    only the chosen branch. `pred` is a scalar bool Variable; a Python or NumPy bool just
    calls its branch. Both branches return the same structure of tensors.

    Example:
        >>> import paddle as pd
        >>> from paddle.lowlevel.ops.control_flow import cond
        >>> x = pd.constant(3.0)
        >>> float(pd.eval(cond(x > 2.0, lambda: x * x, lambda: -x)))
        9.0
    """
    if not (callable(true_fn) and callable(false_fn)):
        raise TypeError(at_user("cond: expected callables as true_fn and false_fn, received "
                                f"{type(true_fn).__name__} and {type(false_fn).__name__}"))
    if not isinstance(pred, Variable):
        value = np.asarray(pred)
        if value.shape != () or value.dtype != bool:
            raise TypeError(at_user(f"cond: expected a scalar bool predicate, received "
                                    f"{pred!r}"))
        return true_fn() if bool(value) else false_fn()
    if pred.dtype != "bool" or pred.shape != ():
        raise TypeError(at_user(f"cond: expected a scalar bool predicate, received a Variable "
                                f"of shape {fmt_shape(pred.shape)} and dtype {pred.dtype}"))
    return _switch(cast(pred, "int32"), [lambda: false_fn(), lambda: true_fn()], (), "cond")


# ---- while loops ------------------------------------------------------------------------


@register
class WhileLoop(Op):
    """Repeat `body` on the carries while `cond` gives True (at most `maximum_iterations`
    times). Inputs: [*carries, *captured of cond, *captured of body]."""

    name = "while_loop"
    runs_programs = True

    def infer(self, *inputs, cond, body, cond_select, body_select, names,
              maximum_iterations=None):
        carries = inputs[:len(names)]
        pred = cond.infer([inputs[i] for i in cond_select])
        if len(pred) != 1 or pred[0][0] != () or pred[0][1] != "bool":
            got = ", ".join(f"{fmt_shape(s)} {d}" for s, d in pred)
            self.fail(f"cond must return one scalar bool, it returns {got or 'nothing'}")
        results = body.infer([inputs[i] for i in body_select])
        check_invariant(self, carries, results, names)
        return [(s, d) for s, d in carries]

    def grad(self, node, grads):
        if node.attrs["maximum_iterations"] is None:
            raise ShapeError(f"while_loop: no gradient through a while loop without "
                             f"maximum_iterations (built at {node.location or '?'}): its trip "
                             "count is known only when it runs; give maximum_iterations, or "
                             "differentiate an ops.fori_loop with Python int bounds or an "
                             "ops.scan instead")
        return _bounded_while_gradient(node, grads)


def _bounded_while_gradient(node, grads):
    """The gradient of a while loop of at most `maximum_iterations` steps: that of the
    same loop written as a scan of that many steps, each running the body under a cond
    while the loop is still going (once the predicate has failed, the carries stay as
    they are). The scan recomputes the forward, so this costs `maximum_iterations` steps
    whatever the trip count was."""
    attrs, ins = node.attrs, node.inputs
    n = len(attrs["names"])
    cond_graph, body_graph = attrs["cond"], attrs["body"]
    rest = list(ins[n:])

    def step(carry, _):
        going, carries = carry[0], list(carry[1:])
        everything = carries + rest
        pred = cond_graph.call([everything[i] for i in attrs["cond_select"]])[0]
        going = pd_and(going, pred)
        new = cond(going, lambda: body_graph.call([everything[i] for i in attrs["body_select"]]),
                   lambda: carries)
        return [going] + list(new), None
    start = [as_variable(np.array(True), where="while_loop")] + list(ins[:n])
    final, _ = scan(step, start, length=attrs["maximum_iterations"])
    first = {}
    for i, v in enumerate(ins):
        if v.dtype in FLOATS:
            first.setdefault(id(v), i)
    wanted = sorted(first.values())
    flowing = [i for i in range(n) if grads[i] is not None and ins[i].dtype in FLOATS]
    if not wanted or not flowing:
        return [None] * len(ins)
    got = gradients([final[1 + i] for i in flowing], [ins[i] for i in wanted],
                    [grads[i] for i in flowing])
    out = [None] * len(ins)
    for i, g in zip(wanted, got):
        out[i] = g
    return out


def pd_and(a, b):
    """Logical and of two bool Variables, from casts (there is no logical op)."""
    return greater(mul(cast(a, "int32"), cast(b, "int32")), 0)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Run `loop_vars = body(*loop_vars)` while `cond(*loop_vars)` is True (Keras's
    `ops.while_loop`), as one op. `loop_vars` is a tensor or a tuple/list/dict structure of
    them; the body returns the same structure with the same shapes and dtypes. Gradients
    flow through it only with `maximum_iterations` (else use `scan`, or `fori_loop` with
    Python bounds).

    Example:
        >>> import paddle as pd
        >>> from paddle.lowlevel.ops.control_flow import while_loop
        >>> i, s = while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i),
        ...                   (pd.constant(0), pd.constant(0)))
        >>> int(pd.eval(i)), int(pd.eval(s))
        (5, 10)
    """
    if not (callable(cond) and callable(body)):
        raise TypeError(at_user("while_loop: expected callables as cond and body"))
    if maximum_iterations is not None and (
            isinstance(maximum_iterations, bool) or
            not isinstance(maximum_iterations, (int, np.integer)) or maximum_iterations < 0):
        raise ValueError(at_user(f"while_loop: expected maximum_iterations to be an int >= 0 "
                                 f"or None, received {maximum_iterations!r}"))
    is_tuple = isinstance(loop_vars, (list, tuple))
    structure = tuple(loop_vars) if is_tuple else (loop_vars,)
    carries, definition = tensors(structure, "while_loop")
    names = paths(definition, "loop_vars") if is_tuple else \
        paths(flatten(loop_vars)[1], "loop_vars")
    specs = [(c.shape, c.dtype) for c in carries]
    cond_graph, _ = trace(cond, specs, definition, "while_loop: cond", names)

    def step(*args):
        result = body(*args)
        return tuple(result) if is_tuple and isinstance(result, (list, tuple)) else \
            (result,) if not is_tuple else result
    body_graph, out_definition = trace(step, specs, definition, "while_loop: body", names)
    if not same_structure(definition, out_definition):
        raise ValueError(at_user(f"while_loop: the body returns {describe(out_definition)}, "
                                 f"expected the structure of loop_vars, "
                                 f"{describe(definition)}"))
    n = len(carries)
    inputs = carries + cond_graph.captured + body_graph.captured
    attrs = {"cond": cond_graph, "body": body_graph,
             "cond_select": tuple(range(n)) + tuple(range(n, n + len(cond_graph.captured))),
             "body_select": tuple(range(n)) + tuple(range(n + len(cond_graph.captured),
                                                          len(inputs))),
             "names": tuple(names), "maximum_iterations": maximum_iterations}
    outs = apply(OPS["while_loop"], inputs, attrs)
    outs = outs if isinstance(outs, list) else [outs]
    result = unflatten(definition, outs)
    return result if is_tuple else result[0]  # a tuple for a list too, as Keras on JAX


# ---- scan -------------------------------------------------------------------------------


@register
class Scan(Op):
    """Run `body(carries, x_t) -> (carries, y_t)` for t over axis 0 of the xs (backwards
    with `reverse`). Inputs: [*carries, *xs, *captured]; outputs: the final carries, each
    y stacked over the steps, and each carry as each step received it (for the gradient).
    """

    name = "scan"
    runs_programs = True

    def infer(self, *inputs, body, length, reverse, n_carries, n_xs, names):
        carries, xs = inputs[:n_carries], inputs[n_carries:n_carries + n_xs]
        steps = length
        for k, (s, _) in enumerate(xs):
            if not s:
                self.fail(f"xs[{k}] is a scalar; scan steps over axis 0", ("xs", s))
            if steps is None:
                steps = s[0]
            elif s[0] is not None and s[0] != steps:
                self.fail(f"xs[{k}] has {s[0]} steps along axis 0, expected {steps}",
                          ("xs", s))
        step_specs = list(carries) + [(s[1:], d) for s, d in xs] + \
            list(inputs[n_carries + n_xs:])
        results = body.infer(step_specs)
        check_invariant(self, carries, results[:n_carries], names)
        ys = [((steps,) + tuple(s), d) for s, d in results[n_carries:]]
        history = [((steps,) + tuple(s), d) for s, d in carries]
        return [(tuple(s), d) for s, d in carries] + ys + history

    def grad(self, node, grads):
        return _scan_gradient(node, grads)


def _scan_gradient(node, grads):
    """The inputs' gradients: a reverse scan over the steps, each running the body's
    gradient on the carries that step received (the op's history outputs)."""
    attrs = node.attrs
    nc, nx, body = attrs["n_carries"], attrs["n_xs"], attrs["body"]
    ins = node.inputs
    carries, xs, caps = ins[:nc], ins[nc:nc + nx], ins[nc + nx:]
    outs = node.outputs
    ny = len(outs) - 2 * nc
    history = _history(node)
    final_g = [grads[i] for i in range(nc)]
    y_g = grads[nc:nc + ny]
    fc = [i for i in range(nc) if carries[i].dtype in FLOATS]
    fx = [i for i in range(nx) if xs[i].dtype in FLOATS]
    fp = [i for i in range(len(caps)) if caps[i].dtype in FLOATS]
    fy = [j for j in range(ny) if y_g[j] is not None and body.outputs[nc + j].dtype in FLOATS]
    # The history outputs are the carries each step received: their gradients (a gradient
    # of this gradient reads them) add to those carries' at that step.
    h_g = grads[nc + ny:]
    fh = [k for k, i in enumerate(fc) if h_g[i] is not None]
    if not (fc or fx or fp):
        return [None] * len(ins)
    init = [final_g[i] if final_g[i] is not None else zeros_like(carries[i]) for i in fc] + \
        [zeros_like(caps[i]) for i in fp]

    def step(carry, step_in):
        g_carry, g_caps = carry[:len(fc)], carry[len(fc):]
        c_t, x_t = step_in[:nc], step_in[nc:nc + nx]
        gy_t, gh_t = step_in[nc + nx:nc + nx + len(fy)], step_in[nc + nx + len(fy):]
        outs_t = body.call(list(c_t) + list(x_t) + list(caps))
        ys = [outs_t[i] for i in fc] + [outs_t[nc + j] for j in fy]
        wrt = [c_t[i] for i in fc] + [x_t[i] for i in fx] + [caps[i] for i in fp]
        got = gradients(ys, wrt, list(g_carry) + list(gy_t))
        got = [zeros_like(v) if g is None else g for v, g in zip(wrt, got)]
        gc, gx, gp = got[:len(fc)], got[len(fc):len(fc) + len(fx)], got[len(fc) + len(fx):]
        for k, g in zip(fh, gh_t):
            gc[k] = add(gc[k], g)
        return list(gc) + [add(a, b) for a, b in zip(g_caps, gp)], list(gx)

    stepped = list(history) + list(xs) + [y_g[j] for j in fy] + [h_g[fc[k]] for k in fh]
    final, gxs = scan(step, init, stepped, length=attrs["length"] if not stepped else None,
                      reverse=not attrs["reverse"])
    result = [None] * len(ins)
    for k, i in enumerate(fc):
        result[i] = final[k]
    for k, i in enumerate(fp):
        result[nc + nx + i] = final[len(fc) + k]
    for k, i in enumerate(fx):
        result[nc + i] = gxs[k]
    return result


def _history(node):
    """The history outputs of a scan node (the carries each step received). They are
    weak outputs: a dropped one is made again by a node reading the same inputs (the
    gradient needs them; the forward's values are what it would recompute)."""
    nc = node.attrs["n_carries"]
    outs = node.outputs
    if all(o is not None for o in outs[len(outs) - nc:]):
        return outs[len(outs) - nc:]
    again = apply(node.op, list(node.inputs), node.attrs, location=node.location)
    again = again if isinstance(again, list) else [again]
    return again[len(again) - nc:]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Loop `carry, y = f(carry, x)` over the leading axis of `xs` (Keras's `ops.scan`):
    returns the final carry and the ys stacked along a new axis 0. `init` and `xs` are
    tensors or nested structures of them; `xs=None` runs `length` steps with `x=None`.
    `unroll` is accepted for Keras's signature; the loop runs as one op whatever it is.

    Example:
        >>> import numpy as np, paddle as pd
        >>> from paddle.lowlevel.ops.control_flow import scan
        >>> xs = pd.constant(np.arange(4, dtype=np.float32))
        >>> last, running = scan(lambda c, x: (c + x, c + x), pd.constant(0.0), xs)
        >>> pd.eval(running).tolist()
        [0.0, 1.0, 3.0, 6.0]
    """
    if not callable(f):
        raise TypeError(at_user(f"scan: expected a callable f, received {type(f).__name__}"))
    if xs is None and length is None:
        raise ValueError(at_user("scan: expected xs or a length, received neither"))
    if length is not None and (isinstance(length, bool) or
                               not isinstance(length, (int, np.integer)) or length < 0):
        raise ValueError(at_user(f"scan: expected length to be an int >= 0, received "
                                 f"{length!r}"))
    if not isinstance(unroll, (bool, int, np.integer)) or \
            (not isinstance(unroll, bool) and unroll < 1):
        raise ValueError(at_user(f"scan: expected unroll to be an int >= 1 or a bool, "
                                 f"received {unroll!r}"))
    carries, c_def = tensors(init, "scan")
    xvars, x_def = tensors(xs, "scan")
    for k, x in enumerate(xvars):
        if x.ndim == 0:
            raise ShapeError(at_user(f"scan: xs{paths(x_def, '')[k]} is a scalar; scan steps "
                                     "over axis 0 of each x"))
        if length is not None and x.shape[0] is not None and x.shape[0] != length:
            raise ShapeError(at_user(f"scan: length is {length}, but xs{paths(x_def, '')[k]} "
                                     f"has {x.shape[0]} steps along axis 0"))
    names = paths(c_def, "init") if c_def[0] != "leaf" else ["init"]
    specs = [(c.shape, c.dtype) for c in carries] + [(x.shape[1:], x.dtype) for x in xvars]
    top = ("seq", tuple, [c_def, x_def])
    graph, out_def = trace(lambda c, x: _pair_result(f(c, x)), specs, top, "scan: f",
                           names + [f"x{p}" for p in paths(x_def, "")])
    if out_def[0] != "seq" or len(out_def[2]) != 2:
        raise ValueError(at_user("scan: f must return a pair (carry, y)"))
    carry_def, y_def = out_def[2]
    if not same_structure(c_def, carry_def):
        raise ValueError(at_user(f"scan: f returns the carry {describe(carry_def)}, expected "
                                 f"the structure of init, {describe(c_def)}"))
    nc, nx = len(carries), len(xvars)
    attrs = {"body": graph, "length": length if not xvars else None, "reverse": bool(reverse),
             "n_carries": nc, "n_xs": nx, "names": tuple(names)}
    outs = apply(OPS["scan"], carries + xvars + graph.captured, attrs)
    outs = outs if isinstance(outs, list) else [outs]
    ny = len(outs) - 2 * nc
    # The history outputs are only the gradient's: the results hold them, so that the
    # gradient reads them from this node instead of running the loop again (_history).
    for out in outs[:nc + ny]:
        out._scan_history = outs[nc + ny:]
    return unflatten(c_def, outs[:nc]), unflatten(y_def, outs[nc:nc + ny])


def _pair_result(result):
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise ValueError(at_user(f"scan: f must return a pair (carry, y), received "
                                 f"{type(result).__name__}"))
    return tuple(result)


# ---- gradients: stopped, or the user's own ------------------------------------------------


@register
class StopGradient(Op):
    """The input itself (its buffer, no kernel), through which no gradient flows."""

    name = "stop_gradient"
    view = True

    def infer(self, x):
        return x

    def grad(self, node, grads):
        return [None]


def stop_gradient(variable):
    """`variable`'s value, through which no gradient flows (Keras's `ops.stop_gradient`).

    Example:
        >>> import paddle as pd
        >>> x = pd.data("sg_x", shape=[])
        >>> g, = pd.gradients(x * stop_gradient(x), [x])
        >>> float(pd.eval(g, {x: 3.0}))
        3.0
    """
    return apply(OPS["stop_gradient"], [as_variable(variable, where="stop_gradient")])


@register
class CustomGradient(Op):
    """Its input 0 (the forward's result, aliased: no kernel), whose gradient with respect
    to the other inputs is the user's function `grad_fn(upstream)` instead of the
    forward's own."""

    name = "custom_gradient"
    view = True

    def infer(self, y, *inputs, grad_fn):
        return y

    def grad(self, node, grads):
        xs = node.inputs[1:]
        if grads[0] is None:
            return [None] * len(node.inputs)
        got = node.attrs["grad_fn"](grads[0])
        got = list(got) if isinstance(got, (list, tuple)) else [got]
        if len(got) != len(xs):
            raise ValueError(f"custom_gradient: the gradient function returned {len(got)} "
                             f"gradients for {len(xs)} inputs (built at "
                             f"{node.location or '?'})")
        out = [None]
        for x, g in zip(xs, got):
            if g is None or x.dtype not in FLOATS:
                out.append(None)
                continue
            g = as_variable(g, like=x, where="custom_gradient")
            if g.shape != x.shape and compatible(g.shape, x.shape) is False:
                raise ShapeError(f"custom_gradient: the gradient of an input of shape "
                                 f"{fmt_shape(x.shape)} has shape {fmt_shape(g.shape)} "
                                 f"(built at {node.location or '?'})")
            out.append(g)
        return out


def custom_gradient(f):
    """Decorator: `f(*args)` returns `(y, grad_fn)`, and the gradient of `y` with respect to
    each tensor argument is `grad_fn(upstream)` (one per argument, or a tuple of them)
    instead of the one the ops of `f` would give (Keras's `ops.custom_gradient`).

    Example:
        >>> import paddle as pd
        >>> @custom_gradient
        ... def clipped(x):
        ...     return x * 1.0, lambda upstream: upstream * 0.5
        >>> x = pd.data("cg_x", shape=[])
        >>> g, = pd.gradients(clipped(x), [x])
        >>> float(pd.eval(g, {x: 3.0}))
        0.5
    """
    if not callable(f):
        raise TypeError(at_user(f"custom_gradient: expected a function, received "
                                f"{type(f).__name__}"))

    def wrapper(*args):
        xs = [as_variable(a, where="custom_gradient") for a in args]
        result = f(*xs)
        if not isinstance(result, (tuple, list)) or len(result) != 2 or \
                not callable(result[1]):
            raise ValueError(at_user("custom_gradient: the function must return "
                                     "(output, grad_fn)"))
        y, grad_fn = result
        y = as_variable(y, where="custom_gradient")
        return apply(OPS["custom_gradient"], [y] + xs, {"grad_fn": _keras_grad(grad_fn)})
    wrapper.__name__ = getattr(f, "__name__", "custom_gradient")
    wrapper.__doc__ = f.__doc__
    return wrapper


def _keras_grad(grad_fn):
    """Keras's examples write `def grad(*args, upstream=None)` (TensorFlow passes it by
    name, JAX positionally): passing it positionally serves both."""
    return lambda upstream: grad_fn(upstream)

