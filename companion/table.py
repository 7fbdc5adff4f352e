"""The table: a clock press, a look at the board, a verdict, in the log, on the page.

The one place that wires the pieces (DESIGN.md). A player's press switches the clock at the
moment of the press and starts a capture burst: frames are read until the stabiliser gives a
board that several hand-free frames agree on (or a bound is reached: then the players are asked
whether a hand is over the board). The board is compared with the board the game has accepted
(:func:`companion.inference.infer_move`: an accepted square keeps its tile unless a sure reading
says otherwise, and then it is a question), the tile set's counts bound what can lie on it, the
classic rules judge the move, the event is appended to the game log (:mod:`companion.store`)
and only then is the new state published. A turn the table cannot settle is a question on the
page, never a silent guess: the clock goes back to the player, who sets the board right and
presses again.

Frames are judged only after a press: a hand passing over the board between presses is seen
(when the table watches) but can never make a move.

Threads: the hub's game thread owns the session (every change goes through :meth:`Hub.call`);
the table's thread reads the camera and hands the verdict to it. Callbacks (buttons) only
enqueue. Without a started hub (tests, the headless demo) the caller's thread is the game
thread.

Time: the table's clock (:class:`TableClock`) is the monotonic clock continued across restarts:
after a restart it resumes at the last logged time plus the wall-clock time since that event.
A power cut pauses nothing at a real table, so the player on move is charged for the downtime
as if the clock had run on (the only clock that can know that time is the wall clock).
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import Any

from companion.clock.engine import format_ms
from companion.clock.now import monotonic_ms
from companion.core.board import Board
from companion.core.tiles import BLANK, get_tileset
from companion.errors import CompanionError, one_line
from companion.inference import infer_move
from companion.rules import classic
from companion.rules.classic import VerdictKind
from companion.store import (
    DamagedLog,
    GameStore,
    StoredEvent,
    entry_from_json,
    entry_to_json,
    wall_ms,
)
from companion.vision.reading import BLANK_FACE, BoardReading, CellReading
from companion.vision.stabiliser import AGREE, Stabiliser
from companion.web.session import ActionError, ClassicSession

UNREADABLE = "the board could not be read: is a hand over it? Clear the board's view and press again"


class TableClock:
    """The table's time in ms: the monotonic clock, offset so that it continues the log's."""

    def __init__(self, start_ms: int = 0, mono: Callable[[], int] = monotonic_ms) -> None:
        self.mono = mono
        self.offset = start_ms - mono()

    def __call__(self) -> int:
        return self.mono() + self.offset

    @classmethod
    def resumed(cls, last: StoredEvent | None, wall_now: int | None = None,
                mono: Callable[[], int] = monotonic_ms) -> TableClock:
        """After a restart: the last event's time plus the wall-clock time since it was logged
        (never less: a wall clock set back charges nothing)."""
        if last is None:
            return cls(0, mono)
        wall_now = wall_ms() if wall_now is None else wall_now
        return cls(last.at_ms + max(0, wall_now - last.wall_ms), mono)


class SimClock:
    """Scripted time (the headless demo and its tests): it moves only when told."""

    def __init__(self, ms: int = 0) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms

    def set(self, ms: int) -> None:
        self.ms = max(self.ms, ms)


# --- the session with its log on disk -----------------------------------------------------------


class LoggedGame:
    """What every game at the table shares with the game log: each change appended before it is
    published (with the caller's ``ref``, the demo's step, so that a restart knows how far it
    got), and the log folded back by the game's own ``_replay_event``."""

    store: GameStore | None
    game_id: str
    ref: int | None
    last_ref: int
    _replaying: bool
    # What the table is built for: how many boards (one camera and one loop each), at which of
    # them a player sits, their grid, the tiles on them, and how many players press buttons.
    boards = 1
    grid = 15

    def board_of(self, player: int) -> int:
        return 0

    @property
    def tileset_name(self) -> str:
        raise NotImplementedError

    @property
    def seats(self) -> int:
        raise NotImplementedError

    def _store_event(self, kind: str, payload: dict[str, Any], at_ms: int) -> None:
        if self._replaying or self.store is None:
            return
        if self.ref is not None:
            payload = {**payload, "ref": self.ref}
            self.last_ref = max(self.last_ref, self.ref)
        try:
            self.store.append(self.game_id, kind, payload, at_ms)
        except CompanionError as exc:
            self._refold()
            raise ActionError(f"not saved: {exc}", 503) from None

    def _refold(self) -> None:
        """After a write that failed (a full disk), the game as its log has it: the change the
        write was for (already made in memory) is dropped, so that what the page shows and what
        comes next never part from the log. Once there is room again the game goes on from it."""
        try:
            fresh = type(self).restore(self.store, lexicon_for=getattr(self, "_lexicon_for", None))  # type: ignore
        except Exception:  # noqa: BLE001 - the failed write's own error is the one to report
            return
        if fresh is not None and fresh.game_id == self.game_id:
            revision = getattr(self, "revision", 0)
            self.__dict__.update(fresh.__dict__)
            if hasattr(self, "revision"):
                self.revision = revision + 1  # the page shows the game as it is now

    def _replay_event(self, e: StoredEvent) -> None:
        raise NotImplementedError

    def _replay_events(self, events: Sequence[StoredEvent]) -> None:
        """The events after the game's start, replayed; then the game is live again."""
        for e in events:
            self._replay_event(e)
            if "ref" in e.payload:
                self.last_ref = max(self.last_ref, int(e.payload["ref"]))
        self._replaying = False


