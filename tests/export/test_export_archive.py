"""pd.export.ExportArchive: Keras 3's API (track, add_endpoint, track_and_add_endpoint,
add_variable_collection, write_out) writing named ONNX endpoints into one archive, and
load_archive reading it back: the reloaded endpoints give the model's outputs; bad input
raises as Keras 3.15.1 does (its messages, checked on its JAX backend), and a damaged or
unsafe archive is refused without running anything from it."""
import io
import json
import zipfile

import numpy as np
import pytest

import paddle as pd
from paddle.errors import CheckpointError, ExportError

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
L = pd.layers
SPEC10 = pd.InputSpec(shape=(None, 10), dtype="float32")


class CustomModel(pd.Model):
    def __init__(self, layer_list):
        super().__init__()
        self.layer_list = layer_list

    def call(self, x):
        for layer in self.layer_list:
            x = layer(x)
        return x


def get_model(kind):
    layers = [L.Dense(10, activation="relu"), L.BatchNormalization(),
              L.Dense(1, activation="sigmoid")]
    if kind == "sequential":
        return pd.Sequential([pd.Input((10,))] + layers)
    if kind == "functional":
        x = y = pd.Input((10,))
        for layer in layers:
            y = layer(y)
        return pd.Model(x, y)
    model = CustomModel(layers)
    model(np.zeros((2, 10), "float32"))
    return model


@pytest.mark.parametrize("kind", ["sequential", "functional", "subclass"])
def test_two_endpoints_reload_with_the_models_outputs(kind, tmp_path):
    pd.seed(1)
    model = get_model(kind)
    x = np.random.RandomState(0).normal(size=(3, 10)).astype("float32")
    expected = model.predict(x, verbose=0)
    archive = pd.export.ExportArchive()
    archive.track(model)
    assert (len(archive.variables), len(archive.trainable_variables),
            len(archive.non_trainable_variables)) == (8, 6, 2)  # Keras's counts
    fn = archive.add_endpoint("call", model.__call__, input_signature=[SPEC10])
    archive.add_endpoint("scaled", lambda inputs: model(inputs) * 3.0 - 1.0,
                         input_signature=[SPEC10])
    np.testing.assert_allclose(np.asarray(fn(x)), expected, atol=1e-6)
    path = tmp_path / "exported.zip"
    archive.write_out(path, verbose=False)
    reloaded = pd.export.load_archive(path)
    assert reloaded.endpoint_names == ["call", "scaled"]
    np.testing.assert_allclose(reloaded.call(x), expected, atol=1e-5)
    np.testing.assert_allclose(reloaded.scaled(inputs=x), expected * 3.0 - 1.0, atol=1e-5)
    np.testing.assert_allclose(reloaded.signatures["serving_default"](x), expected, atol=1e-5)
    assert reloaded.call(np.zeros((6, 10), "float32")).shape == (6, 1)  # another batch size
    assert len(reloaded.variables) == 8
    for saved, weight in zip(reloaded.variables, archive.variables):
        np.testing.assert_array_equal(saved, weight.val())


def test_multi_input_output_and_dict_structures(tmp_path):
    x1, x2 = pd.Input((2,)), pd.Input((2,))
    y1, y2 = L.Dense(3)(x1), L.Dense(3)(x2)
    model = pd.Model([x1, x2], [y1, y2])
    by_name = pd.Model({"x1": x1, "x2": x2}, {"first": y1, "second": y2})
    archive = pd.export.ExportArchive()
    spec = pd.InputSpec(shape=(None, 2), dtype="float32")
    archive.track_and_add_endpoint("serve", model, [[spec, spec]])
    archive.add_endpoint("named", by_name.__call__, [{"x1": spec, "x2": spec}])
    archive.add_endpoint("difference", lambda a, b: a - b, [spec, pd.Input((2,))])
    archive.write_out(tmp_path / "multi.zip", verbose=False)
    reloaded = pd.export.load_archive(tmp_path / "multi.zip")
    rng = np.random.RandomState(2)
    a, b = rng.rand(4, 2).astype("float32"), rng.rand(4, 2).astype("float32")
    got, expected = reloaded.serve([a, b]), model.predict([a, b], verbose=0)
    assert isinstance(got, list) and len(got) == 2
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, atol=1e-6)
    named = reloaded.named({"x1": a, "x2": b})
    assert sorted(named) == ["first", "second"]
    np.testing.assert_allclose(named["second"], expected[1], atol=1e-6)
    np.testing.assert_allclose(reloaded.difference(a, b=b), a - b, atol=1e-7)


