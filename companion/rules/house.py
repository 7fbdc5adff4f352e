"""Scrabble House (rules/004_5936082e14d1b8ec.txt): two boards, four players, explosions.

Two layers, both pure:

- **One board** (functions on :class:`~companion.core.board.Board`): who owns a tile (its
  rotation), how each player reads a string of tiles, the strings on a board, whether a play
  may stand (:func:`play_error`) and the explosion it sets off (:func:`explode`), step by
  step, so that the page can show it before anything is removed; the win by connection
  (:func:`connects`).
- **The match** (:class:`HouseState`, :func:`apply`): two boards, four players in two teams,
  the two bags of different colours, racks and the tiles partners pass, the explosion waiting
  for the camera's confirmation, the win. The table's entry point is :func:`judge_reading`:
  a new board reading (letters, rotations, set colours) against the state, to a verdict.

The clocks are the table's (:func:`house_clocks` makes them: two clocks of two sides,
players numbered as :class:`~companion.clock.engine.ClockGroup` numbers them); a flag fall
reaches the rules as the action :class:`FlagFall` (:func:`clock_actions` turns clock events
into actions).

Orientation, as the text has it ("Letters are placed right side up with respect to the player
playing them. Their opponent therefore sees upside-down letters and backwards words."). The
camera's bottom edge is one player's side: a tile at rotation 0 is upright for the player at
the bottom edge (:data:`BOTTOM`), a tile at rotation 180 for the player at the top
(:data:`TOP`). The bottom player reads across left to right and down top to bottom; the top
player sits facing him, so his left to right is the bottom player's right to left and his top
to bottom is the bottom player's bottom to top: he reads every string backwards
(:func:`read_as`). A tile belongs to the player it faces; its colour says only which bag it
came from. Home rows: the row nearest each player, the last row for the bottom player, the
first for the top player.

Decisions where the text is unclear, as players at the table would expect:

- **Seats and teams.** Players are numbered as the clocks number them: 0 (bottom) and 1 (top)
  at board 0, 2 (bottom) and 3 (top) at board 1. Partners sit side by side on one side of the
  table, as in bughouse, with both cameras' bottom edges on the same side: team 0 is players 0
  and 2, team 1 is players 1 and 3. "The player diagonally across" from the one who drew the
  lowest tile is then the other board's player of the other team, and each board has one
  player who starts.
- **What a play may touch.** The first play of each player must put a tile on his own home
  row. Later plays put a tile on his home row, or touch a tile already on the board: his own
  words ("build off of words he or she has already built") or the opponent's (an explosion,
  rule 6). A play is Scrabble-shaped: one line, no gap, every word it forms (two letters or
  more) legal as the mover reads it. A lone tile on the home row forms no word and is refused.
- **An explosion is not optional.** Rule 6 says the player "may" explode; every play whose
  new words hold an opponent's tile turns those tiles (step a), so the strings they cross are
  mixed and steps (b) to (d) follow. The companion computes them; it does not let the mover
  choose which words to spare.
- **Step (a).** Every tile of every new word is turned to the mover, including the opponent's
  tiles in them; nothing else turns.
- **Step (b), what is left of a mixed string.** The opponent's (upside-down) tiles of every
  mixed string come off. What stays of the string is one or more runs of the mover's tiles; a
  run of two or more that is a word as the mover reads it stays. A run that is not a word
  comes off, except its tiles held across by a word that was there before the play (the play
  lengthened it through that tile). This is the text's example read exactly: of CA (what
  ACCEPT left) "the part of it in line with the word just exploded, the A" comes off while
  the C, which DOCK holds across (COD was there, the play lengthened it), stays; and "if OD
  were illegal (like CA), then the D O (formerly of DOCK) would also be removed", though each
  of them is held across by a new word (DO, OR), because those words were made by the play
  beside them. The same holds for a string of the opponent's that the turning made wholly the
  mover's without being a new word.
- **Steps (c) and (d).** The board is examined again and again; every string the removals
  changed (a string whose squares, or whose owner, are not those it had when the play was
  laid) that is not a word as its owner reads it comes off whole, "even if a subset of it is a
  word"; all such strings of one examination come off together, as one step, and the next
  examination follows. A tile left alone (no neighbour either way, the text's "dangling H")
  is a string of one letter and never a word. Strings of the mover that a removal broke are
  examined too ("until all remaining words are legal"). Strings the explosion did not touch
  stand as they stood.
- **Passing.** Every tile removed goes to the mover's partner, whatever its colour or owner;
  a blank goes back as a blank. The partner's own-colour count decides his draws (rule 7):
  after his turn a player draws until he holds seven tiles of his own board's colour, and
  draws nothing while he holds seven or more; tiles of the other colour are bonus tiles and
  do not count.
- **The turn ends with the explosion done.** The preview is shown and the board waits; when
  the camera sees the board the preview ends with (every tile turned and removed as shown),
  the explosion is confirmed, the removed tiles reach the partner, the mover draws and the
  opponent is on move. Until then the board refuses other moves.
- **Winning.** A player wins when his own tiles (those facing him) form one connected group,
  square to square, holding a tile on his home row and a tile on the opponent's home row
  (after an explosion every string is a word, so such a group is a chain of words). A chain
  that touches the opponent's home row but lost its base does not win. A flag fall (the
  clock's :class:`FlagFell`, sudden death as the text's 10 minutes) loses for the player's
  team. The first win ends the match on both boards.
- **Passing the turn.** A player may press his clock without playing (the text is silent): the
  turn passes and he draws as after a play.
- **Racks.** The companion tracks every tile by letter and colour (:data:`TileKey`), the bags
  shuffled from the match's seed. With ``track_tiles=False`` the bags hold tiles of known
  colour and unknown letter (``*``): a play takes a tile of its letter from the rack, else one
  of unknown letter and the same colour, so that counts per colour (and the rack rule) stay
  exact while letters are the players' business.
- **Blanks.** A blank shows no turn (the camera reads it upright), so the state remembers who
  laid it; a reading's blank is compared by its square, not its rotation. The letters of the
  blanks of a new play are those that make every new word a word, when exactly one choice
  does.
- **Sideways tiles.** A tile at 90 or 270 faces neither player: a reading with one is a
  question, never a move.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from itertools import product

from companion.clock.engine import (
    ClockEvent,
    ClockGroup,
    FlagFell,
    LostOnTime,
    sudden_death,
)
from companion.core.board import STANDARD, Board, Coord, Direction, Tile
from companion.core.move import PlacedTile, Placement, format_square
from companion.core.tiles import BLANK, get_tileset
from companion.core.words import placement_direction, run_through, words_formed
from companion.core.errors import CompanionError
from companion.rules.common import (
    NO_TILES,
    NOT_IN_LINE,
    ONE_WORD_ONLY,
    TOO_SHORT,
    IllegalPlay,
    has_gap,
    not_in_dictionary,
)

BOTTOM, TOP = 0, 1
ROTATION = (0, 180)
SEAT_NAMES = ("bottom", "top")
RACK_SIZE = 7
MINUTES = 10  # the text's "10 minutes per person on the clock"
UNKNOWN = "*"  # a tile whose letter the companion does not know (racks not tracked)

NOT_HOME_ROW = "Your first play must touch your home row"
NOT_ATTACHED = "A play must touch your home row or a word on the board"

TileKey = tuple[str, str | None]  # (letter, or "?" for a blank, or "*" unknown; colour)


# ---------------------------------------------------------------------------------------------
# One board: ownership, reading, strings


def seat_of(tile: Tile) -> int:
    """The player a tile faces: rotation 0 the bottom player, 180 the top player."""
    if tile.rotation == 0:
        return BOTTOM
    if tile.rotation == 180:
        return TOP
    raise CompanionError(f"a tile turned {tile.rotation} degrees faces neither player")


def facing(tile: Tile, seat: int) -> Tile:
    return tile if tile.rotation == ROTATION[seat] else replace(tile, rotation=ROTATION[seat])


def home_row(seat: int, board: Board) -> int:
    return board.layout.rows - 1 if seat == BOTTOM else 0


def read_as(letters: Iterable[str], seat: int) -> str:
    """A string of tiles in board order (left to right, top to bottom) as ``seat`` reads it."""
    text = "".join(letters)
    return text if seat == BOTTOM else text[::-1]


@dataclass(frozen=True)
class TileString:
    """A maximal run of two or more tiles along a line, or a tile with no neighbour at all
    (``direction`` None). Squares in board order."""

    squares: tuple[Coord, ...]
    direction: Direction | None
    letters: str  # in board order
    owners: frozenset[int]

    @property
    def mixed(self) -> bool:
        return len(self.owners) > 1

    @property
    def owner(self) -> int:
        if self.mixed:
            raise ValueError("a mixed string has two owners")
        return next(iter(self.owners))

    def text(self, seat: int | None = None) -> str:
        """As ``seat`` reads it (by default its owner)."""
        return read_as(self.letters, self.owner if seat is None else seat)

    @property
    def key(self) -> tuple:
        return (self.direction, self.squares, self.owners)


def _string(board: Board, squares: Sequence[Coord], direction: Direction | None) -> TileString:
    tiles = [t for t in (board[s] for s in squares) if t is not None]
    return TileString(tuple(squares), direction, "".join(t.letter for t in tiles), frozenset(seat_of(t) for t in tiles))


def tile_strings(board: Board, *, singles: bool = True) -> list[TileString]:
    """Every string on the board: runs of two or more across, then down, then (with
    ``singles``) the tiles with no neighbour, each once, in board order."""
    out: list[TileString] = []
    for direction in (Direction.ACROSS, Direction.DOWN):
        dr, dc = direction.step
        for coord, _ in board.items():  # noqa: PERF102 - a Board has no keys()
            if (coord[0] - dr, coord[1] - dc) in board:
                continue
            run = run_through(board, coord, direction)
            if len(run) > 1:
                out.append(_string(board, run, direction))
    if singles:
        out += [_string(board, [c], None) for c, _ in board.items() if not board.has_neighbour(c)]
    return out


def new_word_squares(before: Board, placed: Mapping[Coord, Tile]) -> list[tuple[Coord, ...]]:
    """The squares of every word of two or more tiles the placement forms; the main word first."""
    placement = Placement.of(PlacedTile(r, c, t.letter, t.blank) for (r, c), t in placed.items())
    return [w.squares for w in words_formed(before, placement)]


# ---------------------------------------------------------------------------------------------
# One board: may the play stand?


def play_error(
    before: Board,
    placed: Mapping[Coord, Tile],
    seat: int,
    lexicon: Container[str],
    *,
    opened: bool = True,
    check_words: bool = True,
) -> IllegalPlay | None:
    """Why ``placed`` cannot stand as ``seat``'s play on ``before``, or None.

    ``opened``: the player has made his first play (else a tile must lie on his home row).
    """
    if not placed:
        return IllegalPlay(NO_TILES)
    layout = before.layout
    for coord, tile in placed.items():
        if not layout.contains(coord):
            return IllegalPlay(f"Square {coord[0] + 1},{coord[1] + 1} is off the board")
        if coord in before:
            return IllegalPlay(f"Square {format_square(coord)} already holds a tile")
        if tile.rotation != ROTATION[seat]:
            return IllegalPlay(
                f"The tile on {format_square(coord)} faces the {SEAT_NAMES[1 - seat]} player: "
                "place your letters right side up to you"
            )
    placement = Placement.of(PlacedTile(r, c, t.letter, t.blank) for (r, c), t in placed.items())
    direction = placement_direction(placement)
    if len(placement) > 1 and direction is None:
        return IllegalPlay(NOT_IN_LINE)
    if direction is not None and has_gap(before, placement, direction):
        return IllegalPlay(ONE_WORD_ONLY)
    home = home_row(seat, before)
    on_home = any(r == home for r, _ in placed)
    if not opened and not on_home:
        return IllegalPlay(NOT_HOME_ROW)
    if not on_home and not any(before.has_neighbour(c) for c in placed):
        return IllegalPlay(NOT_ATTACHED if not before.is_empty() else NOT_HOME_ROW)
    words = new_word_squares(before, placed)
    if not words:
        return IllegalPlay(TOO_SHORT)
    if not check_words:
        return None
    played = before.with_tiles(placed.items())
    bad: list[str] = []
    for squares in words:
        text = read_as((played[s].letter for s in squares), seat)  # type: ignore[union-attr]
        if text not in lexicon and text not in bad:
            bad.append(text)
    if bad:
        return IllegalPlay(not_in_dictionary(bad[0]), tuple(bad))
    return None


# ---------------------------------------------------------------------------------------------
# One board: the explosion


class Reason(str, Enum):
    UPSIDE_DOWN = "upside-down"  # (b): the opponent's tiles of a mixed string
    LEFTOVER = "leftover"  # (b): what a mixed string left of the mover's that is not a word
    NOT_A_WORD = "not-a-word"  # (c): a string the removals changed that is not a word
    DANGLING = "dangling"  # (c): a tile left with no neighbour


@dataclass(frozen=True)
class Removal:
    """Tiles that come off together, and why. ``text`` is the string they came from as
    ``owner`` reads it (for an upside-down part of a mixed string: as the opponent read his
    word), ``letters`` the tiles that come off in that reading order."""

    squares: tuple[Coord, ...]
    text: str
    letters: str
    owner: int
    reason: Reason

    def describe(self) -> str:
        if self.reason is Reason.UPSIDE_DOWN:
            return f"{self.text} is mixed: its upside-down {' '.join(self.letters)} {_verb(self.letters)} off"
        if self.reason is Reason.LEFTOVER:
            if self.letters == self.text:
                return f"{self.text} is left and is not a word: it comes off"
            return f"{self.text} is left and is not a word: its {' '.join(self.letters)} {_verb(self.letters)} off"
        if self.reason is Reason.DANGLING:
            return f"{self.text} is left alone: it comes off"
        return f"{self.text} is not a word: it comes off"


def _verb(letters: str) -> str:
    return "comes" if len(letters) == 1 else "come"


@dataclass(frozen=True)
class ExplosionStep:
    rule: str  # "b" (mixed strings) or "c" (one examination of steps c and d)
    removals: tuple[Removal, ...]

    @property
    def squares(self) -> tuple[Coord, ...]:
        return tuple(sorted(s for r in self.removals for s in r.squares))


@dataclass(frozen=True)
class Explosion:
    """A play and what it sets off, step by step: the preview the page shows.

    ``played`` is the board as the mover leaves it (his tiles laid, nothing turned yet);
    ``turned`` the squares turned to him in step (a); ``steps`` the squares removed, (b) then
    each examination of (c); ``after`` the board once every step is done.
    """

    mover: int
    before: Board
    played: Board
    words: tuple[str, ...]  # the new words as the mover reads them, the main word first
    word_squares: tuple[tuple[Coord, ...], ...]
    turned: tuple[Coord, ...]
    steps: tuple[ExplosionStep, ...]
    after: Board

    @property
    def removed(self) -> tuple[Coord, ...]:
        return tuple(sorted(s for st in self.steps for s in st.squares))

    @property
    def passed(self) -> tuple[Tile, ...]:
        """The tiles that go to the mover's partner, in board order."""
        turned = set(self.turned)
        out = []
        for sq in self.removed:
            tile = self.played[sq]
            assert tile is not None
            out.append(facing(tile, self.mover) if sq in turned else tile)
        return tuple(out)

    @property
    def placed(self) -> tuple[Coord, ...]:
        return tuple(sorted(c for c, _ in self.played.items() if c not in self.before))

    @property
    def changes_board(self) -> bool:
        """Whether the player has anything to turn or take off after laying his tiles."""
        return bool(self.turned or self.steps)


