"""Bad input to the low level, found by tools/fuzz_inputs.py: each case is a clear Python
exception naming the op (or a correct result), never a crash or silent garbage."""
import numpy as np
import pytest

import paddle as pd

BIG = 2**62


# ---- the kernels' own checks (second line of defence) -----------------------------------

# Specs whose sizes overflow int64 used to wrap around to 0, pass the size checks against
# empty arrays and then loop over 2**64 elements (SIGSEGV in scatter_add, avg_pool2d_grad,
# batch_norm) or read outside the arrays (strided_copy, matmul offsets).
_E = np.zeros(0, np.float32)
LYING_SPECS = {
    "conv2d": lambda: pd._C.conv2d(
        _E, np.ones(1, np.float32), _E, _E,
        np.array([BIG, 4, 1, 1, 4, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1], np.int64),
        np.zeros(16, np.float32)),
    "avg_pool2d_grad": lambda: pd._C.avg_pool2d_grad(
        _E, _E, np.array([BIG, 4, 1, 1, 4, 1, 1, 1, 1, 1, 0, 0], np.int64)),
    "strided_copy": lambda: pd._C.strided_copy(
        np.ones(4, np.float32), np.ones(4, np.float32),
        np.array([1, 2, 1, 1, 2 * BIG - 1, 0], np.int64)),
    "matmul": lambda: pd._C.matmul(
        np.ones(4, np.float32), np.ones(4, np.float32), np.ones(4, np.float32),
        np.array([1, 2, 2, 2, 0, 0, 2 * BIG - 1, 0], np.int64)),
    "scatter_add": lambda: pd._C.scatter_add(_E, np.zeros(4, np.int64), _E, BIG, 4, 1),
    "reduce": lambda: pd._C.reduce(0, _E, _E, BIG, 4, 1, 1.0),
    "one_hot": lambda: pd._C.one_hot(np.zeros(4, np.int64), _E, BIG),
    "batch_norm": lambda: pd._C.batch_norm(
        _E, *[np.ones(4, np.float32)] * 4, _E, np.ones(4, np.float32), np.ones(4, np.float32),
        BIG, 4, 1, 0.9, 1e-3, True),
    "binary": lambda: pd._C.binary(0, np.ones(1, np.float32), np.ones(1, np.float32), _E,
                                   np.array([2, BIG, 4, 0, 0, 0, 0], np.int64)),
}


@pytest.mark.parametrize("op", sorted(LYING_SPECS))
def test_kernels_refuse_specs_whose_sizes_overflow(op):
    with pytest.raises(ValueError, match=rf"^{op}: (sizes out of range|batch offset outside)"):
        LYING_SPECS[op]()


# ---- pooling ------------------------------------------------------------------------------

def test_max_pool_window_with_more_int32_positions_is_refused():
    # A (2, 2**32) 'same' window saved row h's arg-max as the same int32 position as row 0's,
    # so the gradient went to both rows (summing to 2 per window instead of 1).
    x = pd.constant(np.ones((1, 3, 3, 2), np.float32))
    with pytest.raises(pd.ShapeError, match=r"max_pool2d: the pool window \(2, 4294967296\) "
                                            r"has more than 2\*\*31 - 1 positions"):
        pd.max_pool2d(x, (2, 2**32), strides=1, padding="same")
    spec = np.array([1, 3, 3, 2, 3, 3, 2, 2**32, 1, 1, 0, 2**31], np.int64)
    with pytest.raises(ValueError, match=r"max_pool2d_grad: the pool window has more than"):
        pd._C.max_pool2d_grad(np.zeros(18, np.float32), np.zeros(18, np.int32),
                              np.zeros(18, np.float32), spec)


# ---- convolution --------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{"dilation": 2**62, "padding": "same"},
                                {"strides": 2**62, "padding": "same"},
                                {"padding": ((2**61, 2**61), (0, 0))}])
def test_conv_geometry_beyond_int64_coordinates_is_refused(kw):
    # The kernel computes out * stride - pad + tap * dilation in int64: these wrapped around
    # (undefined behaviour) before any check saw them.
    x = pd.data("x", [None, 3, 3, 1])
    with pytest.raises(pd.ShapeError, match=r"conv2d: the height geometry .* is too large for "
                                            r"64-bit coordinates: x is \(None, 3, 3, 1\)"):
        pd.conv2d(x, pd.constant(np.ones((3, 1, 1, 1), np.float32)), **kw)


