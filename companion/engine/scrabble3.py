"""Scrabble III moves: hints and a computer player on the 21x21 board (rules.scrabble3).

The classic generator (:class:`~companion.engine.movegen.Generator`, its C walker) finds the
placements; this module adds what Scrabble III changes and lets the rules score:

- **Words.** The graph holds the lexicon's words of three letters or more and the slip's
  two-letter words (the only two-letter words of the game), so the walker's cross-checks are
  the game's. A move is kept when its main word (:func:`rules.scrabble3.main_direction`: for
  one tile the longer of its words) has 6 letters or more and a square on the inner board.
- **Wild JQXZ.** A J, Q, X or Z on the rack may be laid upright or flipped for a blank: the
  walker runs once per choice of which of them are flipped (a rack has few), and a move that
  needs more blanks than the rack's own names the JQXZ it flips.
- **Pick-offs.** For every word on the board whose last one or two tiles hang free, those tiles
  come off and join the rack, and the walker runs on that word's line alone (the board's
  analysis patched where the tiles were: a free-hanging square has no cross word); a move is
  kept when it stretches the word (holds what is left of it, ends longer).
- **Scores.** Every move kept is scored by :func:`rules.scrabble3.score_play` (the cap, added
  word premiums, big-play, stretch and JQXZ bonuses, premiums after a pick-off): one scorer
  for the table, the records and the hints. A test checks the move set against a brute-force
  enumeration through :func:`rules.scrabble3.judge`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from typing import Container, Iterable, Mapping, Sequence

import numpy as np

from companion.core.board import Board, Coord, Direction, Tile
from companion.core.move import Placement, format_square, notation_of
from companion.core.tiles import BLANK, TileSet, get_tileset
from companion.core.words import run_through
from companion.engine.movegen import BLANK_CODE, BOARD_CODE, Analysis, Generator, RawMove, _Frame
from companion.core.errors import CompanionError
from companion.rules import scrabble3 as s3
from companion.rules.common import IllegalPlay


@dataclass(frozen=True)
class Scrabble3Move:
    """A Scrabble III play: the tiles picked off first (maybe none), the tiles laid, the blanks
    that are flipped JQXZ, and the score with its bonuses."""

    score: s3.Scrabble3Score
    placement: Placement
    direction: Direction
    pick_off: tuple[Coord, ...] = ()
    flipped: tuple[tuple[Coord, str], ...] = ()
    position: str = ""
    word: str = ""  # GCG: the main word from its first square, '.' for a tile left on the board

    @property
    def total(self) -> int:
        return self.score.total

    @property
    def gcg(self) -> str:
        return f"{self.position} {self.word}"

    @property
    def rack_tiles(self) -> str:
        """The tiles the move takes from the rack (picked tiles laid again included), ``?`` for a
        blank and the flipped tile's letter for a flipped JQXZ."""
        flips = dict(self.flipped)
        return "".join(flips.get(t.coord, BLANK) if t.blank else t.letter for t in self.placement.tiles)

    def describe(self) -> str:
        parts = [self.gcg, str(self.total)]
        if self.pick_off:
            parts.append("picking off " + " ".join(format_square(s) for s in self.pick_off))
        for square, face in self.flipped:
            parts.append(f"{face} flipped on {format_square(square)}")
        return " ".join(parts)

    def action(self) -> s3.Play:
        return s3.Play(self.placement, pick_off=self.pick_off, flipped=self.flipped)


def word_list(lexicon: Iterable[str], two_letter_words: Iterable[str] = s3.SLIP_TWO_LETTER_WORDS) -> Iterable[str]:
    """The words of the game: the lexicon's of 3 to 21 letters and the slip's two-letter ones."""
    for w in lexicon:
        if 3 <= len(w) <= s3.LAYOUT.cols:
            yield w
    yield from two_letter_words