def _segments(squares: Sequence[Coord], keep: set[Coord]) -> list[list[Coord]]:
    out: list[list[Coord]] = []
    cur: list[Coord] = []
    for s in squares:
        if s in keep:
            cur.append(s)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def _once(removals: Iterable[Removal], board: Board) -> tuple[Removal, ...]:
    """A tile in two strings that come off comes off once, with the first."""
    seen: set[Coord] = set()
    out = []
    for r in removals:
        squares = tuple(sq for sq in r.squares if sq not in seen)
        seen.update(squares)
        if squares == r.squares:
            out.append(r)
        elif squares:
            letters = read_as((t.letter for t in (board[sq] for sq in squares) if t is not None), r.owner)
            out.append(replace(r, squares=squares, letters=letters))
    return tuple(out)


def _held_across_before(before: Board, coord: Coord, direction: Direction) -> bool:
    """Whether ``coord`` had a neighbour across ``direction`` before the play: a word there
    that the play lengthened through the tile."""
    dr, dc = direction.other.step
    r, c = coord
    return (r - dr, c - dc) in before or (r + dr, c + dc) in before


def explode(before: Board, placed: Mapping[Coord, Tile], mover: int, lexicon: Container[str]) -> Explosion:
    """Steps (a) to (d) of rule 6 for ``mover``'s tiles ``placed`` on ``before``.

    The play's legality is :func:`play_error`'s business; this only computes.
    """
    placed = {c: facing(t, mover) for c, t in placed.items()}
    played = before.with_tiles(placed.items())
    word_squares = new_word_squares(before, placed)
    words = tuple(read_as((played[s].letter for s in sq), mover) for sq in word_squares)  # type: ignore[union-attr]

    # (a) Every tile of every new word turns to the mover.
    in_words = {s for sq in word_squares for s in sq}
    turned = tuple(sorted(s for s in in_words if seat_of(played[s]) != mover))  # type: ignore[arg-type]
    board = played.with_tiles((s, facing(played[s], mover)) for s in turned)  # type: ignore[arg-type]
    turned_set = set(turned)
    new_word_keys = {tuple(sq) for sq in word_squares}

    # (b) Mixed strings lose the opponent's tiles; what stays of the mover's must be words.
    removals: list[Removal] = []
    gone: set[Coord] = set()
    for s in tile_strings(board, singles=False):
        assert s.direction is not None
        made_mine = not s.mixed and s.owner == mover and s.squares not in new_word_keys and (
            turned_set.intersection(s.squares)
        )
        if not s.mixed and not made_mine:
            continue
        mine = {sq for sq in s.squares if seat_of(board[sq]) == mover}  # type: ignore[arg-type]
        if s.mixed:
            upside = tuple(sq for sq in s.squares if sq not in mine)
            other = 1 - mover
            letters = read_as((board[sq].letter for sq in upside), other)  # type: ignore[union-attr]
            removals.append(Removal(upside, s.text(other), letters, other, Reason.UPSIDE_DOWN))
            gone.update(upside)
        for seg in _segments(s.squares, mine):
            if len(seg) < 2:
                continue
            text = read_as((board[sq].letter for sq in seg), mover)  # type: ignore[union-attr]
            if text in lexicon:
                continue
            off = tuple(sq for sq in seg if not _held_across_before(before, sq, s.direction))
            if off:
                letters = read_as((board[sq].letter for sq in off), mover)  # type: ignore[union-attr]
                removals.append(Removal(off, text, letters, mover, Reason.LEFTOVER))
                gone.update(off)
    steps: list[ExplosionStep] = []
    if gone:
        steps.append(ExplosionStep("b", _once(removals, board)))
        board = board.without(gone)

    # (c), (d) Strings the removals changed that are not words come off whole, until none.
    unchanged = {s.key for s in tile_strings(played)}
    while True:
        removals = []
        for s in tile_strings(board):
            if s.key in unchanged:
                continue
            if s.mixed:  # only a position that was never legal leaves one: nobody reads it
                removals.append(Removal(s.squares, s.letters, s.letters, 1 - mover, Reason.NOT_A_WORD))
            elif s.direction is None:
                removals.append(Removal(s.squares, s.text(), s.text(), s.owner, Reason.DANGLING))
            elif s.text() not in lexicon:
                removals.append(Removal(s.squares, s.text(), s.text(), s.owner, Reason.NOT_A_WORD))
        if not removals:
            break
        steps.append(ExplosionStep("c", _once(removals, board)))
        board = board.without(steps[-1].squares)
    return Explosion(mover, before, played, words, tuple(tuple(s) for s in word_squares), turned, tuple(steps), board)


