"""The dungeon's rules, one test per rule, driven as the table will: a set-up, readings built by
hand (CellReading values from a board of tiles moved as a player's hands move them), actions."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core.tiles import get_tileset
from companion.engine.dawg import build
from companion.engine.movegen import Generator
from companion.core.errors import CompanionError
from companion.rules import dungeon as d
from companion.rules.dungeon import (
    ASK,
    BURNED,
    DEAD,
    ESCAPED,
    EXTRA_DEAD,
    FIXED,
    MONSTER,
    PLAYED,
    REFILLED,
    REFUSED,
    REVEALED,
    TRAPPED,
    TREASURE,
    Burn,
    Move,
    Refill,
    apply,
    new_game,
    remember_monsters,
)
from tests.rules.dungeon_scripts import WORDS, edges
from tests.rules.dungeon_table import PhysicalBoard, one, setup_of, wall


@pytest.fixture(scope="module")
def generator():
    ts = get_tileset("en")
    return Generator(build(WORDS, ts.alphabetical()), ts)


def start(*obstacles, letters=None, rack=None):
    """A game on a hand-made set-up; every obstacle tile's letter from ``letters`` (default E)."""
    setup = setup_of(*obstacles, *edges())
    names = {s: "E" for o in setup.obstacles for s in o.squares}
    names.update(letters or {})
    board = PhysicalBoard.laid_out(setup, names)
    return new_game(setup, board.reading(), rack=rack), board


def move(state, board, **kw):
    return apply(state, Move(board.reading(), **kw), WORDS)


# --- the first word, directions, where tiles may go ------------------------------------------


def test_the_first_word_begins_at_the_top_left_corner():
    state, board = start()
    board.place((1, 1), "CAT")
    out = move(state, board)
    assert out.verdict.kind == REFUSED and out.verdict.message == d.FIRST_WORD_AT_CORNER
    assert out.state is state
    for across in (True, False):
        state, board = start()
        board.place((0, 0), "CAT", across)
        out = move(state, board)
        assert out.verdict.kind == PLAYED and out.verdict.words == ("CAT",)
        assert out.state.network == ({(0, 0), (0, 1), (0, 2)} if across else {(0, 0), (1, 0), (2, 0)})


def test_words_read_left_to_right_or_top_to_bottom_never_backwards():
    state, board = start()
    board.place((0, 0), "TAC")  # CAT read backwards
    out = move(state, board)
    assert out.verdict.kind == REFUSED and out.verdict.message == "TAC is not in the dictionary"


def test_no_tile_on_a_wall():
    state, board = start(wall((0, 3), (0, 4), (0, 5)))
    board.place((0, 0), "CAT")
    board.squares[(0, 3)].kind, board.squares[(0, 3)].letter = "tile", "S"  # a tile laid on the wall
    out = move(state, board)
    assert out.verdict.kind == REFUSED and "D1 is a wall: no tile may lie on it" in out.verdict.message


def test_no_tile_on_a_tile():
    state, board = start()
    board.place((0, 0), "CAT")
    state = move(state, board).state
    board.squares[(0, 1)].letter = "O"  # a tile put on top of the A
    out = move(state, board)
    assert out.verdict.kind == REFUSED and "B1: expected a A face up, saw O" in out.verdict.message


def test_tiles_in_one_line_without_gaps():
    state, board = start()
    board.place((0, 0), "CAT")
    board.place((1, 1), "X")
    assert move(state, board).verdict.message == "Your tiles are not in a line"
    state, board = start()
    board.place((0, 0), "CA")
    board.place((0, 3), "T")
    assert move(state, board).verdict.message == "Only one word allowed"


def test_the_network_rule_a_move_must_touch_the_network():
    # OX lies in the open, not yet reached: a tile next to it alone does not join the network.
    state, board = start(one(FIXED, (4, 4)), one(FIXED, (4, 5)), letters={(4, 4): "O", (4, 5): "X"})
    board.place((0, 0), "CAT")
    state = move(state, board).state
    board.place((3, 4), "T")  # TO down, touching only the obstacle group
    out = move(state, board)
    assert out.verdict.kind == REFUSED and out.verdict.message == "Tiles are not connected"


