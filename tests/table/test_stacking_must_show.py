"""The issue's must-show at the table, three players, every total by hand: stacking on a stack of
three, a purchase at each of the first four prices, a purchase beyond the score refused, a wild on
a tile, a rainbow doubling a word two turns after it was laid and stopping once covered, a
redraw; and the ends: every player passing (game one), the others conceding (game two), the
pool running out (game three), through the session's own calls. The same must-show at the
simulated table (rendered photos read by the real reader, gpiozero presses, taps in Chromium,
the covered board on a 3x3 play area) is tests/web/test_stacking_table_games.py. Each play here
is a press and the camera's top tiles with a token on each rainbow tile; purchases, the redraw, a
wild's letter and concessions are the page's actions. The racks are set by the test (the
companion deals them from its seed at a real table)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core.board import Tile
from companion.rules.stacking import EndReason
from companion.table.session import ActionError
from companion.table.stacking import start_stacking
from tests.table.test_stacking_table import looks_like


@pytest.fixture(scope="module")
def english():
    from companion.lexicon import load_lexicon

    return load_lexicon("en")


def sq(name: str) -> tuple[int, int]:
    return (int(name[1:]) - 1, ord(name[0]) - ord("A"))


def dealt(session, racks, rainbows, pool=None):
    """The racks (and pool) the test plays with, as if the companion had dealt them."""
    players = tuple(
        replace(p, rack=tuple(sorted(r)), rainbows=tuple(sorted(b)))
        for p, r, b in zip(session.state.players, racks, rainbows)
    )
    state = replace(session.state, players=players)
    if pool is not None:
        state = replace(state, pool=tuple(pool))
    session.state = session.start_state = state


def holds(session, player: int, tiles: str) -> None:
    """The player's next tiles are these (the test's deal): they replace the last ones drawn."""
    p = session.state.players[player]
    rack = tuple(sorted(p.rack[: len(p.rack) - len(tiles)] + tuple(tiles)))
    players = tuple(
        replace(q, rack=rack, rainbows=()) if i == player else q for i, q in enumerate(session.state.players)
    )
    session.state = replace(session.state, players=players)


class Table:
    """A player's turn as the table sees it: tiles laid (a token on each rainbow one), a press."""

    def __init__(self, session) -> None:
        self.s = session
        self.now = 1000

    def lay(
        self, tiles: dict[str, str], rainbow: tuple[str, ...] = (), wilds: dict[str, str] | None = None
    ) -> dict:
        self.now += 1000
        s = self.s
        for square, letter in (wilds or {}).items():
            s.name_wild(self.now, f"{square} {letter}")
        top = s.state.board.top.with_tiles(
            (sq(k), Tile(v.upper(), blank=v.islower())) for k, v in tiles.items()
        )
        tokens = (s.state.rainbow - {sq(k) for k in tiles}) | {sq(k) for k in rainbow}
        assert s.press(s.state.to_move, self.now) == "judge"
        out = s.judge(self.now + 10, looks_like(top, frozenset(tokens)))
        assert out["kind"] != "question", out["questions"]
        return out

    def press(self) -> dict:
        """A press with nothing laid: a pass."""
        return self.lay({})

    def scores(self) -> list[int]:
        return [p.score for p in self.s.state.players]


