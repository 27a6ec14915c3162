"""model.quantize("int4") and the int4 Dense, EinsumDense and Embedding: their packed
kernels, scales, zero points and predictions equal Keras 3.15's (values read from Keras once,
on the JAX backend, for the same float weights, and written here: block sizes 128 (the
default, one group here), None (per channel) and 2), the unpacking runs as ops, files keep
Keras's layout, training goes on as Keras's, and bad arguments raise Keras's errors.
tests/highlevel/saving/test_saving_keras_quantize.py compares with a live Keras where it is
installed."""
import re

import h5py
import numpy as np
import pytest

import paddle as pd
from paddle.highlevel.layers.quantization import int4_values
from paddle.lowlevel.executor import topological_nodes
from test_quantize import D, IDS  # the same weights and inputs as the int8 tests


# Keras 3.15.1 (JAX backend) on test_quantize's weights and inputs; <KIND>_<block size>:
# the predictions, <KIND>_W_<block size>: the layer's weights in Keras's `layer.weights`
# order (bias, kernel, kernel_scale, kernel_zero, g_idx; Embedding: embeddings, scale, zero,
# g_idx). "3" holds block_size=2.
DENSE_128 = [[2.4723334312438965, 0.0, 0.6306001543998718], [2.530600070953369, 0.0, 1.7907004356384277]]
DENSE_W_128 = [[0.10999999940395355, -0.9300000071525574, -0.029999999329447746], [[-10, 0], [-120, 8], [119, 14], [12, 7]], [[0.06333333998918533, 0.11933334171772003, 0.09000001102685928]], [[6, -4, 3]], [0.0, 0.0, 0.0, 0.0]]
EINSUM_128 = [[[[1.7320401668548584, -1.7536801099777222, 3.1450400352478027], [0.2939932942390442, 0.7142800688743591, 2.3441734313964844]], [[-0.7627601027488708, -0.09297317266464233, 0.17007993161678314], [-0.3027934432029724, -1.458359956741333, -3.280853271484375]], [[0.8349201083183289, -1.8413867950439453, 3.0646800994873047], [0.840253472328186, -1.3725199699401855, 1.2587600946426392]]], [[[1.2406400442123413, -0.6764132976531982, 0.686680018901825], [-0.7603934407234192, 1.5475199222564697, 2.12062668800354]], [[0.17803999781608582, -0.8070199489593506, 0.6784800887107849], [-0.031093373894691467, -0.7523999810218811, -0.29529333114624023]], [[-1.0290400981903076, 0.7593068480491638, -0.9139599800109863], [-1.2256202697753906, -0.9862399101257324, -2.2102532386779785]]]]
EINSUM_W_128 = [[0.10999999940395355, -0.9300000071525574, -0.029999999329447746], [[-127, 123, 40], [-31, 23, -38], [55, -113, 119], [120, -88, -118]], [[0.08400000631809235, 0.09533334523439407, 0.164000004529953, 0.09533334523439407, 0.14800000190734863, 0.13466666638851166]], [[0, 5, -5, -7, 2, -4]], [0.0, 0.0, 0.0, 0.0]]
EMB_128 = [[[0.276000052690506, 0.1533333659172058, -0.18400004506111145], [-0.5980001091957092, -0.09200001507997513, 0.09200001507997513], [0.1093333438038826, -1.5306668281555176, -0.4373333752155304]], [[-0.9519999623298645, -0.8159999847412109, 1.087999939918518], [-0.9519999623298645, -0.8159999847412109, 1.087999939918518], [-2.5199999809265137, -0.5040000081062317, 0.0]]]
EMB_W_128 = [[[55, 8], [72, 7], [-121, 2], [-104, 7], [-8, 7], [56, 7]], [[0.030666673555970192], [0.1679999977350235], [0.1093333438038826], [0.13599999248981476], [0.11266668140888214], [0.046000007539987564]], [[-2], [7], [6], [-1], [-1], [5]], [0.0, 0.0, 0.0]]
DENSE_NONE = [[2.5104575157165527, 0.0, 0.4876287579536438], [2.554957389831543, 0.0, 1.71947181224823]]
DENSE_W_NONE = [[0.10999999940395355, -0.9300000071525574, -0.029999999329447746], [[32, 14], [-23, 9], [112, 13], [59, 3]], [7.865167617797852, 5.223879814147949, 7.070706367492676]]
EINSUM_NONE = [[[[1.7458860874176025, -1.7505857944488525, 3.1814286708831787], [0.2809714078903198, 0.6089286208152771, 2.276057243347168]], [[-0.7506859302520752, -0.14631414413452148, 0.3957141935825348], [-0.5486286282539368, -1.237785816192627, -3.2617716789245605]], [[0.8492572903633118, -1.8718286752700806, 3.072857141494751], [0.8890857696533203, -1.3462858200073242, 1.08497154712677]]], [[[1.2281144857406616, -0.6418285369873047, 0.5842857956886292], [-0.6710285544395447, 1.406071424484253, 2.1197144985198975]], [[0.18091431260108948, -0.821057140827179, 0.7157142758369446], [-0.06485716998577118, -0.7107857465744019, -0.3262285888195038]], [[-1.0508573055267334, 0.7252287268638611, -0.9699999690055847], [-1.180057168006897, -0.7860714197158813, -2.2990286350250244]]]]
EINSUM_W_NONE = [[0.10999999940395355, -0.9300000071525574, -0.029999999329447746], [[-111, 112, 73], [-63, 71, 11], [-10, 2, 115], [25, 30, -37]], [10.294116020202637, 5.691056251525879, 3.5, 5.147058486938477, 4.516129016876221, 4.861110687255859]]
EMB_NONE = [[[0.2700001001358032, 0.15428577363491058, -0.19285722076892853], [-0.5800001621246338, -0.0828571617603302, 0.0828571617603302], [0.21857142448425293, -1.5299999713897705, -0.43714284896850586]], [[-0.9085714817047119, -0.7571429014205933, 1.0600000619888306], [-0.9085714817047119, -0.7571429014205933, 1.0600000619888306], [-2.5199999809265137, -0.7199999690055847, 0.0]]]
EMB_W_NONE = [[[71, 11], [-23, 0], [-111, 14], [-70, 7], [10, 7], [-7, 1]], [25.92591667175293, 2.777777910232544, 4.5751633644104, 6.60377311706543, 7.954544544219971, 12.068963050842285]]
DENSE_3 = [[2.4876136779785156, 0.0, 0.3218001127243042], [2.5427470207214355, 0.0, 1.3569203615188599]]
DENSE_W_3 = [[0.10999999940395355, -0.9300000071525574, -0.029999999329447746], [[119, 1], [-120, 8], [119, 8], [24, 7]], [[0.05933333933353424, 0.05000000819563866, 0.04800001159310341], [0.045333340764045715, 0.056666675955057144, 0.056666675955057144]], [[7, 1, 7], [6, -8, 1]], [0.0, 0.0, 1.0, 1.0]]
EINSUM_3 = [[[[1.715240240097046, -1.8268601894378662, 3.060920238494873], [0.2773333191871643, 1.1748003959655762, 2.2739734649658203]], [[-0.7594000697135925, -0.5808999538421631, -0.034519992768764496], [0.09733331203460693, -1.5444002151489258, -3.3199334144592285]], [[0.8070802092552185, -1.8086202144622803, 2.998840093612671], [0.7160001397132874, -0.49899980425834656, 1.1572400331497192]]], [[[1.255519986152649, -0.9302799701690674, 0.6784000396728516], [-0.42066681385040283, 0.7626003623008728, 2.1477866172790527]], [[0.17684000730514526, -0.9792600274085999, 0.6127200126647949], [0.12133331596851349, -0.7738999724388123, -0.3185933828353882]], [[-1.0021601915359497, 0.054240286350250244, -1.0257600545883179], [-0.376666784286499, -2.2616002559661865, -2.189453601837158]]]]
EINSUM_W_3 = [[0.10999999940395355, -0.9300000071525574, -0.029999999329447746], [[-121, 121, 120], [-121, 119, -104], [-121, -121, 119], [120, 120, -120]], [[0.0040000067092478275, 0.039333343505859375, 0.12800000607967377, 0.040000010281801224, 0.023333333432674408, 0.05266667529940605], [0.08400000631809235, 0.0260000042617321, 0.07600000500679016, 0.013333339244127274, 0.12400002032518387, 0.13466666638851166]], [[-8, 7, -8, -8, 7, -8], [0, -1, -2, -3, 2, -4]], [0.0, 0.0, 1.0, 1.0]]
EMB_3 = [[[0.1100001111626625, 0.1100001111626625, -0.19000010192394257], [-0.47000008821487427, -0.12533335387706757, 0.11000009626150131], [0.1093333438038826, -1.5306668281555176, -0.4800000786781311]], [[-0.1700001209974289, -0.1700001209974289, 1.0600000619888306], [-0.1700001209974289, -0.1700001209974289, 1.0600000619888306], [-1.9800002574920654, -0.5280000567436218, -0.05000010132789612]]]
EMB_W_3 = [[[119, 8], [56, 8], [-121, 8], [-120, 7], [104, 7], [56, 7]], [[0.007333340588957071, 0.012666673399508], [0.13200001418590546, 0.0033333401661366224], [0.1093333438038826, 0.03200000524520874], [0.011333341710269451, 0.07066667079925537], [0.0520000085234642, 0.05866667255759239], [0.03133333846926689, 0.007333339657634497]], [[-8, 7], [7, 7], [6, 7], [7, -8], [7, -8], [7, -8]], [0.0, 0.0, 1.0]]
TRAIN = [[-0.4007996618747711, -1.0946927070617676, -0.1193925216794014], [[0.13716241717338562, -0.3221491575241089], [0.06135665252804756, -1.1328896284103394], [0.5804409980773926, 0.23772849142551422]], [0.14430458843708038, -0.5845077037811279]]
TRAIN_PRED = [[0.6222518682479858, 0.8554081916809082], [1.310715913772583, 0.9812906980514526]]

