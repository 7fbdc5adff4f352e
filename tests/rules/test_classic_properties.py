"""Random whole games: tiles are never lost or created, scores are the sum of the verdicts, and
every game ends. The lexicon accepts everything except words holding a Q, so that challenges
sometimes succeed and sometimes fail."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from companion.core.move import Placement, PlacedTile
from companion.core.tiles import BLANK
from companion.rules.classic import (
    Accept,
    Challenge,
    ChallengeMode,
    ClassicOptions,
    Exchange,
    Pass,
    Play,
    TradeBlank,
    VerdictKind,
    apply,
    new_game,
)


class NoQ:
    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and "Q" not in word


def random_placement(state, rng):
    rack = list(state.players[state.to_move].rack)
    rng.shuffle(rack)
    n = rng.randint(1, len(rack))
    tiles = rack[:n]
    if state.board.is_empty():
        r, c = 7, rng.randint(max(0, 8 - n), 7)
        direction = (0, 1)
    else:
        occupied = [sq for sq, _ in state.board.items()]
        r, c = rng.choice(occupied)
        direction = rng.choice([(0, 1), (1, 0)])
        r, c = r - direction[0] * rng.randint(0, n), c - direction[1] * rng.randint(0, n)
    placed = []
    while tiles and 0 <= r < 15 and 0 <= c < 15:
        if (r, c) not in state.board:
            t = tiles.pop()
            letter = rng.choice("EAST") if t == BLANK else t
            placed.append(PlacedTile(r, c, letter, blank=t == BLANK))
        r, c = r + direction[0], c + direction[1]
    return Placement.of(placed)


def tiles_in_game(state) -> Counter:
    seen = Counter(BLANK if t.blank else t.letter for _, t in state.board.items())
    for p in state.players:
        seen.update(p.rack)
    seen.update(state.bag)
    return seen


@pytest.mark.parametrize("seed", range(40))
def test_random_games_keep_every_tile_and_end(seed):
    rng = random.Random(seed)
    mode = list(ChallengeMode)[seed % 4]
    options = ClassicOptions(
        challenge=mode,
        trade_blanks=seed % 3 == 0,
        exchange_four_of_a_kind=True,
        lose_turn_on_challenge=seed % 2 == 0,
    )
    state = new_game([f"p{i}" for i in range(2 + seed % 3)], options, seed=seed)
    full = state.tileset.bag()
    points = Counter()
    for step in range(2000):
        if state.over:
            break
        roll = rng.random()
        if state.pending is not None and roll < 0.3:
            challenger = rng.choice([i for i in range(len(state.players)) if i != state.pending.player])
            action = Challenge(by=challenger)
        elif roll < 0.05:
            action = Pass()
        elif roll < 0.1 and state.players[state.to_move].rack:
            action = Exchange("".join(state.players[state.to_move].rack[: rng.randint(1, 3)]))
        elif roll < 0.12 and options.trade_blanks:
            blanks = [sq for sq, t in state.board.items() if t.blank]
            action = TradeBlank(rng.choice(blanks)) if blanks else Accept()
        elif state.players[state.to_move].rack:
            action = Play(random_placement(state, rng))
        else:
            action = Accept()
        out = apply(state, action, NoQ())
        for v in out.verdicts:
            if v.kind is not VerdictKind.GAME_OVER:
                points[v.player] += v.points
        state = out.state
        assert tiles_in_game(state) == full, f"step {step}: tiles lost or created by {action}"
        assert state.bag_size == len(state.bag)
        assert all(len(p.rack) == p.rack_size <= 7 for p in state.players)
    assert state.over, "the game did not end"
    for i, p in enumerate(state.players):
        assert p.score == points[i] + p.end_adjustment
    assert sum(p.end_adjustment for p in state.players) == 0 or state.went_out is None