class Scrabble3Generator:
    """Every legal Scrabble III move of a rack on a board, scored by the rules."""

    def __init__(self, generator: Generator, options: s3.Scrabble3Options = s3.DEFAULT_OPTIONS) -> None:
        self.generator = generator
        self.tileset = generator.tileset
        self.options = options

    # --- the public face ---------------------------------------------------------------------

    def scored(
        self, board: Board, rack: str | Iterable[str], faces: Mapping[Coord, str] | None = None
    ) -> list[tuple[int, RawMove, s3.PickOff | None, tuple[str, ...]]]:
        """Every legal move as (score, the walker's placement, the pick-off, the rack it was
        walked with), unordered: what hints and players rank before making a few moves."""
        rack = rack_list(rack)
        if board.layout != s3.LAYOUT:
            raise CompanionError("Scrabble III is played on the 21x21 board")
        out = []
        analysis = self.generator.analyse(board)
        line_info = _LineInfo(board, analysis, self.generator, None, self.options)
        whole = tuple(rack)
        for raw in self._walk(board, analysis, rack):
            score = line_info.score(raw)
            if score is not None:
                out.append((score, raw, None, whole))
        for pick in pickable(board):
            picked = [dict(faces or {}).get(sq, BLANK) if t.blank else t.letter for sq, t in zip(pick.squares, pick.tiles)]
            line_analysis = self._line_analysis(board, analysis, pick)
            rest = board.without(pick.squares)
            info = _LineInfo(rest, line_analysis, self.generator, pick, self.options)
            with_picked = tuple(rack + picked)
            for raw in self._walk(rest, line_analysis, list(with_picked)):
                score = info.score(raw)
                if score is not None:
                    out.append((score, raw, pick, with_picked))
        return out

    def moves(
        self, board: Board, rack: str | Iterable[str], faces: Mapping[Coord, str] | None = None
    ) -> list[Scrabble3Move]:
        """Every legal move, best first. ``faces`` says what is under blanks on the board (a
        picked-off blank is that tile: ``?`` when unknown)."""
        return self.best(board, rack, None, faces)

    def best(self, board: Board, rack: str | Iterable[str], k: int | None = 5,
             faces: Mapping[Coord, str] | None = None) -> list[Scrabble3Move]:
        """The ``k`` best moves (all with None), each scored again by the rules."""
        found = self.scored(board, rack, faces)
        found.sort(key=lambda m: (-m[0], m[1][1:], m[2].squares if m[2] else ()))
        return [self.to_move(board, raw, pick, list(used)) for _, raw, pick, used in found[:k]]

    def to_move(self, board: Board, raw: RawMove, pick: s3.PickOff | None, rack: list[str]) -> Scrabble3Move:
        """The readable move, scored by the rules."""
        placement = self.generator.to_move(raw).placement
        rest = board.without(pick.squares) if pick is not None else board
        direction = s3.main_direction(rest, placement, pick)
        assert direction is not None
        score = s3.score_play(board, placement, self.tileset, pick=pick, options=self.options)
        position, word = notation_of(rest, placement, direction)
        return Scrabble3Move(score, placement, direction, pick.squares if pick else (), _flips(placement, rack),
                             position, word)

    def has_move(self, board: Board, rack: str | Iterable[str], faces: Mapping[Coord, str] | None = None) -> bool:
        return bool(self.scored(board, rack, faces))

    # --- the walk ----------------------------------------------------------------------------

    def _walk(self, board: Board, analysis: Analysis, rack: list[str]) -> Iterable[RawMove]:
        """The walker's placements for every choice of flipped JQXZ (deduplicated)."""
        seen: set[tuple] = set()
        wild = sorted(t for t in rack if t in s3.JQXZ)
        rest = [t for t in rack if t not in s3.JQXZ]
        choices = set()
        for n in range(len(wild) + 1):
            for flipped in itertools.combinations(wild, n):
                choices.add(flipped)
        gen = self.generator
        for flipped in sorted(choices):
            upright = list((Counter(wild) - Counter(flipped)).elements())
            variant = rest + upright + [BLANK] * len(flipped)
            for raw in _raw_on(gen, board, analysis, variant):
                key = raw[1:]
                if key not in seen:
                    seen.add(key)
                    yield raw

    def _line_analysis(self, board: Board, analysis: Analysis, pick: s3.PickOff) -> Analysis:
        """``analysis`` of ``board`` with the picked tiles gone, anchors on the word's line only."""
        d = 0 if pick.direction is Direction.ACROSS else 1
        line = pick.word[0][0] if d == 0 else pick.word[0][1]
        positions = [s[1] if d == 0 else s[0] for s in pick.squares]
        everything = (1 << len(self.generator.alphabet)) - 1
        frames = []
        for fd, frame in enumerate(analysis.frames):
            new = _Frame()
            for name in ("tiles", "bval", "cross", "xs", "lm", "wm"):
                setattr(new, name, list(getattr(frame, name)))
            new.anchors = [[] for _ in frame.anchors]
            frames.append(new)
        f = frames[d]
        tiles, bval, cross, xs = (list(f.tiles[line]), list(f.bval[line]), list(f.cross[line]), list(f.xs[line]))
        lm, wm = list(f.lm[line]), list(f.wm[line])
        for p in positions:
            # A picked tile hung free: its square has no cross word, and (as a square of the
            # original word) gives no premium again.
            tiles[p], bval[p], cross[p], xs[p], lm[p], wm[p] = -1, 0, everything, -1, 1, 1
        f.tiles[line], f.bval[line], f.cross[line], f.xs[line], f.lm[line], f.wm[line] = tiles, bval, cross, xs, lm, wm
        anchors = []
        free = 0
        for pos in range(len(tiles)):
            if tiles[pos] >= 0:
                free = 0
                continue
            touches = xs[pos] >= 0 or (pos > 0 and tiles[pos - 1] >= 0) or (pos + 1 < len(tiles) and tiles[pos + 1] >= 0)
            if touches:
                anchors.append((pos, free))
                free = 0
            else:
                free += 1
        f.anchors[line] = anchors
        # The walker keeps a lone tile of a down pass only when it forms no across word (the
        # across pass finds it otherwise); here there is no across pass, and the rules score
        # every move again, so the cross scores are not needed: none are left to drop it.
        f.xs[line] = [-1] * len(xs)
        derived = object.__new__(Analysis)
        derived.layout = analysis.layout
        derived.frames = frames
        derived.empty = False
        derived._flat = None
        return derived


