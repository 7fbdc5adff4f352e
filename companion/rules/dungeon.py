"""The solo dungeon (rules/000_980bb427dc98b7a3.txt): escape Jziqx's dungeon with a bag of tiles.

Three parts, all pure:

- **Set-up** (:func:`roll_setup`): the dice place the objects (walls, treasure, monsters, fixed
  letters), then the four edge walls are added. :func:`expected_view` says what the camera must
  see on every square and :func:`check_setup` lists every square of a reading that differs.
- **Play** (:func:`new_game`, :func:`apply`): the game is a value (:class:`DungeonState`); a move
  is a board reading taken when the player presses the button (:class:`Move`); refilling and
  burning the rack are actions of their own. Every verdict says what happened in one line.
- **End** (:attr:`DungeonState.result`): escaped, dead, extra dead or trapped.

Decisions where the rules text is silent or unclear, as a player at the table would expect:

Set-up

- **Counting.** Objects are rolled until the count reaches the number asked (18 by default); a
  wall counts as three, so the last wall may take the count past it (17 placed, a wall: 20).
- **Occupied squares.** An object whose rolled square already holds a tile is rolled again: the
  roll is recorded and does not count. A wall whose centre is free but which meets an occupied
  square ("If a square is already occupied, place a fixed letter instead of the wall") is
  replaced by one fixed letter on its centre, and counts as one object. (A wall cannot run off
  the board: centres are 2 to 12.)
- **Edge walls** run three squares in from the centre of each edge (the triple-word squares not
  in a corner): top and bottom ones are vertical, left and right ones horizontal. They are added
  last and count as no object; a square an object already covers is left as it is (the wall is
  shorter there).
- **Blanks.** A blank drawn for a face-up object (a fixed letter or a treasure) has no letter to
  show: :func:`check_setup` asks for it to go back into the bag and another tile to be drawn.

Placement

- A square holds a *letter* (a tile face up: played, a fixed letter, a treasure, a revealed
  wall or monster) or a *back* (a wall or a monster, face down). Words are runs of letters only:
  a back ends a word as the board's edge does. No tile may be put on a back or on a letter.
- **The network** is every letter connected (square to square, across and down) to the top-left
  corner, where the first word begins. A move must place a tile next to the network (or replace
  a treasure or a monster in it). Any group of letters a move touches joins it, and at the end of
  every move every run of two or more letters in the network must be a word. Letters not joined
  ("obstacles you have not yet reached") need not form words.
- **Scores** are the face values of the tiles placed (a blank 0), including a tile that takes
  a treasure's or a monster's place. Letters already on the board score nothing. No premiums.
- **Refill** is allowed at any time, never automatic: it draws to seven (or as many as the bag
  holds) and costs one point per tile held before. **Burn** needs seven tiles in the bag: the
  whole rack is set aside for the rest of the game (burnt, not returned to the bag) and costs
  twice its value.

Treasure, monsters and the reveal bonus

- **A treasure** (face up, token) is taken by putting a rack tile in its place, on the line of
  the move; the token comes off, the treasure tile goes to the rack; +10 and the face value of
  the tile put there. Playing through a treasure's letter without replacing it is allowed and
  takes nothing (its token stays); touching it only makes its words subject to the network rule.
- **A monster** (face down, token) is fought by turning it over and putting the attacking tile in
  its place on the line of the move, monster tile to the rack, token off. The companion must know
  the monster's letter: from any reading in which it lay face up (:func:`remember_monsters`, or
  the move's own reading while the token is still on, in which case the move waits for the tile)
  or from :attr:`Move.monsters` (the page asks when it cannot see it). A letter worth more than the
  monster's defeats it; exactly the same letter tames it (a blank never tames a letter, only a
  blank monster); otherwise the player is **dead**. A move whose main word is not a word is
  refused before any fight (no word is formed, so the monster is not incorporated); once the main
  word stands the fight is decided, and when a won fight leaves any other run of the network that
  is not a word the player is **extra dead**. A fatal move scores nothing. A won fight scores ten
  times the monster's value (a blank monster: 0).
- **Reveal bonus**: each treasure taken and each monster defeated or tamed earns one reveal: turn
  over every tile of one wall (an edge wall included) or one monster (its token off), which become
  fixed letters. Reveals are banked: they may be used in the move that earns them or any later
  one, alone or with a move. A monster turned face up with its token off counts as fought when it
  lies on the line of the move's tiles (or when no tile was placed and no reveal is banked),
  otherwise as a reveal. Revealed letters touching the network join it; a reveal that would leave
  a run that is not a word is refused (turn it back and choose another).

End

- **Escape**: a legal move that covers the bottom-right corner wins, whatever else it does.
- **Trapped**: with the rack known, after every action: no tile can be drawn (the bag is empty or
  the rack full) and no burn is possible (fewer than seven in the bag), and no legal placement
  exists with the rack (:func:`placement_possible`). A word through a monster counts as a
  possible placement: a brave player may still fight.
- **Blanks** on the board are read as ``?``: their letter comes from :attr:`Move.blanks` (the page
  asks); a blank revealed from a wall or a monster is named the same way.

Why the move generator alone cannot answer "no placement possible": its board has no squares
that are blocked (walls and monsters), it starts the game at the centre, it takes any tile as a
neighbour (the dungeon asks for the network) and it checks only the words through the tiles laid
(the dungeon checks whole groups it joins), and it never replaces a tile (treasure, monsters).
But every legal dungeon placement is a legal placement of the generator on the board of every
face-up letter (backs as empty squares form the same words), so :func:`placement_possible` takes
the generator's moves (:meth:`Generator.has_move` first, to stop early when there are none), a
second pass per treasure with the treasure's square emptied, and the first word from a layout
whose "centre" is the top-left corner, and keeps only those this module's own check accepts.

What the module does not do: the rack zone beside the board and the rack entered on the page are
the table's and the page's (a rack given here as letters is all this module needs); the table
loop, the log and the photos are not here.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Container, Iterable, Mapping, Sequence

from companion.clock.dice import Placement as DicePlacement
from companion.clock.dice import check_count, dice_rng, placement
from companion.core.board import STANDARD, Board, Coord, Direction, Layout, Tile
from companion.core.move import PlacedTile, Placement, format_square
from companion.core.tiles import BLANK, TileSet, get_tileset
from companion.core.words import placement_direction, words_formed
from companion.core.errors import CompanionError
from companion.rules.common import NOT_CONNECTED, NOT_IN_LINE, NO_TILES, ONE_WORD_ONLY, TOO_SHORT, has_gap, not_in_dictionary

SIZE = 15
RACK_SIZE = 7
DEFAULT_OBJECTS = 18
MAX_OBJECTS = 60
CORNER: Coord = (0, 0)
ESCAPE: Coord = (SIZE - 1, SIZE - 1)
TREASURE_POINTS = 10
MONSTER_FACTOR = 10
WALL_LENGTH = 3
_MAX_ROLLS = 10_000

WALL, TREASURE, MONSTER, FIXED = "wall", "treasure", "monster", "fixed letter"

FIRST_WORD_AT_CORNER = "Your first word must begin at the top left corner"


# ---------------------------------------------------------------------------------------------
# Set-up


@dataclass(frozen=True)
class Roll:
    """One object's dice: where they put it, what the obstacle die said, what came of it."""

    dice: tuple[tuple[int, ...], ...]  # every roll, in order (column and row pairs, then the kind)
    row: int
    column: int
    die: int
    rolled: str  # the die's kind: vertical wall, horizontal wall, treasure, monster, fixed letter
    outcome: str  # placed | "a fixed letter instead" | "occupied, rolled again"

    def to_json(self) -> dict[str, Any]:
        return {
            "dice": [list(d) for d in self.dice],
            "column": self.column,
            "row": self.row,
            "die": self.die,
            "rolled": self.rolled,
            "outcome": self.outcome,
        }


