"""Scrabble III For BIG Word Lovers (rules/001_6a9d70ff88341d6c.txt, Donald Sauter), exactly.

Two layers, both pure:

- **One play** (:func:`judge`, :func:`score_play`, :func:`find_pick_off`, :func:`main_direction`):
  whether tiles laid on a board (after 1 or 2 tiles picked off, rule 6.1) make a play, a valid
  one, and what it scores, each bonus apart (:class:`Scrabble3Score`). The camera's view of the
  two rules that take tiles *off* the board, a pick-off (6.1) and a swap for the blank (7), is
  :func:`pick_off_between` and :func:`blank_swap_between`: the board before and the board after,
  accepted exactly when the rules allow the change.
- **The game** (:class:`Scrabble3State`, :func:`apply`): racks of 8, the bag (a scoop of 100 of
  the 298 tiles), exchanges, invalid plays coming off, swaps for the blank, the end, the Swap
  Final Racks round and points per turn.

The shared mechanics are the classic game's: geometry (:func:`rules.common.geometry_error`),
the words a placement forms and their letter sums (:mod:`core.words`, told to cap small words
and to add word premiums), the 21x21 board (:data:`core.board.EXTENDED`), the 298-tile set
(``core/tilesets/super3.toml``).

**The main word** (rule 3), for every kind of play, as the text's DJINN/ANTIQUATED example
demands (a hook is never the main word):

- tiles laid in a line of two or more squares: the word along that line through them;
- one tile: the longer of the two words it forms (across on a tie). One tile hooking a big word
  (ANTIQUATE + D) makes the hooked word the main word: a stretch by one;
- a play after a pick-off: the word the tiles were picked from, stretched (the tiles laid must
  lie in its line);
- a play through tiles on the board: the whole run along the line, old tiles included.

The main word must be at least 6 letters (rule 3) and have a square in the inner 15x15 board
(rule 9, "connect to the classic, inner board": we read *connect* as *lie on*; a word wholly in
the wings that only touches the inner board's edge does not count). Every word formed must be
good (rule 2): words of three letters or more from the lexicon (the house English list stands
in for the American college dictionary, rule 1), two-letter words only from the slip's list
(:data:`SLIP_TWO_LETTER_WORDS`; a two-letter word is never a main word).

**Bonuses**, all additive (the slip):

- big play (rule 5): 20/50/80 for 6/7/8 tiles *from the rack*: tiles laid less tiles picked off
  (the text: "look at your rack to see how many tiles went missing");
- stretch (rule 6): when the main word holds a big word (6+ letters) that was on the board (the
  word picked from, for a pick-off), stretched by N letters, N counted the same way (the
  footprint: the text's DREAMY to dreamILY is *2): 2 -> 30, 3 -> 50, 4 -> 70, 5 -> 90, 6+ -> 100,
  plus the big-play bonus. That is the slip's table (100 "cap" from 6); the rule's table writes
  the sums (6 -> 120, 7 -> 150, 8 -> 180, "incorporates BIG PLAY bonus"): the two agree. They
  disagree only with the EX+TENDED example of rule 12, which counts a two-letter stretch as 20:
  the option :attr:`Scrabble3Options.stretch` chooses (``table``, the default: 30; ``extended``:
  20, the example);
- JQXZ (rule 12): each J, Q, X or Z laid upright this turn earns 10/20/30 in every big word it
  lies in (6/7/8+ letters): the main word, and a secondary word only when that is big too ("would
  only score another bonus if the secondary word were also a big word"). A flipped one is a
  blank (0 points, no bonus); one already on the board earns nothing. The text's "a 6-tiler
  using a JQXZ tile yields a 50 point bonus (20+30)" and "7-tiler ... 80 (50+30)" hold when
  the word has 8 letters or more; we keep its explicit rule ("the JQXZ bonus depends on word
  length, not tiles played"): JOKERS laid as a 6-tiler earns 20 + 10.

**Scoring** (rules 8, 11, 6.1): a letter in a word of 4 letters or fewer is worth at most the
word's length (the cap acts on the face value, before a letter premium); word premiums under new
tiles add (DW+DW 4x, TW+TW 6x, DW+TW 5x); after a pick-off, the squares of the original word
(those picked off included) give no premium.

**Decisions where the text leaves a choice** (each a named option or written here):

- ``stretch``: the two-letter stretch bonus, 30 (the table and the slip) or 20 (EX+TENDED).
- Pick-off (6.1): the 1 or 2 last tiles of a word of 2+ letters (across: the right end; down:
  the bottom), none of them in a word the other way, at least one letter of the word left; the
  tiles laid afterwards lie in that word's line, and the stretched word holds what is left of it
  and is longer than it was. A pick-off that breaks this is *refused* (the table asks: the tiles
  go back), like a play out of line; a play that breaks rules 1-3 or 9 is *invalid* (rule 2:
  it comes off, no score, the turn passes). The picked tiles are the player's: back on the rack
  first (a picked blank is the tile under it: a blank or a flipped JQXZ), so they may be laid
  again, swapped for a blank (the pick-swapper), or kept.
- Swap for the blank (rule 7): any number of times in a turn, before the play, with a tile
  showing the blank's letter (a J upright for a blank standing for J); the turn goes on.
- ``swap_final_racks`` (rule 13, "optional"): on by default. It is played when regular play
  ends (the bag empty and every player passing in turn, or ``scoreless_turns_to_end``
  scoreless turns) with two players both holding tiles. Each player in turn (the next to move
  first) makes one play with the other's rack on the final board, or declines. A good play
  scores its points + 50; a bad one (rule 2) costs its would-be points (without the 50). The
  attempts leave the board as it was: both players face the same board.
- ``stuck_turns`` (PPT, rule 13): ``text`` (the default): a player's stuck turns (the
  scoreless turns at the end of their regular play) count in their PPT only when the opponent
  found a good play with their rack; every final-racks attempt is a turn of the player making
  it. ``always`` counts stuck turns always, ``never`` never.
- ``end_rack_points``: the Scrabble III text says nothing of the tiles left at the end; on by
  default, as the classic game: each player loses their rack's value, one who went out gains
  the others'.
- Tile counts (rule 10): when the companion runs the bag, each game draws a scoop of 100 of the
  298 tiles (seeded). At a real table the scoop is unseen: the counts bound nothing beyond the
  298 (racks told at the end are checked against the 298, not against a scoop of 100).
- Exchanges need at least 8 tiles in the bag (rule 4); a player may pass.
- The slip's two-letter list ("RESPECTABLE and bearable") as the stored text has it breaks off
  after HO and goes on at PA: no word starting with I, L, M, N or O, a line of the slip lost.
  The text calls the list the "refined 2-letter word list" of Scrabble I to III; the author's
  Scrabble III sample-games page prints that list whole ("a refined list of 72 two-letter
  words"), and it completes the slip exactly: its 72 words are the slip's 50, in the slip's
  order, and 22 more, every one starting with I, L, M, N or O (ID IF IN IS IT LA LI LO MA ME MI
  MU MY NO NU OF OH ON OR OS OW OX). Those 72 are :data:`SLIP_TWO_LETTER_WORDS`. The option
  ``two_letter_words`` lets a table use another list.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Container, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from companion.core.board import EXTENDED, Board, Coord, Direction, Layout, Premium, Tile
from companion.core.move import PlacedTile, Placement, format_square
from companion.core.tiles import BLANK, TileSet, get_tileset
from companion.core.words import Word, WordScore, placement_direction, run_through
from companion.core.errors import CompanionError
from companion.rules.classic import Exchange, Pass
from companion.rules.common import (
    IllegalPlay,
    PlayScore,
    geometry_error,
    not_in_dictionary,
    remove_from_rack,
    set_player,
    score_words,
)

TILESET = "super3"
LAYOUT = EXTENDED
RACK_SIZE = 8
EXCHANGE_MIN_BAG = 8
BIG_WORD = 6  # rule 3: the main word's minimum, and what "big" means everywhere
SMALL_WORD = 4  # rule 11: the cap applies to words of this length or less
MAX_PICK = 2
BIG_PLAY_BONUS = {6: 20, 7: 50, 8: 80}
STRETCH_TABLE = {2: 30, 3: 50, 4: 70, 5: 90}  # 6 and more: STRETCH_CAP
STRETCH_CAP = 100
JQXZ = frozenset("JQXZ")
FINAL_RACKS_BONUS = 50
SCORELESS_TURNS_TO_END = 6

# The slip's "RESPECTABLE and bearable" two-letter words (upper and lower case there; both are
# good words): the only source of two-letter words. The stored text's slip lost the line of
# the words starting with I, L, M, N and O; the second line here is it, from the author's own
# list of the 72 (see the module's docstring).
SLIP_TWO_LETTER_WORDS = frozenset(
    "AB AD AG AH AI AM AN AR AS AT AW AX AY BE BI BY DO ED EF EH EL EM EN ER EX FA GO HA HE HI HO "
    "ID IF IN IS IT LA LI LO MA ME MI MU MY NO NU OF OH ON OR OS OW OX "
    "PA PI RE SH SI SO TA TI TO UH UM UP US UT WE WO XI YE YO".split()
)

MAIN_TOO_SHORT = "The main word must have at least 6 letters"
NOT_ON_INNER = "The main word must reach the inner 15x15 board"


class StretchTable(str, Enum):
    TABLE = "table"  # rule 6's table and the slip: a two-letter stretch earns 30
    EXTENDED = "extended"  # rule 12's EX+TENDED example: 20


class StuckTurns(str, Enum):
    TEXT = "text"
    ALWAYS = "always"
    NEVER = "never"


@dataclass(frozen=True)
class Scrabble3Options:
    stretch: StretchTable = StretchTable.TABLE
    swap_final_racks: bool = True
    stuck_turns: StuckTurns = StuckTurns.TEXT
    end_rack_points: bool = True
    scoop: int | None = 100  # tiles drawn from the 298 for a game the companion deals
    scoreless_turns_to_end: int = SCORELESS_TURNS_TO_END
    two_letter_words: frozenset[str] = SLIP_TWO_LETTER_WORDS


DEFAULT_OPTIONS = Scrabble3Options()


def stretch_bonus(stretch: int, options: Scrabble3Options = DEFAULT_OPTIONS) -> int:
    """The stretch bonus proper (without the big-play bonus) for a big word stretched by N."""
    if stretch < 2:
        return 0
    if stretch == 2 and options.stretch is StretchTable.EXTENDED:
        return 20
    return STRETCH_TABLE.get(stretch, STRETCH_CAP)


def jqxz_bonus(length: int) -> int:
    """Rule 12: an upright J, Q, X or Z newly laid in a word of this length."""
    if length < BIG_WORD:
        return 0
    return {6: 10, 7: 20}.get(length, 30)


def capped_value(tileset: TileSet):
    """Rule 11 as a :data:`core.words.LetterValue`: in a word of 4 letters or fewer a letter is
    worth at most the word's length."""

    def value(square: Coord, tile: Tile, word: Word) -> int:
        v = tileset.value(tile.letter, tile.blank)
        return min(v, len(word)) if len(word) <= SMALL_WORD else v

    return value


