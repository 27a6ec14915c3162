"""Writes the .keras files of this folder with real Keras 3.15.1 on TensorFlow (run in a
venv with keras and tensorflow, from this folder); their outputs are in
tests/highlevel/layers/test_keras_vocabulary_assets.py."""
import os
os.environ["KERAS_BACKEND"] = "tensorflow"
import numpy as np, keras
inp = keras.Input(shape=(1,), dtype="string")
lookup = keras.layers.StringLookup(name="words")
lookup.adapt(np.array([["b"], ["a"], ["b"], ["c"], ["b"], ["a"]]))
ints = keras.layers.IntegerLookup(name="numbers")
ints.adapt(np.array([[7], [3], [7], [9]]))
inp2 = keras.Input(shape=(1,), dtype="int64")
model = keras.Model([inp, inp2], [lookup(inp), ints(inp2)])
model.save("adapted_lookups.keras")
import tensorflow as tf
print([o.numpy().tolist() for o in model([tf.constant([["a"], ["b"], ["z"]]), tf.constant([[7], [9], [1]])])])
import os
os.environ["KERAS_BACKEND"] = "tensorflow"
import numpy as np, keras, tensorflow as tf
tv = keras.layers.TextVectorization(max_tokens=20, output_sequence_length=5, name="tv")
tv.adapt(np.array(["the cat sat", "the dog sat down", "a cat"]))
inp = keras.Input(shape=(), dtype="string")
model = keras.Model(inp, tv(inp))
model.save("adapted_text_vectorization.keras")
print(model(tf.constant(["the cat", "dog down up"])).numpy().tolist())