# ---------------------------------------------------------------------------------------------
# One board: the win


def connects(board: Board, seat: int) -> bool:
    """Whether ``seat``'s own tiles hold a connected chain from his home row to the opponent's."""
    mine = {c for c, t in board.items() if seat_of(t) == seat}
    home, far = home_row(seat, board), home_row(1 - seat, board)
    frontier = [c for c in mine if c[0] == home]
    seen = set(frontier)
    while frontier:
        r, c = frontier.pop()
        if r == far:
            return True
        for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if n in mine and n not in seen:
                seen.add(n)
                frontier.append(n)
    return False


# ---------------------------------------------------------------------------------------------
# The match: state


@dataclass(frozen=True)
class HouseOptions:
    tileset: str = "en"
    colours: tuple[str, str] = ("white", "red")  # the sets' colours (profile set names), board 0, 1
    minutes: float = MINUTES
    # Rule 9: words stand by the players' consent (not checked as played); a challenge ends
    # the match, won by the side the word list proves right. False: the list checks every word
    # as it is played, and there is nothing to challenge.
    challenges: bool = False

    def __post_init__(self) -> None:
        if len(self.colours) != 2 or self.colours[0] == self.colours[1]:
            raise CompanionError("Scrabble House needs two sets of different colours")


def board_of(player: int) -> int:
    return player // 2


