from __future__ import annotations


from companion.core.board import Board
from companion.core.tiles import get_tileset
from companion.engine.leave import leave_value
from companion.engine.player import SKILLS, ComputerPlayer, self_play

EN = get_tileset("en")
GAMES = 24  # the must-show's 200 run in `make bench` (bench/engine.py), with their averages


def test_leave_principles():
    assert leave_value("?", EN) > leave_value("S", EN) > leave_value("E", EN) > 0
    assert leave_value("Q", EN) < leave_value("QU", EN)
    assert leave_value("EE", EN) < 2 * leave_value("E", EN)
    assert leave_value("AEIOU", EN) < leave_value("AERST", EN)
    assert leave_value("", EN) == 0


def test_skill_five_plays_the_best_equity_and_is_deterministic(english):
    board = Board()
    p = ComputerPlayer(english, 5, seed=1)
    d = p.decide(board, list("RETAINS"), 86)
    assert d.move is not None and d.move.score == english.best(board, "RETAINS", 1)[0].score
    assert ComputerPlayer(english, 5, seed=1).decide(board, list("RETAINS"), 86) == d
    low = ComputerPlayer(english, 1, seed=1).decide(board, list("RETAINS"), 86)
    assert low.move is not None and len(low.move.letters) <= SKILLS[1].max_length


def test_no_move_exchanges_or_passes(english):
    board = Board()
    p = ComputerPlayer(english, 5)
    d = p.decide(board, list("QQ"), 50)
    assert d.move is None and d.exchange
    assert p.decide(board, list("QQ"), 0).is_pass


def test_skill_five_beats_skill_one_and_every_game_ends_legally(english, english_lexicon):
    strong, weak = [], []
    for i in range(GAMES):
        skills = (5, 1) if i % 2 == 0 else (1, 5)
        result = self_play(english, english_lexicon, skills, seed=i)
        assert result.final.over
        assert result.kinds[-1] == "game-over"
        # Tiles are neither lost nor made: the board and the racks hold the whole set.
        on_board = len(result.final.board)
        in_racks = sum(len(p.rack or ()) for p in result.final.players)
        assert on_board + in_racks + result.final.bag_size == EN.size
        s5, s1 = result.scores if skills == (5, 1) else result.scores[::-1]
        strong.append(s5)
        weak.append(s1)
    assert sum(strong) / GAMES > sum(weak) / GAMES + 150
    assert sum(a > b for a, b in zip(strong, weak)) >= GAMES * 0.9
