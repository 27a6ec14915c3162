"""Keras's image utilities (`keras.utils.load_img`, `img_to_array`, `array_to_img`,
`save_img`; `keras.preprocessing.image.smart_resize`), and the resizing of
`image_dataset_from_directory`.

Images are read and written with Pillow, an optional extra (`pip install paddle[image]`):
`import paddle` never needs it, and these functions raise an ImportError saying so when it
is missing. Untrusted files: Pillow's decompression-bomb guard is kept on and its warning
is an error here (an image of more than `PIL.Image.MAX_IMAGE_PIXELS` pixels is refused),
and a file Pillow cannot decode raises a ValueError naming it, after the whole image was
decoded (a truncated file fails here, not later).

`read_image` is the directory readers' decoder: a PNG file of 8-bit grey, RGB or RGBA goes
straight to Pillow's own PNG decoder (its "zip" decoder, the one `Image.open` hands the
pixel data to) after a short walk over the file's chunks, without `Image.open`'s Python
layers (2.5 times faster on 32x32 files, docs/performance.md); any other file, or a PNG file
that is not that simple, goes through `Image.open` as in `load_img`, with its errors.
`read_png_batch` decodes the same simple PNG files a batch at a time, in C++ (csrc/png.cpp:
the chunk walk, the row unfilters and the conversion into a float32 batch; inflating stays
Python's zlib), and leaves every other file, and every fault, to `read_image`.

`resize` is TensorFlow's `tf.image.resize` (half-pixel centers, no antialiasing) for
"bilinear" and "nearest", in NumPy, so the directory readers give Keras's pixels.

Example:
    >>> import os, tempfile, numpy as np, paddle as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "dot.png")
    >>> pd.utils.save_img(path, np.full((2, 3, 3), 255, np.uint8), scale=False)
    >>> pd.utils.img_to_array(pd.utils.load_img(path)).shape
    (2, 3, 3)
"""
import io
import os
import pathlib
import struct
import warnings
import zlib

import numpy as np

from paddle import _C

try:  # Pillow is an optional extra: the functions that need it say so when it is missing
    from PIL import Image as pil_image
    from PIL import ImageFile as pil_image_file
except ImportError:  # pragma: no cover - exercised where Pillow is not installed
    pil_image = pil_image_file = None

RESAMPLE = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def _pil(what):
    if pil_image is None:
        raise ImportError(f"{what} reads and writes images with Pillow, which is not "
                          "installed: pip install pillow (or paddle[image])")
    return pil_image


def _data_format(data_format, what):
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{what}: expected data_format 'channels_last' or "
                         f"'channels_first', received {data_format!r}")
    return data_format


def open_image(path, what="load_img"):
    """A decoded Pillow image from a path or a BytesIO, with the decompression-bomb guard
    as an error; ValueError naming the file when it is not a readable image."""
    _pil(what)
    if isinstance(path, io.BytesIO):
        return _open(path, "<BytesIO>", what)
    if isinstance(path, (str, bytes, pathlib.Path, os.PathLike)):
        name = os.fsdecode(path)
        with open(name, "rb") as f:
            return _open(io.BytesIO(f.read()), name, what)
    raise TypeError(f"{what}: expected a path or an io.BytesIO, received "
                    f"{type(path).__name__}")


def _open(source, name, what):
    """`Image.open(source)` decoded at once, its errors as ValueErrors naming `name`."""
    image = pil_image
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", image.DecompressionBombWarning)
            img = image.open(source)
            img.load()  # decode now: a truncated file fails here, naming it
    except (image.DecompressionBombWarning, image.DecompressionBombError) as e:
        raise ValueError(f"{what}: {name} is refused by Pillow's decompression-bomb guard "
                         f"({e})") from None
    except (OSError, SyntaxError, ValueError) as e:  # UnidentifiedImageError is an OSError
        raise ValueError(f"{what}: {name} is not a readable image file ({e})") from None
    return img


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# (bit depth, color type) of the PNG files read_image decodes itself -> Pillow's mode
_PNG_MODES = {(8, 0): "L", (8, 2): "RGB", (8, 4): "LA", (8, 6): "RGBA"}
# Chunks that change no pixel of the image Image.open gives (Pillow keeps them in `info`).
# Any other (PLTE, tRNS, APNG's acTL/fcTL/fdAT, unknown ones) sends the file to Image.open.
_PNG_INERT = frozenset((b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT", b"pHYs", b"tEXt",
                        b"zTXt", b"iTXt", b"tIME", b"bKGD", b"eXIf", b"hIST", b"sPLT"))