def seat(player: int) -> int:
    return player % 2


def player_at(board: int, seat_: int) -> int:
    return 2 * board + seat_


def team_of(player: int) -> int:
    return player % 2


def partner_of(player: int) -> int:
    return player ^ 2


def opponent_of(player: int) -> int:
    return player ^ 1


def diagonal_of(player: int) -> int:
    """The player across the other board: the one who starts with ``player``."""
    return player ^ 3


@dataclass(frozen=True)
class BoardState:
    board: Board
    colour: str
    to_move: int  # the seat on move
    opened: tuple[bool, bool] = (False, False)  # each seat has made its first play
    pending: Explosion | None = None  # an explosion shown, waiting for the camera
    last: tuple[int, tuple[str, ...]] | None = None  # the last play: its player and words as read


@dataclass(frozen=True)
class HouseState:
    options: HouseOptions
    names: tuple[str, ...]  # four, numbered as the clocks number them
    boards: tuple[BoardState, BoardState]
    racks: tuple[tuple[TileKey, ...], ...]  # four, sorted
    bags: tuple[tuple[TileKey, ...], tuple[TileKey, ...]]  # in draw order, board 0's colour, board 1's
    seed: int
    winner: int | None = None  # the winning team
    reason: str = ""

    @property
    def over(self) -> bool:
        return self.winner is not None

    def own_count(self, player: int) -> int:
        colour = self.boards[board_of(player)].colour
        return sum(1 for _, c in self.racks[player] if c == colour)

    def bonus(self, player: int) -> tuple[TileKey, ...]:
        colour = self.boards[board_of(player)].colour
        return tuple(k for k in self.racks[player] if k[1] != colour)

    def to_move(self, board: int) -> int:
        return player_at(board, self.boards[board].to_move)

    def tiles(self) -> Counter:
        """Every tile of the match, wherever it is (boards, waiting to be passed, racks, bags)."""
        seen: Counter = Counter()
        for b in self.boards:
            seen.update(key_of(t) for _, t in b.board.items())
        for rack in self.racks:
            seen.update(rack)
        for bag in self.bags:
            seen.update(bag)
        return seen