CLOSE = dict(rtol=1e-6, atol=1e-6)
BLOCKS = {"128": 128, "NONE": None, "3": 2}


def config(key):
    return pd.quantizers.Int4QuantizationConfig(block_size=BLOCKS[key])


def assert_weights(layer, expected):
    assert len(layer.weights) == len(expected)
    for w, values in zip(layer.weights, expected):
        np.testing.assert_array_equal(w.val(), np.asarray(values, w.val().dtype))


@pytest.mark.parametrize("key", list(BLOCKS))
def test_dense_int4_is_kerass(key):
    model = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3, activation="relu")])
    layer = model.layers[0]
    layer.set_weights([D["W"], D["B"]])
    model.quantize("int4", config=config(key))
    block = -1 if BLOCKS[key] is None else BLOCKS[key]
    assert layer.quantization_mode == "int4"
    assert layer.dtype_policy.name == f"int4/{block}_from_float32"
    assert isinstance(layer.dtype_policy, pd.dtype_policies.Int4DTypePolicy)
    assert layer.kernel.dtype == "int8" and layer.kernel.shape == (4, 2)
    assert_weights(layer, globals()[f"DENSE_W_{key}"])
    np.testing.assert_allclose(model.predict(D["X"], verbose=0), globals()[f"DENSE_{key}"],
                               **CLOSE)
    np.testing.assert_allclose(np.asarray(model(D["X"])), globals()[f"DENSE_{key}"], **CLOSE)


