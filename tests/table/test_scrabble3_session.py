"""Scrabble III at the table, driven as the table drives it: presses and the camera's boards
(cell readings of the 21x21 board), every verdict and total as computed by hand; the page's
document; the log folded back; the game's record rescored."""

from __future__ import annotations

import pytest

from companion.core.board import EXTENDED, Board, Tile
from companion.core.gcg import parse_gcg
from companion.core.move import placement_from_notation
from companion.lexicon import load_lexicon
from companion.rules import scrabble3 as s3
from companion.rules.rescore import TileSetChoice, rescore
from companion.rules.scrabble3_gcg import Scrabble3Scoring
from companion.table.games import GAMES, document, resume
from companion.table.session import ActionError
from companion.table.store import GameStore
from companion.vision.reading import BoardReading
from tests.table.test_scrabble3_inference import cells_of


@pytest.fixture(scope="module")
def lexicon():
    return load_lexicon("en")


def reading(board: Board, face_down: frozenset = frozenset()) -> BoardReading:
    return BoardReading(21, 21, ((0, 0), (1, 0), (1, 1), (0, 1)), tuple(cells_of(board, face_down)))


def laid(board: Board, pos: str, word: str) -> Board:
    pl = placement_from_notation(board, pos, word)
    return board.with_tiles((t.coord, t.tile) for t in pl.tiles)


def test_a_game_at_the_table(tmp_path, lexicon):
    store = GameStore(tmp_path / "games.db")
    game = GAMES["scrabble3"]
    session = game.start(store, 0, names=["ann", "bob"], control="rapid", seed=5, lexicon_for=lambda ts: lexicon)
    assert session.press(1, 100) == "start"  # the clock starts with ann to play
    seen = laid(Board(EXTENDED), "11H", "DREAMY")
    assert session.press(0, 1000) == "judge"
    assert session.judge(1100, reading(seen))["verdicts"] == ["played"]  # 12 x2 + 6-tiler 20 = 44
    # bob picks the Y off and stretches DREAMY to DREAMILY: 18 + stretch by 2, 30 = 48.
    seen = laid(seen.without([(10, 12)]), "11M", "ILY")
    assert session.press(1, 2000) == "judge"
    assert session.judge(2100, reading(seen))["verdicts"] == ["played"]
    # ann: BEAKER down from J10, its A a J face down (a blank): B3x2 E1 a0 K5 E1 R1 = 14.
    seen = laid(seen, "J10", "B.aKER")
    session.press(0, 3000)
    assert session.judge(3100, reading(seen, frozenset({(11, 9)})))["verdicts"] == ["played"]
    # bob swaps his A for the face-down tile and hooks S on J16 (DL): BEAKERS 3+1+1+5+1+1+2 = 14.
    seen = laid(seen.with_tiles([((11, 9), Tile("A"))]), "J16", "S")
    session.press(1, 4000)
    assert session.judge(4100, reading(seen))["verdicts"] == ["played"]
    # ann lays an E after DREAMILY: not a word. It comes off; the turn passes.
    session.press(0, 5000)
    assert session.judge(5100, reading(laid(seen, "11P", "E")))["verdicts"] == ["invalid"]
    # bob: a tile taken off the front of a word is asked about, then he passes.
    session.press(1, 6000)
    assert session.judge(6100, reading(seen.without([(9, 9)])))["kind"] == "question"
    session.press(1, 6500)
    assert session.judge(6600, reading(seen))["verdicts"] == ["passed"]

    state = session.state
    assert [p.score for p in state.players] == [44 + 14, 48 + 14]
    assert state.face((11, 9)) == "?" and state.board[(11, 9)] == Tile("A")  # bob took the tile under it
    doc = document(session, 7000)
    assert doc["game"]["name"] == "scrabble3" and doc["board"]["rows"] == 21
    # PPT: each player's last turn scored nothing, a "stuck" turn not counted (yet): 58/2, 62/2.
    assert [p["ppt"] for p in doc["players"]] == [29.0, 31.0]
    rows = [h for h in doc["history"] if "bonuses" in h]
    assert rows[0]["bonuses"]["big_play"] == 20 and rows[1]["bonuses"]["stretch"] == 30
    assert rows[1]["pick_off"] == ["M11"] and rows[3]["swaps"] == ["J12"]
    # The review reads the invalid E as a play that came off (the record's withdrawal is no row).
    assert [(r["kind"], r.get("came_off")) for r in session.review_rows()] == [
        ("play", False), ("play", False), ("play", False), ("play", False), ("play", True), ("pass", None)]

    # The record: rescored as a Scrabble III record, everything agrees.
    record = parse_gcg(session.gcg())
    result = rescore(record, TileSetChoice("super3", "test"), game=Scrabble3Scoring())
    assert result.agrees, [(r.event, r.score) for r in result.disagreements]
    assert result.totals() == (58, 62)

    # The log folded back: the same state.
    store2 = store
    again = resume(store2, lambda ts: lexicon)
    assert again.state.board == state.board and [p.score for p in again.state.players] == [58, 62]
    assert again.state.to_move == state.to_move


