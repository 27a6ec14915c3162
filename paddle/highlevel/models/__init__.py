"""Models: `Model` (functional and subclassed, model.py), `Sequential` (sequential.py) and
a model read as a graph of layers (layer_graph.py: drawings, TensorBoard, ONNX export).

The package imports none of its modules here, so layer_graph.py (which needs only the
layers) can be imported by the callbacks that `Model` itself imports through training.
"""
