"""The commands read the game registry: a game registered from a test (no module of companion/
touched) is offered by `companion demo --game`, `gcg rescore --game` and `hint --game` only if
it has the hook, and the game log finds its games by its start event."""

from __future__ import annotations

from importlib import resources

import pytest

from companion.cli import main
from companion.table import games
from companion.table.store import GameStore
from tests.web.tiny_game import Tiny

SAMPLE = str(resources.files("companion").joinpath("data", "sample.gcg"))


class Practice(games.Classic):
    """A made-up variant: the classic rules, records and demo player, under its own name."""

    name = "practice"
    title = "Practice (classic rules)"


class Scoresheet(games.Classic):
    """A made-up variant that rescores and hints by the classic rules but has no demo player."""

    name = "scoresheet"
    title = "Scoresheet (classic rules, no demo)"
    demo = None


@pytest.fixture
def made_up():
    for game in (Tiny, Practice, Scoresheet):
        games.register(game)
    yield
    for game in (Tiny, Practice, Scoresheet):
        games.unregister(game.name)


def refused(capsys, argv: list[str], name: str) -> bool:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    return exc.value.code == 2 and f"invalid choice: '{name}'" in capsys.readouterr().err


def test_a_game_without_the_hooks_is_not_offered(made_up, capsys):
    assert refused(capsys, ["demo", "--game", "tiny", "--referee"], "tiny")
    assert refused(capsys, ["gcg", "rescore", SAMPLE, "--game", "tiny"], "tiny")
    assert refused(capsys, ["hint", SAMPLE, "--game", "tiny"], "tiny")
    # Without a demo player, the variant is rescored but not played by the demo.
    assert refused(capsys, ["demo", "--game", "scoresheet", "--referee"], "scoresheet")
    assert main(["gcg", "rescore", SAMPLE, "--game", "scoresheet"]) == 0
    assert "events agree" in capsys.readouterr().out


def test_a_game_with_the_hooks_is_offered_and_played(made_up, capsys):
    assert main(["gcg", "rescore", SAMPLE]) == 0
    classic = capsys.readouterr().out
    assert main(["gcg", "rescore", SAMPLE, "--game", "practice"]) == 0
    assert capsys.readouterr().out == classic  # the same rules, the same table
    assert main(["hint", SAMPLE, "--game", "practice", "--turn", "2", "--json"]) == 0
    assert '"moves"' in capsys.readouterr().out
    assert main(["demo", "--game", "practice", "--referee"]) == 0
    assert "(every score agrees with the record)" in capsys.readouterr().out


def test_the_log_finds_a_registered_game_by_its_start_event(tmp_path):
    with GameStore(tmp_path / "games.sqlite") as store:
        store.append("tiny-1", Tiny.log_kind, {"words": []}, 0)
        assert store.current_game() is None  # not a game the log knows yet
        games.register(Tiny)
        try:
            assert store.current_game() == "tiny-1"
        finally:
            games.unregister(Tiny.name)
        assert store.current_game() is None
