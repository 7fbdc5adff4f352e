"""The move generator against a brute-force oracle, the rules' scoring and itself in C.

The oracle knows nothing of anchors or DAWGs: for every line, every window of squares not
extended by a tile at either end, and every word of the (small, random) lexicon of the window's
length, it lays the word's missing letters from the rack in every way the rack allows (a blank
for any of them) and keeps what :func:`companion.rules.common.geometry_error`, the words formed
and the lexicon accept, scored by the classic rules. The generator must find the same
placements, each once, with the same scores.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from companion.core.board import EXTENDED, STANDARD, Board, Tile
from companion.core.move import PlacedTile, Placement
from companion.core.tiles import BLANK, get_tileset
from companion.core.words import words_formed
from companion.engine import native
from companion.engine.dawg import build
from companion.engine.movegen import Generator
from companion.rules.classic import score_play
from companion.rules.common import geometry_error

EN = get_tileset("en")
ALPHABET = EN.alphabetical()
LETTERS = "AEIRSTNLDOC"


def random_lexicon(rng: random.Random, n: int = 300) -> set[str]:
    words = set()
    while len(words) < n:
        length = rng.choice([2, 2, 3, 3, 3, 4, 4, 5, 6, 7, 8])
        words.add("".join(rng.choice(LETTERS) for _ in range(length)))
    return words


def random_board(rng: random.Random, layout, words: list[str], n_words: int) -> Board:
    """Words laid anywhere near the centre, crossing or not: a board need not be legal for the
    generator to be right about what can be added to it."""
    tiles: dict = {}
    centre = layout.centre
    for _ in range(n_words):
        w = rng.choice(words)
        across = rng.random() < 0.5
        r = centre[0] + rng.randint(-5, 5)
        c = centre[1] + rng.randint(-5, 5)
        for i, ch in enumerate(w):
            sq = (r, c + i) if across else (r + i, c)
            if layout.contains(sq):
                tiles.setdefault(sq, Tile(ch, blank=rng.random() < 0.1))
    return Board(layout, tiles)


_ORACLE: dict = {}


def oracle(board: Board, rack: str, lexicon: set[str]) -> Counter:
    key = (board, rack, frozenset(lexicon))
    if key not in _ORACLE:
        _ORACLE[key] = _oracle(board, rack, lexicon)
    return _ORACLE[key]


def _oracle(board: Board, rack: str, lexicon: set[str]) -> Counter:
    layout = board.layout
    have = Counter(rack)
    by_len: dict[int, list[str]] = {}
    for w in lexicon:
        by_len.setdefault(len(w), []).append(w)
    found: Counter = Counter()
    for across in (True, False):
        n_lines, n_pos = (layout.rows, layout.cols) if across else (layout.cols, layout.rows)
        for line in range(n_lines):
            sq = (lambda p: (line, p)) if across else (lambda p: (p, line))
            for s in range(n_pos):
                if s > 0 and sq(s - 1) in board:
                    continue
                for e in range(s + 1, n_pos):
                    if e + 1 < n_pos and sq(e + 1) in board:
                        continue
                    empties = [p for p in range(s, e + 1) if sq(p) not in board]
                    if not empties or len(empties) > len(rack):
                        continue
                    for w in by_len.get(e - s + 1, ()):
                        if any(board[sq(p)] is not None and board[sq(p)].letter != w[p - s] for p in range(s, e + 1)):
                            continue
                        need = [w[p - s] for p in empties]
                        short = sum(max(0, k - have[ch]) for ch, k in Counter(need).items())
                        if short > have[BLANK]:
                            continue
                        # Each missing letter from a tile of that letter or from a blank.
                        choices = [
                            c for n in range(have[BLANK] + 1) for c in itertools.combinations(range(len(need)), n)
                        ]
                        for chosen in choices:
                            blanks = [i in chosen for i in range(len(need))]
                            use = Counter(BLANK if b else ch for ch, b in zip(need, blanks))
                            if any(have[t] < k for t, k in use.items()):
                                continue
                            placed = [PlacedTile(*sq(p), ch, b) for p, ch, b in zip(empties, need, blanks)]
                            placement = Placement.of(placed)
                            if geometry_error(board, placement) is not None:
                                continue
                            if any(x.text not in lexicon for x in words_formed(board, placement)):
                                continue
                            key = frozenset((t.row, t.col, t.letter, t.blank) for t in placement.tiles)
                            found[(key, score_play(board, placement, EN).total)] += 1
    # A placement found along both lines (one tile forming words both ways) is one placement.
    return Counter({k: 1 for k in found})


def generated(gen: Generator, board: Board, rack: str, python: bool = False) -> Counter:
    raw = gen.python_moves(board, rack) if python else gen.raw_moves(board, rack)
    out: Counter = Counter()
    for m in raw:
        move = gen.to_move(m)
        key = frozenset((t.row, t.col, t.letter, t.blank) for t in move.tiles)
        out[(key, move.score)] += 1
    return out


def _rack(rng: random.Random, size: int, blanks: int, lexicon: set[str] = frozenset()) -> str:
    long = sorted(w for w in lexicon if len(w) == size - blanks)
    if long and rng.random() < 0.5:  # a rack that spells a word: bingos
        return rng.choice(long) + BLANK * blanks
    return "".join(rng.choice(LETTERS) for _ in range(size - blanks)) + BLANK * blanks


CASES = [
    # (seed, layout, words on the board, rack size, blanks)
    (1, STANDARD, 0, 7, 0),
    (2, STANDARD, 0, 5, 1),
    (3, STANDARD, 3, 7, 0),
    (4, STANDARD, 5, 7, 1),
    (5, STANDARD, 8, 6, 2),
    (6, EXTENDED, 4, 8, 0),
    (7, EXTENDED, 6, 8, 1),
    (8, STANDARD, 10, 7, 0),
    (9, EXTENDED, 0, 8, 0),
    (10, STANDARD, 6, 4, 2),
]


@pytest.mark.parametrize("python", [False, True], ids=["native", "python"])
@pytest.mark.parametrize("seed,layout,n_words,size,blanks", CASES)
def test_generator_equals_brute_force(seed, layout, n_words, size, blanks, python):
    rng = random.Random(seed)
    lexicon = random_lexicon(rng)
    gen = Generator(build(lexicon, ALPHABET), EN)
    board = random_board(rng, layout, sorted(lexicon), n_words)
    rack = _rack(rng, size, blanks, lexicon)
    if not python and native.library() is None:
        pytest.skip("no C compiler: the Python walker is the generator")
    got = generated(gen, board, rack, python=python)
    want = oracle(board, rack, lexicon)
    assert sum(got.values()) == len(got), "a placement generated twice"
    assert set(got) == set(want)
    assert want, "a case with no move at all tests little"


def test_cases_cover_parallel_plays_play_through_blanks_and_bingos():
    kinds = Counter()
    for seed, layout, n_words, size, blanks in CASES:
        rng = random.Random(seed)
        lexicon = random_lexicon(rng)
        gen = Generator(build(lexicon, ALPHABET), EN)
        board = random_board(rng, layout, sorted(lexicon), n_words)
        for m in gen.moves(board, _rack(rng, size, blanks, lexicon)):
            words = words_formed(board, m.placement)
            kinds["parallel"] += len(words) > 1
            kinds["through"] += "." in m.word
            kinds["blank"] += any(t.blank for t in m.tiles)
            kinds["seven"] += len(m.tiles) >= 7
    assert all(kinds[k] > 0 for k in ("parallel", "through", "blank", "seven")), kinds


def test_a_wrong_generator_fails_the_oracle():
    """The comparison can fail: a generator with the wrong bonus for seven tiles differs."""
    for seed in range(1, 40):
        rng = random.Random(seed)
        lexicon = random_lexicon(rng)
        seven = sorted(w for w in lexicon if len(w) == 7)
        if seven:
            break
    gen = Generator(build(lexicon, ALPHABET), EN, bonuses={7: 49})
    board = Board(STANDARD)
    rack = rng.choice(seven)
    got = generated(gen, board, rack, python=True)
    want = oracle(board, rack, lexicon)
    assert any(len(k[0]) == 7 for k in want)
    assert set(got) != set(want)


def test_every_score_equals_the_rules_on_a_real_list(english):
    gen = english
    rng = random.Random(11)
    board = Board(STANDARD)
    for rack in ("RETAINS", "QUIZ?ED", "EEIOUAA", "??ERTIN"):
        moves = gen.moves(board, rack)
        assert moves
        for m in rng.sample(moves, min(80, len(moves))):
            assert score_play(board, m.placement, EN).total == m.score, m
        best = moves[0]
        board = board.with_tiles((t.coord, t.tile) for t in best.tiles)


def test_has_move(english):
    board = Board(STANDARD)
    assert english.has_move(board, "RETAINS")
    assert not english.has_move(board, "QQ")
    assert not english.has_move(board, "")
