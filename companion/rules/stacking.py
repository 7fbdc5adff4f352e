"""The stacking game (rules/003_48ff3863d1643833.txt): tiles stack on tiles, bought tiles cost
points, rainbow tiles double words.

The game is a value (:class:`StackingState`) and a pure function (:func:`apply`) from a state
and an action to the next state and its :class:`Verdict` s, so a game is the fold of its actions
over :func:`new_game`. Every random thing the text asks for (the pool's order, which opening
tile is rainbow, the 1-in-14 rainbow draws, where a wild refused by the marketplace goes back)
comes from the state's :class:`Randomness`, by default seeded (:class:`Seeded`): the same seed
and the same actions give the same game, tile for tile. Nothing here reads a clock or a file.

The rules, as the text gives them:

- **Words.** Every word (across and down, two letters or more) that the move makes or changes
  must be in the lexicon; a move must make or change at least one. A changed word is one that
  holds a tile placed this turn, on an empty square or on top of a tile.
- **Placing.** One line, no gap; the first turn makes a word of two or more letters through the
  centre START square; later turns touch or cover a tile. A tile may go on top of a tile, but
  every turn puts at least one tile on an empty square, and no turn covers every tile of a word
  that was on the board (a run of two or more tiles, across or down).
- **Scoring.** Every changed word scores, once; words the move does not touch do not. A tile
  scores its value times its height in its stack (the first tile 1x, the second 2x, ...). A
  wild tile scores zero. Letter premiums multiply the new tile on the square, word premiums the
  whole word. A rainbow tile doubles every changed word it is the top tile of, in the turn it
  is laid and in every later turn while it is not covered.
- **The marketplace.** Shared by all; a player's purchases cost 5, 10, 15, 25, 40, ... each
  player counting their own; a purchase never takes the score below zero. A bought tile goes to
  the rack (from where the same turn may play it: the text's "directly to the board"). The
  marketplace is restocked from the pool at once; a wild that would enter it goes back into the
  pool (at a random place below the tile drawn instead) and the next tile is drawn. Marketplace
  tiles are never rainbow.
- **Wild tiles** are in the pool from the start (as many as the tile set has blanks, scaled with
  the pool), score zero, take a letter when played, and a wild placed on a tile must change the
  letter of that square (SAT may become SIT, not SAT).
- **Rainbow tiles.** Every opening rack has one, chosen at random among its non-wild tiles;
  every later non-wild tile drawn into a rack is rainbow with chance 1 in 14.
- **Redraw** the whole rack for 5 points, and the turn is over; **pass**; **concede** (the
  player leaves, the others play on).
- **The end.** After a turn that leaves the pool empty, or every square covered, or when every
  player still in the game has passed in a row; also when all but one have conceded. The highest
  score wins; players who conceded cannot win; a tie is a shared win. No rack points are counted
  at the end: the text names none.

Choices the text leaves open, each an option of :class:`StackingOptions` (the default first):

- ``premiums``: ``first-tile``, a premium square counts only for the tile that first covers
  it (it is hidden from then on, as a used premium is in the classic game), or
  ``every-tile``: every tile placed on it, at any height, gets it again.
- ``prices``: ``sum-of-two``, after 5, 10, 15, 25, 40 each price is the sum of the two before
  (65, 105, 170, ...), which is how those five numbers grow already; or ``capped``: 40 for
  every purchase after the fifth.
- ``rainbows``: ``each``, a word with two rainbow top tiles is doubled twice (x4), as two
  double-word squares would; or ``once``: doubled once however many it holds.
- ``pool_sizes``: the pools of the Short, Normal and Long games, 60, 100 and 150 tiles (the
  text gives no numbers): the tile set's 100 tiles for Normal, scaled in proportion (at least
  one of each letter, largest remainders) for the others.
- ``rack_size`` 7 and ``market_size`` 3 (the text gives neither).
- ``same_letter``: True, a tile (not a wild) may cover a tile of the same letter: the text
  forbids that only for wild tiles. False: no tile may (as in other stacking games).
- ``max_height``: None, stacks grow without limit ("Stacks keep growing").
- ``redraw_needs_score``: True, a redraw spends 5 points of finalised score like a purchase and
  is refused below 5; False lets a score go negative.
- ``area``: None, the whole board is played on. A number N (odd, 3 up to the board's size):
  only the centre N x N squares are (a short game at a real table, where "every square is
  covered" is reachable: 225 squares outnumber even the Long pool). Squares keep the board's
  names and premiums; a tile outside the area is refused; the board is full when every square
  of the area is covered.

Other decisions, as players at the table would expect: purchases are made by the player to
move, before their play, pass or redraw (so only finalised score is spent; the turn goes on);
the rack is refilled to ``rack_size`` after a play (a rack grown past it by purchases draws
nothing); a redraw puts the rack back in the pool, shuffles and draws as many tiles, and is not
a pass; a player who concedes puts their rack back in the pool, and the count of passes in a
row is then held against the players still in; the first player is seat 0 unless ``first``
says otherwise.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Container, Iterable, Protocol, Sequence

from companion.core.board import STANDARD, Board, Coord, Direction, Layout, Tile
from companion.core.move import Placement, format_square
from companion.core.stacks import StackBoard
from companion.core.tiles import BLANK, TileSet, get_tileset
from companion.core.words import Word, WordScore, run_through, score_word, words_formed
from companion.core.errors import CompanionError
from companion.rules.common import TOO_SHORT, IllegalPlay, geometry_error, not_in_dictionary, unknown_words

RAINBOW_ODDS = 14  # "a 1-in-14 chance to become rainbow"
REDRAW_COST = 5
FIRST_PRICES = (5, 10, 15, 25, 40)

WILD_SAME_LETTER = "A wild tile placed on a tile must change that square's letter"
SAME_LETTER = "A tile placed on a tile must change that square's letter"
NO_WORD = "A valid play must make or change at least one word with two or more letters"


class GameLength(str, Enum):
    SHORT = "short"
    NORMAL = "normal"
    LONG = "long"


class PremiumRule(str, Enum):
    FIRST_TILE = "first-tile"
    EVERY_TILE = "every-tile"


class PriceRule(str, Enum):
    SUM_OF_TWO = "sum-of-two"
    CAPPED = "capped"


class RainbowRule(str, Enum):
    EACH = "each"
    ONCE = "once"


class EndReason(str, Enum):
    POOL_EMPTY = "pool-empty"
    ALL_PASSED = "all-passed"
    BOARD_FULL = "board-full"
    CONCEDED = "conceded"  # one player left

    @property
    def text(self) -> str:
        return {
            EndReason.POOL_EMPTY: "the tile pool is empty",
            EndReason.ALL_PASSED: "every player passed in a row",
            EndReason.BOARD_FULL: "every square is covered",
            EndReason.CONCEDED: "every other player conceded",
        }[self]


@dataclass(frozen=True)
class StackingOptions:
    tileset: str = "en"
    length: GameLength = GameLength.NORMAL
    pool_sizes: tuple[int, int, int] = (60, 100, 150)  # Short, Normal, Long
    rack_size: int = 7
    market_size: int = 3
    premiums: PremiumRule = PremiumRule.FIRST_TILE
    prices: PriceRule = PriceRule.SUM_OF_TWO
    rainbows: RainbowRule = RainbowRule.EACH
    same_letter: bool = True
    max_height: int | None = None
    redraw_needs_score: bool = True
    layout: Layout = STANDARD
    area: int | None = None  # the centre N x N squares only; None: the whole board

    @property
    def pool_size(self) -> int:
        return self.pool_sizes[list(GameLength).index(self.length)]

    @property
    def bounds(self) -> tuple[int, int, int, int]:
        """The squares played on: (first row, first column, last row, last column)."""
        layout = self.layout
        if self.area is None:
            return (0, 0, layout.rows - 1, layout.cols - 1)
        half = self.area // 2
        (r, c) = layout.centre
        return (r - half, c - half, r + half, c + half)

    def in_area(self, coord: Coord) -> bool:
        r0, c0, r1, c1 = self.bounds
        return r0 <= coord[0] <= r1 and c0 <= coord[1] <= c1

    @property
    def area_text(self) -> str:
        """``the centre 3x3 squares, G7 to I9`` (or ``the whole board``)."""
        if self.area is None:
            return "the whole board"
        r0, c0, r1, c1 = self.bounds
        return f"the centre {self.area}x{self.area} squares, {format_square((r0, c0))} to {format_square((r1, c1))}"


def area_error(area: int | None, layout: Layout) -> str | None:
    """Why ``area`` cannot be played on ``layout``, or None."""
    if area is None:
        return None
    largest = min(layout.rows, layout.cols)
    if isinstance(area, bool) or not isinstance(area, int) or area < 3 or area % 2 == 0 or area > largest:
        return f"the play area is an odd number of squares from 3 to {largest}, not {area!r}"
    r, c = layout.centre
    if not (area // 2 <= r < layout.rows - area // 2 and area // 2 <= c < layout.cols - area // 2):
        return f"a {area}x{area} area around the centre does not fit on the {layout.name} board"
    return None


def board_full(board: StackBoard, options: StackingOptions) -> bool:
    """Every square of the play area holds at least one tile."""
    r0, c0, r1, c1 = options.bounds
    return all(board.height((r, c)) > 0 for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))


def empty_squares(board: StackBoard, options: StackingOptions) -> int:
    """How many squares of the play area hold no tile."""
    r0, c0, r1, c1 = options.bounds
    return sum(board.height((r, c)) == 0 for r in range(r0, r1 + 1) for c in range(c0, c1 + 1))


def price(bought: int, rule: PriceRule = PriceRule.SUM_OF_TWO) -> int:
    """What a player's next purchase costs when they have made ``bought`` before."""
    if bought < 0:
        raise ValueError("a negative number of purchases")
    if bought < len(FIRST_PRICES):
        return FIRST_PRICES[bought]
    if rule is PriceRule.CAPPED:
        return FIRST_PRICES[-1]
    a, b = FIRST_PRICES[-2], FIRST_PRICES[-1]
    for _ in range(bought - len(FIRST_PRICES) + 1):
        a, b = b, a + b
    return b


