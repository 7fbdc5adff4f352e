"""Random Scrabble House positions reached by random legal plays: after every explosion each
string on the board is a word as its owner reads it (no mixed string, no tile alone), and no
tile is lost or created, on one board (before + laid = after + passed) and in the whole match
(boards + racks + bags, passed tiles reaching the partner).

The word list is made up: a string of two or more letters is a word when its CRC-32 is not a
multiple of 3, so that about a third of the strings an explosion leaves are not words and
explosions cascade; the letters are few, so that plays cross and explode often.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core.board import STANDARD, Board, Tile
from companion.rules import house
from companion.rules.house import (
    ROTATION,
    explode,
    play_error,
    tile_strings,
)

LETTERS = "AEIRST"


class MadeUp:
    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and len(word) >= 2 and zlib.crc32(word.encode()) % 3 != 0


LEX = MadeUp()


def random_play(board: Board, seat: int, rng: random.Random, letters=None) -> dict:
    """Tiles in a line through a square of the home row or next to a tile."""
    home = house.home_row(seat, board)
    starts = [(home, rng.randrange(15))]
    starts += [c for c, _ in board.items()] * 3
    r, c = rng.choice(starts)
    dr, dc = rng.choice([(0, 1), (1, 0)])
    n = rng.randint(1, 4)
    r, c = r - dr * rng.randint(0, n), c - dc * rng.randint(0, n)
    pool = list(letters) if letters is not None else [rng.choice(LETTERS) for _ in range(n)]
    rng.shuffle(pool)
    placed = {}
    while pool and len(placed) < n and 0 <= r < 15 and 0 <= c < 15:
        if (r, c) not in board:
            placed[(r, c)] = Tile(pool.pop(), rotation=ROTATION[seat])
        r, c = r + dr, c + dc
    return placed


def check_board(board: Board) -> None:
    for s in tile_strings(board):
        assert not s.mixed, s
        assert s.direction is not None, f"{s.letters} alone on {s.squares}"
        assert s.text() in LEX, f"{s.text()} is not a word for {house.SEAT_NAMES[s.owner]}"


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_every_explosion_leaves_words_and_keeps_every_tile(seed):
    rng = random.Random(seed)
    board = Board(STANDARD)
    opened = [False, False]
    for turn in range(40):
        seat = turn % 2
        for _ in range(30):
            placed = random_play(board, seat, rng)
            if placed and play_error(board, placed, seat, LEX, opened=opened[seat]) is None:
                break
        else:
            continue
        opened[seat] = True
        x = explode(board, placed, seat, LEX)
        assert all(w in LEX for w in x.words)
        before = Counter(t.letter for _, t in board.items()) + Counter(t.letter for t in placed.values())
        after = Counter(t.letter for _, t in x.after.items()) + Counter(t.letter for t in x.passed)
        assert before == after
        assert len(set(x.removed)) == len(x.removed)
        # Every tile of the new words that is still there faces the mover.
        for squares in x.word_squares:
            for sq in squares:
                if sq in x.after:
                    assert house.seat_of(x.after[sq]) == seat
        check_board(x.after)
        board = x.after


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_random_match_keeps_every_tile(seed):
    rng = random.Random(seed)
    m = house.new_match(("A", "B", "C", "D"), house.HouseOptions(), first=rng.randrange(4), seed=seed)
    total = m.tiles()
    for _ in range(60):
        index = rng.randrange(2)
        p = m.to_move(index)
        b = m.boards[index]
        rack = [k for k in m.racks[p]]
        done = False
        for _ in range(20):
            picks = rng.sample(rack, min(len(rack), rng.randint(1, 4)))
            letters = [("E" if letter == "?" else letter) for letter, _ in picks]
            placed = random_play(b.board, house.seat(p), rng, letters)
            if not placed:
                continue
            # Give each tile the colour and blankness of the rack tile it came from.
            keys = list(picks)
            tiles = {}
            for sq, t in placed.items():
                key = next(k for k in keys if (("E" if k[0] == "?" else k[0]) == t.letter))
                keys.remove(key)
                tiles[sq] = Tile(t.letter, blank=key[0] == "?", rotation=t.rotation, set=key[1])
            out = house.apply(m, house.Play(p, tuple(tiles.items())), LEX)
            if out.verdict.kind is house.VerdictKind.REFUSED:
                continue
            m = out.state
            assert m.tiles() == total
            if out.verdict.kind is house.VerdictKind.EXPLOSION:
                x = out.verdict.explosion
                m = house.apply(m, house.Confirm(index, x.after), LEX).state
                check_board(m.boards[index].board)
            done = True
            break
        if not done:
            m = house.apply(m, house.Pass(p), LEX).state
        assert m.tiles() == total
        for q in range(4):
            assert m.own_count(q) >= min(7, 0) and (m.own_count(q) >= 7 or not m.bags[house.board_of(q)])
        if m.over:
            break
