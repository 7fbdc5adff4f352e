"""The stacking game at the simulated table through the real reader: rendered photos of the
board's top tiles (a stack shows only its top letter) with a token on each rainbow tile, read,
stabilised and judged by the whole loop; the first four turns end as the rules' own game does
(a stack of four on G8, rainbow tiles seen by their tokens)."""

from __future__ import annotations

from companion.engine.stacking_player import StackingPlayer
from companion.rules import stacking as rules
from companion.sim.stackingdemo import StackingDemo
from companion.web.hub import Hub


def test_four_turns_read_from_rendered_photos_are_the_rules_game(tmp_path):
    demo = StackingDemo(["Ann", "Bob", "Cy"], seed=12, data_dir=tmp_path, truth=False, sim_time=True)
    try:
        start = demo.session.state
        hub = Hub(demo.session, now_ms=demo.clock)
        lines: list[str] = []
        demo.play(hub, demo.table(hub), say=lines.append, max_turns=4)
        state = demo.session.state
        assert state.turn == 4 and not any("question" in line for line in lines), lines
        # The same four turns by the rules alone, from the same deal.
        player = StackingPlayer(demo.player.generator, 12)
        expected = start
        while expected.turn < 4:
            for action in player.actions(expected, demo.lexicon) + [player.turn(expected, demo.lexicon)]:
                expected = rules.apply(expected, action, demo.lexicon).state
        assert state == expected
        # By hand, from the words the referee spells out: Ann JA (8 + 1) x 2 = 18; Bob C on the J
        # (a stack of two), CAR (3x2 + 1 + 1) x 2 for a rainbow = 16; Cy V on the C (three),
        # VARA (4x3 + 1 + 1 + 1) x 4 for two rainbows = 60; Ann F on the V (four), AFARA
        # (1 + 4x4 + 1 + 1 + 1) x 4 = 80, 98 in all.
        assert [p.score for p in state.players] == [18 + 80, 16, 60]
        assert state.board.height((7, 6)) == 4 and len(state.rainbow) >= 2
    finally:
        demo.close()


def test_a_question_nobody_answers_stops_the_demo_in_one_line(tmp_path):
    """A player who leaves a tile where the rules refuse it: the table asks, nobody at a
    simulated table answers, and the demo pressed the same board again for ever. It stops after
    a few presses with the question."""
    import pytest

    from companion.core.board import Tile
    from companion.core.errors import CompanionError
    from companion.sim import stackingdemo

    class Stray(StackingDemo):
        def _lay_for(self, state, action):  # type: ignore[no-untyped-def]
            # The opening play's tiles, and one more far from them (A1): not one line.
            super()._lay_for(state, action)
            self.world.lay(self.world.board.with_tiles([((0, 0), Tile("A"))]), self.world.tokens)

    demo = Stray(["Ann", "Bob"], seed=3, data_dir=tmp_path, truth=True, sim_time=True)
    try:
        hub = Hub(demo.session, now_ms=demo.clock)
        lines: list[str] = []
        with pytest.raises(CompanionError, match="nobody at the simulated table answers it") as raised:
            demo.play(hub, demo.table(hub), say=lines.append, max_turns=4)
        assert "\n" not in str(raised.value)
        assert sum("question" in line for line in lines) == stackingdemo.ASKED_AT_MOST, lines
        assert demo.session.state.turn == 0  # nothing was played
    finally:
        demo.close()
