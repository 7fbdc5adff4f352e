"""Every legal placement of a rack on a board, scored: Appel & Jacobson's algorithm over a DAWG.

One generator serves hints, the computer players and the question "can anything be played at
all?" (:func:`has_move`, the dungeon's trapped state).

The method (A. Appel and G. Jacobson, "The world's fastest Scrabble program", CACM 1988):

- Per board, once (:class:`Analysis`): for each direction, each line, each empty square, the
  *cross-check* (the bitmask of letters that form a word with the tiles above and below, or
  every letter when it has none), the *cross-score* (the value of those tiles, or -1 when there
  is no cross word), the premiums; and the *anchors*: empty squares next to a tile (the centre
  on an empty board).
- Per anchor, every move whose leftmost covered anchor it is: a *left part* on the empty
  squares to its left that are not anchors (so have no cross-checks and cannot touch a tile),
  or the tiles already there, then extended to the right through the DAWG, square by square,
  over board tiles and with rack tiles allowed by each square's cross-check. Left parts depend
  only on the rack, so they are enumerated once per rack, with the letters each can still be
  followed by, and an anchor takes only those that can continue on its own cross-check.
- Scores are summed along the way as the rules score them (:mod:`companion.core.words`): main
  word letters with letter premiums under new tiles only, times the word premiums under new
  tiles; each cross word (its existing tiles plus the new tile with its letter premium) times
  the new square's word premium; plus the bonus for the number of tiles laid (50 for seven in
  the classic game). A test checks every generated move's score against the rules' scoring.
- A placement of a single tile forms words across and down and would be found in both
  directions: it is kept in the across pass when it forms an across word, else in the down
  pass, which is also the direction :func:`companion.core.words.words_formed` calls main.

Inside the loop a move is a tuple ``(score, direction, line, start, codes)``: direction 0 is
across (line = row, start = column), 1 is down (line = column, start = row); ``codes`` has one
int per square of the word: a letter index for a rack tile, +32 for a blank, +64 for a tile
already on the board. :class:`Move` is the readable form, made only for the moves shown.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from companion.core.board import Board, Direction
from companion.core.move import PlacedTile, Placement, format_position
from companion.core.tiles import BLANK, TileSet
from companion.engine import native
from companion.engine.dawg import Dawg
from companion.core.errors import CompanionError

CLASSIC_BONUSES: Mapping[int, int] = {7: 50}
BLANK_CODE = 32
BOARD_CODE = 64

RawMove = tuple[int, int, int, int, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Move:
    """A placement as GCG writes it, with its score."""

    score: int
    direction: Direction
    row: int  # the square the word starts on (a board tile when it plays through one)
    col: int
    word: str  # GCG: '.' for a tile already on the board, lower case for a blank
    letters: str  # the whole main word, upper case
    tiles: tuple[PlacedTile, ...]  # the tiles laid

    @property
    def position(self) -> str:
        return format_position((self.row, self.col), self.direction)

    @property
    def placement(self) -> Placement:
        return Placement.of(self.tiles)

    @property
    def rack_tiles(self) -> str:
        """The rack tiles the move uses, ``?`` for a blank."""
        return "".join(BLANK if t.blank else t.letter for t in self.tiles)

    @property
    def gcg(self) -> str:
        return f"{self.position} {self.word}"

    def __str__(self) -> str:
        return f"{self.gcg} {self.score}"


def to_move(raw: RawMove, alphabet: Sequence[str]) -> Move:
    score, d, line, start, codes = raw
    word, letters, tiles = [], [], []
    for i, code in enumerate(codes):
        pos = start + i
        r, c = (line, pos) if d == 0 else (pos, line)
        if code >= BOARD_CODE:
            ch = alphabet[code - BOARD_CODE]
            word.append(".")
        elif code >= BLANK_CODE:
            ch = alphabet[code - BLANK_CODE]
            word.append(ch.lower())
            tiles.append(PlacedTile(r, c, ch, blank=True))
        else:
            ch = alphabet[code]
            word.append(ch)
            tiles.append(PlacedTile(r, c, ch))
        letters.append(ch)
    row, col = (line, start) if d == 0 else (start, line)
    direction = Direction.ACROSS if d == 0 else Direction.DOWN
    return Move(score, direction, row, col, "".join(word), "".join(letters), tuple(tiles))


class _Frame:
    """One direction of a board: per line, per square, what the generator reads."""

    __slots__ = ("tiles", "bval", "cross", "xs", "lm", "wm", "anchors")

    def __init__(self) -> None:
        self.tiles: list[list[int]] = []  # letter index, -1 empty
        self.bval: list[list[int]] = []  # value of the tile there (0 for a blank or empty)
        self.cross: list[list[int]] = []  # allowed letters (0 on a tile)
        self.xs: list[list[int]] = []  # cross-word tiles' value, -1 when no cross word
        self.lm: list[list[int]] = []
        self.wm: list[list[int]] = []
        self.anchors: list[list[tuple[int, int]]] = []  # (position, free squares to its left)


class Analysis:
    """What the generator needs of one board: computed once, shared by every rack."""

    __slots__ = ("layout", "frames", "empty", "_flat")

    def __init__(self, board: Board, dawg: Dawg, tileset: TileSet) -> None:
        layout = board.layout
        self.layout = layout
        rows, cols = layout.rows, layout.cols
        index = dawg.index()
        grid = [[-1] * cols for _ in range(rows)]
        gval = [[0] * cols for _ in range(rows)]
        for (r, c), tile in board.items():
            try:
                grid[r][c] = index[tile.letter]
            except KeyError:
                raise CompanionError(f"{tile.letter} on the board is not a letter of the word list") from None
            gval[r][c] = tileset.value(tile.letter, tile.blank)
        self.empty = board.is_empty()
        anchor = [[False] * cols for _ in range(rows)]
        if self.empty:
            anchor[layout.centre[0]][layout.centre[1]] = True
        else:
            for r in range(rows):
                for c in range(cols):
                    if grid[r][c] < 0 and (
                        (r > 0 and grid[r - 1][c] >= 0)
                        or (r + 1 < rows and grid[r + 1][c] >= 0)
                        or (c > 0 and grid[r][c - 1] >= 0)
                        or (c + 1 < cols and grid[r][c + 1] >= 0)
                    ):
                        anchor[r][c] = True
        lmul = [[p.letter_multiplier for p in row] for row in layout.premiums]
        wmul = [[p.word_multiplier for p in row] for row in layout.premiums]
        everything = (1 << len(dawg.alphabet)) - 1
        first, final, letter, child = dawg.first, dawg.final, dawg.letter, dawg.child
        self.frames = []
        for d in (0, 1):
            frame = _Frame()
            n_lines, n_pos = (rows, cols) if d == 0 else (cols, rows)

            def at(line: int, pos: int, d: int = d) -> tuple[int, int]:
                return (line, pos) if d == 0 else (pos, line)

            for line in range(n_lines):
                tiles, bval, cross, xs, lm, wm, anchors = [], [], [], [], [], [], []
                free = 0
                for pos in range(n_pos):
                    r, c = at(line, pos)
                    t = grid[r][c]
                    tiles.append(t)
                    bval.append(gval[r][c])
                    lm.append(lmul[r][c])
                    wm.append(wmul[r][c])
                    if t >= 0:
                        cross.append(0)
                        xs.append(-1)
                        free = 0
                        continue
                    # The perpendicular run through (r, c): tiles before and after it.
                    dr, dc = (1, 0) if d == 0 else (0, 1)
                    before = []
                    rr, cc = r - dr, c - dc
                    while rr >= 0 and cc >= 0 and grid[rr][cc] >= 0:
                        before.append((rr, cc))
                        rr, cc = rr - dr, cc - dc
                    before.reverse()
                    after = []
                    rr, cc = r + dr, c + dc
                    while rr < rows and cc < cols and grid[rr][cc] >= 0:
                        after.append((rr, cc))
                        rr, cc = rr + dr, cc + dc
                    if not before and not after:
                        cross.append(everything)
                        xs.append(-1)
                    else:
                        allowed = 0
                        node = dawg.walk(0, [grid[a][b] for a, b in before])
                        if node >= 0:
                            suffix = [grid[a][b] for a, b in after]
                            for e in range(first[node], first[node + 1]):
                                end = dawg.walk(child[e], suffix)
                                if end >= 0 and final[end]:
                                    allowed |= 1 << letter[e]
                        cross.append(allowed)
                        xs.append(sum(gval[a][b] for a, b in before + after))
                    if anchor[r][c]:
                        anchors.append((pos, free))
                        free = 0
                    else:
                        free += 1
                frame.tiles.append(tiles)
                frame.bval.append(bval)
                frame.cross.append(cross)
                frame.xs.append(xs)
                frame.lm.append(lm)
                frame.wm.append(wm)
                frame.anchors.append(anchors)
            self.frames.append(frame)
        self._flat = None

    def flat(self) -> tuple:
        """The frames as flat int32 arrays for the C walker: six [2][lines][positions] arrays
        and the anchors as (direction, line, position, free) rows."""
        if self._flat is None:
            import numpy as np

            arrays = []
            for name in ("tiles", "bval", "cross", "xs", "lm", "wm"):
                values = [v for frame in self.frames for row in getattr(frame, name) for v in row]
                arrays.append(np.array(values, dtype=np.int32))
            anchors = [
                (d, line, pos, free)
                for d, frame in enumerate(self.frames)
                for line, row in enumerate(frame.anchors)
                for pos, free in row
            ]
            arrays.append(np.array(anchors, dtype=np.int32).reshape(-1, 4))
            self._flat = tuple(arrays)
        return self._flat


class Generator:
    """Moves of racks on boards for one word list and one tile set.

    ``bonuses`` maps the number of tiles laid to the bonus it earns (classic: 50 for seven;
    Scrabble III's stepped bonuses are ``{6: 20, 7: 50, 8: 80}``).
    """

    def __init__(self, dawg: Dawg, tileset: TileSet, bonuses: Mapping[int, int] = CLASSIC_BONUSES) -> None:
        self.dawg = dawg
        self.tileset = tileset
        self.alphabet = dawg.alphabet
        self.index = dawg.index()
        self.values = [tileset.value(ch) if ch in tileset.alphabet else 0 for ch in dawg.alphabet]
        self.bonuses = dict(bonuses)
        self._analysis: tuple[Board, Analysis] | None = None
        self._np: tuple | None = None
        self._capacity = 4096

    # --- the public face ---------------------------------------------------------------------

    def analyse(self, board: Board) -> Analysis:
        """The board's analysis; the last one is kept, so racks on one board share it."""
        cached = self._analysis
        if cached is not None and cached[0] is board:
            return cached[1]
        analysis = Analysis(board, self.dawg, self.tileset)
        self._analysis = (board, analysis)
        return analysis

    def rack_counts(self, rack: str | Iterable[str] | Counter) -> tuple[list[int], int]:
        """Letter counts (by letter index) and the number of blanks of a rack."""
        counts = [0] * len(self.alphabet)
        blanks = 0
        items = rack.elements() if isinstance(rack, Counter) else rack
        for ch in items:
            if ch == BLANK:
                blanks += 1
                continue
            try:
                counts[self.index[ch.upper()]] += 1
            except KeyError:
                raise CompanionError(f"rack: {ch!r} is not a letter of the word list") from None
        return counts, blanks

    def prepare(self) -> None:
        """Load the C walker and hand it the DAWG (done once; the first move pays it otherwise)."""
        if self._np is None and native.library() is not None:
            import numpy as np

            d = self.dawg
            self._np = tuple(np.array(a, dtype=np.int32) for a in (d.first, d.final, d.mask, d.letter, d.child))
            self._np_val = np.array(self.values, dtype=np.int32)

    def move_array(self, board: Board, rack: str | Iterable[str] | Counter, *, stop_first: bool = False):
        """Every legal placement as rows of a numpy int16 array (score, direction, line, start,
        length, codes...), from the C walker; None when it is not available."""
        lib = native.library()
        if lib is None:
            return None
        import numpy as np

        counts, blanks = self.rack_counts(rack)
        total = sum(counts) + blanks
        self.prepare()
        tiles, bval, cross, xs, lm, wm, anchors = self.analyse(board).flat()
        layout = board.layout
        bonus = np.array([self.bonuses.get(n, 0) for n in range(total + 1)], dtype=np.int32)
        capacity = 1 if stop_first else self._capacity
        while True:
            out = np.empty((capacity, native.REC), dtype=np.int16)
            rack_arr = np.array(counts, dtype=np.int32)
            n = lib.generate(
                *self._np, layout.rows, layout.cols, tiles, bval, cross, xs, lm, wm,
                anchors, len(anchors), rack_arr, blanks, self._np_val, bonus, total, out, capacity,
                1 if stop_first else 0,
            )
            if n <= capacity:
                return out[:n]
            capacity = self._capacity = max(n, 2 * self._capacity)

    def raw_moves(self, board: Board, rack: str | Iterable[str] | Counter) -> list[RawMove]:
        """Every legal placement of the rack's tiles, as tuples (see the module docstring)."""
        arr = self.move_array(board, rack)
        if arr is not None:
            head = arr[:, :5].tolist()
            codes = arr[:, 5:].tolist()
            return [(h[0], h[1], h[2], h[3], tuple(c[: h[4]])) for h, c in zip(head, codes)]
        return self.python_moves(board, rack)

    def python_moves(self, board: Board, rack: str | Iterable[str] | Counter) -> list[RawMove]:
        """The same as :meth:`raw_moves`, walked in Python (the reference the C walker matches)."""
        counts, blanks = self.rack_counts(rack)
        out: list[RawMove] = []
        self._generate(self.analyse(board), counts, blanks, out)
        return out

    def moves(self, board: Board, rack: str | Iterable[str] | Counter) -> list[Move]:
        """Every legal placement, best score first (ties in a fixed order)."""
        raw = self.raw_moves(board, rack)
        raw.sort(key=_order)
        return [to_move(m, self.alphabet) for m in raw]

    def best(self, board: Board, rack: str | Iterable[str] | Counter, k: int = 5) -> list[Move]:
        raw = self.raw_moves(board, rack)
        raw.sort(key=_order)
        return [to_move(m, self.alphabet) for m in raw[:k]]

    def has_move(self, board: Board, rack: str | Iterable[str] | Counter) -> bool:
        """Whether any placement is legal: stops at the first one found."""
        arr = self.move_array(board, rack, stop_first=True)
        if arr is not None:
            return len(arr) > 0
        counts, blanks = self.rack_counts(rack)
        try:
            self._generate(self.analyse(board), counts, blanks, _FirstOnly())
        except _Found:
            return True
        return False

    def to_move(self, raw: RawMove) -> Move:
        return to_move(raw, self.alphabet)

    # --- the loop ----------------------------------------------------------------------------

    def _left_parts(self, rack: list[int], blanks: int, limit: int) -> list[list[tuple]]:
        """Every prefix of a word the rack can spell, up to ``limit`` letters, by length:
        (node, codes, letters it may be followed by given the tiles left)."""
        first, mask, letter, child = self.dawg.first, self.dawg.mask, self.dawg.letter, self.dawg.child
        everything = (1 << len(self.alphabet)) - 1
        by_len: list[list[tuple]] = [[] for _ in range(limit + 1)]
        codes: list[int] = []
        bl = [blanks]

        def walk(node: int, depth: int) -> None:
            for e in range(first[node], first[node + 1]):
                lt = letter[e]
                kid = child[e]
                if not mask[kid]:
                    continue
                for code in (lt, lt + BLANK_CODE):
                    if code == lt:
                        if not rack[lt]:
                            continue
                        rack[lt] -= 1
                    else:
                        if not bl[0]:
                            continue
                        bl[0] -= 1
                    codes.append(code)
                    left = everything if bl[0] else sum(1 << i for i, n in enumerate(rack) if n)
                    follow = mask[kid] & left
                    if follow:
                        by_len[depth + 1].append((kid, tuple(codes), follow))
                        if depth + 1 < limit:
                            walk(kid, depth + 1)
                    codes.pop()
                    if code == lt:
                        rack[lt] += 1
                    else:
                        bl[0] += 1

        if limit > 0:
            walk(0, 0)
        return by_len

    def _generate(self, an: Analysis, rack: list[int], blanks: int, out: list) -> None:
        dawg = self.dawg
        first, final, mask, elet, echild = dawg.first, dawg.final, dawg.mask, dawg.letter, dawg.child
        val = self.values
        total = sum(rack) + blanks
        if total == 0:
            return
        bonus = [self.bonuses.get(n, 0) for n in range(total + 1)]
        below = [(1 << i) - 1 for i in range(len(self.alphabet))]
        left_parts = self._left_parts(rack, blanks, total - 1)
        bl = [blanks]
        word: list[int] = []
        append = out.append
        # Per line, per anchor: set before each extension, read by extend() and record().
        d = line = start = M = 0
        tiles: list[int] = []
        cross: list[int] = []
        xs: list[int] = []
        lm: list[int] = []
        wm: list[int] = []
        single_needs_no_cross = False

        def record(score: int, nt: int) -> None:
            if nt == 1 and single_needs_no_cross:
                # A single tile in the down pass: kept only if it forms no across word.
                for i, code in enumerate(word):
                    if code < BOARD_CODE:
                        if xs[start + i] >= 0:
                            return
                        break
            append((score, d, line, start, tuple(word)))

        def extend(node: int, pos: int, msum: int, wmul: int, xtot: int, nt: int) -> None:
            t = tiles[pos]
            nxt = pos + 1
            if t >= 0:
                m = mask[node]
                if not (m >> t) & 1:
                    return
                kid = echild[first[node] + (m & below[t]).bit_count()]
                msum += bval[pos]
                word.append(t + BOARD_CODE)
                if nxt == M or tiles[nxt] < 0:
                    if final[kid] and nt:
                        record(msum * wmul + xtot + bonus[nt], nt)
                    if nxt < M and nt < total and mask[kid]:
                        extend(kid, nxt, msum, wmul, xtot, nt)
                elif mask[kid]:
                    extend(kid, nxt, msum, wmul, xtot, nt)
                word.pop()
                return
            allowed = cross[pos]
            if not allowed:
                return
            ends = nxt == M or tiles[nxt] < 0
            goes_on = nxt < M and (not ends or nt + 1 < total)
            lmp = lm[pos]
            wmp = wm[pos]
            x = xs[pos]
            wmul2 = wmul * wmp
            nt2 = nt + 1
            b = bonus[nt2]
            for e in range(first[node], first[node + 1]):
                lt = elet[e]
                if not (allowed >> lt) & 1:
                    continue
                kid = echild[e]
                if rack[lt]:
                    v = val[lt] * lmp
                    ms = msum + v
                    xt = xtot + (x + v) * wmp if x >= 0 else xtot
                    word.append(lt)
                    if ends and final[kid]:
                        record(ms * wmul2 + xt + b, nt2)
                    if goes_on and mask[kid]:
                        rack[lt] -= 1
                        extend(kid, nxt, ms, wmul2, xt, nt2)
                        rack[lt] += 1
                    word.pop()
                if bl[0]:
                    xt = xtot + x * wmp if x >= 0 else xtot
                    word.append(lt + BLANK_CODE)
                    if ends and final[kid]:
                        record(msum * wmul2 + xt + b, nt2)
                    if goes_on and mask[kid]:
                        bl[0] -= 1
                        extend(kid, nxt, msum, wmul2, xt, nt2)
                        bl[0] += 1
                    word.pop()

        for d in (0, 1):
            frame = an.frames[d]
            single_needs_no_cross = d == 1
            for line in range(len(frame.tiles)):
                anchors = frame.anchors[line]
                if not anchors:
                    continue
                tiles = frame.tiles[line]
                bval = frame.bval[line]
                cross = frame.cross[line]
                xs = frame.xs[line]
                lm = frame.lm[line]
                wm = frame.wm[line]
                M = len(tiles)
                for a, free in anchors:
                    allowed = cross[a]
                    if not allowed:
                        continue
                    if a > 0 and tiles[a - 1] >= 0:
                        # The left part is the tiles already there.
                        s = a - 1
                        while s > 0 and tiles[s - 1] >= 0:
                            s -= 1
                        node = 0
                        msum = 0
                        for p in range(s, a):
                            t = tiles[p]
                            m = mask[node]
                            if not (m >> t) & 1:
                                node = -1
                                break
                            node = echild[first[node] + (m & below[t]).bit_count()]
                            msum += bval[p]
                            word.append(t + BOARD_CODE)
                        if node >= 0 and mask[node] & allowed:
                            start = s
                            extend(node, a, msum, 1, 0, 0)
                        word.clear()
                        continue
                    start = a
                    extend(0, a, 0, 1, 0, 0)
                    for k in range(1, min(free, total - 1) + 1):
                        s = a - k
                        for node, codes, follow in left_parts[k]:
                            if not follow & allowed:
                                continue
                            msum = 0
                            wmul = 1
                            for i, code in enumerate(codes):
                                if code < BLANK_CODE:
                                    rack[code] -= 1
                                    msum += val[code] * lm[s + i]
                                else:
                                    bl[0] -= 1
                                wmul *= wm[s + i]
                            word.extend(codes)
                            start = s
                            extend(node, a, msum, wmul, 0, k)
                            word.clear()
                            for code in codes:
                                if code < BLANK_CODE:
                                    rack[code] += 1
                                else:
                                    bl[0] += 1


def _order(raw: RawMove) -> tuple:
    return (-raw[0], raw[1], raw[2], raw[3], raw[4])


class _Found(Exception):
    pass


class _FirstOnly(list):
    def append(self, item: object) -> None:  # type: ignore[override]
        raise _Found


def generator_for(tileset_name: str, lexicon=None, bonuses: Mapping[int, int] = CLASSIC_BONUSES) -> Generator:
    """The generator of a tile set's word list (the user's, with their changes) or ``lexicon``."""
    from companion.core.tiles import get_tileset
    from companion.engine.dawg import dawg_for
    from companion.lexicon import load_lexicon
    from companion.lexicon.house import list_for_tileset, list_tileset

    tileset = get_tileset(tileset_name)
    list_name = list_for_tileset(tileset_name)
    if lexicon is None:
        lexicon = load_lexicon(tileset_name)
    alphabet = list_tileset(list_name).alphabetical()
    generator = Generator(dawg_for(lexicon, alphabet, list_name), tileset, bonuses)
    generator.prepare()
    return generator