# ---------------------------------------------------------------------------------------------
# Pick-offs (rule 6.1)


@dataclass(frozen=True)
class PickOff:
    """Tiles picked off the trailing end of a word before a stretch."""

    squares: tuple[Coord, ...]  # in the word's order
    tiles: tuple[Tile, ...]
    direction: Direction
    word: tuple[Coord, ...]  # the original word's squares

    @property
    def rest(self) -> tuple[Coord, ...]:
        return self.word[: len(self.word) - len(self.squares)]


def find_pick_off(board: Board, squares: Sequence[Coord]) -> PickOff | IllegalPlay:
    """The pick-off of ``squares`` from ``board``, or why the rules do not allow it."""
    squares = sorted(set(squares))
    if not 1 <= len(squares) <= MAX_PICK:
        return IllegalPlay(f"Pick off 1 or 2 tiles, not {len(squares)}")
    for s in squares:
        if s not in board:
            return IllegalPlay(f"There is no tile on {format_square(s)} to pick off")
    direction = None
    for d in Direction:
        if len(run_through(board, squares[0], d)) > 1:
            if direction is not None:
                return IllegalPlay(f"The tile on {format_square(squares[0])} is part of two words")
            direction = d
    if direction is None:
        return IllegalPlay(f"The tile on {format_square(squares[0])} is in no word")
    word = tuple(run_through(board, squares[0], direction))
    for s in squares:
        if s not in word:
            return IllegalPlay("The tiles picked off are not in one word")
        if len(run_through(board, s, direction.other)) > 1:
            return IllegalPlay(f"The tile on {format_square(s)} is part of two words: it is not free-hanging")
    if tuple(squares) != word[len(word) - len(squares):]:
        return IllegalPlay("Tiles are picked off the trailing end of a word only")
    if len(squares) >= len(word):
        return IllegalPlay("A pick-off leaves at least one letter of the word")
    return PickOff(tuple(squares), tuple(board[s] for s in squares), direction, word)  # type: ignore[misc]


