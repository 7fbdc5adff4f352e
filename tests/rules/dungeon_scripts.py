"""Two whole dungeon games as scripts: what the player's hands do and what the rules must say.

One script, two drivers: tests/rules/test_dungeon_games.py plays them on hand-built readings
(the rules alone), tests/table/test_dungeon_photos.py on rendered photos through the table loop
(reader, stabiliser, session, game log). A step is either the player's hands on the board
(:class:`Lay`, :class:`TurnUp`, :class:`Replace`), a press of the button (:class:`Press`, with
what the rules must answer), or the rack told on the page (:class:`Refill`, :class:`Burn`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from companion.core.board import Coord
from companion.core.tiles import get_tileset
from companion.engine.dawg import build
from companion.engine.movegen import Generator
from companion.rules.dungeon import (
    BURNED,
    DEAD,
    ESCAPED,
    FIXED,
    MONSTER,
    PLAYED,
    REFILLED,
    REFUSED,
    REVEALED,
    TREASURE,
    Setup,
    edge_wall_squares,
)
from tests.rules.dungeon_table import PhysicalBoard, one, setup_of, wall

# The word list both games are judged by (small: the games' words and their incidental words).
WORDS = frozenset(
    "CAT CATS CAB CAD CAN TOO OX TO AT ACT TOE THE HE EAT TEA ZA QI AX XI "
    "LANTERN NOTABLE ESCAPE EMBRACE EAST TAB BAT CAR ARC".split()
)


def generator():
    """The move generator of WORDS (the trapped check's)."""
    ts = get_tileset("en")
    return Generator(build(WORDS, ts.alphabetical()), ts)


def edges():
    return [wall(*squares, orientation=o) for o, squares in edge_wall_squares()]


@dataclass(frozen=True)
class Lay:
    """Tiles put down along a line (``.`` keeps what lies there)."""

    start: Coord
    word: str
    across: bool = True


@dataclass(frozen=True)
class TurnUp:
    square: Coord


@dataclass(frozen=True)
class Replace:
    """The tile on ``square`` (``was``) taken to the rack, ``letter`` put in its place, token off."""

    square: Coord
    letter: str
    was: str


@dataclass(frozen=True)
class Press:
    """The button pressed: the verdicts' kinds, the first one's points, the score after, and
    (when given) the words, a piece of each verdict's message, the rack after."""

    kinds: tuple[str, ...]
    points: int | None = None
    score: int | None = None
    words: tuple[str, ...] | None = None
    says: tuple[str, ...] = ()
    rack: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Refill:
    drawn: str
    points: int
    kind: str = REFILLED


@dataclass(frozen=True)
class Burn:
    drawn: str
    points: int
    kind: str = BURNED


Step = Lay | TurnUp | Replace | Press | Refill | Burn


@dataclass(frozen=True)
class Script:
    name: str
    setup: Setup
    letters: dict[Coord, str]  # every obstacle square's tile
    rack: str
    steps: tuple[Step, ...]
    result: str
    score: int
    notes: dict[str, str] = field(default_factory=dict)

    def board(self) -> PhysicalBoard:
        return PhysicalBoard.laid_out(self.setup, self.letters)


def do(board: PhysicalBoard, step: Step) -> None:
    """A step of the player's hands on ``board``."""
    if isinstance(step, Lay):
        board.place(step.start, step.word, step.across)
    elif isinstance(step, TurnUp):
        board.turn_up(step.square)
    elif isinstance(step, Replace):
        assert board.replace(step.square, step.letter) == step.was
    else:  # pragma: no cover - the drivers handle presses and the page's actions
        raise TypeError(step)


def _letters(setup: Setup, named: dict[Coord, str]) -> dict[Coord, str]:
    letters = {s: "E" for o in setup.obstacles for s in o.squares}
    letters.update(named)
    return letters


def escape() -> Script:
    far_wall = wall((10, 2), (10, 3), (10, 4))
    setup = setup_of(one(TREASURE, (3, 6)), one(FIXED, (6, 8)), one(MONSTER, (8, 11)), far_wall, *edges())
    letters = _letters(setup, {(3, 6): "Q", (6, 8): "C", (8, 11): "A", (10, 2): "Z", (10, 3): "E", (10, 4): "D"})
    steps: tuple[Step, ...] = (
        Lay((0, 0), "LANTERN"),  # the first word, from the top-left corner
        Press((PLAYED,), 7, 7, ("LANTERN",)),
        Refill("OTABLEX", 0),  # nothing held: a free refill
        # NOTABLE down from the N, taking the treasure Q on the way (A in its place), and the
        # reveal earned at once: the far wall turned over.
        Lay((1, 6), "OT", across=False),
        Replace((3, 6), "A", "Q"),
        Lay((4, 6), "BLE", across=False),
        *(TurnUp(s) for s in far_wall.squares),
        Press((PLAYED, REVEALED), 1 + 1 + 1 + 3 + 1 + 1 + 10, 25, ("NOTABLE",), rack=("Q", "X")),
        Refill("ESAPE", -2),  # two tiles held
        Lay((6, 7), "S.APE"),  # ESCAPE through the fixed C
        Press((PLAYED,), 6, 29, ("ESCAPE",)),
        Burn("ABCEEMR", -38),  # E Q X burnt: twice 19
        # EMBRACE down from the E: the M laid and the monster turned over; the press shows it to
        # the camera (the move waits for the tile), then the B in its place (B 3 defeats A 1),
        # and R A C E below.
        Lay((7, 11), "M"),
        TurnUp((8, 11)),
        Press((REFUSED,), 0, -9, says=("The monster on L9 is face up: put your tile in its place",)),
        Replace((8, 11), "B", "A"),
        Lay((9, 11), "RACE", across=False),
        Press((PLAYED, PLAYED), 3 + 3 + 1 + 1 + 3 + 1 + 10, 13, ("EMBRACE",),
              says=("EMBRACE 22 (monster A +10)", "Defeated the monster on L9 (an A): +10"), rack=("A", "E")),
        Refill("STOZJ", -2),
        Lay((12, 12), "AST"),  # EAST
        Press((PLAYED,), 3, 14, ("EAST",)),
        Lay((13, 14), "OE", across=False),  # TOE, onto the bottom-right corner
        Press((PLAYED, ESCAPED), 2, 16, ("TOE",), says=("", "escaped Jziqx's dungeon with 16 points")),
    )
    return Script("escape", setup, letters, "LANTERN", steps, ESCAPED, 16)


def death_by_monster() -> Script:
    setup = setup_of(one(MONSTER, (0, 3)), one(FIXED, (4, 4)), *edges())
    letters = _letters(setup, {(0, 3): "K", (4, 4): "O"})
    steps: tuple[Step, ...] = (
        Lay((0, 0), "CAT"),
        Press((PLAYED,), 5, 5, ("CAT",)),
        Refill("DOG", -4),  # four held
        # CATS: the S against the monster beside the T. Turned over, it is a K (5): the S (1) loses.
        TurnUp((0, 3)),
        Press((REFUSED,), 0, 1, says=("The monster on D1 is face up",)),
        Replace((0, 3), "S", "K"),
        Press((DEAD,), 0, 1, says=(
            "The monster on D1 was a K: your S neither defeats nor tames it. You are dead, with 1 point.",)),
    )
    return Script("death by monster", setup, letters, "CATSEEE", steps, DEAD, 1)


SCRIPTS = (escape, death_by_monster)
