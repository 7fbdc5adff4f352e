"""Every rule of the stacking game (rules/003), one test each, the text's own examples among them:
JUMP across SUM scores 15, a 4-point tile on TL 12, MEN 12, SAT may become SIT but not SAT."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from companion.core.board import Layout, Tile
from companion.core.move import PlacedTile, Placement, placement_from_notation
from companion.core.stacks import StackBoard
from companion.core.tiles import BLANK, get_tileset
from companion.core.errors import CompanionError
from companion.rules import stacking
from companion.rules.common import NO_EMPTY_SQUARE, NOT_CONNECTED, NOT_ON_CENTRE, TOO_SHORT
from companion.rules.stacking import (
    Buy,
    Concede,
    EndReason,
    GameLength,
    Pass,
    Play,
    PremiumRule,
    PriceRule,
    RainbowRule,
    Redraw,
    StackingOptions,
    VerdictKind,
    apply,
    new_game,
    pool_counts,
    price,
)

WORDS = set(
    "JUMP SUM MEN MET NO SAT SIT IT AT ITS HA FLASH CAT CATS TO TA"
    " OX AX ZA QI ON DO GO GOD DOG AS HAT OAT MAT".split()
)


def square(name: str) -> tuple[int, int]:
    return (int(name[1:]) - 1, ord(name[0]) - ord("A"))


def stacks(spec: dict[str, str], layout=None) -> StackBoard:
    """Stacks by square name (``H8``), bottom first; lower case a wild."""
    board = {square(k): tuple(Tile(ch.upper(), blank=ch.islower()) for ch in v) for k, v in spec.items()}
    return StackBoard(layout, board) if layout is not None else StackBoard(stacks=board)


def state_with(
    racks,
    board=None,
    *,
    rainbow=(),
    rainbows=None,
    pool="EEEEEEEEEEEEEEEEEEEE",
    market="XYZ",
    scores=None,
    purchases=None,
    to_move=0,
    options=StackingOptions(),
):
    """A game at a chosen position: racks, pool and marketplace as the test says."""
    s = new_game([f"p{i + 1}" for i in range(len(racks))], options, seed=7)
    players = tuple(
        replace(
            p,
            rack=tuple(sorted(r)),
            rainbows=tuple(sorted((rainbows or [""] * len(racks))[i])),
            score=(scores or [0] * len(racks))[i],
            purchases=(purchases or [0] * len(racks))[i],
        )
        for i, (p, r) in enumerate(zip(s.players, racks))
    )
    return replace(
        s,
        players=players,
        board=board if board is not None else StackBoard(options.layout),
        rainbow=frozenset(square(x) for x in rainbow),
        pool=tuple(pool),
        market=tuple(sorted(market)),
        to_move=to_move,
    )


def play(state, move, *, stacked=(), rainbow=(), lexicon=WORDS):
    """``move`` as GCG writes it (``5F J.MP``); ``stacked`` the squares where a tile goes on a tile."""
    pos, word = move.split()
    placement = placement_from_notation(state.board.top, pos, word, {square(s) for s in stacked})
    return apply(state, Play(placement, frozenset(square(s) for s in rainbow)), lexicon)


def word_scores(out):
    return {w.word.text: w.score for w in out.verdict.score.words}


# --- the text's examples -----------------------------------------------------------------------


def test_jump_across_sum_scores_15_and_sum_is_not_rescored():
    board = stacks({"G4": "S", "G5": "U", "G6": "M"})
    out = play(state_with(["JMPAEIO"], board), "5F J.MP")
    assert out.verdict.kind is VerdictKind.PLAYED, out.verdict.message
    assert word_scores(out) == {"JUMP": 15}
    assert out.state.players[0].score == 15


def test_a_four_point_tile_on_triple_letter_scores_12_before_word_bonuses():
    # FLA.H on row 2: F on a double word, H (4 points) on a triple letter at F2.
    board = stacks({"E2": "S"})
    out = play(state_with(["FLAHEIO"], board), "2B FLA.H")
    (flash,) = out.verdict.score.words
    assert flash.base.points == (4, 1, 1, 1, 12)  # the H: 4 x 3 = 12
    assert flash.base.multiplier == 2 and flash.score == (4 + 1 + 1 + 1 + 12) * 2 == 38


def test_men_m_stacked_third_n_second_scores_12():
    # MET lies on row 5 with the M on a stack of three; N goes on the T (second) and O below it.
    board = stacks({"F5": "AOM", "G5": "E", "H5": "T"})
    out = play(state_with(["NOAEIRS"], board), "H5 NO", stacked=["H5"])
    assert out.verdict.kind is VerdictKind.PLAYED, out.verdict.message
    men = next(w for w in out.verdict.score.words if w.word.text == "MEN")
    assert men.heights == (3, 1, 2)
    assert men.base.points == (9, 1, 2) and men.score == 12  # M3 x3 + E1 + N1 x2
    assert word_scores(out) == {"MEN": 12, "NO": 1 * 2 + 1}
    assert out.state.board.height(square("H5")) == 2


def test_a_wild_on_the_a_of_sat_may_make_sit():
    board = stacks({"F5": "S", "G5": "A", "H5": "T"})
    out = play(state_with(["?TEEIOU"], board), "G5 iT", stacked=["G5"])
    assert out.verdict.kind is VerdictKind.PLAYED, out.verdict.message
    # The wild scores nothing at any height: SIT 1 + 0 + 1, IT 0 + 1.
    assert word_scores(out) == {"SIT": 2, "IT": 1}
    assert out.state.board[square("G5")] == (Tile("A"), Tile("I", blank=True))


def test_a_wild_on_the_a_of_sat_may_not_make_sat_again():
    board = stacks({"F5": "S", "G5": "A", "H5": "T"})
    s = state_with(["?TEEIOU"], board)
    out = play(s, "G5 aT", stacked=["G5"])
    assert out.verdict.kind is VerdictKind.REFUSED
    assert out.verdict.message == stacking.WILD_SAME_LETTER
    assert out.state == s


def test_a_real_tile_may_cover_the_same_letter_unless_the_option_forbids_it():
    board = stacks({"F5": "S", "G5": "A", "H5": "T"})
    out = play(state_with(["ATEEIOU"], board), "G5 AT", stacked=["G5"])
    assert word_scores(out) == {"SAT": 1 + 2 + 1, "AT": 2 + 1}
    strict = StackingOptions(same_letter=False)
    out = play(state_with(["ATEEIOU"], board, options=strict), "G5 AT", stacked=["G5"])
    assert out.verdict.message == stacking.SAME_LETTER


# --- words and placing -------------------------------------------------------------------------


def test_every_changed_word_must_be_a_word():
    board = stacks({"F5": "S", "G5": "A", "H5": "T"})
    # OT is a word here, SOT is not.
    out = play(state_with(["OTEEIUA"], board), "G5 OT", stacked=["G5"], lexicon=WORDS | {"OT"})
    assert out.verdict.kind is VerdictKind.REFUSED and out.verdict.message == "SOT is not in the dictionary"


def test_the_first_turn_covers_the_start_square_with_two_letters_or_more():
    s = state_with(["CATSEIO", "DOGAEIU"])
    assert play(s, "7H CAT").verdict.message == NOT_ON_CENTRE
    one = Placement.of([PlacedTile(7, 7, "C")])
    assert apply(s, Play(one), WORDS).verdict.message == TOO_SHORT
    out = play(s, "8G CAT")
    assert out.verdict.kind is VerdictKind.PLAYED
    # C on H8? No: 8G puts C on G8, A on the star (a double word), T on I8.
    assert out.verdict.points == (3 + 1 + 1) * 2


def test_later_plays_connect_to_the_board():
    board = stacks({"G8": "C", "H8": "A", "I8": "T"})
    out = play(state_with(["DOGAEIU"], board), "2B DOG")
    assert out.verdict.message == NOT_CONNECTED


def test_a_tile_on_a_tile_connects_and_is_a_legal_part_of_the_line():
    board = stacks({"G8": "C", "H8": "A", "I8": "T"})
    out = play(state_with(["OASEIUX"], board), "8G O..S", stacked=["G8"])  # OATS? not a word here
    assert out.verdict.kind is VerdictKind.REFUSED and "OATS" in out.verdict.message
    out = play(state_with(["MSEIUXO"], board), "8G M..S", stacked=["G8"], lexicon=WORDS | {"MATS"})
    assert out.verdict.kind is VerdictKind.PLAYED
    assert word_scores(out) == {"MATS": 3 * 2 + 1 + 1 + 1}


def test_each_turn_places_a_tile_on_an_empty_square():
    board = stacks({"F5": "S", "G5": "A", "H5": "T"})
    out = play(state_with(["IEEOUAT"], board), "5G I", stacked=["G5"])
    assert out.verdict.message == NO_EMPTY_SQUARE


def test_a_turn_may_not_cover_a_whole_word():
    board = stacks({"F5": "A", "G5": "T"})
    out = play(state_with(["ITSEOUA"], board), "5F ITS", stacked=["F5", "G5"])
    assert out.verdict.kind is VerdictKind.REFUSED
    assert out.verdict.message == "You cannot completely cover the word AT in one turn"
    # Leaving one of its tiles in sight is fine: ITS over A T with the T kept.
    out = play(state_with(["ISEOUAT"], board), "5F I.S", stacked=["F5"])
    assert out.verdict.kind is VerdictKind.PLAYED, out.verdict.message


def test_the_stack_height_option_limits_stacks():
    board = stacks({"F5": "S", "G5": "AOA", "H5": "T"})
    out = play(state_with(["ITEEOUA"], board, options=StackingOptions(max_height=3)), "G5 IT", stacked=["G5"])
    assert out.verdict.message == "A stack holds at most 3 tiles"


def test_tiles_must_be_on_the_rack():
    board = stacks({"F5": "S", "G5": "A", "H5": "T"})
    out = play(state_with(["EEEEEEE"], board), "G5 IT", stacked=["G5"])
    assert out.verdict.message == "Those tiles are not on p1's rack"


# --- premiums under stacks ---------------------------------------------------------------------


def test_a_premium_counts_for_the_first_tile_on_it_only_by_default():
    # F2 is a triple letter; HA down column F with the H stacked on an O that covered F2 before.
    board = stacks({"F2": "O", "F3": "A"})
    s = state_with(["HEEIOUA"], board)
    out = play(s, "F2 HAE", stacked=["F2"], lexicon=WORDS | {"HAE"})  # H on the O, A kept, E below
    assert out.verdict.kind is VerdictKind.PLAYED, out.verdict.message
    hae = out.verdict.score.words[0]
    assert hae.base.points == (4 * 2, 1, 1) and hae.score == 10
    again = StackingOptions(premiums=PremiumRule.EVERY_TILE)
    out = play(
        state_with(["HEEIOUA"], board, options=again), "F2 HAE", stacked=["F2"], lexicon=WORDS | {"HAE"}
    )
    assert out.verdict.score.words[0].base.points == (4 * 2 * 3, 1, 1)


# --- rainbow tiles -----------------------------------------------------------------------------


def test_a_rainbow_tile_doubles_the_words_it_is_laid_in():
    board = stacks({"F5": "S", "G5": "A"})
    s = state_with(["TEEIOUA"], board, rainbows=["T"])
    out = play(s, "5F ..T", rainbow=["H5"])
    assert word_scores(out) == {"SAT": 3 * 2}
    assert out.state.rainbow == {square("H5")}
    assert out.state.players[0].rainbows == ()


def test_a_rainbow_doubles_again_in_a_later_turn_and_stops_once_covered():
    board = stacks({"F5": "S", "G5": "A", "H5": "T"})
    s = state_with(["SEEIOUA", "IOEEUAM"], board, rainbow=["H5"], to_move=0)
    later = play(s, "5F ...S", lexicon=WORDS | {"SATS"})  # SATS holds the rainbow T: doubled
    assert word_scores(later) == {"SATS": (1 + 1 + 1 + 1) * 2}
    covered = play(later.state, "H5 MO", stacked=["H5"], lexicon=WORDS | {"SAMS", "MO"})
    assert word_scores(covered) == {"MO": 2 * 3 + 1, "SAMS": 1 + 1 + 6 + 1}
    assert covered.state.rainbow == frozenset()


def test_two_rainbow_tiles_double_twice_or_once_by_the_option():
    board = stacks({"F5": "S", "G5": "A"})
    s = state_with(["TEEIOUA"], board, rainbow=["F5"], rainbows=["T"])
    assert word_scores(play(s, "5F ..T", rainbow=["H5"])) == {"SAT": 3 * 4}
    once = StackingOptions(rainbows=RainbowRule.ONCE)
    s = state_with(["TEEIOUA"], board, rainbow=["F5"], rainbows=["T"], options=once)
    assert word_scores(play(s, "5F ..T", rainbow=["H5"])) == {"SAT": 3 * 2}


def test_a_rainbow_must_be_on_the_rack_and_a_played_rainbow_must_be_named():
    board = stacks({"F5": "S", "G5": "A"})
    out = play(state_with(["TEEIOUA"], board), "5F ..T", rainbow=["H5"])
    assert out.verdict.message == "p1 has no rainbow T on the rack"
    out = play(state_with(["TEEIOUA"], board, rainbows=["T"]), "5F ..T")
    assert out.verdict.message == "p1's T is a rainbow tile: say which square it is laid on"


def test_a_wild_is_never_rainbow():
    board = stacks({"F5": "S", "G5": "A"})
    out = play(state_with(["?EEIOUA"], board), "5F ..t", rainbow=["H5"])
    assert out.verdict.message == "A wild tile cannot be rainbow"


def test_every_opening_rack_has_one_rainbow_among_its_non_wild_tiles():
    for seed in range(60):
        s = new_game(["a", "b", "c", "d"], seed=seed)
        for p in s.players:
            assert len(p.rainbows) == 1 and p.rainbows[0] != BLANK
            assert Counter(p.rainbows) <= Counter(p.rack)


def test_later_draws_are_rainbow_one_time_in_fourteen_never_a_wild():
    s = state_with(["ABCDEFG"], scores=[100000], pool=list(pool_counts(get_tileset("en"), 100).elements()))
    rainbow = drawn = 0
    for _ in range(700):
        out = apply(s, Redraw(), WORDS)
        v = out.verdict
        assert v.kind is VerdictKind.REDRAWN
        assert BLANK not in v.drawn_rainbows
        drawn += sum(1 for t in v.drawn if t != BLANK)
        rainbow += len(v.drawn_rainbows)
        s = replace(out.state, to_move=0, over=False)
    # 4900 tiles, about 4800 of them not wild: 1/14 is 343 +- 18 (one standard deviation).
    assert abs(rainbow / drawn - 1 / 14) < 4 * (1 / 14 * 13 / 14 / drawn) ** 0.5


# --- the marketplace ---------------------------------------------------------------------------


def test_prices_are_5_10_15_25_40_then_the_sum_of_the_two_before_or_capped():
    assert [price(n) for n in range(8)] == [5, 10, 15, 25, 40, 65, 105, 170]
    assert [price(n, PriceRule.CAPPED) for n in range(8)] == [5, 10, 15, 25, 40, 40, 40, 40]


def test_purchases_cost_each_players_own_count_and_go_to_the_rack():
    s = state_with(["EEEEEEE", "IIIIIII"], pool="ABCDEFGHIJKLMNOPQRST", market="XYZ", scores=[100, 50])
    paid = []
    for letter in "XYZA":
        out = apply(s, Buy(letter), WORDS)
        assert out.verdict.kind is VerdictKind.BOUGHT, out.verdict.message
        paid.append(-out.verdict.points)
        s = out.state
    assert paid == [5, 10, 15, 25]
    me = s.players[0]
    assert me.score == 100 - 55 and me.purchases == 4 and s.next_price(0) == 40
    assert Counter("XYZA") <= Counter(me.rack) and me.rainbows == ()  # bought tiles are never rainbow
    assert s.to_move == 0  # buying does not end the turn
    assert len(s.market) == 3 and s.next_price(1) == 5  # the other player's count is their own


def test_a_purchase_beyond_the_score_is_refused():
    s = state_with(["EEEEEEE", "IIIIIII"], market="XYZ", scores=[14, 0], purchases=[2, 0])
    out = apply(s, Buy("X"), WORDS)
    assert out.verdict.kind is VerdictKind.REFUSED
    assert out.verdict.message == "X costs 15 points and p1 has 14: you cannot buy below zero"
    assert out.state == s
    assert apply(s, Buy("Q"), WORDS).verdict.message == "There is no Q in the marketplace"


def test_a_wild_never_enters_the_marketplace():
    s = state_with(["EEEEEEE", "IIIIIII"], pool="??A?BC", market="XYZ", scores=[10, 0])
    out = apply(s, Buy("X"), WORDS)
    assert out.verdict.restocked == ("A",)
    assert out.state.market == ("A", "Y", "Z")
    assert Counter(out.state.pool) == Counter("???BC")


def test_a_bought_tile_can_be_played_the_same_turn():
    board = stacks({"F5": "S", "G5": "A"})
    s = state_with(["EEEEEEE"], board, market="TXY", scores=[5])
    s = apply(s, Buy("T"), WORDS).state
    out = play(s, "5F ..T")
    assert out.verdict.kind is VerdictKind.PLAYED and out.state.players[0].score == 0 + 3


# --- redraw, pass, concede and the ends --------------------------------------------------------


def test_a_redraw_costs_5_points_replaces_the_rack_and_ends_the_turn():
    s = state_with(["ABCDEFG", "IIIIIII"], scores=[7, 0], pool="HIJKLMNOPQRSTUVW")
    out = apply(s, Redraw(), WORDS)
    assert out.verdict.kind is VerdictKind.REDRAWN
    me = out.state.players[0]
    assert me.score == 2 and len(me.rack) == 7 and out.state.to_move == 1
    assert Counter(out.state.pool) + Counter(me.rack) == Counter("ABCDEFGHIJKLMNOPQRSTUVW")
    assert apply(out.state, Redraw(), WORDS).verdict.message == "A redraw costs 5 points and p2 has 0"


def test_every_player_passing_in_a_row_ends_the_game():
    s = state_with(["EEEEEEE", "IIIIIII", "OOOOOOO"], scores=[3, 9, 1])
    s = apply(s, Pass(), WORDS).state
    s = apply(s, Pass(), WORDS).state
    out = apply(s, Pass(), WORDS)
    assert out.state.over and out.state.end is EndReason.ALL_PASSED
    assert out.verdicts[-1].kind is VerdictKind.GAME_OVER and out.state.winners() == (1,)


def test_a_play_between_passes_starts_the_count_again():
    board = stacks({"F5": "S", "G5": "A"})
    s = state_with(["TEEEEEE", "IIIIIII"], board)
    s = apply(s, Pass(), WORDS).state
    s = apply(s, Pass(), WORDS).state  # would end it: two of two
    assert s.over
    s = state_with(["TEEEEEE", "IIIIIII"], board, to_move=1)
    s = apply(s, Pass(), WORDS).state
    s = play(s, "5F ..T").state
    s = apply(s, Pass(), WORDS).state
    assert not s.over


def test_a_turn_that_empties_the_pool_ends_the_game():
    board = stacks({"F5": "S", "G5": "A"})
    out = play(state_with(["TEEEEEE", "IIIIIII"], board, pool="O"), "5F ..T")
    assert out.state.pool == () and out.state.over and out.state.end is EndReason.POOL_EMPTY


def test_covering_every_square_ends_the_game():
    tiny = Layout.from_text("tiny", "...\n.*.\n...")
    board = stacks(
        {"A1": "T", "B1": "O", "C1": "O", "A2": "A", "B2": "T", "C2": "E", "A3": "X", "B3": "I"}, layout=tiny
    )
    options = StackingOptions(layout=tiny)
    out = play(state_with(["SEEEEEE", "IIIIIII"], board, options=options), "C3 S", lexicon={"XIS", "OES"})
    assert out.verdict.kind is VerdictKind.PLAYED, out.verdict.message
    assert out.state.over and out.state.end is EndReason.BOARD_FULL


def test_on_a_play_area_a_tile_outside_it_is_refused_and_covering_it_ends_the_game():
    # The centre 3x3 squares of the standard board, G7 to I9 (the option `area`): the table's
    # short game, where "every square is covered" is reachable.
    options = StackingOptions(area=3)
    assert options.area_text == "the centre 3x3 squares, G7 to I9"
    board = stacks({"G7": "T", "H7": "O", "I7": "O", "G8": "A", "H8": "T", "I8": "E", "G9": "X", "H9": "I"})
    s = state_with(["SEEEEEE", "IIIIIII"], board, options=options)
    out = play(s, "J9 S", lexicon={"XIS", "OES"})  # the square beside the area's corner
    assert out.verdict.kind is VerdictKind.REFUSED
    assert out.verdict.message == "J9 is outside the play area (the centre 3x3 squares, G7 to I9)"
    out = play(s, "I9 S", lexicon={"XIS", "OES"})
    assert out.verdict.kind is VerdictKind.PLAYED, out.verdict.message
    assert out.state.over and out.state.end is EndReason.BOARD_FULL
    # The same eight tiles on the whole board leave 216 squares empty: the game goes on.
    whole = play(state_with(["SEEEEEE", "IIIIIII"], board), "I9 S", lexicon={"XIS", "OES"})
    assert whole.verdict.kind is VerdictKind.PLAYED and not whole.state.over


@pytest.mark.parametrize("area", [1, 2, 4, 17, True, "5"])
def test_a_play_area_is_an_odd_number_of_squares_that_fits(area):
    with pytest.raises(CompanionError, match="the play area is an odd number of squares from 3 to 15"):
        new_game(["a", "b"], StackingOptions(area=area))


def test_a_player_who_concedes_leaves_and_the_others_play_on():
    s = state_with(["EEEEEEE", "IIIIIII", "OOOOOOO"], scores=[50, 9, 1], pool="AB")
    out = apply(s, Concede(0), WORDS)
    assert out.verdict.kind is VerdictKind.CONCEDED and not out.state.over
    s = out.state
    assert s.to_move == 1 and s.players[0].rack == () and Counter(s.pool) == Counter("ABEEEEEEE")
    s = apply(s, Pass(), WORDS).state
    assert s.to_move == 2
    s = apply(s, Pass(), WORDS).state  # both players still in have passed
    assert s.over and s.end is EndReason.ALL_PASSED and s.winners() == (1,)  # not the conceder's 50


def test_when_all_but_one_concede_the_last_one_wins():
    s = state_with(["EEEEEEE", "IIIIIII", "OOOOOOO"], scores=[50, 9, 1])
    s = apply(s, Concede(1), WORDS).state
    out = apply(s, Concede(0), WORDS)
    assert out.state.over and out.state.end is EndReason.CONCEDED and out.state.winners() == (2,)
    assert apply(out.state, Pass(), WORDS).verdict.message == "The game is over"


# --- pools, game lengths and replay ------------------------------------------------------------


@pytest.mark.parametrize(
    "length, size", [(GameLength.SHORT, 60), (GameLength.NORMAL, 100), (GameLength.LONG, 150)]
)
def test_the_game_length_sets_the_pool(length, size):
    options = StackingOptions(length=length)
    counts = pool_counts(get_tileset("en"), options.pool_size)
    assert counts.total() == size and all(counts[k] >= 1 for k in get_tileset("en").alphabet)
    assert counts[BLANK] >= 1  # wild tiles are in the pool from the start
    s = new_game(["a", "b", "c"], options, seed=1)
    in_play = Counter(s.pool) + Counter(s.market)
    for p in s.players:
        in_play.update(p.rack)
    assert in_play == counts and BLANK not in s.market


def test_the_normal_pool_is_the_tile_set():
    assert pool_counts(get_tileset("en"), 100) == get_tileset("en").bag()


def test_a_pool_too_small_for_every_letter_is_refused():
    with pytest.raises(CompanionError):
        pool_counts(get_tileset("en"), 10)


def test_the_same_seed_and_actions_replay_the_same_game():
    # Whole games between computer players are dealt again from their records' seeds in
    # test_stacking_properties.py; here the deal and a few turns.
    def game(seed):
        s = new_game(["a", "b", "c"], seed=seed)
        for action in (Pass(), Pass()):
            s = apply(s, action, WORDS).state
        return s

    assert game(5) == game(5)
    assert new_game(["a", "b"], seed=5).pool != new_game(["a", "b"], seed=6).pool


class Scripted:
    """Randomness injected by a test: every draw from one fixed stream."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def stream(self, n: int):
        import random

        return random.Random(self.seed * 1000 + n)


