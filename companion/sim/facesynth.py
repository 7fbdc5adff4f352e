"""Synthetic tile faces from the glyph atlas: what the letter classifier learns from.

A face is drawn large, then degraded the way a camera and the face finder degrade it: the
letter in one of the atlas's fonts with its stroke thickened or thinned, scaled, squeezed and
moved; the value digits in the corner; a bevelled rim; a small turn and perspective; the crop
slightly off the face, with the board or a neighbouring tile showing at its border; light
falling across it; then reduced to a camera's resolution, blurred, noised and JPEG-compressed.
Dark ink on a light body mostly, light on dark sometimes, as real sets have both.

Everything is drawn from one ``numpy.random.Generator``, so the same seed gives the same faces.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.glyphs import GlyphAtlas

_HI = 128  # side of the face when drawn, before it is reduced to a camera's resolution


@dataclass(frozen=True)
class FaceStyle:
    """The choices behind one synthetic face (all drawn at random by :func:`random_style`)."""

    font: int
    body: float  # grey level of the body, 0..255
    ink: float
    stroke: int  # pixels of dilation (+) or erosion (-) of the glyph at the atlas's size
    letter_height: float  # cap height as a fraction of the face
    squeeze: float  # horizontal scale of the letter
    letter_shift: tuple[float, float]  # letter centre minus face centre, fraction of the face
    value_height: float
    value_inset: tuple[float, float]  # value's right and bottom edge from the face's, fraction
    turn_deg: float
    crop_shift: tuple[float, float]  # crop centre minus face centre, fraction of the face
    crop_scale: float  # crop side / face side
    background: float  # grey level around the face
    rim: float  # width of the bevel as a fraction of the face
    out_px: int  # side of the final crop in pixels
    blur: float
    noise: float
    gradient: float  # strength of light falling across the crop
    jpeg: int | None
    clear: bool = True  # the letter kept clear of the value (some makers let them touch)
    token: tuple[float, float, float] | None = None  # a disc over the face: (x, y) offset, grey


def random_style(rng: np.random.Generator, atlas: GlyphAtlas, out_px: tuple[int, int] = (20, 64)) -> FaceStyle:
    light_on_dark = rng.random() < 0.2
    if light_on_dark:
        body, ink = rng.uniform(30, 140), rng.uniform(170, 255)
    else:
        body, ink = rng.uniform(140, 250), rng.uniform(0, 100)
    return FaceStyle(
        font=int(rng.integers(len(atlas.fonts))),
        body=body,
        ink=ink,
        stroke=int(rng.choice([-2, -1, 0, 0, 1, 2, 3])),
        letter_height=rng.uniform(0.38, 0.58),
        squeeze=float(np.exp(rng.uniform(-0.18, 0.18))),
        letter_shift=(rng.uniform(-0.09, 0.04), rng.uniform(-0.09, 0.04)),
        value_height=rng.uniform(0.13, 0.24),
        value_inset=(rng.uniform(0.05, 0.12), rng.uniform(0.05, 0.12)),
        turn_deg=rng.normal(0, 2.5),
        crop_shift=(rng.normal(0, 0.04), rng.normal(0, 0.04)),
        crop_scale=rng.uniform(1.0, 1.24),
        background=rng.uniform(20, 235),
        rim=rng.uniform(0.0, 0.07),
        out_px=int(rng.integers(out_px[0], out_px[1] + 1)),
        blur=rng.uniform(0.0, 1.1),
        noise=rng.uniform(0.0, 7.0),
        gradient=rng.uniform(0.0, 0.35),
        jpeg=int(rng.integers(35, 95)) if rng.random() < 0.5 else None,
        clear=bool(rng.random() < 0.6),
        token=(
            (float(rng.choice([-0.22, 0.22]) + rng.normal(0, 0.04)), float(rng.choice([-0.22, 0.22]) + rng.normal(0, 0.04)),
             float(rng.uniform(0, 255)))
            if rng.random() < 0.08 else None
        ),
    )


def _glyph(atlas: GlyphAtlas, ch: str, font: int, stroke: int) -> np.ndarray:
    g = atlas.glyph(ch, font)
    if stroke:
        k = np.ones((2 * abs(stroke) + 1, 2 * abs(stroke) + 1), np.uint8)
        g = np.pad(g, abs(stroke) + 1)
        g = cv2.dilate(g, k) if stroke > 0 else cv2.erode(g, k)
    return g


def _paste(canvas: np.ndarray, alpha: np.ndarray, cx: float, cy: float, sx: float, sy: float) -> None:
    """Add ``alpha`` (0..255 ink), scaled by (sx, sy), centred at (cx, cy), into ``canvas`` (0..1)."""
    h, w = alpha.shape
    m = np.array([[sx, 0, cx - sx * w / 2.0], [0, sy, cy - sy * h / 2.0]], np.float32)
    warped = cv2.warpAffine(alpha.astype(np.float32) / 255.0, m, canvas.shape[::-1], flags=cv2.INTER_LINEAR)
    np.maximum(canvas, warped, out=canvas)


def draw_face(
    rng: np.random.Generator, atlas: GlyphAtlas, letter: str | None, value: str, style: FaceStyle
) -> np.ndarray:
    """One face crop (uint8 grey, ``style.out_px`` square) showing ``letter`` (None: a blank)
    with ``value`` printed in the corner (``""`` for none)."""
    F = _HI
    side = int(round(F * style.crop_scale * 1.5))  # room to turn before the final crop
    c = side / 2.0
    ink = np.zeros((side, side), np.float32)
    vbox = None  # the value's box (x0, y0) corner nearest the letter
    if value:
        ref = atlas.glyph("0", style.font).shape[0]
        s = style.value_height * F / ref
        digits = [_glyph(atlas, d, style.font, max(-1, style.stroke - 1)) for d in value]
        widths = [d.shape[1] * s * style.squeeze for d in digits]
        gap = 0.12 * s * ref
        right = c + F / 2.0 - style.value_inset[0] * F
        bottom = c + F / 2.0 - style.value_inset[1] * F
        x = right - sum(widths) - gap * (len(digits) - 1)
        vbox = (x, bottom - style.value_height * F)
        for d, wd in zip(digits, widths):
            _paste(ink, d, x + wd / 2.0, bottom - style.value_height * F / 2.0, s * style.squeeze, s)
            x += wd + gap
    if letter is not None:
        ref = atlas.glyph("H", style.font).shape[0]  # cap height of the font at the atlas's size
        g = _glyph(atlas, letter, style.font, style.stroke)
        s = style.letter_height * F / ref
        lx, ly = c + style.letter_shift[0] * F, c + style.letter_shift[1] * F
        if vbox is not None and style.clear:
            # Most tile makers keep the letter clear of the value: shrink it until they do not meet.
            while s > 0.2 * F / ref:
                right, bottom = lx + g.shape[1] * s * style.squeeze / 2.0, ly + g.shape[0] * s / 2.0
                if right < vbox[0] - 0.02 * F or bottom < vbox[1] - 0.02 * F:
                    break
                s *= 0.95
        _paste(ink, g, lx, ly, s * style.squeeze, s)
    # The face: body inside a rounded square with a bevel, background outside.
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    half = F / 2.0
    dist = np.maximum(np.abs(xx - c), np.abs(yy - c))  # 0 at the centre, half at the face edge
    face = (dist <= half).astype(np.float32)
    face = cv2.GaussianBlur(face, (0, 0), 1.0)
    body = np.full((side, side), style.body, np.float32)
    if style.rim > 0:
        # The bevel catches less light: the body darkens towards the face's edge.
        edge = np.clip((dist - (half - style.rim * F)) / max(style.rim * F, 1.0), 0, 1)
        body = body * (1.0 - 0.25 * edge)
    grey = style.background * (1 - face) + body * face
    grey = grey * (1 - ink * face) + style.ink * ink * face
    if style.token is not None:
        # A game token lying on the face near a corner, hiding part of what is printed.
        disc = np.zeros((side, side), np.uint8)
        tx, ty, tone = style.token
        cv2.circle(disc, (int(c + tx * F), int(c + ty * F)), int(0.21 * F), 255, -1, cv2.LINE_AA)
        a = disc.astype(np.float32) / 255.0
        grey = grey * (1 - a) + tone * a
    # Turn the whole face a little and crop off-centre, like the face finder does.
    m = cv2.getRotationMatrix2D((c, c), style.turn_deg, 1.0)
    grey = cv2.warpAffine(grey, m, (side, side), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    crop = F * style.crop_scale
    cx = c + style.crop_shift[0] * F
    cy = c + style.crop_shift[1] * F
    x0, y0 = int(round(cx - crop / 2.0)), int(round(cy - crop / 2.0))
    n = int(round(crop))
    grey = grey[y0 : y0 + n, x0 : x0 + n]
    if style.gradient > 0:
        a = rng.uniform(0, 2 * np.pi)
        ramp = (np.cos(a) * (xx[:n, :n] / n - 0.5) + np.sin(a) * (yy[:n, :n] / n - 0.5)) * 2
        grey = grey * (1.0 + style.gradient * 0.5 * ramp)
    out = cv2.resize(grey, (style.out_px, style.out_px), interpolation=cv2.INTER_AREA)
    if style.blur > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), style.blur)
    if style.noise > 0:
        out = out + rng.normal(0, style.noise, out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if style.jpeg is not None:
        _ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, style.jpeg])
        out = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
    return out


# What is not a letter but may look like ink on a face or a square: the board's print (premium
# patches and teeth, grid-line crossings, a centre star, small premium labels), tokens, blobs of
# glare or shadow. Shapes a letter can legitimately take are left out: a thin bar (I), a ring
# (O), a corner or T of lines (L, T), a cut letter.
OTHER_SHAPES = ("box", "teeth", "cross", "star", "disc", "label", "blob", "noise", "noise")


def draw_other(rng: np.random.Generator, atlas: GlyphAtlas, style: FaceStyle) -> np.ndarray:
    """A face-sized crop whose central ink is not a letter (see ``OTHER_SHAPES``)."""
    F = _HI
    side = int(round(F * style.crop_scale))
    ink = np.zeros((side, side), np.uint8)
    c = side / 2.0
    shape = OTHER_SHAPES[int(rng.integers(len(OTHER_SHAPES)))]

    def u(a: float, b: float) -> float:
        return float(rng.uniform(a, b))

    jx, jy = c + u(-0.12, 0.12) * F, c + u(-0.12, 0.12) * F
    if shape == "box":
        w = u(0.25, 0.7) * F
        h = w * float(np.exp(u(-0.75, 0.75)))
        pts = cv2.boxPoints(((jx, jy), (w, h), u(-10, 10))).astype(np.int32)
        cv2.fillConvexPoly(ink, pts, 255, cv2.LINE_AA)
    elif shape == "teeth":
        n = int(rng.integers(2, 5))
        s = u(0.06, 0.14) * F
        vertical = rng.random() < 0.5
        for i in range(n):
            x = jx + (0 if vertical else (i - n / 2) * 1.8 * s)
            y = jy + ((i - n / 2) * 1.8 * s if vertical else 0)
            cv2.rectangle(ink, (int(x), int(y)), (int(x + s), int(y + s)), 255, -1)
    elif shape == "cross":
        t = int(u(2, 6))
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            cv2.line(ink, (int(jx), int(jy)), (int(jx + dx * F), int(jy + dy * F)), 255, t, cv2.LINE_AA)
    elif shape == "star":
        r = u(0.2, 0.38) * F
        a = np.linspace(0, 2 * np.pi, 11)[:-1] + u(0, np.pi)
        rad = np.where(np.arange(10) % 2 == 0, r, r * u(0.35, 0.5))
        pts = np.stack([jx + rad * np.cos(a), jy + rad * np.sin(a)], 1).astype(np.int32)
        cv2.fillPoly(ink, [pts], 255, cv2.LINE_AA)
    elif shape == "disc":
        r = int(u(0.12, 0.3) * F)
        cv2.circle(ink, (int(jx), int(jy)), r, 255, -1, cv2.LINE_AA)
    elif shape == "label":
        # Two or three short lines of small capitals, like "DOUBLE / WORD / SCORE".
        lines = int(rng.integers(2, 4))
        h = u(0.08, 0.14) * F
        letters = [ch for ch in atlas.characters if ch.isalpha() and ch.isascii()]
        for i in range(lines):
            word = "".join(rng.choice(letters) for _ in range(int(rng.integers(3, 7))))
            x = jx - 0.35 * F
            y = jy + (i - lines / 2) * 1.6 * h
            for ch in word:
                g = atlas.glyph(ch, style.font)
                s = h / atlas.glyph("H", style.font).shape[0]
                gw = max(1, int(g.shape[1] * s))
                gh = max(1, int(g.shape[0] * s))
                small = cv2.resize(g, (gw, gh), interpolation=cv2.INTER_AREA)
                x0, y0 = int(x), int(y)
                if 0 <= x0 and 0 <= y0 and x0 + gw < side and y0 + gh < side:
                    np.maximum(ink[y0 : y0 + gh, x0 : x0 + gw], small, out=ink[y0 : y0 + gh, x0 : x0 + gw])
                x += gw + 0.15 * h
    elif shape == "noise":
        # Texture or sensor noise thresholded in a dark corner: irregular, ragged blobs.
        field = cv2.GaussianBlur(rng.standard_normal((side, side)).astype(np.float32), (0, 0), u(1.5, 6))
        cut = np.percentile(field, u(80, 93))
        blob = (field > cut).astype(np.uint8) * 255
        r = int(u(0.2, 0.4) * F)
        keep = np.zeros_like(blob)
        cv2.circle(keep, (int(jx), int(jy)), r, 255, -1)
        ink = cv2.bitwise_and(blob, keep)
    else:  # blob
        axes = (int(u(0.08, 0.3) * F), int(u(0.08, 0.3) * F))
        cv2.ellipse(ink, (int(jx), int(jy)), axes, u(0, 180), 0, 360, 255, -1, cv2.LINE_AA)
        ink = cv2.GaussianBlur(ink, (0, 0), u(1, 6))
        ink = np.clip(ink.astype(np.float32) * u(1.0, 2.5), 0, 255).astype(np.uint8)
    a = ink.astype(np.float32) / 255.0
    grey = style.body * (1 - a) + style.ink * a
    out = cv2.resize(grey, (style.out_px, style.out_px), interpolation=cv2.INTER_AREA)
    if style.blur > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), style.blur)
    if style.noise > 0:
        out = out + rng.normal(0, style.noise, out.shape).astype(np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def binarised(picture: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A normalised picture as a coarse component mask would give it (for candidates found
    on the half-resolution board): thresholded, maybe thickened, lightly blurred."""
    m = (picture > rng.uniform(0.35, 0.65)).astype(np.float32)
    if rng.random() < 0.3:
        m = cv2.dilate(m, np.ones((2, 2), np.uint8))
    return cv2.GaussianBlur(m, (0, 0), rng.uniform(0.3, 0.8))