@pytest.mark.parametrize("key", list(BLOCKS))
def test_einsum_dense_int4_is_kerass(key):
    layer = pd.layers.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="e")
    model = pd.Sequential([pd.Input(shape=(3, 4)), layer])
    layer.set_weights([D["K"], D["B"]])
    model.quantize("int4", config=config(key))
    assert layer.kernel.shape == (4, 3)  # (rows, ceil(columns / 2)): 4 x 6 values
    assert_weights(layer, globals()[f"EINSUM_W_{key}"])
    np.testing.assert_allclose(model.predict(D["XE"], verbose=0), globals()[f"EINSUM_{key}"],
                               **CLOSE)


@pytest.mark.parametrize("key", list(BLOCKS))
def test_embedding_int4_is_kerass(key):
    model = pd.Sequential([pd.Input(shape=(3,), dtype="int32"), pd.layers.Embedding(6, 3)])
    model.layers[0].set_weights([D["E"]])
    model.quantize("int4", config=config(key))
    assert_weights(model.layers[0], globals()[f"EMB_W_{key}"])
    np.testing.assert_allclose(model.predict(IDS, verbose=0), globals()[f"EMB_{key}"], **CLOSE)


@pytest.mark.parametrize("shape", [(3, 8), (5, 7), (2, 3, 1)])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_unpacking_is_ops_equal_to_unpack_int4(shape, dtype):
    values = np.random.default_rng(5).integers(-8, 8, size=shape).astype(np.int8)
    packed, _, length = pd.quantizers.pack_int4(values, axis=-1)
    x = pd.data("int4_packed", shape=[None] + list(packed.shape[1:]), dtype="int8")
    unpacked = int4_values(x, shape[-1], dtype)
    assert unpacked.dtype == dtype and unpacked.shape == (None,) + shape[1:]
    # graph ops only (each has its CPU and CUDA kernels and its shape rule), no host code
    assert {node.op.name for node in topological_nodes([unpacked])} <= {
        "cast", "floor", "mul", "sub", "greater_equal", "where", "expand_dims", "concat",
        "reshape", "slice"}
    got = pd.eval(unpacked, {x: packed})
    np.testing.assert_array_equal(got, values.astype(dtype))
    np.testing.assert_array_equal(got, pd.quantizers.unpack_int4(packed, shape[-1], axis=-1))