def test_layer_endpoints_untracked_and_combined(tmp_path):
    """Keras's test_track_multiple_layers (no track(): the weights are in the graphs, as
    Keras's JAX backend captures them) and an endpoint made of another's returned function."""
    layer_1, layer_2 = L.Dense(2), L.Dense(3)
    x1, x2 = np.ones((3, 4), "float32"), np.full((3, 5), 0.5, "float32")
    out_1, out_2 = np.asarray(layer_1(x1)), np.asarray(layer_2(x2))
    archive = pd.export.ExportArchive()
    archive.add_endpoint("call_1", layer_1.call, [pd.InputSpec(shape=(None, 4), dtype="float32")])
    fn_2 = archive.add_endpoint("call_2", layer_2.call,
                                [pd.InputSpec(shape=(None, 5), dtype="float32")])
    archive.add_endpoint("combined", lambda x: fn_2(x * 2.0),
                         [pd.InputSpec(shape=(None, 5), dtype="float32")])
    assert archive.variables == []
    archive.write_out(tmp_path / "layers.zip", verbose=False)
    reloaded = pd.export.load_archive(tmp_path / "layers.zip")
    np.testing.assert_allclose(reloaded.call_1(x1), out_1, atol=1e-6)
    np.testing.assert_allclose(reloaded.call_2(x2), out_2, atol=1e-6)
    np.testing.assert_allclose(reloaded.combined(x2), np.asarray(layer_2(x2 * 2.0)), atol=1e-6)


def test_variable_collection_and_verbose_listing(tmp_path, capsys):
    model = pd.Sequential([pd.Input((10,)), L.Dense(2), L.Dense(2)])
    archive = pd.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("call", model.__call__, input_signature=[SPEC10])
    archive.add_variable_collection("my_vars", model.layers[1].weights)
    archive.write_out(tmp_path / "vars.zip")
    printed = capsys.readouterr().out
    assert printed.startswith(f"Saved artifact at '{tmp_path / 'vars.zip'}'. The following "
                              "endpoints are available:")
    assert "* Endpoint 'call'" in printed and "shape=(None, 10)" in printed
    reloaded = pd.export.load_archive(tmp_path / "vars.zip")
    assert reloaded.variable_collections == ["my_vars"] and len(reloaded.my_vars) == 2
    for saved, weight in zip(reloaded.my_vars, model.layers[1].weights):
        np.testing.assert_array_equal(saved, weight.val())


def test_input_signature_from_inputs_and_tensors(tmp_path):
    model = get_model("functional")
    x = np.random.RandomState(3).rand(5, 10).astype("float32")
    for i, signature in enumerate([pd.Input((10,)), x, pd.ops.convert_to_tensor(x)]):
        archive = pd.export.ExportArchive()
        archive.add_endpoint("serve", model.__call__, [signature])
        archive.write_out(tmp_path / f"s{i}.zip", verbose=False)
        reloaded = pd.export.load_archive(tmp_path / f"s{i}.zip")
        np.testing.assert_allclose(reloaded.serve(x[:2]), model.predict(x[:2], verbose=0),
                                   atol=1e-5)


def _model():
    model = pd.Sequential([pd.Input((3,)), L.Dense(2)])
    return model


