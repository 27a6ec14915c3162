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