def test_max_pool_propagates_nan_wherever_it_is_in_the_window():
    # A NaN after the window's first element was dropped (NaN > m is false): [1, NaN, 3, 2]
    # pooled to 3, while [NaN, 1, 3, 2] pooled to NaN.
    for values in ([1.0, np.nan, 3.0, 2.0], [np.nan, 1.0, 3.0, 2.0], [1.0, 3.0, 2.0, np.nan]):
        a = np.array(values, np.float32).reshape(1, 2, 2, 1)
        assert np.isnan(pd.max_pool2d(pd.constant(a), 2).numpy()).all(), values  # eager
        x = pd.data("x", [1, 2, 2, 1])  # a graph input: gradients need a graph
        y = pd.max_pool2d(x, 2)
        assert np.isnan(pd.eval(y, {x: a})).all(), values
        g, = pd.gradients(pd.sum(y), [x])  # the gradient goes to the (first) NaN
        np.testing.assert_array_equal(pd.eval(g, {x: a}).ravel(),
                                      np.isnan(values).astype(np.float32))


# ---- normalization ------------------------------------------------------------------------

def _bn_inputs():
    x = pd.data("x", [None, 4])
    mm = pd.Variable("mm", [4], initializer="zeros", trainable=False)
    mv = pd.Variable("mv", [4], initializer="ones", trainable=False)
    return x, mm, mv


@pytest.mark.parametrize("kw, what", [
    ({"momentum": -1.0}, "momentum in \\[0, 1\\]"), ({"momentum": 2.0}, "momentum in \\[0, 1\\]"),
    ({"momentum": float("nan")}, "momentum in \\[0, 1\\]"), ({"momentum": "a"}, "momentum in"),
    ({"epsilon": -1.0}, "epsilon >= 0"), ({"epsilon": float("nan")}, "epsilon >= 0"),
    ({"epsilon": None}, "epsilon >= 0")])
def test_batch_norm_refuses_momentum_and_epsilon_that_make_nan(kw, what):
    # epsilon -1 or NaN made every output NaN, momentum 2 or NaN the moving statistics;
    # 'a' and None failed inside float() without saying which argument.
    x, mm, mv = _bn_inputs()
    with pytest.raises(ValueError, match=rf"^batch_norm: expected {what}"):
        pd.batch_norm(x, None, None, mm, mv, **kw)


@pytest.mark.parametrize("epsilon", [-1.0, float("nan"), "a"])
def test_layer_norm_refuses_epsilon_that_makes_nan(epsilon):
    with pytest.raises(ValueError, match=r"^layer_norm: expected epsilon >= 0"):
        pd.layer_norm(pd.data("x", [None, 4]), None, None, epsilon=epsilon)


def test_batch_norm_epsilon_zero_stays_allowed():
    x, mm, mv = _bn_inputs()
    y = pd.batch_norm(x, None, None, mm, mv, epsilon=0.0)
    out = pd.eval(y, {x: np.array([[1, 2, 3, 4], [3, 4, 5, 6]], np.float32)}, training=True)
    np.testing.assert_allclose(out, [[-1] * 4, [1] * 4])


def test_batch_norm_training_on_an_empty_batch_leaves_the_moving_statistics():
    # An empty batch counted as mean 0 and variance 0: each such step moved the moving
    # statistics toward 0 (variance 1 -> 0.99).
    x, mm, mv = _bn_inputs()
    y = pd.batch_norm(x, None, None, mm, mv)
    out = pd.eval(y, {x: np.zeros((0, 4), np.float32)}, training=True)
    assert out.shape == (0, 4)
    np.testing.assert_array_equal(mm.val(), np.zeros(4))
    np.testing.assert_array_equal(mv.val(), np.ones(4))


# ---- absurd sizes -------------------------------------------------------------------------