def _layout_without_premiums(layout: Layout, squares: Sequence[Coord]) -> Layout:
    """``layout`` with no premium on ``squares``: after a pick-off, the original word's squares
    give no premium again (6.1: "you will not get credit for a premium square which you
    uncovered and then covered again")."""
    rows = [list(r) for r in layout.premiums]
    for r, c in squares:
        rows[r][c] = Premium.NONE
    return replace(layout, premiums=tuple(tuple(r) for r in rows))


# ---------------------------------------------------------------------------------------------
# One play


@dataclass(frozen=True)
class Scrabble3Score(PlayScore):
    """A play's score, every bonus apart. ``words[0]`` is the main word; ``bonus`` their sum."""

    big_play: int = 0
    stretch: int = 0  # the stretch bonus proper (the rule's table adds big_play to it from 6)
    stretched_by: int = 0  # letters the stretched big word gained (0: no big word stretched)
    jqxz: int = 0
    capped: int = 0  # points the small-word cap took off (rule 11), for the page
    tiles_from_rack: int = 0  # laid less picked off

    def breakdown(self) -> dict[str, int]:
        return {
            "words": sum(w.score for w in self.words),
            "big_play": self.big_play,
            "stretch": self.stretch,
            "jqxz": self.jqxz,
            "capped": self.capped,
            "total": self.total,
        }


def main_direction(before: Board, placement: Placement, pick: PickOff | None = None) -> Direction | None:
    """The direction of the play's main word (see the module docstring), None when the tiles
    are not in a line or one tile forms no word."""
    if pick is not None:
        return pick.direction
    direction = placement_direction(placement)
    if direction is not None or len(placement) != 1:
        return direction
    after = before.with_tiles((t.coord, t.tile) for t in placement.tiles)
    coord = placement.tiles[0].coord
    across = len(run_through(after, coord, Direction.ACROSS))
    down = len(run_through(after, coord, Direction.DOWN))
    if max(across, down) < 2:
        return None
    return Direction.ACROSS if across >= down else Direction.DOWN


def score_play(
    before: Board,
    placement: Placement,
    tileset: TileSet,
    *,
    pick: PickOff | None = None,
    options: Scrabble3Options = DEFAULT_OPTIONS,
) -> Scrabble3Score:
    """The score of a placement (made after ``pick``, if any) that :func:`shape_error` accepts."""
    board = before
    if pick is not None:
        board = Board(_layout_without_premiums(before.layout, pick.word), dict(before.without(pick.squares).items()))
    direction = main_direction(board, placement, pick)
    assert direction is not None
    words = score_words(board, placement, tileset, capped_value(tileset), direction=direction, add_word_premiums=True)
    uncapped = score_words(board, placement, tileset, direction=direction, add_word_premiums=True)
    capped = sum(u.score - w.score for u, w in zip(uncapped, words))
    main = words[0].word
    picked = len(pick.squares) if pick is not None else 0
    from_rack = len(placement) - picked
    big_play = BIG_PLAY_BONUS.get(from_rack, 0)
    stretched = 0
    if pick is not None:
        if len(pick.word) >= BIG_WORD:
            stretched = len(main) - len(pick.word)
    elif _longest_old_run(main) >= BIG_WORD:
        stretched = from_rack
    stretch = stretch_bonus(stretched, options)
    jqxz = sum(_word_jqxz(w.word) for w in words)
    bonus = big_play + stretch + jqxz
    total = sum(w.score for w in words) + bonus
    return Scrabble3Score(
        words, bonus, total, big_play=big_play, stretch=stretch, stretched_by=stretched, jqxz=jqxz,
        capped=capped, tiles_from_rack=from_rack,
    )


def _longest_old_run(word: Word) -> int:
    best = run = 0
    for new in word.new:
        run = 0 if new else run + 1
        best = max(best, run)
    return best


def _word_jqxz(word: Word) -> int:
    per = jqxz_bonus(len(word))
    if not per:
        return 0
    return per * sum(1 for t, new in zip(word.tiles, word.new) if new and not t.blank and t.letter in JQXZ)


