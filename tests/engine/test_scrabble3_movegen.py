"""The Scrabble III move generator against a brute-force enumeration through the rules.

The oracle knows nothing of anchors, graphs or pick-off lines: for every line of the 21x21
board, every window of squares not extended by a tile at either end, and every word of a small
random lexicon of the window's length, it lays the word's missing letters from the rack in
every way the rack allows (a tile of the letter, a blank, or a J, Q, X or Z flipped for a
blank), and asks :func:`companion.rules.scrabble3.judge`. It does the same after every pick-off
of 1 or 2 tiles off any word end, with the picked tiles on the rack. The generator must find the
same plays with the same scores (the rules' scores).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import replace

import pytest

from companion.core.board import EXTENDED, Board, Tile
from companion.core.move import PlacedTile, Placement
from companion.core.tiles import BLANK, get_tileset
from companion.engine import native
from companion.engine.dawg import build
from companion.engine.movegen import Generator
from companion.engine.scrabble3 import Scrabble3Generator, generator_for, word_list
from tests.engine.test_movegen import random_board as classic_random_board
from companion.rules import scrabble3 as s3

TS = get_tileset("super3")
ALPHABET = TS.alphabetical()
LETTERS = "AEIRSTNLOJQXZ"


def random_words(rng: random.Random, n: int = 120) -> tuple[set[str], frozenset[str]]:
    """A lexicon of 3 to 9 letters and a two-letter list."""
    words: set[str] = set()
    while len(words) < n:
        length = rng.choice([3, 4, 5, 6, 6, 7, 7, 8, 9])
        words.add("".join(rng.choice(LETTERS) for _ in range(length)))
    twos = frozenset("".join(rng.choice(LETTERS) for _ in range(2)) for _ in range(40))
    return words, twos


def stretches(rng: random.Random, board: Board, rack: str, n: int = 60) -> set[str]:
    """Words that stretch the board's words with the rack's letters (and a few others), with
    and without their last one or two letters: so that the cases have plays, pick-offs among
    them."""
    runs = []
    for sq, _ in board.items():
        for step in ((0, 1), (1, 0)):
            if (sq[0] - step[0], sq[1] - step[1]) in board:
                continue
            letters = []
            r, c = sq
            while (r, c) in board:
                letters.append(board[(r, c)].letter)
                r, c = r + step[0], c + step[1]
            if len(letters) >= 2:
                runs.append("".join(letters))
    pool = list(rack.replace(BLANK, "")) + list(LETTERS)
    out = set()
    for _ in range(n):
        if not runs:
            break
        w = rng.choice(runs)
        cut = rng.choice([0, 0, 1, 2])
        stem = w[: len(w) - cut] if cut < len(w) else w
        before = "".join(rng.choice(pool) for _ in range(rng.choice([0, 0, 1, 2])))
        after = "".join(rng.choice(pool) for _ in range(rng.choice([1, 2, 3, 4])))
        out.add(before + stem + after)
    letters = rack.replace(BLANK, "")
    for _ in range(3 if runs else 0):  # big plays: the whole rack stretching a word
        out.add(rng.choice(runs) + "".join(rng.sample(letters, len(letters))))
    return {w for w in out if len(w) <= 21}


def random_board(rng: random.Random, words: list[str], n_words: int) -> tuple[Board, dict]:
    """The classic test's random board on the 21x21 layout; each blank a blank or a flipped JQXZ."""
    board = classic_random_board(rng, EXTENDED, words, n_words)
    return board, {sq: rng.choice("?JQXZ") for sq, t in board.items() if t.blank}


_ORACLE: dict = {}


def oracle(board: Board, rack: list[str], lexicon: set[str], options: s3.Scrabble3Options, faces: dict) -> dict:
    key = (board, tuple(rack), frozenset(lexicon), options, tuple(sorted(faces.items())))
    if key not in _ORACLE:
        _ORACLE[key] = _oracle(board, rack, lexicon, options, faces)
    return _ORACLE[key]


