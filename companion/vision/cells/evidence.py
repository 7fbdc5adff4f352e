"""What the square reader found before deciding each square (:class:`Evidence`), and the
tolerances the stages share.

:func:`companion.vision.cells.gather.gather_evidence` makes it; the later stages (kinds, faces,
tokens, sets) read it and add what they find to ``extra``. Colours in it are BGR divided by
``light`` (the photo's light at each square relative to the looks), distances in Lab."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion.vision.cells.glyphs import Glyphs
from companion.vision.cells.stats import SquareStats


@dataclass
class Evidence:
    """What the reader found before deciding each square (kept for diagnostics and tests).
    Colours are BGR divided by ``light`` (the photo's light at each square relative to the
    looks), distances in Lab."""

    stats: SquareStats
    glyphs: Glyphs
    glyph_at: np.ndarray  # (R, C) index into glyphs, or -1
    tile_colours: list[np.ndarray]  # BGR of each tile set's body found, largest set first
    tile_polarity: list[int]  # +1: dark ink on that set
    back_colours: list[np.ndarray]  # BGR of the backs known (from the profile)
    empty_look: np.ndarray  # (R, C, 3) BGR each square shows when empty
    empty_known: np.ndarray  # (R, C) bool
    light: np.ndarray  # (R, C, 3) the light at each square, per channel, relative to the looks
    shift: np.ndarray  # (R, C, 2) displacement of faces from squares, pixels
    d_empty: np.ndarray  # (R, C) Lab distance to the empty look
    d_tile: np.ndarray  # (R, C) Lab distance to the nearest tile body
    tile_set: np.ndarray  # (R, C) index of that nearest tile colour
    d_back: np.ndarray  # (R, C) Lab distance to the nearest back colour (inf: none known)
    back_set: np.ndarray  # (R, C) index of that back colour
    glyph_ok: np.ndarray  # (R, C) a letter on a tile-coloured body
    extra: dict = field(default_factory=dict)


_TILE_RADIUS = 16.0  # Lab distance within which squares share a tile body
_GLARE_OFF = 8.0  # Lab distance from its set's colour beyond which a face may be under glare
_LETTERNESS = 0.5  # the network's belief that a glyph is a letter, below which it is print
_DOUBTED = 0.3  # ... above which a face showing that letter's value still holds it (a serif or faded I)
_VALUE_TURN = 0.9  # belief in the turn a doubted letter's value must be read at (its corner sure)
_NOVEL = 0.1  # fraction of a glyph's box unlike its class's picture below which it is the class's print
_NOVEL_BAR = 0.35  # ... for a bar-shaped glyph
_LETTER_SPAN = 0.7  # a letter's ink spans at least this fraction of the board's usual letter's
_CROP = 1.0  # face crops are this many squares wide
