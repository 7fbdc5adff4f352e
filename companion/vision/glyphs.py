"""The glyph atlas: every letter of every tile set, the digits of tile values and ``?``, in a
spread of fonts, as grey-level ink bitmaps (255 = ink) cropped to their ink.

Built by ``scripts/build_glyphs.py`` from Debian's fonts and shipped in ``data/glyphs.npz``, so
that neither fonts nor Pillow are needed at run time. The synthetic renderer draws tiles with
these glyphs and the letter classifier learns from them.

``data/glyphs_heldout.npz`` (``build_glyphs.py --held-out``) holds other font families, which
nothing learns from: the renderer draws a stranger's tiles with them (:func:`font_count`).
``data/glyphs_train.npz`` (``build_glyphs.py --train-only``) holds families only the learned
square reader's training scenes draw (numbered after the held-out ones: :func:`all_font_count`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Mapping

import numpy as np


@dataclass(frozen=True)
class GlyphAtlas:
    em: int  # pixels per em the glyphs were rendered at
    fonts: tuple[str, ...]  # font family labels, in index order
    characters: tuple[str, ...]
    bitmaps: Mapping[tuple[int, str], np.ndarray]  # (font index, character) -> uint8 ink

    def glyph(self, character: str, font: int = 0) -> np.ndarray:
        return self.bitmaps[(font, character)]


@cache
def load_atlas(name: str = "glyphs") -> GlyphAtlas:
    """``glyphs`` (the families the reader learns from), ``glyphs_heldout`` or ``glyphs_train``."""
    with resources.files("companion.vision").joinpath("data", f"{name}.npz").open("rb") as f:
        with np.load(f, allow_pickle=False) as npz:
            meta = json.loads(npz["meta"].tobytes().decode("utf-8"))
            bitmaps = {}
            for key, _family, ch in meta["index"]:
                font = meta["fonts"].index(_family)
                bitmaps[(font, ch)] = npz[key]
    return GlyphAtlas(meta["em"], tuple(meta["fonts"]), tuple(meta["characters"]), bitmaps)


def font_count() -> int:
    """Fonts the renderer draws with: the atlas's, then the held-out families' (numbered on)."""
    return len(load_atlas().fonts) + len(load_atlas("glyphs_heldout").fonts)


def all_font_count() -> int:
    """Every font the renderer can draw with: :func:`font_count`'s, then the training-only
    families (``glyphs_train``; only companion/sim/trainscene.py draws them)."""
    return font_count() + len(load_atlas("glyphs_train").fonts)


def atlas_glyph(character: str, font: int) -> np.ndarray:
    """A character of font ``font`` numbered as :func:`all_font_count` counts: ``KeyError`` when
    the font or the character is not there."""
    atlas = load_atlas()
    if font >= font_count():
        return load_atlas("glyphs_train").glyph(character, font - font_count())
    if font >= len(atlas.fonts):
        return load_atlas("glyphs_heldout").glyph(character, font - len(atlas.fonts))
    return atlas.glyph(character, font)