_CHUNK = struct.Struct(">I4s")
_IHDR = struct.Struct(">IIBBBBB")


def _simple_png(data):
    """(mode, (width, height), compressed pixels) of a PNG file that Pillow's PNG decoder
    reads alone: 8-bit grey, grey+alpha, RGB or RGBA, not interlaced, within Pillow's
    decompression-bomb limit, only inert chunks besides the pixels, every checksum right,
    ending with IEND. None for anything else (Image.open then reads it, or names its
    fault)."""
    if not data.startswith(PNG_SIGNATURE):
        return None
    view, pos, end = memoryview(data), 8, len(data)
    header, parts, ended = None, [], False
    while pos + 12 <= end:
        length, kind = _CHUNK.unpack_from(data, pos)
        stop = pos + 8 + length
        if stop + 4 > end or zlib.crc32(view[pos + 4:stop]) != int.from_bytes(
                view[stop:stop + 4], "big"):
            return None
        if header is None:
            if kind != b"IHDR" or length != 13:
                return None
            width, height, depth, color, compression, filtering, interlace = \
                _IHDR.unpack_from(data, pos + 8)
            mode = _PNG_MODES.get((depth, color))
            limit = pil_image.MAX_IMAGE_PIXELS
            if (mode is None or compression or filtering or interlace or not width or
                    not height or limit is not None and width * height > limit):
                return None
            header = mode, (width, height)
        elif kind == b"IDAT":
            if ended:
                return None  # pixel data in two runs: Image.open stops at the first
            parts.append(view[pos + 8:stop])
        elif kind == b"IEND":
            return header + (b"".join(parts),) if parts else None
        elif kind in _PNG_INERT:
            ended = bool(parts)
        else:
            return None
        pos = stop + 4
    return None  # no IEND: a truncated file


def read_image(path, what="read_image", reuse=None):
    """A decoded Pillow image from an image file: simple PNG files (8-bit grey, RGB or
    RGBA, not interlaced, no transparency chunk) by Pillow's PNG decoder directly, any
    other file by `Image.open` (as `load_img`). Pillow's decompression-bomb guard holds
    either way.

    Args:
        path: a path.
        what: the caller's name, for errors.
        reuse: an image that read_image returned before: a simple PNG file of its size
            and mode is decoded into it (to save allocating one per file; its pixels are
            replaced).

    Returns:
        A `PIL.Image.Image` (`reuse` itself when it was decoded into).

    Raises:
        ValueError: naming the file when it is not a readable image, or is beyond
            Pillow's decompression-bomb limit.

    Example:
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> from paddle.utils.image_utils import read_image
        >>> path = os.path.join(tempfile.mkdtemp(), "a.png")
        >>> pd.utils.save_img(path, np.full((2, 3, 3), 7, np.uint8), scale=False)
        >>> img = read_image(path)
        >>> img.mode, img.size, img.getpixel((0, 0))
        ('RGB', (3, 2), (7, 7, 7))
    """
    image = _pil(what)
    name = os.fsdecode(path)
    with open(name, "rb") as f:
        data = f.read()
    png = None if pil_image_file.LOAD_TRUNCATED_IMAGES else _simple_png(data)
    if png is None:
        return _open(io.BytesIO(data), name, what)
    mode, size, pixels = png
    reusable = type(reuse) is image.Image and reuse.mode == mode and reuse.size == size
    img = reuse if reusable else image.new(mode, size)  # not an opened file's image
    try:
        img.frombytes(pixels, "zip", mode)
    except (OSError, ValueError) as e:  # a broken or short zlib stream
        raise ValueError(f"{what}: {name} is not a readable image file ({e})") from None
    return img


# png_scan leaves larger files to Pillow's path (which reads any size, as before).
MAX_BATCH_FILE_BYTES = 1 << 30
_BATCH_CHANNELS = {"L": 1, "RGB": 3, "RGBA": 4}