@dataclass(frozen=True)
class Obstacle:
    kind: str  # wall, treasure, monster, fixed letter
    squares: tuple[Coord, ...]
    orientation: str | None = None  # vertical or horizontal, for walls
    roll: int | None = None  # index into Setup.rolls; None for an edge wall
    counts: int = 1  # objects it counts as (an edge wall: 0)

    @property
    def face_up(self) -> bool:
        return self.kind in (TREASURE, FIXED)

    @property
    def token(self) -> bool:
        return self.kind in (TREASURE, MONSTER)

    @property
    def edge(self) -> bool:
        return self.roll is None

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.kind,
            "orientation": self.orientation,
            "edge": self.edge,
            "squares": [{"row": r, "col": c, "name": format_square((r, c))} for r, c in self.squares],
            "face": "up" if self.face_up else "down",
            "token": self.token,
            "counts": self.counts,
            "roll": self.roll,
        }


@dataclass(frozen=True)
class Setup:
    objects: int  # the number asked
    dice: int
    seed: str | None
    rolls: tuple[Roll, ...]
    obstacles: tuple[Obstacle, ...]

    @property
    def counted(self) -> int:
        return sum(o.counts for o in self.obstacles)

    @property
    def tiles(self) -> int:
        return sum(len(o.squares) for o in self.obstacles)

    def at(self, coord: Coord) -> Obstacle | None:
        for o in self.obstacles:
            if coord in o.squares:
                return o
        return None

    def plan(self) -> list[str]:
        """The board as text: W a wall, M a monster, T a treasure, F a fixed letter, . empty."""
        grid = [["."] * SIZE for _ in range(SIZE)]
        mark = {WALL: "W", MONSTER: "M", TREASURE: "T", FIXED: "F"}
        for o in self.obstacles:
            for r, c in o.squares:
                grid[r][c] = mark[o.kind]
        return ["".join(row) for row in grid]

    def to_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "dice": self.dice,
            "objects_asked": self.objects,
            "objects_counted": self.counted,
            "tiles": self.tiles,
            "rolls": [r.to_json() for r in self.rolls],
            "objects": [o.to_json() for o in self.obstacles],
            "plan": self.plan(),
        }


def setup_from_json(doc: Mapping[str, Any]) -> Setup:
    """The set-up :meth:`Setup.to_json` wrote (the game log keeps it so a restart plays on the
    same board); one clear line for a document that is not one."""
    try:
        rolls = tuple(
            Roll(tuple(tuple(int(v) for v in d) for d in r["dice"]), int(r["row"]), int(r["column"]), int(r["die"]),
                 str(r["rolled"]), str(r["outcome"]))
            for r in doc["rolls"]
        )
        obstacles = tuple(
            Obstacle(str(o["type"]), tuple((int(q["row"]), int(q["col"])) for q in o["squares"]), o["orientation"],
                     None if o["roll"] is None else int(o["roll"]), int(o["counts"]))
            for o in doc["objects"]
        )
        setup = Setup(int(doc["objects_asked"]), int(doc["dice"]), doc["seed"], rolls, obstacles)
    except (KeyError, TypeError, ValueError) as exc:
        raise CompanionError(f"not a dungeon set-up ({type(exc).__name__}: {exc})") from None
    for o in obstacles:
        if o.kind not in (WALL, TREASURE, MONSTER, FIXED) or not all(0 <= r < SIZE and 0 <= c < SIZE for r, c in o.squares):
            raise CompanionError(f"not a dungeon set-up: object {o.kind!r} on {o.squares}")
    return setup


