"""What a synthetic board photo shows: the scene specification the renderer draws.

A :class:`SceneSpec` says everything that is *chosen* about a photo: what lies on which square,
the board's edition and colours, the tile sets' looks, the camera, the light and the lens, a
hand. :func:`companion.sim.render.render` turns it and a seed into an image with its exact
truth; the seed only adds what nobody needs to choose (tile jitter, wood grain, clutter, noise).

Coordinates of ``content`` are the board's own, as printed: ``(row, col)`` with row 0 along
the board's top edge (for the banded edition, the band is on the left). The truth the renderer
returns follows the board-reading contract instead: row 0 is the edge nearest the top of the
*image*, so a camera turned by a quarter turn relabels the squares (``RenderedScene.quarter_turns``).

Colours are ``(r, g, b)`` 0..255 throughout, as the contract writes them.

Helpers draw random parts: :func:`random_content` (tiles laid in connected lines like a game),
:func:`vary_style` (a board's colours within its edition), and :func:`preset` (a whole scene:
``clean``, ``mounted`` or ``phone``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

import numpy as np

from companion.core.board import Board, layout_for_grid
from companion.core.tiles import BLANK, get_tileset
from companion.core.errors import CompanionError
from companion.vision.glyphs import all_font_count, font_count, load_atlas
from companion.vision.reading import ROTATIONS

RGB = tuple[int, int, int]
Coord = tuple[int, int]
Side = Literal["top", "right", "bottom", "left"]


class BadScene(CompanionError):
    """A scene specification the renderer cannot draw."""


# ---------------------------------------------------------------------------------------------
# What lies on a square


@dataclass(frozen=True)
class Square:
    """What lies on one square.

    ``kind``: ``tile`` (face up), ``back`` (face down) or ``empty`` (only useful with a token).
    ``letter``: for a face-up tile the letter as printed, or ``?`` for a blank (then neither
    glyph nor value is printed). ``rotation``: clockwise turn of the face from upright, seen
    from the board's bottom edge (0, 90, 180, 270); a blank's is drawn but not seen (its
    truth is 0). ``set``: the name of a :class:`TileLook` in the scene. ``token``: colour name
    of a token lying on the square (see ``TOKEN_COLOURS``): on a face-up tile it lies in the
    tile's own top-left corner (the companion's convention), elsewhere anywhere on the square.
    """

    kind: Literal["tile", "back", "empty"] = "tile"
    letter: str | None = None
    rotation: int = 0
    set: str = "ivory"
    token: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("tile", "back", "empty"):
            raise BadScene(f"square kind {self.kind!r} (tile, back or empty)")
        if self.kind == "tile" and not self.letter:
            raise BadScene("a face-up tile needs a letter (or ? for a blank)")
        if self.kind != "tile" and self.letter is not None:
            raise BadScene(f"a {self.kind} square shows no letter")
        if self.rotation not in ROTATIONS:
            raise BadScene(f"rotation {self.rotation} (0, 90, 180 or 270)")
        if self.token is not None and self.token not in TOKEN_COLOURS:
            raise BadScene(f"token colour {self.token!r} (known: {', '.join(TOKEN_COLOURS)})")

    @classmethod
    def tile(cls, letter: str, rotation: int = 0, set: str = "ivory", token: str | None = None) -> Square:
        return cls("tile", letter, rotation, set, token)

    @classmethod
    def back(cls, set: str = "ivory", token: str | None = None) -> Square:
        return cls("back", None, 0, set, token)

    @classmethod
    def token_only(cls, token: str = "red") -> Square:
        return cls("empty", None, 0, "ivory", token)


# Game tokens: (body, rim) colours. The rim is the disc's raised edge, darker or lighter.
TOKEN_COLOURS: Mapping[str, tuple[RGB, RGB]] = MappingProxyType(
    {
        "red": ((200, 30, 35), (120, 15, 20)),
        "black": ((35, 35, 38), (90, 90, 95)),
        "gold": ((215, 175, 60), (150, 110, 30)),
        "green": ((40, 150, 70), (20, 90, 40)),
        "white": ((235, 235, 230), (170, 170, 165)),
    }
)


# ---------------------------------------------------------------------------------------------
# Tile sets as they look


@dataclass(frozen=True)
class TileLook:
    """How the tiles of one physical set look. ``name`` is what the truth's ``set`` says.

    ``back`` is the colour of a face-down tile: it differs visibly from ``body`` so that a
    reader can tell a back from a blank, and from the faces and backs of the other looks, as
    the sets on one table do. ``wood`` adds grain to face and back.
    """

    name: str
    body: RGB
    back: RGB
    ink: RGB
    wood: bool = False
    size: float = 0.94  # edge length of the face, in squares (tiles nearly fill their squares)
    thickness: float = 0.22  # height above the board, in squares (4.5 mm on a 19 mm square)
    corner: float = 0.12  # corner radius, as a fraction of the edge
    letter_height: float = 0.47  # cap height of the letter, as a fraction of the edge (real tiles: 0.46-0.48)
    value_height: float = 0.15  # height of the value digits (real tiles: about 0.15)


TILE_LOOKS: Mapping[str, TileLook] = MappingProxyType(
    {
        # Backs differ from every face and back of the other sets as real sets' do (a slate
        # back for ivory: a tan one would be a wood face's colour).
        "ivory": TileLook("ivory", body=(232, 224, 200), back=(122, 120, 114), ink=(38, 44, 40)),
        "blue": TileLook("blue", body=(92, 142, 205), back=(40, 70, 130), ink=(245, 245, 240)),
        "pink": TileLook("pink", body=(236, 158, 178), back=(168, 80, 110), ink=(40, 30, 35)),
        "wood": TileLook("wood", body=(206, 166, 116), back=(140, 98, 60), ink=(25, 20, 15), wood=True),
    }
)


# ---------------------------------------------------------------------------------------------
# Board editions


@dataclass(frozen=True)
class BoardStyle:
    """A board edition's look. Lengths are in squares; ``margin`` is the board around the grid
    (top, right, bottom, left), ``frame`` a border of ``frame_colour`` at the board's outer edge
    (inside the margin). ``band`` puts a wide coloured band with a name along one side."""

    name: str
    square: RGB
    line: RGB
    dl: RGB
    tl: RGB
    dw: RGB
    tw: RGB
    line_width: float = 0.04
    margin: tuple[float, float, float, float] = (0.6, 0.6, 0.6, 0.6)
    margin_colour: RGB = (60, 140, 60)
    frame: float = 0.35
    frame_colour: RGB = (225, 228, 230)
    labels: bool = False  # premium names printed inside premium squares
    label_ink: RGB = (250, 250, 245)
    teeth: bool = False  # small notches of premium colour on the premium squares' sides
    star: RGB | None = None  # centre star colour, or None
    band: Side | None = None
    band_colour: RGB = (200, 30, 35)
    band_text: str = "SCRABBLE"
    band_ink: RGB = (250, 250, 250)
    thickness: float = 0.12  # the board's own thickness (its edge shows in oblique views)
    edge_colour: RGB = (90, 80, 70)


def green_style() -> BoardStyle:
    """The green board of scrabscrap's photos: green squares, thin grid lines, notched premium
    squares, a green margin and a light frame."""
    return BoardStyle(
        "green", square=(62, 124, 58), line=(14, 40, 14), dl=(70, 146, 204), tl=(44, 112, 172),
        dw=(214, 88, 90), tw=(172, 32, 44), line_width=0.032, margin=(0.55, 0.55, 0.55, 0.55),
        margin_colour=(62, 124, 58), frame=0.3, frame_colour=(214, 218, 224), teeth=True,
    )


def classic_style() -> BoardStyle:
    """The classic beige board: cream squares, light lines, premium names printed inside
    premium squares, a centre star, a brown margin with a dark red frame."""
    return BoardStyle(
        "classic", square=(214, 204, 174), line=(244, 240, 226), dl=(150, 196, 222), tl=(40, 110, 170),
        dw=(232, 160, 170), tw=(200, 40, 44), line_width=0.07, margin=(0.9, 0.9, 0.9, 0.9),
        margin_colour=(178, 156, 120), frame=0.25, frame_colour=(130, 30, 34), labels=True,
        label_ink=(30, 30, 30), star=(30, 30, 30), edge_colour=(70, 40, 30),
    )


def band_style() -> BoardStyle:
    """A red board with light squares whose grid is off-centre: a wide red band with the game's
    name along one side (like the Hasbro board in ../shared/photos)."""
    return BoardStyle(
        "band", square=(236, 234, 230), line=(200, 198, 196), dl=(150, 190, 225), tl=(50, 90, 160),
        dw=(236, 150, 60), tw=(200, 40, 40), line_width=0.05, margin=(0.4, 0.4, 0.4, 3.2),
        margin_colour=(205, 35, 38), frame=0.2, frame_colour=(30, 30, 30), labels=True,
        label_ink=(250, 250, 250), star=(30, 30, 30), band="left", band_colour=(205, 35, 38),
        edge_colour=(40, 20, 20),
    )


STYLES: Mapping[str, object] = MappingProxyType(
    {"green": green_style, "classic": classic_style, "band": band_style}
)


def board_style(name: str) -> BoardStyle:
    try:
        return STYLES[name]()  # type: ignore[operator]
    except KeyError:
        raise BadScene(f"unknown board style {name!r} (known: {', '.join(STYLES)})") from None


def _jitter_colour(rng: np.random.Generator, rgb: RGB, amount: float) -> RGB:
    """The same colour a little different: hue, saturation and brightness moved by up to
    ``amount`` of their range (in RGB space: a common brightness step plus a per-channel one)."""
    base = np.asarray(rgb, float)
    scale = 1.0 + rng.uniform(-amount, amount)
    shift = rng.uniform(-amount, amount, 3) * 60
    out = np.clip(base * scale + shift, 0, 255)
    return tuple(int(round(v)) for v in out)  # type: ignore[return-value]


def vary_style(style: BoardStyle, rng: np.random.Generator, amount: float = 0.12) -> BoardStyle:
    """The same edition with its colours and proportions moved a little, as another printing
    of it (or another camera's colour response) would show it."""

    def j(c: RGB) -> RGB:
        return _jitter_colour(rng, c, amount)

    return replace(
        style,
        square=j(style.square), line=j(style.line), dl=j(style.dl), tl=j(style.tl), dw=j(style.dw),
        tw=j(style.tw), margin_colour=j(style.margin_colour), frame_colour=j(style.frame_colour),
        band_colour=j(style.band_colour),
        line_width=style.line_width * rng.uniform(0.7, 1.3),
        margin=tuple(m * rng.uniform(0.8, 1.25) for m in style.margin),  # type: ignore[arg-type]
    )


def vary_look(look: TileLook, rng: np.random.Generator, amount: float = 0.06) -> TileLook:
    """A tile set's colours and proportions moved a little (another printing, another light)."""
    return replace(
        look,
        body=_jitter_colour(rng, look.body, amount),
        back=_jitter_colour(rng, look.back, amount),
        size=look.size * rng.uniform(0.96, 1.03),
        thickness=look.thickness * rng.uniform(0.8, 1.2),
        letter_height=look.letter_height * rng.uniform(0.9, 1.08),
    )


# ---------------------------------------------------------------------------------------------
# Camera, light, hand


@dataclass(frozen=True)
class Camera:
    """A pinhole camera looking at the board's centre.

    ``tilt_deg``: angle between the optical axis and the board's normal (0 = straight down).
    ``lean_deg``: where the camera stands: 0 = over the bottom edge looking up the board, 90 =
    over the left edge, ... (clockwise seen from above). ``roll_deg``: in-plane turn of the
    picture; positive turns the board clockwise in the image. ``fill``: the largest fraction of
    the image's width or height that the whole board (margin included) spans.
    ``focal``: focal length in units of the image's larger side (0.75 ~ a phone's 26 mm).
    ``shift``: moves the board's picture from the image's centre, as a fraction of the image
    size; the board stays inside the image whenever it fits (``fill`` <= 1).
    ``distortion``: radial lens distortion k (negative = barrel); 0 for none.
    """

    size: tuple[int, int] = (1504, 1504)  # width, height
    tilt_deg: float = 0.0
    lean_deg: float = 0.0
    roll_deg: float = 0.0
    fill: float = 0.96
    focal: float = 1.1
    shift: tuple[float, float] = (0.0, 0.0)
    distortion: float = 0.0

    def __post_init__(self) -> None:
        w, h = self.size
        if not (64 <= w <= 8192 and 64 <= h <= 8192):
            raise BadScene(f"image size {w}x{h} (64..8192 each)")
        if not 0 <= self.tilt_deg <= 60:
            raise BadScene(f"camera tilt {self.tilt_deg} deg (0..60)")
        if not 0.05 <= self.fill <= 1.5:
            raise BadScene(f"board fill {self.fill} (0.05..1.5)")
        if not 0.2 <= self.focal <= 10:
            raise BadScene(f"focal length {self.focal} (0.2..10 image sides)")
        if abs(self.distortion) > 0.3:
            raise BadScene(f"lens distortion {self.distortion} (-0.3..0.3)")


CLOTH_PATTERNS: tuple[str, ...] = ("checked", "striped", "patterned")


@dataclass(frozen=True)
class Photo:
    """Light, lens and sensor. Zero everywhere is a clean render.

    ``gradient``: strength of a smooth illumination falloff across the image (0..1).
    ``shadows``: number of soft shadows (a lamp's arm, a person) falling over the scene.
    ``glare``: number of specular spots. ``white_balance``: gains (r, g, b).
    ``blur``: defocus sigma in pixels; ``motion``: motion blur length in pixels.
    ``noise``: sensor noise sigma (0..255 scale). ``jpeg``: JPEG quality of a round trip, or None.
    ``clutter``: number of objects lying on the table around the board; ``table``: the
    table's look (``wood``, ``cloth``, ``plain``, or a printed cloth of :data:`CLOTH_PATTERNS`
    in ``table_colour`` on ``table_second``, its period ``table_period`` squares).
    ``lamps``: lamps' hot spots, broad patches of warm light (glare's spots are small).
    """

    gradient: float = 0.0
    shadows: int = 0
    glare: int = 0
    white_balance: tuple[float, float, float] = (1.0, 1.0, 1.0)
    blur: float = 0.0
    motion: float = 0.0
    noise: float = 0.0
    jpeg: int | None = None
    clutter: int = 0
    table: Literal["wood", "cloth", "plain", "checked", "striped", "patterned"] = "plain"
    table_colour: RGB = (120, 110, 100)
    table_second: RGB = (236, 234, 228)
    table_period: float = 1.0
    lamps: int = 0

    def __post_init__(self) -> None:
        if self.jpeg is not None and not 5 <= self.jpeg <= 100:
            raise BadScene(f"JPEG quality {self.jpeg} (5..100)")
        if self.table not in ("wood", "cloth", "plain", *CLOTH_PATTERNS):
            raise BadScene(f"table {self.table!r} (wood, cloth, plain, {', '.join(CLOTH_PATTERNS)})")
        if not 0.2 <= self.table_period <= 10 or not 0 <= self.lamps <= 4:
            raise BadScene(f"cloth period {self.table_period} squares (0.2..10), {self.lamps} lamps (0..4)")
        if min(self.white_balance) <= 0 or self.blur < 0 or self.motion < 0 or self.noise < 0:
            raise BadScene("white balance gains must be positive, blur, motion and noise >= 0")


SKIN_TONES: tuple[RGB, ...] = (
    (250, 222, 205), (236, 192, 160), (224, 172, 130), (198, 140, 100),
    (160, 105, 70), (120, 75, 50), (88, 55, 38), (60, 40, 30),
)
SLEEVE_COLOURS: tuple[RGB, ...] = (
    (30, 30, 35), (200, 30, 40), (40, 70, 150), (230, 230, 228), (90, 100, 60), (150, 150, 155),
    (240, 190, 40),
)


@dataclass(frozen=True)
class Hand:
    """A hand reaching over the board from outside the image.

    ``tip``: where the fingertips are, in the board's grid coordinates (squares: x along a row
    from the left edge of col 0, y down from the top edge of row 0). ``from_deg``: the direction
    the arm comes from, in the image: 0 = from the bottom edge, 90 = from the left, 180 = from
    the top, 270 = from the right. ``width``: the hand's width across the knuckles, in squares.
    ``height``: how high above the board the hand is, in squares (its shadow moves with it).
    ``holding``: a letter held between thumb and fingers (``?`` a blank), or None.
    """

    tip: tuple[float, float] = (7.5, 7.5)
    from_deg: float = 0.0
    skin: RGB = SKIN_TONES[2]
    sleeve: RGB = SLEEVE_COLOURS[0]
    sleeve_at: float = 1.6  # where the sleeve starts, in hand widths behind the wrist
    width: float = 4.5
    height: float = 3.0
    spread: float = 0.5  # how far the fingers are spread, 0..1
    holding: str | None = None


# ---------------------------------------------------------------------------------------------
# The scene


@dataclass(frozen=True)
class SceneSpec:
    """Everything chosen about one synthetic photo. See the module's doc for coordinates.

    ``looks``: the tile sets present, by name (defaults: :data:`TILE_LOOKS`); every square's
    ``set`` must name one. ``font``: index into the glyph atlas's fonts (0..12, the families the
    reader learns from; 13 on, the held-out families of :func:`~companion.vision.glyphs.font_count`;
    after them the training-only families of :func:`~companion.vision.glyphs.all_font_count`)
    for letters and values; premium labels use ``label_font``. ``token_colours``: how this
    scene's tokens of a name look (body, rim) where not as :data:`TOKEN_COLOURS` says (a
    training scene's tokens of a tile face's own colour, :mod:`companion.sim.trainscene`).
    """

    content: Mapping[Coord, Square] = field(default_factory=dict)
    grid: int = 15
    tileset: str = "en"
    style: BoardStyle = field(default_factory=green_style)
    looks: Mapping[str, TileLook] = field(default_factory=lambda: TILE_LOOKS)
    font: int = 0
    label_font: int = 3
    camera: Camera = field(default_factory=Camera)
    photo: Photo = field(default_factory=Photo)
    hand: Hand | None = None
    tile_offset: float = 0.06  # largest random shift of a tile from its square's centre, squares
    tile_jitter_deg: float = 3.0  # largest random in-plane turn of a tile
    token_colours: Mapping[str, tuple[RGB, RGB]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.grid not in (15, 21):
            raise BadScene(f"grid {self.grid} (15 or 21)")
        for name, value, kind in (("style", self.style, BoardStyle), ("camera", self.camera, Camera),
                                  ("photo", self.photo, Photo)):
            if not isinstance(value, kind):
                raise BadScene(f"{name} must be a {kind.__name__}, not {type(value).__name__}")
        if self.hand is not None and not isinstance(self.hand, Hand):
            raise BadScene(f"hand must be a Hand or None, not {type(self.hand).__name__}")
        for name, look in self.looks.items():
            if not isinstance(look, TileLook) or look.name != name:
                raise BadScene(f"tile look {name!r} must be a TileLook named {name!r}")
        object.__setattr__(self, "content", MappingProxyType(dict(self.content)))
        object.__setattr__(self, "token_colours", MappingProxyType(dict(self.token_colours)))
        for name in self.token_colours:
            if name not in TOKEN_COLOURS:
                raise BadScene(f"token colour {name!r} (known: {', '.join(TOKEN_COLOURS)})")
        tiles = get_tileset(self.tileset)
        for (r, c), sq in self.content.items():
            if not (0 <= r < self.grid and 0 <= c < self.grid):
                raise BadScene(f"square ({r}, {c}) is off a {self.grid}x{self.grid} grid")
            if not isinstance(sq, Square):
                raise BadScene(f"square ({r}, {c}) holds {sq!r}, not a Square")
            if sq.kind != "empty" and sq.set not in self.looks:
                raise BadScene(f"square ({r}, {c}): tile set look {sq.set!r} is not in the scene")
            if sq.kind == "tile" and sq.letter != BLANK and sq.letter not in tiles.alphabet:
                raise BadScene(f"square ({r}, {c}): {sq.letter!r} is not a letter of tile set {self.tileset!r}")
        fonts = all_font_count()
        if not 0 <= self.font < fonts or not 0 <= self.label_font < fonts:
            raise BadScene(f"font {self.font} / label font {self.label_font} (0..{fonts - 1})")
        if not 0 <= self.tile_offset <= 0.3 or not 0 <= self.tile_jitter_deg <= 20:
            raise BadScene("tile offset 0..0.3 squares and jitter 0..20 degrees")


# ---------------------------------------------------------------------------------------------
# Random parts


def random_content(
    rng: np.random.Generator,
    tileset: str = "en",
    n_tiles: int = 40,
    *,
    grid: int = 15,
    p_back: float = 0.0,
    p_rotated: float = 0.0,
    sets: tuple[str, ...] = ("ivory",),
    p_token: float = 0.0,
    p_token_empty: float = 0.0,
    tokens: tuple[str, ...] = ("red", "black", "gold"),
    max_word: int = 8,
) -> dict[Coord, Square]:
    """Tiles laid like a game: a first word through the centre, then words in lines that cross
    or extend what lies there, letters drawn from the tile set's bag (blanks face up as ``?``).

    Each word belongs to one of ``sets`` (players own sets in some games). A tile is face down
    with ``p_back``, turned by a random quarter turn with ``p_rotated``; a token lies on a tile
    with ``p_token`` and on an empty square next to the tiles with ``p_token_empty``.
    """
    if not 0 <= n_tiles <= grid * grid:
        raise BadScene(f"{n_tiles} tiles on a {grid}x{grid} grid")
    ts = get_tileset(tileset)
    layout = layout_for_grid(grid)
    bag: list[str] = []

    def draw() -> str:
        if not bag:
            bag.extend(sorted(ts.bag().elements()))
            rng.shuffle(bag)  # type: ignore[arg-type]
        return bag.pop()

    placed: dict[Coord, Square] = {}
    centre = layout.centre

    def word_cells(start: Coord, d: Coord, n: int) -> list[Coord]:
        return [(start[0] + d[0] * i, start[1] + d[1] * i) for i in range(n)]

    def ok(cells: list[Coord], d: Coord, relaxed: bool) -> bool:
        if any(not (0 <= r < grid and 0 <= c < grid) for r, c in cells):
            return False
        new = [p for p in cells if p not in placed]
        if not new:
            return False
        if relaxed:
            return True
        # Like a real play: new tiles do not touch tiles beside the line (which would form words
        # nobody plays), and the line does not run on into tiles before or after it.
        perp = (d[1], d[0])
        for r, c in new:
            for s in (1, -1):
                if (r + perp[0] * s, c + perp[1] * s) in placed:
                    return False
        before = (cells[0][0] - d[0], cells[0][1] - d[1])
        after = (cells[-1][0] + d[0], cells[-1][1] + d[1])
        return before not in placed and after not in placed

    def lay(cells: list[Coord]) -> None:
        s = sets[int(rng.integers(len(sets)))]
        for p in cells:
            if p in placed or len(placed) >= n_tiles:
                continue
            letter = draw()
            rot = int(rng.choice((90, 180, 270))) if rng.random() < p_rotated else 0
            if rng.random() < p_back:
                placed[p] = Square.back(set=s)
            else:
                placed[p] = Square.tile(letter, rotation=rot, set=s)

    if n_tiles:
        d = (0, 1) if rng.random() < 0.5 else (1, 0)
        n = int(rng.integers(2, min(max_word, grid) + 1))
        k = int(rng.integers(n))
        lay(word_cells((centre[0] - d[0] * k, centre[1] - d[1] * k), d, n))
    failures = 0
    while len(placed) < n_tiles:
        anchor = list(placed)[int(rng.integers(len(placed)))]
        d = (0, 1) if rng.random() < 0.5 else (1, 0)
        n = int(rng.integers(2, min(max_word, grid) + 1))
        k = int(rng.integers(n))
        cells = word_cells((anchor[0] - d[0] * k, anchor[1] - d[1] * k), d, n)
        if ok(cells, d, relaxed=failures > 400):
            lay(cells)
            failures = 0
        else:
            failures += 1
    if p_token or p_token_empty:
        for p in sorted(placed):
            if rng.random() < p_token:
                placed[p] = replace(placed[p], token=str(rng.choice(tokens)))
        near = sorted(
            {(r + dr, c + dc) for r, c in placed for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))}
            - set(placed)
        )
        for r, c in near:
            if 0 <= r < grid and 0 <= c < grid and rng.random() < p_token_empty:
                placed[(r, c)] = Square.token_only(str(rng.choice(tokens)))
    return placed


