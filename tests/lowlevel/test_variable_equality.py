"""`==` and `!=` on Variables: Keras 3's elementwise equality (pd.equal / pd.not_equal),
built on first use, with identity as the truth value so that Variables stay usable as
list members, dict keys and set members (Python compares those itself)."""
import inspect

import numpy as np
import pytest

import paddle as pd


def op_number(var):
    """The op counter value in an op output's name (`add_17` -> 17)."""
    return int(var.name.rsplit("_", 1)[1])


# ---- elementwise values ------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_eq_and_ne_are_elementwise_and_broadcast(dtype):
    a = pd.data("a", shape=[None, 3], dtype=dtype)
    b = pd.data("b", shape=[3], dtype=dtype)
    av = np.array([[1, 2, 3], [3, 2, 1]], dtype)
    bv = np.array([3, 2, 1], dtype)
    eq, ne = a == b, a != b
    assert (eq.shape, eq.dtype, ne.shape, ne.dtype) == ((None, 3), "bool", (None, 3), "bool")
    got_eq, got_ne = pd.eval([eq, ne], {a: av, b: bv})
    assert got_eq.dtype == np.bool_
    np.testing.assert_array_equal(got_eq, av == bv)
    np.testing.assert_array_equal(got_ne, av != bv)


def test_column_against_row_broadcasts_to_a_matrix():
    # The keras-io guide's CategoricalTruePositives: labels (n,) against predictions (n, 1).
    labels = pd.data("labels", shape=[None], dtype="int32")
    preds = pd.data("preds", shape=[None, 1], dtype="int32")
    lv, pv = np.array([0, 1, 1], np.int32), np.array([[1], [0], [2]], np.int32)
    hits = labels == preds
    assert hits.shape == (None, None)
    np.testing.assert_array_equal(pd.eval(hits, {labels: lv, preds: pv}), lv == pv)


def test_numbers_arrays_and_lists_on_either_side():
    x = pd.data("x", shape=[4], dtype="int64")
    xv = np.array([0, 2, 2, 5])
    targets = [x == 2, 2 == x, x != 2, 2 != x, x == np.array([0, 1, 2, 3]),
               np.array([0, 1, 2, 3]) == x, x == [0, 0, 2, 5], [0, 0, 2, 5] != x,
               x == np.int64(5)]
    got = pd.eval(targets, {x: xv})
    want = [xv == 2, xv == 2, xv != 2, xv != 2, xv == [0, 1, 2, 3], xv == [0, 1, 2, 3],
            xv == [0, 0, 2, 5], xv != [0, 0, 2, 5], xv == 5]
    for g, w in zip(got, want):
        assert g.dtype == np.bool_
        np.testing.assert_array_equal(g, w)


def test_float_number_takes_the_variables_float_dtype():
    x = pd.data("x", shape=[3], dtype="float64")
    y = x == 0.1   # 0.1 as float64: the float32 rounding of 0.1 would not be equal
    assert y.dtype == "bool" and y.node.inputs[1].dtype == "float64"
    np.testing.assert_array_equal(pd.eval(y, {x: np.array([0.1, 0.2, 0.1])}),
                                  [True, False, True])


def test_bool_variables_compare():
    b = pd.data("b", shape=[3], dtype="bool")
    bv = np.array([True, False, True])
    got = pd.eval([b == True, b != np.array([True, True, False])], {b: bv})  # noqa: E712
    np.testing.assert_array_equal(got[0], bv)
    np.testing.assert_array_equal(got[1], bv != [True, True, False])


def test_no_gradient_flows_through_a_comparison():
    x = pd.data("x", shape=[None, 3])
    assert pd.gradients(pd.sum(pd.cast(x == 1.0, "float32")), [x]) == [None]
    g, = pd.gradients(pd.sum(pd.where(x == 1.0, x * 3.0, x)), [x])
    xv = np.array([[1.0, 2.0, 1.0]], np.float32)
    np.testing.assert_array_equal(pd.eval(g, {x: xv}), [[3.0, 1.0, 3.0]])


def test_result_used_twice_is_one_node_and_the_nodes_output():
    x = pd.data("x", shape=[3])
    eq = x == 2.0
    y = pd.cast(eq, "float32") + pd.cast(eq, "float32")
    assert y.node.inputs[0].node.inputs[0] is eq
    assert eq.node.outputs == [eq]
    np.testing.assert_array_equal(pd.eval(y, {x: np.array([2.0, 1.0, 2.0], np.float32)}),
                                  [2.0, 0.0, 2.0])


def test_eval_of_a_comparison_directly_and_again():
    x = pd.data("x", shape=[3], dtype="int64")
    eq = x == 1
    for value in ([1, 0, 1], [0, 1, 1]):
        np.testing.assert_array_equal(pd.eval(eq, {x: np.array(value)}), np.array(value) == 1)
    assert (eq == True).eval({x: np.array([1, 1, 0])}).tolist() == [True, True, False]  # noqa: E712


def test_constants_compare_without_feeds():
    # pd.ops on NumPy arrays make constants: their comparison evaluates at once.
    labels = pd.ops.cast(np.array([0.0, 1.0, 2.0]), "int32")
    preds = pd.ops.cast(np.array([[0.0], [2.0]]), "int32")
    np.testing.assert_array_equal((labels == preds).numpy(),
                                  np.array([0, 1, 2]) == np.array([[0], [2]]))
    np.testing.assert_array_equal(pd.ops.convert_to_numpy(labels != 1), [True, False, True])