def test_int4_weights_take_an_eighth_of_the_bytes():
    model = pd.Sequential([pd.Input(shape=(256,)), pd.layers.Dense(64)])
    x = np.random.default_rng(0).normal(size=(3, 256)).astype("float32")
    float_out = model.predict(x, verbose=0)
    before = model.layers[0].kernel.val().nbytes
    model.quantize("int4")
    assert model.layers[0].kernel.val().nbytes * 8 == before
    np.testing.assert_allclose(model.predict(x, verbose=0), float_out, atol=0.5)
    assert not model._loose_parameters()


@pytest.mark.parametrize("key", ["128", "NONE"])
def test_int4_files_keep_kerass_layout_and_load(tmp_path, key):
    model = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3, activation="relu")])
    model.layers[0].set_weights([D["W"], D["B"]])
    model.quantize("int4", config=config(key))
    expected = model.predict(D["X"], verbose=0)
    model.save(tmp_path / "q.keras")
    model.save_weights(tmp_path / "q.weights.h5")
    layout = {"128": [("int8", (4, 2)), ("float32", (3,)), ("float32", (1, 3)),
                      ("int8", (1, 3)), ("float32", (4,))],
              "NONE": [("int8", (4, 2)), ("float32", (3,)), ("float32", (3,))]}[key]
    with h5py.File(tmp_path / "q.weights.h5", "r") as f:
        group = f["layers/dense/vars"]
        assert [(group[str(i)].dtype.name, group[str(i)].shape)
                for i in range(len(group))] == layout
    loaded = pd.saving.load_model(tmp_path / "q.keras")
    assert loaded.layers[0].dtype_policy == model.layers[0].dtype_policy
    np.testing.assert_array_equal(loaded.predict(D["X"], verbose=0), expected)
    dtype = loaded.layers[0].get_config()["dtype"]
    assert dtype["class_name"] == "Int4DTypePolicy"
    block = -1 if BLOCKS[key] is None else BLOCKS[key]
    assert dtype["config"] == {"mode": f"int4/{block}", "source_name": "float32"}
    other = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3, activation="relu")])
    other.quantize("int4", config=config(key))
    other.load_weights(tmp_path / "q.weights.h5")
    np.testing.assert_array_equal(other.predict(D["X"], verbose=0), expected)