@dataclass(frozen=True)
class Judgement:
    """A play judged. ``refused``: not a play the table can take (it asks; nothing changes).
    Otherwise ``score`` is what the play scores or, when ``invalid`` says why it breaks the
    rules, what it would have scored (rule 13 charges that in the final-racks round)."""

    refused: IllegalPlay | None = None
    invalid: IllegalPlay | None = None
    score: Scrabble3Score | None = None
    pick: PickOff | None = None

    @property
    def valid(self) -> bool:
        return self.refused is None and self.invalid is None


def shape_error(before: Board, placement: Placement, pick: PickOff | None = None) -> IllegalPlay | None:
    """Why the placement (after ``pick``) is not a play at all, or None."""
    board = before.without(pick.squares) if pick is not None else before
    error = geometry_error(board, placement)
    if error is not None:
        return error
    if pick is None:
        if main_direction(board, placement) is None:
            return IllegalPlay("A word must have at least two letters")
        return None
    line = pick.direction
    if any(not _in_line(t.coord, pick.word[0], line) for t in placement.tiles):
        return IllegalPlay("After a pick-off, the tiles go in the line of the word picked from")
    after = board.with_tiles((t.coord, t.tile) for t in placement.tiles)
    main = run_through(after, placement.tiles[0].coord, line)
    if pick.word[0] not in main:
        return IllegalPlay("After a pick-off, the tiles stretch the word picked from")
    if len(main) <= len(pick.word):
        return IllegalPlay("A pick-off declares a stretch: the word must end up longer than it was")
    return None


def _in_line(coord: Coord, anchor: Coord, direction: Direction) -> bool:
    return coord[0] == anchor[0] if direction is Direction.ACROSS else coord[1] == anchor[1]


def judge(
    before: Board,
    placement: Placement,
    lexicon: Container[str],
    tileset: TileSet | None = None,
    *,
    pick_off: Sequence[Coord] = (),
    options: Scrabble3Options = DEFAULT_OPTIONS,
) -> Judgement:
    """Whether tiles laid on ``before`` (after picking off ``pick_off``) make a play, a valid
    one, and its score."""
    tileset = tileset or get_tileset(TILESET)
    pick = None
    if pick_off:
        found = find_pick_off(before, pick_off)
        if isinstance(found, IllegalPlay):
            return Judgement(refused=found)
        pick = found
    for t in placement.tiles:
        if t.letter not in tileset.alphabet:
            return Judgement(refused=IllegalPlay(f"{t.letter} is not a letter of the {tileset.name} tile set"))
    error = shape_error(before, placement, pick)
    if error is not None:
        return Judgement(refused=error, pick=pick)
    score = score_play(before, placement, tileset, pick=pick, options=options)
    return Judgement(invalid=word_error(score.words, lexicon, before.layout, options), score=score, pick=pick)


def word_error(
    words: Sequence[WordScore], lexicon: Container[str], layout: Layout, options: Scrabble3Options = DEFAULT_OPTIONS
) -> IllegalPlay | None:
    """Rules 1-3 and 9 on the words a play forms (the main word first), or None."""
    main = words[0].word
    if len(main) < BIG_WORD:
        return IllegalPlay(f"{MAIN_TOO_SHORT}: {main.text} has {len(main)}", (main.text,))
    if not any(layout.in_inner(s) for s in main.squares):
        return IllegalPlay(NOT_ON_INNER, (main.text,))
    bad = []
    for w in words:
        text = w.word.text
        ok = text in options.two_letter_words if len(text) == 2 else text in lexicon
        if not ok and text not in bad:
            bad.append(text)
    if bad:
        return IllegalPlay(not_in_dictionary(bad[0]), tuple(bad))
    return None


# ---------------------------------------------------------------------------------------------
# What the camera sees: the board before and after


@dataclass(frozen=True)
class SeenPlay:
    """A play read from two boards: the tiles picked off (maybe none) and the tiles laid."""

    pick_off: tuple[Coord, ...]
    placement: Placement


def pick_off_between(before: Board, after: Board) -> SeenPlay | IllegalPlay:
    """The play that turns ``before`` into ``after``, when tiles left or changed (a pick-off).

    Squares that lost their tile or show another are picked off; a tile picked and laid again
    as it was cannot be seen, so the pick-off runs from the first changed square to the end of
    its word (at most two tiles). The tiles laid are those on squares that were empty or that
    changed. :func:`judge` then says whether the rules take it.
    """
    gone = [s for s, t in before.items() if after[s] is None or after[s] != t]
    laid = [(s, t) for s, t in after.items() if before[s] is None or before[s] != t]
    if not gone:
        return IllegalPlay("No tile was picked off")
    first = gone[0]  # squares are in board order: the first of a word's changed squares
    picked: list[Coord] = []
    for d in Direction:
        word = run_through(before, first, d)
        if len(word) > 1 and all(s in word[word.index(first):] for s in gone):
            picked = word[word.index(first):]
    if not picked:
        return IllegalPlay("Tiles left the board that are not the trailing end of one word")
    if len(picked) > MAX_PICK:
        return IllegalPlay("At most 2 tiles may be picked off the end of a word")
    # A trailing tile that looks unchanged behind a changed one was picked and laid again (only
    # the end of a word can be picked): it is one of the tiles laid, on a square that gives no
    # premium, as the rules score it.
    laid += [(s, after[s]) for s in picked if s not in gone]
    tiles = tuple(PlacedTile(s[0], s[1], t.letter, t.blank) for s, t in laid)  # type: ignore[union-attr]
    return SeenPlay(tuple(picked), Placement.of(tiles))


