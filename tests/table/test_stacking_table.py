"""The stacking game at the table: whole games played through the session as players would play
them (a press and a look at the board's top tiles with tokens on the rainbow tiles, purchases and
redraws on the page), the same game as the rules' fold, kept in a real game log and folded back
from it; its record rescored; the page's document; the registry's entry."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core.board import Board, Tile
from companion.core.gcg import parse_gcg
from companion.core.move import format_square, placement_from_notation
from companion.rules import stacking as rules
from companion.rules.rescore import TileSetChoice
from companion.rules.stacking_record import rescore_stacking
from companion.sim.truth import reading_of_board
from companion.table import games
from companion.table.session import ActionError
from companion.table.stacking import StackingSession, start_stacking
from companion.table.stacking_snapshot import stacking_document
from companion.table.store import GameStore
from companion.vision.reading import BoardReading


@pytest.fixture(scope="module")
def english():
    from companion.lexicon import load_lexicon

    return load_lexicon("en")


@pytest.fixture(scope="module")
def generator(english):
    from companion.engine.movegen import generator_for

    return generator_for("en", english)


def looks_like(board: Board, rainbow: frozenset) -> BoardReading:
    """What the camera sees: the top tiles, wilds face up as blanks, a token on each rainbow tile."""
    reading = reading_of_board(board)
    cells = tuple(replace(c, token=(c.row, c.col) in rainbow) for c in reading.cells)
    return replace(reading, cells=cells)


def play_through_table(
    session: StackingSession, lexicon, generator, seed: int, max_turns: int = 60
) -> list[str]:
    """The computer players' game at the table: each action as a player does it there."""
    from companion.engine.stacking_player import StackingPlayer

    player = StackingPlayer(generator, seed)
    now = 1000
    kinds = []
    while not session.state.over and session.state.turn < max_turns:
        state = session.state
        for action in player.actions(state, lexicon) + [player.turn(state, lexicon)]:
            expected = rules.apply(session.state, action, lexicon)
            now += 1000
            if isinstance(action, rules.Buy):
                session.buy(now, action.letter)
            elif isinstance(action, rules.Redraw):
                session.redraw(now)
            else:
                who = session.state.to_move
                for t in action.placement.tiles if isinstance(action, rules.Play) else ():
                    if t.blank:
                        session.name_wild(now, f"{format_square(t.coord)} {t.letter}")
                assert session.press(who, now) == "judge"
                after = expected.state
                verdict = session.judge(now + 10, looks_like(after.board.top, after.rainbow))
                assert verdict["kind"] != "question", verdict
            assert session.state == expected.state
            kinds.append(expected.verdict.kind.value)
    return kinds


def test_a_whole_game_at_the_table_is_the_rules_game_and_is_kept_in_the_log(tmp_path, english, generator):
    with GameStore(tmp_path / "games.sqlite") as store:
        session = start_stacking(
            store, 0, names=["Ann", "Bob", "Cy"], seed=12, length="short", lexicon_for=lambda _: english
        )
        kinds = play_through_table(session, english, generator, seed=12)
        final = session.state
        assert final.over and "played" in kinds and "bought" in kinds
        assert max(final.board.heights().values()) >= 3 and kinds.count("bought") >= 3
        again = StackingSession.restore(store, lexicon_for=lambda _: english)
        assert again.state == final and again.history == session.history
    result = rescore_stacking(parse_gcg(session.gcg()), TileSetChoice("en", "test"))
    assert result.agrees and result.totals() == tuple(p.score for p in final.players)


def test_a_game_on_a_play_area_ends_with_every_square_covered_and_is_kept_in_the_log(tmp_path, english, generator):
    # The centre 3x3 squares: the table's short game, ended by the rule "every square is covered".
    with GameStore(tmp_path / "games.sqlite") as store:
        session = start_stacking(
            store, 0, names=["Ann", "Bob", "Cy"], seed=2, length="short", area=3, lexicon_for=lambda _: english
        )
        assert "play on the centre 3x3 squares, G7 to I9" in session.feed[0]["message"]
        play_through_table(session, english, generator, seed=2)
        final = session.state
        assert final.over and final.end is rules.EndReason.BOARD_FULL and final.pool
        assert {(r, c) for r in range(6, 9) for c in range(6, 9)} == set(final.board.heights())
        assert "Game over (every square is covered)" in session.feed[-1]["message"]
        doc = stacking_document(session, 0)
        assert doc["game"]["over"] and doc["game"]["reason"] == "every square is covered"
        assert doc["stacking"]["area"] == "the centre 3x3 squares, G7 to I9"
        again = StackingSession.restore(store, lexicon_for=lambda _: english)
        assert again.state == final and again.options.area == 3
    result = rescore_stacking(parse_gcg(session.gcg()), TileSetChoice("en", "test"))
    assert result.agrees and "#end board-full" in session.gcg()


def test_a_tile_outside_the_play_area_is_a_question_and_areas_that_do_not_fit_are_refused(english):
    s = start_stacking(None, 0, names=["Ann", "Bob"], seed=3, area=3, lexicon_for=lambda _: english)
    s.state = replace(s.state, players=(replace(s.state.players[0], rack=tuple("AEMNST?"), rainbows=()),
                                        s.state.players[1]))
    seen = s.state.board.top.with_tiles([((7, 6), Tile("M")), ((7, 7), Tile("E")), ((7, 8), Tile("N")),
                                         ((7, 9), Tile("T"))])
    assert s.press(0, 10) == "judge"
    out = s.judge(20, looks_like(seen, frozenset()))
    assert out == {"kind": "question",
                   "questions": ["J8 is outside the play area (the centre 3x3 squares, G7 to I9)"]}
    for area, why in ((4, "not 4"), (17, "not 17"), ("5", "not '5'")):
        with pytest.raises(ActionError, match=f"area: the play area is an odd number of squares from 3 to 15, {why}"):
            start_stacking(None, 0, names=["A", "B"], area=area)