class _LineInfo:
    """What scoring a walker's placement the Scrabble III way needs of a board: per direction,
    line and square, the cross word's length with the new tile (0: none) and its old tiles'
    value under the small-word cap. The rules' own scorer (:func:`rules.scrabble3.score_play`)
    is the reference; a test holds this one to it move for move."""

    def __init__(
        self, board: Board, analysis: Analysis, gen: Generator, pick: s3.PickOff | None, options: s3.Scrabble3Options
    ) -> None:
        self.board = board
        self.options = options
        self.frames = analysis.frames
        self.pick = pick
        self.gen = gen
        self.values = gen.values
        self.wild = [ch in s3.JQXZ for ch in gen.alphabet]
        self.inner = board.layout.inner
        self._cross: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
        if pick is not None:
            d = 0 if pick.direction is Direction.ACROSS else 1
            self.pick_line = pick.word[0][0] if d == 0 else pick.word[0][1]
            self.pick_first = pick.word[0][1] if d == 0 else pick.word[0][0]
            self.pick_len = len(pick.word)
            self.picked = len(pick.squares)

    def cross_words(self, d: int, line: int) -> tuple[list[int], list[int]]:
        """Per square of the line: the cross word's length with a tile there (0: none), and the
        value of its old tiles under the small-word cap (computed once per line)."""
        got = self._cross.get((d, line))
        if got is not None:
            return got
        board = self.board
        layout = board.layout
        direction = Direction.ACROSS if d == 0 else Direction.DOWN
        value = self.gen.tileset.value
        n_pos = layout.cols if d == 0 else layout.rows
        lengths, capped = [0] * n_pos, [0] * n_pos
        for pos in range(n_pos):
            sq = (line, pos) if d == 0 else (pos, line)
            if sq in board:
                continue
            run = run_through(board.with_tiles([(sq, _PROBE)]), sq, direction.other)
            if len(run) < 2:
                continue
            length = len(run)
            lengths[pos] = length
            old = [board[x] for x in run if x != sq]
            capped[pos] = sum(
                min(value(t.letter, t.blank), length) if length <= s3.SMALL_WORD else value(t.letter, t.blank)
                for t in old  # type: ignore[union-attr]
            )
        self._cross[(d, line)] = (lengths, capped)
        return lengths, capped

    def score(self, raw: RawMove) -> int | None:
        """The move's Scrabble III score, or None when it is not a legal Scrabble III play."""
        _, d, line, start, codes = raw
        n = len(codes)
        nt = sum(1 for c in codes if c < BOARD_CODE)
        pick = self.pick
        if nt == 1 and pick is None:
            return self._one_tile(raw)
        if n < s3.BIG_WORD:
            return None
        r0, c0, r1, c1 = self.inner
        # The main word must have a square on the inner board (rule 9).
        (line_lo, line_hi), (lo, hi) = ((r0, r1), (c0, c1)) if d == 0 else ((c0, c1), (r0, r1))
        if not line_lo <= line <= line_hi or start > hi or start + n - 1 < lo:
            return None
        if pick is not None:
            if line != self.pick_line or not start <= self.pick_first < start + n or n <= self.pick_len:
                return None
        frame = self.frames[d]
        bval, lm, wm = frame.bval[line], frame.lm[line], frame.wm[line]
        xl, xcap = self.cross_words(d, line)
        values, wild = self.values, self.wild
        msum = wsum = cross = jq_main = jq_cross = 0
        run = best_run = 0
        for i, code in enumerate(codes):
            pos = start + i
            if code >= BOARD_CODE:
                msum += bval[pos]
                run += 1
                if run > best_run:
                    best_run = run
                continue
            run = 0
            blank = code >= BLANK_CODE
            lt = code - BLANK_CODE if blank else code
            v = 0 if blank else values[lt]
            lmp, wmp = lm[pos], wm[pos]
            msum += v * lmp
            if wmp > 1:
                wsum += wmp
            upright_wild = not blank and wild[lt]
            if upright_wild:
                jq_main += 1
            length = xl[pos]
            if length:
                nv = min(v, length) if length <= s3.SMALL_WORD else v
                cross += (xcap[pos] + nv * lmp) * wmp
                if upright_wild:
                    jq_cross += s3.jqxz_bonus(length)
        from_rack = nt - (self.picked if pick is not None else 0)
        if pick is not None:
            stretched = n - self.pick_len if self.pick_len >= s3.BIG_WORD else 0
        else:
            stretched = from_rack if best_run >= s3.BIG_WORD else 0
        return (
            msum * (wsum or 1) + cross + s3.BIG_PLAY_BONUS.get(from_rack, 0)
            + s3.stretch_bonus(stretched, self.options) + jq_main * s3.jqxz_bonus(n) + jq_cross
        )

    def _one_tile(self, raw: RawMove) -> int | None:
        """One tile laid: its main word may be either way, so the rules decide (rare moves)."""
        placement = self.gen.to_move(raw).placement
        direction = s3.main_direction(self.board, placement)
        if direction is None:
            return None
        after = self.board.with_tiles((t.coord, t.tile) for t in placement.tiles)
        main = run_through(after, placement.tiles[0].coord, direction)
        if len(main) < s3.BIG_WORD or not any(self.board.layout.in_inner(s) for s in main):
            return None
        return s3.score_play(self.board, placement, self.gen.tileset, options=self.options).total