def test_a_move_touching_an_obstacle_group_joins_it_and_the_whole_group_must_be_valid():
    # T(0,2) O(1,2) O(2,2) down: TOO, and the O on (2,2) is a fixed letter of the group O X.
    state, board = start(one(FIXED, (2, 2)), one(FIXED, (2, 3)), letters={(2, 2): "O", (2, 3): "X"})
    board.place((0, 0), "CAT")
    state = move(state, board).state
    board.place((1, 2), "O", across=False)
    out = move(state, board)
    assert out.verdict.kind == PLAYED and (2, 3) in out.state.network
    # The same move where the group reads OQ: refused, although TOO is a word.
    state, board = start(one(FIXED, (2, 2)), one(FIXED, (2, 3)), letters={(2, 2): "O", (2, 3): "Q"})
    board.place((0, 0), "CAT")
    state = move(state, board).state
    board.place((1, 2), "O", across=False)
    out = move(state, board)
    assert out.verdict.kind == REFUSED and out.verdict.message == "OQ is not in the dictionary"


def test_obstacles_not_yet_reached_need_not_form_words():
    state, board = start(one(FIXED, (5, 5)), one(FIXED, (5, 6)), letters={(5, 5): "Q", (5, 6): "Q"})
    board.place((0, 0), "CAT")
    assert move(state, board).verdict.kind == PLAYED


def test_score_is_the_face_value_of_the_tiles_placed_only():
    state, board = start(one(FIXED, (2, 2)), one(FIXED, (2, 3)), letters={(2, 2): "O", (2, 3): "X"})
    board.place((0, 0), "CAT")  # on a triple word square: no premiums in the dungeon
    out = move(state, board)
    assert out.verdict.points == 5 and out.state.score == 5
    board.place((1, 2), "O", across=False)  # TOO, joining OX: only the O laid scores
    out = move(out.state, board)
    assert out.verdict.points == 1 and out.state.score == 6


# --- the rack: refill and burn ----------------------------------------------------------------


def test_refill_costs_one_point_per_tile_held():
    state, board = start(rack="CATSXYZ")
    board.place((0, 0), "CAT")
    state = move(state, board).state
    assert state.rack == ("S", "X", "Y", "Z") and state.rack_size == 4
    bag = state.bag_size
    out = apply(state, Refill("EEE"), WORDS)
    assert out.verdict.kind == REFILLED and out.verdict.points == -4
    assert out.state.score == 5 - 4 and out.state.rack_size == 7 and out.state.bag_size == bag - 3
    assert apply(out.state, Refill("E"), WORDS).verdict.message == "Your rack is full"
    assert apply(state, Refill("EE"), WORDS).verdict.message == "3 tiles are drawn, not 2"
    assert apply(state, Refill(), WORDS).verdict.message == "Tell the 3 tiles drawn"
    # The bag may hold fewer than a refill needs: what is left is drawn.
    low = replace(state, bag_size=2)
    assert apply(low, Refill("EE"), WORDS).state.bag_size == 0


def test_the_first_word_is_not_drawn_after_a_move():
    state, board = start(rack="CATSXYZ")
    board.place((0, 0), "CAT")
    assert move(state, board).state.rack_size == 4  # refilling is the player's choice, and costs


def test_a_move_needs_its_tiles_on_the_rack():
    state, board = start(rack="CAXSXYZ")
    board.place((0, 0), "CAT")
    assert move(state, board).verdict.message == "Those tiles are not on your rack"


def test_burn_costs_twice_the_value_of_the_tiles_burnt():
    state, _ = start(rack="QZEEEEE")
    out = apply(state, Burn("AAAAAAA"), WORDS)
    assert out.verdict.kind == BURNED and out.verdict.points == -2 * (10 + 10 + 5)
    assert out.state.rack == ("A",) * 7 and out.state.bag_size == state.bag_size - 7
    assert apply(replace(state, bag_size=6), Burn("AAAAAAA"), WORDS).verdict.kind == REFUSED
    # Racks not tracked: the tiles burnt are told.
    blind, _ = start()
    assert apply(blind, Burn(burned="QZEEEEE"), WORDS).state.score == -50
    assert apply(blind, Burn(), WORDS).verdict.message == "Tell the tiles burnt"


# --- treasure and the reveal bonus ------------------------------------------------------------


def test_a_treasure_taken_scores_10_goes_to_the_rack_and_earns_a_reveal():
    state, board = start(one(TREASURE, (0, 3)), letters={(0, 3): "Q"}, rack="CATSEEE")
    board.place((0, 0), "CAT")
    assert board.replace((0, 3), "S") == "Q"  # the treasure to the rack, S in its place, token off
    out = move(state, board)
    assert out.verdict.kind == PLAYED and out.verdict.words == ("CATS",)
    assert out.verdict.points == 3 + 1 + 1 + 1 + 10 and "treasure +10" in out.verdict.message
    s = out.state
    assert s.treasures == frozenset() and "Q" in s.rack and s.rack_size == 7 - 4 + 1 and s.reveals == 1


