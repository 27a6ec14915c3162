"""pd.visualization: segmentation masks drawn as Keras 3.15 draws them (values read from
Keras once and written here), and the galleries saved as files (matplotlib)."""
import numpy as np
import pytest

import paddle as pd

IMAGES = np.random.default_rng(0).integers(0, 255, (2, 3, 3, 3)).astype("uint8")
MASKS = np.random.default_rng(1).integers(-1, 4, (2, 3, 3, 1))
KERAS_DEFAULT = [
    [[[44, 134, 50], [14, 117, 26], [5, 204, 58]], [[207, 165, 232], [128, 154, 247],
                                                    [186, 161, 138]],
     [[142, 238, 70], [208, 171, 0], [20, 43, 28]]],
    [[[1, 39, 37], [215, 44, 22], [44, 102, 52]], [[4, 15, 24], [107, 102, 7], [0, 6, 0]],
     [[35, 128, 57], [14, 234, 88], [20, 125, 75]]]]


def test_draw_segmentation_masks_is_kerass():
    draw = pd.visualization.draw_segmentation_masks
    assert draw(IMAGES, MASKS).tolist() == KERAS_DEFAULT
    assert int(draw(IMAGES, MASKS, num_classes=4, alpha=0.5).sum()) == 5011
    assert float(draw(IMAGES, MASKS, num_classes=4, blend=False).sum()) == 3555.0
    first = draw(IMAGES.transpose(0, 3, 1, 2), MASKS.transpose(0, 3, 1, 2),
                 data_format="channels_first")
    assert first.tolist() == KERAS_DEFAULT


def test_draw_segmentation_masks_bad_input():
    with pytest.raises(TypeError, match="expected integer segmentation_masks"):
        pd.visualization.draw_segmentation_masks(IMAGES, MASKS.astype(float))
    with pytest.raises(ValueError, match="rank 4"):
        pd.visualization.draw_segmentation_masks(IMAGES[0], MASKS[0])