# ---- inside a traced training step -------------------------------------------------------

class ArgmaxHits(pd.metrics.Metric):
    """How many predictions' argmax equals the label, with `==` as a Keras user writes it."""

    def __init__(self, name="hits", **kwargs):
        super().__init__(name=name, **kwargs)
        self.hits = self.add_variable(shape=(), name="hits", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        same = pd.ops.cast(y_true, "int32") == pd.ops.cast(pd.ops.argmax(y_pred, axis=1),
                                                           "int32")
        self.hits.assign_add(pd.ops.sum(pd.ops.cast(same, "float32")))

    def result(self):
        return self.hits

    def reset_state(self):
        self.hits.assign(0.0)


def test_eq_in_a_metric_of_a_traced_step():
    model = pd.Sequential([pd.Input((2,)), pd.layers.Dense(2, use_bias=False)])
    model.layers[0].kernel.set_value(np.eye(2, dtype=np.float32))  # argmax of the input
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy",
                  metrics=[ArgmaxHits()])
    x = np.array([[1, 0], [0, 1], [1, 0], [0, 1], [1, 0]], np.float32)
    y = np.array([0, 1, 1, 1, 0], np.float32)
    logs = model.evaluate(x, y, batch_size=2, verbose=0, return_dict=True)
    assert logs["hits"] == 4.0   # the third sample's label differs from its argmax


# ---- containers of Variables -------------------------------------------------------------

def test_membership_index_remove_count_need_no_op():
    # Members of different shapes and dtypes: an eagerly built comparison would raise.
    a = pd.data("a", shape=[None, 3])
    b = pd.data("b", shape=[5], dtype="int64")
    w = pd.Variable("w", shape=[2, 2])
    before = a + 1.0
    members = [a, b, w]
    assert b in members and w in members and (w not in [a, b])
    assert members.index(w) == 2 and members.count(b) == 1 and [a, b] == [a, b]
    assert [a, b] != [a, w]
    members.remove(b)
    assert members == [a, w] and len(members) == 2
    after = a + 1.0
    # Each `a + 1.0` takes two op names (its constant and the add): nothing in between.
    assert op_number(after) - op_number(before) == 2


def test_dict_keys_and_sets():
    x, y = pd.data("x", shape=[2]), pd.data("y", shape=[3], dtype="int32")
    feeds = {x: np.zeros(2, np.float32), y: np.ones(3, np.int32)}
    assert feeds[y].tolist() == [1, 1, 1] and x in feeds and len({x, y, x}) == 2
    got = pd.eval([x == 0.0, y != 1], feeds)
    assert got[0].tolist() == [True, True] and got[1].tolist() == [False] * 3


def test_truth_value_is_identity():
    x, y = pd.data("x", shape=[2]), pd.data("y", shape=[2])
    assert bool(x == x) and not bool(x == y)
    assert bool(x != y) and not bool(x != x)
    with pytest.raises(TypeError, match="no truth value"):
        bool(x > y)   # any other Variable has none
    with pytest.raises(TypeError, match="no truth value"):
        bool(pd.equal(x, y))


@pytest.mark.parametrize("other", [None, "x", object(), {"a": 1}])
def test_unrelated_objects_compare_by_identity(other):
    x = pd.data("x", shape=[2])
    assert (x == other) is False and (other == x) is False
    assert (x != other) is True and (other != x) is True
    assert x.__eq__(other) is NotImplemented and x.__ne__(other) is NotImplemented


def test_bad_operands_raise_when_used_naming_the_comparison_line():
    x = pd.data("x", shape=[None, 3])
    y = pd.data("y", shape=[4], dtype="int32")
    mixed = x == pd.data("z", shape=[3], dtype="int32")   # the line the error names
    line = f"test_variable_equality.py:{inspect.currentframe().f_lineno - 1}"
    assert not mixed   # the truth value needs no op
    with pytest.raises(pd.ShapeError, match=f"equal: dtypes differ.*{line}"):
        pd.cast(mixed, "float32")
    with pytest.raises(pd.ShapeError, match="equal: dtypes differ"):
        mixed.shape   # still refused: nothing half-built was kept
    with pytest.raises(pd.ShapeError, match="not_equal"):
        pd.cast(y != pd.data("w", shape=[3], dtype="int32"), "float32")
    with pytest.raises(TypeError, match="equal: expected a Variable or numbers"):
        (x == ["a", "b", "c"]).shape


def test_tf1_style_graph_with_equality_and_feeds_keyed_by_variables():
    # TensorFlow 1 style: placeholders, a parameter, accuracy from ==, feeds by Variable.
    x = pd.data("x", shape=[None, 2])
    labels = pd.data("labels", shape=[None], dtype="int64")
    w = pd.Variable("w_eq", shape=[2, 2], initializer="ones")
    logits = pd.matmul(x, w * pd.constant(np.array([[1.0, 0.0], [0.0, 2.0]], np.float32)))
    correct = pd.argmax(logits, axis=1) == labels
    accuracy = pd.mean(pd.cast(correct, "float32"))
    xv = np.array([[3.0, 1.0], [1.0, 3.0], [2.0, 0.5]], np.float32)
    assert pd.eval(accuracy, {x: xv, labels: np.array([0, 1, 1])}) == pytest.approx(2 / 3)
    assert w in [x, labels, w] and {w: 1}[w] == 1