def test_passing_next_to_a_treasure_its_incidental_words_must_be_valid():
    state, board = start(one(TREASURE, (1, 1)), letters={(1, 1): "Q"})
    board.place((0, 0), "CAT")
    out = move(state, board)  # A above Q: AQ is not a word
    assert out.verdict.kind == REFUSED and out.verdict.message == "AQ is not in the dictionary"
    state, board = start(one(TREASURE, (1, 1)), letters={(1, 1): "X"})
    board.place((0, 0), "CAT")
    out = move(state, board)  # AX is: the treasure stays where it is, token on
    assert out.verdict.kind == PLAYED and out.state.treasures == {(1, 1)} and out.verdict.points == 5


def test_the_reveal_bonus_turns_over_one_whole_wall():
    far = wall((9, 3), (9, 4), (9, 5))
    state, board = start(one(TREASURE, (0, 3)), far, letters={(0, 3): "Q", (9, 3): "Z", (9, 4): "A", (9, 5): "Q"})
    board.place((0, 0), "CAT")
    board.replace((0, 3), "S")
    for s in far.squares:
        board.turn_up(s)
    out = move(state, board)
    assert [v.kind for v in out.verdicts] == [PLAYED, REVEALED]
    assert out.state.walls == tuple(frozenset(w.squares) for w in edges()) and out.state.reveals == 0
    assert out.state.letters[(9, 4)].letter == "A"


def test_a_reveal_must_be_earned_and_a_wall_turned_over_whole():
    far = wall((9, 3), (9, 4), (9, 5))
    state, board = start(far, one(MONSTER, (11, 11)))
    board.place((0, 0), "CAT")
    for s in far.squares:
        board.turn_up(s)
    out = move(state, board)
    assert out.verdict.kind == REFUSED and "1 obstacle turned over but 0 reveals earned" in out.verdict.message
    state, board = start(one(TREASURE, (0, 3)), far, letters={(0, 3): "Q"})
    board.place((0, 0), "CAT")
    board.replace((0, 3), "S")
    board.turn_up((9, 3))
    out = move(state, board)
    assert out.verdict.kind == REFUSED and "every tile of one wall" in out.verdict.message


def test_a_reveal_is_banked_and_may_turn_over_a_monster_later():
    state, board = start(one(TREASURE, (0, 3)), one(MONSTER, (9, 9)), letters={(0, 3): "Q", (9, 9): "K"})
    board.place((0, 0), "CAT")
    board.replace((0, 3), "S")
    state = move(state, board).state
    assert state.reveals == 1
    board.turn_up((9, 9))
    board.token_off((9, 9))
    out = move(state, board)  # a reveal alone, no tile laid
    assert out.verdict.kind == REVEALED and out.state.monsters == frozenset() and out.state.reveals == 0
    assert out.state.letters[(9, 9)].letter == "K" and out.state.score == state.score


# --- monsters ---------------------------------------------------------------------------------


def fight(word, monster_letter):
    """CAx on row 0 with a monster on (0, 2), turned over first for the camera, then replaced."""
    state, board = start(one(MONSTER, (0, 2)), letters={(0, 2): monster_letter})
    board.place((0, 0), "CA")
    board.turn_up((0, 2))
    state = remember_monsters(state, board.reading())
    assert state.known == {(0, 2): monster_letter}
    board.replace((0, 2), word[2])
    return move(state, board)


def test_a_higher_value_defeats_the_monster_for_10_times_its_value():
    out = fight("CAB", "T")  # B 3 beats T 1
    assert out.verdict.kind == PLAYED and out.verdict.points == 3 + 1 + 3 + 10
    assert "monster T +10" in out.verdict.message and out.verdicts[1].message.startswith("Defeated")
    assert out.state.monsters == frozenset() and out.state.reveals == 1 and out.state.rack_size == 7 - 3 + 1
    out = fight("CAD", "T")  # D 2 beats T 1
    assert out.verdict.kind == PLAYED


def test_the_same_letter_tames_the_monster():
    out = fight("CAT", "T")
    assert out.verdict.kind == PLAYED and out.verdict.points == 5 + 10 and out.verdicts[1].message.startswith("Tamed")


