"""Computer seats' pure parts: the seats a game may have, and the tiles dealt to them."""

from __future__ import annotations

from collections import Counter

import pytest

from companion.core.board import Board, Tile, layout_for_grid
from companion.core.tiles import get_tileset
from companion.table.computer import deal, parse_computers
from companion.table.games import Classic
from companion.table.session import ActionError


def test_computer_seats_are_one_to_three_with_a_person_at_the_table():
    assert parse_computers({"1": 3}, 2) == {1: 3} and parse_computers(None, 2) == {}
    assert parse_computers({"1": 1, "2": 5, "3": 2}, 4) == {1: 1, 2: 5, 3: 2}
    for bad, why in (({"0": 3, "1": 3}, "at least one person"), ({"2": 3}, "seat 2"), ({"1": 6}, "skill 6"),
                     ({"x": 1}, "seat 'x'"), ([1], "{seat: skill}")):
        with pytest.raises(ValueError, match=why):
            parse_computers(bad, 2)
    with pytest.raises(ActionError, match="with its game log"):
        Classic.start(None, 0, names=["Ann", "Bob"], computers={"1": 3}, lexicon_for=lambda ts: frozenset())


def test_the_deal_takes_what_no_one_has_shown_and_is_the_same_again():
    en = get_tileset("en")
    board = Board(layout_for_grid(15)).with_tiles([((7, 7), Tile("Q")), ((7, 8), Tile("I"))])
    racks = {1: ["Z", "X"]}
    one = deal(en, board, racks, 2, 7, "5:3:2")
    assert one == deal(en, board, racks, 2, 7, "5:3:2") and len(one) == 7 and one == sorted(one)
    assert "Q" not in one and "Z" not in one and "X" not in one  # (one of each in the set)
    # Every tile but what the board and the racks hold: the deal never names a tile twice over.
    everything = deal(en, board, racks, 2, 200, "x")
    assert Counter(everything) == en.bag() - Counter({"Q": 1, "I": 1, "Z": 1, "X": 1})


def test_the_page_s_form_sends_computer_seats_to_every_classic_session():
    from companion.table.classic import ClassicSession
    from companion.table.games import new_game

    s = ClassicSession(["Ann", "Bob"], seed=1, lexicon_for=lambda ts: frozenset())
    new_game(s, 10, names=["Ann", "Bob"], control="blitz", computers={})  # none asked: a new game
    assert s.control_label == "5 min sudden death"
    with pytest.raises(ActionError, match="with its game log"):
        new_game(s, 20, names=["Ann", "Bob"], computers={"1": 3})