def planet_then_both_pass(tmp_path, lexicon):
    """ann opens with PLANET on 11H; the bag as good as empty at this table, both pass: regular
    play is over. The session and the board seen."""
    from dataclasses import replace

    store = GameStore(tmp_path / "games.db")
    session = GAMES["scrabble3"].start(store, 0, names=["ann", "bob"], control="untimed", seed=2,
                                       lexicon_for=lambda ts: lexicon)
    seen = laid(Board(EXTENDED), "11H", "PLANET")
    session.press(0, 100)
    session.judge(200, reading(seen))
    session.state = replace(session.state, bag_size=0)
    for player, at in ((1, 300), (0, 400)):
        session.press(player, at)
        assert session.judge(at + 50, reading(seen))["verdicts"][0] == "passed"
    return session, seen


def test_the_final_racks_round_at_the_table(tmp_path, lexicon):
    session, seen = planet_then_both_pass(tmp_path, lexicon)
    assert session.state.phase is s3.Phase.RACKS
    doc = document(session, 500)
    assert doc["game"]["awaiting_racks"] and doc["actions"][0]["name"] == "racks"
    n0, n1 = (p.rack_size for p in session.state.players)
    with pytest.raises(ActionError, match="racks: one string of tiles a player"):
        session.enter_racks(550, [1, 2])
    # As the page's racks form tells them: a list, one string a player.
    racks = ["SEAT" + "E" * (n0 - 4), "ABCD" + "E" * (n1 - 4)]
    session.enter_racks(600, racks)
    assert session.state.phase is s3.Phase.FINAL_RACKS
    said = document(session, 650)["game"]["reason"]
    mover = session.state.to_move
    assert said.startswith(f"swap final racks: {['ann', 'bob'][mover]} plays with {['ann', 'bob'][1 - mover]}'s rack ")
    assert sorted(said.split("'s rack ")[1].split()[0]) == sorted(racks[1 - mover])
    # bob (next to move) plays PLANETS with ann's rack: 9 + 50; the S comes off again.
    mover = session.state.to_move
    session.press(mover, 700)
    verdicts = session.judge(750, reading(laid(seen, "11N", "S")))["verdicts"]
    assert verdicts[0] == "final-racks"
    assert session.state.board == seen
    session.press(1 - mover, 800)
    assert session.judge(850, reading(seen))["verdicts"][0] == "declined"
    assert session.state.over


@pytest.mark.parametrize("seen_as", ["face down", "a blank face up"])
def test_a_dealt_game_knows_which_jqxz_lies_face_down(tmp_path, lexicon, seen_as):
    """A flipped JQXZ is a blank (rule 12): read face down where the table knows the set's
    backs, read as a blank's face where it does not (a back without ink looks like one). The
    rack says it is the Q: ann holds no blank tile."""
    session = GAMES["scrabble3"].start(None, 0, names=["ann", "bob"], control="untimed", seed=4, deal=True,
                                       lexicon_for=lambda ts: lexicon)
    from dataclasses import replace

    players = list(session.state.players)
    players[0] = replace(players[0], rack=tuple(sorted("RAMEDQST")))
    session.state = session.start_state = replace(session.state, players=tuple(players))
    # RAMMED across H11..M11 with the Q face down as the second M (a blank).
    seen = laid(Board(EXTENDED), "11H", "RAMmED")
    session.press(0, 100)
    down = frozenset({(10, 10)}) if seen_as == "face down" else frozenset()
    assert session.judge(200, reading(seen, down))["verdicts"] == ["played"]
    assert session.state.face((10, 10)) == "Q"
    # R1 A1 M3 m0 E1 D2 = 8, the blank on the star doubles it: 16, and the 6-tiler's 20.
    assert session.history_rows[-1]["points"] == 36


def test_a_blank_face_up_is_the_blank_tile_when_the_rack_holds_it(lexicon):
    session = GAMES["scrabble3"].start(None, 0, names=["ann", "bob"], control="untimed", seed=4, deal=True,
                                       lexicon_for=lambda ts: lexicon)
    from dataclasses import replace

    players = list(session.state.players)
    players[0] = replace(players[0], rack=tuple(sorted("RAME?DQS")))
    session.state = session.start_state = replace(session.state, players=tuple(players))
    session.press(0, 100)
    assert session.judge(200, reading(laid(Board(EXTENDED), "11H", "RAMmED")))["verdicts"] == ["played"]
    assert session.state.face((10, 10)) == "?"  # the blank tile, the Q kept
    assert "Q" in session.state.players[0].rack and "?" not in session.state.players[0].rack


