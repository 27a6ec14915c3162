"""image_utils.read_image, the directory readers' decoder: simple PNG files go straight to
Pillow's PNG decoder, every other file through Image.open; either way the pixels are
Image.open's, Pillow's decompression-bomb guard holds and a bad file is named."""
import os
import struct
import zlib

import numpy as np
import pytest

Image = pytest.importorskip("PIL.Image")
PngImagePlugin = pytest.importorskip("PIL.PngImagePlugin")
ImageFile = pytest.importorskip("PIL.ImageFile")

import paddle as pd  # noqa: E402
from paddle.utils.image_utils import _simple_png, read_image, resize, smart_resize  # noqa: E402

RNG = np.random.default_rng(5)


def _noise(*shape):
    return RNG.integers(0, 256, shape, dtype=np.uint8)


def _save(path, img, **options):
    img.save(path, **options)
    return path


def _chunks(data):
    """[(kind, body)] of a PNG file."""
    pos, out = 8, []
    while pos < len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        out.append((kind, data[pos + 8:pos + 8 + length]))
        pos += 12 + length
    return out


def _png(chunks):
    return b"\x89PNG\r\n\x1a\n" + b"".join(
        struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        for kind, body in chunks)


def _same_as_pillow(path):
    with Image.open(path) as expected:
        expected.load()
        img = read_image(path)
        assert (img.mode, img.size) == (expected.mode, expected.size)
        assert img.tobytes() == expected.tobytes()


@pytest.mark.parametrize("mode, shape", [("L", (5, 7)), ("LA", (5, 7, 2)), ("RGB", (6, 4, 3)),
                                         ("RGBA", (3, 9, 4))])
def test_simple_png_files_decode_as_image_open(tmp_path, mode, shape):
    path = _save(tmp_path / "a.png", Image.fromarray(_noise(*shape), mode))
    assert _simple_png(path.read_bytes())[:2] == (mode, (shape[1], shape[0]))
    _same_as_pillow(path)
    # text chunks (one compressed) and smooth rows (every PNG filter) stay on the fast path
    info = PngImagePlugin.PngInfo()
    info.add_text("note", "kept")
    info.add_text("long", "x" * 200, zip=True)
    ramp = np.add.outer(np.arange(40), np.arange(30)).astype(np.uint8)
    path = _save(tmp_path / "b.png", Image.fromarray(ramp), pnginfo=info, optimize=True)
    assert _simple_png(path.read_bytes()) is not None
    _same_as_pillow(path)


def test_pixel_data_in_several_chunks(tmp_path):
    data = _save(tmp_path / "a.png", Image.fromarray(_noise(20, 30, 3))).read_bytes()
    chunks = _chunks(data)
    pixels = b"".join(body for kind, body in chunks if kind == b"IDAT")
    split = [chunks[0]] + [(b"IDAT", pixels[i:i + 100]) for i in range(0, len(pixels), 100)] \
        + [(b"tIME", bytes(7)), chunks[-1]]
    (tmp_path / "split.png").write_bytes(_png(split))
    assert _simple_png(_png(split)) is not None
    _same_as_pillow(tmp_path / "split.png")
    # pixel data in two runs, with another chunk between: Image.open decides
    broken_run = split[:2] + [(b"tEXt", b"a\x00b")] + split[2:]
    assert _simple_png(_png(broken_run)) is None


def test_other_files_go_through_image_open(tmp_path):
    files = {
        "palette.png": Image.fromarray(_noise(5, 7, 3)).convert("P"),
        "sixteen.png": Image.fromarray(RNG.integers(0, 65535, (5, 7), dtype=np.uint16)),
        "one_bit.png": Image.fromarray(_noise(5, 8) > 127),
    }
    for name, img in files.items():
        path = _save(tmp_path / name, img)
        assert _simple_png(path.read_bytes()) is None, name
        _same_as_pillow(path)
    path = _save(tmp_path / "trns.png", Image.fromarray(_noise(5, 7, 3)), transparency=(1, 2, 3))
    assert _simple_png(path.read_bytes()) is None
    assert read_image(path).info["transparency"] == (1, 2, 3)
    path = _save(tmp_path / "a.jpg", Image.fromarray(_noise(8, 8, 3)))
    _same_as_pillow(path)
    # an interlaced file (Pillow writes none: the header's flag set by hand)
    chunks = _chunks(_save(tmp_path / "b.png", Image.fromarray(_noise(4, 4))).read_bytes())
    chunks[0] = (b"IHDR", chunks[0][1][:12] + b"\x01")
    assert _simple_png(_png(chunks)) is None


