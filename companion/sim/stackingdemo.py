"""The stacking game at a simulated table: computer players, a synthetic camera, the whole loop.

Three computer players (:class:`companion.engine.stacking_player.StackingPlayer`) play a game the
companion deals from its seed. Each does at the table what a player does: buys on the page,
redraws on the page, names a wild's letter on the page, and for a play lays the tiles (a tile
on a stack shows only its own letter) with a token on each rainbow tile and presses; the camera
photographs the board's top tiles and tokens (the renderer, a mounted camera; or, for tests,
frames carrying the truth) and the table judges what it sees: reader -> stabiliser -> inference
(a changed letter is a stacked tile) -> rules -> game log -> hub -> page.

The players decide from the game's state alone, so a demo killed at any moment and started
again on its data folder goes on from the log: a press logged but not judged is judged with the
tiles of the play that press was for.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from companion.core.errors import CompanionError
from companion.core.board import STANDARD, Board, Coord
from companion.core.move import format_square
from companion.rules import stacking as rules
from companion.sim.truth import SimClock, TruthFrame, reading_of_board, truth_analyser
from companion.table.games import resume_or_start
from companion.table.stacking import StackingSession
from companion.table.store import open_store
from companion.table.table import Press, Table, reader_analyser

TOKEN = "gold"  # the token that marks a rainbow tile
THINK_MS = 20_000  # a player's thinking time in simulated time


@dataclass(frozen=True)
class _Image:
    image: Any
    timestamp: float | None = None


class StackWorld:
    """The table as the camera sees it: the top tile of every stack, a token on each rainbow
    tile. ``truth``: frames carry the truth (no pixels); otherwise rendered photos."""

    FRAME_S = 1.0

    def __init__(self, tileset: str, truth: bool) -> None:
        self.truth = truth
        self.board = Board(STANDARD)
        self.tokens: frozenset[Coord] = frozenset()
        self.seconds = 0.0
        self._frame = 0
        self.camera = None
        if not truth:
            from companion.sim.camera import ReadBackCamera

            self.camera = ReadBackCamera(tileset, 15)

    def lay(self, board: Board, tokens: frozenset[Coord]) -> None:
        self.board, self.tokens = board, tokens

    def analyser(self) -> Callable[[Any], Any]:
        if self.truth:
            return truth_analyser
        assert self.camera is not None
        return reader_analyser(self.camera.tileset, 15, self.camera.profile)

    def read(self) -> Any:
        self.seconds += self.FRAME_S
        if self.truth:
            reading = reading_of_board(self.board)
            cells = tuple(replace(c, token=(c.row, c.col) in self.tokens) for c in reading.cells)
            return TruthFrame(replace(reading, cells=cells))
        from companion.sim.render import render
        from companion.sim.scene import content_from_board

        assert self.camera is not None
        self._frame += 1
        content = content_from_board(self.board)
        for coord in self.tokens:
            if coord in content:
                content[coord] = replace(content[coord], token=TOKEN)
        spec = replace(self.camera.spec, content=content)
        return _Image(render(spec, self.camera.SEED, frame=self._frame).image)


ASKED_AT_MOST = 3


class StackingDemo:
    """One demo game on a data folder (a fresh temporary one unless given)."""

    def __init__(
        self,
        names: list[str],
        *,
        seed: int = 1,
        length: str = "short",
        data_dir: Path | None = None,
        truth: bool = False,
        sim_time: bool = False,
        trace: Callable[[str], None] | None = None,
        lexicon_for: Callable[[str], Any] | None = None,
        area: int | None = None,
    ) -> None:
        if lexicon_for is None:
            from companion.lexicon import load_lexicon

            lexicon_for = load_lexicon
        self.data_dir = (
            Path(data_dir) if data_dir is not None else Path(tempfile.mkdtemp(prefix="companion-demo-"))
        )
        self.store = open_store(self.data_dir)
        self.trace = trace or (lambda line: None)
        self.sim_time = sim_time
        sim_clock = (lambda last: SimClock(last.at_ms if last is not None else 0)) if sim_time else None
        session, self.clock = resume_or_start(
            self.store,
            names,
            game="stacking",
            seed=seed,
            length=length,
            area=area,
            lexicon_for=lexicon_for,
            clock=sim_clock,
        )
        if not isinstance(session, StackingSession):
            raise TypeError(f"the data folder holds a {type(session).__name__}, not a stacking game")
        self.session = session
        self.lexicon = lexicon_for(session.options.tileset)
        from companion.engine.movegen import generator_for
        from companion.engine.stacking_player import StackingPlayer

        self.player = StackingPlayer(generator_for(session.options.tileset, self.lexicon), seed)
        self.world = StackWorld(session.options.tileset, truth)
        self.world.lay(session.state.board.top, session.state.rainbow)

    def table(self, hub: Any) -> Table:
        if self.sim_time:
            return Table(
                hub, self.world, self.world.analyser(), trace=self.trace, clock=lambda: self.world.seconds
            )
        return Table(hub, self.world, self.world.analyser(), trace=self.trace)

    def _lay_for(self, state: rules.StackingState, action: rules.Action) -> None:
        """The board as the player leaves it for ``action`` (unchanged for a pass)."""
        if isinstance(action, rules.Play):
            after = rules.apply(state, action, self.lexicon).state
            self.world.lay(after.board.top, after.rainbow)
        else:
            self.world.lay(state.board.top, state.rainbow)

    def play(
        self,
        hub: Any,
        table: Table,
        *,
        pace_s: float = 0.0,
        stop: threading.Event | None = None,
        say: Callable[[str], None] | None = None,
        max_turns: int = 200,
    ) -> None:
        stop = stop or threading.Event()
        say = say or (lambda line: None)
        state = hub.call(lambda s, now: s.state)
        if hub.call(lambda s, now: s.pending_press) is not None:
            self._lay_for(state, self.player.turn(state, self.lexicon))
            table.resume_pending()
        asked = 0  # presses in a row that ended in a question and changed nothing
        while not stop.is_set():
            state = hub.call(lambda s, now: s.state)
            if state.over or state.turn >= max_turns:
                return
            if pace_s:
                stop.wait(pace_s)
            if self.sim_time:
                self.clock.set(self.clock() + THINK_MS)
            # A player buys at most once a turn: a purchase already logged this turn (a demo
            # started again after it) is not made twice.
            last = hub.call(lambda s, now: s.steps[-1][0] if s.steps else None)
            if not isinstance(last, rules.Buy):
                for action in self.player.actions(state, self.lexicon):
                    self._page(hub, action, say)
            state = hub.call(lambda s, now: s.state)
            action = self.player.turn(state, self.lexicon)
            if isinstance(action, rules.Redraw):
                self._page(hub, action, say)
                continue
            name = state.players[state.to_move].name
            if isinstance(action, rules.Play):
                for t in action.placement.tiles:
                    if t.blank:
                        hub.call(lambda s, now, t=t: s.name_wild(now, f"{format_square(t.coord)} {t.letter}"))
            self._lay_for(state, action)
            verdict = table.handle(Press(state.to_move, self.clock()))
            say(f"{name:>8}  {_line(hub, verdict)}")
            # Nobody at a simulated table answers a question: the same board pressed again asks
            # it again, for ever. A few in a row stop the demo with the question, in one line.
            unchanged = hub.call(lambda s, now: s.state) == state
            asked = asked + 1 if verdict.get("kind") == "question" and unchanged else 0
            if asked >= ASKED_AT_MOST:
                questions = "; ".join(verdict.get("questions") or []) or "a question"
                raise CompanionError(f"the table asked {questions!r} {asked} times and nobody at the simulated "
                                     "table answers it: the demo stops (its game log keeps the game)")

    def _page(self, hub: Any, action: rules.Action, say: Callable[[str], None]) -> None:
        if isinstance(action, rules.Buy):
            hub.call(lambda s, now: s.buy(now, action.letter))
        elif isinstance(action, rules.Redraw):
            hub.call(lambda s, now: s.redraw(now))
        say(f"{'page':>8}  {hub.call(lambda s, now: s.feed[-1]['message'])}")

    def summary(self, hub: Any) -> dict[str, Any]:
        return hub.call(summary)

    def close(self) -> None:
        self.store.close()


def summary(s: StackingSession, now: int) -> dict[str, Any]:
    state = s.state
    return {
        "scores": [p.score for p in state.players],
        "over": state.over,
        "end": state.end.value if state.end is not None else None,
        "turn": state.turn,
        "board": state.board.to_text(),
        "purchases": [p.purchases for p in state.players],
        "gcg": s.gcg(),
    }


def _line(hub: Any, verdict: dict[str, Any]) -> str:
    scores = hub.call(lambda s, now: ", ".join(f"{p.name} {p.score}" for p in s.state.players))
    questions = verdict.get("questions") or []
    message = hub.call(lambda s, now: s.feed[-1]["message"]) if not questions else "; ".join(questions)
    return f"{verdict.get('kind', ''):<9} {scores}  {message}"