def test_an_int4_model_trains_as_kerass():
    # Keras: the int4 layer keeps its bias trainable, the inputs' gradient goes through
    # the dequantized kernel; two epochs of SGD(0.1) on mse
    inp = pd.Input(shape=(4,))
    hidden, top = pd.layers.Dense(3), pd.layers.Dense(2)
    model = pd.Model(inp, top(hidden(inp)))
    hidden.set_weights([D["W"], D["B"]])
    top.set_weights([D["K"][:3, 0, :2], D["B"][:2]])
    model.quantize("int4", filters=lambda layer: layer is hidden)
    kernel = hidden.kernel.val().copy()
    assert [w.name.rsplit("/", 1)[-1] for w in model.trainable_weights] == [
        "bias", "kernel", "bias"]
    model.compile(optimizer=pd.optimizers.SGD(0.1), loss="mse")
    model.fit(D["X"], np.ones((2, 2), np.float32), epochs=2, batch_size=2, shuffle=False,
              verbose=0)
    for w, expected in zip(model.trainable_weights, TRAIN):
        np.testing.assert_allclose(w.val(), expected, **CLOSE)
    np.testing.assert_allclose(model.predict(D["X"], verbose=0), TRAIN_PRED, **CLOSE)
    assert np.array_equal(hidden.kernel.val(), kernel)


@pytest.mark.parametrize("key", ["128", "NONE"])
def test_the_inputs_gradient_goes_through_the_dequantized_kernel(key):
    layer = pd.layers.Dense(3)
    pd.Sequential([pd.Input(shape=(4,)), layer]).layers[0].set_weights([D["W"], D["B"]])
    layer.quantize("int4", config=config(key))
    x = pd.data(f"int4_grad_x_{key}", shape=[None, 4])
    g, = pd.gradients(pd.ops.sum(layer(x) * np.float32([1.0, 2.0, 3.0])), [x])
    values = pd.quantizers.unpack_int4(layer.kernel.val(), 3, axis=-1).astype(np.float32)
    if key == "NONE":
        float_kernel = values / layer.kernel_scale.val()
    else:
        float_kernel = (values - layer.kernel_zero.val()[0]) * layer.kernel_scale.val()[0]
    np.testing.assert_allclose(pd.eval(g, {x: D["X"]}),
                               np.tile(np.float32([[1.0, 2.0, 3.0]]), (2, 1)) @ float_kernel.T,
                               rtol=1e-6, atol=1e-7)


def test_int4_policies():
    policy = pd.dtype_policies.get("int4/64_from_float32")
    assert isinstance(policy, pd.dtype_policies.Int4DTypePolicy)
    assert (policy.name, policy.quantization_mode, policy.block_size, policy.compute_dtype) \
        == ("int4/64_from_float32", "int4", 64, "float32")
    config = pd.dtype_policies.serialize(policy)
    assert config == {"module": "keras.dtype_policies", "class_name": "Int4DTypePolicy",
                      "config": {"mode": "int4/64", "source_name": "float32"},
                      "registered_name": None}
    assert pd.dtype_policies.deserialize(config) == policy
    assert policy != pd.dtype_policies.get("int4/32_from_float32")
    legacy = pd.dtype_policies.get("int4_from_float32")  # Keras's, before block sizes
    assert type(legacy) is pd.dtype_policies.QuantizedDTypePolicy
    assert legacy.quantization_mode == "int4"
    for mode, words in [("int8/4", "Expected format 'int4/<block_size>'"),
                        ("int4/x", "<block_size> must be an integer"),
                        ("int4/0", "Supported values are -1 (per-channel) or a positive"),
                        ("int4/-2", "but got -2 from 'int4/-2'")]:
        with pytest.raises(ValueError, match=re.escape(words)):
            pd.dtype_policies.Int4DTypePolicy(mode, "float32")