def test_a_misread_square_corrected_on_the_page(tmp_path, lexicon):
    """As in the classic game: the organiser sets a square right; the board changes (no score
    does), the page marks it, the log keeps it, undo takes it back."""
    store = GameStore(tmp_path / "games.db")
    session = GAMES["scrabble3"].start(store, 0, names=["ann", "bob"], control="untimed", seed=5,
                                       lexicon_for=lambda ts: lexicon)
    seen = laid(Board(EXTENDED), "11H", "DREAMY")
    session.press(0, 100)
    assert session.judge(200, reading(seen))["verdicts"] == ["played"]
    # The A on K11 is a blank the camera took for an A: now it reads the blank's face for sure.
    blank_a = seen.with_tiles([((10, 10), Tile("A", blank=True))])
    session.press(1, 300)
    assert session.judge(400, reading(blank_a))["questions"] == ["K11 held A and now reads ?: was it taken off?"]
    for bad, why in ((("Z99", "A"), "square 'Z99'"), (("K11", "1"), "'1' is not a letter"),
                     (("K11", "A", False), "K11 already holds A"), (("A1", ""), "A1 is already empty")):
        with pytest.raises(ActionError, match=why):
            session.correct(500, *bad)
    session.correct(500, "K11", "a", True)
    assert session.state.board[(10, 10)] == Tile("A", blank=True) and session.state.face((10, 10)) == "?"
    assert document(session, 550)["board"]["corrected"] == [[10, 10]]
    assert [p.score for p in session.state.players] == [44, 0]  # no score changes
    session.press(1, 600)
    assert session.judge(700, reading(blank_a))["verdicts"] == ["passed"]  # the board agrees now
    again = resume(store, lambda ts: lexicon)
    assert again.state.board == session.state.board and again.corrected == {(10, 10): 1}
    session.undo(800)  # the pass
    session.undo(900)  # the correction
    assert session.state.board == seen and session.corrected == {}


def test_the_director_rules_on_the_last_play(tmp_path, lexicon):
    """The challenge as in the classic game, by the director: Scrabble III checks every word
    when played against the house list, which stands in for a college dictionary; a ruling
    overrules the list for the last play's words and the play is judged again."""
    assert "SNERKLE" not in lexicon and "DREAMY" in lexicon
    store = GameStore(tmp_path / "games.db")
    session = GAMES["scrabble3"].start(store, 0, names=["ann", "bob"], control="untimed", seed=5,
                                       lexicon_for=lambda ts: lexicon)
    with pytest.raises(ActionError, match="no play to challenge"):
        session.rule_challenge(50, "phony")
    dreamy = laid(Board(EXTENDED), "11H", "DREAMY")
    session.press(0, 100)
    assert session.judge(200, reading(dreamy))["verdicts"] == ["played"]  # 44
    with pytest.raises(ActionError, match="the house list judged DREAMY when it was played: it stands"):
        session.rule_challenge(250, "dictionary")
    with pytest.raises(ActionError, match="the ruling changes nothing"):
        session.rule_challenge(250, "valid")
    with pytest.raises(ActionError, match="by: the number of an opponent"):
        session.rule_challenge(250, "phony", 0)
    # Ruled phony: DREAMY comes off (ann takes it off the board), 0 points; bob is still to move.
    session.rule_challenge(300, "phony", 1)
    assert [p.score for p in session.state.players] == [0, 0] and session.state.board == Board(EXTENDED)
    assert session.state.to_move == 1 and session.history_rows[-1]["kind"] == "invalid"
    session.undo(350)  # the ruling undone: DREAMY stands again
    assert [p.score for p in session.state.players] == [44, 0] and session.state.board == dreamy
    # bob lays SNERKLE down from J9 through the E: not in the house list, so it comes off.
    snerkle = laid(dreamy, "J9", "SN.RKLE")
    session.press(1, 400)
    assert session.judge(500, reading(snerkle))["verdicts"] == ["invalid"]
    # The director rules it good: S1 N1x2 (J10 DL) E1 R1x2 (J12 DL) K5 L1 E1 = 13, and the
    # 6-tiler's 20: 33.
    session.rule_challenge(600, "valid", 0)
    row = session.history_rows[-1]
    assert row["kind"] == "played" and row["word"] == "SN.RKLE" and row["points"] == 33
    assert session.state.board == snerkle and [p.score for p in session.state.players] == [44, 33]
    assert session.state.to_move == 0
    again = resume(store, lambda ts: lexicon)
    assert again.state.board == snerkle and [p.score for p in again.state.players] == [44, 33]
    assert [r["kind"] for r in again.history_rows] == ["played", "played"]


