"""Colours as the vision package compares them: BGR to Lab (OpenCV's 8-bit scale), RGB and BGR
triples, luminance, a distance in Lab with lightness weighed half (the light moves lightness far
more than hue), and a channel's brightness relative to its look.

Takes colours as float arrays of any shape ending in 3; gives arrays of the same shape (less the
last axis, for a distance or a luminance). Used by the hand-written square reader
(:mod:`companion.vision.cells`), by :mod:`companion.vision.sets` and by the calibration."""

from __future__ import annotations

import cv2
import numpy as np



def to_lab(bgr: np.ndarray) -> np.ndarray:
    """Lab of BGR colours (0..255 floats, any shape ending in 3) in OpenCV's 8-bit scale:
    L 0..255, a and b centred on 128. Pictures go through 8 bits (ten times faster; a
    colour's rounding is far below any distance the reader tells apart)."""
    arr = np.asarray(bgr, np.float32)
    if arr.size >= 3 * 4096 and arr.ndim >= 3:
        return _lab_bytes(arr)
    x = np.clip(arr / 255.0, 0.0, 1.0)
    shape = x.shape
    # As one row: OpenCV converts a one-pixel-wide column about twenty times slower.
    lab = cv2.cvtColor(np.ascontiguousarray(x.reshape(1, -1, 3)), cv2.COLOR_BGR2LAB).reshape(shape)
    lab[..., 0] *= 255.0 / 100.0
    lab[..., 1:] += 128.0
    return lab


def _lab_bytes(arr: np.ndarray) -> np.ndarray:
    """:func:`to_lab`'s way for pictures (float32 BGR, any shape ending in 3): rounded to
    bytes, converted as rows of a picture. Pixel by pixel: a colour converts alike in a
    picture of any size."""
    u8 = np.clip(arr + 0.5, 0, 255).astype(np.uint8).reshape(-1, arr.shape[-2], 3)
    return cv2.cvtColor(u8, cv2.COLOR_BGR2LAB).reshape(arr.shape).astype(np.float32)


def rgb_to_bgr(rgb: tuple[int, int, int] | np.ndarray) -> np.ndarray:
    r, g, b = (float(v) for v in rgb)
    return np.array([b, g, r], np.float32)


def bgr_to_rgb(bgr: np.ndarray) -> tuple[int, int, int]:
    b, g, r = (int(round(min(max(float(v), 0.0), 255.0))) for v in bgr)
    return r, g, b


def luminance(bgr: np.ndarray) -> np.ndarray:
    return bgr[..., 0] * 0.114 + bgr[..., 1] * 0.587 + bgr[..., 2] * 0.299


def colour_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance of Lab colours, lightness weighed half."""
    d = np.asarray(a, np.float32) - np.asarray(b, np.float32)
    if d.ndim < 2:
        return np.sqrt(0.25 * d[..., 0] ** 2 + d[..., 1] ** 2 + d[..., 2] ** 2)
    # Channel by channel (a sum over a last axis of three is slow in numpy), in place: the
    # same operations in the same order as 0.25 d0^2 + d1^2 + d2^2, without temporaries.
    np.multiply(d, d, out=d)
    s = d[..., 0] * np.float32(0.25)
    s += d[..., 1]
    s += d[..., 2]
    return np.sqrt(s, out=s)


def _ratio(seen: np.ndarray, look: np.ndarray) -> np.ndarray:
    """How much brighter each channel is seen than its look, steadied for dark channels (a
    red square has almost no blue, whose ratio would be noise)."""
    return np.clip((seen + 24.0) / (look + 24.0), 0.2, 5.0)