def key_of(tile: Tile) -> TileKey:
    return (BLANK if tile.blank else tile.letter, tile.set)


# ---------------------------------------------------------------------------------------------
# The match: actions and verdicts


@dataclass(frozen=True)
class Play:
    player: int
    tiles: tuple[tuple[Coord, Tile], ...]  # rotation and set as the camera sees them


@dataclass(frozen=True)
class Confirm:
    """The camera sees ``board`` at board ``index``: does it end the explosion shown?"""

    index: int
    board: Board


@dataclass(frozen=True)
class Pass:
    player: int


@dataclass(frozen=True)
class FlagFall:
    player: int


@dataclass(frozen=True)
class Challenge:
    """Rule 9: ``player`` challenges the last play on ``board``; the word list decides and the
    match is over."""

    player: int
    board: int


Action = Play | Confirm | Pass | FlagFall | Challenge


class VerdictKind(str, Enum):
    PLAYED = "played"  # laid, nothing to turn or take off: the turn is done
    EXPLOSION = "explosion"  # laid; the explosion is shown and waits for the board
    WAITING = "waiting"  # the board does not match the explosion shown yet
    CONFIRMED = "confirmed"  # the board matches: the turn is done
    PASSED = "passed"
    REFUSED = "refused"  # nothing changed
    QUESTION = "question"  # the reading cannot be judged: ask the players
    NOTHING = "nothing"  # the reading shows no change
    WON = "won"


@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
    player: int | None
    message: str
    explosion: Explosion | None = None
    words: tuple[str, ...] = ()
    squares: tuple[Coord, ...] = ()  # the squares the message is about


@dataclass(frozen=True)
class Outcome:
    state: HouseState
    verdicts: tuple[Verdict, ...] = field(default_factory=tuple)

    @property
    def verdict(self) -> Verdict:
        return self.verdicts[0]


# ---------------------------------------------------------------------------------------------
# The match: starting


def first_movers(draws: Sequence[str], tileset: str = "en") -> tuple[int, ...]:
    """Rule 1: who starts, from one drawn tile each (``?`` a blank, lowest). Two players (the
    lowest and the one diagonally across), or the tied players who draw again."""
    order = {t: i for i, t in enumerate([BLANK] + get_tileset(tileset).alphabetical())}
    if len(draws) != 4 or any(d not in order for d in draws):
        raise CompanionError("four tiles are drawn, one per player")
    low = min(order[d] for d in draws)
    lowest = tuple(i for i, d in enumerate(draws) if order[d] == low)
    if len(lowest) > 1:
        return lowest
    return tuple(sorted((lowest[0], diagonal_of(lowest[0]))))


def new_match(
    names: Sequence[str],
    options: HouseOptions = HouseOptions(),
    *,
    first: int = 0,
    seed: int = 0,
    track_tiles: bool = True,
) -> HouseState:
    """Four players, each with seven tiles of his board's colour; ``first`` and the player
    diagonally across start."""
    if len(names) != 4 or len(set(names)) != 4:
        raise CompanionError("Scrabble House is for four players with different names")
    if not 0 <= first < 4:
        raise CompanionError(f"player {first + 1} does not exist")
    tileset = get_tileset(options.tileset)
    bags: list[list[TileKey]] = []
    for i, colour in enumerate(options.colours):
        bag: list[TileKey]
        if track_tiles:
            bag = [(t, colour) for t in tileset.bag().elements()]
            random.Random(f"{seed}:{i}").shuffle(bag)
        else:
            bag = [(UNKNOWN, colour)] * tileset.size
        bags.append(bag)
    racks = []
    for p in range(4):
        dealt = bags[board_of(p)]
        racks.append(tuple(sorted(dealt[:RACK_SIZE], key=_order)))
        del dealt[:RACK_SIZE]
    starters = {first, diagonal_of(first)}
    boards = tuple(
        BoardState(Board(STANDARD), colour, next(seat(p) for p in starters if board_of(p) == i))
        for i, colour in enumerate(options.colours)
    )
    return HouseState(options, tuple(names), boards, tuple(racks), (tuple(bags[0]), tuple(bags[1])), seed)  # type: ignore[arg-type]


