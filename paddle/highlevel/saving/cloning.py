"""`pd.models.clone_model`: a new model of the same architecture, with new weights.

Example:
    >>> import paddle as pd
    >>> model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)])
    >>> pd.models.clone_model(model).outputs[0].shape
    (None, 3)
"""
from paddle.highlevel.layers.base import Layer
from paddle.highlevel.models.model import Model
from paddle.highlevel.models.sequential import Sequential
from paddle.highlevel.saving import architecture


def clone_model(model, input_tensors=None, clone_function=None):
    """A new model of the same architecture, with new weights (as Keras's clone_model).

    Args:
        model: a Sequential, functional or subclassed model.
        input_tensors: new `pd.Input` Variable(s) to build the clone on (functional and
            Sequential models).
        clone_function: `layer -> new layer`, called for each layer (default: a new layer
            from the layer's config); return the layer itself to share it.
    Returns:
        The clone; it is not compiled.

    Example:
        >>> import paddle as pd
        >>> model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3)])
        >>> clone = pd.models.clone_model(model)
        >>> clone.layers[0] is model.layers[0], clone.outputs[0].shape
        (False, (None, 3))
    """
    if not isinstance(model, Model):
        raise TypeError(f"clone_model: expected a model, received {type(model).__name__}")
    if clone_function is not None and not callable(clone_function):
        raise TypeError(f"clone_model: expected clone_function to be callable, received "
                        f"{clone_function!r}")

    def clone(layer):
        new = clone_function(layer) if clone_function else \
            architecture.deserialize_layer(architecture.serialize_layer(layer), None)
        if not isinstance(new, Layer):
            raise TypeError(f"clone_model: clone_function returned {type(new).__name__} for "
                            f"{layer.name!r}, expected a layer")
        return new
    kind = architecture.model_kind(model)
    if kind == "subclassed":
        if input_tensors is not None:
            raise ValueError("clone_model: input_tensors needs a functional or Sequential "
                             "model")
        new = type(model).from_config(model.get_config())
        if model._graphs:
            first = next(iter(model._graphs.values()))[0]
            architecture._build(new, {"input_shapes": [list(v.shape) for v in first],
                                       "input_dtypes": [v.dtype for v in first],
                                       "single_input": model._single_input})
        return new
    if kind == "Sequential":
        layers = [clone(layer) for layer in model.layers]
        inputs = input_tensors if input_tensors is not None else \
            [architecture._make_input(architecture._input_entry(model.inputs[0], False)
                                       ["config"])] if model.inputs is not None else []
        inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        return Sequential(list(inputs) + layers, name=model.name)
    made = {}

    def make_layer(entry, original):
        if original not in made:
            made[original] = clone(original)
        return made[original]
    config = architecture.model_config(model, top=False)["config"]
    originals = {layer.name: layer for layer in architecture.functional_layers(model)}
    new = architecture._functional_from_config(
        config, None, make_layer=lambda entry: make_layer(entry, originals[entry["name"]]))
    if input_tensors is None:
        return new
    return Model(inputs=input_tensors, outputs=new(input_tensors), name=model.name)
