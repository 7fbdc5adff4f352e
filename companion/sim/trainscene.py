"""Scenes the learned square reader trains on (scripts/make_squares.py): tables drawn far
wider than the project's own presets, and apart from the stranger benchmark's.

What is held out of them, so that the stranger benchmark (:func:`companion.sim.scene.stranger`,
seeds 50000-50199) measures a reader on what it has never seen: the held-out font families
(``glyphs_heldout.npz``: letters here come from the 13 atlas families, and with ``wide_fonts``
from the 13 training-only ones of ``glyphs_train.npz`` too, none of them a held-out family or
its relative), the benchmark's tile
looks (:data:`~companion.sim.scene.STRANGER_LOOKS`: a training set's colours are drawn at random
and never one of those five within a margin) and its three cloth colours (a cloth here is any
colour but one of :data:`~companion.sim.scene.CLOTH_COLOURS`' within a margin). Boards are the
three editions moved further than a stranger's (``vary_style`` at 0.3).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.sim.scene import (
    CLOTH_COLOURS,
    RGB,
    STRANGER_LOOKS,
    TILE_LOOKS,
    SceneSpec,
    TileLook,
    board_style,
    mounted_camera,
    mounted_photo,
    phone_camera,
    phone_photo,
    random_content,
    table_colour,
    vary_look,
    vary_style,
)
from companion.vision.glyphs import font_count, load_atlas

# A random colour this close (RGB distance) to a held-out one is drawn again.
HELD_OUT_MARGIN = 40.0
TILESETS = ("en", "en", "en", "de", "pl")


def _far(c: RGB, held: list[RGB]) -> bool:
    return all(float(np.linalg.norm(np.subtract(c, h))) > HELD_OUT_MARGIN for h in held)


def _colour(rng: np.random.Generator, held: list[RGB]) -> RGB:
    while True:
        c = tuple(int(v) for v in rng.integers(15, 250, 3))
        if _far(c, held):  # type: ignore[arg-type]
            return c  # type: ignore[return-value]


def _look(rng: np.random.Generator, name: str) -> TileLook:
    """A tile set: one of the project's own (moved), or colours drawn at random: a body, a
    back apart from it, an ink that stands out on the body."""
    if rng.random() < 0.35:
        own = TILE_LOOKS[list(TILE_LOOKS)[int(rng.integers(len(TILE_LOOKS)))]]
        return replace(vary_look(own, rng, 0.12), name=name)
    held = [c for lk in STRANGER_LOOKS.values() for c in (lk.body, lk.back)]
    body = _colour(rng, held)
    while True:
        back = _colour(rng, held)
        if float(np.linalg.norm(np.subtract(back, body))) > 70:
            break
    light = float(np.mean(body)) > 120
    ink = tuple(int(v) for v in (rng.integers(5, 70, 3) if light else rng.integers(200, 256, 3)))
    look = TileLook(name, body=body, back=back, ink=ink, wood=bool(rng.random() < 0.1))  # type: ignore[arg-type]
    return vary_look(look, rng, 0.03)


def _training_fonts(wide: bool) -> list[int]:
    """The fonts a training scene draws (numbered as :func:`~companion.vision.glyphs.all_font_count`
    counts): the atlas's, and when ``wide`` the training-only families, never the held-out ones
    between them."""
    atlas = list(range(len(load_atlas().fonts)))
    if not wide:
        return atlas
    return atlas + [font_count() + i for i in range(len(load_atlas("glyphs_train").fonts))]


def training_scene(rng: np.random.Generator, wide_fonts: bool = False) -> SceneSpec:
    """One table to learn from: see the module's doc for what it never draws. ``wide_fonts``:
    letters in the training-only families too (``make_squares.py --wide-fonts``)."""
    phone = bool(rng.random() < 0.5)
    grid = 15
    tileset = TILESETS[int(rng.integers(len(TILESETS)))]
    st = vary_style(board_style(("green", "classic", "band")[int(rng.integers(3))]), rng, 0.3)
    sets = ("s0",) if rng.random() < 0.6 else ("s0", "s1")
    looks = {n: _look(rng, n) for n in sets}
    content = random_content(
        rng, tileset, int(rng.integers(20, 110)), grid=grid, sets=sets,
        p_back=0.08, p_rotated=0.25, p_token=0.04, p_token_empty=0.03,
    )
    base = phone_photo(rng) if phone else mounted_photo(rng)
    table = ("checked", "striped", "patterned", "wood", "cloth", "plain")[int(rng.integers(6))]
    colour = table_colour(rng) if table in ("wood", "plain") else _colour(rng, list(CLOTH_COLOURS))
    photo = replace(
        base, table=table, table_colour=colour, table_second=_colour(rng, []),
        table_period=float(rng.uniform(0.4, 3.0)), lamps=int(rng.choice((0, 0, 1, 1, 2, 3))),
        glare=int(rng.integers(0, 4)),
    )
    fonts = _training_fonts(wide_fonts)
    return SceneSpec(
        content=content, grid=grid, tileset=tileset, style=st, looks=looks,
        font=fonts[int(rng.integers(len(fonts)))], label_font=fonts[int(rng.integers(len(fonts)))],
        camera=phone_camera(rng) if phone else mounted_camera(rng), photo=photo,
        tile_offset=float(rng.uniform(0.0, 0.12)), tile_jitter_deg=float(rng.uniform(0.0, 5.0)),
    )