def house_clocks(minutes: float = MINUTES) -> ClockGroup:
    """The match's clocks: two clocks of two sides, sudden death (a flag fall loses)."""
    return ClockGroup.of(sudden_death(minutes), players=4, boards=2)


def clock_actions(events: Iterable[ClockEvent]) -> list[FlagFall]:
    """The actions the clocks' events mean for the rules: a flag fall."""
    players = dict.fromkeys(e.side for e in events if isinstance(e, (FlagFell, LostOnTime)))
    return [FlagFall(p) for p in players]


# ---------------------------------------------------------------------------------------------
# The match: applying actions


def apply(state: HouseState, action: Action, lexicon: Container[str]) -> Outcome:
    if state.over:
        return _refuse(state, getattr(action, "player", None), f"The match is over: {state.reason}")
    if isinstance(action, FlagFall):
        return _flag_fall(state, action.player)
    if isinstance(action, Confirm):
        return _confirm(state, action)
    if isinstance(action, Play):
        return _play(state, action, lexicon)
    if isinstance(action, Pass):
        return _pass(state, action.player)
    if isinstance(action, Challenge):
        return _challenge(state, action, lexicon)
    raise TypeError(action)  # pragma: no cover - the union is closed


def _refuse(state: HouseState, player: int | None, message: str, **more: object) -> Outcome:
    return Outcome(state, (Verdict(VerdictKind.REFUSED, player, message, **more),))  # type: ignore[arg-type]


def _set_board(state: HouseState, index: int, **changes: object) -> HouseState:
    boards = list(state.boards)
    boards[index] = replace(boards[index], **changes)  # type: ignore[arg-type]
    return replace(state, boards=tuple(boards))  # type: ignore[arg-type]


def _set_rack(state: HouseState, player: int, rack: Iterable[TileKey]) -> HouseState:
    racks = list(state.racks)
    racks[player] = tuple(sorted(rack, key=_order))
    return replace(state, racks=tuple(racks))


def _order(key: TileKey) -> tuple[str, str]:
    return (key[1] or "", key[0])


def _turn_error(state: HouseState, player: int) -> str | None:
    if not 0 <= player < 4:
        return f"player {player + 1} does not exist"
    b = state.boards[board_of(player)]
    if b.pending is not None:
        return "The explosion shown is not done yet: turn and take off the tiles shown"
    if b.to_move != seat(player):
        return f"It is {state.names[player_at(board_of(player), b.to_move)]}'s turn"
    return None


def _take_from_rack(
    rack: tuple[TileKey, ...], tiles: Sequence[Tile], own: str
) -> tuple[tuple[TileKey, ...], tuple[str | None, ...]] | None:
    """The rack without the tiles played, and each tile's colour: a tile of unknown colour
    (set None) is taken from the own colour first; a tile of unknown letter (``*``) stands in
    for any letter of its colour. None when the rack lacks them."""
    have = Counter(rack)
    colours_used: list[str | None] = []
    for tile in tiles:
        letter = BLANK if tile.blank else tile.letter
        if tile.set is not None:
            colours = [tile.set]
        else:
            colours = [own] + sorted({c for _, c in have if c != own}, key=str)  # type: ignore[misc]
        for colour, key in ((c, k) for c in colours for k in ((letter, c), (UNKNOWN, c))):
            if have[key] > 0:
                have[key] -= 1
                colours_used.append(colour)
                break
        else:
            return None
    return tuple(have.elements()), tuple(colours_used)


def _play(state: HouseState, action: Play, lexicon: Container[str]) -> Outcome:
    me = action.player
    error = _turn_error(state, me)
    if error:
        return _refuse(state, me, error)
    index, s = board_of(me), seat(me)
    b = state.boards[index]
    placed = dict(action.tiles)
    alphabet = get_tileset(state.options.tileset).alphabet
    for tile in placed.values():
        if tile.letter not in alphabet:
            return _refuse(state, me, f"{tile.letter} is not a letter of the {state.options.tileset} tile set")
    taken = _take_from_rack(state.racks[me], list(placed.values()), b.colour)
    if taken is None:
        return _refuse(state, me, f"Those tiles are not on {state.names[me]}'s rack")
    rest, colours = taken
    illegal = play_error(b.board, placed, s, lexicon, opened=b.opened[s], check_words=not state.options.challenges)
    if illegal is not None:
        return _refuse(state, me, illegal.message, words=illegal.words)
    # A tile's colour, when the camera could not tell it, is the one the rack held.
    placed = {c: t if t.set is not None else replace(t, set=k) for (c, t), k in zip(placed.items(), colours)}
    explosion = explode(b.board, placed, s, lexicon)
    opened = tuple(True if i == s else o for i, o in enumerate(b.opened))
    state = _set_rack(state, me, rest)
    words = explosion.words
    state = _set_board(state, index, opened=opened, board=explosion.played, last=(me, words))
    if explosion.changes_board:
        state = _set_board(state, index, pending=explosion)
        msg = f"{', '.join(words)}: explosion shown"
        return Outcome(state, (Verdict(VerdictKind.EXPLOSION, me, msg, explosion, words, explosion.removed),))
    verdict = Verdict(VerdictKind.PLAYED, me, ", ".join(words), explosion, words)
    return _end_turn(state, me, explosion.after, (verdict,))


def _end_turn(state: HouseState, player: int, board: Board, verdicts: tuple[Verdict, ...]) -> Outcome:
    """The board as the turn leaves it: the player draws, the opponent is on move, a chain wins."""
    index, s = board_of(player), seat(player)
    state = _set_board(state, index, board=board, pending=None, to_move=1 - s)
    state = _draw(state, player)
    if connects(board, s):
        team = team_of(player)
        reason = f"{state.names[player]} joined both home rows"
        state = replace(state, winner=team, reason=reason)
        verdicts += (Verdict(VerdictKind.WON, player, reason),)
    return Outcome(state, verdicts)