def content_from_board(board: Board, default_set: str = "ivory") -> dict[Coord, Square]:
    """What a game's board shows the camera: every tile face up with its letter, a blank as
    ``?`` (a blank's named letter is not printed), its rotation, and its set (``default_set``
    when the tile names none). For rendering a real game's positions move by move."""
    out: dict[Coord, Square] = {}
    for coord, tile in board.items():
        out[coord] = Square.tile(BLANK if tile.blank else tile.letter, rotation=tile.rotation,
                                 set=tile.set or default_set)
    return out


def random_hand(rng: np.random.Generator, grid: int = 15, *, holding: str | None = None) -> Hand:
    """A hand reaching somewhere over the board from a random side, any skin tone and sleeve."""
    return Hand(
        tip=(float(rng.uniform(1, grid - 1)), float(rng.uniform(1, grid - 1))),
        from_deg=float(rng.uniform(0, 360)),
        skin=SKIN_TONES[int(rng.integers(len(SKIN_TONES)))],
        sleeve=SLEEVE_COLOURS[int(rng.integers(len(SLEEVE_COLOURS)))],
        sleeve_at=float(rng.uniform(0.8, 3.0)),
        width=float(rng.uniform(3.8, 5.2)),
        height=float(rng.uniform(1.5, 5.0)),
        spread=float(rng.uniform(0, 1)),
        holding=holding,
    )


