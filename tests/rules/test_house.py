"""Scrabble House (rules/004): orientation, plays, the worked example, the match, the table's surface."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core.board import STANDARD, Board, Direction, Tile
from companion.rules import house
from companion.rules.house import (
    BOTTOM,
    TOP,
    FlagFall,
    Pass,
    Reason,
    VerdictKind,
    apply,
    board_to_text,
    connects,
    explode,
    judge_reading,
    new_match,
    play_error,
    read_as,
    tile_strings,
    tiles_from_text,
)
from companion.vision.reading import CellReading

# The words the worked example relies on, as the Official Scrabble Players Dictionary has them
# (the text's own judgements: UTS, ORS, OD, AE legal; CA, STU, RADI not), and the opponent's
# words of the reconstructed board.
EXAMPLE_WORDS = frozenset(
    ["DOCK", "KEEL", "AE", "ACCEPT", "COD", "UTS", "RAD", "ORS", "ROLL", "OR", "DO", "OD", "EEL", "STUPORS", "RADISH"]
)

# The board "you" (the bottom player, upper case) face in the text's example. The text's
# figures are lost; the board is rebuilt from its words so that every sentence holds:
#
# - "extending the string D O C with a K ... your opponent sees (and played it) 'cod'": the
#   opponent's COD runs down column I (rows 6-8), read by him from the bottom up.
# - "dock", "keel" and "ae" are the new words: K lands under the C (I9) and KEEL runs across
#   row 9 (I9-L9); the first E lies under an A, which makes AE down column J.
# - "the word 'accept' is mixed ... the upside-down tiles C E P T are removed ... leaving the
#   illegal tile-string C A": ACCEPT lies across row 8, read by the opponent from the right
#   (A on J8, C on I8, then C E P T on H8-E8); its C on I8 is COD's C and its A is AE's A,
#   the two tiles the turning makes ours.
# - "the dangling string U T S ... from your opponent's point of view it says S T U" and
#   "ors ... remains": the opponent's STUPORS runs down column F (rows 5-11), read from the
#   bottom up, crossing ACCEPT at its P (F8); when the P goes, UTS is left below (as we read
#   it) and ORS above (as he reads it).
# - "a dangling H" and "the string R A D I ... 'radi' is not a legal word": the opponent's
#   RADISH runs across row 11 (read from the right: R on J11 ... S on F11, H on E11), crossing
#   STUPORS at its last S; when UTS goes, RADI and H are left, one examination later.
#
# The text writes UTS as we read it (and says the opponent reads STU); it writes RADI and ORS
# as their owner, the opponent, reads them ("ors" is legal, so it stays).
EXAMPLE_BOARD = """\
...............
...............
...............
...............
.....s.........
.....r..d......
.....o..o......
....tpecca.....
.....u.........
.....t.........
....hsidar.....
...............
...............
...............
...............
"""


def board_of(text: str) -> Board:
    return Board(STANDARD, tiles_from_text(text))


def tiles(spec: dict, seat: int, colour: str | None = None) -> dict:
    return {sq: Tile(ch, rotation=house.ROTATION[seat], set=colour) for sq, ch in spec.items()}


KEEL = {(8, 8): "K", (8, 9): "E", (8, 10): "E", (8, 11): "L"}
# ROLL as the opponent reads it, from the bottom up in column H: R on H7, O on H6, L on H5, H4.
ROLL = {(6, 7): "R", (5, 7): "O", (4, 7): "L", (3, 7): "L"}


# ---------------------------------------------------------------------------------------------
# Orientation


def test_the_top_player_reads_every_string_backwards():
    assert read_as("DOC", BOTTOM) == "DOC"
    assert read_as("DOC", TOP) == "COD"
    b = board_of(EXAMPLE_BOARD)
    texts = {s.text() for s in tile_strings(b)}
    assert texts == {"ACCEPT", "COD", "STUPORS", "RADISH"}
    # "It is tempting to read the starting word ... 'cod', but ... it begins as 'doc'".
    cod = next(s for s in tile_strings(b) if s.text() == "COD")
    assert cod.text(BOTTOM) == "DOC" and cod.direction is Direction.DOWN


def test_text_form_round_trips_and_names_the_bad_character():
    assert board_to_text(board_of(EXAMPLE_BOARD)) == EXAMPLE_BOARD.rstrip("\n")
    bad = EXAMPLE_BOARD.replace("....tpecca.....", "....tpe3ca.....")
    with pytest.raises(Exception, match=r"line 8, column 8: '3'"):
        tiles_from_text(bad)
    with pytest.raises(Exception, match="line 2: 14 characters"):
        tiles_from_text(EXAMPLE_BOARD.replace("...............\n", "..............\n", 2).replace("..............\n", "...............\n", 1))
    with pytest.raises(Exception, match="14 lines"):
        tiles_from_text("\n".join(EXAMPLE_BOARD.splitlines()[:14]))


# ---------------------------------------------------------------------------------------------
# The worked example of the rules text


def first_explosion():
    return explode(board_of(EXAMPLE_BOARD), tiles(KEEL, BOTTOM), BOTTOM, EXAMPLE_WORDS)


def test_worked_example_first_explosion():
    """DOCK, KEEL and AE explode ACCEPT: CA loses its A, UTS, H and RADI come off, ORS stays.

    The board is EXAMPLE_BOARD (how it was rebuilt from the text is written above it).
    """
    before = board_of(EXAMPLE_BOARD)
    play = tiles(KEEL, BOTTOM)
    assert play_error(before, play, BOTTOM, EXAMPLE_WORDS) is None
    x = explode(before, play, BOTTOM, EXAMPLE_WORDS)
    assert set(x.words) == {"DOCK", "KEEL", "AE"}
    # (a) D O C of COD and A of ACCEPT turn to face us.
    assert x.turned == ((5, 8), (6, 8), (7, 8), (7, 9))
    # (b) ACCEPT is mixed: C E P T (upside down) come off; of what is left, CA is not a word
    # and its A comes off, the C staying in DOCK.
    b, c1, c2 = x.steps
    assert b.rule == "b"
    (accept, ca) = b.removals
    assert (accept.text, accept.letters, accept.reason) == ("ACCEPT", "CEPT", Reason.UPSIDE_DOWN)
    assert accept.squares == ((7, 4), (7, 5), (7, 6), (7, 7))
    assert (ca.text, ca.letters, ca.reason, ca.squares) == ("CA", "A", Reason.LEFTOVER, ((7, 9),))
    # (c) UTS, read by its owner STU, is not a word.
    assert [(r.text, r.squares) for r in c1.removals] == [("STU", ((8, 5), (9, 5), (10, 5)))]
    # (d) one examination later: RADI (though RAD is a word) and the dangling H.
    assert {(r.text, r.reason) for r in c2.removals} == {("RADI", Reason.NOT_A_WORD), ("H", Reason.DANGLING)}
    assert set(c2.squares) == {(10, 4), (10, 6), (10, 7), (10, 8), (10, 9)}
    # ORS stays; DOCK and KEEL are ours.
    assert {s.text() for s in tile_strings(x.after)} == {"ORS", "DOCK", "KEEL"}
    assert sorted(t.letter for t in x.passed) == sorted("CEPTAUTSHRADI")


def test_worked_example_second_explosion():
    """ROLL, OR and DO explode DOCK: C and K come off, OD stays, EEL stays."""
    first = first_explosion()
    play = tiles(ROLL, TOP)
    assert play_error(first.after, play, TOP, EXAMPLE_WORDS) is None
    y = explode(first.after, play, TOP, EXAMPLE_WORDS)
    assert set(y.words) == {"ROLL", "OR", "DO"}
    assert y.turned == ((5, 8), (6, 8))
    (b,) = y.steps
    (dock,) = b.removals
    assert (dock.text, dock.letters, dock.squares) == ("DOCK", "CK", ((7, 8), (8, 8)))
    strings = {(s.text(), s.owner) for s in tile_strings(y.after)}
    assert strings == {("ORS", TOP), ("ROLL", TOP), ("DO", TOP), ("OR", TOP), ("OD", TOP), ("EEL", BOTTOM)}


def test_worked_example_if_od_were_illegal_do_would_go_too():
    """'Note that if "od" were illegal (like "ca"), then the D O (formerly of "dock") would
    also be removed!'"""
    first = explode(board_of(EXAMPLE_BOARD), tiles(KEEL, BOTTOM), BOTTOM, EXAMPLE_WORDS)
    y = explode(first.after, tiles(ROLL, TOP), TOP, EXAMPLE_WORDS - {"OD"})
    (b,) = y.steps
    assert [(r.text, r.letters) for r in b.removals] == [("DOCK", "CK"), ("OD", "OD")]
    assert {s.text() for s in tile_strings(y.after)} == {"ORS", "ROLL", "EEL"}


