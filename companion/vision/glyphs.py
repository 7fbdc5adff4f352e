"""The glyph atlas: every letter of every tile set, the digits of tile values and ``?``, in a
spread of fonts, as grey-level ink bitmaps (255 = ink) cropped to their ink.

Built by ``scripts/build_glyphs.py`` from Debian's fonts and shipped in ``data/glyphs.npz``, so
that neither fonts nor Pillow are needed at run time. The synthetic renderer draws tiles with
these glyphs and the letter classifier learns from them.
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
def load_atlas() -> GlyphAtlas:
    with resources.files("companion.vision").joinpath("data", "glyphs.npz").open("rb") as f:
        with np.load(f, allow_pickle=False) as npz:
            meta = json.loads(npz["meta"].tobytes().decode("utf-8"))
            bitmaps = {}
            for key, _family, ch in meta["index"]:
                font = meta["fonts"].index(_family)
                bitmaps[(font, ch)] = npz[key]
    return GlyphAtlas(meta["em"], tuple(meta["fonts"]), tuple(meta["characters"]), bitmaps)