def test_galleries_are_saved(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "gallery.png"
    pd.visualization.plot_image_gallery(IMAGES, y_true=[0, 1], label_map={0: "a", 1: "b"},
                                        rows=1, cols=2, path=str(path))
    assert path.stat().st_size > 0
    masks = tmp_path / "masks.png"
    pd.visualization.plot_segmentation_mask_gallery(IMAGES, num_classes=4, y_true=MASKS,
                                                    y_pred=MASKS, path=str(masks))
    assert masks.stat().st_size > 0
    with pytest.raises(ValueError, match="need a label_map"):
        pd.visualization.plot_image_gallery(IMAGES, y_true=[0, 1], path=str(path))
    with pytest.raises(ValueError, match="either a path or show=True"):
        pd.visualization.plot_image_gallery(IMAGES, path=str(path), show=True)


def _box_pixels(image, color):
    return {tuple(p) for p in np.argwhere((image == color).all(axis=-1)).tolist()}


@pytest.mark.parametrize("fmt, box", [("xyxy", [4, 6, 20, 14]), ("yxyx", [6, 4, 14, 20]),
                                      ("xywh", [4, 6, 16, 8]),
                                      ("center_xywh", [12, 10, 16, 8]),
                                      ("rel_xyxy", [4 / 32, 6 / 24, 20 / 32, 14 / 24])])
def test_draw_bounding_boxes_puts_keras_boxes_where_keras_does(fmt, box):
    pytest.importorskip("PIL")
    images = np.zeros((1, 24, 32, 3), "float32")
    boxes = {"boxes": np.array([[box, [1, 1, 3, 3]]], "float32"),
             "labels": np.array([[2, -1]])}  # -1: padding, not drawn (Keras's rule)
    out = pd.visualization.draw_bounding_boxes(images, boxes, fmt, color=(255, 0, 0),
                                               line_thickness=1)
    assert out.shape == images.shape and out.dtype == np.uint8
    drawn = _box_pixels(out[0], (255, 0, 0))
    # Keras's box: x 4..20, y 6..14, as xyxy after convert_format; 1 pixel wide lines
    edges = {(y, x) for x in range(4, 21) for y in (6, 14)} | \
        {(y, x) for y in range(6, 15) for x in (4, 20)}
    assert drawn == edges
    assert boxes["boxes"][0, 0].tolist() == pytest.approx(box)  # the caller's dict untouched


def test_draw_bounding_boxes_labels_thickness_and_scaling():
    pytest.importorskip("PIL")
    images = np.full((2, 40, 40, 3), 0.5, "float32")  # float <= 1: scaled by 255 (Keras)
    boxes = {"boxes": np.array([[[10, 30, 30, 38]], [[10, 2, 30, 20]]]),
             "labels": np.array([[1], [1]]), "confidences": np.array([[0.9], [0.25]])}
    out = pd.visualization.draw_bounding_boxes(images, boxes, "xyxy", color=(0, 255, 0),
                                               class_mapping={1: "cat"}, font_scale=0.5)
    assert out[0, 35, 20].tolist() == [127, 127, 127]  # inside the box: the image
    green = _box_pixels(out[0], (0, 255, 0))
    assert {(30, 20), (31, 20), (38, 20), (39, 20)} <= green  # 2 pixels wide (the default)
    assert any(y < 30 for y, _ in green)  # label above the box: room there (y - 8 > 12)
    green = _box_pixels(out[1], (0, 255, 0))
    assert any(2 < y < 20 and 12 < x < 28 for y, x in green)  # no room above: inside
    plain = pd.visualization.draw_bounding_boxes(images, boxes, "xyxy", color=(0, 255, 0))
    assert len(_box_pixels(plain[0], (0, 255, 0))) < len(_box_pixels(out[0], (0, 255, 0)))


def test_draw_bounding_boxes_bad_input_as_keras(monkeypatch):
    draw = pd.visualization.draw_bounding_boxes
    boxes = {"boxes": np.zeros((1, 1, 4)), "labels": np.zeros((1, 1))}
    with pytest.raises(ValueError, match=r"`images` must be batched 4D tensor. Received: "
                                         r"images.shape=\(8, 8, 3\)"):
        draw(np.zeros((8, 8, 3)), boxes, "xyxy")
    with pytest.raises(TypeError, match="`bounding_boxes` should be a dict"):
        draw(np.zeros((1, 8, 8, 3)), [np.zeros((1, 1, 4))], "xyxy")
    with pytest.raises(ValueError, match="containing 'boxes' and 'labels' keys"):
        draw(np.zeros((1, 8, 8, 3)), {"boxes": np.zeros((1, 1, 4))}, "xyxy")
    with pytest.raises(ValueError, match="format"):
        draw(np.zeros((1, 8, 8, 3)), boxes, "xyzw")
    monkeypatch.setitem(__import__("sys").modules, "PIL", None)
    with pytest.raises(ImportError, match="pip install pillow"):
        draw(np.zeros((1, 8, 8, 3)), boxes, "xyxy")


def test_bounding_box_gallery_is_saved(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("PIL")
    boxes = {"boxes": np.array([[[1, 1, 6, 6]], [[2, 2, 7, 7]]]), "labels": np.array([[0], [1]])}
    path = tmp_path / "boxes.png"
    pd.visualization.plot_bounding_box_gallery(
        IMAGES.repeat(3, axis=1).repeat(3, axis=2), "xyxy", y_true=boxes, y_pred=boxes,
        class_mapping={0: "a", 1: "b"}, legend=True, rows=1, cols=2, path=str(path))
    assert path.stat().st_size > 0
    with pytest.raises(ValueError, match="Only pass `legend` OR `legend_handles`"):
        pd.visualization.plot_bounding_box_gallery(IMAGES, "xyxy", y_true=boxes, legend=True,
                                                   legend_handles=["x"], path=str(path))
    with pytest.raises(ValueError, match="must be batched 4D tensor"):
        pd.visualization.plot_bounding_box_gallery(IMAGES[0], "xyxy", path=str(path))