def blank_swap_between(before: Board, after: Board) -> tuple[Coord, ...] | IllegalPlay:
    """The squares where a blank was swapped for its letter (rule 7): every changed square
    held a blank and now holds an upright tile of the letter the blank stood for, and nothing
    else changed."""
    changed = sorted(set(s for s, _ in before.items()) ^ set(s for s, _ in after.items()))
    if changed:
        return IllegalPlay("Tiles were added or taken away: not a swap for the blank")
    swapped = []
    for s, t in before.items():
        u = after[s]
        if u == t:
            continue
        if not t.blank:
            return IllegalPlay(f"{format_square(s)} held {t.letter}, not a blank")
        if u is None or u.blank or u.letter != t.letter:
            return IllegalPlay(f"The blank on {format_square(s)} stands for {t.letter}: swap it for a {t.letter}")
        swapped.append(s)
    if not swapped:
        return IllegalPlay("Nothing changed")
    return tuple(swapped)


# ---------------------------------------------------------------------------------------------
# The game: actions


@dataclass(frozen=True)
class Play:
    """Tiles laid, after picking off ``pick_off`` (rule 6.1) and swapping the blanks on
    ``swaps`` (rule 7) with what the rack then holds: a tile just picked off may take a blank
    (the text's pick-swapper). ``flipped`` names the blanks of the placement that are a J, Q, X
    or Z face down (rule 12), by square and tile; the other blanks are blanks."""

    placement: Placement
    pick_off: tuple[Coord, ...] = ()
    flipped: tuple[tuple[Coord, str], ...] = ()
    swaps: tuple[Coord, ...] = ()  # blanks swapped after the pick-off, before laying (a pick-swapper)


@dataclass(frozen=True)
class SwapBlank:
    """Rule 7: the player puts the blank's letter on it and takes the blank; the turn goes on."""

    square: Coord


@dataclass(frozen=True)
class Decline:
    """The final-racks round: no play with the other's rack."""


@dataclass(frozen=True)
class RevealRacks:
    """The racks left when regular play ends, when the companion did not deal them."""

    racks: tuple[str, ...]


# Pass and Exchange are the classic game's actions (an exchange of four of a kind is refused).
Action = Play | SwapBlank | Pass | Exchange | Decline | RevealRacks


class Phase(str, Enum):
    PLAY = "play"
    RACKS = "racks"  # waiting for the racks to be told
    FINAL_RACKS = "final-racks"
    OVER = "over"


class VerdictKind(str, Enum):
    PLAYED = "played"
    REFUSED = "refused"  # nothing changed; the same player goes on
    INVALID = "invalid"  # rule 2: the play came off, no score, the turn passed
    PASSED = "passed"
    EXCHANGED = "exchanged"
    BLANK_SWAPPED = "blank-swapped"
    FINAL_RACKS = "final-racks"  # a good play with the other's rack: +50
    FINAL_RACKS_INVALID = "final-racks-invalid"  # a bad one: its would-be points off
    DECLINED = "declined"
    FINAL_ROUND = "final-round"  # regular play is over; the final-racks round begins
    GAME_OVER = "game-over"


@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
    player: int
    message: str
    score: Scrabble3Score | None = None
    points: int = 0
    words: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlayerState:
    name: str
    score: int = 0
    rack: tuple[str, ...] | None = None  # sorted tiles ("?" a blank) when dealt, None when private
    rack_size: int = 0
    turns: tuple[int, ...] = ()  # points of each regular turn (0 for a pass, an exchange, a bad play)
    final_racks: int | None = None  # points of their final-racks attempt (None: none made)
    final_racks_good: bool = False
    end_adjustment: int = 0


@dataclass(frozen=True)
class Scrabble3State:
    options: Scrabble3Options
    players: tuple[PlayerState, ...]
    board: Board
    bag: tuple[str, ...] | None
    bag_size: int
    to_move: int
    seed: int
    faces: tuple[tuple[Coord, str], ...] = ()  # the tile under each blank on the board: "?" or J/Q/X/Z
    shuffles: int = 0
    scoreless_turns: int = 0
    passes_in_a_row: int = 0
    phase: Phase = Phase.PLAY
    final_order: tuple[int, ...] = ()  # players still to make their final-racks attempt
    end_racks: tuple[tuple[str, ...], ...] = ()  # the racks when regular play ended
    went_out: int | None = None
    turn: int = 0

    @property
    def tileset(self) -> TileSet:
        return get_tileset(TILESET)

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def face(self, square: Coord) -> str:
        return dict(self.faces).get(square, BLANK)

    def stuck_turns(self, player: int) -> int:
        """The player's scoreless turns at the end of their regular play."""
        n = 0
        for points in reversed(self.players[player].turns):
            if points:
                break
            n += 1
        return n

    def ppt_turns(self, player: int) -> int:
        """The turns that count in the player's points per turn (rule 13)."""
        p = self.players[player]
        stuck = self.stuck_turns(player)
        counted = len(p.turns) - stuck
        mode = self.options.stuck_turns
        others_found = any(q.final_racks_good for i, q in enumerate(self.players) if i != player)
        if mode is StuckTurns.ALWAYS or (mode is StuckTurns.TEXT and others_found):
            counted += stuck
        if p.final_racks is not None:
            counted += 1
        return counted

    def ppt(self, player: int) -> float:
        """Points per turn: the player's score over the turns that count (rule 13)."""
        n = self.ppt_turns(player)
        return self.players[player].score / n if n else 0.0

    def winners(self) -> tuple[int, ...]:
        if not self.over:
            return ()
        best = max(p.score for p in self.players)
        return tuple(i for i, p in enumerate(self.players) if p.score == best)


@dataclass(frozen=True)
class Outcome:
    state: Scrabble3State
    verdicts: tuple[Verdict, ...] = field(default_factory=tuple)

    @property
    def verdict(self) -> Verdict:
        return self.verdicts[0]