def test_an_output_beyond_memory_is_a_memory_error_naming_the_op():
    # NumPy's 'Unable to allocate 8.00 TiB ...' / 'array is too big' named no op; an
    # allocation the system grants lazily got the process OOM-killed while it was filled.
    ids = pd.data("ids", [None], "int64")
    for depth in (2**40, 2**62):
        y = pd.one_hot(ids, depth)
        with pytest.raises(MemoryError, match=r"^one_hot \(built at test_bad_input.py:\d+\): an "
                                              r"array of shape \(2, \d+\) \(float32\) needs "
                                              r".* more than (this machine's|device gpu:0's) "
                                              r".* of memory"):
            pd.eval(y, {ids: np.array([0, 1])})


def test_a_parameter_beyond_memory_is_a_memory_error_naming_it():
    with pytest.raises(MemoryError, match=r"^Variable 'huge': an array of shape \(1048576, "
                                          r"1048576\) \(float32\) needs 4.0 TiB"):
        pd.Variable("huge", [2**20, 2**20])
    with pytest.raises(MemoryError, match=r"^'dense_huge/kernel': an array of shape \(4, "
                                          r"1099511627776\)"):
        pd.layers.Dense(2**40, name="dense_huge")(pd.layers.Input(shape=(4,)))


# ---- conversions that would change values silently ----------------------------------------

def test_float64_beyond_float32_is_refused_not_made_inf():
    # Fed, made a constant or assigned, 1e300 became float32 inf without a word.
    x = pd.data("x", [None, 3])
    with pytest.raises(pd.FeedError, match=r"^input 'x': value 1e\+300 is outside the float32 "
                                           r"range .* it would become inf"):
        pd.eval(x * 2.0, {x: np.array([[1e300, 0.0, 0.0]])})
    with pytest.raises(ValueError, match=r"^constant: value 1e\+300 is outside the float32"):
        pd.constant([1e300])
    v = pd.Variable("v", [2])
    with pytest.raises(ValueError, match=r"^set_value: 'v': value -1e\+300 is outside"):
        v.set_value(np.array([0.0, -1e300]))
    # inf and NaN themselves pass through as they are
    r = pd.eval(x * 1.0, {x: np.array([[np.inf, -np.inf, np.nan]])})
    assert np.isposinf(r[0, 0]) and np.isneginf(r[0, 1]) and np.isnan(r[0, 2])


def test_integers_that_would_wrap_are_refused():
    # np.uint64(2**64 - 1) became the int64 constant -1.
    with pytest.raises(ValueError, match=r"^constant: value 18446744073709551615 is outside "
                                         r"the int64 range"):
        pd.constant(np.array([2**64 - 1], np.uint64))
    x = pd.data("x", [None], "int32")
    with pytest.raises(pd.FeedError, match=r"^input 'x': value 1099511627776 is outside the "
                                           r"int32 range"):
        pd.eval(x + 1, {x: np.array([2**40])})


# ---- operands that are not numbers --------------------------------------------------------

def test_ragged_lists_strings_and_none_are_named_type_errors():
    # Ragged lists gave NumPy's 'setting an array element with a sequence', zeros_like(None)
    # an AttributeError on 'shape', strings a dtype error from 'constant'.
    with pytest.raises(TypeError, match=r"^relu: .* nested lists of different lengths: "
                                        r"\[\[1.0\], \[1.0, 2.0\]\]"):
        pd.relu([[1.0], [1.0, 2.0]])
    with pytest.raises(TypeError, match=r"^add: expected a Variable or numbers, received "
                                        r"\['a', 'b'\] \(an array of <U1\)"):
        pd.add(pd.data("x", [2]), ["a", "b"])
    for fn in (pd.zeros_like, pd.ones_like):
        with pytest.raises(TypeError, match=rf"^{fn.__name__}: expected a Variable, a number or "
                                            r"an array, received NoneType"):
            fn(None)


def test_dtype_none_is_not_float64():
    # np.dtype(None) is float64: pd.cast(x, None) cast to float64 silently.
    with pytest.raises(ValueError, match=r"^cast: expected one of float32, .* received None"):
        pd.cast(pd.constant([1.0]), None)