def test_errors_as_keras():
    model = _model()
    spec = [pd.InputSpec(shape=(None, 3), dtype="float32")]
    archive = pd.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("call", model.__call__, input_signature=spec)
    with pytest.raises(ValueError, match="Endpoint name 'call' is already taken"):
        archive.add_endpoint("call", model.__call__, input_signature=spec)
    with pytest.raises(ValueError, match="you must provide an `input_signature`"):
        archive.add_endpoint("other", model.__call__)
    with pytest.raises(ValueError, match="No endpoints have been set"):
        pd.export.ExportArchive().write_out("never.zip")
    with pytest.raises(ValueError, match="Invalid resource type") as info:
        pd.export.ExportArchive().track("model")
    assert "test_export_archive.py" in str(info.value)
    with pytest.raises(ValueError, match="It must be built before export"):
        pd.export.ExportArchive().track(L.Dense(2))
    with pytest.raises(ValueError, match="Expected `variables` to be a list/tuple/set"):
        archive.add_variable_collection("v", model.weights[0])
    with pytest.raises(ValueError, match="Expected all elements in `variables`"):
        archive.add_variable_collection("v", [1, 2])
    with pytest.raises(TypeError, match="Unsupported x=123"):
        archive.add_endpoint("bad", model.__call__, input_signature=[123])
    with pytest.raises(ValueError, match="The `shape` and `dtype` must be provided"):
        archive.add_endpoint("bad", model.__call__, input_signature=[pd.InputSpec(ndim=2)])
    with pytest.raises(ValueError, match="only supported with Keras's JAX backend"):
        archive.add_endpoint("bad", model.__call__, spec, jax2tf_kwargs={})
    with pytest.raises(ValueError, match="Unsupported format: 'saved_model'"):
        pd.export.ExportArchive(format="saved_model")


def test_paddle_specific_refusals(tmp_path):
    model = _model()
    spec = [pd.InputSpec(shape=(None, 3), dtype="float32")]
    archive = pd.export.ExportArchive()
    for name in ("not a name", "variables", "_private", 3):
        with pytest.raises(ValueError, match="name to be a Python identifier"):
            archive.add_endpoint(name, model.__call__, spec)
    archive.add_endpoint("call", model.__call__, spec)
    with pytest.raises(ValueError, match="already an endpoint's"):
        archive.add_variable_collection("call", model.weights)
    with pytest.raises(ValueError, match="SaveOptions"):
        archive.write_out(tmp_path / "a.zip", options={"x": 1})
    dropout = pd.Sequential([pd.Input((3,)), L.Dropout(0.5)])
    with pytest.raises(ExportError, match="training=True"):  # ONNX would not drop
        archive.add_endpoint("train", lambda x: dropout(x, training=True), spec)
    with pytest.raises(TypeError, match="expected fn to return a Variable"):
        archive.add_endpoint("nothing", lambda x: 3, spec)
    assert archive._endpoint_names == ["call"]  # the refused ones were not added


def test_reloaded_endpoints_check_their_arguments(tmp_path):
    model = _model()
    archive = pd.export.ExportArchive()
    archive.add_endpoint("call", model.__call__, [pd.InputSpec(shape=(None, 3), dtype="float32")])
    archive.write_out(tmp_path / "a.zip", verbose=False)
    call = pd.export.load_archive(tmp_path / "a.zip").call
    np.testing.assert_allclose(call(np.ones((2, 3))), model.predict(np.ones((2, 3)), verbose=0),
                               atol=1e-6)  # float64 arrays are cast to the spec's float32
    with pytest.raises(ValueError, match=r"expected an input of shape \(None, 3\), received "
                                         r"shape \(2, 4\)"):
        call(np.ones((2, 4), "float32"))
    with pytest.raises(TypeError, match="expected float32 values, received bool"):
        call(np.ones((2, 3), bool))
    with pytest.raises(TypeError, match=r"expected the arguments \['args_0'\]"):
        call(np.ones((2, 3)), np.ones((2, 3)))


def _rewrite(path, change):
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    change(members)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    path.write_bytes(buffer.getvalue())