def test_worked_example_if_ca_were_a_word_it_would_stay():
    x = explode(board_of(EXAMPLE_BOARD), tiles(KEEL, BOTTOM), BOTTOM, EXAMPLE_WORDS | {"CA"})
    assert {s.text() for s in tile_strings(x.after) if s.owner == BOTTOM} == {"DOCK", "KEEL", "AE", "CA"}


# ---------------------------------------------------------------------------------------------
# Plays


WORDS = frozenset(["AT", "TA", "TAT", "EAT", "TEA", "ATE", "SEA", "SAT", "SET", "TEE", "EEL"])


def test_first_play_touches_the_own_home_row():
    empty = Board(STANDARD)
    assert play_error(empty, tiles({(7, 7): "A", (7, 8): "T"}, BOTTOM), BOTTOM, WORDS, opened=False).message == house.NOT_HOME_ROW
    assert play_error(empty, tiles({(0, 7): "A", (0, 8): "T"}, BOTTOM), BOTTOM, WORDS, opened=False).message == house.NOT_HOME_ROW
    assert play_error(empty, tiles({(14, 7): "A", (14, 8): "T"}, BOTTOM), BOTTOM, WORDS, opened=False) is None
    # The top player's home row is row 1 (index 0); he reads T A from our side as AT.
    assert play_error(empty, tiles({(0, 7): "T", (0, 8): "A"}, TOP), TOP, WORDS, opened=False) is None
    laid = tiles({(0, 7): "E", (0, 8): "A", (0, 9): "T"}, TOP)
    assert play_error(empty, laid, TOP, WORDS, opened=False).message == "TAE is not in the dictionary"


