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

``look_alikes`` (``make_squares.py --look-alikes``, the fine-tuning set of ``make model-alike``) adds
what real tables have and random colours only meet by chance: a set whose back is one of the
board's own square colours (plain or premium, moved a little: a red back on a red triple-word
square, a cream back on a cream board), and tokens of (nearly) a tile face's own colour with
hardly a rim. The held-out rule stands: such a back or token is never within
:data:`HELD_OUT_MARGIN` of a stranger look's colours (drawn again, or left as it was).
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
    TOKEN_COLOURS,
    BoardStyle,
    TileLook,
    _jitter_colour,
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
# look_alikes: the chance that a set's back takes a board square's colour, and that a token
# colour takes a set's face colour; the board colour a back takes (plain squares are most).
P_ALIKE_BACK = 0.6
P_ALIKE_TOKEN = 0.6
ALIKE_SQUARES = (("square", 0.4), ("dl", 0.15), ("tl", 0.15), ("dw", 0.15), ("tw", 0.15))
TRIES = 20


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


def _held() -> list[RGB]:
    return [c for lk in STRANGER_LOOKS.values() for c in (lk.body, lk.back)]


def _alike_back(rng: np.random.Generator, look: TileLook, style: BoardStyle) -> TileLook:
    """``look`` with its back one of the board's square colours, moved a little; unchanged when
    every try is near a stranger's colour or the set's own face (a back differs from its face)."""
    names = [n for n, _ in ALIKE_SQUARES]
    weights = np.array([w for _, w in ALIKE_SQUARES])
    square = getattr(style, names[int(rng.choice(len(names), p=weights / weights.sum()))])
    for _ in range(TRIES):
        back = _jitter_colour(rng, square, 0.06)
        if _far(back, _held()) and float(np.linalg.norm(np.subtract(back, look.body))) > 70:
            return replace(look, back=back)
    return look


def _alike_token(rng: np.random.Generator, looks: dict[str, TileLook]) -> tuple[RGB, RGB] | None:
    """A token's (body, rim) near a set's face colour, its rim hardly apart; None when every
    try is near a stranger's colour."""
    look = looks[list(looks)[int(rng.integers(len(looks)))]]
    for _ in range(TRIES):
        body = _jitter_colour(rng, look.body, 0.08)
        rim = tuple(int(v) for v in np.clip(np.multiply(body, rng.uniform(0.85, 1.08)), 0, 255))
        if _far(body, _held()) and _far(rim, _held()):  # type: ignore[arg-type]
            return body, rim  # type: ignore[return-value]
    return None


def _training_fonts(wide: bool) -> list[int]:
    """The fonts a training scene draws (numbered as :func:`~companion.vision.glyphs.all_font_count`
    counts): the atlas's, and when ``wide`` the training-only families, never the held-out ones
    between them."""
    atlas = list(range(len(load_atlas().fonts)))
    if not wide:
        return atlas
    return atlas + [font_count() + i for i in range(len(load_atlas("glyphs_train").fonts))]


def training_scene(rng: np.random.Generator, wide_fonts: bool = False, look_alikes: bool = False) -> SceneSpec:
    """One table to learn from: see the module's doc for what it never draws. ``wide_fonts``:
    letters in the training-only families too (``make_squares.py --wide-fonts``);
    ``look_alikes``: backs of the board's colours and tokens of the faces' (the module's doc;
    more backs and tokens then, so that the look-alikes are not rare). Without either, the
    scene is the one these seeds always drew."""
    phone = bool(rng.random() < 0.5)
    grid = 15
    tileset = TILESETS[int(rng.integers(len(TILESETS)))]
    st = vary_style(board_style(("green", "classic", "band")[int(rng.integers(3))]), rng, 0.3)
    sets = ("s0",) if rng.random() < 0.6 else ("s0", "s1")
    looks = {n: _look(rng, n) for n in sets}
    content = random_content(
        rng, tileset, int(rng.integers(20, 110)), grid=grid, sets=sets,
        p_back=0.14 if look_alikes else 0.08, p_rotated=0.25, p_token=0.07 if look_alikes else 0.04,
        p_token_empty=0.03,
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
    tokens: dict[str, tuple[RGB, RGB]] = {}
    if look_alikes:
        looks = {n: _alike_back(rng, lk, st) if rng.random() < P_ALIKE_BACK else lk for n, lk in looks.items()}
        for name in sorted(TOKEN_COLOURS):
            alike = _alike_token(rng, looks) if rng.random() < P_ALIKE_TOKEN else None
            if alike is not None:
                tokens[name] = alike
    return SceneSpec(
        content=content, grid=grid, tileset=tileset, style=st, looks=looks,
        font=fonts[int(rng.integers(len(fonts)))], label_font=fonts[int(rng.integers(len(fonts)))],
        camera=phone_camera(rng) if phone else mounted_camera(rng), photo=photo,
        tile_offset=float(rng.uniform(0.0, 0.12)), tile_jitter_deg=float(rng.uniform(0.0, 5.0)),
        token_colours=tokens,
    )
