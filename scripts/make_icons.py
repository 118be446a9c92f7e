"""Draw the app's icons (the manifest's PNGs) with no dependency: a card with a cucumber on the
club's green, rasterised here with 4x4 samples per pixel and written as PNG with zlib.

    python scripts/make_icons.py        # writes static/icons/*.png (committed)

`icon-192.png` and `icon-512.png` are the usual icons (a rounded green square); the maskable one
fills the whole square with green and keeps the card inside the middle 80% (the safe zone a
launcher's mask never cuts), so any mask shape shows the whole card.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "static" / "icons"
GREEN = (31, 95, 63)
CARD = (255, 255, 255)
EDGE = (34, 51, 68)
CUCUMBER = (47, 143, 79)
SAMPLES = 4


def rounded(x: float, y: float, left: float, top: float, right: float, bottom: float, r: float) -> bool:
    """Is (x, y) inside the rectangle with corners rounded by r?"""
    if not (left <= x <= right and top <= y <= bottom):
        return False
    cx = min(max(x, left + r), right - r)
    cy = min(max(y, top + r), bottom - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def colour_at(x: float, y: float, *, maskable: bool) -> tuple[int, int, int, int]:
    """The icon's colour at (x, y) in a 0..1 square."""
    if maskable:  # the card shrinks into the safe zone, the green fills everything
        x, y = 0.5 + (x - 0.5) / 0.78, 0.5 + (y - 0.5) / 0.78
    elif not rounded(x, y, 0, 0, 1, 1, 0.18):
        return (0, 0, 0, 0)
    if rounded(x, y, 0.24, 0.1, 0.76, 0.9, 0.07):
        if ((x - 0.5) / 0.13) ** 2 + ((y - 0.5) / 0.27) ** 2 <= 1:
            return (*CUCUMBER, 255)
        if not rounded(x, y, 0.265, 0.125, 0.735, 0.875, 0.05):
            return (*EDGE, 255)
        return (*CARD, 255)
    return (*GREEN, 255)


def draw(size: int, *, maskable: bool) -> bytes:
    rows = []
    step = 1 / (size * SAMPLES)
    for py in range(size):
        row = bytearray([0])  # PNG filter: none
        for px in range(size):
            total = [0, 0, 0, 0]
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    r, g, b, a = colour_at((px * SAMPLES + sx + 0.5) * step,
                                           (py * SAMPLES + sy + 0.5) * step, maskable=maskable)
                    total[0] += r * a
                    total[1] += g * a
                    total[2] += b * a
                    total[3] += a
            alpha = total[3]
            if alpha:
                row += bytes((round(total[0] / alpha), round(total[1] / alpha), round(total[2] / alpha),
                              round(alpha / SAMPLES ** 2)))
            else:
                row += b"\0\0\0\0"
        rows.append(bytes(row))
    return png(size, b"".join(rows))


def png(size: int, raw: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, size, maskable in (("icon-192.png", 192, False), ("icon-512.png", 512, False),
                                 ("icon-maskable-512.png", 512, True)):
        (OUT / name).write_bytes(draw(size, maskable=maskable))
        print(f"wrote {OUT / name}")


if __name__ == "__main__":
    main()