def _oracle(board: Board, rack: list[str], lexicon: set[str], options: s3.Scrabble3Options, faces: dict) -> dict:
    found: dict = {}
    _windows(board, board, rack, lexicon, options, (), found)
    pickable = set()
    for sq, _ in board.items():
        for other in [None] + [(sq[0], sq[1] + 1), (sq[0] + 1, sq[1])]:
            squares = (sq,) if other is None else (sq, other)
            if other is not None and other not in board:
                continue
            got = s3.find_pick_off(board, squares)
            if isinstance(got, s3.PickOff):
                pickable.add(got.squares)
    for squares in sorted(pickable):
        picked = [faces.get(s, BLANK) if board[s].blank else board[s].letter for s in squares]
        _windows(board, board.without(squares), rack + picked, lexicon, options, squares, found)
    return found


def _windows(board, rest, rack, lexicon, options, pick, found) -> None:
    layout = board.layout
    have = Counter(rack)
    wild = have[BLANK] + sum(have[t] for t in "JQXZ")  # tiles that can be a blank
    # Every play touches a tile: a window with no tile in or beside it is skipped unasked.
    near = set()
    for (r, c), _ in rest.items():
        near.update({(r, c), (r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)})
    by_len: dict[int, list[str]] = {}
    for w in list(lexicon) + list(options.two_letter_words):
        by_len.setdefault(len(w), []).append(w)
    for across in (True, False):
        n_lines, n_pos = (layout.rows, layout.cols) if across else (layout.cols, layout.rows)
        for line in range(n_lines):
            def sq(p, line=line, across=across):
                return (line, p) if across else (p, line)

            for s in range(n_pos):
                if s > 0 and sq(s - 1) in rest:
                    continue
                for e in range(s + 1, n_pos):
                    if e + 1 < n_pos and sq(e + 1) in rest:
                        continue
                    if not any(sq(p) in near for p in range(s, e + 1)):
                        continue
                    empties = [p for p in range(s, e + 1) if sq(p) not in rest]
                    if not empties or len(empties) > len(rack):
                        continue
                    # Two tiles or more make the window the main word: under 6 letters the rules
                    # refuse it unasked (one tile may make a big word the other way).
                    if e - s + 1 < s3.BIG_WORD and len(empties) > 1:
                        continue
                    for w in by_len.get(e - s + 1, ()):
                        if any(rest[sq(p)] is not None and rest[sq(p)].letter != w[p - s] for p in range(s, e + 1)):
                            continue
                        need = [w[p - s] for p in empties]
                        short = sum(max(0, k - have[ch]) for ch, k in Counter(need).items())
                        if short > wild:
                            continue
                        for n_blank in range(min(len(need), wild) + 1):
                            for chosen in itertools.combinations(range(len(need)), n_blank):
                                upright = Counter(ch for i, ch in enumerate(need) if i not in chosen)
                                if any(have[t] < k for t, k in upright.items()):
                                    continue
                                spare = have[BLANK] + sum((have[t] - upright[t]) for t in "JQXZ")
                                if spare < n_blank:
                                    continue
                                placed = [PlacedTile(*sq(p), ch, i in chosen) for i, (p, ch) in enumerate(zip(empties, need))]
                                placement = Placement.of(placed)
                                judged = s3.judge(board, placement, lexicon, TS, pick_off=pick, options=options)
                                if judged.valid:
                                    key = (tuple(sorted(pick)), frozenset((t.row, t.col, t.letter, t.blank) for t in placed))
                                    found[key] = judged.score.total


def generated(gen: Scrabble3Generator, board: Board, rack: list[str], faces: dict) -> dict:
    out = {}
    for score, raw, pick, used in gen.scored(board, rack, faces):
        move = gen.to_move(board, raw, pick, list(used))
        assert move.total == score, move.describe()  # the per-line scorer is the rules' scorer
        key = (tuple(sorted(move.pick_off)), frozenset((t.row, t.col, t.letter, t.blank) for t in move.placement.tiles))
        assert key not in out, f"{move.describe()} generated twice"
        out[key] = score
    return out