def edge_wall_squares() -> tuple[tuple[str, tuple[Coord, ...]], ...]:
    """The four edge walls: from the centre of each edge, three squares in."""
    mid, last = SIZE // 2, SIZE - 1
    return (
        ("vertical", tuple((r, mid) for r in range(WALL_LENGTH))),  # top
        ("horizontal", tuple((mid, c) for c in range(WALL_LENGTH))),  # left
        ("vertical", tuple((last - r, mid) for r in reversed(range(WALL_LENGTH)))),  # bottom
        ("horizontal", tuple((mid, last - c) for c in reversed(range(WALL_LENGTH)))),  # right
    )


def _wall_squares(row: int, column: int, orientation: str) -> tuple[Coord, ...]:
    if orientation == "vertical":
        return ((row - 1, column), (row, column), (row + 1, column))
    return ((row, column - 1), (row, column), (row, column + 1))


def roll_setup(
    objects: int = DEFAULT_OBJECTS, dice: int = 2, seed: str | None = None, rng: random.Random | None = None
) -> Setup:
    """A set-up rolled as the rules text says (see the module docstring for the details it leaves open)."""
    check_count(dice)
    if not 1 <= objects <= MAX_OBJECTS:
        raise CompanionError(f"between 1 and {MAX_OBJECTS} objects, not {objects}")
    if rng is None:
        rng = dice_rng(seed)
    occupied: set[Coord] = set()
    rolls: list[Roll] = []
    obstacles: list[Obstacle] = []
    counted = 0
    while counted < objects:
        if len(rolls) >= _MAX_ROLLS:  # pragma: no cover - 60 objects never come near it
            raise CompanionError("the dice found no free square")
        p: DicePlacement = placement(dice, rng)
        row, column = p.row, p.column
        index = len(rolls)
        if (row, column) in occupied:
            rolls.append(Roll(p.dice, row, column, p.die, p.kind, "occupied, rolled again"))
            continue
        outcome = "placed"
        if p.kind.endswith("wall"):
            orientation = p.kind.split()[0]
            squares = _wall_squares(row, column, orientation)
            if any(s in occupied for s in squares):
                outcome = "a fixed letter instead"
                obstacle = Obstacle(FIXED, ((row, column),), None, index, 1)
            else:
                obstacle = Obstacle(WALL, squares, orientation, index, WALL_LENGTH)
        else:
            obstacle = Obstacle(p.kind, ((row, column),), None, index, 1)
        rolls.append(Roll(p.dice, row, column, p.die, p.kind, outcome))
        obstacles.append(obstacle)
        occupied.update(obstacle.squares)
        counted += obstacle.counts
    for orientation, squares in edge_wall_squares():
        free = tuple(s for s in squares if s not in occupied)
        if free:
            obstacles.append(Obstacle(WALL, free, orientation, None, 0))
            occupied.update(free)
    return Setup(objects, dice, None if seed is None else str(seed), tuple(rolls), tuple(obstacles))


# ---------------------------------------------------------------------------------------------
# What the camera must see


@dataclass(frozen=True)
class Expected:
    """What one square must look like once the set-up is laid out (any letter on a face-up tile)."""

    row: int
    col: int
    kind: str  # empty, tile (face up) or back (face down), as CellReading
    token: bool = False
    what: str = ""  # the obstacle's kind, "" for an empty square

    @property
    def name(self) -> str:
        return format_square((self.row, self.col))


def expected_view(setup: Setup) -> tuple[Expected, ...]:
    """Every square of the board, row by row: what the camera must see there."""
    out = []
    for r in range(SIZE):
        for c in range(SIZE):
            o = setup.at((r, c))
            if o is None:
                out.append(Expected(r, c, "empty"))
            else:
                out.append(Expected(r, c, "tile" if o.face_up else "back", o.token, o.kind))
    return tuple(out)


def _cells(reading: Any) -> dict[Coord, Any]:
    """A reading (a BoardReading or its cells) as a map of squares to cells."""
    cells = getattr(reading, "cells", reading)
    return {(c.row, c.col): c for c in cells}


def _looks(kind: str, token: bool) -> str:
    text = {"empty": "an empty square", "tile": "a tile face up", "back": "a tile face down"}[kind]
    if token:
        text += " with a token" if kind != "empty" else " with a token on it"
    return text


def check_setup(expected: Sequence[Expected], reading: Any) -> list[str]:
    """One line per square where ``reading`` (a BoardReading or its cells) differs from the plan."""
    cells = _cells(reading)
    problems = []
    for e in expected:
        cell = cells.get((e.row, e.col))
        where = f"{e.name} ({e.what})" if e.what else e.name
        if cell is None:
            problems.append(f"{where}: not read")
            continue
        if cell.kind != e.kind or bool(cell.token) != e.token:
            problems.append(f"{where}: expected {_looks(e.kind, e.token)}, saw {_looks(cell.kind, cell.token)}")
        elif e.kind == "tile" and cell.letter == BLANK:
            problems.append(f"{where}: a blank cannot be a {e.what}: put it back in the bag and draw another")
    return problems