def test_plays_build_from_words_or_the_home_row_and_face_the_mover():
    b = Board(STANDARD).with_tiles(tiles({(13, 7): "A", (14, 7): "T"}, BOTTOM).items())
    # Down from A: ATE? no, up: "EAT" reads E A T top to bottom.
    assert play_error(b, tiles({(12, 7): "E"}, BOTTOM), BOTTOM, WORDS) is None
    assert play_error(b, tiles({(5, 5): "A", (5, 6): "T"}, BOTTOM), BOTTOM, WORDS).message == house.NOT_ATTACHED
    assert play_error(b, tiles({(14, 1): "A", (14, 2): "T"}, BOTTOM), BOTTOM, WORDS) is None  # home row again
    msg = play_error(b, tiles({(12, 7): "E"}, TOP), BOTTOM, WORDS).message
    assert "faces the top player" in msg
    assert play_error(b, tiles({(14, 1): "A"}, BOTTOM), BOTTOM, WORDS).message == house.TOO_SHORT


def test_connection_from_home_row_to_home_row():
    column = {(r, 7): "A" for r in range(15)}
    b = Board(STANDARD).with_tiles(tiles(column, BOTTOM).items())
    assert connects(b, BOTTOM) and not connects(b, TOP)
    # Cut at row 12: the top part touches the far row but has lost its base.
    cut = b.without([(12, 7)])
    assert not connects(cut, BOTTOM)
    # An opponent's tile is no part of our chain.
    assert not connects(b.with_tiles([((6, 7), Tile("A", rotation=180))]), BOTTOM)


# ---------------------------------------------------------------------------------------------
# The match


NAMES = ("Ann", "Bob", "Cy", "Di")


def test_new_match_deals_seven_of_each_board_colour_and_the_diagonal_starts():
    m = new_match(NAMES, first=1, seed=3)
    for p in range(4):
        assert len(m.racks[p]) == 7 and m.own_count(p) == 7
    assert house.first_movers(["E", "B", "Q", "Z"]) == (1, 2)
    assert house.first_movers(["E", "?", "B", "Z"]) == (1, 2)
    assert house.first_movers(["A", "B", "A", "Z"]) == (0, 2)
    # Player 1 (top of board 0) and player 2 (bottom of board 1) start.
    assert m.to_move(0) == 1 and m.to_move(1) == 2
    assert house.partner_of(0) == 2 and house.opponent_of(0) == 1 and house.team_of(3) == 1
    total = sum(m.tiles().values())
    assert total == 200


