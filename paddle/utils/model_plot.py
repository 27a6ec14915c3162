"""Pictures of models: `plot_model` and `model_to_dot`, as Keras's, with pydot and Graphviz.

The model is read as a graph of layers (`paddle.highlevel.layer_graph`): one node per
layer and per input, named as the layer, and one edge per connection, so branches and
merges are drawn as the DAG they are; a nested model is one node, or with
`expand_nested=True` a box holding its own layers. pydot builds the DOT source and Graphviz's
`dot` program lays it out and draws it. Install them with
`pip install "paddle-graph[plot]"` and your system's Graphviz package.
"""
import os
import shutil

from paddle._atomic import write_bytes
from paddle.highlevel.layer_graph import layer_graph
from paddle.highlevel.model import Model

OPTIONAL_REQUIREMENTS = ("pydot",)  # docstring examples run only where it is installed

FORMATS = ("png", "svg", "pdf", "jpg", "jpeg", "gif", "ps", "dot")
DOT_MISSING = ("Graphviz's `dot` program was not found on PATH, and plot_model needs it to "
               "draw the picture. Install Graphviz: apt-get install graphviz (Debian, Ubuntu), "
               "dnf install graphviz (Fedora), brew install graphviz (macOS), conda install "
               "graphviz, or see https://graphviz.org/download/")


def _pydot(who):
    try:  # optional (the `plot` extra): imported when a picture is asked for
        import pydot
    except ImportError:
        raise ImportError(f"{who}: the 'pydot' package is not installed; install it with "
                          "pip install 'paddle-graph[plot]' (or pip install pydot)") from None
    return pydot


def _check_model(model, who):
    if not isinstance(model, Model):
        raise TypeError(f"{who}: expected a pd.Model (Sequential, functional or subclassed), "
                        f"received {type(model).__name__}")


def _label(node, show_shapes, show_layer_names, show_dtype):
    title = f"{node.name} ({node.class_name})" if show_layer_names else node.class_name
    lines = [title]
    if show_shapes:
        def fmt(shapes):
            return ", ".join(str(tuple(s)) for s in shapes) if shapes else "?"
        if node.layer is None:
            lines.append(f"shape: {fmt(node.output_shapes)}")
        else:
            lines.append(f"input: {fmt(node.input_shapes)}")
            lines.append(f"output: {fmt(node.output_shapes)}")
    if show_dtype:
        dtype = getattr(node.layer, "dtype", None) if node.layer is not None else "input"
        lines.append(f"dtype: {dtype}")
    return "\n".join(lines)


def model_to_dot(model, show_shapes=False, show_layer_names=True, rankdir="TB",
                 expand_nested=False, dpi=96, show_dtype=False):
    """The model's graph of layers as a `pydot.Dot` (its `.to_string()` is the DOT source).

    Args:
        model: a built pd.Model (Sequential with an input shape, functional, or subclassed
            and called on data).
        show_shapes: write each layer's input and output shapes.
        show_layer_names: write each layer's name before its class.
        rankdir: "TB" (top to bottom) or "LR" (left to right).
        expand_nested: draw nested models as boxes of their layers.
        dpi: the picture's resolution.
        show_dtype: write each layer's dtype.

    Returns:
        A pydot.Dot with one node per input and layer, named as the layer.

    Raises:
        ValueError: the model is not built (named in the message).
        ImportError: pydot is missing.

    Example:
        >>> import paddle as pd
        >>> inp = pd.Input(shape=(4,), name="x")
        >>> h = pd.layers.Dense(3, name="h")(inp)
        >>> model = pd.Model(inp, pd.layers.Add(name="sum")([h, pd.layers.Dense(3, name="g")(inp)]))
        >>> dot = pd.utils.model_to_dot(model)
        >>> sorted(n.get_name() for n in dot.get_nodes())
        ['g', 'h', 'sum', 'x']
        >>> sorted((e.get_source(), e.get_destination()) for e in dot.get_edges())
        [('g', 'sum'), ('h', 'sum'), ('x', 'g'), ('x', 'h')]
    """
    return _to_dot(model, show_shapes, show_layer_names, rankdir, expand_nested, dpi,
                   show_dtype, "model_to_dot")