_PROBE = Tile("?")


def _raw_on(gen: Generator, board: Board, analysis: Analysis, rack: list[str]) -> list[RawMove]:
    """The walker's placements on ``analysis`` (which may be a patched one) that could be a
    Scrabble III play: a main word of 6 letters or more, or one tile (whose main word may be
    the other way)."""
    cached = gen._analysis
    gen._analysis = (board, analysis)
    try:
        arr = gen.move_array(board, rack)
        if arr is None:
            return [m for m in gen.python_moves(board, rack)
                    if len(m[4]) >= s3.BIG_WORD or sum(1 for c in m[4] if c < BOARD_CODE) == 1]
    finally:
        gen._analysis = cached
    codes = arr[:, 5:]
    lengths = arr[:, 4]
    laid = ((codes < BOARD_CODE) & (np.arange(codes.shape[1])[None, :] < lengths[:, None])).sum(axis=1)
    arr = arr[(lengths >= s3.BIG_WORD) | (laid == 1)]
    head = arr[:, :5].tolist()
    rows = arr[:, 5:].tolist()
    return [(h[0], h[1], h[2], h[3], tuple(c[: h[4]])) for h, c in zip(head, rows)]


def _flips(placement: Placement, rack: list[str]) -> tuple[tuple[Coord, str], ...]:
    """Which blanks of the placement are flipped JQXZ: the rack's own blanks go first, then the
    JQXZ the move does not lay upright."""
    blanks = [t.coord for t in placement.tiles if t.blank]
    own = rack.count(BLANK)
    if len(blanks) <= own:
        return ()
    spare = Counter(t for t in rack if t in s3.JQXZ) - Counter(t.letter for t in placement.tiles if not t.blank)
    faces = sorted(spare.elements())
    return tuple(zip(blanks[own:], faces))