def new_game(
    names: Sequence[str],
    options: Scrabble3Options = DEFAULT_OPTIONS,
    *,
    seed: int = 0,
    first: int = 0,
    track_tiles: bool = True,
) -> Scrabble3State:
    """A game ready for its first move on the 21x21 board. With ``track_tiles`` a scoop of
    ``options.scoop`` tiles is drawn from the 298 (seeded), shuffled, and racks of 8 dealt;
    otherwise racks are private and only sizes are kept (the bag is the unseen scoop)."""
    if not 2 <= len(names) <= 4:
        raise CompanionError(f"Scrabble III is for 2 to 4 players, not {len(names)}")
    if len(set(names)) != len(names):
        raise CompanionError("two players have the same name")
    if not 0 <= first < len(names):
        raise CompanionError(f"player {first + 1} does not exist")
    tileset = get_tileset(TILESET)
    scoop = options.scoop if options.scoop is not None else tileset.size
    if not RACK_SIZE * len(names) <= scoop <= tileset.size:
        raise CompanionError(f"a scoop of {scoop} tiles is not between {RACK_SIZE * len(names)} and {tileset.size}")
    players = []
    board = Board(LAYOUT)
    if track_tiles:
        everything = list(tileset.bag().elements())
        rng = random.Random(f"{seed}:scoop")
        bag = rng.sample(everything, scoop)
        random.Random(f"{seed}:0").shuffle(bag)
        for name in names:
            rack, bag = bag[:RACK_SIZE], bag[RACK_SIZE:]
            players.append(PlayerState(name, rack=tuple(sorted(rack)), rack_size=RACK_SIZE))
        return Scrabble3State(options, tuple(players), board, tuple(bag), len(bag), first, seed, shuffles=1)
    size = scoop
    for name in names:
        players.append(PlayerState(name, rack_size=RACK_SIZE))
        size -= RACK_SIZE
    return Scrabble3State(options, tuple(players), board, None, size, first, seed)


# ---------------------------------------------------------------------------------------------
# The game: applying actions


def apply(state: Scrabble3State, action: Action, lexicon: Container[str]) -> Outcome:
    """The state after ``action`` by the player to move."""
    if state.phase is Phase.OVER:
        return _refuse(state, "The game is over")
    if state.phase is Phase.RACKS:
        if not isinstance(action, RevealRacks):
            return _refuse(state, "Regular play is over: tell the companion the tiles left on each rack")
        return _reveal(state, action)
    if isinstance(action, RevealRacks):
        return _refuse(state, "The racks are told only when regular play is over")
    if state.phase is Phase.FINAL_RACKS:
        if isinstance(action, Play):
            return _final_play(state, action, lexicon)
        if isinstance(action, Decline):
            me = state.to_move
            state = set_player(state, me, final_racks=None)
            return _next_final(state, (Verdict(VerdictKind.DECLINED, me, f"{state.players[me].name} declines"),))
        return _refuse(state, "The final-racks round: play with the other's rack, or decline")
    if isinstance(action, Play):
        return _play(state, action, lexicon)
    if isinstance(action, SwapBlank):
        return _swap_blank(state, action)
    if isinstance(action, Pass):
        me = state.to_move
        state = _end_turn(replace(state, passes_in_a_row=state.passes_in_a_row + 1), 0)
        return _check_end(state, (Verdict(VerdictKind.PASSED, me, f"{state.players[me].name} passes"),))
    if isinstance(action, Exchange):
        return _exchange(state, action)
    return _refuse(state, "There is no final-racks round under way")


def _refuse(state: Scrabble3State, message: str, words: tuple[str, ...] = ()) -> Outcome:
    return Outcome(state, (Verdict(VerdictKind.REFUSED, state.to_move, message, words=words),))


def _end_turn(state: Scrabble3State, points: int) -> Scrabble3State:
    me = state.to_move
    p = state.players[me]
    state = set_player(state, me, turns=p.turns + (points,))
    return replace(
        state,
        turn=state.turn + 1,
        scoreless_turns=0 if points > 0 else state.scoreless_turns + 1,
        to_move=(me + 1) % len(state.players),
    )


def _rack_tiles(placement: Placement, flipped: dict[Coord, str]) -> list[str]:
    """The rack tiles a placement uses: its letters, a blank's tile (``?`` or the flipped JQXZ)."""
    return [flipped.get(t.coord, BLANK) if t.blank else t.letter for t in placement.tiles]


def _check_flipped(placement: Placement, flipped: dict[Coord, str]) -> str | None:
    blanks = {t.coord for t in placement.tiles if t.blank}
    for square, face in flipped.items():
        if square not in blanks:
            return f"{format_square(square)} is not a blank of this play"
        if face not in JQXZ:
            return f"only a J, Q, X or Z may be flipped for a blank, not {face}"
    return None


def _take_tiles(
    state: Scrabble3State, player: int, picked: Sequence[str], used: Sequence[str]
) -> tuple[tuple[str, ...] | None, int] | str:
    """The player's rack after picking up ``picked`` and laying ``used``, and its size; or why not."""
    p = state.players[player]
    size = p.rack_size + len(picked) - len(used)
    if size < 0 or len(used) > p.rack_size + len(picked):
        return f"{p.name} has only {p.rack_size + len(picked)} tiles"
    if p.rack is None:
        return None, size
    rest = remove_from_rack(tuple(sorted(p.rack + tuple(picked))), used)
    if rest is None:
        return f"Those tiles are not on {p.name}'s rack"
    return rest, size