def _cells(board: Board, extra: dict | None = None) -> tuple[CellReading, ...]:
    cells = []
    squares = dict(board.items())
    squares.update(extra or {})
    for r in range(15):
        for c in range(15):
            t = squares.get((r, c))
            if t is None:
                cells.append(CellReading(r, c))
            else:
                cells.append(
                    CellReading(r, c, "tile", "?" if t.blank else t.letter, 0 if t.blank else t.rotation, set=t.set)
                )
    return tuple(cells)


def _example_match(track: bool = False):
    """A match whose board 0 is the worked example (the opponent's tiles white), the bottom
    player (Ann) on move with a rack that holds K E E L."""
    m = new_match(NAMES, first=0, seed=1, track_tiles=track)
    b0 = Board(STANDARD, {c: replace(t, set="white") for c, t in tiles_from_text(EXAMPLE_BOARD).items()})
    m = replace(m, boards=(replace(m.boards[0], board=b0, opened=(True, True)), m.boards[1]))
    return m


def test_reading_shows_the_explosion_then_the_camera_confirms_it():
    m = _example_match()
    b0 = m.boards[0].board
    laid = tiles(KEEL, BOTTOM, "white")
    out = judge_reading(m, 0, _cells(b0, laid), EXAMPLE_WORDS)
    v = out.verdict
    assert v.kind is VerdictKind.EXPLOSION and set(v.words) == {"DOCK", "KEEL", "AE"}
    x = v.explosion
    assert len(x.removed) == 13
    m = out.state
    assert m.boards[0].pending is x and m.own_count(0) == 3
    # Nothing else moves on this board until the explosion is done.
    assert apply(m, Pass(1), EXAMPLE_WORDS).verdict.kind is VerdictKind.REFUSED
    # Half done: the tiles turned, ACCEPT's upside-down tiles off, the rest still there.
    half = x.played.with_tiles((s, house.facing(x.played[s], BOTTOM)) for s in x.turned).without(x.steps[0].squares)
    out = judge_reading(m, 0, _cells(half), EXAMPLE_WORDS)
    assert out.verdict.kind is VerdictKind.WAITING and out.state is m
    assert "take off" in out.verdict.message and "F9" in out.verdict.message
    # A tile not turned is named.
    wrong = x.after.with_tiles([((5, 8), Tile("D", rotation=180, set="white"))])
    out = judge_reading(m, 0, _cells(wrong), EXAMPLE_WORDS)
    assert out.verdict.kind is VerdictKind.WAITING and out.verdict.squares == ((5, 8),)
    # Done as shown: confirmed, 13 tiles to Cy (Ann's partner, board 1), white, so bonus tiles.
    out = judge_reading(m, 0, _cells(x.after), EXAMPLE_WORDS)
    assert out.verdict.kind is VerdictKind.CONFIRMED
    m = out.state
    assert m.boards[0].pending is None and m.boards[0].board == x.after
    assert len(m.bonus(2)) == 13 and m.own_count(2) == 7
    assert m.own_count(0) == 7  # Ann drew back to seven of her colour
    assert m.to_move(0) == 1
    # The opponent's reply, read with ROLL laid: DOCK explodes back.
    out = judge_reading(m, 0, _cells(m.boards[0].board, tiles(ROLL, TOP, "white")), EXAMPLE_WORDS)
    assert out.verdict.kind is VerdictKind.EXPLOSION
    assert out.verdict.explosion.removed == ((7, 8), (8, 8))


def test_a_reading_with_the_explosion_already_done_is_play_and_confirmation():
    m = _example_match()
    x = explode(m.boards[0].board, tiles(KEEL, BOTTOM, "white"), BOTTOM, EXAMPLE_WORDS)
    out = judge_reading(m, 0, _cells(x.after), EXAMPLE_WORDS)
    assert [v.kind for v in out.verdicts] == [VerdictKind.EXPLOSION, VerdictKind.CONFIRMED]
    assert out.state.boards[0].board == x.after and out.state.to_move(0) == 1