# ---- shape ops' arguments -----------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    # floats were truncated (int(0.5) == 0) or failed inside int() / sorted()
    (lambda x: pd.reshape(x, [1.5, 4]), r"reshape: expected the new shape as a list of "
                                        r"integers \(or None\), received \[1.5, 4\]"),
    (lambda x: pd.reshape(x, "abc"), r"reshape: expected the new shape .* received 'abc'"),
    (lambda x: pd.transpose(x, [0.0, 2, 1]), r"transpose: expected perm as a list of integers"),
    (lambda x: pd.transpose(x, [None, 0, 1]), r"transpose: expected perm as a list of integers"),
    (lambda x: pd.split(x, True, axis=1), r"split: expected num_or_size_splits .* received True"),
    (lambda x: pd.split(x, 1.5, axis=1), r"split: expected num_or_size_splits .* received 1.5"),
    (lambda x: pd.split(x, [-1, 3], axis=1), r"split: sizes must be >= 0, received \[-1, 3\]"),
    (lambda x: pd.slice(x, [0.5, 0, 0], [1, 1, 1]), r"slice: expected begin as a list of "
                                                    r"integers, received \[0.5, 0, 0\]"),
    (lambda x: pd.squeeze(x, 0.0), r"squeeze: expected axes as a list of integers"),
])
def test_shape_arguments_must_be_integers(call, message):
    with pytest.raises(pd.ShapeError, match=rf"^{message}.*\(at test_bad_input.py:\d+\)$"):
        call(pd.data("x", [None, 2, 3]))


def test_other_shape_op_arguments_are_checked():
    x = pd.data("x", [None, 3])
    with pytest.raises(TypeError, match=r"^slice: an index can hold one Ellipsis"):
        x[..., ...]  # accepted: the second Ellipsis expanded to nothing
    with pytest.raises(TypeError, match=r"^slice: expected integers or None in a slice"):
        x[0.5:2]
    with pytest.raises(ValueError, match=r"^pad: expected \(before, after\) pairs of integers"):
        pd.pad(x, [(0.5, 0), (0, 0)])  # was padded by int(0.5) == 0
    with pytest.raises(TypeError, match=r"^pad: expected a number as constant_values"):
        pd.pad(x, [(1, 1), (0, 0)], "a")
    with pytest.raises(ValueError, match=r"^one_hot: expected a positive integer depth, "
                                         r"received True"):
        pd.one_hot(pd.constant(np.array([0, 1])), True)  # was a depth of 1


def test_slice_blocks_must_fit_the_fed_shape():
    # tf.slice's rule was checked on known sizes only: fed a smaller x, the block was
    # clipped as Python slicing does and an empty array came back.
    x = pd.data("x", [None, 3])
    y = pd.slice(x, [3, 0], [2, 3])
    with pytest.raises(pd.ShapeError, match=r"^slice: the block \[3:5\] does not fit in an axis "
                                            r"of size 2: x is \(2, 3\) \(with the fed shapes"):
        pd.eval(y, {x: np.ones((2, 3), np.float32)})
    np.testing.assert_array_equal(pd.eval(y, {x: np.arange(15.0).reshape(5, 3)}),
                                  np.arange(9.0, 15.0).reshape(2, 3))
    g, = pd.gradients(pd.sum(y), [x])  # the gradient's ops carry the check along
    assert pd.eval(g, {x: np.ones((5, 3), np.float32)}).sum() == 6


def test_reshape_sizes_are_multiplied_exactly():
    # np.prod([2**32, 2**32]) wraps to 0: reshaping 0 elements to that passed the shape
    # rule and failed in NumPy's reshape, naming no op.
    x = pd.data("x", [None])
    y = pd.reshape(x, [2**32, 2**32])
    with pytest.raises(pd.ShapeError, match=r"^reshape: cannot reshape 0 elements to "
                                            r"\(4294967296, 4294967296\)"):
        pd.eval(y, {x: np.ones(0, np.float32)})


# ---- activations and losses ---------------------------------------------------------------