def _play(state: Scrabble3State, action: Play, lexicon: Container[str]) -> Outcome:
    me = state.to_move
    player = state.players[me]
    flipped = dict(action.flipped)
    problem = _check_flipped(action.placement, flipped)
    if problem:
        return _refuse(state, problem)
    board, faces = state.board, dict(state.faces)
    swapped_letters, swapped_faces = [], []
    for square in action.swaps:
        tile = board[square]
        if tile is None or not tile.blank or square in action.pick_off:
            return _refuse(state, f"There is no blank on {format_square(square)} to swap")
        swapped_letters.append(tile.letter)
        swapped_faces.append(faces.pop(square, BLANK))
        board = board.with_tiles([(square, Tile(tile.letter))])
    judged = judge(board, action.placement, lexicon, state.tileset, pick_off=action.pick_off, options=state.options)
    if judged.refused is not None:
        return _refuse(state, judged.refused.message, judged.refused.words)
    pick = judged.pick
    picked = [state.face(s) if t.blank else t.letter for s, t in zip(pick.squares, pick.tiles)] if pick else []
    # The rack: the picked tiles come in, the swapping letters go out and their blanks come in.
    if player.rack is not None:
        with_picked = tuple(sorted(player.rack + tuple(picked)))
        if remove_from_rack(with_picked, swapped_letters) is None:
            return _refuse(state, f"{player.name} has no {'/'.join(swapped_letters)} to swap for the blank")
    taken = _take_tiles(state, me, picked + swapped_faces, _rack_tiles(action.placement, flipped) + swapped_letters)
    if isinstance(taken, str):
        return _refuse(state, taken)
    score = judged.score
    assert score is not None
    words = tuple(w.word.text for w in score.words)
    if judged.invalid is not None:
        # Rule 2: the word comes off (the picked tiles go back), no score, the turn passes.
        # Blanks swapped stay swapped: that part of the turn was legal.
        if action.swaps:
            state = replace(state, board=board, faces=tuple(sorted(faces.items())))
            if player.rack is not None:
                rack = remove_from_rack(player.rack, swapped_letters)
                assert rack is not None
                state = set_player(state, me, rack=tuple(sorted(rack + tuple(swapped_faces))))
        state = _end_turn(replace(state, passes_in_a_row=0), 0)
        verdict = Verdict(VerdictKind.INVALID, me, judged.invalid.message, score=score, words=judged.invalid.words)
        return _check_end(state, (verdict,))
    rack, size = taken
    if pick is not None:
        board = board.without(pick.squares)
        for s in pick.squares:
            faces.pop(s, None)
    board = board.with_tiles((t.coord, t.tile) for t in action.placement.tiles)
    for t in action.placement.tiles:
        if t.blank:
            faces[t.coord] = flipped.get(t.coord, BLANK)
    state = replace(state, board=board, faces=tuple(sorted(faces.items())), passes_in_a_row=0)
    state = set_player(state, me, score=player.score + score.total, rack=rack, rack_size=size)
    state = _draw(state, me, RACK_SIZE - size)
    verdict = Verdict(VerdictKind.PLAYED, me, f"{'/'.join(words)} {score.total}", score=score,
                      points=score.total, words=words)
    went_out = state.players[me].rack_size == 0 and state.bag_size == 0
    state = _end_turn(state, score.total)
    if went_out:
        return _play_over(replace(state, went_out=me), (verdict,))
    return _check_end(state, (verdict,))


def _draw(state: Scrabble3State, player: int, n: int) -> Scrabble3State:
    n = max(0, min(n, state.bag_size))
    p = state.players[player]
    if state.bag is None:
        return set_player(replace(state, bag_size=state.bag_size - n), player, rack_size=p.rack_size + n)
    assert p.rack is not None
    drawn, rest = state.bag[:n], state.bag[n:]
    state = replace(state, bag=rest, bag_size=len(rest))
    return set_player(state, player, rack=tuple(sorted(p.rack + drawn)), rack_size=p.rack_size + n)


def _swap_blank(state: Scrabble3State, action: SwapBlank) -> Outcome:
    tile = state.board[action.square]
    if tile is None or not tile.blank:
        return _refuse(state, f"There is no blank on {format_square(action.square)}")
    me = state.to_move
    p = state.players[me]
    face = state.face(action.square)
    if p.rack is not None:
        rest = remove_from_rack(p.rack, [tile.letter])
        if rest is None:
            return _refuse(state, f"{p.name} has no {tile.letter} to swap for the blank")
        state = set_player(state, me, rack=tuple(sorted(rest + (face,))))
    faces = tuple((s, f) for s, f in state.faces if s != action.square)
    state = replace(state, board=state.board.with_tiles([(action.square, Tile(tile.letter))]), faces=faces)
    what = "the blank" if face == BLANK else f"the blank (a flipped {face})"
    message = f"{p.name} takes {what} on {format_square(action.square)}"
    return Outcome(state, (Verdict(VerdictKind.BLANK_SWAPPED, me, message),))


def _exchange(state: Scrabble3State, action: Exchange) -> Outcome:
    me = state.to_move
    p = state.players[me]
    tiles = [t.upper() if t != BLANK else t for t in action.tiles]
    if action.four_of_a_kind:
        return _refuse(state, "Scrabble III has no exchange of four of a kind")
    if not tiles:
        return _refuse(state, "No tiles to exchange: pass instead")
    if any(t != BLANK and t not in state.tileset.alphabet for t in tiles):
        return _refuse(state, f"{action.tiles} are not tiles of the Scrabble III set")
    if len(tiles) > p.rack_size:
        return _refuse(state, f"{p.name} has only {p.rack_size} tiles")
    if state.bag_size < EXCHANGE_MIN_BAG:
        return _refuse(state, f"Only {state.bag_size} tiles in the bag: an exchange needs {EXCHANGE_MIN_BAG}")
    if p.rack is not None:
        rest = remove_from_rack(p.rack, tiles)
        if rest is None:
            return _refuse(state, f"Those tiles are not on {p.name}'s rack")
        state = set_player(state, me, rack=rest, rack_size=len(rest))
    else:
        state = set_player(state, me, rack_size=p.rack_size - len(tiles))
    state = _draw(state, me, len(tiles))
    if state.bag is not None:
        bag = list(state.bag + tuple(tiles))
        random.Random(f"{state.seed}:{state.shuffles}").shuffle(bag)
        state = replace(state, bag=tuple(bag), shuffles=state.shuffles + 1)
    else:
        state = replace(state, bag_size=state.bag_size + len(tiles))
    state = _end_turn(replace(state, passes_in_a_row=0), 0)
    return _check_end(state, (Verdict(VerdictKind.EXCHANGED, me, f"{p.name} exchanges {len(tiles)}"),))