def mounted_camera(rng: np.random.Generator, size: tuple[int, int] = (1504, 1504)) -> Camera:
    """A camera fixed above the board: nearly straight down, the board filling the image."""
    return Camera(
        size=size, tilt_deg=float(rng.uniform(0, 4)), lean_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(-3, 3)), fill=float(rng.uniform(0.9, 1.0)), focal=float(rng.uniform(0.9, 1.4)),
        shift=(float(rng.uniform(-0.02, 0.02)), float(rng.uniform(-0.02, 0.02))),
        distortion=float(rng.uniform(-0.04, 0.01)),
    )


def phone_camera(rng: np.random.Generator, size: tuple[int, int] | None = None) -> Camera:
    """A phone held over the table: oblique, turned any way, the board smaller in the frame."""
    if size is None:
        size = ((1504, 1504), (1504, 1128), (1128, 1504))[int(rng.integers(3))]
    return Camera(
        size=size, tilt_deg=float(rng.uniform(8, 40)), lean_deg=float(rng.uniform(-30, 30)),
        roll_deg=float(rng.uniform(0, 360)), fill=float(rng.uniform(0.72, 0.97)), focal=float(rng.uniform(0.7, 0.95)),
        shift=(float(rng.uniform(-0.05, 0.05)), float(rng.uniform(-0.05, 0.05))),
        distortion=float(rng.uniform(-0.06, 0.02)),
    )


