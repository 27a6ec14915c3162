"""image_utils.read_image and read_png_batch, the directory readers' decoders: simple PNG
files go straight to Pillow's PNG decoder (read_image) or to paddle's batch decoder
(read_png_batch, csrc/png.cpp), every other file through Image.open; either way the pixels
are Image.open's, Pillow's decompression-bomb guard holds and a bad file is named."""
import os
import struct
import zlib

import numpy as np
import pytest

Image = pytest.importorskip("PIL.Image")
PngImagePlugin = pytest.importorskip("PIL.PngImagePlugin")
ImageFile = pytest.importorskip("PIL.ImageFile")

import paddle as pd  # noqa: E402
from paddle import _C  # noqa: E402
from paddle.utils.image_utils import (  # noqa: E402
    _simple_png, read_image, read_png_batch, resize, smart_resize)

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


# ---- read_png_batch ------------------------------------------------------------------------

MODES = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4}
COLOR_TYPES = {"L": 0, "LA": 4, "RGB": 2, "RGBA": 6}


def _filtered(pixels, filters):
    """The PNG scanlines of uint8 pixels (height, width, channels), row y filtered with
    filters[y] (0 None, 1 Sub, 2 Up, 3 Average, 4 Paeth), as an encoder writes them."""
    height, width, bpp = pixels.shape
    rows = pixels.reshape(height, width * bpp).astype(np.int64)
    out = bytearray()
    for y, kind in enumerate(filters):
        cur = rows[y]
        up = rows[y - 1] if y else np.zeros_like(cur)
        left = np.concatenate([np.zeros(bpp, np.int64), cur[:-bpp]])
        up_left = np.concatenate([np.zeros(bpp, np.int64), up[:-bpp]])
        if kind == 4:
            p = left + up - up_left
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
            predict = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, up, up_left))
        else:
            predict = [0 * cur, left, up, (left + up) // 2][kind]
        out.append(kind)
        out += ((cur - predict) % 256).astype(np.uint8).tobytes()
    return bytes(out)


def _encoded(pixels, mode, filters, level=6):
    height, width = pixels.shape[:2]
    header = struct.pack(">IIBBBBB", width, height, 8, COLOR_TYPES[mode], 0, 0, 0)
    data = zlib.compress(_filtered(pixels, filters), level)
    return _png([(b"IHDR", header), (b"IDAT", data), (b"IEND", b"")])


def _pillow(path, mode):
    with Image.open(path) as img:
        return np.asarray(img.convert(mode), np.float32).reshape(img.size[::-1] + (-1,))


@pytest.mark.parametrize("source", list(MODES))
def test_png_batch_pixels_equal_pillow_for_every_mode_and_filter(tmp_path, source):
    """Every PNG filter on smooth and noisy rows, each source mode converted to each batch
    mode as Pillow's convert does, all on the native path."""
    channels = MODES[source]
    smooth = np.add.outer(np.arange(7), 3 * np.arange(9)).astype(np.uint8)[..., None]
    images = [_noise(7, 9, channels), np.repeat(smooth, channels, axis=2)]
    paths = []
    for i, pixels in enumerate(images):
        for start in range(5):  # each filter at each row position, first row included
            filters = [(start + y) % 5 for y in range(7)]
            path = tmp_path / f"{i}_{start}.png"
            path.write_bytes(_encoded(pixels, source, filters, level=start % 2 * 9))
            paths.append(path)
    paths.append(_save(tmp_path / "pillow.png",
                       Image.fromarray(_noise(7, 9, channels).squeeze(), source), optimize=True))
    for target, out_channels in (("L", 1), ("RGB", 3), ("RGBA", 4)):
        batch = np.full((len(paths), 7, 9, out_channels), -1, np.float32)
        assert read_png_batch(paths, batch) == []
        expected = np.stack([_pillow(p, target) for p in paths])
        np.testing.assert_array_equal(batch, expected, err_msg=f"{source} -> {target}")


def test_png_batch_leaves_other_files_for_pillow(tmp_path, monkeypatch):
    good = _save(tmp_path / "good.png", Image.fromarray(_noise(4, 5, 3)))
    chunks = _chunks(good.read_bytes())
    files = [
        good,
        _save(tmp_path / "other_size.png", Image.fromarray(_noise(5, 4, 3))),
        _save(tmp_path / "palette.png", Image.fromarray(_noise(4, 5, 3)).convert("P")),
        _save(tmp_path / "sixteen.png",
              Image.fromarray(RNG.integers(0, 65535, (4, 5), dtype=np.uint16))),
        _save(tmp_path / "a.jpg", Image.fromarray(_noise(4, 5, 3))),
        _save(tmp_path / "trns.png", Image.fromarray(_noise(4, 5, 3)), transparency=(1, 2, 3)),
        tmp_path / "missing.png",
        tmp_path,  # a folder
        str(good) + "\x00.png",  # a NUL in the name: Python's open refuses it
    ]
    interlaced = tmp_path / "interlaced.png"
    interlaced.write_bytes(_png([(b"IHDR", chunks[0][1][:12] + b"\x01")] + chunks[1:]))
    files.append(interlaced)
    batch = np.empty((len(files), 4, 5, 3), np.float32)
    assert read_png_batch(files, batch) == list(range(1, len(files)))
    np.testing.assert_array_equal(batch[0], _pillow(good, "RGB"))
    # Pillow's decompression-bomb limit, and a user's LOAD_TRUNCATED_IMAGES: Pillow decides
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 19)
    assert read_png_batch([good], batch[:1]) == [0]
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 20)
    assert read_png_batch([good], batch[:1]) == []
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", None)
    assert read_png_batch([good], batch[:1]) == []
    monkeypatch.setattr(ImageFile, "LOAD_TRUNCATED_IMAGES", True)
    assert read_png_batch([good], batch[:1]) == [0]


