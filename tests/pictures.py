"""Checks that a picture file is a real image: a PNG header of plausible size that
matplotlib decodes into something other than a blank page."""
import os
import struct

import pytest


def png_size(path):
    """(width, height) from the PNG header; fails on anything that is not a PNG."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    assert head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def check_png(path, min_side=60):
    """(width, height) of a readable, non-blank PNG of plausible size."""
    width, height = png_size(path)
    assert min_side <= width <= 6000 and min_side <= height <= 6000, (width, height)
    assert os.path.getsize(path) > 2000
    image = pytest.importorskip("matplotlib.image").imread(str(path))
    assert image.shape[:2] == (height, width)
    assert image.std() > 0.05  # not a blank page
    return width, height
