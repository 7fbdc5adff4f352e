"""Whole stacking games between computer players, checked after every action: no tile made or
lost, the marketplace free of wilds, rainbow flags only where they may be, every score the sum
of its verdicts, every purchase at its price, and the record of each game rescored and dealt
again exactly."""

from __future__ import annotations

from collections import Counter

import pytest

from companion.core.gcg import parse_gcg, write_gcg
from companion.core.tiles import BLANK
from companion.rules.rescore import TileSetChoice
from companion.rules.stacking import GameLength, StackingOptions, VerdictKind, pool_counts, price
from companion.rules.stacking_record import replay_record, rescore_stacking, write_record


@pytest.fixture(scope="module")
def english():
    from companion.lexicon import load_lexicon

    return load_lexicon("en")


@pytest.fixture(scope="module")
def generator(english):
    from companion.engine.movegen import generator_for

    return generator_for("en", english)


def tiles_in_play(state) -> Counter:
    tiles = Counter(state.pool) + Counter(state.market)
    for p in state.players:
        tiles.update(p.rack)
    for _, stack in state.board.items():
        tiles.update(BLANK if t.blank else t.letter for t in stack)
    return tiles


@pytest.mark.parametrize(
    "seed, length, players",
    [(0, GameLength.SHORT, 3), (1, GameLength.SHORT, 2), (3, GameLength.SHORT, 4), (4, GameLength.NORMAL, 3)],
)
def test_a_whole_game_keeps_every_invariant(seed, length, players, english, generator):
    from companion.engine.stacking_player import self_play

    options = StackingOptions(length=length)
    names = ["ann", "bob", "cy", "dee"][:players]
    start, steps = self_play(names, options, english, generator, seed=seed)
    everything = pool_counts(start.tileset, options.pool_size)
    points = [0] * players
    bought = [0] * players
    state = start
    assert tiles_in_play(state) == everything
    for action, out in steps:
        assert out.verdict.kind is not VerdictKind.REFUSED, out.verdict.message  # the player asks the rules
        for v in out.verdicts:
            if v.kind is VerdictKind.BOUGHT:
                assert -v.points == price(bought[v.player])
                bought[v.player] += 1
            points[v.player] += v.points
        state = out.state
        assert tiles_in_play(state) == everything
        assert BLANK not in state.market and len(state.market) <= options.market_size
        assert state.rainbow <= set(dict(state.board.items()))
        for i, p in enumerate(state.players):
            assert p.score == points[i] and p.purchases == bought[i]
            assert BLANK not in p.rainbows and Counter(p.rainbows) <= Counter(p.rack)
    assert state.over and state.end is not None
    assert max(state.board.heights().values()) >= 2  # the players stacked
    record = write_record(start, steps)
    read = parse_gcg(write_gcg(record))
    result = rescore_stacking(read, TileSetChoice("en", "test"))
    assert result.agrees and result.totals() == tuple(points)
    assert replay_record(read, english) == state