def test_bad_png_files_are_named(tmp_path):
    data = _save(tmp_path / "a.png", Image.fromarray(_noise(30, 30, 3))).read_bytes()
    chunks = _chunks(data)
    # zlib data broken, checksums right: the fast path's own error
    damaged = bytearray(chunks[1][1])
    damaged[len(damaged) // 2:] = bytes(len(damaged) - len(damaged) // 2)
    (tmp_path / "zlib.png").write_bytes(_png([chunks[0], (b"IDAT", bytes(damaged)), chunks[-1]]))
    assert _simple_png((tmp_path / "zlib.png").read_bytes()) is not None
    with pytest.raises(ValueError, match="zlib.png is not a readable image file"):
        read_image(tmp_path / "zlib.png")
    # too little pixel data
    (tmp_path / "short.png").write_bytes(
        _png([chunks[0], (b"IDAT", zlib.compress(b"\x00" * 30)), chunks[-1]]))
    with pytest.raises(ValueError, match="short.png is not a readable image file"):
        read_image(tmp_path / "short.png")
    # a wrong checksum or a cut file: Image.open's verdict, naming the file
    wrong = bytearray(data)
    wrong[29] ^= 1  # inside IHDR's checksum
    (tmp_path / "crc.png").write_bytes(bytes(wrong))
    assert _simple_png(bytes(wrong)) is None
    with pytest.raises(ValueError, match="crc.png is not a readable image file"):
        read_image(tmp_path / "crc.png")
    (tmp_path / "cut.png").write_bytes(data[:len(data) // 2])
    with pytest.raises(ValueError, match="cut.png is not a readable image file"):
        read_image(tmp_path / "cut.png")
    (tmp_path / "text.png").write_text("not an image")
    with pytest.raises(ValueError, match="text.png is not a readable image file"):
        read_image(tmp_path / "text.png")


def test_decompression_bomb_guard_and_truncated_setting(tmp_path, monkeypatch):
    path = _save(tmp_path / "a.png", Image.fromarray(_noise(4, 5, 3)))
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 19)
    assert _simple_png(path.read_bytes()) is None  # 20 pixels: Image.open's guard decides
    with pytest.raises(ValueError, match="a.png is refused by Pillow's decompression-bomb"):
        read_image(path)
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 20)
    assert read_image(path).size == (5, 4)
    # a user who lets Pillow load truncated files gets Image.open's reading of them
    cut = tmp_path / "cut.png"
    cut.write_bytes(path.read_bytes()[:-30])
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    assert read_image(cut).size == (5, 4)


def test_reuse_decodes_each_file_into_the_same_image(tmp_path):
    arrays = [_noise(6, 5, 3) for _ in range(3)]
    paths = [_save(tmp_path / f"{i}.png", Image.fromarray(a)) for i, a in enumerate(arrays)]
    first = read_image(paths[0])
    assert np.array_equal(np.asarray(first), arrays[0])
    second = read_image(paths[1], reuse=first)
    assert second is first and np.array_equal(np.asarray(second), arrays[1])
    other = _save(tmp_path / "gray.png", Image.fromarray(_noise(6, 5)))
    assert read_image(other, reuse=first) is not first  # another mode: a new image
    opened = read_image(_save(tmp_path / "x.jpg", Image.fromarray(arrays[2])))
    assert read_image(paths[2], reuse=opened) is not opened  # never into an opened file


@pytest.mark.parametrize("color_mode, data_format, crop",
                         [("rgb", "channels_last", False), ("grayscale", "channels_first", False),
                          ("rgba", "channels_last", True)])
def test_directory_batches_equal_image_open(tmp_path, color_mode, data_format, crop):
    """Each image as the reader gave it before (Image.open, convert, float32, resize)."""
    os.makedirs(tmp_path / "a")
    sources = [Image.fromarray(_noise(6, 6, 3)), Image.fromarray(_noise(6, 6, 4), "RGBA"),
               Image.fromarray(_noise(6, 6)), Image.fromarray(_noise(5, 9, 3)).convert("P"),
               Image.fromarray(_noise(6, 6, 3))]
    for i, img in enumerate(sources):
        img.save(tmp_path / "a" / f"{i}.{'jpg' if i == 4 else 'png'}")
    data = pd.utils.image_dataset_from_directory(
        tmp_path, image_size=(6, 6), color_mode=color_mode, data_format=data_format,
        crop_to_aspect_ratio=crop, shuffle=False, batch_size=8, verbose=False)
    mode = {"rgb": "RGB", "rgba": "RGBA", "grayscale": "L"}[color_mode]
    expected = []
    for path in data.file_paths:
        with Image.open(path) as img:
            array = np.asarray(img.convert(mode), np.float32).reshape(img.size[::-1] + (-1,))
        array = smart_resize(array, (6, 6)) if crop else resize(array, (6, 6))
        expected.append(array if data_format == "channels_last" else array.transpose(2, 0, 1))
    x = data[0][0]
    assert x.dtype == np.float32 and x.flags.c_contiguous
    np.testing.assert_array_equal(x, np.stack(expected))
