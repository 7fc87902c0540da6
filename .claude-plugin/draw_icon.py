"""Draws the plugin's icon, `.claude-plugin/icon.png`, with the standard library only.

A curator's tag on a shelf: a dark green rounded square, a cream ring open at the top
right (a "C"), and a light green leaf in the opening. Edges are anti-aliased from the
signed distance to each shape. Run `python .claude-plugin/draw_icon.py` to redraw it;
tests/test_plugin.py checks that the committed file is what this draws.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

SIZE = 512
Color = tuple[int, int, int]
BACKGROUND: Color = (34, 87, 64)
RING: Color = (244, 236, 214)
LEAF: Color = (140, 201, 120)


def coverage(distance: float) -> float:
    """How much of a pixel a shape covers, from the signed distance of its centre."""
    return min(1.0, max(0.0, 0.5 - distance))


def rounded_square(x: float, y: float) -> float:
    half, radius = SIZE / 2 - 8, 96.0
    qx, qy = abs(x - SIZE / 2) - (half - radius), abs(y - SIZE / 2) - (half - radius)
    outside = math.hypot(max(qx, 0.0), max(qy, 0.0))
    return outside + min(max(qx, qy), 0.0) - radius


def ring(x: float, y: float) -> float:
    """The "C": an annulus with a wedge cut out towards the top right."""
    dx, dy = x - SIZE / 2, y - SIZE / 2
    band = abs(math.hypot(dx, dy) - 150.0) - 38.0
    angle = math.degrees(math.atan2(-dy, dx))  # 0 to the right, counter-clockwise
    gap = 28.0 - abs(angle - 38.0)  # positive inside the opening
    return max(band, gap * 2.5)


def leaf(x: float, y: float) -> float:
    """An ellipse tilted 45 degrees, sitting in the ring's opening."""
    cx, cy = SIZE / 2 + 122.0, SIZE / 2 - 122.0
    c, s = math.cos(math.radians(45)), math.sin(math.radians(45))
    u, v = (x - cx) * c - (y - cy) * s, (x - cx) * s + (y - cy) * c
    a, b = 62.0, 30.0
    k = math.hypot(u / a, v / b)
    return (k - 1.0) * min(a, b)


def blend(under: Color, over: Color, alpha: float) -> Color:
    r, g, b = (round(u + (o - u) * alpha) for u, o in zip(under, over, strict=True))
    return r, g, b


def pixels() -> bytes:
    """Raw RGBA scanlines, each led by PNG filter byte 0."""
    rows = bytearray()
    for py in range(SIZE):
        rows.append(0)
        for px in range(SIZE):
            x, y = px + 0.5, py + 0.5
            color = blend(BACKGROUND, RING, coverage(ring(x, y)))
            color = blend(color, LEAF, coverage(leaf(x, y)))
            rows.extend((*color, round(255 * coverage(rounded_square(x, y)))))
    return bytes(rows)


def chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def png() -> bytes:
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(pixels(), 9))
        + chunk(b"IEND", b"")
    )


if __name__ == "__main__":
    Path(__file__).with_name("icon.png").write_bytes(png())