def test_the_final_racks_round_is_played_on_the_time_left(lexicon):
    """Rule 13: "The time allowed for this round is whatever time you have left on your clock"
    (5 minutes each, sudden death; the mover's clock runs while the racks are told)."""
    from dataclasses import replace

    session = GAMES["scrabble3"].start(None, 0, names=["ann", "bob"], control="blitz", seed=2,
                                       lexicon_for=lambda ts: lexicon)
    assert session.press(1, 0) == "start"  # ann's clock runs
    seen = laid(Board(EXTENDED), "11H", "PLANET")
    session.press(0, 60_000)
    session.judge(60_000, reading(seen))  # ann: 300 - 60 = 240 s left
    session.state = replace(session.state, bag_size=0)
    session.press(1, 90_000)
    session.judge(90_000, reading(seen))  # bob passes: 300 - 30 = 270 s
    session.press(0, 100_000)
    session.judge(100_000, reading(seen))  # ann passes: 240 - 10 = 230 s; regular play is over
    n0, n1 = (p.rack_size for p in session.state.players)
    session.enter_racks(120_000, ["SEAT" + "E" * (n0 - 4), "ABCD" + "E" * (n1 - 4)])
    assert session.state.phase is s3.Phase.FINAL_RACKS and session.state.to_move == 1
    left = [p["remaining_ms"] for p in session.clock_view(150_000)["players"]]
    assert left == [230_000, 220_000]  # bob's clock has run since ann's pass: 270 - 50
    session.press(1, 160_000)
    assert session.judge(160_000, reading(seen))["verdicts"] == ["declined"]  # bob: 210 s
    assert [p["remaining_ms"] for p in session.clock_view(170_000)["players"]] == [220_000, 210_000]


def test_the_review_after_the_game_weighs_each_play_against_the_rules_own_best(tmp_path, lexicon):
    """After the game the page's review: each turn of the record in the move list's order, the
    opening play against the best play of its own tiles, that best checked against the rules'
    own scoring of every word those tiles spell through the centre (not the generator's); the
    passes with no rack have no alternative; the final-racks round is counted, not weighed."""
    from itertools import permutations

    from companion.core.move import PlacedTile, Placement
    from companion.core.tiles import get_tileset

    game = GAMES["scrabble3"]
    session, seen = planet_then_both_pass(tmp_path, lexicon)
    n0, n1 = (p.rack_size for p in session.state.players)
    session.enter_racks(600, ["SEAT" + "E" * (n0 - 4), "ABCD" + "E" * (n1 - 4)])
    mover = session.state.to_move
    session.press(mover, 700)
    session.judge(750, reading(laid(seen, "11N", "S")))
    session.press(1 - mover, 800)
    session.judge(850, reading(seen))
    assert session.state.over

    review = game.review(session)(lambda: False)
    moves = review["moves"]
    assert review["state"] == "done" and len(moves) == len(session.history_rows)
    assert [m and m["turn"] for m in moves] == [1, 2, 3, 4, 5]
    opening = moves[0]
    planet = session.history_rows[0]["points"]
    assert (opening["rack"], opening["whole_rack"], opening["scored"]) == ("PLANET", False, planet)
    # The rules' own best: every word of the lexicon those six tiles spell, laid across or down
    # through the centre star of the empty board, scored by the rules.
    empty = Board(EXTENDED)
    centre = empty.layout.centre
    tileset = get_tileset(s3.TILESET)
    best = 0
    for k in range(2, 7):
        for word in {"".join(p) for p in permutations("PLANET", k)} & set(lexicon):
            for start in range(k):
                for dr, dc in ((0, 1), (1, 0)):
                    r0, c0 = centre[0] - dr * start, centre[1] - dc * start
                    tiles = tuple(PlacedTile(r0 + dr * i, c0 + dc * i, ch) for i, ch in enumerate(word))
                    best = max(best, s3.score_play(empty, Placement(tiles), tileset).total)
    assert opening["best"]["score"] == best >= planet
    assert opening["left"] == best - planet
    # The passes: no rack, no alternative; the final-racks play: counted, not weighed.
    assert (moves[1]["rack"], moves[1]["best"]) == ("", None)
    assert moves[3]["unreviewed"] and moves[3]["best"] is None and moves[3]["left"] is None
    assert review["left"] == {"0": best - planet}
    # The page offers it: the registry says Scrabble III has a review.
    assert document(session, 900)["options"]["capabilities"]["review"]
