"""Two whole dungeon games through the surface the table will drive: a set-up checked against
the camera's reading, every stable reading shown to the rules (a monster seen face up is
remembered), every button press a Move, refills and burns as the page will send them.

The readings are built by hand (CellReading values of a board moved as a player's hands move
it): the same games on synthetic photos through the table loop are the table's to add."""

from __future__ import annotations

from companion.core.tiles import get_tileset
from companion.engine.dawg import build
from companion.engine.movegen import Generator
from companion.rules.dungeon import (
    DEAD,
    ESCAPED,
    FIXED,
    MONSTER,
    PLAYED,
    REFUSED,
    REVEALED,
    TREASURE,
    Burn,
    Move,
    Refill,
    apply,
    check_setup,
    expected_view,
    new_game,
    remember_monsters,
)
from tests.rules.dungeon_table import PhysicalBoard, one, setup_of, wall
from tests.rules.test_dungeon_play import WORDS, edges


def generator():
    ts = get_tileset("en")
    return Generator(build(WORDS, ts.alphabetical()), ts)


class Game:
    """The table's side, reduced to what the rules need: readings in, verdicts out."""

    def __init__(self, setup, board, rack):
        assert check_setup(expected_view(setup), board.reading()) == []
        self.board = board
        self.state = new_game(setup, board.reading(), rack=rack)
        self.generator = generator()
        self.log = []

    def seen(self):
        """A stable reading between presses."""
        self.state = remember_monsters(self.state, self.board.reading())

    def press(self, **kw):
        return self.act(Move(self.board.reading(), **kw))

    def act(self, action):
        out = apply(self.state, action, WORDS, generator=self.generator)
        self.state = out.state
        self.log.append(out.verdicts)
        return out


def test_a_whole_game_to_escape():
    far_wall = wall((10, 2), (10, 3), (10, 4))
    setup = setup_of(
        one(TREASURE, (3, 6)), one(FIXED, (6, 8)), one(MONSTER, (8, 11)), far_wall, *edges()
    )
    letters = {s: "E" for o in setup.obstacles for s in o.squares}
    letters.update({(3, 6): "Q", (6, 8): "C", (8, 11): "A", (10, 2): "Z", (10, 3): "E", (10, 4): "D"})
    game = Game(setup, PhysicalBoard.laid_out(setup, letters), rack="LANTERN")
    b = game.board

    b.place((0, 0), "LANTERN")  # the first word, from the top-left corner
    out = game.press()
    assert (out.verdict.kind, out.verdict.points, game.state.score) == (PLAYED, 7, 7)

    assert game.act(Refill("OTABLEX")).verdict.points == 0  # nothing held: a free refill

    # NOTABLE down from the N, taking the treasure Q on the way (A in its place), and the reveal
    # earned at once: the far wall turned over.
    b.place((1, 6), "OT", across=False)
    assert b.replace((3, 6), "A") == "Q"
    b.place((4, 6), "BLE", across=False)
    for s in far_wall.squares:
        b.turn_up(s)
    out = game.press()
    assert [v.kind for v in out.verdicts] == [PLAYED, REVEALED]
    assert out.verdict.words == ("NOTABLE",) and out.verdict.points == 1 + 1 + 1 + 3 + 1 + 1 + 10
    assert game.state.rack == ("Q", "X") and game.state.score == 25

    assert game.act(Refill("ESAPE")).verdict.points == -2  # two tiles held

    b.place((6, 7), "S.APE")  # ESCAPE through the fixed C
    out = game.press()
    assert out.verdict.words == ("ESCAPE",) and out.verdict.points == 6 and game.state.score == 31 - 2

    out = game.act(Burn("ABCEEMR"))  # E Q X burnt: twice 19
    assert out.verdict.points == -38 and game.state.score == -9

    # EMBRACE down from the E: the M laid, the monster turned over for the camera, then the B in
    # its place (B 3 defeats A 1), and R A C E below.
    b.place((7, 11), "M")
    b.turn_up((8, 11))
    game.seen()
    b.replace((8, 11), "B")
    b.place((9, 11), "RACE", across=False)
    out = game.press()
    assert out.verdict.words == ("EMBRACE",) and out.verdict.points == 3 + 3 + 1 + 1 + 3 + 1 + 10
    assert out.verdicts[1].message == "Defeated the monster on L9 (an A): +10"
    assert game.state.rack == ("A", "E") and game.state.reveals == 1 and game.state.score == 13

    assert game.act(Refill("STOZJ")).verdict.points == -2
    b.place((12, 12), "AST")  # EAST
    assert game.press().verdict.points == 3
    b.place((13, 14), "OE", across=False)  # TOE, onto the bottom-right corner
    out = game.press()
    assert [v.kind for v in out.verdicts] == [PLAYED, ESCAPED]
    assert game.state.result == ESCAPED and game.state.score == 16
    assert "escaped Jziqx's dungeon with 16 points" in out.verdicts[-1].message
    assert game.act(Refill()).verdict.kind == REFUSED  # the game is over
    assert sum(v.points for verdicts in game.log for v in verdicts[:1]) == 16


def test_a_whole_game_to_death_by_monster():
    setup = setup_of(one(MONSTER, (0, 3)), one(FIXED, (4, 4)), *edges())
    letters = {s: "E" for o in setup.obstacles for s in o.squares}
    letters.update({(0, 3): "K", (4, 4): "O"})
    game = Game(setup, PhysicalBoard.laid_out(setup, letters), rack="CATSEEE")
    b = game.board

    b.place((0, 0), "CAT")
    assert game.press().verdict.points == 5
    assert game.act(Refill("ZZZ")).verdict.points == -4  # four held
    # CATS: the S against the monster beside the T. Turned over, it is a K (5): the S (1) loses.
    b.turn_up((0, 3))
    game.seen()
    assert game.state.known == {(0, 3): "K"}
    b.replace((0, 3), "S")
    out = game.press()
    assert out.verdict.kind == DEAD and game.state.result == DEAD and game.state.over
    assert out.verdict.message == "The monster on D1 was a K: your S neither defeats nor tames it. You are dead, with 1 point."
    assert game.press().verdict.message == "The game is over: dead"