def small_generator(words: set[str], twos: frozenset[str]) -> tuple[Scrabble3Generator, s3.Scrabble3Options]:
    options = replace(s3.DEFAULT_OPTIONS, two_letter_words=twos)
    dawg = build(word_list(words, twos), ALPHABET)
    return Scrabble3Generator(Generator(dawg, TS, bonuses={}), options), options


def case(seed: int, n_words: int, rack: str):
    rng = random.Random(seed)
    words, twos = random_words(rng)
    board, faces = random_board(rng, sorted(words), n_words)
    return board, faces, words | stretches(rng, board, rack), twos


CASES = [
    # seed, words on the board, rack
    (1, 3, "AEIRST"),
    (2, 4, "AJT?"),
    (3, 5, "QXEA"),
    (4, 2, "ZSLOIE"),
    (5, 6, "AERT"),
    (6, 4, "JQZ"),
    (7, 3, "?EIRN"),
    (8, 7, "LOTS"),
]


@pytest.mark.parametrize("python", [False, True], ids=["native", "python"])
@pytest.mark.parametrize("seed,n_words,rack", CASES)
def test_move_set_equals_brute_force_through_the_rules(seed, n_words, rack, python, monkeypatch):
    if python:
        monkeypatch.setenv("COMPANION_ENGINE", "python")
    native.reset()
    try:
        board, faces, words, twos = case(seed, n_words, rack)
        gen, options = small_generator(words, twos)
        got = generated(gen, board, list(rack), faces)
        want = oracle(board, list(rack), words, options, faces)
        assert got == want
    finally:
        native.reset()


def test_cases_cover_pick_offs_flips_and_big_plays():
    picks = flips = big = 0
    for seed, n_words, rack in CASES:
        board, faces, words, twos = case(seed, n_words, rack)
        gen, _ = small_generator(words, twos)
        for move in gen.moves(board, list(rack), faces):
            picks += bool(move.pick_off)
            flips += bool(move.flipped)
            big += move.score.big_play > 0
    assert picks >= 5 and flips >= 5 and big >= 1, (picks, flips, big)


@pytest.fixture(scope="module")
def real():
    from companion.lexicon import load_lexicon

    return generator_for(load_lexicon("en"))


def test_real_list_scores_and_the_text_s_stretch(real):
    board = Board(EXTENDED).with_tiles([((10, 7 + i), Tile(ch)) for i, ch in enumerate("DREAMY")])
    moves = real.moves(board, "ILY")
    assert [m.gcg for m in moves] == ["11H ....MILY", "11H .....ILY"]
    assert [m.total for m in moves] == [48, 48]
    assert moves[1].pick_off == ((10, 12),)
    best = real.best(board, "ILYSTEAR", 3)
    for m in best:
        judged = s3.judge(board, m.placement, real.generator.dawg, TS, pick_off=m.pick_off)
        assert judged.refused is None and judged.score.total == m.total


def test_a_flipped_jqxz_is_named(real):
    board = Board(EXTENDED).with_tiles([((10, 7 + i), Tile(ch)) for i, ch in enumerate("DREAMY")])
    moves = real.moves(board, "JLI")  # DREAMILY needs a Y: only the J flipped gives it
    flipped = [m for m in moves if m.flipped]
    assert flipped and all(f == "J" for m in flipped for _, f in m.flipped)
    assert any(m.gcg == "11H .....ILy" for m in flipped)


def test_a_generator_without_pick_offs_or_with_other_bonuses_fails_the_oracle(monkeypatch):
    seed, n_words, rack = CASES[0]
    board, faces, words, twos = case(seed, n_words, rack)
    gen, options = small_generator(words, twos)
    want = oracle(board, list(rack), words, options, faces)
    assert any(pick for pick, _ in want)
    with monkeypatch.context() as m:
        m.setattr(s3, "BIG_PLAY_BONUS", {6: 21, 7: 51, 8: 81})
        assert generated(gen, board, list(rack), faces) != want
    monkeypatch.setattr("companion.engine.scrabble3.pickable", lambda board: [])
    assert generated(gen, board, list(rack), faces) != want
