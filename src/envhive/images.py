"""Images that renderers draw: PNG files read with the standard library (zlib) and numpy, and
text as pygame's font draws it.

Family modules read them through :func:`read_render_image` (envhive.catalog installs it) once per
process, at the first frame that needs them or, for a task whose observations draw them, when its
first pool is made:

* a path: a PNG file, 8-bit RGBA, not interlaced (Gymnasium's Pendulum arrow, its toy-text art);
* ``pygame-font:<size>:glyph:<text>``: pygame's default font (freesansbold.ttf) rendering ``text``
  anti-aliased, white on black (``font.render(text, True, white, black)``), as RGBA;
* ``pygame-font:<size>:layout:<lo>:<hi>``: where SDL_ttf puts each glyph of the strings "-000"
  and ``f"{v:04d}"`` for v in lo..hi (CarRacing's reward text), one row per string of int32 cells
  (the text's width, then each glyph's x), viewed as RGBA bytes.

The font sources need pygame (``pip install "envhive[box2d]"``, which installs pygame-ce).
"""

from __future__ import annotations

import importlib.metadata
import struct
import zlib
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from envhive.errors import MissingExtraError, RenderError

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_BYTES_PER_PIXEL = 4


def _paeth(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """The PNG Paeth predictor of left ``a``, up ``b`` and upper-left ``c`` (elementwise)."""
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _unfilter_line(kind: int, line: np.ndarray, prev: np.ndarray) -> np.ndarray:
    """One scanline with its PNG filter undone, given the previous (reconstructed) one."""
    if kind == 0:  # none
        return line
    if kind == 2:  # up
        return (line + prev) & 0xFF
    if kind not in (1, 3, 4):
        raise ValueError(f"bad PNG filter type {kind}")
    # sub, average, paeth: each pixel depends on the reconstructed pixel to its left
    cur = np.zeros_like(line)
    zero = np.zeros(_BYTES_PER_PIXEL, np.int32)
    for x in range(0, line.size, _BYTES_PER_PIXEL):
        left = cur[x - _BYTES_PER_PIXEL : x] if x else zero
        up = prev[x : x + _BYTES_PER_PIXEL]
        if kind == 1:
            pred = left
        elif kind == 3:
            pred = (left + up) >> 1
        else:
            pred = _paeth(left, up, prev[x - _BYTES_PER_PIXEL : x] if x else zero)
        cur[x : x + _BYTES_PER_PIXEL] = (line[x : x + _BYTES_PER_PIXEL] + pred) & 0xFF
    return cur


def read_png_rgba(path: str | Path) -> np.ndarray:
    """The image of an 8-bit RGBA, non-interlaced PNG as an (height, width, 4) uint8 array, rows
    top first. ``ValueError`` for any other kind of file."""
    path = Path(path)
    data = path.read_bytes()
    if not data.startswith(_SIGNATURE):
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = len(_SIGNATURE), bytearray(), None
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        pos += 12 + length  # length, type, body, CRC
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError(f"{path}: no IHDR chunk")
    width, height, depth, color_type, _, _, interlace = header
    if (depth, color_type, interlace) != (8, 6, 0):
        raise ValueError(f"{path}: only 8-bit RGBA, non-interlaced PNGs are supported")
    stride = width * _BYTES_PER_PIXEL
    raw = np.frombuffer(zlib.decompress(bytes(idat)), np.uint8)
    if raw.size != height * (stride + 1):
        raise ValueError(f"{path}: its pixel data does not match its {width} x {height} size")
    raw = raw.reshape(height, stride + 1)
    out = np.zeros((height, stride), np.int32)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        prev = out[y] = _unfilter_line(int(raw[y, 0]), raw[y, 1:].astype(np.int32), prev)
    return out.astype(np.uint8).reshape(height, width, _BYTES_PER_PIXEL)


FONT_SOURCE = "pygame-font:"
_LAYOUT_COLUMNS = 7  # the width, then up to six glyphs ("-10000")


def read_render_image(source: str | Path) -> np.ndarray:
    """The (height, width, 4) uint8 array of a render image: a PNG file, or a ``pygame-font:``
    source (see the module's doc)."""
    text = str(source)
    if text.startswith(FONT_SOURCE):
        return _font_image(text)
    path = Path(source)
    if not path.is_file():
        # No env's frame can be drawn (env_id -1): the art is missing, not one env's state.
        raise RenderError(f"cannot draw the frame: its image {path} does not exist{_shipped_by(path)}", -1, [])
    return read_png_rgba(path)


def _shipped_by(path: Path) -> str:
    """Which installed distribution should have shipped ``path`` (a renderer draws the art of one
    release: the toy-text frames are Gymnasium 1.4's, which Gymnasium 1.2 does not have)."""
    parts = path.parts
    if "site-packages" not in parts or parts.index("site-packages") + 1 >= len(parts):
        return ""
    package = parts[parts.index("site-packages") + 1]
    try:
        version = importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return ""
    return (
        f" (the installed {package} {version} does not ship it; envhive draws the images of the {package} "
        "release its docs name for this task: docs/envs.md)"
    )


@cache
def _font(size: int) -> Any:
    try:
        import pygame
    except ImportError as e:
        raise MissingExtraError(
            'CarRacing draws its reward with pygame\'s font: install pygame-ce (pip install "envhive[box2d]")'
        ) from e
    pygame.font.init()
    return pygame.font.Font(pygame.font.get_default_font(), size)


def _font_image(source: str) -> np.ndarray:
    _, size, kind, *args = source.split(":")
    font = _font(int(size))
    if kind == "glyph" and len(args) == 1:
        import pygame

        surface = font.render(args[0], True, (255, 255, 255), (0, 0, 0))
        rgb = pygame.surfarray.array3d(surface).transpose(1, 0, 2)
        return np.concatenate([rgb, np.full((*rgb.shape[:2], 1), 255, np.uint8)], axis=2).astype(np.uint8)
    if kind == "layout" and len(args) == 2:
        strings = ["-000"] + [f"{v:04d}" for v in range(int(args[0]), int(args[1]) + 1)]
        table = np.zeros((len(strings), _LAYOUT_COLUMNS), "<i4")
        for row, s in enumerate(strings):
            table[row, 0] = font.size(s)[0]
            for k in range(min(len(s), _LAYOUT_COLUMNS - 1)):
                table[row, k + 1] = font.size(s[: k + 1])[0] - font.size(s[k])[0]
        return table.view(np.uint8).reshape(len(strings), _LAYOUT_COLUMNS, 4)
    raise ValueError(f"unknown font image source {source!r}")