def read_png_batch(paths, batch, what="read_png_batch"):
    """Decode the simple PNG files of `paths` (those `read_image` hands to Pillow's PNG
    decoder) that already have the batch's height and width into `batch`, converted to its
    channels as Pillow's `convert` does, in two native calls for the batch (csrc/png.cpp)
    and one zlib call a file. The files it leaves are for `read_image`: any other format,
    size or PNG variant, and any fault (an unreadable or truncated file, a wrong checksum,
    a broken zlib stream), which `read_image` then decodes or names in its error.

    Checks, as `read_image`'s: every chunk's CRC, the header (8-bit grey, grey+alpha, RGB
    or RGBA, not interlaced, at most `PIL.Image.MAX_IMAGE_PIXELS` pixels), only chunks
    that change no pixel, and pixel data inflated to exactly the header's size (inflated at
    most one byte past it, so a decompression bomb stops there).

    Args:
        paths: the files (str or path-like).
        batch: a writable float32 array (len(paths), height, width, channels), channels 1
            ("L"), 3 ("RGB") or 4 ("RGBA").
        what: the caller's name, for errors.

    Returns:
        The indices of the files left for `read_image` (their rows of `batch` are
        unspecified).

    Example:
        >>> import os, tempfile, numpy as np, paddle as pd
        >>> from paddle.utils.image_utils import read_png_batch
        >>> path = os.path.join(tempfile.mkdtemp(), "a.png")
        >>> pd.utils.save_img(path, np.full((2, 3, 3), 7, np.uint8), scale=False)
        >>> batch = np.empty((2, 2, 3, 3), np.float32)
        >>> read_png_batch([path, path + ".missing"], batch), batch[0, 0, 0].tolist()
        ([1], [7.0, 7.0, 7.0])
    """
    if not (isinstance(batch, np.ndarray) and batch.dtype == np.float32 and batch.ndim == 4
            and batch.shape[0] == len(paths) and batch.shape[3] in (1, 3, 4)):
        raise ValueError(f"{what}: expected a float32 batch ({len(paths)}, height, width, "
                         f"1, 3 or 4), received {getattr(batch, 'dtype', type(batch))} "
                         f"{getattr(batch, 'shape', '')}")
    _pil(what)
    if pil_image_file.LOAD_TRUNCATED_IMAGES:  # the user asked for Pillow's leniency
        return list(range(len(paths)))
    limit = pil_image.MAX_IMAGE_PIXELS
    names = [os.fsencode(p) for p in paths]  # a name holding a NUL: b"", which fails to open
    pixels, table = _C.png_scan(b"".join(n + b"\0" if b"\0" not in n else b"\0"
                                         for n in names),
                                -1 if limit is None else int(limit), MAX_BATCH_FILE_BYTES)
    height, width = batch.shape[1:3]
    view, raws, starts, left, total = memoryview(pixels), [], [], [], 0
    for k, (offset, length, w, h, channels) in enumerate(table.tolist()):
        raw = None
        if channels and w == width and h == height:
            size = h * (1 + w * channels)
            inflate = zlib.decompressobj()
            try:
                raw = inflate.decompress(view[offset:offset + length], size + 1)
            except zlib.error:
                pass
            if raw is not None and (len(raw) != size or not inflate.eof):
                raw = None
        if raw is None:
            starts.append(-1)
            left.append(k)
        else:
            starts.append(total)
            raws.append(raw)
            total += len(raw)
    failed = _C.png_unfilter(b"".join(raws), np.array(starts, np.int64), table, batch)
    return sorted(left + failed)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest",
             keep_aspect_ratio=False):
    """Load an image file as a Pillow image (Keras's `keras.utils.load_img`).

    Args:
        path: a path or an `io.BytesIO`.
        color_mode: "rgb" (default), "rgba" or "grayscale".
        target_size: None (the file's size) or (height, width) to resize to.
        interpolation: Pillow's resampling: "nearest" (default), "bilinear", "bicubic",
            "hamming", "box" or "lanczos".
        keep_aspect_ratio: crop the center to the target's aspect ratio before resizing.

    Returns:
        A `PIL.Image.Image`.

    Raises:
        ValueError: a file that is not a readable image (naming it), an image beyond
            Pillow's decompression-bomb limit, a bad color_mode or interpolation.
        ImportError: Pillow is not installed.

    Example:
        >>> import io, numpy as np, paddle as pd
        >>> buffer = io.BytesIO()
        >>> pd.utils.save_img(buffer, np.zeros((4, 6, 3)), file_format="png")
        >>> pd.utils.load_img(buffer, target_size=(2, 3)).size
        (3, 2)
    """
    if color_mode not in ("grayscale", "rgb", "rgba"):
        raise ValueError(f"load_img: expected color_mode 'grayscale', 'rgb' or 'rgba', "
                         f"received {color_mode!r}")
    if isinstance(path, io.BytesIO):
        path.seek(0)
    img = open_image(path)
    if color_mode == "grayscale":
        if img.mode not in ("L", "I;16", "I"):
            img = img.convert("L")
    elif img.mode != color_mode.upper():
        img = img.convert(color_mode.upper())
    if target_size is None:
        return img
    if not isinstance(target_size, (list, tuple)) or len(target_size) != 2 or not all(
            isinstance(n, (int, np.integer)) and n > 0 for n in target_size):
        raise ValueError(f"load_img: expected target_size as (height, width), received "
                         f"{target_size!r}")
    if interpolation not in RESAMPLE:
        raise ValueError(f"load_img: expected interpolation in {RESAMPLE}, received "
                         f"{interpolation!r}")
    size = (int(target_size[1]), int(target_size[0]))
    if img.size == size:
        return img
    resample = getattr(pil_image.Resampling, interpolation.upper())
    if not keep_aspect_ratio:
        return img.resize(size, resample)
    width, height = img.size
    crop_height = min(height, (width * size[1]) // size[0])
    crop_width = min(width, (height * size[0]) // size[1])
    top, left = (height - crop_height) // 2, (width - crop_width) // 2
    return img.resize(size, resample, box=[left, top, left + crop_width, top + crop_height])


def img_to_array(img, data_format=None, dtype=None):
    """A Pillow image as a NumPy array (height, width, channels), float32 by default
    (Keras's `keras.utils.img_to_array`).

    Args:
        img: a Pillow image (or anything NumPy converts).
        data_format: "channels_last" (default) or "channels_first".
        dtype: the array's dtype (default float32).

    Returns:
        A rank-3 NumPy array.

    Example:
        >>> import numpy as np, paddle as pd
        >>> img = pd.utils.array_to_img(np.zeros((2, 2, 1)), scale=False)
        >>> pd.utils.img_to_array(img).shape
        (2, 2, 1)
    """
    data_format = _data_format(data_format, "img_to_array")
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 3:
        return x.transpose(2, 0, 1) if data_format == "channels_first" else x
    if x.ndim == 2:
        return x[None] if data_format == "channels_first" else x[..., None]
    raise ValueError(f"img_to_array: expected an image of rank 2 or 3, received shape "
                     f"{x.shape}")


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A NumPy array (height, width, channels) as a Pillow image (Keras's
    `keras.utils.array_to_img`): 1 channel "L" (or "I" past 255), 3 "RGB", 4 "RGBA".

    Args:
        x: a rank-3 array.
        data_format: "channels_last" (default) or "channels_first".
        scale: rescale the values to span [0, 255] first.
        dtype: the dtype computed in (default float32).

    Returns:
        A `PIL.Image.Image`.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.utils.array_to_img(np.random.random((5, 4, 3))).size
        (4, 5)
    """
    _pil("array_to_img")
    data_format = _data_format(data_format, "array_to_img")
    x = np.array(x, dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError(f"array_to_img: expected an image array of rank 3, received shape "
                         f"{x.shape}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    channels = x.shape[2]
    if channels in (3, 4):
        return pil_image.fromarray(x.astype("uint8"), "RGB" if channels == 3 else "RGBA")
    if channels == 1:
        if np.max(x) > 255:
            return pil_image.fromarray(x[:, :, 0].astype("int32"), "I")
        return pil_image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"array_to_img: expected 1, 3 or 4 channels, received {channels}")


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Save a NumPy array as an image file (Keras's `keras.utils.save_img`).

    Args:
        path: a path or a file object.
        x: a rank-3 array.
        data_format: "channels_last" (default) or "channels_first".
        file_format: the format; by default the path's extension ("jpg" is JPEG).
        scale: rescale the values to span [0, 255] first.
        **kwargs: passed to Pillow's `Image.save`.

    Returns:
        None.

    Example:
        >>> import io, numpy as np, paddle as pd
        >>> buffer = io.BytesIO()
        >>> pd.utils.save_img(buffer, np.zeros((2, 2, 3)), file_format="png")
        >>> buffer.getvalue()[:4]
        b'\\x89PNG'
    """
    if file_format is None and isinstance(path, (str, pathlib.Path)):
        file_format = pathlib.Path(path).suffix[1:].lower()
    if file_format and file_format.lower() == "jpg":
        file_format = "jpeg"
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and file_format == "jpeg":
        warnings.warn("save_img: JPEG does not support RGBA images, converting to RGB",
                      stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format or None, **kwargs)


def _weights(in_size, out_size, method):
    """(lower, upper, lerp) source indices and weights of TF's half-pixel resize."""
    scale = in_size / out_size
    if method == "nearest":
        index = np.minimum(np.floor((np.arange(out_size) + 0.5) * scale).astype(np.int64),
                           in_size - 1)
        return index, index, np.zeros(out_size, np.float32)
    src = (np.arange(out_size, dtype=np.float64) + 0.5) * scale - 0.5
    floor = np.floor(src)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(src), in_size - 1).astype(np.int64)
    return lower, upper, (src - floor).astype(np.float32)


def resize(image, size, interpolation="bilinear"):
    """An image (height, width, channels) resized to `size` (height, width) as
    `tf.image.resize` does ("bilinear" or "nearest"), as float32.

    Args:
        image: a rank-3 array.
        size: (height, width).
        interpolation: "bilinear" or "nearest".

    Returns:
        A float32 array (height, width, channels).

    Example:
        >>> import numpy as np
        >>> from paddle.utils.image_utils import resize
        >>> resize(np.array([[[0.0], [2.0]]]), (1, 4))[0, :, 0].tolist()
        [0.0, 0.5, 1.5, 2.0]
    """
    if interpolation not in ("bilinear", "nearest"):
        raise ValueError(f"resize: paddle resizes with 'bilinear' or 'nearest' (TF's), "
                         f"received {interpolation!r}")
    x = np.asarray(image, np.float32)
    if x.shape[:2] == tuple(size):  # already that size: both methods give the image itself
        return x
    (top, bottom, dy), (left, right, dx) = (
        _weights(x.shape[0], size[0], interpolation),
        _weights(x.shape[1], size[1], interpolation))
    if interpolation == "nearest":
        return x[top][:, left]
    rows = x[top] + (x[bottom] - x[top]) * dy[:, None, None]
    return rows[:, left] + (rows[:, right] - rows[:, left]) * dx[None, :, None]


def smart_resize(x, size, interpolation="bilinear", data_format="channels_last"):
    """Resize an image (or a batch) to `size` without distorting it: the largest central
    crop of the target's aspect ratio, then `resize` (Keras's
    `keras.preprocessing.image.smart_resize`).

    Args:
        x: an array (height, width, channels) or (batch, height, width, channels).
        size: (height, width).
        interpolation: "bilinear" or "nearest".
        data_format: "channels_last" or "channels_first".

    Returns:
        A float32 array of the new size.

    Example:
        >>> import numpy as np, paddle as pd
        >>> pd.preprocessing.image.smart_resize(np.ones((4, 8, 3)), (2, 2)).shape
        (2, 2, 3)
    """
    data_format = _data_format(data_format, "smart_resize")
    x = np.asarray(x)
    if x.ndim not in (3, 4):
        raise ValueError(f"smart_resize: expected an image of rank 3 or a batch of rank 4, "
                         f"received shape {x.shape}")
    if data_format == "channels_first":
        x = np.moveaxis(x, -3, -1)
    height, width = x.shape[-3], x.shape[-2]
    target_height, target_width = size
    crop_height = min(height, int(float(width * target_height) / target_width))
    crop_width = min(width, int(float(height * target_width) / target_height))
    top = int(float(height - crop_height) / 2)
    left = int(float(width - crop_width) / 2)
    x = x[..., top:top + crop_height, left:left + crop_width, :]
    out = np.stack([resize(i, size, interpolation) for i in x]) if x.ndim == 4 else \
        resize(x, size, interpolation)
    return np.moveaxis(out, -1, -3) if data_format == "channels_first" else out