class TableSession(LoggedGame, ClassicSession):
    """:class:`ClassicSession` whose every log entry and clock action is appended to the game
    log before the state is published, restorable by :meth:`restore` to the same state and
    clocks. Adds what the table does: a press (:meth:`press`) and the verdict on what the camera
    then saw (:meth:`judge`)."""

    @property
    def grid(self) -> int:  # type: ignore[override]
        return self.state.board.layout.rows

    @property
    def tileset_name(self) -> str:
        return self.state.tileset.name

    @property
    def seats(self) -> int:
        return len(self.state.players)

    def __init__(self, store: GameStore, names: Sequence[str] = ("Player 1", "Player 2"), *,
                 control: Any = "tournament", challenge: str = "single", tileset: str = "en",
                 seed: int | None = None, now_ms: int = 0,
                 lexicon_for: Callable[[str], Container[str]] | None = None, _replaying: bool = False) -> None:
        self.store = store
        self._replaying = _replaying
        self._latest = now_ms
        self.ref: int | None = None  # the caller's mark for the events stored next
        self.last_ref = -1
        self.pending_press: dict[str, int] | None = None  # a press not judged yet
        self.questions: list[str] = []  # what the table asks now
        self.last_event_wall: int | None = None
        super().__init__(names, control=control, challenge=challenge, tileset=tileset, seed=seed, now_ms=now_ms,
                         lexicon_for=lexicon_for)

    # -- the log --

    def _at(self, now_ms: int) -> int:
        """Time never runs backwards for the clocks: a press stamped before the last tick
        counts at the tick."""
        self._latest = max(self._latest, int(now_ms))
        return self._latest

    def _start(self, now_ms: int, *, names: Any, control: Any, challenge: Any, tileset: Any, seed: Any, by: str) -> None:
        super()._start(now_ms, names=names, control=control, challenge=challenge, tileset=tileset, seed=seed, by=by)
        self._latest = max(self._latest, now_ms)
        self.pending_press, self.questions = None, []
        self._store_event("entry", {"entry": entry_to_json(self._log[0]), "settings": {"control": control}}, now_ms)

    def _append(self, now_ms: int, by: str, event: Any) -> Any:
        now_ms = self._at(now_ms)
        n = len(self._log)
        verdicts = super()._append(now_ms, by, event)
        for entry in self._log[n:]:
            self._store_event("entry", {"entry": entry_to_json(entry)}, now_ms)
        return verdicts

    def tick(self, now_ms: int) -> None:
        super().tick(self._at(now_ms))

    # -- clock actions, each logged --

    def _clock(self, op: str, at: int, player: int | None = None) -> None:
        at = self._at(at)
        if op == "start" or op == "resume":
            super().resume(at)
        elif op == "pause":
            super().pause(at)
        elif op == "press":
            assert self.clocks is not None and player is not None
            self.clocks.press(player, at)
            self.pending_press = {"player": player, "at": at}
        elif op == "sync":
            self._sync_clock(at)
            self.pending_press = None
        else:
            raise ValueError(f"unknown clock action {op!r}")
        self._store_event("clock", {"op": op, "player": player}, at)

    def pause(self, now_ms: int) -> None:
        self._clock("pause", now_ms)

    def resume(self, now_ms: int) -> None:
        self._clock("resume", now_ms)

    # -- the table's turn --

    def press(self, player: int, at_ms: int) -> str:
        """A player's clock button: ``start`` (the clock started), ``judge`` (the clock switched:
        now look at the board) or ``ignored: why``."""
        state, clocks = self.state, self.clocks
        if not 0 <= player < len(state.players):
            return "ignored: no such player"
        if state.over:
            return "ignored: the game is over"
        if self.pending_press is not None:
            return "ignored: the last press is still being judged"
        if clocks is None:
            if player != state.to_move:
                return "ignored: not on move"
            self.pending_press = {"player": player, "at": self._at(at_ms)}
            self._store_event("clock", {"op": "press", "player": player}, self._latest)
            return "judge"
        if clocks.over:
            return "ignored: the clock has stopped"
        if not any(c.on_move is not None for c in clocks.clocks):
            self._clock("start", at_ms)
            return "start"
        if clocks.paused:
            return "ignored: the clock is paused"
        if player not in clocks.on_move():
            return "ignored: not on move"
        self._clock("press", at_ms, player)
        self.revision += 1
        return "judge"

    def judge(self, now_ms: int, reading: BoardReading | None, lexicon: Container[str] | None = None) -> dict[str, Any]:
        """The verdict on the pending press, from the stable board the camera gave (None: it
        gave none)."""
        press = self.pending_press
        if press is None:
            return {"kind": "nothing to judge"}
        at = self._at(now_ms)
        player = press["player"]
        if reading is None:
            return self._question(at, player, [UNREADABLE])
        state = self.state
        tileset = get_tileset(state.options.tileset)
        lexicon = self._lexicon(state.options.tileset) if lexicon is None else lexicon
        self.observe(reading)
        inferred = infer_move(state.board, reading.cells, tileset, lexicon)
        if inferred.placement is None and inferred.questions:
            return self._question(at, player, list(inferred.questions))
        if inferred.placement is not None:
            too_many = over_counts(state.board, inferred.placement, tileset)
            if too_many:
                return self._question(at, player, too_many)
            action: classic.Action = classic.Play(inferred.placement)
        else:
            action = classic.Pass()
        verdicts = self._append(at, "table", _acted(action))
        if len(verdicts) == 1 and verdicts[0].kind is VerdictKind.REFUSED:
            return self._question(at, player, [verdicts[0].message], said=True)
        self.pending_press = None
        self.questions = []
        if inferred.questions:  # the move stands; which letter a blank stands for is asked
            self._ask(at, player, list(inferred.questions))
        kinds = [v.kind.value for v in verdicts]
        return {"kind": "move" if inferred.placement is not None else "no tiles", "verdicts": kinds,
                "questions": list(inferred.questions)}

    def _question(self, at: int, player: int, questions: list[str], said: bool = False) -> dict[str, Any]:
        self._ask(at, player, questions, said=said)
        # The turn is not over: the clock goes back to the player, who sets it right and presses again.
        if self.clocks is not None:
            self._clock("sync", at)
        self.pending_press = None
        return {"kind": "question", "questions": questions}

    def _ask(self, at: int, player: int, questions: list[str], said: bool = False) -> None:
        self.questions = list(questions)
        if not said:
            for q in questions:
                self._say("question", player, q)
        self._store_event("question", {"player": player, "questions": questions, "said": said}, at)

    # -- restoring --

    @classmethod
    def restore(cls, store: GameStore, game: str | None = None, *,
                lexicon_for: Callable[[str], Container[str]] | None = None) -> TableSession | None:
        """The current game (or ``game``) folded from the log; None when the log has none."""
        game = store.current_game() if game is None else game
        if game is None:
            return None
        events = store.events(game)
        first = events[0]
        if first.kind != "entry":
            return None  # another game's (the dungeon's): a classic table starts a game of its own
        start = entry_from_json(first.payload["entry"])
        ev = start.event
        s = cls(store, ev.names, control=first.payload["settings"]["control"],  # type: ignore[union-attr]
                challenge=ev.options.challenge.value, tileset=ev.options.tileset,  # type: ignore[union-attr]
                seed=ev.seed, now_ms=start.at_ms, lexicon_for=lexicon_for, _replaying=True)  # type: ignore[union-attr]
        if s.game_id != game:
            raise CompanionError(f"{store.path}: game {game} does not replay to itself")
        s._replay_events(events[1:])
        s.last_event_wall = events[-1].wall_ms
        return s

    def _replay_event(self, e: StoredEvent) -> None:
        if e.kind == "entry":
            entry = entry_from_json(e.payload["entry"])
            self._append(entry.at_ms, entry.by, entry.event)
            if self._log[-1] != entry:
                raise CompanionError(
                    f"{self.store.path}: event {e.seq} no longer replays (has the word list changed?); the log is kept")
            if entry.by == "table":
                self.pending_press, self.questions = None, []
        elif e.kind == "clock":
            op, player = e.payload["op"], e.payload.get("player")
            if op == "press" and self.clocks is None:
                self.pending_press = {"player": player, "at": self._at(e.at_ms)}
            else:
                self._clock(op, e.at_ms, player)
        elif e.kind == "question":
            self._ask(e.at_ms, e.payload["player"], e.payload["questions"], said=e.payload.get("said", False))
            if self.clocks is None:
                self.pending_press = None