def table_colour(rng: np.random.Generator) -> RGB:
    """A table's colour: mostly woods and greys, sometimes a bright cloth."""
    woods = ((150, 105, 65), (190, 150, 105), (110, 75, 45), (215, 190, 150), (90, 60, 40))
    greys = ((200, 200, 198), (128, 128, 130), (60, 60, 62), (235, 232, 225))
    u = rng.random()
    if u < 0.5:
        base = woods[int(rng.integers(len(woods)))]
    elif u < 0.8:
        base = greys[int(rng.integers(len(greys)))]
    else:
        base = tuple(int(v) for v in rng.integers(30, 230, 3))
    return _jitter_colour(rng, base, 0.1)  # type: ignore[arg-type]


def mounted_photo(rng: np.random.Generator) -> Photo:
    """Indoor light under a fixed camera: mild gradients, soft noise, a good JPEG."""
    return Photo(
        gradient=float(rng.uniform(0.05, 0.3)), shadows=int(rng.integers(0, 2)), glare=int(rng.integers(0, 2)),
        white_balance=tuple(float(g) for g in rng.uniform(0.9, 1.1, 3)),  # type: ignore[arg-type]
        blur=float(rng.uniform(0, 1.0)), motion=0.0, noise=float(rng.uniform(1, 4)),
        jpeg=int(rng.integers(80, 96)), clutter=int(rng.integers(0, 3)),
        table=("wood", "cloth", "plain")[int(rng.integers(3))], table_colour=table_colour(rng),
    )