def pickable(board: Board) -> list[s3.PickOff]:
    """Every pick-off the rules allow on ``board``: the last 1 or 2 tiles of each word."""
    out = []
    seen = set()
    for square, _ in board.items():
        for d in Direction:
            word = run_through(board, square, d)
            if len(word) < 2 or word[-1] != square:
                continue
            for n in (1, 2):
                squares = tuple(word[len(word) - n:])
                if squares in seen:
                    continue
                found = s3.find_pick_off(board, squares)
                if not isinstance(found, IllegalPlay):
                    seen.add(squares)
                    out.append(found)
    return out


def _key(move: Scrabble3Move) -> tuple:
    return (move.pick_off, move.placement.tiles)


def _order(move: Scrabble3Move) -> tuple:
    return (-move.total, move.position, move.word, move.pick_off)


def generator_for(lexicon: Container[str] | None = None,
                  options: s3.Scrabble3Options = s3.DEFAULT_OPTIONS) -> Scrabble3Generator:
    """The Scrabble III generator of the house English list (with the user's changes)."""
    from companion.engine.dawg import dawg_for
    from companion.lexicon import load_lexicon
    from companion.lexicon.house import list_for_tileset, list_tileset

    tileset: TileSet = get_tileset(s3.TILESET)
    list_name = list_for_tileset(s3.TILESET)
    if lexicon is None:
        lexicon = load_lexicon(s3.TILESET)
    alphabet = list_tileset(list_name).alphabetical()
    twos = sorted(options.two_letter_words)
    dawg = dawg_for(lexicon, alphabet, f"scrabble3-{list_name}", words=word_list(lexicon, twos),
                    variant="scrabble3:" + ",".join(twos))
    generator = Generator(dawg, tileset, bonuses={})
    generator.prepare()
    return Scrabble3Generator(generator, options)


def rack_list(text: str | Sequence[str]) -> list[str]:
    return [t.upper() if t != BLANK else t for t in text]


# ---------------------------------------------------------------------------------------------
# A computer player