def _check_end(state: Scrabble3State, verdicts: tuple[Verdict, ...]) -> Outcome:
    n = len(state.players)
    stuck = state.bag_size == 0 and state.passes_in_a_row >= n
    if not stuck and state.scoreless_turns < state.options.scoreless_turns_to_end:
        return Outcome(state, verdicts)
    return _play_over(state, verdicts)


def _play_over(state: Scrabble3State, verdicts: tuple[Verdict, ...]) -> Outcome:
    """Regular play is over: the racks are needed (told, when private), then the final round."""
    if any(p.rack is None for p in state.players):
        return Outcome(replace(state, phase=Phase.RACKS), verdicts)
    return _regular_play_over(state, verdicts)


def _regular_play_over(state: Scrabble3State, verdicts: tuple[Verdict, ...]) -> Outcome:
    racks = tuple(p.rack or () for p in state.players)
    state = replace(state, end_racks=racks)
    if state.options.swap_final_racks and len(state.players) == 2 and all(racks):
        order = (state.to_move, 1 - state.to_move)
        state = replace(state, phase=Phase.FINAL_RACKS, final_order=order[1:], to_move=order[0])
        msg = f"Swap final racks: {state.players[order[0]].name} plays first with the other's rack"
        return Outcome(state, verdicts + (Verdict(VerdictKind.FINAL_ROUND, order[0], msg),))
    return Outcome(*_settle(state, verdicts))


def _reveal(state: Scrabble3State, action: RevealRacks) -> Outcome:
    if len(action.racks) != len(state.players):
        return _refuse(state, f"Tell the racks of all {len(state.players)} players")
    tileset = state.tileset
    racks = []
    for i, text in enumerate(action.racks):
        try:
            rack = tuple(sorted(tileset.parse_rack(text).elements()))
        except CompanionError as exc:
            return _refuse(state, str(exc))
        if len(rack) != state.players[i].rack_size:
            return _refuse(state, f"{state.players[i].name} should have {state.players[i].rack_size} tiles, not {len(rack)}")
        racks.append(rack)
    # The scoop is unseen: only the 298 tiles of the whole set bound what can be on the racks.
    seen: Counter[str] = Counter(BLANK if t.blank else t.letter for _, t in state.board.items())
    for r in racks:
        seen.update(r)
    excess = seen - tileset.bag()
    if excess:
        return _refuse(state, f"More {''.join(sorted(excess.elements()))} than the 298-tile set has")
    for i, rack in enumerate(racks):
        state = set_player(state, i, rack=rack)
    return _regular_play_over(replace(state, phase=Phase.PLAY), ())


def _final_play(state: Scrabble3State, action: Play, lexicon: Container[str]) -> Outcome:
    me = state.to_move
    other = 1 - me
    flipped = dict(action.flipped)
    problem = _check_flipped(action.placement, flipped)
    if problem:
        return _refuse(state, problem)
    judged = judge(state.board, action.placement, lexicon, state.tileset, pick_off=action.pick_off, options=state.options)
    if judged.refused is not None:
        return _refuse(state, judged.refused.message, judged.refused.words)
    pick = judged.pick
    picked = [state.face(s) if t.blank else t.letter for s, t in zip(pick.squares, pick.tiles)] if pick else []
    rack = tuple(sorted(state.end_racks[other] + tuple(picked)))
    if remove_from_rack(rack, _rack_tiles(action.placement, flipped)) is None:
        return _refuse(state, f"Those tiles are not on {state.players[other].name}'s rack")
    score = judged.score
    assert score is not None
    p = state.players[me]
    if judged.invalid is not None:
        points = -score.total
        kind, message = VerdictKind.FINAL_RACKS_INVALID, f"{judged.invalid.message}: {points}"
        good = False
    else:
        points = score.total + FINAL_RACKS_BONUS
        kind, message = VerdictKind.FINAL_RACKS, f"{'/'.join(w.word.text for w in score.words)} {score.total} + 50"
        good = True
    state = set_player(state, me, score=p.score + points, final_racks=points, final_racks_good=good)
    words = tuple(w.word.text for w in score.words)
    return _next_final(state, (Verdict(kind, me, message, score=score, points=points, words=words),))


def _next_final(state: Scrabble3State, verdicts: tuple[Verdict, ...]) -> Outcome:
    if state.final_order:
        state = replace(state, to_move=state.final_order[0], final_order=state.final_order[1:])
        return Outcome(state, verdicts)
    return Outcome(*_settle(state, verdicts))


def _settle(state: Scrabble3State, verdicts: tuple[Verdict, ...]) -> tuple[Scrabble3State, tuple[Verdict, ...]]:
    tileset = state.tileset
    racks = [p.rack or () for p in state.players]
    if state.options.end_rack_points:
        values = [tileset.rack_value(r) for r in racks]
        for i, p in enumerate(state.players):
            adjustment = sum(values) if state.went_out == i else -values[i]
            state = set_player(state, i, score=p.score + adjustment, end_adjustment=adjustment)
    state = replace(state, phase=Phase.OVER)
    scores = ", ".join(
        f"{p.name} {p.score} (PPT {state.ppt(i):.1f})" for i, p in enumerate(state.players)
    )
    names = " and ".join(state.players[i].name for i in state.winners())
    return state, verdicts + (Verdict(VerdictKind.GAME_OVER, state.to_move, f"Game over: {scores}. Winner: {names}"),)
