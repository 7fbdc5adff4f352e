"""An image's pixel size read from its header, before anything is decoded.

Why: a file's size says nothing of what it decodes to. A 2.7 MB PNG of one colour decodes to
30000 x 30000 pixels, 2.7 GB in BGR, and drove ``companion read`` past 4 GB; OpenCV's own
ceiling (2^30 pixels) lets it through. So every image the companion decodes (``read``,
``replay-photos``, ``calibrate``, a folder camera) has its size read here first and is refused
past :data:`MAX_IMAGE_PIXELS`. The formats are those a camera or a phone writes and OpenCV
decodes: PNG, JPEG, BMP, TIFF and WebP; an image of another kind is refused too (its size
cannot be known before decoding it).
"""

from __future__ import annotations

import struct

from companion.core.errors import CompanionError

# Larger files are not camera frames; refusing them before reading keeps a mistaken path from
# eating memory.
MAX_IMAGE_BYTES = 64 * 1024 * 1024
# 50 megapixels: a phone's largest usual photo (8160 x 6120) and far above a Pi camera's 12 MP;
# 150 MB in BGR at most.
MAX_IMAGE_PIXELS = 50_000_000

# JPEG's start-of-frame markers (baseline, progressive, lossless, arithmetic); not DHT, JPG, DAC.
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _png(data: bytes) -> tuple[int, int] | None:
    if len(data) >= 24 and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    return None


def _jpeg(data: bytes) -> tuple[int, int] | None:
    i, n = 2, len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0x01, *range(0xD0, 0xD8)):  # markers without a length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if marker in _SOF:
            if i + 9 > n:
                return None
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        if marker in (0xD9, 0xDA):  # end of image, start of scan before any frame header
            return None
        i += 2 + length
    return None


def _bmp(data: bytes) -> tuple[int, int] | None:
    if len(data) < 26:
        return None
    (header,) = struct.unpack("<I", data[14:18])
    if header == 12:
        w, h = struct.unpack("<HH", data[18:22])
        return w, h
    w, h = struct.unpack("<ii", data[18:26])
    return abs(w), abs(h)


def _webp(data: bytes) -> tuple[int, int] | None:
    kind = data[12:16]
    if kind == b"VP8 " and len(data) >= 30:
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    if kind == b"VP8L" and len(data) >= 25:
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8X" and len(data) >= 30:
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    return None


def _tiff(data: bytes) -> tuple[int, int] | None:
    order = "<" if data[:2] == b"II" else ">"
    if len(data) < 8:
        return None
    (ifd,) = struct.unpack(order + "I", data[4:8])
    if ifd + 2 > len(data):
        return None
    (count,) = struct.unpack(order + "H", data[ifd:ifd + 2])
    found: dict[int, int] = {}
    for k in range(count):
        at = ifd + 2 + 12 * k
        if at + 12 > len(data):
            break
        tag, kind = struct.unpack(order + "HH", data[at:at + 4])
        if tag in (256, 257):
            value = struct.unpack(order + ("H" if kind == 3 else "I"), data[at + 8:at + (10 if kind == 3 else 12)])[0]
            found[tag] = value
    if 256 in found and 257 in found:
        return found[256], found[257]
    return None


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from the header of a PNG, JPEG, BMP, TIFF or WebP; None for another kind
    or a header too damaged to say."""
    head = data[:16]
    try:
        if head.startswith(b"\x89PNG\r\n\x1a\n"):
            return _png(data)
        if head.startswith(b"\xff\xd8"):
            return _jpeg(data)
        if head.startswith(b"BM"):
            return _bmp(data)
        if head.startswith(b"RIFF") and data[8:12] == b"WEBP":
            return _webp(data)
        if head[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff(data)
    except struct.error:
        return None
    return None


def check_pixels(data: bytes, source: str = "image") -> tuple[int, int]:
    """The image's (width, height) when it is of a size worth decoding; one clear line
    otherwise, before a byte of it is decoded."""
    size = image_size(data)
    if size is None:
        raise CompanionError(f"{source}: not an image whose size can be read (JPEG, PNG, BMP, TIFF or WebP expected)")
    w, h = size
    if w <= 0 or h <= 0:
        raise CompanionError(f"{source}: an image of {w} x {h} pixels")
    if w * h > MAX_IMAGE_PIXELS:
        raise CompanionError(f"{source}: {w} x {h} pixels is too large for a camera image "
                             f"(at most {MAX_IMAGE_PIXELS // 1_000_000} megapixels)")
    return w, h