def phone_photo(rng: np.random.Generator) -> Photo:
    """A phone photo: uneven light, shadows, glare, a little shake, clutter on the table."""
    return Photo(
        gradient=float(rng.uniform(0.1, 0.5)), shadows=int(rng.integers(0, 3)), glare=int(rng.integers(0, 4)),
        white_balance=tuple(float(g) for g in rng.uniform(0.82, 1.18, 3)),  # type: ignore[arg-type]
        # Blurred, but never past what a person reads at a glance: the benchmark measures readers
        # on these photos, so a letter must stay legible.
        blur=float(rng.uniform(0, 1.4)), motion=float(rng.choice([0.0, rng.uniform(1.5, 5)])),
        noise=float(rng.uniform(2, 6)), jpeg=int(rng.integers(65, 95)), clutter=int(rng.integers(2, 8)),
        table=("wood", "cloth", "plain")[int(rng.integers(3))], table_colour=table_colour(rng),
    )


# A stranger's tiles: colours none of the project's own sets has (TILE_LOOKS), each back
# apart from its face.
STRANGER_LOOKS: Mapping[str, TileLook] = MappingProxyType(
    {
        "white": TileLook("white", body=(246, 246, 242), back=(196, 62, 60), ink=(22, 22, 24)),
        "yellow": TileLook("yellow", body=(236, 204, 80), back=(60, 92, 150), ink=(30, 28, 24)),
        "black": TileLook("black", body=(40, 40, 44), back=(150, 150, 154), ink=(242, 242, 236)),
        "green": TileLook("green", body=(86, 162, 104), back=(34, 74, 48), ink=(250, 250, 244)),
        "red": TileLook("red", body=(190, 48, 46), back=(236, 220, 170), ink=(250, 248, 240)),
    }
)
CLOTH_COLOURS: tuple[RGB, ...] = ((200, 40, 46), (44, 140, 64), (44, 84, 184))  # red, green, blue


