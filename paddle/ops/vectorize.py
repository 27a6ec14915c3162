"""`pd.ops.vectorize`: Keras's `keras.ops.vectorize` (NumPy's and JAX's `vectorize`), built
on `pd.ops.scan`: the function runs once per element of the broadcast batch shape (per
core slice with a `signature`), so any function of tensors works, with the gradient of
the ops it is made of.

Example:
    >>> import numpy as np, paddle as pd
    >>> add = pd.ops.vectorize(lambda a, b: a + b)
    >>> add(np.array([1.0, 2.0, 3.0], np.float32), 2.0).numpy().tolist()
    [3.0, 4.0, 5.0]
"""
import re

import numpy as np

from paddle.lowlevel.graph import Variable
from paddle.ops._arrays import fail, tensor
from paddle.ops.core import scan
from paddle.ops.numpy_shape import broadcast_to, reshape

__all__ = ["vectorize"]

_CORE = r"\((\s*\w+\s*(?:,\s*\w+\s*)*)?\)"
_SIGNATURE = re.compile(rf"^{_CORE}(\s*,\s*{_CORE})*\s*->\s*{_CORE}(\s*,\s*{_CORE})*$")


def _parse(signature):
    """[[core dim names] per input], [[...] per output] of a gufunc signature."""
    if not isinstance(signature, str) or not _SIGNATURE.match(signature.strip()):
        fail(ValueError, f"vectorize: expected a signature like '(m,n),(n)->(m)', received "
                         f"{signature!r}")
    sides = signature.replace(" ", "").split("->")
    return [[[d for d in group.split(",") if d] for group in re.findall(r"\(([\w,]*)\)", side)]
            for side in sides]


def vectorize(pyfunc, *, excluded=None, signature=None):
    """`pyfunc` turned into a function that maps over the leading (batch) axes of its
    arguments, as `keras.ops.vectorize`.

    Args:
        pyfunc: a function of tensors. Without a signature it is given one element of
            each (broadcast) argument at a time and returns scalars.
        excluded: positions of arguments passed to `pyfunc` unchanged.
        signature: a generalized ufunc signature, e.g. "(m,n),(n)->(m)": the trailing
            "core" axes each argument gives `pyfunc` whole; the axes before them are
            broadcast and mapped over. Several outputs: "(n)->(),(n)".

    Returns:
        A function taking `pyfunc`'s arguments (keyword arguments are passed through
        unchanged) and returning tensors of shape batch + the output's core shape.

    Example:
        >>> import numpy as np, paddle as pd
        >>> dot = pd.ops.vectorize(lambda a, b: pd.ops.sum(a * b), signature="(n),(n)->()")
        >>> dot(np.ones((2, 3), np.float32), np.arange(3.0, dtype=np.float32)).numpy().tolist()
        [3.0, 3.0]
    """
    if not callable(pyfunc):
        fail(ValueError, f"vectorize: expected a callable pyfunc, received "
                         f"{type(pyfunc).__name__}")
    excluded = set(excluded or ())
    if any(not isinstance(i, int) or isinstance(i, bool) for i in excluded):
        fail(TypeError, f"vectorize: expected excluded to hold argument positions (ints), "
                        f"received {sorted(excluded, key=str)!r}")
    cores_in, cores_out = _parse(signature) if signature is not None else (None, None)

    def wrapped(*args, **kwargs):
        mapped = [i for i in range(len(args)) if i not in excluded]
        if cores_in is not None and len(cores_in) != len(mapped):
            fail(TypeError, f"vectorize: the signature {signature!r} has {len(cores_in)} "
                            f"inputs, received {len(mapped)} mapped arguments")
        xs = [tensor(args[i], "vectorize") for i in mapped]
        ranks = [len(c) for c in cores_in] if cores_in is not None else [0] * len(xs)
        sizes = {}
        for k, (x, r) in enumerate(zip(xs, ranks)):
            if None in x.shape:
                fail(ValueError, f"vectorize: needs the shapes of its arguments when the "
                                 f"graph is built, received argument {mapped[k]} of shape "
                                 f"{x.shape}")
            if x.ndim < r:
                fail(ValueError, f"vectorize: argument {mapped[k]} needs at least {r} axes for "
                                 f"the signature {signature!r}, received shape {x.shape}")
            for name, size in zip(cores_in[k] if cores_in is not None else (),
                                  x.shape[x.ndim - r:]):
                if sizes.setdefault(name, size) != size:
                    fail(ValueError, f"vectorize: core axis {name!r} of the signature "
                                     f"{signature!r} is {sizes[name]} and {size} in the "
                                     f"arguments' shapes {[v.shape for v in xs]}")
        try:
            batch = tuple(np.broadcast_shapes(*[x.shape[:x.ndim - r]
                                                for x, r in zip(xs, ranks)]))
        except ValueError:
            fail(ValueError, f"vectorize: the arguments' batch shapes do not broadcast: "
                             f"{[x.shape[:x.ndim - r] for x, r in zip(xs, ranks)]}")
        count = int(np.prod(batch, dtype=np.int64))
        flat = [reshape(broadcast_to(x, batch + x.shape[x.ndim - r:]),
                        (count,) + x.shape[x.ndim - r:]) for x, r in zip(xs, ranks)]

        def call(slices):
            full = list(args)
            for i, v in zip(mapped, slices):
                full[i] = v
            return pyfunc(*full, **kwargs)

        _, ys = scan(lambda carry, slices: (carry, call(slices)), (), tuple(flat),
                     length=count)
        outs = list(ys) if isinstance(ys, (tuple, list)) else [ys]
        if cores_out is not None and len(cores_out) != len(outs):
            fail(ValueError, f"vectorize: the signature {signature!r} has {len(cores_out)} "
                             f"outputs, pyfunc returned {len(outs)}")
        shaped = [reshape(y, batch + tuple(y.shape[1:])) if isinstance(y, Variable) else y
                  for y in outs]
        return tuple(shaped) if isinstance(ys, (tuple, list)) else shaped[0]

    wrapped.__name__ = getattr(pyfunc, "__name__", "vectorized")
    wrapped.__doc__ = getattr(pyfunc, "__doc__", None)
    return wrapped