# ---------------------------------------------------------------------------------------------
# State


@dataclass(frozen=True)
class DungeonState:
    tileset_name: str
    setup: Setup
    letters: Board  # every tile face up: played, fixed, treasure, revealed
    treasures: frozenset[Coord]  # face up with a token, not yet taken
    monsters: frozenset[Coord]  # face down with a token
    walls: tuple[frozenset[Coord], ...]  # face-down walls not turned over
    network: frozenset[Coord] = frozenset()
    known: Mapping[Coord, str] = field(default_factory=dict)  # monsters' letters seen
    score: int = 0
    rack: tuple[str, ...] | None = None  # sorted letters when known, ``?`` a blank
    rack_size: int = RACK_SIZE
    bag_size: int = 0
    reveals: int = 0  # reveal bonuses earned and not yet used
    turn: int = 0
    result: str | None = None  # escaped, dead, extra dead, trapped

    @property
    def tileset(self) -> TileSet:
        return get_tileset(self.tileset_name)

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def backs(self) -> frozenset[Coord]:
        return self.monsters.union(*self.walls)

    def wall_at(self, coord: Coord) -> frozenset[Coord] | None:
        for w in self.walls:
            if coord in w:
                return w
        return None


@dataclass(frozen=True)
class Move:
    """The board as the camera read it when the player pressed the button.

    ``monsters``: letters of monsters fought, when no reading showed them face up.
    ``blanks``: the letter each face-up blank on a new square stands for.
    """

    reading: Any  # BoardReading or a sequence of CellReading
    monsters: Mapping[Coord, str] = field(default_factory=dict)
    blanks: Mapping[Coord, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Refill:
    drawn: str | None = None  # the tiles drawn (needed when the rack is known)


@dataclass(frozen=True)
class Burn:
    drawn: str | None = None  # the seven new tiles (needed when the rack is known)
    burned: str | None = None  # the tiles burnt, when the rack is not known


Action = Move | Refill | Burn

PLAYED, REFUSED, ASK, REFILLED, BURNED, REVEALED = "played", "refused", "ask", "refilled", "burned", "revealed"
ESCAPED, DEAD, EXTRA_DEAD, TRAPPED = "escaped", "dead", "extra dead", "trapped"


@dataclass(frozen=True)
class Verdict:
    kind: str
    message: str
    points: int = 0
    words: tuple[str, ...] = ()
    squares: tuple[Coord, ...] = ()  # the squares the verdict is about


@dataclass(frozen=True)
class Outcome:
    state: DungeonState
    verdicts: tuple[Verdict, ...]

    @property
    def verdict(self) -> Verdict:
        return self.verdicts[0]


def new_game(setup: Setup, reading: Any, *, tileset: str = "en", rack: str | None = None) -> DungeonState:
    """The game once the set-up lies on the board as planned (``reading`` shows it) and seven
    tiles are drawn (``rack``, when it is known)."""
    problems = check_setup(expected_view(setup), reading)
    if problems:
        raise CompanionError(f"the set-up differs on {len(problems)} squares: {problems[0]}")
    ts = get_tileset(tileset)
    cells = _cells(reading)
    letters = {}
    for o in setup.obstacles:
        if o.face_up:
            for s in o.squares:
                letter = cells[s].letter
                if letter not in ts.alphabet:
                    raise CompanionError(f"{format_square(s)}: {letter!r} is not a letter of the {ts.name} set")
                letters[s] = Tile(letter)
    rack_tiles = _parse(ts, rack) if rack is not None else None
    if rack_tiles is not None and len(rack_tiles) != RACK_SIZE:
        raise CompanionError(f"the first rack has {RACK_SIZE} tiles, not {len(rack_tiles)}")
    bag = ts.size - setup.tiles - RACK_SIZE
    if bag < 0:
        raise CompanionError(f"the {ts.name} set has too few tiles for this set-up")
    return DungeonState(
        tileset_name=tileset,
        setup=setup,
        letters=Board(STANDARD, letters),
        treasures=frozenset(s for o in setup.obstacles if o.kind == TREASURE for s in o.squares),
        monsters=frozenset(s for o in setup.obstacles if o.kind == MONSTER for s in o.squares),
        walls=tuple(frozenset(o.squares) for o in setup.obstacles if o.kind == WALL),
        rack=tuple(sorted(rack_tiles)) if rack_tiles is not None else None,
        rack_size=RACK_SIZE,
        bag_size=bag,
    )


def _parse(ts: TileSet, text: str) -> list[str]:
    return list(ts.parse_rack(text).elements())


def remember_monsters(state: DungeonState, reading: Any) -> DungeonState:
    """The state knowing the letter of every monster ``reading`` shows face up (the table calls
    this on every stable reading, so that a fight is judged from the monster it saw)."""
    cells = _cells(reading)
    known = dict(state.known)
    for m in state.monsters:
        cell = cells.get(m)
        if cell is not None and cell.kind == "tile" and cell.token and cell.letter:
            known[m] = cell.letter
    return state if known == state.known else replace(state, known=known)


# ---------------------------------------------------------------------------------------------
# The network and its words


def _component(letters: Board, seeds: Iterable[Coord]) -> frozenset[Coord]:
    seen = {s for s in seeds if s in letters}
    todo = list(seen)
    while todo:
        r, c = todo.pop()
        for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if n in letters and n not in seen:
                seen.add(n)
                todo.append(n)
    return frozenset(seen)


def network_runs(letters: Board, network: frozenset[Coord]) -> list[tuple[str, tuple[Coord, ...]]]:
    """Every run of two or more letters in the network, across then down: (text, squares)."""
    runs = []
    for direction in (Direction.ACROSS, Direction.DOWN):
        dr, dc = direction.step
        for r, c in sorted(network):
            if (r - dr, c - dc) in letters:
                continue
            squares = []
            rr, cc = r, c
            while (rr, cc) in letters:
                squares.append((rr, cc))
                rr, cc = rr + dr, cc + dc
            if len(squares) > 1:
                runs.append(("".join(letters[s].letter for s in squares), tuple(squares)))  # type: ignore[union-attr]
    return runs


def _bad_runs(letters: Board, network: frozenset[Coord], lexicon: Container[str]) -> list[str]:
    bad: list[str] = []
    for text, _ in network_runs(letters, network):
        if text not in lexicon and text not in bad:
            bad.append(text)
    return bad


# ---------------------------------------------------------------------------------------------
# Judging a placement (shared by moves and by "is any placement possible")


@dataclass(frozen=True)
class _Judged:
    error: str | None = None  # refused, nothing happens
    words: tuple[str, ...] = ()
    main_bad: bool = False
    incidental_bad: tuple[str, ...] = ()
    letters: Board | None = None
    network: frozenset[Coord] = frozenset()


def _judge_placement(
    state: DungeonState, new: Mapping[Coord, Tile], lexicon: Container[str]
) -> _Judged:
    """Geometry, the main word and the network's words of putting ``new`` on the board.

    ``new`` may cover empty squares, treasures (taken) and monsters (fought); never a wall or
    another letter.
    """
    if not new:
        return _Judged(NO_TILES)
    for s in new:
        if not (0 <= s[0] < SIZE and 0 <= s[1] < SIZE):
            return _Judged(f"Square {s[0] + 1},{s[1] + 1} is off the board")
        if state.wall_at(s) is not None:
            return _Judged(f"{format_square(s)} is a wall: no tile may lie on it")
        if s in state.letters and s not in state.treasures:
            return _Judged(f"Square {format_square(s)} already holds a tile")
    replaced = [s for s in new if s in state.treasures]
    before = state.letters.without(replaced)
    placement = Placement.of(PlacedTile(s[0], s[1], t.letter, t.blank) for s, t in new.items())
    direction = placement_direction(placement)
    if len(placement) > 1 and direction is None:
        return _Judged(NOT_IN_LINE)
    if direction is not None and has_gap(before, placement, direction):
        return _Judged(ONE_WORD_ONLY)
    if not state.network:
        if CORNER not in new:
            return _Judged(FIRST_WORD_AT_CORNER)
    elif not any(
        s in state.network or any(n in state.network for n in ((s[0] + 1, s[1]), (s[0] - 1, s[1]), (s[0], s[1] + 1), (s[0], s[1] - 1)))
        for s in new
    ):
        return _Judged(NOT_CONNECTED)
    formed = words_formed(before, placement, direction)
    if not formed:
        return _Judged(TOO_SHORT)
    after = before.with_tiles(new.items())
    network = _component(after, set(state.network) | set(new))
    main = formed[0].text
    bad = _bad_runs(after, network, lexicon)
    words = tuple(dict.fromkeys(w.text for w in formed))
    return _Judged(
        words=words,
        main_bad=main not in lexicon,
        incidental_bad=tuple(bad) if main in lexicon else (),
        letters=after,
        network=network,
    )


def placement_legal(state: DungeonState, new: Mapping[Coord, Tile], lexicon: Container[str]) -> bool:
    """Whether ``new`` would stand as a move (fights assumed won: a placement that certainly
    kills is no way out)."""
    j = _judge_placement(state, new, lexicon)
    return j.error is None and not j.main_bad and not j.incidental_bad


# A layout whose "centre" is the top-left corner: the generator's first move then starts there.
CORNER_LAYOUT = Layout("dungeon-corner", SIZE, SIZE, STANDARD.premiums, CORNER, STANDARD.inner)


def placement_possible(state: DungeonState, lexicon: Container[str], generator: Any) -> bool:
    """Whether the known rack can be placed anywhere (see the module docstring for how the move
    generator is used)."""
    if not state.rack:
        return False
    rack = "".join(state.rack)

    def ok(moves: Iterable[Any], must_cover: Coord | None = None) -> bool:
        for m in moves:
            new = {t.coord: t.tile for t in m.tiles}
            if must_cover is not None and must_cover not in new:
                continue
            if placement_legal(state, new, lexicon):
                return True
        return False

    if not state.network:
        board = Board(CORNER_LAYOUT)
        return generator.has_move(board, rack) and ok(generator.moves(board, rack))
    letters = state.letters
    if generator.has_move(letters, rack) and ok(generator.moves(letters, rack)):
        return True
    for t in sorted(state.treasures):
        board = letters.without([t])
        if ok(generator.moves(board, rack), must_cover=t):
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Applying actions


def apply(
    state: DungeonState, action: Action, lexicon: Container[str], *, generator: Any = None
) -> Outcome:
    """The state after ``action``. With ``generator`` (a :class:`companion.engine.Generator` of
    the same word list) and a known rack, the trapped state is checked after every action."""
    if state.over:
        return _refuse(state, f"The game is over: {state.result}")
    if isinstance(action, Move):
        out = _move(state, action, lexicon)
    elif isinstance(action, Refill):
        out = _refill(state, action)
    elif isinstance(action, Burn):
        out = _burn(state, action)
    else:  # pragma: no cover - the union is closed
        raise TypeError(action)
    if out.state.over or out.verdict.kind in (REFUSED, ASK) or generator is None:
        return out
    return _check_trapped(out, lexicon, generator)


def trapped(state: DungeonState, lexicon: Container[str], generator: Any) -> bool:
    """No tile can be drawn, no burn is possible, and nothing on the rack can be placed."""
    if state.rack is None:
        return False
    can_refill = state.rack_size < RACK_SIZE and state.bag_size > 0
    can_burn = state.bag_size >= RACK_SIZE and state.rack_size > 0
    if can_refill or can_burn:
        return False
    return not placement_possible(state, lexicon, generator)


def _check_trapped(out: Outcome, lexicon: Container[str], generator: Any) -> Outcome:
    if not trapped(out.state, lexicon, generator):
        return out
    state = replace(out.state, result=TRAPPED)
    message = (
        f"Trapped in Jziqx's dungeon with {_points(state.score)}: the bag cannot refill the rack and "
        "no tile can be placed. Until next time, every sentence must contain a J, Z, Q or X."
    )
    return Outcome(state, out.verdicts + (Verdict(TRAPPED, message),))


def _refuse(state: DungeonState, message: str, words: tuple[str, ...] = (), squares: tuple[Coord, ...] = ()) -> Outcome:
    return Outcome(state, (Verdict(REFUSED, message, words=words, squares=squares),))


def _ask(state: DungeonState, message: str, squares: tuple[Coord, ...]) -> Outcome:
    return Outcome(state, (Verdict(ASK, message, squares=squares),))


def _neighbours_in_line(squares: set[Coord], extra: Coord, letters: Board) -> bool:
    """Whether ``extra`` continues the line of ``squares`` without a gap."""
    tiles = squares | {extra}
    placement = Placement.of(PlacedTile(r, c, "A") for r, c in tiles)
    direction = placement_direction(placement)
    if direction is None:
        return False
    return not has_gap(letters.without(tiles), placement, direction)


def _move(state: DungeonState, action: Move, lexicon: Container[str]) -> Outcome:
    ts = state.tileset
    cells = _cells(action.reading)
    if len(cells) != SIZE * SIZE or any((r, c) not in cells for r in range(SIZE) for c in range(SIZE)):
        return _refuse(state, f"The reading is not of the whole {SIZE}x{SIZE} board")
    state = remember_monsters(state, action.reading)
    known = {**state.known, **{k: v.upper() for k, v in action.monsters.items()}}
    placed: dict[Coord, str] = {}  # empty square -> letter seen
    taken: dict[Coord, str] = {}  # treasure -> letter of the tile put in its place
    turned: dict[Coord, str] = {}  # monster face up, token off
    flipped: dict[Coord, str] = {}  # wall tile face up
    face_up_monsters: list[Coord] = []
    wrong: list[str] = []
    for r in range(SIZE):
        for c in range(SIZE):
            s = (r, c)
            cell = cells[s]
            seen = (cell.kind, bool(cell.token))
            name = format_square(s)
            if s in state.treasures:
                tile = state.letters[s]
                if seen == ("tile", True) and cell.letter == tile.letter:  # type: ignore[union-attr]
                    continue
                if seen == ("tile", False):
                    taken[s] = cell.letter
                    continue
                wrong.append(f"{name} (treasure {tile.letter}): saw {_looks(*seen)}")  # type: ignore[union-attr]
            elif s in state.letters:
                tile = state.letters[s]
                shown = BLANK if tile.blank else tile.letter  # type: ignore[union-attr]
                if seen == ("tile", False) and cell.letter == shown:
                    continue
                what = f"a {tile.letter} face up" + (" (blank)" if tile.blank else "")  # type: ignore[union-attr]
                saw = f"{cell.letter}" if seen == ("tile", False) else _looks(*seen)
                wrong.append(f"{name}: expected {what}, saw {saw}")
            elif s in state.monsters:
                if seen == ("back", True):
                    continue
                if seen == ("tile", True):
                    face_up_monsters.append(s)
                    continue
                if seen == ("tile", False):
                    turned[s] = cell.letter
                    continue
                wrong.append(f"{name} (monster): saw {_looks(*seen)}")
            elif state.wall_at(s) is not None:
                if seen == ("back", False):
                    continue
                if seen == ("tile", False):
                    flipped[s] = cell.letter
                    continue
                wrong.append(f"{name} (wall): saw {_looks(*seen)}")
            else:
                if seen == ("empty", False):
                    continue
                if seen == ("tile", False):
                    placed[s] = cell.letter
                    continue
                wrong.append(f"{name}: expected an empty square, saw {_looks(*seen)}")
    if wrong:
        return _refuse(state, "The board is not as it was left: " + "; ".join(wrong), squares=())
    if face_up_monsters:
        names = ", ".join(format_square(s) for s in face_up_monsters)
        return _refuse(
            state,
            f"The monster on {names} is face up: put your tile in its place (the monster to your rack, "
            "its token off) or turn it face down again",
            squares=tuple(face_up_monsters),
        )
    # Blanks: every new face-up ``?`` needs the letter it stands for.
    new_faces = {**placed, **taken, **turned, **flipped}
    unnamed = [s for s, face in sorted(new_faces.items()) if face == BLANK and s not in action.blanks]
    if unnamed:
        return _ask(
            state, "Which letter does the blank on " + ", ".join(map(format_square, unnamed)) + " stand for?", tuple(unnamed)
        )

    def tile_of(s: Coord, letter: str) -> Tile:
        if letter == BLANK:
            return Tile(action.blanks[s].upper(), blank=True)
        return Tile(letter)

    for s, letter in new_faces.items():
        t = tile_of(s, letter)
        if t.letter not in ts.alphabet:
            return _refuse(state, f"{format_square(s)}: {t.letter} is not a letter of the {ts.name} set", squares=(s,))
    # Which turned monsters are fought (on the move's line) and which are revealed.
    line = set(placed) | set(taken)
    fights: set[Coord] = set()
    grew = True
    while grew:
        grew = False
        for m in sorted(turned):
            if m not in fights and line and _neighbours_in_line(line, m, state.letters):
                line.add(m)
                fights.add(m)
                grew = True
    if not line and turned and state.reveals == 0:
        # A monster turned with nothing else placed and no reveal banked: a one-tile attack.
        m = min(turned)
        fights.add(m)
        line.add(m)
    revealed_monsters = {m: turned[m] for m in turned if m not in fights}

    verdicts: list[Verdict] = []
    earned = len(taken)
    points = 0
    words: tuple[str, ...] = ()
    letters = state.letters
    network = state.network
    rack = list(state.rack) if state.rack is not None else None
    rack_size = state.rack_size
    new = {s: tile_of(s, face) for s, face in {**placed, **taken}.items()}
    new.update({m: tile_of(m, turned[m]) for m in fights})
    if new:
        j = _judge_placement(state, new, lexicon)
        if j.error is not None:
            return _refuse(state, j.error, squares=tuple(sorted(new)))
        used = [BLANK if t.blank else t.letter for t in new.values()]
        if len(used) > state.rack_size:
            return _refuse(state, f"Only {state.rack_size} tiles on your rack", squares=tuple(sorted(new)))
        if rack is not None:
            rest = Counter(rack)
            rest.subtract(used)
            if any(v < 0 for v in rest.values()):
                return _refuse(state, "Those tiles are not on your rack", squares=tuple(sorted(new)))
            rack = list(rest.elements())
        if j.main_bad:
            return _refuse(state, not_in_dictionary(j.words[0]), words=(j.words[0],), squares=tuple(sorted(new)))
        words = j.words
        # Fights, in reading order.
        unknown = [m for m in sorted(fights) if m not in known]
        if unknown:
            return _ask(
                state,
                "Which letter was the monster on " + ", ".join(map(format_square, unknown)) + "? "
                "(turn it face up for the camera, or tell it on the page)",
                tuple(unknown),
            )
        won: list[tuple[Coord, str]] = []
        for m in sorted(fights):
            monster = known[m].upper()
            attack = new[m]
            tamed = (attack.blank and monster == BLANK) or (not attack.blank and attack.letter == monster)
            defeated = ts.value(attack.letter, attack.blank) > ts.value(monster)
            if not (tamed or defeated):
                state = replace(state, known={**state.known, m: monster}, result=DEAD)
                shown = f"blank ({attack.letter})" if attack.blank else attack.letter
                message = (
                    f"The monster on {format_square(m)} was {_article(monster)}: your {shown} neither "
                    f"defeats nor tames it. You are dead, with {_points(state.score)}."
                )
                return Outcome(state, (Verdict(DEAD, message, squares=(m,)),))
            won.append((m, monster))
            points += MONSTER_FACTOR * ts.value(monster)
            verdicts.append(
                Verdict(
                    PLAYED,
                    f"{'Tamed' if tamed else 'Defeated'} the monster on {format_square(m)} ({_article(monster)}): "
                    f"+{MONSTER_FACTOR * ts.value(monster)}",
                    points=MONSTER_FACTOR * ts.value(monster),
                    squares=(m,),
                )
            )
        if j.incidental_bad:
            if won:
                state = replace(state, result=EXTRA_DEAD)
                message = (
                    f"{j.incidental_bad[0]} is not a word: the monster dealt you a fatal blow before "
                    f"expiring. You are extra dead, with {_points(state.score)}."
                )
                return Outcome(state, (Verdict(EXTRA_DEAD, message, words=j.incidental_bad),))
            return _refuse(state, not_in_dictionary(j.incidental_bad[0]), words=j.incidental_bad)
        earned += len(won)
        points += sum(ts.value(t.letter, t.blank) for t in new.values())
        points += TREASURE_POINTS * len(taken)
        assert j.letters is not None
        letters, network = j.letters, j.network
        if rack is not None:
            rack += [state.letters[s].letter for s in taken]  # type: ignore[union-attr]
            rack += [known[m].upper() for m, _ in won]
        rack_size += -len(new) + len(taken) + len(won)
    # Reveals: whole walls and monsters off the line.
    walls_turned: list[frozenset[Coord]] = []
    for s in sorted(flipped):
        wall = state.wall_at(s)
        assert wall is not None
        if wall in walls_turned:
            continue
        if not all(w in flipped for w in wall):
            return _refuse(
                state,
                f"{format_square(s)} is a wall: no tile may lie on it (a reveal turns over every tile of one wall)",
                squares=tuple(sorted(wall)),
            )
        walls_turned.append(wall)
    reveals_used = len(walls_turned) + len(revealed_monsters)
    available = state.reveals + earned
    if reveals_used > available:
        squares = tuple(sorted(set(flipped) | set(revealed_monsters)))
        return _refuse(
            state,
            f"{reveals_used} obstacle{'s' if reveals_used > 1 else ''} turned over but "
            f"{available} reveal{'s' if available != 1 else ''} earned: turn "
            + ", ".join(map(format_square, squares))
            + " face down again"
            + (" (no tile may lie on a wall)" if flipped and not available else ""),
            squares=squares,
        )
    if reveals_used:
        shown = {s: tile_of(s, face) for s, face in {**flipped, **revealed_monsters}.items()}
        letters = letters.with_tiles(shown.items())
        if network:
            network = _component(letters, network)
            bad = _bad_runs(letters, network, lexicon)
            if bad:
                return _refuse(
                    state,
                    f"Turning over {', '.join(map(format_square, sorted(shown)))} forms {bad[0]}, "
                    "which is not a word: turn it back and choose another obstacle",
                    words=tuple(bad),
                    squares=tuple(sorted(shown)),
                )
    if not new and not reveals_used:
        return _refuse(state, NO_TILES)
    gone = set(turned)
    new_state = replace(
        state,
        letters=letters,
        network=network,
        treasures=state.treasures - set(taken),
        monsters=state.monsters - gone,
        walls=tuple(w for w in state.walls if w not in walls_turned),
        known={k: v for k, v in state.known.items() if k not in gone},
        score=state.score + points,
        rack=tuple(sorted(rack)) if rack is not None else None,
        rack_size=rack_size,
        reveals=available - reveals_used,
        turn=state.turn + 1,
    )
    if new:
        parts = []
        if taken:
            parts.append(f"treasure +{TREASURE_POINTS * len(taken)}")
        parts += [f"monster {mon} +{MONSTER_FACTOR * ts.value(mon)}" for _, mon in won]
        extra = f" ({', '.join(parts)})" if parts else ""
        verdicts.insert(0, Verdict(PLAYED, f"{'/'.join(words)} {points}{extra}", points=points, words=words, squares=tuple(sorted(new))))
    if reveals_used:
        verdicts.append(
            Verdict(
                REVEALED,
                "Turned over " + ", ".join(map(format_square, sorted(set(flipped) | set(revealed_monsters)))) + ": fixed letters now",
                squares=tuple(sorted(set(flipped) | set(revealed_monsters))),
            )
        )
    if ESCAPE in new:
        new_state = replace(new_state, result=ESCAPED)
        verdicts.append(Verdict(ESCAPED, f"You have escaped Jziqx's dungeon with {_points(new_state.score)}!"))
    return Outcome(new_state, tuple(verdicts))


def _points(n: int) -> str:
    return f"{n} point{'' if abs(n) == 1 else 's'}"


def _article(letter: str) -> str:
    if letter == BLANK:
        return "a blank"
    return f"{'an' if letter in 'AEFHILMNORSX' else 'a'} {letter}"


def _refill(state: DungeonState, action: Refill) -> Outcome:
    if state.rack_size >= RACK_SIZE:
        return _refuse(state, "Your rack is full")
    if state.bag_size == 0:
        return _refuse(state, "The bag is empty")
    n = min(RACK_SIZE - state.rack_size, state.bag_size)
    drawn = _drawn(state, action.drawn, n)
    if isinstance(drawn, Outcome):
        return drawn
    penalty = state.rack_size
    rack = tuple(sorted(state.rack + tuple(drawn))) if state.rack is not None else None
    new = replace(
        state, rack=rack, rack_size=state.rack_size + n, bag_size=state.bag_size - n, score=state.score - penalty
    )
    return Outcome(new, (Verdict(REFILLED, f"Refilled {n}: {penalty} tile{'s' if penalty != 1 else ''} held, -{penalty}", points=-penalty),))


def _drawn(state: DungeonState, text: str | None, n: int) -> list[str] | Outcome:
    if text is None:
        if state.rack is not None:
            return _refuse(state, f"Tell the {n} tiles drawn")
        return []
    try:
        drawn = _parse(state.tileset, text)
    except CompanionError as exc:
        return _refuse(state, str(exc))
    if len(drawn) != n:
        return _refuse(state, f"{n} tiles are drawn, not {len(drawn)}")
    return drawn


def _burn(state: DungeonState, action: Burn) -> Outcome:
    if state.rack_size == 0:
        return _refuse(state, "There is nothing to burn")
    if state.bag_size < RACK_SIZE:
        return _refuse(state, f"Only {state.bag_size} tiles in the bag: burning needs {RACK_SIZE}")
    if state.rack is not None:
        burned = list(state.rack)
    elif action.burned is not None:
        try:
            burned = _parse(state.tileset, action.burned)
        except CompanionError as exc:
            return _refuse(state, str(exc))
        if len(burned) != state.rack_size:
            return _refuse(state, f"{state.rack_size} tiles are burnt, not {len(burned)}")
    else:
        return _refuse(state, "Tell the tiles burnt")
    drawn = _drawn(state, action.drawn, RACK_SIZE)
    if isinstance(drawn, Outcome):
        return drawn
    penalty = 2 * state.tileset.rack_value(burned)
    new = replace(
        state,
        rack=tuple(sorted(drawn)) if state.rack is not None else None,
        rack_size=RACK_SIZE,
        bag_size=state.bag_size - RACK_SIZE,
        score=state.score - penalty,
    )
    return Outcome(new, (Verdict(BURNED, f"Burnt {''.join(sorted(burned))}: -{penalty}", points=-penalty),))
