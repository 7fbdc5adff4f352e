"""Two whole dungeon games (tests/rules/dungeon_scripts.py) through the rules alone: a set-up
checked against the camera's reading, every button press a Move of the board as it lies,
refills and burns as the page sends them.

The readings are built by hand (CellReading values of a board moved as a player's hands move
it); tests/table/test_dungeon_photos.py plays the same scripts on rendered photos through the
table loop."""

from __future__ import annotations

import pytest

from companion.rules import dungeon as d
from companion.rules.dungeon import (
    REFUSED,
    Move,
    apply,
    check_setup,
    expected_view,
    new_game,
)
from tests.rules import dungeon_scripts as scripts
from tests.rules.dungeon_scripts import WORDS, generator


class Game:
    """The table's side, reduced to what the rules need: readings in, verdicts out."""

    def __init__(self, script):
        self.board = script.board()
        assert check_setup(expected_view(script.setup), self.board.reading()) == []
        self.state = new_game(script.setup, self.board.reading(), rack=script.rack)
        self.generator = generator()
        self.log = []

    def act(self, action):
        out = apply(self.state, action, WORDS, generator=self.generator)
        self.state = out.state
        self.log.append(out.verdicts)
        return out


def check(out, state, step):
    """The verdicts ``out`` gave, against what the script's step says the rules must answer."""
    assert tuple(v.kind for v in out.verdicts) == step.kinds, [v.message for v in out.verdicts]
    if step.points is not None:
        assert out.verdict.points == step.points
    if step.score is not None:
        assert state.score == step.score
    if step.words is not None:
        assert out.verdict.words == step.words
    for said, v in zip(step.says, out.verdicts):
        assert said in v.message
    if step.rack is not None:
        assert state.rack == step.rack


@pytest.mark.parametrize("script", scripts.SCRIPTS, ids=lambda s: s.__name__)
def test_a_whole_game(script):
    script = script()
    game = Game(script)
    for step in script.steps:
        if isinstance(step, scripts.Press):
            check(game.act(Move(game.board.reading())), game.state, step)
        elif isinstance(step, (scripts.Refill, scripts.Burn)):
            action = d.Refill(step.drawn) if isinstance(step, scripts.Refill) else d.Burn(step.drawn)
            out = game.act(action)
            assert (out.verdict.kind, out.verdict.points) == (step.kind, step.points)
        else:
            scripts.do(game.board, step)
    assert (game.state.result, game.state.score) == (script.result, script.score)
    assert game.state.over
    # Over is over: nothing more is judged.
    out = game.act(Move(game.board.reading()))
    assert out.verdict.kind == REFUSED and out.verdict.message == f"The game is over: {script.result}"
    assert game.act(d.Refill()).verdict.kind == REFUSED
    # Every point scored or lost is in an action's first verdict (the others detail it).
    assert sum(verdicts[0].points for verdicts in game.log if verdicts[0].kind != REFUSED) == script.score