def _draw(state: HouseState, player: int) -> HouseState:
    """Rule 7: draw until seven tiles of one's own colour; none while one holds seven or more."""
    index = board_of(player)
    n = min(max(0, RACK_SIZE - state.own_count(player)), len(state.bags[index]))
    if n == 0:
        return state
    bag = state.bags[index]
    bags = list(state.bags)
    bags[index] = bag[n:]
    state = replace(state, bags=tuple(bags))  # type: ignore[arg-type]
    return _set_rack(state, player, state.racks[player] + bag[:n])


def same_tiles(seen: Board, expected: Board) -> list[Coord]:
    """The squares where ``seen`` (a reading) differs from ``expected``: letter, rotation (not a
    blank's, which shows none), colour where the reading names one."""
    wrong = []
    for coord in sorted({c for c, _ in seen.items()} | {c for c, _ in expected.items()}):
        a, b = seen[coord], expected[coord]
        if a is None or b is None:
            wrong.append(coord)
            continue
        if a.letter != b.letter and not (a.blank and b.blank) or a.blank != b.blank or not b.blank and a.rotation != b.rotation or a.set is not None and b.set is not None and a.set != b.set:
            wrong.append(coord)
    return wrong


def _confirm(state: HouseState, action: Confirm) -> Outcome:
    b = state.boards[action.index]
    x = b.pending
    if x is None:
        return _refuse(state, None, "No explosion is waiting on this board")
    mover = player_at(action.index, x.mover)
    wrong = same_tiles(action.board, x.after)
    if wrong:
        return Outcome(state, (_waiting(state, mover, x, action.board, wrong),))
    partner = partner_of(mover)
    state = _set_rack(state, partner, state.racks[partner] + tuple(key_of(t) for t in x.passed))
    n = len(x.passed)
    msg = f"Explosion done: {n} tile{'s' if n != 1 else ''} to {state.names[partner]}" if n else "Tiles turned"
    return _end_turn(state, mover, x.after, (Verdict(VerdictKind.CONFIRMED, mover, msg, x, x.words, x.removed),))


def _waiting(state: HouseState, mover: int, x: Explosion, seen: Board, wrong: list[Coord]) -> Verdict:
    removed = set(x.removed)
    to_remove = [c for c in wrong if c in removed and c in seen]
    to_turn = [c for c in wrong if c in set(x.turned) and c not in removed and c in seen]
    other = [c for c in wrong if c not in to_remove and c not in to_turn]
    parts = []
    if to_turn:
        parts.append("turn " + " ".join(format_square(c) for c in to_turn))
    if to_remove:
        parts.append("take off " + " ".join(format_square(c) for c in to_remove))
    if other:
        parts.append("not as shown: " + " ".join(format_square(c) for c in other))
    return Verdict(VerdictKind.WAITING, mover, "; ".join(parts), x, x.words, tuple(wrong))


def _pass(state: HouseState, player: int) -> Outcome:
    error = _turn_error(state, player)
    if error:
        return _refuse(state, player, error)
    verdict = Verdict(VerdictKind.PASSED, player, f"{state.names[player]} passes")
    return _end_turn(state, player, state.boards[board_of(player)].board, (verdict,))


def _challenge(state: HouseState, action: Challenge, lexicon: Container[str]) -> Outcome:
    me = action.player
    if not state.options.challenges:
        return _refuse(state, me, "Every word is checked by the list as it is played: there is nothing to challenge")
    if not 0 <= me < 4 or action.board not in (0, 1):
        return _refuse(state, me, "A challenge names a player and a board")
    last = state.boards[action.board].last
    if last is None:
        return _refuse(state, me, f"No play on board {action.board + 1} to challenge")
    mover, words = last
    if team_of(me) == team_of(mover):
        return _refuse(state, me, f"{state.names[me]} cannot challenge a partner's play")
    bad = [w for w in words if w not in lexicon]
    right = me if bad else mover
    what = f"{', '.join(bad)} {'is' if len(bad) == 1 else 'are'} not in the word list" if bad else \
        f"{', '.join(words)} {'is a word' if len(words) == 1 else 'are words'}"
    reason = f"{state.names[me]} challenged {state.names[mover]}'s {', '.join(words)}: {what}; " \
             f"{state.names[right]}'s side wins"
    return Outcome(replace(state, winner=team_of(right), reason=reason), (Verdict(VerdictKind.WON, right, reason),))


def _flag_fall(state: HouseState, player: int) -> Outcome:
    winner = 1 - team_of(player)
    reason = f"{state.names[player]} ran out of time"
    return Outcome(replace(state, winner=winner, reason=reason), (Verdict(VerdictKind.WON, None, reason),))


# ---------------------------------------------------------------------------------------------
# The table's surface: a reading of one board


def board_from_cells(cells: Sequence) -> tuple[Board, list[str]]:
    """The tiles a reading shows (a blank's letter ``?``) and the questions it raises
    (face-down or sideways tiles)."""
    from companion.vision.reading import BLANK_FACE

    tiles: dict[Coord, Tile] = {}
    questions: list[str] = []
    for cell in cells:
        coord = (cell.row, cell.col)
        if cell.kind == "back":
            questions.append(f"A face-down tile lies on {format_square(coord)}")
        elif cell.kind == "tile":
            if cell.rotation in (90, 270):
                questions.append(f"The tile on {format_square(coord)} faces neither player: turn it")
                continue
            blank = cell.letter == BLANK_FACE
            tiles[coord] = Tile(BLANK if blank else cell.letter, blank=blank, rotation=cell.rotation, set=cell.set)
    return Board(STANDARD, tiles), questions