def test_png_batch_leaves_bad_files_and_the_reader_names_them(tmp_path):
    pixels = _noise(6, 6, 3)
    header = struct.pack(">IIBBBBB", 6, 6, 8, 2, 0, 0, 0)
    raw = _filtered(pixels, [0] * 6)
    stream = zlib.compressobj()
    unended = stream.compress(raw) + stream.flush(zlib.Z_SYNC_FLUSH)  # no end of stream
    bad = {
        "zlib.png": [(b"IHDR", header), (b"IDAT", zlib.compress(raw)[:-9] + bytes(9)),
                     (b"IEND", b"")],
        "short.png": [(b"IHDR", header), (b"IDAT", zlib.compress(raw[:-1])), (b"IEND", b"")],
        "long.png": [(b"IHDR", header), (b"IDAT", zlib.compress(raw + b"\x00")),
                     (b"IEND", b"")],
        "unended.png": [(b"IHDR", header), (b"IDAT", unended), (b"IEND", b"")],
        "filter.png": [(b"IHDR", header), (b"IDAT", zlib.compress(b"\x05" + raw[1:])),
                       (b"IEND", b"")],
        "no_iend.png": [(b"IHDR", header), (b"IDAT", zlib.compress(raw))],
        "no_idat.png": [(b"IHDR", header), (b"IEND", b"")],
    }
    good = _encoded(pixels, "RGB", [4] * 6)
    files = [tmp_path / "good.png"]
    files[0].write_bytes(good)
    for name, chunks in bad.items():
        (tmp_path / name).write_bytes(_png(chunks))
        files.append(tmp_path / name)
    crc = bytearray(good)
    crc[29] ^= 1  # IHDR's checksum
    (tmp_path / "crc.png").write_bytes(bytes(crc))
    (tmp_path / "cut.png").write_bytes(good[:len(good) // 2])
    files += [tmp_path / "crc.png", tmp_path / "cut.png"]
    batch = np.empty((len(files), 6, 6, 3), np.float32)
    assert read_png_batch(files, batch) == list(range(1, len(files)))
    np.testing.assert_array_equal(batch[0], pixels)
    for path in files[1:]:
        os.makedirs(tmp_path / path.stem / "a")
        os.replace(path, tmp_path / path.stem / "a" / path.name)
        data = pd.utils.image_dataset_from_directory(tmp_path / path.stem, image_size=(6, 6),
                                                     verbose=False)
        # Pillow stops after the last row: it reads these; the others it refuses, named
        if path.name in ("unended.png", "long.png", "no_iend.png"):
            np.testing.assert_array_equal(data[0][0][0], pixels)
            continue
        with pytest.raises(ValueError, match=f"{path.name} is not a readable image file"):
            data[0]


def test_png_batch_fuzzed_files_decode_as_pillow_or_are_left(tmp_path):
    """Random byte flips (in the file; in the file with the chunk checksums made right
    again; in the filtered scanlines before compression, filter bytes included) and cuts of
    valid files: never a crash; a file the batch decoder takes has Pillow's pixels, and
    every other file reaches read_image, which decodes it or names it."""
    rng = np.random.default_rng(11)
    sources = [(_noise(5, 6, 3), "RGB", [4, 1, 2, 3, 0]), (_noise(5, 6, 1), "L", [1] * 5),
               (_noise(5, 6, 4), "RGBA", [3, 4, 4, 2, 1]), (_noise(5, 6, 2), "LA", [2] * 5)]

    def flip(data):
        data = bytearray(data)
        for _ in range(rng.integers(1, 4)):
            data[rng.integers(0, len(data))] = rng.integers(0, 256)
        return bytes(data)

    paths = []
    for n in range(320):
        pixels, mode, filters = sources[n % 4]
        kind = n // 4 % 4
        if kind == 0:
            data = flip(_encoded(pixels, mode, filters))
        elif kind == 1:  # checksums right again: the corruption reaches the decoder
            data = flip(_encoded(pixels, mode, filters))
            try:
                data = _png(_chunks(data))
            except struct.error:
                pass
        elif kind == 2:
            header = struct.pack(">IIBBBBB", 6, 5, 8, COLOR_TYPES[mode], 0, 0, 0)
            raw = flip(_filtered(pixels, filters))
            data = _png([(b"IHDR", header), (b"IDAT", zlib.compress(raw)), (b"IEND", b"")])
        else:
            data = _encoded(pixels, mode, filters)
            data = data[:rng.integers(0, len(data))]
        paths.append(tmp_path / f"{n}.png")
        paths[-1].write_bytes(data)
    batch = np.empty((len(paths), 5, 6, 3), np.float32)
    left = read_png_batch(paths, batch)
    taken = [k for k in range(len(paths)) if k not in left]
    assert len(taken) > 40 and len(left) > 100  # both paths were exercised
    for k in taken:
        np.testing.assert_array_equal(batch[k], _pillow(paths[k], "RGB"), err_msg=str(k))
    errors = 0
    for k in left:
        try:
            read_image(paths[k], "reader")
        except ValueError as e:
            assert str(e).startswith(f"reader: {paths[k]} ")
            errors += 1
    assert errors > 50


def test_png_batch_arguments_are_checked():
    with pytest.raises(ValueError, match="expected a float32 batch \\(1, height, width"):
        read_png_batch(["a.png"], np.empty((1, 2, 2, 3), np.float64))
    with pytest.raises(ValueError, match="expected a float32 batch"):
        read_png_batch(["a.png"], np.empty((1, 2, 2, 2), np.float32))
    with pytest.raises(ValueError, match="each ended by a NUL byte"):
        _C.png_scan(b"a.png", -1, 100)
    assert _C.png_scan(b"", -1, 100)[1].shape == (0, 5)
    table, starts = np.zeros((1, 5), np.int64), np.array([-1], np.int64)
    out = np.empty((1, 2, 2, 3), np.float32)
    with pytest.raises(ValueError, match="expected out of shape"):
        _C.png_unfilter(b"", starts, table, np.empty((1, 2, 2, 2), np.float32))
    with pytest.raises(ValueError, match="expected 2 elements"):
        _C.png_unfilter(b"", starts, table, np.empty((2, 2, 2, 3), np.float32))
    table[0] = [0, 0, 2, 2, 3]
    starts[0] = 0
    with pytest.raises(ValueError, match="file 0: expected a 2x2 image .* inside data \\(13 "):
        _C.png_unfilter(b"\x00" * 13, starts, table, out)
    for start, row in ((-2, [0, 0, 2, 2, 3]), (2**62, [0, 0, 2, 2, 3]), (0, [0, 0, 2, 2, 5]),
                       (0, [0, 0, 3, 2, 3])):
        table[0], starts[0] = row, start
        with pytest.raises(ValueError, match="file 0: expected a 2x2 image"):
            _C.png_unfilter(b"\x00" * 14, starts, table, out)
    with pytest.raises(ValueError, match="is read-only"):
        out.flags.writeable = False
        _C.png_unfilter(b"", np.array([-1], np.int64), table, out)
    table[0], starts[0] = [0, 0, 2, 2, 3], 0
    out = np.empty((1, 2, 2, 3), np.float32)
    assert _C.png_unfilter(b"\x00" + bytes(range(6)) + b"\x00" + bytes(6), starts, table,
                           out) == []
    assert out[0, 0].ravel().tolist() == [0, 1, 2, 3, 4, 5] and not out[0, 1].any()
    assert _C.png_unfilter(b"\x05" * 14, starts, table, out) == [0]  # PNG has filters 0-4