def resume_or_start(store: GameStore, names: Sequence[str], *, control: Any = "tournament",
                    challenge: str = "single", tileset: str = "en", seed: int | None = None,
                    lexicon_for: Callable[[str], Container[str]] | None = None,
                    clock: Callable[[StoredEvent | None], Any] | None = None,
                    start: Callable[[int], Any] | None = None) -> tuple[Any, Any]:
    """The game in progress in ``store`` (restored from its log: a classic game, or a dungeon
    started from the page), else a new one (``start(now_ms)``, else a classic game); and the
    table's clock continuing the log's time (``clock(last_event)``, :meth:`TableClock.resumed`
    unless given). The one place the demo and ``companion run`` start a table's game."""
    if lexicon_for is None:
        from companion.lexicon import load_lexicon

        lexicon_for = load_lexicon
    try:
        session = _restore(store, lexicon_for)
    except DamagedLog as exc:
        # A log whose events do not fold into a game: left as it is, or (asked for) moved aside.
        if not store.fresh_log:
            raise
        store.set_aside(exc.reason)
        session = None
    now = (clock or TableClock.resumed)(store.last())
    if session is None:
        try:
            if start is not None:
                session = start(now())
            else:
                session = TableSession(store, list(names)[:4], control=control, challenge=challenge,
                                       tileset=tileset, seed=seed, now_ms=now(), lexicon_for=lexicon_for)
        except ActionError as exc:
            raise CompanionError(str(exc)) from None
    return session, now


