"""pd.utils.plot_history: one panel per metric with training and validation curves."""
import os

import numpy as np
import pytest

import paddle as pd

pytest.importorskip("matplotlib")
from pictures import check_png  # noqa: E402


def trained_history():
    pd.seed(0)
    model = pd.Sequential([pd.layers.Input(shape=(4,)), pd.layers.Dense(3, activation="softmax")])
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 4)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    return model.fit(x, y, epochs=4, batch_size=10, validation_split=0.25, verbose=0)


def test_one_panel_per_metric_with_both_curves(tmp_path):
    history = trained_history()
    path = tmp_path / "history.png"
    figure = pd.utils.plot_history(history, to_file=path)
    width, height = check_png(path)
    assert width > height  # two panels side by side
    assert [a.get_title() for a in figure.axes] == ["loss", "accuracy"]
    for axes, name in zip(figure.axes, ["loss", "accuracy"]):
        lines = axes.get_lines()
        assert [line.get_label() for line in lines] == [name, f"val_{name}"]
        np.testing.assert_allclose(lines[0].get_ydata(), history.history[name])
        np.testing.assert_allclose(lines[1].get_ydata(), history.history[f"val_{name}"])
        assert list(lines[0].get_xdata()) == [1, 2, 3, 4]


def test_dict_without_validation_and_chosen_metrics(tmp_path):
    values = {"loss": [3.0, 2.0, 1.5], "mae": [1.0, 0.8, 0.7], "mse": [2.0, 1.0, 0.5]}
    figure = pd.utils.plot_history(values, to_file=tmp_path / "h.png")
    assert [a.get_title() for a in figure.axes] == ["loss", "mae", "mse"]  # a 2 x 2 grid
    assert [len(a.get_lines()) for a in figure.axes] == [1, 1, 1]
    check_png(tmp_path / "h.png")
    figure = pd.utils.plot_history(values, to_file=tmp_path / "h.svg", metrics="mae")
    assert [a.get_title() for a in figure.axes] == ["mae"]
    assert (tmp_path / "h.svg").read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize("history, error, match", [
    ({}, ValueError, "the history is empty"),
    ({"loss": []}, ValueError, "the history is empty"),
    ([0.5, 0.4], TypeError, "expected a History .* received list"),
    ({"loss": ["high"]}, TypeError, r"expected history\['loss'\] to be a list of numbers"),
])
def test_bad_histories_leave_no_file(tmp_path, history, error, match):
    with pytest.raises(error, match=f"plot_history: {match}"):
        pd.utils.plot_history(history, to_file=tmp_path / "h.png")
    assert os.listdir(tmp_path) == []


def test_bad_arguments_leave_no_file(tmp_path):
    values = {"loss": [1.0, 0.5]}
    with pytest.raises(ValueError, match=r"\['accuracy'\] are not in the history"):
        pd.utils.plot_history(values, to_file=tmp_path / "h.png", metrics=["accuracy"])
    with pytest.raises(ValueError, match="image format from to_file"):
        pd.utils.plot_history(values, to_file=tmp_path / "h.txt")
    with pytest.raises(OSError, match="plot_history: cannot write"):
        pd.utils.plot_history(values, to_file=tmp_path / "nowhere" / "h.png")
    assert os.listdir(tmp_path) == []
