"""Every rule of the classic game (rules/002) and the tournament conventions, one test each."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from companion.core.board import Board, Tile
from companion.core.move import Placement, PlacedTile, placement_from_notation
from companion.core.errors import CompanionError
from companion.rules import classic
from companion.rules.classic import (
    Accept,
    Challenge,
    ChallengeMode,
    ClassicOptions,
    Exchange,
    Pass,
    Play,
    RevealRacks,
    TradeBlank,
    VerdictKind,
    apply,
    new_game,
)

WORDS = {
    "WINDY", "GALE", "AW", "LI", "EN", "CAT", "CATS", "AT", "TA", "QI", "ZA", "OX", "AX", "XI",
    "RETAINS", "STAINER", "HAT", "HATS", "TO", "AA", "DOG", "GOD", "ON", "NO", "DO", "OD", "GO",
}


def state_with(racks, bag="", options=ClassicOptions(), board=None, to_move=0, scores=None):
    """A tracked game at a chosen position: racks and bag as the test says."""
    s = new_game([f"p{i + 1}" for i in range(len(racks))], options, seed=7)
    players = tuple(
        replace(p, rack=tuple(sorted(r)), rack_size=len(r), score=(scores or [0] * len(racks))[i])
        for i, (p, r) in enumerate(zip(s.players, racks))
    )
    return replace(s, players=players, bag=tuple(bag), bag_size=len(bag), to_move=to_move, board=board or Board())


def play(state, pos, word, lexicon=WORDS):
    placement = placement_from_notation(state.board, pos, word)
    return apply(state, Play(placement), lexicon)


# --- the validation messages of the rules text -------------------------------------------------


def test_no_tiles_played():
    out = apply(state_with(["CAT"]*2), Play(Placement(())), WORDS)
    assert out.verdict.kind is VerdictKind.REFUSED
    assert out.verdict.message == "No tiles played"


def test_tiles_not_in_a_line():
    placement = Placement.of([PlacedTile(7, 7, "C"), PlacedTile(8, 8, "A")])
    out = apply(state_with(["CAT"]*2), Play(placement), WORDS)
    assert out.verdict.message == "Your tiles are not in a line"


def test_word_must_cover_centre_star():
    out = play(state_with(["CAT"]*2), "1A", "CAT")
    assert out.verdict.message == "Word must cover center star"
    assert out.state.board.is_empty()


def test_tiles_not_connected():
    s = play(state_with(["CAT", "CAT"], bag="EEE"), "8H", "CAT").state
    out = play(s, "2B", "CAT")
    assert out.verdict.message == "Tiles are not connected"
    assert out.state.to_move == 1


def test_only_one_word_allowed_when_tiles_leave_a_gap():
    placement = Placement.of([PlacedTile(7, 6, "C"), PlacedTile(7, 7, "A"), PlacedTile(7, 9, "T")])
    out = apply(state_with(["CAT"]*2), Play(placement), WORDS)
    assert out.verdict.message == "Only one word allowed"


def test_a_gap_filled_by_a_tile_on_the_board_is_one_word():
    s = play(state_with(["AT", "CS"], bag="EEEE"), "8H", "AT").state  # A on H8, T on I8
    out = play(s, "8G", "C..S")
    assert out.verdict.kind is VerdictKind.PLAYED
    assert out.verdict.words == ("CATS",)


def test_word_not_in_dictionary_names_the_word():
    out = play(state_with(["TAC", "CAT"]), "8H", "TAC")
    assert out.verdict.kind is VerdictKind.REFUSED
    assert out.verdict.message == "TAC is not in the dictionary"
    assert out.state.to_move == 0  # the player tries again


def test_an_invalid_cross_word_is_named():
    s = play(state_with(["CAT", "OX"], bag="EEE"), "8H", "CAT").state
    out = play(s, "9H", "OX")  # forms CO and AX: CO is not a word here
    assert out.verdict.message == "CO is not in the dictionary"


def test_playing_on_an_occupied_square_or_tiles_not_held_is_refused():
    s = play(state_with(["CAT", "DOG"], bag="EEE"), "8H", "CAT").state
    occupied = Placement.of([PlacedTile(7, 7, "D")])
    assert "already holds" in apply(s, Play(occupied), WORDS).verdict.message
    out = play(s, "H7", "Q.")
    assert out.verdict.message == "Those tiles are not on p2's rack"


# --- scoring ------------------------------------------------------------------------------------


def test_scores_letters_then_word_premiums_and_counts_premiums_once():
    s = play(state_with(["WINDY", "AEGL"], bag="EEEEEEEEE"), "8D", "WINDY").state
    assert s.players[0].score == 32
    out = play(s, "7C", "GALE")
    assert out.verdict.points == 16
    # WINDY's premiums (D8 double letter, H8 star) are not counted again by the cross words.
    assert [(w.word.text, w.score) for w in out.verdict.score.words] == [("GALE", 7), ("AW", 5), ("LI", 2), ("EN", 2)]


def test_blank_scores_zero_and_word_premium_still_applies():
    s = state_with(["?AT", "CAT"])
    placement = Placement.of([PlacedTile(7, 7, "C", blank=True), PlacedTile(7, 8, "A"), PlacedTile(7, 9, "T")])
    out = apply(s, Play(placement), WORDS)
    assert out.verdict.points == (0 + 1 + 1) * 2


def test_two_double_word_squares_multiply():
    # Row 2 has double word squares at B2 and N2: join them through eleven tiles on the board.
    from companion.core.board import STANDARD, Premium

    assert STANDARD.premium((1, 1)) is Premium.DW and STANDARD.premium((1, 13)) is Premium.DW
    board = Board().with_tiles([((1, c), Tile("X")) for c in range(2, 13)])
    from companion.core.words import score_word, words_formed
    from companion.core.tiles import get_tileset

    placement = Placement.of([PlacedTile(1, 1, "A"), PlacedTile(1, 13, "A")])
    (word,) = words_formed(board, placement)
    ws = score_word(board, word, get_tileset("en"))
    assert ws.multiplier == 4
    assert ws.score == (1 + 11 * 8 + 1) * 4


def test_triple_letter_and_triple_word():
    # First play can't reach a triple word; put tiles on the board and play to A1.
    board = Board().with_tiles([((0, 1), Tile("A")), ((7, 7), Tile("X"))])
    s = state_with(["ZQ", "AA"], board=board)
    out = play(s, "1A", "Z.")  # ZA: Z on A1 (triple word): (10 + 1) * 3
    assert out.verdict.points == 33


def test_all_seven_tiles_earn_fifty():
    out = play(state_with(["AEINRST", "CAT"], bag="EEEEEEE"), "8B", "RETAINS")
    expected = classic.score_play(Board(), placement_from_notation(Board(), "8B", "RETAINS"), out.state.tileset)
    assert expected.bonus == 50
    assert out.verdict.points == expected.total == (1 + 1 + 1 + 1 + 1 + 1 + 1 * 2) * 2 + 50


# --- passing, exchanging, drawing ---------------------------------------------------------------


def test_pass_scores_nothing_and_moves_on():
    out = apply(state_with(["CAT", "DOG"], bag="E"), Pass(), WORDS)
    assert out.verdict.kind is VerdictKind.PASSED
    assert out.state.to_move == 1 and out.state.players[0].score == 0


def test_exchange_draws_before_the_discards_go_back():
    s = state_with(["QQQ", "DOG"], bag="ABC")
    out = apply(s, Exchange("QQ"), WORDS)
    assert out.verdict.kind is VerdictKind.EXCHANGED
    rack = out.state.players[0].rack
    assert rack.count("Q") == 1 and len(rack) == 3
    assert out.state.bag_size == 3
    assert sorted(out.state.bag + rack) == sorted("QQQABC")


def test_exchange_needs_as_many_tiles_in_the_pool_by_default():
    s = state_with(["QQQ", "DOG"], bag="AB")
    assert apply(s, Exchange("QQ"), WORDS).verdict.kind is VerdictKind.EXCHANGED
    assert apply(s, Exchange("QQQ"), WORDS).verdict.message == "Only 2 tiles left in the bag: no exchange"


def test_tournament_exchange_needs_seven_in_the_bag():
    s = state_with(["QQQ", "DOG"], bag="ABCDEF", options=ClassicOptions.tournament())
    assert apply(s, Exchange("Q"), WORDS).verdict.kind is VerdictKind.REFUSED
    s = state_with(["QQQ", "DOG"], bag="ABCDEFG", options=ClassicOptions.tournament())
    assert apply(s, Exchange("Q"), WORDS).verdict.kind is VerdictKind.EXCHANGED


def test_exchange_of_tiles_not_on_the_rack_is_refused():
    s = state_with(["QQQ", "DOG"], bag="ABCDEFG")
    assert apply(s, Exchange("Z"), WORDS).verdict.message == "Those tiles are not on p1's rack"


def test_play_refills_the_rack_from_the_bag():
    s = state_with(["CATXXXX", "DOG"], bag="EFG")
    out = play(s, "8H", "CAT")
    assert out.state.players[0].rack_size == 7
    assert sorted(out.state.players[0].rack) == sorted("XXXXEFG")
    assert out.state.bag_size == 0


# --- end of game --------------------------------------------------------------------------------


def test_playing_out_takes_the_others_racks():
    s = state_with(["CAT", "QI", "ZA"], scores=[10, 20, 30])
    out = play(s, "8H", "CAT")
    assert out.state.over
    p1, p2, p3 = out.state.players
    # CAT on the star: (3+1+1)*2 = 10; QI = 11 and ZA = 11 come to p1.
    assert (p1.score, p2.score, p3.score) == (10 + 10 + 22, 20 - 11, 30 - 11)
    assert out.verdicts[-1].kind is VerdictKind.GAME_OVER


def test_game_ends_when_the_bag_is_empty_and_every_player_passes():
    s = state_with(["CAT", "QI"], scores=[5, 5])
    s = apply(s, Pass(), WORDS).state
    assert not s.over
    out = apply(s, Pass(), WORDS)
    assert out.state.over
    assert [p.score for p in out.state.players] == [5 - 5, 5 - 11]


def test_six_consecutive_scoreless_turns_end_the_game():
    s = state_with(["CAT", "DOG"], bag="ABCDEFGHIJKLMNOP")
    for i in range(5):
        s = apply(s, Pass() if i % 2 else Exchange(s.players[s.to_move].rack[0]), WORDS).state
        assert not s.over
    out = apply(s, Pass(), WORDS)
    assert out.state.over
    # Each loses their own rack; nobody went out, nobody gains.
    assert all(p.end_adjustment == -out.state.tileset.rack_value(p.rack) for p in out.state.players)


def test_a_scoring_play_resets_the_scoreless_count():
    s = state_with(["CAT", "DOG"], bag="ABCDEFGHIJKLMNOP")
    for _ in range(4):
        s = apply(s, Pass(), WORDS).state
    s = play(s, "8H", "CAT").state
    assert s.scoreless_turns == 0


def test_tie_break_goes_to_the_most_points_before_the_racks():
    s = state_with(["CAT", "QI"], scores=[30, 40])
    out = play(s, "8H", "CAT")  # p1: 30 + 10 + 11 = 51; p2: 40 - 11 = 29
    assert out.state.winners() == (0,)
    s = state_with(["AT", "A"], scores=[0, 6])
    # p1 plays AT (2*2=4) and goes out: 4 + 1 = 5 ... p2: 6 - 1 = 5. Before racks p2 had 6.
    out = play(s, "8H", "AT")
    assert [p.score for p in out.state.players] == [5, 5]
    assert out.state.winners() == (1,)


def test_a_full_tie_is_shared():
    s = state_with(["CAT", "QI"], scores=[0, 0])
    s = replace(s, players=(replace(s.players[0], rack=("A",), rack_size=1), replace(s.players[1], rack=("A",), rack_size=1)))
    s = apply(s, Pass(), WORDS).state
    out = apply(s, Pass(), WORDS)
    assert out.state.winners() == (0, 1)


# --- players and the first turn -----------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 5])
def test_two_to_four_players(n):
    with pytest.raises(CompanionError, match="2 to 4 players"):
        new_game([f"p{i}" for i in range(n)])


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_player_gets_seven_tiles(n):
    s = new_game([f"p{i}" for i in range(n)], seed=3)
    assert all(len(p.rack) == 7 for p in s.players)
    assert s.bag_size == 100 - 7 * n


def test_the_lowest_tile_starts_and_blanks_are_lowest():
    en = classic.get_tileset("en")
    assert classic.first_player(en, ["E", "?", "A"]) == (1,)
    assert classic.first_player(en, ["E", "B", "A"]) == (2,)
    assert classic.first_player(en, ["B", "E", "B"]) == (0, 2)
    de = classic.get_tileset("de")
    assert classic.first_player(de, ["B", "Ä"]) == (1,)
    assert classic.first_player(de, ["Ä", "A"]) == (1,)
    pl = classic.get_tileset("pl")
    assert classic.letter_order(pl)[:6] == ["?", "A", "Ą", "B", "C", "Ć"]
    assert classic.letter_order(pl)[-3:] == ["Z", "Ź", "Ż"]
    assert classic.first_player(pl, ["M", "Ł"]) == (1,) and classic.first_player(pl, ["Ł", "L"]) == (1,)


def test_drawing_for_first_turn_redraws_ties_and_is_reproducible():
    en = classic.get_tileset("en")
    starter, rounds = classic.draw_for_first_turn(en, 4, random.Random(11))
    assert (starter, rounds) == classic.draw_for_first_turn(en, 4, random.Random(11))
    last = rounds[-1]
    assert len(classic.first_player(en, last)) == 1
    for r in rounds[:-1]:
        assert len(classic.first_player(en, r)) > 1
    # Over many draws ties happen and every player sometimes starts.
    starters = {classic.draw_for_first_turn(en, 3, random.Random(i))[0] for i in range(200)}
    assert starters == {0, 1, 2}


# --- optional rules ---------------------------------------------------------------------------


def test_lose_turn_on_challenge():
    s = state_with(["TAC", "CAT"], options=ClassicOptions(lose_turn_on_challenge=True))
    out = play(s, "8H", "TAC")
    assert out.verdict.kind is VerdictKind.TURN_LOST
    assert out.verdict.message == "TAC is not in the dictionary"
    assert out.state.to_move == 1 and out.state.board.is_empty()
    assert out.state.players[0].rack == tuple(sorted("TAC"))


def test_trade_blanks():
    board = Board().with_tiles([((7, 7), Tile("C", blank=True)), ((7, 8), Tile("A")), ((7, 9), Tile("T"))])
    s = state_with(["CDO", "QI"], bag="EEE", board=board)
    assert apply(s, TradeBlank((7, 7)), WORDS).verdict.message == "The trade blanks rule is not in play"
    s = replace(s, options=ClassicOptions(trade_blanks=True))
    out = apply(s, TradeBlank((7, 7)), WORDS)
    assert out.verdict.kind is VerdictKind.BLANK_TRADED
    assert out.state.board[(7, 7)] == Tile("C")
    assert out.state.players[0].rack == tuple(sorted("?DO"))
    assert out.state.to_move == 0  # the turn goes on
    assert apply(s, TradeBlank((7, 8)), WORDS).verdict.kind is VerdictKind.REFUSED
    s2 = replace(s, players=(replace(s.players[0], rack=("D", "O"), rack_size=2),) + s.players[1:])
    assert "has no C" in apply(s2, TradeBlank((7, 7)), WORDS).verdict.message


def test_exchange_four_of_a_kind_keeps_the_turn():
    opts = ClassicOptions(exchange_four_of_a_kind=True)
    s = state_with(["IIIIABC", "DOG"], bag="EEEEEEEEEE", options=opts)
    out = apply(s, Exchange("IIIIABC", four_of_a_kind=True), WORDS)
    assert out.verdict.kind is VerdictKind.EXCHANGED
    assert out.state.to_move == 0 and out.state.scoreless_turns == 0
    assert len(out.state.players[0].rack) == 7
    three = state_with(["IIIABCD", "DOG"], bag="EEEEEEEEEE", options=opts)
    assert apply(three, Exchange("IIIABCD", four_of_a_kind=True), WORDS).verdict.kind is VerdictKind.REFUSED
    part = apply(s, Exchange("IIII", four_of_a_kind=True), WORDS)
    assert part.verdict.message == "Four of a kind: the whole rack is exchanged"
    off = state_with(["IIIIABC", "DOG"], bag="EEEEEEEEEE")
    assert apply(off, Exchange("IIIIABC", four_of_a_kind=True), WORDS).verdict.kind is VerdictKind.REFUSED


# --- challenge modes ----------------------------------------------------------------------------


def challengeable(mode, racks=("TAC", "DOG"), bag="EEE"):
    return state_with(list(racks), bag=bag, options=ClassicOptions(challenge=mode))


def test_void_mode_has_nothing_to_challenge():
    s = challengeable(ChallengeMode.VOID, racks=("CAT", "DOG"))
    s = play(s, "8H", "CAT").state
    assert apply(s, Challenge(by=1), WORDS).verdict.kind is VerdictKind.REFUSED


@pytest.mark.parametrize("mode", [ChallengeMode.SINGLE, ChallengeMode.DOUBLE, ChallengeMode.FIVE_POINTS])
def test_a_challenged_phony_comes_off_and_the_turn_is_lost(mode):
    s = challengeable(mode)
    played = play(s, "8H", "TAC")
    assert played.verdict.kind is VerdictKind.PLAYED and played.state.players[0].score == 10
    out = apply(played.state, Challenge(by=1), WORDS)
    assert out.verdict.kind is VerdictKind.WITHDRAWN
    assert out.verdict.message == "TAC is not in the dictionary"
    st = out.state
    assert st.board.is_empty() and st.players[0].score == 0
    assert st.players[0].rack == tuple(sorted("TAC")) and st.bag == tuple("EEE")
    assert st.to_move == 1 and st.scoreless_turns == 1


def test_single_challenge_of_a_good_word_costs_nothing():
    s = play(challengeable(ChallengeMode.SINGLE, racks=("CAT", "DOG")), "8H", "CAT").state
    out = apply(s, Challenge(by=1), WORDS)
    assert out.verdict.kind is VerdictKind.CHALLENGE_FAILED
    assert out.state.to_move == 1 and out.state.players[0].score == 10


def test_double_challenge_of_a_good_word_costs_the_challenger_a_turn():
    s = play(challengeable(ChallengeMode.DOUBLE, racks=("CAT", "DOG")), "8H", "CAT").state
    out = apply(s, Challenge(by=1), WORDS)
    assert out.verdict.kind is VerdictKind.CHALLENGE_FAILED
    assert out.state.to_move == 0
    assert out.state.scoreless_turns == 1


def test_double_challenge_by_a_later_player_skips_their_next_turn():
    s = play(challengeable(ChallengeMode.DOUBLE, racks=("CAT", "DOG", "QI")), "8H", "CAT").state
    out = apply(s, Challenge(by=2), WORDS)
    assert out.state.players[2].lose_next_turn
    s = apply(out.state, Pass(), WORDS).state  # p2 passes; p3 sits out; back to p1
    assert s.to_move == 0 and not s.players[2].lose_next_turn


def test_five_points_per_word_for_a_wrong_challenge():
    lexicon = WORDS | {"CO"}
    s = challengeable(ChallengeMode.FIVE_POINTS, racks=("CAT", "OX"), bag="EEEEE")
    s = apply(play(s, "8H", "CAT", lexicon).state, Accept(), lexicon).state
    placed = play(s, "9H", "OX", lexicon)  # OX, with CO and AX down
    assert placed.verdict.words == ("OX", "CO", "AX")
    out = apply(placed.state, Challenge(by=0), lexicon)
    assert out.verdict.kind is VerdictKind.CHALLENGE_FAILED
    assert out.verdict.points == 15
    assert out.state.players[1].score == placed.state.players[1].score + 15


def test_only_an_opponent_may_challenge_and_only_the_last_play():
    s = play(challengeable(ChallengeMode.SINGLE, racks=("CAT", "DOG")), "8H", "CAT").state
    assert apply(s, Challenge(by=0), WORDS).verdict.message == "Only an opponent can challenge a play"
    s = apply(s, Pass(), WORDS).state  # p2 passes: the window on CAT has closed
    assert apply(s, Challenge(by=1), WORDS).verdict.message == "There is no play to challenge"


def test_going_out_with_a_phony_can_be_challenged_before_the_game_ends():
    s = challengeable(ChallengeMode.SINGLE, racks=("TAC", "QI"), bag="")
    played = play(s, "8H", "TAC")
    assert not played.state.over
    out = apply(played.state, Challenge(by=1), WORDS)
    assert not out.state.over and out.state.players[0].rack == tuple(sorted("TAC"))
    good = play(challengeable(ChallengeMode.SINGLE, racks=("CAT", "QI"), bag=""), "8H", "CAT")
    ended = apply(good.state, Accept(), WORDS)
    assert ended.state.over and ended.state.went_out == 0


# --- private racks (a real tournament board) -----------------------------------------------------


def test_private_racks_are_counted_and_told_at_the_end():
    s = new_game(["a", "b", "c"], track_tiles=False)
    assert s.bag is None and s.bag_size == 100 - 21
    s = play(s, "8H", "CAT").state  # the player's tiles are not known: not checked
    assert s.players[0].rack_size == 7 and s.bag_size == 100 - 21 - 3
    s = replace(s, bag_size=0, scoreless_turns=5)
    out = apply(s, Pass(), WORDS)
    assert out.state.awaiting_racks and not out.state.over
    assert apply(out.state, Pass(), WORDS).verdict.kind is VerdictKind.REFUSED
    bad = apply(out.state, RevealRacks(("ABC", "DEF", "GHI")), WORDS)
    assert "should have 7 tiles" in bad.verdict.message
    done = apply(out.state, RevealRacks(("AEIOUQZ", "BCDFGHJ", "KLMNPRS")), WORDS)
    assert done.state.over
    assert done.state.players[0].end_adjustment == -(1 + 1 + 1 + 1 + 1 + 10 + 10)


def test_with_private_racks_the_last_rack_is_the_tiles_not_on_the_board():
    board = Board()
    en = classic.get_tileset("en")
    # Lay every tile but Q, Z and one blank on a board of our own (squares do not matter here).
    remaining = en.bag() - classic.Counter({"Q": 1, "Z": 1, "?": 1})
    squares = iter((r, c) for r in range(15) for c in range(15))
    tiles = []
    for letter in remaining.elements():
        tiles.append((next(squares), Tile("E", blank=True) if letter == "?" else Tile(letter)))
    board = board.with_tiles(tiles)
    s = new_game(["a", "b"], track_tiles=False)
    s = replace(
        s, board=board, bag_size=0,
        players=(replace(s.players[0], rack_size=0), replace(s.players[1], rack_size=3)),
        went_out=0,
    )
    state, verdicts = classic._end(s, ())
    assert state.over
    assert state.players[1].end_adjustment == -20 and state.players[0].end_adjustment == 20