def _restore(store: GameStore, lexicon_for: Callable[[str], Container[str]]) -> Any:
    """The game in progress in ``store``, folded from its events; None when there is none."""
    try:
        session: Any = TableSession.restore(store, lexicon_for=lexicon_for)
        current = store.current_game()
        if session is None and current is not None and current.startswith("house-"):
            from companion.house_table import HouseSession

            session = HouseSession.restore(store, lexicon_for=lexicon_for)
        elif session is None and current is not None:
            # The game in progress is the solo dungeon (started from the page): it goes on.
            from companion.dungeon_table import DungeonSession

            session = DungeonSession.restore(store, lexicon_for=lexicon_for)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, sqlite3.Error, ActionError) as exc:
        what = f"lacks {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise DamagedLog(store.path, f"its events do not fold into a game (an event {one_line(what)})") from None
    return session


def _acted(action: classic.Action) -> Any:
    from companion.web.session import Acted

    return Acted(action)


def over_counts(board: Board, placement: Any, tileset: Any) -> list[str]:
    """Questions when the board with ``placement`` holds more of a tile than the set has."""
    held: Counter[str] = Counter()
    for _, tile in board.items():
        held[BLANK if tile.blank else tile.letter] += 1
    for t in placement.tiles:
        held[BLANK if t.blank else t.letter] += 1
    out = []
    for letter, n in sorted(held.items()):
        have = tileset.counts.get(letter, 0)
        if n > have:
            name = "blanks" if letter == BLANK else f"{letter} tiles"
            out.append(f"{n} {name} on the board, but the set has {have}: which is misread?")
    return out