def _to_dot(model, show_shapes, show_layer_names, rankdir, expand_nested, dpi, show_dtype,
            who):
    _check_model(model, who)
    if rankdir not in ("TB", "LR"):
        raise ValueError(f"{who}: expected rankdir 'TB' or 'LR', received {rankdir!r}")
    pydot = _pydot(who)
    dot = pydot.Dot(graph_type="digraph", rankdir=rankdir, dpi=str(dpi), concentrate="true")
    options = (show_shapes, show_layer_names, show_dtype)
    _add_model(pydot, dot, model, "", options, expand_nested, who)
    return dot


def _add_model(pydot, container, model, prefix, options, expand_nested, who):
    """Adds the model's nodes and edges to `container` (a Dot or a cluster); returns
    ({GraphNode: (entry node ids, exit node ids)}, graph)."""
    graph = layer_graph(model, who)
    ends = {}
    for node in graph.nodes:
        name = prefix + node.name
        if node.layer is None and prefix:
            ends[node] = ([], [])  # a nested model's inputs are fed by the outer graph
            continue
        if expand_nested and isinstance(node.layer, Model):
            cluster = pydot.Cluster(_cluster_id(name), label=f"{node.name} "
                                    f"({node.class_name})", style="dashed")
            inner_ends, inner = _add_model(pydot, cluster, node.layer, name + "/", options,
                                           expand_nested, who)
            container.add_subgraph(cluster)
            entries = [i for n in inner.nodes if n.layer is not None and
                       any(p in inner.inputs for p in n.parents) for i in inner_ends[n][0]]
            exits = [i for n in inner.outputs for i in inner_ends[n][1]]
            ends[node] = (entries, exits)
        else:
            container.add_node(pydot.Node(name, label=_label(node, *options), shape="box",
                                          fontname="Helvetica", fontsize="11"))
            ends[node] = ([name], [name])
    for node in graph.nodes:
        for parent in node.parents:
            for source in ends[parent][1]:
                for target in ends[node][0]:
                    container.add_edge(pydot.Edge(source, target))
    return ends, graph


def _cluster_id(name):
    return "".join(c if c.isalnum() else "_" for c in name)


def plot_model(model, to_file="model.png", show_shapes=False, show_layer_names=True,
               rankdir="TB", expand_nested=False, dpi=96, show_dtype=False):
    """Draws the model's graph of layers to an image file, as Keras's `plot_model`.

    The file's extension chooses the format (png, svg, pdf, jpg, gif, ps, or dot for the
    DOT source). The picture is written to a temporary file beside `to_file` and renamed
    into place, so a failure never leaves a partial file under the target name.

    Args:
        model, show_shapes, show_layer_names, rankdir, expand_nested, dpi, show_dtype: as
            `model_to_dot`.
        to_file: the image file to write.

    Returns:
        The pydot.Dot that was drawn.

    Raises:
        ValueError: the model is not built, or the extension is not a known format.
        ImportError: pydot or Graphviz's `dot` program is missing (says how to install it).

    Example:
        >>> import paddle as pd
        >>> model = pd.Sequential([pd.layers.Input(shape=(4,), name="pixels"),
        ...                        pd.layers.Dense(2, name="out")])
        >>> _ = pd.utils.plot_model(model, to_file="model.dot", show_shapes=True)  # or .png
        >>> with open("model.dot") as f:
        ...     print(f.read().splitlines()[-2])
        pixels -> out;
    """
    who = "plot_model"
    path = os.fspath(to_file)
    ext = os.path.splitext(path)[1][1:].lower()
    if ext not in FORMATS:
        raise ValueError(f"{who}: cannot tell the image format from to_file {path!r}; "
                         f"expected an extension among {', '.join(FORMATS)}")
    dot = _to_dot(model, show_shapes, show_layer_names, rankdir, expand_nested, dpi,
                  show_dtype, who)
    if ext == "dot":
        data = dot.to_string().encode("utf-8")
    else:
        if shutil.which("dot") is None:
            raise ImportError(f"{who}: {DOT_MISSING}")
        data = dot.create(prog="dot", format="jpeg" if ext == "jpg" else ext)
    write_bytes(path, data, who)
    return dot