def test_a_players_own_page_buys_on_their_turn_only(english):
    s = start_stacking(None, 0, names=["Ann", "Bob", "Cy"], seed=5, lexicon_for=lambda _: english)
    s.state = replace(s.state, players=(replace(s.state.players[0], score=12),) + s.state.players[1:])
    with pytest.raises(ActionError, match="it is Ann's turn: buy before your own play"):
        s.buy_for(10, 1, s.state.market[0])
    with pytest.raises(ActionError, match="player: a number from 0 to 2"):
        s.buy_for(10, 3, s.state.market[0])
    with pytest.raises(ActionError, match="player: a number from 0 to 2"):
        s.buy_for(10, True, s.state.market[0])
    s.buy_for(10, 0, s.state.market[0])  # 5 of Ann's 12
    with pytest.raises(ActionError, match="costs 10 points and Ann has 7: you cannot buy below zero"):
        s.buy_for(20, 0, s.state.market[0])
    assert s.state.players[0].score == 7 and s.state.players[0].purchases == 1
    s.concede(30, "Ann")
    with pytest.raises(ActionError, match="Ann has conceded"):
        s.buy_for(40, 0, s.state.market[0])


def test_the_page_shows_the_marketplace_prices_pool_and_each_words_multipliers(english):
    s = start_stacking(None, 0, names=["Ann", "Bob"], seed=3, lexicon_for=lambda _: english)
    doc = games.document(s, 0)
    assert doc["game"]["name"] == "stacking" and doc["game"]["stacking"] is True
    st = doc["stacking"]
    assert len(st["market"]) == 3 and st["prices"] == [5, 5] and st["purchases"] == [0, 0]
    assert st["pool"] == 100 - 2 * 7 - 3
    assert [a["name"] for a in doc["actions"]] == ["buy", "redraw", "pass", "concede", "name"]
    assert "stacking" in [g["name"] for g in doc["options"]["games"]]
    # The deal told on the page: each player's tiles, the rainbow one to mark.
    deals = [v["message"] for v in doc["verdicts"] if v["kind"] == "deal"]
    assert len(deals) == 2 and all("with a token: rainbow" in m for m in deals)
    assert doc["players"][0]["rack"] == "".join(sorted(s.state.players[0].rack)).replace(
        "?", ""
    ) + "?" * s.state.players[0].rack.count("?")


def test_a_changed_letter_is_a_stacked_tile_and_a_stray_token_a_question(english):
    s = start_stacking(None, 0, names=["Ann", "Bob"], seed=3, lexicon_for=lambda _: english)
    # Put MEN on the board through the rules, with the racks the test needs.
    state = s.state
    players = list(state.players)
    players[0] = replace(players[0], rack=tuple("EMNOSTA"), rainbows=("M",))
    players[1] = replace(players[1], rack=tuple("AIORSTU"), rainbows=())
    s.state = replace(state, players=tuple(players))
    men = rules.Play(placement_from_notation(s.state.board.top, "8F", "MEN"), frozenset({(7, 5)}))
    expected = rules.apply(s.state, men, english).state
    assert s.press(0, 10) == "judge"
    # A token on the E too: not a rainbow tile.
    reading = looks_like(expected.board.top, frozenset({(7, 5), (7, 6)}))
    out = s.judge(20, reading)
    assert out["kind"] == "question" and "a token on G8: that tile is not a rainbow tile" in out["questions"]
    assert s.press(0, 30) == "judge"
    assert s.judge(40, looks_like(expected.board.top, expected.rainbow))["kind"] == "played"
    assert s.state.players[0].score == 20  # (3 + 1 + 1) x 2 (star) x 2 (rainbow M)
    # Bob puts A on the E (MAN) and T below (AT): the camera sees G8 change from E to A.
    seen = s.state.board.top.with_tiles([((7, 6), Tile("A")), ((8, 6), Tile("T"))])
    assert s.press(1, 50) == "judge"
    out = s.judge(60, looks_like(seen, s.state.rainbow))
    assert out["kind"] == "played", out
    assert s.state.board.height((7, 6)) == 2 and s.state.players[1].score == 16
    doc = stacking_document(s, 70)
    words = {w["word"]: w for w in doc["last_move"]["words"]}
    assert words["MAN"]["explain"] == "MAN: M3 + A1 x2 + N1 x2 rainbow = 12"
    assert words["AT"]["heights"] == [2, 1]
    square = next(q for q in doc["board"]["squares"] if (q["row"], q["col"]) == (7, 6))
    assert square["height"] == 2 and square["letter"] == "A"


def test_a_purchase_beyond_the_score_and_a_press_out_of_turn_are_refused(english):
    s = start_stacking(None, 0, names=["Ann", "Bob", "Cy"], seed=5, lexicon_for=lambda _: english)
    with pytest.raises(ActionError, match="you cannot buy below zero"):
        s.buy(10, s.state.market[0])
    assert s.press(1, 10).startswith("ignored: Ann is to move")
    with pytest.raises(ActionError, match="no game"):
        games.find_game("stackin")
    with pytest.raises(ActionError, match="length: one of short, normal, long"):
        start_stacking(None, 0, names=["A", "B"], length="medium")