def test_int4_config_and_kerass_errors():
    config = pd.quantizers.Int4QuantizationConfig()
    assert (config.mode, config.block_size, config.weight_quantizer,
            config.activation_quantizer) == ("int4", 128, None, None)
    assert config.get_config() == {"weight_quantizer": None, "activation_quantizer": None,
                                   "block_size": 128}
    assert pd.quantizers.Int4QuantizationConfig.from_config(
        {"weight_quantizer": None, "activation_quantizer": None}).block_size is None
    for block in (0, -2):
        with pytest.raises(ValueError, match="block_size must be None, -1, or a positive "
                                             f"integer. Received: block_size={block}"):
            pd.quantizers.Int4QuantizationConfig(block_size=block)
    int4 = pd.quantizers.AbsMaxQuantizer(value_range=(-8, 7))
    with pytest.raises(ValueError, match=r"sub-channel quantization \(block_size > 0\) does "
                                         "not support custom quantizers"):
        pd.quantizers.Int4QuantizationConfig(weight_quantizer=int4)
    with pytest.raises(ValueError, match=re.escape(
            "requires a weight_quantizer with value_range=(-8, 7). Received: "
            "value_range=(-127, 127)")):
        pd.quantizers.Int4QuantizationConfig(
            weight_quantizer=pd.quantizers.AbsMaxQuantizer(), block_size=None)
    model = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3)])
    model.quantize("int4")
    with pytest.raises(ValueError, match=re.escape(
            "is already quantized with dtype_policy='int4/128_from_float32'. Received: "
            "mode=int8")):
        model.layers[0].quantize("int8")


def test_int4_with_an_inputs_quantizer_per_channel():
    # Keras allows an activation quantizer per channel: the inputs quantized to int8 along
    # the last axis, the product divided by both scales
    model = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3)])
    model.layers[0].set_weights([D["W"], D["B"]])
    model.quantize(config=pd.quantizers.Int4QuantizationConfig(
        activation_quantizer=pd.quantizers.AbsMaxQuantizer(), block_size=None))
    layer = model.layers[0]
    xq, xs = pd.quantizers.abs_max_quantize(D["X"], axis=-1)
    kq = pd.quantizers.unpack_int4(layer.kernel.val(), 3, axis=-1).astype(np.float32)
    expected = (xq.astype(np.float32) @ kq) / (xs * layer.kernel_scale.val()) + D["B"]
    np.testing.assert_allclose(model.predict(D["X"], verbose=0), expected, rtol=1e-6,
                               atol=1e-6)


@pytest.mark.parametrize("key", ["128", "NONE"])
def test_int4_under_a_mixed_policy_computes_in_the_half_type(key):
    def run(policy):
        model = pd.Sequential([pd.Input(shape=(4,)), pd.layers.Dense(3, dtype=policy)])
        model.layers[0].set_weights([D["W"], D["B"]])
        model.quantize("int4", config=config(key))
        return model, model.predict(D["X"], verbose=0)
    model, half = run("mixed_bfloat16")
    assert model.layers[0].dtype_policy.name.endswith("_from_mixed_bfloat16")
    assert str(half.dtype) == "bfloat16"
    assert model.layers[0].kernel_scale.dtype == "float32"
    _, full = run("float32")
    np.testing.assert_allclose(np.asarray(half, np.float32), full, rtol=2e-2, atol=2e-2)