def test_damaged_or_unsafe_archives_are_refused(tmp_path):
    model = _model()
    archive = pd.export.ExportArchive()
    archive.track(model)
    archive.add_endpoint("call", model.__call__, [pd.InputSpec(shape=(None, 3), dtype="float32")])
    good = tmp_path / "good.zip"
    archive.write_out(good, verbose=False)

    def variant(name, change):
        path = tmp_path / name
        path.write_bytes(good.read_bytes())
        _rewrite(path, change)
        return path

    def manifest_edit(edit):
        def change(members):
            manifest = json.loads(members["archive.json"])
            edit(manifest)
            members["archive.json"] = json.dumps(manifest).encode()
        return change

    def external(members):
        proto = onnx.load_model_from_string(members["endpoints/call.onnx"])
        tensor = proto.graph.initializer[0]
        tensor.ClearField("raw_data")
        tensor.data_location = onnx.TensorProto.EXTERNAL
        entry = tensor.external_data.add()
        entry.key, entry.value = "location", "../../etc/passwd"
        members["endpoints/call.onnx"] = proto.SerializeToString()

    cases = {
        "no_manifest.zip": (lambda m: m.pop("archive.json"), "no archive.json"),
        "not_json.zip": (lambda m: m.update({"archive.json": b"{nope"}), "is not JSON"),
        "traversal.zip": (manifest_edit(lambda d: d["endpoints"][0].update(
            file="../call.onnx")), "manifest"),
        "bad_name.zip": (manifest_edit(lambda d: d["endpoints"][0].update(
            name="__class__")), "manifest"),
        "version.zip": (manifest_edit(lambda d: d.update(version=99)), "manifest"),
        "missing.zip": (lambda m: m.pop("endpoints/call.onnx"), "lacks endpoints/call.onnx"),
        "garbage.zip": (lambda m: m.update({"endpoints/call.onnx": b"\x00garbage"}),
                        "not an ONNX model|ONNX Runtime refused"),
        "external.zip": (external, "external data"),
        "pickle.zip": (lambda m: m.update({"variables/trainable_variables/0.npy": _pickled()}),
                       "not a NumPy array of numbers"),
    }
    for name, (change, message) in cases.items():
        with pytest.raises(CheckpointError, match=message):
            pd.export.load_archive(variant(name, change))
            pytest.fail(f"{name} was read")
    (tmp_path / "text.zip").write_text("not a zip")
    with pytest.raises(CheckpointError, match="cannot read"):
        pd.export.load_archive(tmp_path / "text.zip")
    with pytest.raises(CheckpointError, match="no archive file"):
        pd.export.load_archive(tmp_path / "absent.zip")


def _pickled():
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    return buffer.getvalue()


class TwoInputsModel(pd.Model):
    def call(self, x, y):
        return x + y


def test_two_argument_model_and_weights_of_write_time(tmp_path):
    model = TwoInputsModel()
    a, b = np.ones((3, 10), "float32"), np.full((3, 10), 2.0, "float32")
    archive = pd.export.ExportArchive()
    fn = archive.add_endpoint("serve", model.__call__, [SPEC10, SPEC10])
    np.testing.assert_array_equal(np.asarray(fn(a, b)), a + b)
    dense = pd.Sequential([pd.Input((10,)), L.Dense(1)])
    archive.track_and_add_endpoint("dense", dense, [SPEC10])
    dense.set_weights([np.ones((10, 1), "float32"), np.zeros(1, "float32")])  # after adding
    archive.write_out(tmp_path / "two.zip", verbose=False)
    reloaded = pd.export.load_archive(tmp_path / "two.zip")
    np.testing.assert_array_equal(reloaded.serve(a, b), a + b)
    np.testing.assert_allclose(reloaded.dense(a), np.full((3, 1), 10.0), atol=1e-6)
    np.testing.assert_array_equal(reloaded.trainable_variables[0], np.ones((10, 1)))


def test_an_endpoint_onnx_cannot_map_is_refused_at_its_line():
    archive = pd.export.ExportArchive()
    with pytest.raises(ExportError, match="endpoint 'top'") as info:
        archive.add_endpoint("top", lambda x: pd.ops.argmax(x, axis=-1),
                             [pd.InputSpec(shape=(None, 3), dtype="float32")])
    assert "test_export_archive.py" in str(info.value)
    assert archive._endpoint_names == []