# --- frames ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """What the stabiliser needs to know of a frame beyond its reading."""

    present: bool = False  # a hand over the board
    motion: bool = False


@dataclass(frozen=True)
class TruthFrame:
    """A frame whose reading is known without the reader: the synthetic scene's truth (the
    headless demo, the restart test). Never used where the camera is what is tested."""

    reading: BoardReading
    hand: bool = False
    timestamp: float | None = None


def truth_analyser(frame: TruthFrame) -> tuple[BoardReading, Seen]:
    return frame.reading, Seen(frame.hand)


SAME_PLACE = 0.1  # squares: a board found within this of where it was is where it was


def reader_analyser(tileset: str, grid: int = 15, profile: Any = None) -> Callable[[Any], tuple[BoardReading, Seen]]:
    """The board reader on camera frames, and a hand tracker over the stream (a hand over the
    board, or anything moving on it or entering across its edge since the frame before) that
    tells the stabiliser which frames to leave out."""
    from companion.heap import keep_freed_memory
    from companion.vision.grid import GridLocation
    from companion.vision.hands import HandTracker
    from companion.vision.reader import read_board

    keep_freed_memory()  # a reading's buffers reused frame after frame, not mapped anew
    trackers: list[HandTracker] = []

    def tracker_for(location: GridLocation) -> HandTracker:
        # One tracker per place the board is found (a mounted camera's stays put; a moved
        # camera starts a new one, whose first frame counts as moving). The place found jitters
        # by a fraction of a pixel from frame to frame with the sensor's noise: that is the same
        # place. (Keyed by the rounded corners, a jitter across a rounding boundary started a new
        # tracker on every other frame of a still board, each counting it as moving; after a
        # restart the frames' noise fell so that a capture never settled, and the game parted
        # from the uninterrupted one.)
        if not trackers or location.moved_from(trackers[0].location) > SAME_PLACE:
            trackers[:] = [HandTracker(location)]
        return trackers[0]

    def analyse(frame: Any) -> tuple[BoardReading, Seen]:
        reading = read_board(frame.image, tileset=tileset, grid=grid, profile=profile, tracker_for=tracker_for)
        return reading, Seen(bool(reading.extra.get("hand")), bool(reading.extra.get("motion")))

    return analyse


