"""Scrabble III, rule by rule, with the text's own examples (rules/001_6a9d70ff88341d6c.txt).

Boards are the 21x21 board; ``11H`` is row 11, column H (the centre square is K11).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core.board import EXTENDED, Board, Direction, Tile
from companion.core.move import PlacedTile, Placement, placement_from_notation
from companion.core.tiles import get_tileset
from companion.lexicon import load_lexicon
from companion.rules import scrabble3 as s3
from companion.rules.common import IllegalPlay

TS = get_tileset("super3")
ROW = 10  # row 11


@pytest.fixture(scope="module")
def lexicon():
    return load_lexicon("en")


def board_with(*words: tuple[str, str]) -> Board:
    """A 21x21 board with words laid straight on it (not played)."""
    b = Board(EXTENDED)
    for pos, word in words:
        pl = placement_from_notation(b, pos, word)
        b = b.with_tiles((t.coord, t.tile) for t in pl.tiles)
    return b


def place(board: Board, pos: str, word: str) -> Placement:
    return placement_from_notation(board, pos, word)


def stretch(original: str, new: str, pick: int, lead: int):
    """``original`` across on row 11 from H; ``pick`` tiles picked off its end; ``new`` laid
    from ``lead`` squares before H. Returns the board and the judged play."""
    board = board_with(("11H", original))
    n = len(original)
    picked = [(ROW, 7 + n - 1 - i) for i in range(pick)]
    rest = board.without(picked)
    tiles = []
    for i, ch in enumerate(new):
        coord = (ROW, 7 - lead + i)
        there = rest[coord]
        if there is not None:
            assert there.letter == ch, (original, new)
            continue
        tiles.append(PlacedTile(ROW, coord[1], ch))
    return board, Placement.of(tiles), picked


# --- rule 1: the word set --------------------------------------------------------------------


def test_rule1_any_word_set_can_stand_in(lexicon):
    board = board_with(("11H", "PLANET"))
    play = place(board, "11H", "......S")
    assert s3.judge(board, play, lexicon).valid
    own = {"PLANET"}  # a table's own list without PLANETS
    judged = s3.judge(board, play, own)
    assert judged.invalid == IllegalPlay("PLANETS is not in the dictionary", ("PLANETS",))


# --- rule 2: good words only -----------------------------------------------------------------


def dealt(racks: tuple[str, str], board: Board | None = None, bag: str = "AEIOU" * 4) -> s3.Scrabble3State:
    state = s3.new_game(["ann", "bob"], seed=1)
    players = tuple(
        replace(p, rack=tuple(sorted(r)), rack_size=len(r)) for p, r in zip(state.players, racks)
    )
    return replace(state, players=players, board=board or Board(EXTENDED), bag=tuple(bag), bag_size=len(bag))


def test_rule2_an_invalid_play_comes_off_scores_nothing_and_the_turn_passes(lexicon):
    state = dealt(("PLANETXZ", "AEIRSTUV"))
    play = place(state.board, "11H", "PLANTE")  # not a word
    out = s3.apply(state, s3.Play(play), lexicon)
    assert out.verdict.kind is s3.VerdictKind.INVALID
    assert out.verdict.message == "PLANTE is not in the dictionary"
    assert out.state.board.is_empty()
    assert out.state.players[0].score == 0 and out.state.players[0].rack == state.players[0].rack
    assert out.state.players[0].turns == (0,)
    assert out.state.to_move == 1


# --- rule 3: the six-letter main word ---------------------------------------------------------


def test_rule3_djinn_hooked_to_make_antiquated_is_refused(lexicon):
    # ANTIQUATE across from H11 (H..P); DJINN down in column Q, its D making ANTIQUATED.
    board = board_with(("11H", "ANTIQUATE"))
    play = place(board, "Q11", "DJINN")
    judged = s3.judge(board, play, lexicon)
    assert judged.refused is None
    assert s3.main_direction(board, play) is Direction.DOWN
    assert judged.score.words[0].word.text == "DJINN"
    assert "ANTIQUATED" in [w.word.text for w in judged.score.words]
    assert judged.invalid.message == f"{s3.MAIN_TOO_SHORT}: DJINN has 5"


def test_rule3_one_tile_main_word_is_the_longer_word(lexicon):
    board = board_with(("11H", "ANTIQUATE"))
    play = place(board, "11H", ".........D")
    judged = s3.judge(board, play, lexicon)
    assert judged.valid and judged.score.words[0].word.text == "ANTIQUATED"
    assert judged.score.stretched_by == 1 and judged.score.stretch == 0
    # One tile making only a short word is a play with a short main word.
    board = board_with(("11H", "PLANET"))
    one = Placement.of([PlacedTile(11, 7, "A")])  # under the P: PA down
    assert s3.judge(board, one, lexicon).invalid.message.startswith(s3.MAIN_TOO_SHORT)


def test_rule3_counts_letters_not_tiles_five_tiles_around_one(lexicon):
    board = board_with(("11H", "PLANET"))
    play = place(board, "H9", "RE.ORT")  # REPORT down through the P with 5 tiles
    judged = s3.judge(board, play, lexicon)
    assert judged.valid and judged.score.words[0].word.text == "REPORT"


# --- rule 4: eight-tile racks, exchange needs eight in the bag -------------------------------


def test_rule4_racks_of_eight_and_exchange_needs_eight_in_the_bag(lexicon):
    state = s3.new_game(["ann", "bob"], seed=3)
    assert [p.rack_size for p in state.players] == [8, 8]
    assert state.bag_size == 100 - 16
    state = dealt(("AEIRSTUV", "AEIRSTUV"), bag="ABCDEFG")
    out = s3.apply(state, s3.Exchange("V"), lexicon)
    assert out.verdict.kind is s3.VerdictKind.REFUSED
    assert out.verdict.message == "Only 7 tiles in the bag: an exchange needs 8"
    state = dealt(("AEIRSTUV", "AEIRSTUV"), bag="ABCDEFGH")
    out = s3.apply(state, s3.Exchange("UV"), lexicon)
    assert out.verdict.kind is s3.VerdictKind.EXCHANGED and out.state.players[0].rack_size == 8


# --- rule 5: big plays -------------------------------------------------------------------------


@pytest.mark.parametrize("word,bonus", [("PLANET", 20), ("PLANETS", 50), ("PLANETSX", None)])
def test_rule5_big_play_bonus_by_tiles(lexicon, word, bonus):
    board = Board(EXTENDED)
    if bonus is None:  # eight tiles: a real eight-letter word
        word, bonus = "QUESTION", 80
    play = place(board, "11H", word)
    score = s3.score_play(board, play, TS)
    assert score.big_play == bonus and score.tiles_from_rack == len(word)


def test_rule5_a_stretch_counts_only_tiles_from_the_rack():
    # A pick-off of 2 and 8 tiles laid: 6 from the rack, the 6-tiler's 20.
    board, play, picked = stretch("PROPER", "APPROPRIATED", 2, 2)
    score = s3.judge(board, play, {"APPROPRIATED"}, pick_off=picked).score
    assert len(play) == 8 and score.tiles_from_rack == 6 and score.big_play == 20


# --- rule 6: the stretch bonus ----------------------------------------------------------------


def test_rule6_stretch_table_and_slip_agree_and_the_option():
    table = [s3.stretch_bonus(n) + s3.BIG_PLAY_BONUS.get(n, 0) for n in range(1, 9)]
    assert table == [0, 30, 50, 70, 90, 120, 150, 180]  # the rule's table, big play included
    assert [s3.stretch_bonus(n) for n in range(6, 9)] == [100, 100, 100]  # the slip's cap
    ex = s3.Scrabble3Options(stretch=s3.StretchTable.EXTENDED)
    assert s3.stretch_bonus(2, ex) == 20 and s3.stretch_bonus(3, ex) == 50


def test_rule6_breweR_to_microbrewery_without_pick_off_is_six(lexicon):
    board, play, picked = stretch("BREWER", "MICROBREWERY", 0, 5)
    judged = s3.judge(board, play, lexicon)
    assert judged.valid
    assert judged.score.stretched_by == 6
    assert judged.score.stretch + judged.score.big_play == 120


def test_rule6_short_word_stretched_earns_no_stretch_bonus(lexicon):
    board = board_with(("11J", "ACE"))
    judged = s3.judge(board, place(board, "11H", "TR...S"), lexicon)  # TRACES around ACE
    assert judged.valid and judged.score.stretched_by == 0 and judged.score.stretch == 0


# --- rule 6.1: pick-offs, every worked example ------------------------------------------------

EXAMPLES = [
    # original, stretched, tiles picked off, letters added before, the text's *N
    ("DREAMY", "DREAMILY", 1, 0, 2),
    ("DREAMY", "DREAMIEST", 1, 0, 3),
    ("OPERATE", "OPERATIONS", 1, 0, 3),
    ("ARPEGGIO", "ARPEGGIATION", 1, 0, 4),
    ("ABOLISH", "ABOLITION", 2, 0, 2),
    ("CONCEDE", "CONCESSION", 2, 0, 3),
    ("CONQUER", "CONQUISTADOR", 2, 0, 5),
    ("PIRACY", "PIRATICALLY", 2, 0, 5),
    ("FILTERS", "UNFILTERED", 1, 2, 3),
    ("CAFFEINE", "DECAFFEINATED", 1, 2, 5),
    ("CONNECTS", "DISCONNECTIONS", 1, 3, 6),
    ("BREWER", "MICROBREWERY", 0, 5, 6),
    ("MICROBREWERY", "MICROBREWERIES", 1, 0, 2),
    ("SLOPPIER", "SLOPPIEST", 1, 0, 1),
    ("GALLING", "GALLIGASKINS", 2, 0, 5),
    ("SCENTING", "COGNOSCENTI", 2, 5, 3),
    ("CELERY", "ACCELERATE", 1, 2, 4),
    ("PROPER", "APPROPRIATED", 2, 2, 6),
    ("CLERIC", "CHRONICLERS", 2, 6, 5),
]


@pytest.mark.parametrize("original,new,pick,lead,by", EXAMPLES, ids=[f"{e[0]}-{e[1]}" for e in EXAMPLES])
def test_rule61_every_worked_example(lexicon, original, new, pick, lead, by):
    missing = [w for w in (original, new) if w not in lexicon]
    if missing:
        pytest.skip(f"the house English list lacks {', '.join(missing)}")
    board, play, picked = stretch(original, new, pick, lead)
    judged = s3.judge(board, play, lexicon, pick_off=picked)
    assert judged.valid, (judged.refused, judged.invalid)
    score = judged.score
    assert score.words[0].word.text == new
    assert score.stretched_by == by == score.tiles_from_rack
    expected = s3.stretch_bonus(by) + s3.BIG_PLAY_BONUS.get(by, 0)
    assert score.stretch + score.big_play == expected
    if by == 1:  # SLOPPIER to sloppieST: "valid play, but no bonus"
        assert score.bonus == 0


def test_rule61_dreamy_to_dreamily_hand_computed(lexicon):
    # DREAMY on H11..M11; Y picked off; I (on the Y's square, no premium), L, Y on O11 (DL).
    # D2 R1 E1 A1 M3 I1 L1 Y4x2 = 18, stretch by 2: 30. Total 48.
    board, play, picked = stretch("DREAMY", "DREAMILY", 1, 0)
    score = s3.judge(board, play, lexicon, pick_off=picked).score
    assert score.words[0].score == 18 and score.stretch == 30 and score.total == 48


def test_rule61_a_premium_uncovered_and_covered_again_counts_nothing(lexicon):
    # BREWER on J11..O11: its R on O11, a double letter. Pick the R off, lay R I E S: BREWERIES
    # to R11, a triple word. B3 R1 E1 W4 E1 R1 (O11 again: no DL) I1 E1 S1 = 14 x3 = 42, +50 (by 3).
    board = board_with(("11J", "BREWER"))
    play = Placement.of([PlacedTile(ROW, c, ch) for c, ch in zip(range(14, 18), "RIES")])
    judged = s3.judge(board, play, lexicon, pick_off=[(ROW, 14)])
    assert judged.valid and judged.score.words[0].score == 42 and judged.score.total == 92
    # The camera cannot tell the R was picked: seen as a plain stretch it scores the same.
    after = board.with_tiles((t.coord, t.tile) for t in play.tiles)
    plain = s3.judge(board, Placement.of([t for t in play.tiles if t.col > 14]), lexicon)
    assert plain.score.total == 92
    seen = s3.pick_off_between(board, after)
    assert isinstance(seen, IllegalPlay)  # nothing changed on the board's tiles: no pick-off


def test_rule61_cheater_to_cheated_is_refused(lexicon):
    board, play, picked = stretch("CHEATER", "CHEATED", 1, 0)
    judged = s3.judge(board, play, lexicon, pick_off=picked)
    assert judged.refused.message == "A pick-off declares a stretch: the word must end up longer than it was"


def test_rule61_never_the_leading_tiles_nor_three_nor_a_tile_in_two_words(lexicon):
    board = board_with(("11H", "CHEATER"))
    assert s3.find_pick_off(board, [(ROW, 7)]).message == "Tiles are picked off the trailing end of a word only"
    three = [(ROW, 11), (ROW, 12), (ROW, 13)]
    assert s3.find_pick_off(board, three).message == "Pick off 1 or 2 tiles, not 3"
    crossed = board_with(("11H", "CHEATER"), ("N9", "TAR"))  # TAR down through the R
    assert "part of two words" in s3.find_pick_off(crossed, [(ROW, 13)]).message
    # The tiles laid after a pick-off stretch that word, in its line, and nothing else.
    elsewhere = Placement.of([PlacedTile(11, 7, "A")])
    assert s3.judge(board, elsewhere, lexicon, pick_off=[(ROW, 13)]).refused is not None


def test_rule61_the_camera_sees_dreamy_become_dreamily(lexicon):
    board, play, picked = stretch("DREAMY", "DREAMILY", 1, 0)
    after = board.without(picked).with_tiles((t.coord, t.tile) for t in play.tiles)
    seen = s3.pick_off_between(board, after)
    assert seen.pick_off == ((ROW, 12),) and seen.placement == play
    assert s3.judge(board, seen.placement, lexicon, pick_off=seen.pick_off).score.total == 48
    # SCENTING to COGNOSCENTI: the N and G are gone, nothing on their squares.
    board, play, picked = stretch("SCENTING", "COGNOSCENTI", 2, 5)
    after = board.without(picked).with_tiles((t.coord, t.tile) for t in play.tiles)
    seen = s3.pick_off_between(board, after)
    assert sorted(seen.pick_off) == sorted(picked)
    assert s3.judge(board, seen.placement, lexicon, pick_off=seen.pick_off).valid
    # Tiles gone from the front of a word: not a pick-off the rules allow.
    board = board_with(("11H", "CHEATER"))
    assert isinstance(s3.pick_off_between(board, board.without([(ROW, 7)])), IllegalPlay)
    # Three tiles gone from the end.
    assert s3.pick_off_between(board, board.without([(ROW, 11), (ROW, 12), (ROW, 13)])).message == (
        "At most 2 tiles may be picked off the end of a word"
    )


def test_rule61_picked_tiles_are_the_players(lexicon):
    # ann picks the Y of DREAMY and keeps it: DREAMILY with her own I, L, Y.
    board = board_with(("11H", "DREAMY"))
    state = dealt(("ILYAEQRS", "AEIRSTUV"), board=board)
    play = Placement.of([PlacedTile(ROW, 12, "I"), PlacedTile(ROW, 13, "L"), PlacedTile(ROW, 14, "Y")])
    out = s3.apply(state, s3.Play(play, pick_off=((ROW, 12),)), lexicon)
    assert out.verdict.kind is s3.VerdictKind.PLAYED and out.verdict.points == 48
    # Her rack: AEQRS, the Y she picked off, and A and E drawn from the bag.
    assert out.state.players[0].rack == tuple("AAEEQRSY")
    assert out.state.board.to_text().splitlines()[ROW].strip(".") == "DREAMILY"


# --- rule 7: swap for the blank ----------------------------------------------------------------


def test_rule7_swap_for_the_blank_and_go_on(lexicon):
    board = board_with(("11H", "PLaNET"))  # the A is a blank
    state = dealt(("ASTERNOD", "AEIRSTUV"), board=board)
    out = s3.apply(state, s3.SwapBlank((ROW, 9)), lexicon)
    assert out.verdict.kind is s3.VerdictKind.BLANK_SWAPPED and out.state.to_move == 0
    assert out.state.board[(ROW, 9)] == Tile("A") and "?" in out.state.players[0].rack
    # Without the letter: refused.
    state = dealt(("BSTERNOD", "AEIRSTUV"), board=board)
    assert s3.apply(state, s3.SwapBlank((ROW, 9)), lexicon).verdict.message == "ann has no A to swap for the blank"


def test_rule7_the_camera_sees_a_blank_become_its_letter():
    before = board_with(("11H", "PLaNET"))
    after = board_with(("11H", "PLANET"))
    assert s3.blank_swap_between(before, after) == ((ROW, 9),)
    wrong = board_with(("11H", "PLONET"))
    assert isinstance(s3.blank_swap_between(before, wrong), IllegalPlay)
    assert isinstance(s3.blank_swap_between(before, after.without([(ROW, 12)])), IllegalPlay)


def test_rule7_a_pick_swapper(lexicon):
    # ann picks the S off PLANETS, swaps it for the blank S of RESCUEs, and stretches PLANET
    # to PLANETARY with her A, R and the blank as Y. P3 L1 A1 N1 E1 T1 A1 (N11: the S's square,
    # no premium) R1x2 (O11, DL) y0 = 11; stretched by 2: 30. Total 41.
    board = board_with(("11H", "PLANETS"), ("5D", "RESCUEs"))
    state = dealt(("ARBCDEFG", "AEIRSTUV"), board=board)
    play = Placement.of([PlacedTile(ROW, 13, "A"), PlacedTile(ROW, 14, "R"), PlacedTile(ROW, 15, "Y", blank=True)])
    out = s3.apply(state, s3.Play(play, pick_off=((ROW, 13),), swaps=((4, 9),)), lexicon)
    assert out.verdict.kind is s3.VerdictKind.PLAYED and out.verdict.points == 41
    assert out.state.board[(4, 9)] == Tile("S")
    assert out.state.players[0].rack_size == 8
    # Without the pick-off there is no S to swap with.
    out = s3.apply(state, s3.Play(play, swaps=((4, 9),)), lexicon)
    assert out.verdict.kind is s3.VerdictKind.REFUSED


def test_rule7_a_swapped_blank_that_is_a_flipped_jqxz_is_its_owners(lexicon):
    board = board_with(("11H", "PLaNET"))
    state = dealt(("ASTERNOD", "AEIRSTUV"), board=board)
    state = replace(state, faces=(((ROW, 9), "J"),))
    out = s3.apply(state, s3.SwapBlank((ROW, 9)), lexicon)
    assert "J" in out.state.players[0].rack and "flipped J" in out.verdict.message


# --- rule 8: word premiums add ------------------------------------------------------------------


def test_rule8_two_triple_words_make_six_times():
    # QUESTION on D4..K4: triple words on D4 and K4, a double letter on G4 (the S).
    # Q10 U1 E1 S2 T1 I1 O1 N1 = 18, x6 = 108; 8 tiles 80; the upright Q in 8 letters 30.
    board = Board(EXTENDED)
    play = place(board, "4D", "QUESTION")
    score = s3.score_play(board, play, TS)
    assert score.words[0].multiplier == 6 and score.words[0].score == 108
    assert (score.big_play, score.jqxz, score.total) == (80, 30, 218)


# --- rule 9: the extended board -----------------------------------------------------------------


def test_rule9_21x21_with_plain_wings():
    assert (EXTENDED.rows, EXTENDED.cols, EXTENDED.inner) == (21, 21, (3, 3, 17, 17))
    wings = [s for s in EXTENDED.squares() if not EXTENDED.in_inner(s)]
    assert len(wings) == 21 * 21 - 15 * 15
    assert all(EXTENDED.premium(s).value == "." for s in wings)


def test_rule9_the_main_word_must_reach_the_inner_board(lexicon):
    # PLANETS from B11 to H11 reaches the inner board at D11..H11; SHRIMP down column B ends
    # on its P, wholly in the wings.
    board = board_with(("11B", "PLANETS"))
    judged = s3.judge(board, place(board, "B6", "SHRIM."), lexicon)
    assert judged.score.words[0].word.text == "SHRIMP"
    assert judged.invalid.message == s3.NOT_ON_INNER


# --- rule 10: the tiles -------------------------------------------------------------------------


def test_rule10_the_298_tiles_and_a_scoop_of_100():
    assert TS.size == 298 and TS.blanks == 3
    assert all(TS.counts[ch] == 3 for ch in "JQXZ") and TS.counts["E"] == 38
    state = s3.new_game(["ann", "bob"], seed=5)
    dealt_tiles = state.bag_size + sum(p.rack_size for p in state.players)
    assert dealt_tiles == 100
    other = s3.new_game(["ann", "bob"], seed=6)
    assert sorted(state.bag + state.players[0].rack) != sorted(other.bag + other.players[0].rack)


def test_rule10_at_a_real_table_only_the_298_bound_the_racks(lexicon):
    state = s3.new_game(["ann", "bob"], seed=5, track_tiles=False)
    state = replace(state, bag_size=0, phase=s3.Phase.RACKS)
    # Four Zs: more than a scoop of 100 would usually hold, within the 298? No: only 3 Z exist.
    out = s3.apply(state, s3.RevealRacks(("ZZZZAAAA", "EEEEEEEE")), lexicon)
    assert out.verdict.message == "More Z than the 298-tile set has"
    out = s3.apply(state, s3.RevealRacks(("ZZZJJJAA", "EEEEEEEE")), lexicon)
    assert out.verdict.kind is not s3.VerdictKind.REFUSED


# --- rule 11: the small-word cap ----------------------------------------------------------------


def test_rule11_small_word_point_cap():
    value = s3.capped_value(TS)
    board = board_with(("11H", "PLANET"))
    score = s3.score_play(board, place(board, "H10", "A."), TS)  # AP down: A1, the P capped at 2
    assert [w.word.text for w in score.words] == ["AP"] and score.words[0].score == 1 + 2
    x_there = value(score.words[0].word.squares[1], Tile("X"), score.words[0].word)
    assert x_there == 2 and x_there < TS.value("X")
    big = s3.score_play(Board(EXTENDED), place(Board(EXTENDED), "11H", "QUARTZ"), TS)
    assert big.capped == 0 and big.words[0].letters == 10 + 1 + 1 + 1 + 1 + 10


def test_rule11_a_capped_secondary_word():
    # ANTIQUATE on H11..P11; AXE on I10..K10 over its N, T, I. Row 10 has double letters on
    # J10 (the X) and L10. AXE: A1 X capped 3 x2 E1 = 8. Cross words AN 2, XT (X capped 2 x2, T1)
    # 5, EI 2. The cap took 10 off AXE and 12 off XT.
    board = board_with(("11H", "ANTIQUATE"))
    play = Placement.of([PlacedTile(9, 8 + i, ch) for i, ch in enumerate("AXE")])
    score = s3.score_play(board, play, TS)
    assert [(w.word.text, w.score) for w in score.words] == [("AXE", 8), ("AN", 2), ("XT", 5), ("EI", 2)]
    assert score.capped == 10 + 12


# --- rule 12: JQXZ wild ---------------------------------------------------------------------------


@pytest.mark.parametrize("opt,total", [(s3.StretchTable.TABLE, 77), (s3.StretchTable.EXTENDED, 67)])
def test_rule12_ex_plus_tended(lexicon, opt, total):
    # TENDED on J11..O11; EX on H11, I11. E1 X8 T1 E1 N1 D2 E1 D2 = 17; the X upright in an
    # 8-letter word 30; stretch by 2: 30 by the table, 20 by the example.
    board = board_with(("11J", "TENDED"))
    play = place(board, "11H", "EX......")
    judged = s3.judge(board, play, lexicon, options=s3.Scrabble3Options(stretch=opt))
    assert judged.valid
    assert (judged.score.words[0].score, judged.score.jqxz) == (17, 30)
    assert judged.score.total == total


@pytest.mark.parametrize("word,bonus", [("QUARTZ", 20), ("JOKERS", 10), ("SEXTON", 10), ("QUESTION", 30)])
def test_rule12_upright_bonus_per_tile_by_word_length(word, bonus):
    board = Board(EXTENDED)
    score = s3.score_play(board, place(board, "11H", word), TS)
    assert score.jqxz == bonus  # QUARTZ: Q and Z, 10 each


def test_rule12_flipped_for_a_blank_no_bonus_no_points(lexicon):
    board = Board(EXTENDED)
    upright = s3.score_play(board, place(board, "11H", "JOKERS"), TS)
    flipped = s3.score_play(board, place(board, "11H", "jOKERS"), TS)
    assert upright.jqxz == 10 and flipped.jqxz == 0
    assert upright.words[0].score - flipped.words[0].score == 8 * 2  # the J on the star's word x2


def test_rule12_a_jqxz_already_on_the_board_earns_nothing(lexicon):
    board = board_with(("11H", "JOKER"))
    score = s3.judge(board, place(board, "11H", ".....S"), lexicon).score
    assert score.words[0].word.text == "JOKERS" and score.jqxz == 0


def test_rule12_the_bonus_follows_the_word_length_not_the_tiles():
    # The text's "6-tiler using a JQXZ yields 50 (20+30)" holds for a word of 8 letters or more:
    # QUEST + N through the I and O on the board is QUESTION, 6 tiles, 8 letters.
    board = board_with(("11M", "IO"))
    play = Placement.of([PlacedTile(ROW, 7 + i, ch) for i, ch in enumerate("QUEST")] + [PlacedTile(ROW, 14, "N")])
    score = s3.score_play(board, play, TS)
    assert score.words[0].word.text == "QUESTION" and score.big_play + score.jqxz == 50
    # JOKERS, 6 tiles in 6 letters: 20 + 10.
    score = s3.score_play(Board(EXTENDED), place(Board(EXTENDED), "11H", "JOKERS"), TS)
    assert score.big_play + score.jqxz == 30


def test_rule12_flipped_jqxz_played_from_the_rack(lexicon):
    # bob holds a Q and flips it for the E of PLANES, down column M ending on the S of JOKERS.
    board = board_with(("11H", "JOKERS"))
    state = replace(dealt(("AEIRSTUV", "PLANQAAB"), board=board), to_move=1)
    play = Placement.of([PlacedTile(5 + i, 12, ch) for i, ch in enumerate("PLAN")] + [PlacedTile(9, 12, "E", True)])
    out = s3.apply(state, s3.Play(play, flipped=(((9, 12), "Q"),)), lexicon)
    assert out.verdict.kind is s3.VerdictKind.PLAYED and out.verdict.score.jqxz == 0
    assert out.state.face((9, 12)) == "Q"
    # Without the flip the play needs a blank bob does not have.
    assert s3.apply(state, s3.Play(play), lexicon).verdict.message == "Those tiles are not on bob's rack"
    # Flipping a tile that is not a JQXZ is refused.
    out = s3.apply(state, s3.Play(play, flipped=(((9, 12), "E"),)), lexicon)
    assert out.verdict.message == "only a J, Q, X or Z may be flipped for a blank, not E"


# --- rule 13: swap final racks, PPT -------------------------------------------------------------


def test_rule13_final_racks_round_and_ppt(lexicon):
    board = board_with(("11H", "PLANET"))
    state = dealt(("ABCDEFGH", "SWXYZKQV"), board=board, bag="")
    state = replace(state, players=(
        replace(state.players[0], score=100, turns=(60, 40)),
        replace(state.players[1], score=50, turns=(50, 0)),
    ))
    out = s3.apply(state, s3.Pass(), lexicon)
    out = s3.apply(out.state, s3.Pass(), lexicon)
    state = out.state
    assert state.phase is s3.Phase.FINAL_RACKS
    assert out.verdicts[-1].kind is s3.VerdictKind.FINAL_ROUND and state.to_move == 0
    # ann plays with bob's rack: PLANETS (the S from bob's rack): 1+... a good play: + 50.
    play = place(state.board, "11H", "......S")
    out = s3.apply(state, s3.Play(play), lexicon)
    assert out.verdict.kind is s3.VerdictKind.FINAL_RACKS
    # PLANETS: P3 L1 A1 N1 E1 T1 S1 = 9 (no premium under the S on N11), + 50.
    assert out.verdict.points == 59
    assert out.state.board == state.board  # the attempt leaves the board as it was
    # bob tries with ann's rack: a bad play costs its would-be points.
    play = place(state.board, "11H", "......D")  # PLANETD
    out2 = s3.apply(out.state, s3.Play(play), lexicon)
    assert out2.verdicts[0].kind is s3.VerdictKind.FINAL_RACKS_INVALID
    assert out2.verdicts[0].points == -(9 + 1)  # PLANETD: 8 + D2 = 10
    final = out2.state
    assert final.over
    ann, bob = final.players
    rack_a = TS.rack_value("ABCDEFGH")
    rack_b = TS.rack_value("SWXYZKQV")
    assert ann.score == 100 + 59 - rack_a and bob.score == 50 - 10 - rack_b
    # PPT: ann's stuck turn (her pass) is not counted (bob found no play with her rack); bob's
    # stuck turns (his 0 and his pass) count, since ann found a play with his; each attempt is a turn.
    assert final.stuck_turns(0) == 1 and final.stuck_turns(1) == 2
    assert final.ppt_turns(0) == 2 + 1 and final.ppt_turns(1) == 3 + 1
    assert final.ppt(0) == pytest.approx(ann.score / 3)


def test_rule13_ppt_options():
    state = dealt(("A", "B"))
    state = replace(state, players=(replace(state.players[0], turns=(10, 0, 0)), state.players[1]))
    assert state.ppt_turns(0) == 1
    assert replace(state, options=s3.Scrabble3Options(stuck_turns=s3.StuckTurns.ALWAYS)).ppt_turns(0) == 3


def test_rule13_optional(lexicon):
    state = dealt(("ABCDEFGH", "SWXYZKQV"), board=board_with(("11H", "PLANET")), bag="")
    state = replace(state, options=s3.Scrabble3Options(swap_final_racks=False))
    out = s3.apply(s3.apply(state, s3.Pass(), lexicon).state, s3.Pass(), lexicon)
    assert out.state.over and out.verdicts[-1].kind is s3.VerdictKind.GAME_OVER


# --- the slip's two-letter words -----------------------------------------------------------------


def test_two_letter_words_only_from_the_slip(lexicon):
    # BARGAIN on H11..N11; ENERGY on row 12 from N: its E under the N makes NE, in the
    # dictionary but not on the slip.
    board = board_with(("11H", "BARGAIN"))
    judged = s3.judge(board, place(board, "12N", "ENERGY"), lexicon)
    assert "NE" in lexicon and judged.invalid.message == "NE is not in the dictionary"
    # ORANGE there instead: NO, on the slip's line of the I, L, M, N and O words.
    assert s3.judge(board, place(board, "12N", "ORANGE"), lexicon).valid
    # ORANGE on H11..M11; LEMONS on row 12 from M: EL, on the slip, not in the dictionary.
    board = board_with(("11H", "ORANGE"))
    judged = s3.judge(board, place(board, "12M", "LEMONS"), lexicon)
    assert "EL" not in lexicon and judged.valid


def test_the_slip_s_two_letter_list_whole():
    """The slip as the rules text prints it (its three lines, lower and upper case), and the
    line it lost: the words starting with I, L, M, N and O of the author's list of 72."""
    from pathlib import Path

    texts = sorted((Path(__file__).resolve().parents[2] / ".." / "shared" / "rules").glob("001_*.txt"))
    if not texts:
        pytest.skip("../shared/rules/001_*.txt (the Scrabble III text) is not beside the project")
    text = texts[0].read_text(encoding="utf-8")
    start = text.index("Two-letter words (RESPECTABLE and bearable):")
    printed = text[start:].split(":", 1)[1].split("\n\n", 1)[0].split()
    assert len(printed) == 50 and printed[:3] == ["ab", "AD", "AG"] and printed[-1] == "yo"
    lost = "ID IF IN IS IT LA LI LO MA ME MI MU MY NO NU OF OH ON OR OS OW OX".split()
    assert s3.SLIP_TWO_LETTER_WORDS == {w.upper() for w in printed} | set(lost)
    assert len(s3.SLIP_TWO_LETTER_WORDS) == 72
    # The printed list is in alphabetical order and breaks off between HO and PA: that is
    # where the lost line goes, and every one of its words sorts there.
    upper = [w.upper() for w in printed]
    assert upper == sorted(upper)
    gap = upper.index("HO")
    assert upper[gap + 1] == "PA" and all("HO" < w < "PA" for w in lost)
    assert {w[0] for w in upper} & set("ILMNO") == set()