def stranger_photo(rng: np.random.Generator, phone: bool) -> Photo:
    """A stranger's table: a checked (red, green or blue), striped, patterned cloth or wood,
    lamps' hot spots, and the light, lens and sensor of a phone or of an overhead camera."""
    base = phone_photo(rng) if phone else mounted_photo(rng)
    table = ("checked", "checked", "striped", "patterned", "wood")[int(rng.integers(5))]
    colour = CLOTH_COLOURS[int(rng.integers(len(CLOTH_COLOURS)))]
    if table == "wood":
        colour = table_colour(rng)
    return replace(
        base, table=table, table_colour=_jitter_colour(rng, colour, 0.1),
        table_second=_jitter_colour(rng, (238, 236, 230), 0.05),
        table_period=float(rng.uniform(0.5, 2.5)), lamps=int(rng.choice((0, 1, 1, 2))),
    )


def stranger(rng: np.random.Generator, *, phone: bool | None = None, grid: int = 15, tileset: str = "en") -> SceneSpec:
    """A scene of a table the reader has never seen: tiles of :data:`STRANGER_LOOKS` (one set
    or two, some face down, a few turned), letters in a held-out font family, the board's
    colours moved further than another printing moves them, on :func:`stranger_photo`'s
    table; seen from overhead or (``phone``; random when None) by a phone."""
    if phone is None:
        phone = bool(rng.random() < 0.5)
    st = vary_style(board_style(("green", "classic", "band")[int(rng.integers(3))]), rng, 0.2)
    names = list(STRANGER_LOOKS)
    first = names[int(rng.integers(len(names)))]
    sets = (first,)
    if rng.random() < 0.4:
        sets = (first, [n for n in names if n != first][int(rng.integers(len(names) - 1))])
    looks = {n: vary_look(STRANGER_LOOKS[n], rng) for n in sets}
    content = random_content(
        rng, tileset, int(rng.integers(5, 70 if grid == 15 else 120)), grid=grid, sets=sets,
        p_back=0.05, p_rotated=0.1, p_token=0.03, p_token_empty=0.02,
    )
    atlas = len(load_atlas().fonts)
    return SceneSpec(
        content=content, grid=grid, tileset=tileset, style=st, looks=looks,
        font=atlas + int(rng.integers(font_count() - atlas)), label_font=int(rng.integers(font_count())),
        camera=phone_camera(rng) if phone else mounted_camera(rng), photo=stranger_photo(rng, phone),
        tile_offset=float(rng.uniform(0.02, 0.1)), tile_jitter_deg=float(rng.uniform(0.5, 4.0)),
    )


