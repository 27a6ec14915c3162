"""Dense, Flatten, Reshape, Permute, Dropout and Embedding as ONNX nodes."""
from paddle.highlevel.layers.core import Dense, Flatten, Permute, Reshape
from paddle.highlevel.layers.embedding import Embedding
from paddle.highlevel.layers.regularization import Dropout
from paddle.export.onnx.activations import apply_activation
from paddle.export.onnx.converter import KERAS, maps


@maps(Dense)
def dense(c, layer, ins, outs, kwargs):
    x = c.get(ins[0], KERAS)
    kernel = c.const(layer.kernel.val(), f"{layer.name}/kernel")
    rank = len(ins[0].shape)
    if rank == 2:
        args = [x, kernel] + ([c.const(layer.bias.val(), f"{layer.name}/bias")]
                              if layer.bias is not None else [])
        y = c.node("Gemm", args, layer.name)
    else:  # Gemm is 2-D only: MatMul broadcasts over the leading axes
        y = c.node("MatMul", [x, kernel], layer.name)
        if layer.bias is not None:
            y = c.node("Add", [y, c.const(layer.bias.val(), f"{layer.name}/bias")], layer.name)
    c.set(outs[0], apply_activation(c, layer, y))


@maps(Dropout)
def dropout(c, layer, ins, outs, kwargs):
    t = c.tensor(ins[0])  # the identity at inference, in whatever layout it came
    c.set(outs[0], c.node("Identity", [t.name], layer.name), t.layout)


@maps(Flatten)
def flatten(c, layer, ins, outs, kwargs):
    c.set(outs[0], c.node("Flatten", [c.get(ins[0], KERAS)], layer.name, axis=1))


@maps(Reshape)
def reshape(c, layer, ins, outs, kwargs):
    # 0 copies the batch size from the input (ONNX Reshape, allowzero=0)
    shape = c.ints([0] + [int(d) for d in outs[0].shape[1:]] if None not in outs[0].shape[1:]
                   else [0] + list(layer.target_shape), f"{layer.name}/shape")
    c.set(outs[0], c.node("Reshape", [c.get(ins[0], KERAS), shape], layer.name))


@maps(Permute)
def permute(c, layer, ins, outs, kwargs):
    c.set(outs[0], c.node("Transpose", [c.get(ins[0], KERAS)], layer.name,
                          perm=[0] + list(layer.dims)))


@maps(Embedding)
def embedding(c, layer, ins, outs, kwargs):
    table = c.const(layer.embeddings.val(), f"{layer.name}/embeddings")
    ids = c.get(ins[0], KERAS)
    if ins[0].dtype != "int64":
        ids = c.node("Cast", [ids], layer.name, to=7)  # TensorProto.INT64
    c.set(outs[0], c.node("Gather", [table, ids], layer.name, axis=0))

