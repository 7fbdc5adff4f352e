"""Stages 1 and 3 of reading the squares: a premium square's print told from a tile's mark.

Every square of a premium class shows the same print (its words, the teeth along its edges, the
centre's star); a tile hides it. Takes the half board (or the full-resolution grey) and the
squares' premium classes; gives the glyphs less those that are print (:func:`_print_dropped`),
how much each square shows its class's typical print
(:func:`print_shown`: a face hides it, an empty square shows it under any light), the fraction of
a glyph's box unlike its class's picture (:func:`glyph_novelty`: a tile's letter is new there,
the class's print is not), and the squares taken for a blank face that show their class's print,
which are empty (:func:`_print_shown`, at full resolution after the kinds are decided)."""

from __future__ import annotations

import cv2
import numpy as np

from companion.core.board import Premium
from companion.vision.cells.evidence import _NOVEL, _NOVEL_BAR, Evidence
from companion.vision.cells.geometry import Geometry
from companion.vision.cells.glyphs import Glyphs
from companion.vision.cells.stats import unlike_class
from companion.vision.colour import luminance
from companion.vision.medians import median

_HIDDEN_LEVEL = 0.1  # fine detail (RMS of relative lightness) a class's picture needs to count as print
_INSIDE = 0.15  # fraction of a square from each side left out of its print's picture
_HIDDEN = 0.5  # correlation with its class's print below which a square hides it
_PRINT_REFS = 24  # squares of a class its typical picture is taken from
_PRINT_SHIFT = 2  # pixels a square's picture may lie off its class's (a grid fitted a little off)