def test_scalar_arguments_of_activations_and_losses_are_checked():
    x = pd.data("x", [None, 3])
    # these failed in the op they feed, 'mul: expected a Variable, ... received str'
    with pytest.raises(TypeError, match=r"^leaky_relu: expected negative_slope as a number, "
                                        r"received 'a'"):
        pd.leaky_relu(x, "a")
    with pytest.raises(TypeError, match=r"^elu: expected alpha as a number, received None"):
        pd.elu(x, None)
    labels = pd.data("labels", [None], "int64")
    with pytest.raises(TypeError, match=r"^cross_entropy: expected epsilon as a number"):
        pd.cross_entropy(pd.softmax(x), labels, "e")
    with pytest.raises(ValueError, match=r"^accuracy: expected k >= 1, received True"):
        pd.accuracy(x, labels, k=True)  # was k = 1
    with pytest.raises(ValueError, match=r"^huber: expected delta > 0, received -1.0"):
        pd.huber(x, x, -1.0)  # gave negative losses


def test_scores_without_a_class_axis_and_bool_argmax_are_shape_and_type_errors():
    # rank-0 scores gave 'IndexError: tuple index out of range'
    for fn in (pd.softmax_cross_entropy, pd.cross_entropy, pd.accuracy):
        with pytest.raises(pd.ShapeError, match=rf"^{fn.__name__}: expected scores with a class "
                                                r"axis \(rank >= 1\), received a scalar"):
            fn(pd.constant(1.0), pd.constant(0))
    with pytest.raises(pd.ShapeError, match=r"^accuracy: labels must have the shape of the "
                                            r"scores without the class axis: scores is \(None, "
                                            r"3\), labels is \(None, 2\)"):
        pd.accuracy(pd.data("x", [None, 3]), pd.data("l", [None, 2], "int64"))
    # argmax of bools failed at eval in the kernel ('unsupported dtype bool')
    with pytest.raises(TypeError, match=r"^argmax: expected a numeric input, received bool"):
        pd.argmax(pd.data("b", [None, 3], "bool"))


def test_conv_with_zero_size_filters_or_channels_is_a_shape_error():
    # The kernel's block sizing divided by kh * kw * channels: ZeroDivisionError at eval.
    for xs, ws in [((None, 8, 8, 4), (3, 3, 4, 0)), ((None, 8, 8, 4), (0, 3, 4, 6)),
                   ((None, 8, 8, 0), (3, 3, 0, 6))]:
        x = pd.data("x", list(xs))
        with pytest.raises(pd.ShapeError, match=r"^conv2d: expected filters and an input "
                                                r"channel axis of sizes >= 1"):
            pd.conv2d(x, pd.constant(np.ones(ws, np.float32)))
    x, w = pd.data("x", [None, 4, 4, None]), pd.data("w", [3, 3, None, 2])
    y = pd.conv2d(x, w)
    with pytest.raises(pd.ShapeError, match=r"sizes >= 1: x is \(1, 4, 4, 0\), filters is "
                                            r"\(3, 3, 0, 2\) \(with the fed shapes"):
        pd.eval(y, {x: np.zeros((1, 4, 4, 0), np.float32), w: np.zeros((3, 3, 0, 2), np.float32)})


# ---- optimizers ---------------------------------------------------------------------------

@pytest.mark.parametrize("make, message", [
    # accepted: the weights became NaN within a few steps
    (lambda: pd.optimizers.Adam(beta_1=1.5), r"Adam: expected beta_1 in \[0, 1\), received 1.5"),
    (lambda: pd.optimizers.Adam(epsilon=-1.0), r"Adam: expected epsilon > 0"),
    (lambda: pd.optimizers.AdamW(weight_decay=float("nan")), r"AdamW: expected weight_decay >= 0"),
    (lambda: pd.optimizers.RMSprop(rho=2.0), r"RMSprop: expected rho in \[0, 1\), received 2.0"),
    (lambda: pd.optimizers.Adagrad(epsilon=float("nan")), r"Adagrad: expected epsilon > 0"),
    (lambda: pd.optimizers.SGD(learning_rate=float("inf")), r"SGD: expected a learning rate >= 0"),
    # failed inside float() or a comparison, naming neither optimizer nor argument
    (lambda: pd.optimizers.SGD(learning_rate="a"), r"SGD: expected a learning rate >= 0 .* 'a'"),
    (lambda: pd.optimizers.Adam(learning_rate=None), r"Adam: expected a learning rate .* None"),
    (lambda: pd.optimizers.SGD(momentum="x"), r"SGD: expected momentum in \[0, 1\], received 'x'"),
])
def test_optimizer_hyperparameters_are_checked(make, message):
    with pytest.raises(ValueError, match=rf"^{message}"):
        make()