def reading_of_board(board: Board) -> BoardReading:
    """A board as a sure reading: blanks face up (``?``), every tile upright."""
    n, m = board.layout.rows, board.layout.cols
    cells = []
    for r in range(n):
        for c in range(m):
            tile = board[(r, c)]
            if tile is None:
                cells.append(CellReading(r, c))
            else:
                cells.append(CellReading(r, c, "tile", letter=BLANK_FACE if tile.blank else tile.letter, rotation=0))
    return BoardReading(n, m, ((0.0, 0.0),) * 4, tuple(cells))


# --- the loop ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Press:
    player: int
    at_ms: int
    ref: int | None = None


class _Stop:
    pass


class Table:
    """The loop: presses in, verdicts out. ``camera`` has ``read()`` (a frame, or None at the
    end); ``analyse`` turns a frame into (reading, Seen). A burst reads at most
    ``burst_frames`` frames and ``burst_s`` seconds."""

    def __init__(self, hub: Any, camera: Any, analyse: Callable[[Any], tuple[BoardReading, Seen]], *,
                 agree: int = AGREE, burst_frames: int = 40, burst_s: float = 15.0,
                 watch_s: float | None = None, trace: Callable[[str], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.hub, self.camera, self.analyse = hub, camera, analyse
        self.agree, self.burst_frames, self.burst_s, self.watch_s = agree, burst_frames, burst_s, watch_s
        self.trace = trace or (lambda line: None)
        self.clock = clock
        self.inbox: queue.Queue[Press | _Stop] = queue.Queue()
        self.frames = 0
        self.hand_frames = 0
        self.verdicts: list[dict[str, Any]] = []
        self._watch = Stabiliser(agree)
        self._stamp = 0.0
        self._thread: threading.Thread | None = None

    # -- any thread --

    def press(self, player: int, at_ms: int, ref: int | None = None) -> None:
        self.inbox.put(Press(player, at_ms, ref))

    # -- the table's thread --

    def resume_pending(self) -> dict[str, Any] | None:
        """After a restart: a press logged but not judged is judged now (the board as it lies)."""
        pending = self.hub.call(lambda s, now: s.pending_press)
        if pending is None:
            return None
        self.trace("judging the press logged before the restart")
        return self._judge()

    def handle(self, press: Press) -> dict[str, Any]:
        def do(s: TableSession, now: int) -> str:
            s.ref = press.ref
            try:
                return s.press(press.player, press.at_ms)
            finally:
                s.ref = None

        what = self.hub.call(do)
        self.trace(f"press {press.ref} {what}")
        if what != "judge":
            return {"kind": what}
        return self._judge(press.ref)

    def _judge(self, ref: int | None = None) -> dict[str, Any]:
        reading = self.capture()
        self.trace(f"captured {ref} {'board' if reading is not None else 'nothing'}")

        def do(s: TableSession, now: int) -> dict[str, Any]:
            s.ref = ref
            try:
                return s.judge(now, reading)
            finally:
                s.ref = None

        verdict = self.hub.call(do)
        self.verdicts.append(verdict)
        self.trace(f"judged {ref} {verdict['kind']}")
        return verdict

    def _frame(self) -> tuple[Any, BoardReading, Seen, float] | None:
        frame = self.camera.read()
        if frame is None:
            return None
        reading, seen = self.analyse(frame)
        self.frames += 1
        self.hand_frames += bool(seen.present)
        stamp = getattr(frame, "timestamp", None)
        self._stamp = max(self._stamp + 1e-6, float(stamp) if stamp is not None else self._stamp + 1.0)
        return frame, reading, seen, self._stamp

    def capture(self) -> BoardReading | None:
        """A burst: frames until ``agree`` hand-free ones agree on every square."""
        stabiliser = Stabiliser(self.agree)
        start = self.clock()
        for _ in range(self.burst_frames):
            if self.clock() - start > self.burst_s:
                break
            got = self._frame()
            if got is None:
                break
            _, reading, seen, stamp = got
            board = stabiliser.push(stamp, reading, seen)
            if board is not None:
                return board
        return None

    def watch(self, frames: int = 1) -> None:
        """Frames between presses: seen, never judged (a hand over the board makes no move)."""
        for _ in range(frames):
            got = self._frame()
            if got is None:
                return
            _, reading, seen, stamp = got
            self._watch.push(stamp, reading, seen)

    def run(self, stop: threading.Event, each_round: Callable[[], None] | None = None) -> None:
        self.resume_pending()
        last_watch = self.clock()
        while not stop.is_set():
            if each_round is not None:
                each_round()
            try:
                item = self.inbox.get(timeout=0.2)
            except queue.Empty:
                item = None
            if isinstance(item, _Stop):
                return
            if isinstance(item, Press):
                try:
                    self.handle(item)
                except (ActionError, CompanionError) as exc:
                    self.trace(f"press not judged: {exc}")
                continue
            if self.watch_s is not None and self.clock() - last_watch >= self.watch_s:
                last_watch = self.clock()
                self.watch(1)

    def start(self, stop: threading.Event, each_round: Callable[[], None] | None = None) -> Table:
        self._thread = threading.Thread(target=self.run, args=(stop, each_round), name="companion-table", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.inbox.put(_Stop())
        if self._thread is not None:
            self._thread.join(timeout=10)


# --- the buttons -------------------------------------------------------------------------------


def toggle_pause(s: TableSession, now: int) -> str:
    """The pause button: pause the running clock, or resume it."""
    if s.clocks is None or not any(c.on_move is not None for c in s.clocks.clocks):
        return "ignored: the clock has not started"
    if s.clocks.paused:
        s.resume(now)
        return "resumed"
    s.pause(now)
    return "paused"


def lights(s: TableSession, now: int) -> tuple[set[int], set[int]]:
    """The players' LEDs: lit for the players on move, blinking for those in overtime."""
    if s.clocks is None or s.state.over:
        return set(), set()
    on = set(s.clocks.on_move())
    return on, {i for i in on if s.clocks.overtime_ms(i, now) > 0}


def serve_panel(panel: Any, tables: Sequence[Table], hub: Any, stop: threading.Event, say: Callable[[str], None],
                table_of: Callable[[int], int] = lambda player: 0) -> None:
    """The buttons and lights of ``panel`` (:class:`companion.clock.gpio.Panel`) until ``stop``:
    a player's button goes to the table of the player's board (``table_of``; its thread judges
    the press), the pause button to
    the game through the hub; the LEDs follow the session's clocks. Only enqueues and reads:
    the button callbacks' thread and this one never wait for a board to be read.

    The buzzer: a short double beep when a press ends in a question (the player must look at
    the page), the flag's long beep when a player's time runs out (overtime begins)."""
    shown: tuple[set[int], set[int]] | None = None
    heard = [len(t.verdicts) for t in tables]
    while not stop.is_set():
        try:
            button, at = panel.presses.get(timeout=0.1)
        except queue.Empty:
            button = None
        try:
            if button is not None and button.startswith("player"):
                player = int(button[len("player"):]) - 1
                tables[table_of(player)].press(player, at)
                say(f"press {button} at {format_ms(at)}")
            elif button == "pause":
                say(f"pause: {hub.call(toggle_pause)}")
            now_lights = hub.call(lights)
        except (ActionError, CompanionError) as exc:
            say(f"companion: {button}: {exc}")
            continue
        verdicts = []
        for i, t in enumerate(tables):
            new = t.verdicts[heard[i]:]  # (appended by the table's thread; a list append is atomic)
            heard[i] += len(new)
            verdicts += new
        if any(v.get("kind") == "question" for v in verdicts):
            panel.beep("invalid")
        if shown is not None and now_lights[1] - shown[1]:
            panel.beep("flag")
        if now_lights != shown:
            panel.show(*now_lights)
            shown = now_lights