def test_neither_higher_nor_the_same_is_death():
    out = fight("CAN", "T")  # N 1 against T 1
    assert out.verdict.kind == DEAD and out.state.result == DEAD and out.state.over
    assert "was a T: your N neither defeats nor tames it" in out.verdict.message
    assert out.state.score == 0  # a fatal move scores nothing
    assert apply(out.state, Refill(), WORDS).verdict.message == "The game is over: dead"


def test_a_monster_scores_ten_times_its_value():
    # A Y is worth 4: 40 points, as the rules text's example says. AX: X 8 beats Y 4.
    state, board = start(one(MONSTER, (0, 1)), letters={(0, 1): "Y"})
    board.place((0, 0), "A")
    board.replace((0, 1), "X")
    out = move(state, board, monsters={(0, 1): "Y"})  # told on the page, not seen
    assert out.verdict.kind == PLAYED and out.verdict.points == 1 + 8 + 40
    assert out.state.known == {}


def test_a_word_that_is_not_a_word_is_refused_before_any_fight():
    state, board = start(one(MONSTER, (0, 2)), letters={(0, 2): "Y"})
    board.place((0, 0), "CA")
    board.replace((0, 2), "Z")
    out = move(state, board, monsters={(0, 2): "Y"})
    assert out.verdict.kind == REFUSED and out.verdict.message == "CAZ is not in the dictionary"


def test_the_monster_must_be_known_before_the_fight_is_judged():
    state, board = start(one(MONSTER, (0, 2)), letters={(0, 2): "T"})
    board.place((0, 0), "CA")
    board.replace((0, 2), "B")  # replaced without the camera seeing it face up
    out = move(state, board)
    assert out.verdict.kind == ASK and "Which letter was the monster on C1?" in out.verdict.message
    assert move(state, board, monsters={(0, 2): "T"}).verdict.kind == PLAYED


def test_a_monster_left_face_up_with_its_token_is_not_a_move():
    state, board = start(one(MONSTER, (0, 2)), letters={(0, 2): "T"})
    board.place((0, 0), "CA")
    board.turn_up((0, 2))
    out = move(state, board)
    assert out.verdict.kind == REFUSED and "C1 is face up" in out.verdict.message
    assert out.state.known == {(0, 2): "T"}  # but the companion saw it


def test_a_blank_never_tames_a_letter():
    state, board = start(one(MONSTER, (0, 2)), letters={(0, 2): "T"})
    board.place((0, 0), "CA")
    board.replace((0, 2), "?")
    out = move(state, board, monsters={(0, 2): "T"}, blanks={(0, 2): "T"})
    assert out.verdict.kind == DEAD and "your a blank" not in out.verdict.message


def test_extra_dead_when_the_kill_leaves_an_invalid_incidental_word():
    # T on (0,2) above a monster A on (1,2) beside a fixed Q: THE down defeats it (H 4 > A 1) but
    # the H beside the Q reads HQ.
    state, board = start(one(MONSTER, (1, 2)), one(FIXED, (1, 3)), letters={(1, 2): "A", (1, 3): "Q"})
    board.place((0, 0), "CAT")
    state = move(state, board).state
    board.replace((1, 2), "H")
    board.place((2, 2), "E")
    out = move(state, board, monsters={(1, 2): "A"})
    assert out.verdict.kind == EXTRA_DEAD and out.state.result == EXTRA_DEAD and out.verdict.words == ("HQ",)
    # With an E beside it, HE is a word: the monster is simply defeated.
    state, board = start(one(MONSTER, (1, 2)), one(FIXED, (1, 3)), letters={(1, 2): "A", (1, 3): "E"})
    board.place((0, 0), "CAT")
    state = move(state, board).state
    board.replace((1, 2), "H")
    board.place((2, 2), "E")
    out = move(state, board, monsters={(1, 2): "A"})
    assert out.verdict.kind == PLAYED and out.verdict.points == 4 + 1 + 10
    # Without a fight, the same invalid incidental word is simply refused.
    state, board = start(one(FIXED, (1, 3)), letters={(1, 3): "Q"})
    board.place((0, 0), "CAT")
    state = move(state, board).state
    board.place((1, 2), "HE", across=False)
    assert move(state, board).verdict.message == "HQ is not in the dictionary"


# --- blanks -----------------------------------------------------------------------------------


def test_a_blank_laid_is_named_on_the_page():
    state, board = start()
    board.place((0, 0), "C?T")
    out = move(state, board)
    assert out.verdict.kind == ASK and "blank on B1" in out.verdict.message
    out = move(state, board, blanks={(0, 1): "A"})
    assert out.verdict.kind == PLAYED and out.verdict.points == 4 and out.state.letters[(0, 1)].blank