def test_gradients_of_none_is_a_type_error_naming_gradients():
    # list(None): "'NoneType' object is not iterable"
    with pytest.raises(TypeError, match=r"^gradients: expected a Variable or a list of them "
                                        r"as ys, received NoneType"):
        pd.gradients(None, [pd.Variable("v", [2])])


def test_layer_norm_needs_an_axis():
    # axis=[] gave 'IndexError: tuple index out of range'
    with pytest.raises(pd.ShapeError, match=r"^layer_norm: expected at least one axis to "
                                            r"normalize, received \[\]"):
        pd.layer_norm(pd.data("x", [None, 4]), None, None, axis=[])


def _ref_conv_input_grad(x_shape, w, gy, strides, pads, dilation):
    """d sum(conv2d(x, w) * gy) / dx by direct loops (NHWC, one group)."""
    dx = np.zeros(x_shape)
    for i in range(gy.shape[1]):
        for j in range(gy.shape[2]):
            for a in range(w.shape[0]):
                for b in range(w.shape[1]):
                    ih = i * strides[0] - pads[0][0] + a * dilation[0]
                    iw = j * strides[1] - pads[1][0] + b * dilation[1]
                    if 0 <= ih < x_shape[1] and 0 <= iw < x_shape[2]:
                        dx[:, ih, iw, :] += gy[:, i, j, :] @ w[a, b].T
    return dx


def test_conv_input_gradient_is_right_when_a_block_reaches_a_whole_image():
    # Output height 3 with a 4-row kernel: the minimum block of 4 output rows spanned two
    # images, and two threads added into the same input rows at once; the input gradient
    # changed from run to run (22 of 30 runs differed).
    rng = np.random.default_rng(0)
    a, w = rng.standard_normal((3, 6, 9, 2)), rng.standard_normal((4, 4, 2, 1))
    kw = {"strides": (3, 1), "padding": ((3, 3), (3, 1)), "dilation": (1, 2)}
    x = pd.data("x", a.shape, "float64")  # a graph input: gradients need a graph
    y = pd.conv2d(x, pd.constant(w, "float64"), **kw)
    gy = rng.standard_normal(pd.eval(y, {x: a}).shape)
    dx, = pd.gradients(pd.sum(y * pd.constant(gy, "float64")), [x])
    want = _ref_conv_input_grad(a.shape, w, gy, kw["strides"], kw["padding"], kw["dilation"])
    threads = pd._C.omp_threads()
    pd._C.set_omp_threads(2)
    try:
        for _ in range(20):
            np.testing.assert_allclose(pd.eval(dx, {x: a}), want, rtol=1e-10, atol=1e-10)
    finally:
        pd._C.set_omp_threads(threads)


# ---- threads ------------------------------------------------------------------------------