def print_shown(small: np.ndarray, geo: Geometry, classes: np.ndarray, ask: np.ndarray,
                lum_small: np.ndarray | None = None) -> np.ndarray:
    """(R, C) for squares of ``ask`` whose class has print (a premium's words), how much their
    picture (relative lightness, as :func:`unlike_class` takes it) correlates with the class's
    typical one; NaN elsewhere. A face hides the print under it; an empty square shows it,
    however a light or glare lies on it. ``lum_small``: the luminance of ``small`` when worked
    out already (the same values)."""
    out = np.full(classes.shape, np.nan, np.float32)
    blocks = geo.blocks(small if lum_small is None else lum_small, 0.0, 1.0)
    n = blocks.shape[2]
    # The square's inside only: the grid's lines and a neighbour's shadow lie at its sides
    # (a plain square's 'print' would be its lines), a premium's words within; at the best of
    # a pixel's shifts each way (a lens's distortion moves the print near the board's corners).
    e, s = int(round(_INSIDE * n)), _PRINT_SHIFT // 2

    def relative(at: np.ndarray) -> np.ndarray:
        pics = luminance(blocks[at[:, 0], at[:, 1]]) if lum_small is None else blocks[at[:, 0], at[:, 1]]
        middle = pics[:, n // 4 : n - n // 4, n // 4 : n - n // 4].reshape(len(pics), -1)
        return pics / np.maximum(median(middle), 1.0)[:, None, None]

    for k in np.unique(classes[ask]):
        mine = np.argwhere(classes == k)
        if len(mine) < 4:
            continue
        # The class's typical picture from squares spread evenly over it (enough for a median).
        refs = mine[np.linspace(0, len(mine) - 1, min(len(mine), _PRINT_REFS)).round().astype(int)]
        ref = median(relative(refs)[:, e : n - e, e : n - e], axis=0).astype(np.float32)
        a = (ref - ref.mean()).ravel()
        if float(np.sqrt(np.mean(a * a))) < _HIDDEN_LEVEL:
            continue  # a plain colour: nothing to show or hide
        asked = np.argwhere(ask & (classes == k))
        for (r, c), v in zip(asked, relative(asked)):
            views = np.stack([v[e + dy : n - e + dy, e + dx : n - e + dx].ravel()
                              for dy in range(-s, s + 1) for dx in range(-s, s + 1)])
            views -= views.mean(1, keepdims=True)
            corr = (views @ a) / (np.sqrt((views * views).sum(1)) * np.sqrt(a @ a) + 1e-9)
            out[r, c] = float(corr.max())
    return out


def glyph_novelty(glyphs: Glyphs, at: np.ndarray, unlike: np.ndarray, geo: Geometry, scale: float,
                  exact: bool = False) -> np.ndarray:
    """(R, C) for each square's glyph, the fraction of its box (within the square, at the
    resolution of ``unlike``) unlike its class's picture: a letter of a tile is new there,
    the class's own print is not. NaN where no glyph."""
    out = np.full(at.shape, np.nan, np.float32)
    n = unlike.shape[2]
    o = geo.origin
    for r, c in np.argwhere(at >= 0):
        i = int(at[r, c])
        cx = (glyphs.x[i] + 0.5) / scale - 0.5 - o / scale - c * n
        cy = (glyphs.y[i] + 0.5) / scale - 0.5 - o / scale - r * n
        if exact:
            # The pixels whose centres the glyph's box holds: a bar one pixel wide is that
            # pixel, not three of which two are the body beside it.
            hw, hh = max(0.5, glyphs.w[i] / scale / 2.0), max(0.5, glyphs.h[i] / scale / 2.0)
            x0, x1 = max(0, int(np.floor(cx - hw + 0.5))), min(n, int(np.floor(cx + hw + 0.5)))
            y0, y1 = max(0, int(np.floor(cy - hh + 0.5))), min(n, int(np.floor(cy + hh + 0.5)))
        else:
            hw, hh = max(1.0, glyphs.w[i] / scale / 2.0), max(1.0, glyphs.h[i] / scale / 2.0)
            x0, x1 = max(0, int(round(cx - hw))), min(n, int(round(cx + hw)) + 1)
            y0, y1 = max(0, int(round(cy - hh))), min(n, int(round(cy + hh)) + 1)
        if x1 > x0 and y1 > y0:
            out[r, c] = float(unlike[r, c, y0:y1, x0:x1].mean())
    return out


_PRINT_SHOWN = 0.85  # correlation with its class's print above which a square shows that print
_PRINT_LEVEL = 0.04  # fine detail (RMS, relative to the level) a class's print must have


def _print_shown(ev: Evidence, geo: Geometry, kind_idx: np.ndarray) -> np.ndarray:
    """(R, C) squares taken for a blank face on a premium square that show their class's
    print: the fine detail (words, teeth, lines) the class's squares read empty show, at full
    resolution, correlated at the best of a few small shifts. A face hides the print under
    it, and a blank has no ink at all; a lamp's glare or a light the board's field misses
    moves an empty square's colour towards a pale tile's, but its print stays where it was.
    Fine detail only (the picture less its blur, over its blur): glare and shade are smooth."""
    classes = ev.extra.get("classes")
    out = np.zeros(kind_idx.shape, bool)
    if classes is None:
        return out
    plain = list(Premium).index(Premium.NONE)
    blank = (kind_idx == 1) & (ev.glyph_at < 0) & (classes != plain)
    if not blank.any():
        return out
    rect = ev.extra["rectified"]
    p, o, s = geo.cell_px, int(round(geo.origin)), _PRINT_SHIFT
    e, pad = 3, 12  # the picture takes in the lines around the square; room for the blur
    n = p + 2 * (e + s)

    def detail(r: int, c: int) -> np.ndarray | None:
        y0, x0 = o + r * p - e - s - pad, o + c * p - e - s - pad
        if y0 < 0 or x0 < 0 or y0 + n + 2 * pad > rect.shape[0] or x0 + n + 2 * pad > rect.shape[1]:
            return None
        g = cv2.cvtColor(rect[y0 : y0 + n + 2 * pad, x0 : x0 + n + 2 * pad], cv2.COLOR_BGR2GRAY).astype(np.float32)
        low = cv2.GaussianBlur(g, (0, 0), 4.0)
        return ((g - low) / np.maximum(low, 8.0))[pad : pad + n, pad : pad + n]

    m = p + 2 * e
    for k in np.unique(classes[blank]):
        refs = [d for r, c in np.argwhere((classes == k) & (kind_idx == 0)) if (d := detail(int(r), int(c))) is not None]
        if len(refs) < 3:
            continue
        ref = np.median(np.stack(refs)[:, s : s + m, s : s + m], axis=0)
        a = (ref - ref.mean()).ravel()
        level = float(np.sqrt(np.mean(a * a)))
        if level < _PRINT_LEVEL:
            continue  # a class without print (a plain colour) tells nothing here
        for r, c in np.argwhere(blank & (classes == k)):
            d = detail(int(r), int(c))
            if d is None:
                continue
            views = np.stack([d[dy : dy + m, dx : dx + m].ravel() for dy in range(2 * s + 1) for dx in range(2 * s + 1)])
            views -= views.mean(1, keepdims=True)
            corr = (views @ a) / (np.sqrt((views * views).sum(1)) * np.sqrt(a @ a) + 1e-9)
            out[r, c] = float(corr.max()) >= _PRINT_SHOWN
    return out


def _print_dropped(
    glyphs: Glyphs, at: np.ndarray, small: np.ndarray, small_geo: Geometry, geo: Geometry, classes: np.ndarray,
    lum_small: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each square's glyph (``at``) less those that are their premium class's print: a glyph its
    class's other squares show too, in the same place, unless the square hides the print a face
    would hide; with where each square is unlike its class (``unlike``) and how new each glyph
    is there (``novelty``)."""
    scale = geo.cell_px / small_geo.cell_px
    unlike = unlike_class(small, small_geo, classes, lum_small=lum_small)
    novelty = glyph_novelty(glyphs, at, unlike, geo, scale)
    # A bar (an I, or a word of print at this scale) must be clearly new: print is full of them.
    gi = np.maximum(at, 0)
    # (A board showing no ink at all, a plain board of one colour, has no glyph to index.)
    bar = (np.maximum(glyphs.w[gi], glyphs.h[gi]) >= 3.0 * np.minimum(glyphs.w[gi], glyphs.h[gi])
           if len(glyphs) else np.zeros(at.shape, bool))
    old = (at >= 0) & ~np.isnan(novelty) & (novelty < np.where(bar, _NOVEL_BAR, _NOVEL))
    if old.any():
        # ... unless the class has print and the square hides it: something lies over it, and
        # the glyph is no print, however much of the letter lies where the print's strokes lie
        # (a face's white letter on a pale blue double letter's white words).
        shown = print_shown(small, small_geo, classes, old, lum_small)
        keep = shown < _HIDDEN
        # A class without print has none to take a bar for: there a bar is old only if its
        # own pixels are the class's (the grid's lines at a square's side). A thin I, a pixel
        # wide at this scale, is two thirds body in a box that takes in a pixel either side.
        plain_bar = old & bar & np.isnan(shown)
        if plain_bar.any():
            own = glyph_novelty(glyphs, np.where(plain_bar, at, -1), unlike, geo, scale, exact=True)
            keep |= plain_bar & (own >= _NOVEL_BAR)
        at = np.where(old & ~keep, -1, at)
    return at, unlike, novelty