def test_game_one_stacks_purchases_a_wild_rainbows_a_redraw_and_every_player_passing(english):
    s = start_stacking(None, 0, names=["Ann", "Bob", "Cy"], seed=1, lexicon_for=lambda _: english)
    dealt(s, ["EMNRSTU", "AEIOPTT", "ABDEFAX"], ["MN", "", ""])
    t = Table(s)
    # 1 Ann: MEN, rainbow M and N, N on the star: (3 + 1 + 1) x 2 x 2 x 2 = 40.
    assert t.lay({"F8": "M", "G8": "E", "H8": "N"}, rainbow=("F8", "H8"))["kind"] == "played"
    assert t.scores() == [40, 0, 0]
    # 2 Bob: A on the E of G8 (a stack of two), T on G9 (double letter): AT 1x2 + 1x2 = 4;
    #   MAN (3 + 1x2 + 1) x 4 for the two rainbows = 24. 28.
    assert t.lay({"G8": "A", "G9": "T"})["kind"] == "played"
    assert t.scores() == [40, 28, 0]
    assert s.state.board.height(sq("G8")) == 2
    # 3 Cy: TAX on row 9, X on a double letter: 1 + 1 + 16 = 18; NA (1 + 1) x 2: the rainbow N
    #   Ann laid two turns before doubles it. 22.
    assert t.lay({"H9": "A", "I9": "X"})["kind"] == "played"
    assert t.scores() == [40, 28, 22]
    assert s.history[-1]["points"] == 22
    # Ann buys: her first price, 5.
    s.buy(t.now, s.state.market[0])
    assert t.scores()[0] == 35 and s.state.next_price(0) == 10
    # 4 Ann: E on I8: MANE (3 + 2 + 1 + 1) x 4 = 28, EX 1 + 8 = 9. 37 -> 72.
    holds(s, 0, "E")
    assert t.lay({"I8": "E"})["kind"] == "played"
    assert t.scores() == [72, 28, 22]
    # 5 Bob: a wild as I on the A of G8 (a stack of three), S on G10: ITS 0 + 1 + 1 = 2,
    #   MINE (3 + 0 + 1 + 1) x 4 = 20. 22 -> 50.
    holds(s, 1, "?S")
    assert t.lay({"G8": "i", "G10": "S"}, wilds={"G8": "I"})["kind"] == "played"
    assert t.scores() == [72, 50, 22] and s.state.board.height(sq("G8")) == 3
    # 6 Cy redraws for 5: 17.
    s.redraw(t.now)
    assert t.scores() == [72, 50, 17] and s.state.to_move == 0
    # Ann buys at her next three prices, 10, 15 and 25 (72 -> 22); the fifth, 40, is beyond her score.
    for price in (10, 15, 25):
        assert s.state.next_price(0) == price
        s.buy(t.now, s.state.market[0])
    assert t.scores()[0] == 22 and s.state.players[0].purchases == 4
    with pytest.raises(ActionError, match="costs 40 points and Ann has 22: you cannot buy below zero"):
        s.buy(t.now, s.state.market[0])
    # 7 Ann: T on the rainbow M of F8 (it stops doubling), S on J8: TINES (1x2 + 0 + 1 + 1 + 1) x 2
    #   for the rainbow N alone = 10. 32.
    holds(s, 0, "TS")
    assert t.lay({"F8": "T", "J8": "S"})["kind"] == "played"
    assert t.scores() == [32, 50, 17] and s.state.rainbow == {sq("H8")}
    # 8 Bob: O on G7 (double letter) and U on G8, the stack of three (now four): OUTS 2 + 1x4 + 1 + 1 = 8;
    #   TUNES (2 + 4 + 1 + 1 + 1) x 2 = 18. 26 -> 76.
    holds(s, 1, "OU")
    assert t.lay({"G7": "O", "G8": "U"})["kind"] == "played"
    assert t.scores() == [32, 76, 17] and s.state.board.height(sq("G8")) == 4
    # 9-11: Cy, Ann and Bob press with nothing laid: every player has passed, the game is over.
    for _ in range(3):
        t.press()
    assert s.state.over and s.state.end is EndReason.ALL_PASSED and s.state.winners() == (1,)
    assert t.scores() == [32, 76, 17]


def test_game_two_ends_when_the_others_concede(english):
    s = start_stacking(None, 0, names=["Ann", "Bob", "Cy"], seed=2, lexicon_for=lambda _: english)
    dealt(s, ["EMNRSTU", "AEIOPTT", "ABDEFAX"], ["", "", ""])
    t = Table(s)
    assert t.lay({"F8": "M", "G8": "E", "H8": "N"})["kind"] == "played"  # (3 + 1 + 1) x 2 = 10
    s.concede(t.now, "Bob")
    assert not s.state.over and s.state.to_move == 2  # Bob's turn is skipped: Cy plays on
    s.concede(t.now, "3")
    assert s.state.over and s.state.end is EndReason.CONCEDED and s.state.winners() == (0,)
    assert t.scores() == [10, 0, 0]


def test_game_three_ends_when_the_pool_runs_out(english):
    s = start_stacking(None, 0, names=["Ann", "Bob", "Cy"], seed=3, lexicon_for=lambda _: english)
    dealt(s, ["EMNRSTU", "AEIOPTT", "ABDEFAX"], ["", "", ""], pool="QZ")
    t = Table(s)
    assert t.lay({"F8": "M", "G8": "E", "H8": "N"})["kind"] == "played"  # 10; Ann draws Q and Z
    assert s.state.pool == () and s.state.over and s.state.end is EndReason.POOL_EMPTY
    assert "the tile pool is empty" in s.feed[-1]["message"]