def test_evaluating_one_graph_from_two_threads_gives_each_its_own_result():
    # A program's buffers are shared: a thread switch between two kernel calls let the
    # other thread's feeds overwrite them (3 wrong results of 600 here, silently).
    import threading
    x = pd.data("x", [None, 64])
    w = pd.Variable("w", [64, 64])
    y = x
    for _ in range(20):
        y = pd.tanh(y @ w)
    rng = np.random.default_rng(0)
    feeds = [rng.standard_normal((8, 64)).astype(np.float32) for _ in range(2)]
    wants = [pd.eval(y, {x: a}) for a in feeds]
    wrong = []

    def work(a, want):
        wrong.extend(1 for _ in range(200) if not np.array_equal(pd.eval(y, {x: a}), want))

    threads = [threading.Thread(target=work, args=pair) for pair in zip(feeds, wants)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not wrong


def test_mean_and_cross_entropy_errors_name_them():
    x = pd.data("x", [None, 3])
    # pd.mean is the sum op with mean=True: its errors said 'sum: axis 3 is out of range'
    with pytest.raises(pd.ShapeError, match=r"^mean: axis 3 is out of range for rank 2"):
        pd.mean(x, axis=3)
    with pytest.raises(TypeError, match=r"^mean: expected a Variable, a number or an array"):
        pd.mean(None)
    # integer probabilities failed in clip: 'maximum: dtypes differ (int64 and float32)'
    with pytest.raises(TypeError, match=r"^cross_entropy: expected float probabilities, "
                                        r"received int64"):
        pd.cross_entropy(pd.data("p", [None, 3], "int64"), pd.data("l", [None], "int64"))


def test_assigning_a_parameters_value_updates_what_plans_compute():
    # Plans hold the parameter's array: rebinding w.value to a new array left them computing
    # with the old values ([[3, 3]] instead of [[15, 15]]), silently.
    w = pd.Variable("w", [3, 2], initializer="ones")
    x = pd.data("x", [None, 3])
    y = x @ w
    ones = np.ones((1, 3), np.float32)
    np.testing.assert_array_equal(pd.eval(y, {x: ones}), [[3, 3]])
    w.value = np.full((3, 2), 5, np.float32)
    np.testing.assert_array_equal(pd.eval(y, {x: ones}), [[15, 15]])
    with pytest.raises(pd.ShapeError, match=r"^set_value: 'w' has shape \(3, 2\), received an "
                                            r"array of shape \(4, 2\)"):
        w.value = np.ones((4, 2))
    with pytest.raises(ValueError, match=r"^set_value: .* is a const Variable"):
        pd.constant([1.0]).value = np.zeros(1)


def test_cross_entropy_labels_outside_the_classes_name_the_loss():
    # 'one_hot: index 2 at position 0 is outside [0, 1)' named an op the user never called
    p, labels = pd.data("p", [None, 1]), pd.data("labels", [None], "int64")
    with pytest.raises(ValueError, match=r"^cross_entropy: class labels must lie in \[0, 1\), "
                                         r"the class axis of the scores \(one_hot: index 2"):
        pd.eval(pd.cross_entropy(p, labels), {p: np.ones((2, 1)), labels: np.array([2, 0])})


def test_composite_losses_refuse_fed_batches_that_disagree():
    # Built from broadcasting ops, these paired one fed label / target row with every row:
    # cross_entropy of 4 rows against 1 label gave 4 losses of that label.
    p, labels = pd.data("p", [None, 3]), pd.data("labels", [None], "int64")
    y = pd.cross_entropy(p, labels)
    with pytest.raises(pd.ShapeError, match=r"^cross_entropy: labels must have the shape of the "
                                            r"scores without the class axis: scores is \(4, 3\), "
                                            r"labels is \(1,\) \(with the fed shapes"):
        pd.eval(y, {p: np.full((4, 3), 1 / 3, np.float32), labels: np.array([0])})
    a, b = pd.data("a", [None, 3]), pd.data("b", [None, 3])
    for fn in (pd.mse, pd.mae, pd.huber, pd.sigmoid_cross_entropy):
        with pytest.raises(pd.ShapeError, match=rf"^{fn.__name__}: expected targets shaped like "
                                                r"the predictions: predictions are \(4, 3\), "
                                                r"targets are \(1, 3\) \(with the fed shapes"):
            pd.eval(fn(a, b), {a: np.ones((4, 3), np.float32), b: np.zeros((1, 3), np.float32)})
    # a target declared with an axis of 1, or a scalar, still broadcasts: that one is meant
    ones = pd.constant(np.ones((1, 1), np.float32))
    z = pd.data("z", [None, 1])
    assert pd.eval(pd.sigmoid_cross_entropy(z, ones), {z: np.zeros((3, 1))}).shape == (3, 1)
    assert pd.eval(pd.mse(a, 0.0), {a: np.ones((4, 3))}).tolist() == [1.0] * 4


def test_numpy_integers_are_integers_for_conv_settings():
    x = pd.data("np_int_x", shape=[None, 8, 8, 3])
    w = pd.Variable("np_int_w", shape=[3, 3, 3, 4])
    y = pd.conv2d(x, w, strides=np.int64(2), padding=np.int64(1), groups=np.int32(1))
    assert y.shape == (None, 4, 4, 4)
    with pytest.raises(pd.ShapeError):
        pd.conv2d(x, w, strides=np.float64(2.0))