# --- trapped and escape -----------------------------------------------------------------------


def test_trapped_when_the_bag_cannot_refill_and_nothing_can_be_placed(generator):
    state, board = start(rack="CATQQQQ")
    board.place((0, 0), "CAT")
    state = replace(state, bag_size=0)
    out = apply(state, Move(board.reading()), WORDS, generator=generator)
    assert [v.kind for v in out.verdicts] == [PLAYED, TRAPPED] and out.state.result == TRAPPED
    assert "J, Z, Q or X" in out.verdicts[-1].message
    # The same with tiles in the bag: a refill is still possible, so not trapped.
    out = apply(replace(state, bag_size=3), Move(board.reading()), WORDS, generator=generator)
    assert [v.kind for v in out.verdicts] == [PLAYED]


def test_not_trapped_while_a_word_fits(generator):
    state, board = start(rack="CATQQSQ")
    board.place((0, 0), "CAT")
    out = apply(replace(state, bag_size=0), Move(board.reading()), WORDS, generator=generator)
    assert out.state.result is None  # CATS
    assert d.placement_possible(out.state, WORDS, generator)


def test_trapped_checks_walls_the_network_and_treasure(generator):
    # The only place for an S is on a wall square: trapped.
    state, board = start(wall((0, 3), (1, 3), (2, 3), orientation="vertical"), rack="CATSQQQ")
    board.place((0, 0), "CAT")
    out = apply(replace(state, bag_size=0), Move(board.reading()), WORDS, generator=generator)
    assert out.state.result == TRAPPED
    # An A that only fits beside an unreached X (AX): not a placement (the network rule).
    state, board = start(one(FIXED, (5, 5)), letters={(5, 5): "X"}, rack="CATAQQQ")
    board.place((0, 0), "CAT")
    out = apply(replace(state, bag_size=0), Move(board.reading()), WORDS, generator=generator)
    assert out.state.result == TRAPPED
    # An A that fits only by taking the treasure O under the T (TA): not trapped.
    state, board = start(one(TREASURE, (1, 2)), letters={(1, 2): "O"}, rack="CATAQQQ")
    board.place((0, 0), "CAT")  # TO down through the treasure's O: valid, the treasure stays
    after_cat = board.reading()
    out = apply(replace(state, bag_size=0), Move(after_cat), WORDS | {"TA"}, generator=generator_ta())
    assert out.verdict.kind == PLAYED and out.state.result is None
    assert out.state.rack == ("A", "Q", "Q", "Q")
    board.replace((1, 2), "A")
    out = apply(out.state, Move(board.reading()), WORDS | {"TA"}, generator=generator_ta())
    assert out.verdict.words == ("TA",) and "treasure +10" in out.verdict.message
    # Without TA among the words, the same rack is trapped.
    out = apply(replace(state, bag_size=0), Move(after_cat), WORDS, generator=generator)
    assert out.state.result == TRAPPED


def generator_ta():
    ts = get_tileset("en")
    return Generator(build(WORDS | {"TA"}, ts.alphabetical()), ts)


def test_trapped_before_the_first_word_uses_the_corner(generator):
    state, _ = start(rack="CATQQQQ")
    assert d.placement_possible(state, WORDS, generator)
    assert not d.trapped(replace(state, bag_size=0), WORDS, generator)
    state, _ = start(rack="QQQQQQQ")
    assert d.trapped(replace(state, bag_size=0, rack_size=7), WORDS, generator)


def test_escape_on_the_bottom_right_corner():
    state, board = start()
    state = replace(state, network=frozenset({(13, 14)}))
    state = replace(state, letters=state.letters.with_tiles([((13, 14), d.Tile("T"))]))
    board.place((13, 14), "TO", across=False)
    board.squares[(13, 14)].letter = "T"
    out = move(state, board)
    assert [v.kind for v in out.verdicts] == [PLAYED, ESCAPED] and out.state.result == ESCAPED
    assert "escaped" in out.verdicts[-1].message


def test_a_set_up_that_differs_cannot_start():
    setup = setup_of(one(MONSTER, (4, 4)), *edges())
    board = PhysicalBoard.laid_out(setup, {s: "E" for o in setup.obstacles for s in o.squares})
    board.token_off((4, 4))
    with pytest.raises(CompanionError, match="E5 \\(monster\\)"):
        new_game(setup, board.reading())