class Scrabble3Player:
    """Plays Scrabble III as the classic skill-5 player does: the move of best equity (score
    plus the value of the tiles kept, :mod:`companion.engine.leave`, while the bag has tiles),
    among the 200 best-scoring; without a move it exchanges (8 tiles in the bag at least) or
    passes. In the final-racks round it plays the best move with the other's rack, or declines."""

    CANDIDATES = 200

    def __init__(self, generator: Scrabble3Generator, leave_weight: float = 1.0) -> None:
        self.generator = generator
        self.leave_weight = leave_weight

    def decide(self, board: Board, rack: Sequence[str], bag_size: int,
               faces: Mapping[Coord, str] | None = None) -> Scrabble3Move | str | None:
        """The move, or the tiles to exchange, or None to pass."""
        from companion.engine.leave import leave_value
        from companion.engine.player import best_keep

        rack = rack_list(rack)
        found = self.generator.scored(board, rack, faces)
        found.sort(key=lambda m: (-m[0], m[1][1:], m[2].squares if m[2] else ()))
        weight = self.leave_weight if bag_size > 0 else 0.0
        best = None
        for score, raw, pick, used in found[: self.CANDIDATES]:
            move = self.generator.to_move(board, raw, pick, list(used))
            equity = float(score)
            if weight:
                left = list(used)
                for t in move.rack_tiles:
                    left.remove(t)
                equity += weight * leave_value(left, self.generator.tileset)
            if best is None or equity > best[0]:
                best = (equity, move)
        if best is not None:
            return best[1]
        if rack and bag_size >= s3.EXCHANGE_MIN_BAG:
            keep = list(best_keep(rack, len(rack), self.generator.tileset))
            give = list(rack)
            for t in keep:
                give.remove(t)
            return "".join(give) or None
        return None

    def action(self, state: s3.Scrabble3State) -> s3.Action:
        """The action for the player to move (racks must be dealt by the companion)."""
        me = state.players[state.to_move]
        if me.rack is None:
            raise CompanionError("a computer player needs to see its rack")
        faces = dict(state.faces)
        if state.phase is s3.Phase.FINAL_RACKS:
            other = state.end_racks[1 - state.to_move]
            found = self.generator.best(state.board, list(other), 1, faces)
            return found[0].action() if found else s3.Decline()
        decision = self.decide(state.board, me.rack, state.bag_size, faces)
        if isinstance(decision, Scrabble3Move):
            return decision.action()
        if decision:
            return s3.Exchange(decision)
        return s3.Pass()


def self_play(generator: Scrabble3Generator, lexicon: Container[str], *, seed: int = 0,
              max_turns: int = 300, positions: list | None = None) -> tuple[s3.Scrabble3State, list[s3.Verdict]]:
    """One Scrabble III game between two computer players, every action judged by the rules;
    a refused or invalid play is a bug of the generator and raises. ``positions`` collects
    (board, rack, faces) before every regular turn (the benchmark's positions)."""
    state = s3.new_game(["cpu-1", "cpu-2"], generator.options, seed=seed)
    players = [Scrabble3Player(generator), Scrabble3Player(generator)]
    verdicts: list[s3.Verdict] = []
    for _ in range(max_turns):
        if state.over:
            return state, verdicts
        if positions is not None and state.phase is s3.Phase.PLAY:
            positions.append((state.board, state.players[state.to_move].rack, dict(state.faces)))
        action = players[state.to_move].action(state)
        out = s3.apply(state, action, lexicon)
        for v in out.verdicts:
            if v.kind in (s3.VerdictKind.REFUSED, s3.VerdictKind.INVALID, s3.VerdictKind.FINAL_RACKS_INVALID):
                raise AssertionError(f"the rules took {action} as {v.kind.value}: {v.message}")
        verdicts.extend(out.verdicts)
        state = out.state
    raise AssertionError(f"no end after {max_turns} turns")
