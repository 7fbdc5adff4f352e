"""Two whole dungeon games on synthetic photos through the table loop: the set-up laid out on a
rendered board (walls and monsters face down, treasure face up with a token, tokens on the
monsters) and checked by the camera, every move made on the rendered board, each press a
capture burst through :class:`companion.table.Table` (the real reader, the hand tracker, the
stabiliser), the dungeon's rules judging, every event in the SQLite game log, the state
published through the hub. One game ends in escape, the other in death by a monster; both are
the scripts tests/rules/test_dungeon_games.py plays on hand-built readings.

Each judged board is compared with the truth of the rendered board: a misread square fails the
test naming the square and what was read."""

from __future__ import annotations

from companion.core.move import format_square
from companion.table.dungeon import DungeonSession
from companion.table.session import UNREADABLE
from companion.rules.dungeon import DEAD, ESCAPED
from companion.table.store import open_store
from companion.sim.truth import SimClock
from companion.table.table import Press, Table
from companion.web.hub import Hub
from tests.rules import dungeon_scripts as scripts
from tests.rules.dungeon_scripts import WORDS, generator
from tests.table.dungeon_world import DungeonCamera


def misread(reading, truth):
    """Squares the camera read otherwise than they lie: 'H1 read empty for a back'."""
    out = []
    for c in reading.cells:
        t = truth.cell(c.row, c.col)
        if (c.kind, c.letter, c.token) != (t.kind, t.letter, t.token):
            def say(x):
                return (x.letter if x.kind == "tile" else x.kind) + (" with a token" if x.token else "")
            out.append(f"{format_square((c.row, c.col))} read {say(c)} for {say(t)}")
    return out


class Run:
    """One game at the synthetic table: the world, the session on a real game log, the loop."""

    def __init__(self, script, data_dir):
        self.script = script
        self.board = script.board()
        self.world = DungeonCamera(self.board)
        self.store = open_store(data_dir)
        self.clock = SimClock(1000)
        self.session = DungeonSession(self.store, script.setup, name="Ann", lexicon_for=lambda ts: WORDS,
                                      generator_for=lambda ts: generator(), now_ms=self.clock())
        self.hub = Hub(self.session, now_ms=self.clock)
        # The burst is bounded by its frames, not the wall clock: a loaded machine renders
        # slower, and what is tested is what the camera sees, not how fast it is drawn.
        self.table = Table(self.hub, self.world, self.world.analyser(), clock=lambda: 0.0)
        self.misreads = []
        self.ref = 0

    def press(self):
        self.ref += 1
        self.clock.set(self.clock() + 20_000)
        truth = self.board.reading()
        verdict = self.table.handle(Press(0, self.clock(), self.ref))
        assert verdict.get("questions") != [UNREADABLE], f"press {self.ref}: no stable board in a burst"
        self.misreads += misread(self.hub.call(lambda s, now: s.board), truth)
        return verdict

    def page(self, fn):
        self.clock.set(self.clock() + 5_000)
        return self.hub.call(fn)

    def document(self):
        return self.hub.document_json()


def play(run, hands_before=()):
    """The script's steps at the table; ``hands_before``: presses (counted from 1) before which a
    hand passes over the board."""
    presses = 0
    for step in run.script.steps:
        if isinstance(step, scripts.Press):
            presses += 1
            if presses in hands_before:
                run.world.hand_passes()
            verdict = run.press()
            assert not run.misreads, run.misreads
            verdicts = run.hub.call(lambda s, now: s.last_verdicts)
            assert tuple(v["kind"] for v in verdicts) == step.kinds, (verdict, verdicts)
            state = run.session.state
            if step.points is not None:
                assert verdicts[0]["points"] == step.points
            if step.score is not None:
                assert state.score == step.score
            if step.words is not None:
                assert tuple(verdicts[0]["words"]) == step.words
            for said, v in zip(step.says, verdicts):
                assert said in v["message"]
            if step.rack is not None:
                assert state.rack == step.rack
            doc = run.document()
            assert doc["players"][0]["score"] == state.score  # published
        elif isinstance(step, (scripts.Refill, scripts.Burn)):
            op = "refill" if isinstance(step, scripts.Refill) else "burn"
            run.page(lambda s, now, op=op, drawn=step.drawn: getattr(s, op)(now, drawn))
            assert run.session.last_verdicts[0]["points"] == step.points
        else:
            scripts.do(run.board, step)


def set_up(run):
    """The set-up laid out as planned, checked by the camera, then the rack entered on the page."""
    verdict = run.press()
    assert verdict["kind"] == "set-up", verdict
    assert not run.misreads, run.misreads
    assert run.document()["dungeon"]["phase"] == "rack"
    run.page(lambda s, now: s.enter_rack(now, run.script.rack))
    assert run.document()["dungeon"]["phase"] == "play"


def finish(run, tmp_path):
    script = run.script
    state = run.session.state
    assert (state.result, state.score) == (script.result, script.score)
    doc = run.document()
    assert doc["game"]["over"] and doc["dungeon"]["state"]["result"] == script.result
    assert run.table.handle(Press(0, run.clock(), None)) == {"kind": "ignored: the game is over"}
    # The game log holds the game: folded again (a restart), it is the same game.
    events = run.store.events(run.session.game_id)
    ops = [e.payload["op"] for e in events]
    assert ops[0] == "start" and "setup" in ops and "rack" in ops
    assert ops.count("press") == ops.count("setup") + ops.count("move") + ops.count("question")
    run.store.close()
    store = open_store(tmp_path)
    try:
        again = DungeonSession.restore(store, lexicon_for=lambda ts: WORDS, generator_for=lambda ts: generator())
        assert again is not None
        assert again.state == state
        assert again.history == run.session.history and again.pending_press is None
    finally:
        store.close()
    return ops


def test_a_whole_game_on_photos_to_escape(tmp_path):
    run = Run(scripts.escape(), tmp_path)
    set_up(run)
    # A hand over the board before the second move's press: seen, left out, never judged.
    play(run, hands_before=(2,))
    assert run.session.state.result == ESCAPED
    assert run.table.hand_frames >= 2
    ops = finish(run, tmp_path)
    assert ops.count("move") == 7 and ops.count("refill") == 3 and ops.count("burn") == 1


def test_a_whole_game_on_photos_to_death_by_monster(tmp_path):
    run = Run(scripts.death_by_monster(), tmp_path)
    # Laid out wrong first: the monster's token forgotten. The camera's check says where.
    monster = (0, 3)
    run.board.token_off(monster)
    verdict = run.press()
    assert verdict["kind"] == "question"
    assert verdict["questions"] == ["The set-up differs from the plan on 1 square: D1 (monster): expected a tile "
                                    "face down with a token, saw a tile face down"]
    assert run.document()["dungeon"]["problems"] and run.document()["dungeon"]["phase"] == "set-up"
    run.board.squares[monster].token = True
    set_up(run)
    play(run)
    assert run.session.state.result == DEAD
    finish(run, tmp_path)