def _question(state: HouseState, player: int, message: str, squares: Iterable[Coord] = ()) -> Outcome:
    return Outcome(state, (Verdict(VerdictKind.QUESTION, player, message, squares=tuple(squares)),))


def judge_reading(state: HouseState, index: int, cells: Sequence, lexicon: Container[str]) -> Outcome:
    """A new reading of board ``index`` (CellReading values, as the stabiliser accepts them)
    against the state: the move it shows (its explosion shown, or the turn done), the
    confirmation of the explosion shown, or why not.

    A reading that already shows part of the explosion done (tiles turned or taken off before
    the camera saw the play) is the same play when every such change is the explosion's; when
    it shows the whole explosion done, the play and its confirmation come together.
    """
    seen, questions = board_from_cells(cells)
    b = state.boards[index]
    mover = state.to_move(index)
    if state.over:
        return _refuse(state, mover, f"The match is over: {state.reason}")
    if questions:
        return Outcome(state, tuple(Verdict(VerdictKind.QUESTION, mover, q) for q in questions))
    if b.pending is not None:
        return apply(state, Confirm(index, seen), lexicon)
    accepted = b.board
    new = {c: t for c, t in seen.items() if c not in accepted}
    changed = [c for c in same_tiles(seen, accepted) if c in accepted]
    if not new:
        if changed:
            return _question(state, mover, "Tiles changed without a play: " + _squares(changed), changed)
        return Outcome(state, (Verdict(VerdictKind.NOTHING, mover, "No change"),))
    seats = {seat_of(t) for t in new.values() if not t.blank}
    if len(seats) > 1:
        return _refuse(state, mover, "The new tiles face both players", squares=tuple(sorted(new)))
    s = seats.pop() if seats else b.to_move
    if s != b.to_move:
        return _refuse(state, player_at(index, s), f"It is {state.names[mover]}'s turn", squares=tuple(sorted(new)))
    new = {c: facing(t, s) for c, t in new.items()}  # a blank faces whoever laid it
    alphabet = get_tileset(state.options.tileset).alphabetical()
    named = _name_blanks(accepted, new, s, lexicon, alphabet)
    if named is None:
        blanks = sorted(c for c, t in new.items() if t.blank)
        return _question(state, mover, f"Which letter is the blank on {_squares(blanks)}?", blanks)
    out = apply(state, Play(mover, tuple(sorted(named.items()))), lexicon)
    v = out.verdict
    if v.kind is VerdictKind.REFUSED or not changed:
        return out
    x = v.explosion
    assert x is not None
    bad = [c for c in changed if c not in set(x.turned) | set(x.removed)]
    if bad:
        return _question(state, mover, "Tiles changed that the play does not change: " + _squares(bad), bad)
    if v.kind is VerdictKind.EXPLOSION and not same_tiles(seen, x.after):
        done = apply(out.state, Confirm(index, seen), lexicon)
        return Outcome(done.state, out.verdicts + done.verdicts)
    return out


def _squares(coords: Iterable[Coord]) -> str:
    return " ".join(format_square(c) for c in coords)


def _name_blanks(
    board: Board, new: dict[Coord, Tile], s: int, lexicon: Container[str], alphabet: Sequence[str]
) -> dict[Coord, Tile] | None:
    """The new tiles with their blanks' letters: the one choice that makes every new word a
    word; the play as it is when its shape is wrong whatever the letters (the rules say why);
    None when no choice or several do."""
    blanks = [c for c, t in new.items() if t.blank and t.letter == BLANK]
    if not blanks:
        return new
    if len(blanks) > 2:
        return None
    found = None
    for letters in product(alphabet, repeat=len(blanks)):
        trial = dict(new)
        for c, letter in zip(blanks, letters):
            trial[c] = replace(new[c], letter=letter)
        error = play_error(board, trial, s, lexicon)
        if error is not None and not error.words:
            return trial
        if error is None:
            if found is not None:
                return None
            found = trial
    return found


# ---------------------------------------------------------------------------------------------
# The text form: 15 lines of 15 characters


def tiles_from_text(text: str, layout=STANDARD) -> dict[Coord, Tile]:
    """A board (or a play) as text: ``.`` an empty square, an upper-case letter a tile upright
    to the bottom player (rotation 0), a lower-case letter a tile upright to the top player
    (rotation 180). Every mistake is one CompanionError naming the line and column."""
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) != layout.rows:
        raise CompanionError(f"{len(lines)} lines: a board is {layout.rows} lines of {layout.cols} characters")
    tiles: dict[Coord, Tile] = {}
    for r, line in enumerate(lines):
        line = line.rstrip("\r")
        if len(line) != layout.cols:
            raise CompanionError(f"line {r + 1}: {len(line)} characters, a board line has {layout.cols}")
        for c, ch in enumerate(line):
            if ch == ".":
                continue
            if not ch.isalpha() or ch.upper() == ch.lower():
                raise CompanionError(f"line {r + 1}, column {c + 1}: {ch!r} is neither a letter nor '.'")
            tiles[(r, c)] = Tile(ch.upper(), rotation=0 if ch.isupper() else 180)
    return tiles


def board_to_text(board: Board) -> str:
    """The text form of a board: upper case faces the bottom player, lower case the top."""
    rows = []
    for r in range(board.layout.rows):
        row = []
        for c in range(board.layout.cols):
            t = board[(r, c)]
            row.append("." if t is None else t.letter.upper() if seat_of(t) == BOTTOM else t.letter.lower())
        rows.append("".join(row))
    return "\n".join(rows)