def test_randomness_is_injected():
    a = new_game(["a", "b"], randomness=Scripted(3))
    b = new_game(["a", "b"], randomness=Scripted(3))
    assert a.pool == b.pool and a.players == b.players
    assert a.pool != new_game(["a", "b"], seed=3).pool


def test_a_word_score_is_explained_as_the_text_writes_it():
    board = stacks({"F5": "AOM", "G5": "E", "H5": "T"})
    out = play(state_with(["NOAEIRS"], board), "H5 NO", stacked=["H5"])
    men = next(w for w in out.verdict.score.words if w.word.text == "MEN")
    assert stacking.explain(men, get_tileset("en")) == "MEN: M3 x3 + E1 + N1 x2 = 12"
    board = stacks({"E2": "S"})
    (flash,) = play(state_with(["FLAHEIO"], board, rainbow=["E2"]), "2B FLA.H").verdict.score.words
    assert (
        stacking.explain(flash, get_tileset("en")) == "FLASH: (F4 + L1 + A1 + S1 + H4 TL) x2 x2 rainbow = 76"
    )


# --- rainbow tokens at a real table ------------------------------------------------------------


def test_tokens_mark_the_rainbow_tiles_laid_and_any_other_token_is_a_question():
    board = stacks({"F5": "S", "G5": "A", "H5": "T"})
    s = state_with(["SEEIOUA"], board, rainbow=["H5"], rainbows=["S"])
    placement = placement_from_notation(s.board.top, "5F", "...S")
    # The S laid on I5 carries a token, the old rainbow T keeps its own.
    assert stacking.read_tokens(s, placement, [square("I5"), square("H5")]) == (frozenset({square("I5")}), ())
    # A token on the plain S of F5; the rainbow T without its token.
    laid, questions = stacking.read_tokens(s, placement, [square("F5")])
    assert laid == frozenset() and questions == (
        "a token on F5, which holds no rainbow tile: take it off",
        "the rainbow tile on H5 has lost its token: put it back",
    )
    # A tile put on the rainbow T with the token left on it, when the tile is not a rainbow one.
    cover = placement_from_notation(s.board.top, "H5", "EA", {square("H5")})
    laid, questions = stacking.read_tokens(s, cover, [square("H5")])
    assert questions == ("the rainbow tile on H5 is covered: take its token off",)
    assert stacking.read_tokens(s, None, []) == (
        frozenset(),
        ("the rainbow tile on H5 has lost its token: put it back",),
    )


def test_a_pool_too_small_to_deal_is_refused():
    with pytest.raises(CompanionError, match="cannot deal 4 racks of 7"):
        new_game(["a", "b", "c", "d"], StackingOptions(pool_sizes=(30, 100, 150), length=GameLength.SHORT))
    with pytest.raises(CompanionError, match="same name"):
        new_game(["a", "a"])