PRESETS: tuple[str, ...] = ("clean", "mounted", "phone")


def preset(
    name: str,
    rng: np.random.Generator,
    content: Mapping[Coord, Square] | None = None,
    *,
    grid: int = 15,
    tileset: str = "en",
    style: str | BoardStyle | None = None,
    n_tiles: int | None = None,
    features: bool = False,
    hand: bool = False,
) -> SceneSpec:
    """A whole scene drawn at random, of one kind:

    - ``clean``: the board straight from above, flat light, no noise, classic ivory tiles
      upright (content as given or random) — for geometry tests.
    - ``mounted``: a camera fixed above the board (like scrabscrap's photos).
    - ``phone``: an oblique photo, turned any way, on a cluttered table.

    ``style`` a name or a style (varied colours for ``mounted`` and ``phone``; random when None).
    ``features``: the random content uses every feature (backs, rotations, two sets, tokens);
    ``hand``: a hand reaches over the board.
    """
    if name not in PRESETS:
        raise BadScene(f"unknown preset {name!r} (known: {', '.join(PRESETS)})")
    if style is None:
        style = ("green", "classic", "band")[int(rng.integers(3))] if name != "clean" else "green"
    st = board_style(style) if isinstance(style, str) else style
    looks = dict(TILE_LOOKS)
    if name != "clean":
        st = vary_style(st, rng)
        looks = {k: vary_look(v, rng) for k, v in looks.items()}
    sets: tuple[str, ...] = ("ivory",)
    if features:
        second = ("blue", "pink", "wood")[int(rng.integers(3))]
        sets = ("ivory", second) if rng.random() < 0.7 else ("wood", "ivory")
    elif name != "clean" and rng.random() < 0.25:
        sets = ("wood",)
    if content is None:
        n = n_tiles if n_tiles is not None else int(rng.integers(5, 70 if grid == 15 else 120))
        content = random_content(
            rng, tileset, n, grid=grid, sets=sets,
            p_back=0.08 if features else 0.0, p_rotated=0.25 if features else 0.0,
            p_token=0.05 if features else 0.0, p_token_empty=0.03 if features else 0.0,
        )
    if name == "clean":
        camera, photo = Camera(), Photo()
    elif name == "mounted":
        camera, photo = mounted_camera(rng), mounted_photo(rng)
    else:
        camera, photo = phone_camera(rng), phone_photo(rng)
    return SceneSpec(
        content=content, grid=grid, tileset=tileset, style=st, looks=looks,
        font=int(rng.integers(13)) if name != "clean" else 0, label_font=int(rng.integers(13)),
        camera=camera, photo=photo,
        hand=random_hand(rng, grid) if hand else None,
        tile_offset=0.0 if name == "clean" else float(rng.uniform(0.02, 0.1)),
        tile_jitter_deg=0.0 if name == "clean" else float(rng.uniform(0.5, 4.0)),
    )