def pool_counts(tileset: TileSet, size: int) -> Counter[str]:
    """The tiles of a pool of ``size``: the tile set itself at its own size, else its letters
    (and blanks, the wilds) in proportion, at least one of each, the largest remainders
    rounding up (ties in the set's order)."""
    bag = tileset.bag()
    total = bag.total()
    if size == total:
        return bag
    kinds = [k for k in [BLANK, *tileset.alphabetical()] if bag[k] > 0]
    if size < len(kinds):
        raise CompanionError(f"a pool of {size} tiles cannot hold one of each of {len(kinds)} kinds")
    counts = Counter({k: max(1, size * bag[k] // total) for k in kinds})

    # What each kind still lacks of its exact share (times ``total``, to stay in integers); a
    # kind raised to one already has more than its share and lacks a negative amount.
    def lack(k: str) -> int:
        return size * bag[k] - counts[k] * total

    while counts.total() < size:
        counts[max(kinds, key=lambda k: (lack(k), -kinds.index(k)))] += 1
    while counts.total() > size:  # the minimum of one overshot: take from the most over its share
        counts[min(kinds, key=lambda k: (lack(k) if counts[k] > 1 else total * size, kinds.index(k)))] -= 1
    return counts


# ---------------------------------------------------------------------------------------------
# Randomness


class Randomness(Protocol):
    """Where the game's random draws come from: the n-th draw of a game uses ``stream(n)``."""

    def stream(self, n: int) -> random.Random: ...


@dataclass(frozen=True)
class Seeded:
    seed: int

    def stream(self, n: int) -> random.Random:
        return random.Random(f"stacking:{self.seed}:{n}")


# ---------------------------------------------------------------------------------------------
# Actions


@dataclass(frozen=True)
class Play:
    placement: Placement
    rainbow: frozenset[Coord] = frozenset()  # squares where a rainbow tile of the rack is laid


@dataclass(frozen=True)
class Buy:
    letter: str


@dataclass(frozen=True)
class Pass:
    pass


@dataclass(frozen=True)
class Redraw:
    pass


@dataclass(frozen=True)
class Concede:
    player: int


Action = Play | Buy | Pass | Redraw | Concede


# ---------------------------------------------------------------------------------------------
# State


@dataclass(frozen=True)
class PlayerState:
    name: str
    score: int = 0
    rack: tuple[str, ...] = ()  # sorted; ``?`` a wild
    rainbows: tuple[str, ...] = ()  # the letters of the rack's rainbow tiles (part of ``rack``)
    purchases: int = 0
    conceded: bool = False


@dataclass(frozen=True)
class StackingState:
    options: StackingOptions
    players: tuple[PlayerState, ...]
    board: StackBoard
    rainbow: frozenset[Coord]  # squares whose top tile is a rainbow tile
    pool: tuple[str, ...]  # in draw order
    market: tuple[str, ...]
    to_move: int
    randomness: Randomness = field(compare=False, repr=False)
    rolls: int = 0  # random draws made so far: the next uses randomness.stream(rolls)
    passes_in_a_row: int = 0
    turn: int = 0  # turns completed
    over: bool = False
    end: EndReason | None = None

    @property
    def tileset(self) -> TileSet:
        return get_tileset(self.options.tileset)

    @property
    def active(self) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.players) if not p.conceded)

    def next_price(self, player: int) -> int:
        return price(self.players[player].purchases, self.options.prices)

    def winners(self) -> tuple[int, ...]:
        if not self.over:
            return ()
        best = max(self.players[i].score for i in self.active)
        return tuple(i for i in self.active if self.players[i].score == best)


# ---------------------------------------------------------------------------------------------
# Verdicts


class VerdictKind(str, Enum):
    PLAYED = "played"
    REFUSED = "refused"  # nothing changed; the same player goes on
    BOUGHT = "bought"
    PASSED = "passed"
    REDRAWN = "redrawn"
    CONCEDED = "conceded"
    GAME_OVER = "game-over"


@dataclass(frozen=True)
class StackedWordScore:
    """A changed word: the core's score (letters times heights, premiums) doubled by rainbows."""

    base: WordScore
    heights: tuple[int, ...]  # of each square of the word, after the move
    rainbows: int  # rainbow top tiles in the word
    doubling: int  # 2 ** rainbows, or 2 for any with the ``once`` rule
    score: int

    @property
    def word(self) -> Word:
        return self.base.word


@dataclass(frozen=True)
class StackPlayScore:
    words: tuple[StackedWordScore, ...]
    total: int


@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
    player: int
    message: str
    score: StackPlayScore | None = None
    points: int = 0  # change to the player's score
    words: tuple[str, ...] = ()
    drawn: tuple[str, ...] = ()  # tiles the player takes from the pool (the page deals them)
    drawn_rainbows: tuple[str, ...] = ()  # which of them are rainbow (each marked by a token)
    restocked: tuple[str, ...] = ()  # tiles put out in the marketplace
    squares: tuple[Coord, ...] = ()  # squares the refusal is about


@dataclass(frozen=True)
class Outcome:
    state: StackingState
    verdicts: tuple[Verdict, ...] = ()

    @property
    def verdict(self) -> Verdict:
        return self.verdicts[0]


# ---------------------------------------------------------------------------------------------
# Scoring


def score_play(
    board: StackBoard,
    rainbow: frozenset[Coord],
    placement: Placement,
    laid_rainbow: Iterable[Coord],
    tileset: TileSet,
    options: StackingOptions = StackingOptions(),
) -> StackPlayScore:
    """Every word the placement makes or changes on ``board`` (whose rainbow top tiles are
    ``rainbow``), scored; ``laid_rainbow`` the squares where the play lays rainbow tiles."""
    after = board.with_tiles((t.coord, t.tile) for t in placement.tiles)
    rainbow_after = (rainbow - set(placement.coords)) | set(laid_rainbow)
    if options.premiums is PremiumRule.FIRST_TILE:
        premium_squares: Container[Coord] | None = {t.coord for t in placement.tiles if t.coord not in board}
    else:
        premium_squares = None

    def stacked_value(square: Coord, tile: Tile, word: Word) -> int:
        return tileset.value(tile.letter, tile.blank) * after.height(square)

    words = []
    for word in words_formed(board.top, placement):
        base = score_word(after.top, word, tileset, stacked_value, premium_squares)
        rainbows = sum(1 for s in word.squares if s in rainbow_after)
        if options.rainbows is RainbowRule.EACH:
            doubling = 2**rainbows
        else:
            doubling = 2 if rainbows else 1
        heights = tuple(after.height(s) for s in word.squares)
        words.append(StackedWordScore(base, heights, rainbows, doubling, base.score * doubling))
    return StackPlayScore(tuple(words), sum(w.score for w in words))


def explain(word: StackedWordScore, tileset: TileSet) -> str:
    """A word's score as the text writes one: ``MEN: M3 x3 + E1 + N1 x2 = 12``; a letter
    premium by its name (``H4 TL``), word premiums and rainbow doubles after the letters."""
    letter_premium = {2: "DL", 3: "TL"}
    parts = []
    for tile, height, points in zip(word.word.tiles, word.heights, word.base.points):
        value = tileset.value(tile.letter, tile.blank)
        part = f"{tile.gcg}{value}" + (f" x{height}" if height > 1 else "")
        factor = points // (value * height) if value else 1  # the letter premium it got
        if factor > 1:
            part += f" {letter_premium.get(factor, f'x{factor}')}"
        parts.append(part)
    text = " + ".join(parts)
    if word.base.multiplier > 1:
        text = f"({text}) x{word.base.multiplier}"
    if word.doubling > 1:
        text += f" x{word.doubling} rainbow"
    return f"{word.word.gcg}: {text} = {word.score}"


def covered_word(top: Board, placement: Placement) -> str | None:
    """A word of ``top`` (the board's top tiles) that the placement would cover whole, or None."""
    placed = set(placement.coords)
    for t in placement.tiles:
        if t.coord not in top:
            continue
        for direction in Direction:
            run = run_through(top, t.coord, direction)
            if len(run) >= 2 and all(s in placed for s in run):
                return "".join(top[s].letter for s in run)  # type: ignore[union-attr]
    return None


def read_tokens(
    state: StackingState, placement: Placement | None, tokens: Iterable[Coord]
) -> tuple[frozenset[Coord], tuple[str, ...]]:
    """At a real table a rainbow tile carries a token. From the squares where the camera sees
    tokens after a turn: the squares where ``placement`` lays rainbow tiles, and the questions
    the tokens raise (a token on a tile that is no rainbow tile, a rainbow tile that lost its
    token, a covered rainbow tile whose token stayed)."""
    seen = set(tokens)
    placed = {t.coord: t for t in placement.tiles} if placement is not None else {}
    rainbows = Counter(state.players[state.to_move].rainbows)
    laid: set[Coord] = set()
    questions = []
    for coord in sorted(seen):
        tile = placed.get(coord)
        if tile is not None:
            if not tile.blank and rainbows[tile.letter] > 0:
                rainbows[tile.letter] -= 1
                laid.add(coord)
            elif coord in state.rainbow:
                questions.append(f"the rainbow tile on {format_square(coord)} is covered: take its token off")
            else:
                questions.append(f"a token on {format_square(coord)}: that tile is not a rainbow tile")
        elif coord not in state.rainbow:
            questions.append(f"a token on {format_square(coord)}, which holds no rainbow tile: take it off")
    for coord in sorted(state.rainbow - seen - set(placed)):
        questions.append(f"the rainbow tile on {format_square(coord)} has lost its token: put it back")
    return frozenset(laid), tuple(questions)


# ---------------------------------------------------------------------------------------------
# Starting


def new_game(
    names: Sequence[str],
    options: StackingOptions = StackingOptions(),
    *,
    seed: int = 0,
    first: int = 0,
    randomness: Randomness | None = None,
) -> StackingState:
    """A game ready for its first move: the pool shuffled, every rack drawn with its rainbow
    tile, the marketplace put out."""
    if not 1 <= len(names) <= 4:
        raise CompanionError(f"the stacking game is for 1 to 4 players, not {len(names)}")
    if len(set(names)) != len(names):
        raise CompanionError("two players have the same name")
    if not 0 <= first < len(names):
        raise CompanionError(f"player {first + 1} does not exist")
    if options.rack_size < 1 or options.market_size < 0:
        raise CompanionError("a rack holds at least one tile and the marketplace none or more")
    bad_area = area_error(options.area, options.layout)
    if bad_area is not None:
        raise CompanionError(bad_area)
    tileset = get_tileset(options.tileset)
    pool = list(pool_counts(tileset, options.pool_size).elements())
    if len(pool) <= len(names) * options.rack_size + options.market_size:
        raise CompanionError(
            f"a pool of {len(pool)} tiles cannot deal {len(names)} racks of {options.rack_size}, "
            f"put out {options.market_size} and keep a tile to draw"
        )
    state = StackingState(
        options,
        tuple(PlayerState(n) for n in names),
        StackBoard(options.layout),
        frozenset(),
        (),
        (),
        first,
        randomness if randomness is not None else Seeded(seed),
    )
    state, rng = _random(state)
    rng.shuffle(pool)
    state = replace(state, pool=tuple(pool))
    for i in range(len(names)):
        state, _, _ = _draw(state, i, options.rack_size, opening=True)
    state, _ = _restock(state)
    return state


# ---------------------------------------------------------------------------------------------
# Applying actions


def apply(state: StackingState, action: Action, lexicon: Container[str]) -> Outcome:
    """The state after ``action`` by the player to move (a concession names its player)."""
    if state.over:
        return _refuse(state, "The game is over")
    if isinstance(action, Concede):
        return _concede(state, action.player)
    if isinstance(action, Play):
        return _play(state, action, lexicon)
    if isinstance(action, Buy):
        return _buy(state, action.letter)
    if isinstance(action, Pass):
        return _pass(state)
    if isinstance(action, Redraw):
        return _redraw(state)
    raise TypeError(action)  # pragma: no cover - the union is closed


def _refuse(
    state: StackingState, message: str, words: tuple[str, ...] = (), squares: tuple[Coord, ...] = ()
) -> Outcome:
    return Outcome(
        state, (Verdict(VerdictKind.REFUSED, state.to_move, message, words=words, squares=squares),)
    )


def _random(state: StackingState) -> tuple[StackingState, random.Random]:
    return replace(state, rolls=state.rolls + 1), state.randomness.stream(state.rolls)


def _set_player(state: StackingState, index: int, **changes: object) -> StackingState:
    players = list(state.players)
    players[index] = replace(players[index], **changes)  # type: ignore[arg-type]
    return replace(state, players=tuple(players))


def _draw(
    state: StackingState, player: int, n: int, *, opening: bool = False
) -> tuple[StackingState, tuple[str, ...], tuple[str, ...]]:
    """``player`` takes up to ``n`` tiles from the pool: (state, tiles drawn, rainbow ones)."""
    n = max(0, min(n, len(state.pool)))
    drawn, rest = state.pool[:n], state.pool[n:]
    state, rng = _random(state)
    if opening:
        letters = [t for t in drawn if t != BLANK]
        rainbows = (rng.choice(letters),) if letters else ()
    else:
        rainbows = tuple(t for t in drawn if t != BLANK and rng.randrange(RAINBOW_ODDS) == 0)
    p = state.players[player]
    state = replace(state, pool=rest)
    state = _set_player(
        state,
        player,
        rack=tuple(sorted(p.rack + drawn)),
        rainbows=tuple(sorted(p.rainbows + rainbows)),
    )
    return state, drawn, rainbows


def _restock(state: StackingState) -> tuple[StackingState, tuple[str, ...]]:
    """Fill the marketplace from the pool; a wild goes back below the tile drawn instead."""
    pool = list(state.pool)
    market = list(state.market)
    put_out: list[str] = []
    while len(market) < state.options.market_size:
        i = next((k for k, t in enumerate(pool) if t != BLANK), None)
        if i is None:
            break  # only wilds left: the slot stays empty
        wilds, tile, pool = pool[:i], pool[i], pool[i + 1 :]
        if wilds:
            state, rng = _random(state)
            for w in wilds:
                pool.insert(rng.randint(0, len(pool)), w)
        market.append(tile)
        put_out.append(tile)
    return replace(state, pool=tuple(pool), market=tuple(sorted(market))), tuple(put_out)


def _take(rack: Sequence[str], tiles: Iterable[str]) -> tuple[str, ...] | None:
    have, need = Counter(rack), Counter(tiles)
    if any(have[t] < k for t, k in need.items()):
        return None
    return tuple(sorted((have - need).elements()))


def rack_tiles(placement: Placement) -> list[str]:
    """The rack tiles a placement uses: its letters, ``?`` for each wild."""
    return [BLANK if t.blank else t.letter for t in placement.tiles]


def placement_error(board: StackBoard, placement: Placement, options: StackingOptions) -> IllegalPlay | None:
    """The first rule of placing the tiles break on ``board``, or None (the words are not
    looked up here: that needs the lexicon, and a record is rescored without one)."""
    tileset = get_tileset(options.tileset)
    top = board.top
    for t in placement.tiles:
        if t.letter not in tileset.alphabet:
            return IllegalPlay(f"{t.letter} is not a letter of the {tileset.name} tile set")
        if not options.in_area(t.coord):
            return IllegalPlay(
                f"{format_square(t.coord)} is outside the play area ({options.area_text})", squares=(t.coord,)
            )
    error = geometry_error(top, placement, stacking=True)
    if error is not None:
        return error
    for t in placement.tiles:
        under = top[t.coord]
        if under is None:
            continue
        where = (t.coord,)
        if options.max_height is not None and board.height(t.coord) >= options.max_height:
            return IllegalPlay(f"A stack holds at most {options.max_height} tiles", squares=where)
        if under.letter == t.letter:
            if t.blank:
                return IllegalPlay(WILD_SAME_LETTER, squares=where)
            if not options.same_letter:
                return IllegalPlay(SAME_LETTER, squares=where)
    whole = covered_word(top, placement)
    if whole is not None:
        return IllegalPlay(f"You cannot completely cover the word {whole} in one turn", words=(whole,))
    if not words_formed(top, placement):
        return IllegalPlay(TOO_SHORT if board.tile_count() == 0 else NO_WORD)
    return None


def _play(state: StackingState, action: Play, lexicon: Container[str]) -> Outcome:
    me = state.to_move
    player = state.players[me]
    options = state.options
    placement = action.placement
    board = state.board
    error = placement_error(board, placement, options)
    if error is not None:
        return _refuse(state, error.message, error.words, error.squares)
    placed = {t.coord: t for t in placement.tiles}
    for square in action.rainbow:
        if square not in placed:
            return _refuse(state, f"No tile is laid on {format_square(square)} to be the rainbow tile")
        if placed[square].blank:
            return _refuse(state, "A wild tile cannot be rainbow", squares=(square,))
    used = rack_tiles(placement)
    rest = _take(player.rack, used)
    if rest is None:
        return _refuse(state, f"Those tiles are not on {player.name}'s rack")
    rainbow_used = [placed[s].letter for s in action.rainbow]
    rainbows_left = _take(player.rainbows, rainbow_used)
    if rainbows_left is None:
        return _refuse(state, f"{player.name} has no rainbow {'/'.join(sorted(rainbow_used))} on the rack")
    plain_used = Counter(t for t in used if t != BLANK) - Counter(rainbow_used)
    plain_have = Counter(t for t in player.rack if t != BLANK) - Counter(player.rainbows)
    short = plain_used - plain_have
    if short:
        letters = "/".join(sorted(short))
        return _refuse(state, f"{player.name}'s {letters} is a rainbow tile: say which square it is laid on")
    bad = unknown_words(words_formed(board.top, placement), lexicon.__contains__)
    if bad:
        return _refuse(state, not_in_dictionary(bad[0]), tuple(bad))
    score = score_play(board, state.rainbow, placement, action.rainbow, state.tileset, options)
    state = replace(
        state,
        board=board.with_tiles((t.coord, t.tile) for t in placement.tiles),
        rainbow=(state.rainbow - set(placed)) | action.rainbow,
        passes_in_a_row=0,
    )
    state = _set_player(state, me, score=player.score + score.total, rack=rest, rainbows=rainbows_left)
    state, drawn, drawn_rainbows = _draw(state, me, options.rack_size - len(rest))
    words = tuple(w.word.text for w in score.words)
    verdict = Verdict(
        VerdictKind.PLAYED,
        me,
        f"{'/'.join(words)} {score.total}",
        score=score,
        points=score.total,
        words=words,
        drawn=drawn,
        drawn_rainbows=drawn_rainbows,
    )
    return _end_turn(state, verdict)


def _buy(state: StackingState, letter: str) -> Outcome:
    me = state.to_move
    player = state.players[me]
    letter = letter.upper()
    if letter not in state.market:
        return _refuse(state, f"There is no {letter} in the marketplace")
    cost = state.next_price(me)
    if player.score < cost:
        return _refuse(
            state,
            f"{letter} costs {cost} points and {player.name} has {player.score}: you cannot buy below zero",
        )
    market = list(state.market)
    market.remove(letter)
    state = replace(state, market=tuple(market))
    state = _set_player(
        state,
        me,
        score=player.score - cost,
        rack=tuple(sorted(player.rack + (letter,))),
        purchases=player.purchases + 1,
    )
    state, restocked = _restock(state)
    nxt = state.next_price(me)
    verdict = Verdict(
        VerdictKind.BOUGHT,
        me,
        f"{player.name} buys {letter} for {cost} (next {nxt})",
        points=-cost,
        restocked=restocked,
    )
    return Outcome(state, (verdict,))


def _pass(state: StackingState) -> Outcome:
    me = state.to_move
    state = replace(state, passes_in_a_row=state.passes_in_a_row + 1)
    return _end_turn(state, Verdict(VerdictKind.PASSED, me, f"{state.players[me].name} passes"))


def _redraw(state: StackingState) -> Outcome:
    me = state.to_move
    player = state.players[me]
    cost = REDRAW_COST
    if not player.rack:
        return _refuse(state, f"{player.name} has no tiles to redraw")
    if state.options.redraw_needs_score and player.score < cost:
        return _refuse(state, f"A redraw costs {cost} points and {player.name} has {player.score}")
    state = _set_player(state, me, score=player.score - cost, rack=(), rainbows=())
    state = _returned(state, player.rack)
    state, drawn, drawn_rainbows = _draw(state, me, len(player.rack))
    state = replace(state, passes_in_a_row=0)
    verdict = Verdict(
        VerdictKind.REDRAWN,
        me,
        f"{player.name} redraws {len(drawn)} tiles for {cost} points",
        points=-cost,
        drawn=drawn,
        drawn_rainbows=drawn_rainbows,
    )
    return _end_turn(state, verdict)


def _returned(state: StackingState, tiles: Sequence[str]) -> StackingState:
    """Tiles go back into the pool, which is shuffled."""
    pool = list(state.pool) + list(tiles)
    state, rng = _random(state)
    rng.shuffle(pool)
    return replace(state, pool=tuple(pool))


def _concede(state: StackingState, who: int) -> Outcome:
    if not 0 <= who < len(state.players):
        return _refuse(state, f"player {who + 1} does not exist")
    player = state.players[who]
    if player.conceded:
        return _refuse(state, f"{player.name} has already conceded")
    state = _set_player(state, who, conceded=True, rack=(), rainbows=())
    state = _returned(state, player.rack)
    verdict = Verdict(VerdictKind.CONCEDED, who, f"{player.name} concedes")
    if len(state.active) <= 1:
        return Outcome(*_finish(state, EndReason.CONCEDED, (verdict,)))
    if state.to_move == who:
        state = replace(state, to_move=_next_seat(state, who))
    if state.passes_in_a_row >= len(state.active):
        return Outcome(*_finish(state, EndReason.ALL_PASSED, (verdict,)))
    return Outcome(state, (verdict,))


def _next_seat(state: StackingState, seat: int) -> int:
    n = len(state.players)
    nxt = (seat + 1) % n
    while state.players[nxt].conceded and nxt != seat:
        nxt = (nxt + 1) % n
    return nxt


def _end_turn(state: StackingState, verdict: Verdict) -> Outcome:
    state = replace(state, turn=state.turn + 1, to_move=_next_seat(state, state.to_move))
    reason = None
    if board_full(state.board, state.options):
        reason = EndReason.BOARD_FULL
    elif not state.pool:
        reason = EndReason.POOL_EMPTY
    elif state.passes_in_a_row >= len(state.active):
        reason = EndReason.ALL_PASSED
    if reason is None:
        return Outcome(state, (verdict,))
    return Outcome(*_finish(state, reason, (verdict,)))


def _finish(
    state: StackingState, reason: EndReason, verdicts: tuple[Verdict, ...]
) -> tuple[StackingState, tuple[Verdict, ...]]:
    state = replace(state, over=True, end=reason)
    names = " and ".join(state.players[i].name for i in state.winners())
    scores = ", ".join(f"{p.name} {p.score}" + (" (conceded)" if p.conceded else "") for p in state.players)
    message = f"Game over ({reason.text}): {scores}. Winner: {names}"
    return state, verdicts + (Verdict(VerdictKind.GAME_OVER, state.to_move, message),)
