"""Images that renderers draw, read from PNG files with the standard library (zlib) and numpy.

The one in use is Gymnasium's Pendulum arrow (``envs/classic_control/assets/clockwise.png``): the
native renderer scales and blends it itself, and the family module reads it through
:func:`read_png_rgba` once per process, at the first frame that needs it (envhive.catalog installs
the reader). Only what that needs is supported: 8-bit RGBA, not interlaced.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

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