def test_readings_that_are_not_moves():
    m = _example_match()
    b0 = m.boards[0].board
    assert judge_reading(m, 0, _cells(b0), EXAMPLE_WORDS).verdict.kind is VerdictKind.NOTHING
    # The wrong player's tiles.
    v = judge_reading(m, 0, _cells(b0, tiles({(11, 4): "A", (11, 5): "T"}, TOP)), EXAMPLE_WORDS).verdict
    assert v.kind is VerdictKind.REFUSED and "Ann's turn" in v.message
    # A tile turned sideways, a tile gone without a play.
    cells = list(_cells(b0))
    cells[0] = CellReading(0, 0, "tile", "A", 90, set="white")
    assert judge_reading(m, 0, cells, EXAMPLE_WORDS).verdict.kind is VerdictKind.QUESTION
    v = judge_reading(m, 0, _cells(b0.without([(10, 4)])), EXAMPLE_WORDS).verdict
    assert v.kind is VerdictKind.QUESTION and v.squares == ((10, 4),)
    # A word not in the list.
    v = judge_reading(m, 0, _cells(b0, tiles({(8, 8): "K", (8, 9): "E", (8, 10): "E"}, BOTTOM, "white")), EXAMPLE_WORDS).verdict
    assert v.kind is VerdictKind.REFUSED and v.message == "KEE is not in the dictionary"


def test_a_blank_takes_the_one_letter_that_makes_the_words():
    m = _example_match()
    b0 = m.boards[0].board
    laid = tiles(KEEL, BOTTOM, "white")
    laid[(8, 11)] = Tile("?", blank=True, rotation=0, set="white")
    m = replace(m, racks=(m.racks[0][:-1] + (("?", "white"),),) + m.racks[1:])
    out = judge_reading(m, 0, _cells(b0, laid), EXAMPLE_WORDS)
    assert out.verdict.kind is VerdictKind.EXPLOSION
    assert out.state.boards[0].board[(8, 11)] == Tile("L", blank=True, rotation=0, set="white")


def test_own_colour_tiles_passed_back_stop_the_draw():
    m = new_match(NAMES, first=0, seed=5)
    # Cy (board 1, red) is given three red tiles back by Ann: ten of his own colour.
    racks = list(m.racks)
    racks[2] = racks[2] + (("E", "red"), ("A", "red"), ("T", "red"))
    m = replace(m, racks=tuple(racks), bags=(m.bags[0], m.bags[1][3:]))
    assert m.own_count(2) == 10
    # Di starts on board 1 (diagonal of Ann); she passes, Cy passes: no draw for Cy.
    m = apply(m, Pass(3), WORDS).state
    m = apply(m, Pass(2), WORDS).state
    assert m.own_count(2) == 10 and len(m.racks[2]) == 10
    # Bonus tiles of the other colour do not count: with six own tiles one is drawn.
    racks = list(m.racks)
    racks[1] = racks[1][:6] + (("X", "red"),)
    m2 = replace(m, racks=tuple(racks))
    assert m2.own_count(1) == 6
    m2 = apply(m2, Pass(0), WORDS).state
    assert apply(m2, Pass(0), WORDS).verdict.message == "It is Bob's turn"
    m2 = apply(m2, Pass(1), WORDS).state
    assert m2.own_count(1) == 7 and len(m2.racks[1]) == 8


def test_win_by_connection_and_by_flag_fall():
    m = new_match(NAMES, first=0, seed=2, track_tiles=False)
    column = {(r, 7): "A" if r % 2 else "T" for r in range(1, 15)}
    b0 = Board(STANDARD, {c: replace(t, set="white") for c, t in tiles(column, BOTTOM).items()})
    m = replace(m, boards=(replace(m.boards[0], board=b0, opened=(True, False)), m.boards[1]))
    lex = WORDS | {"T" + "".join(column[(r, 7)] for r in range(1, 15))}
    out = judge_reading(m, 0, _cells(b0, tiles({(0, 7): "T"}, BOTTOM, "white")), lex)
    assert [v.kind for v in out.verdicts] == [VerdictKind.PLAYED, VerdictKind.WON]
    assert out.state.winner == 0 and "Ann" in out.state.reason
    assert apply(out.state, Pass(1), lex).verdict.kind is VerdictKind.REFUSED

    clocks = house.house_clocks(minutes=1)
    m = new_match(NAMES, first=0)
    clocks.press(1, 0)  # Bob starts Ann's clock
    clocks.press(3, 0)  # Di starts Cy's
    actions = house.clock_actions(clocks.poll(60_001))
    assert actions == [FlagFall(0), FlagFall(2)]
    out = apply(m, actions[0], WORDS)
    assert out.state.winner == 1 and "Ann ran out of time" in out.state.reason

