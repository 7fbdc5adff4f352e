"""The table: a clock press, a look at the board, a verdict, in the log, on the page.

The one place that wires the pieces (DESIGN.md). A player's press switches the clock at the
moment of the press and starts a capture burst: frames are read until the stabiliser gives a
board that several hand-free frames agree on (or a bound is reached: then the players are asked
whether a hand is over the board). The board is compared with the board the game has accepted
(:func:`companion.table.inference.infer_move`: an accepted square keeps its tile unless a sure reading
says otherwise, and then it is a question), the tile set's counts bound what can lie on it, the
classic rules judge the move, the event is appended to the game log (:mod:`companion.table.store`)
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
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.clock.engine import format_ms
from companion.clock.now import monotonic_ms
from companion.core.errors import CompanionError
from companion.table.classic import TableSession
from companion.table.session import ActionError
from companion.table.store import (
    StoredEvent,
    wall_ms,
)
from companion.vision.reading import BoardReading
from companion.vision.stabiliser import AGREE, Stabiliser


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


# --- frames ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """What the stabiliser needs to know of a frame beyond its reading."""

    present: bool = False  # a hand over the board
    motion: bool = False


SAME_PLACE = 0.1  # squares: a board found within this of where it was is where it was


def reader_analyser(tileset: str, grid: int = 15, profile: Any = None) -> Callable[[Any], tuple[BoardReading, Seen]]:
    """The board reader on camera frames, and a hand tracker over the stream (a hand over the
    board, or anything moving on it or entering across its edge since the frame before) that
    tells the stabiliser which frames to leave out."""
    from companion.pi.heap import keep_freed_memory
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


def roll_dice(s: Any, now: int) -> str:
    """The roll button: the game's dice rolled (the dungeon's set-up, before it stands)."""
    reroll = getattr(s, "reroll", None)
    if reroll is None:
        return f"ignored: {getattr(s, 'game', 'this game')} has no dice"
    return reroll(now)


def lights(s: TableSession, now: int) -> tuple[set[int], set[int]]:
    """The players' LEDs: lit for the players on move, blinking for those in overtime."""
    if s.clocks is None or s.state.over:
        return set(), set()
    on = set(s.clocks.on_move())
    return on, {i for i in on if s.clocks.overtime_ms(i, now) > 0}


def serve_panel(panel: Any, tables: Sequence[Table], hub: Any, stop: threading.Event, say: Callable[[str], None],
                table_of: Callable[[int], int] = lambda player: 0) -> None:
    """The buttons and lights of ``panel`` (:class:`companion.pi.gpio.Panel`) until ``stop``:
    a player's button goes to the table of the player's board (``table_of``; its thread judges
    the press), the pause button to
    the game through the hub; the LEDs follow the session's clocks. Only enqueues and reads:
    the button callbacks' thread and this one never wait for a board to be read.

    The buzzer: a short double beep when a press ends in a question (the player must look at
    the page), the flag's long beep when a player's time runs out (overtime begins). The roll
    button rolls the game's dice (:func:`roll_dice`): a short beep, or the double beep when the
    game has none to roll now."""
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
            elif button == "roll":
                rolled = hub.call(roll_dice)
                say(f"roll: {rolled}")
                panel.beep("invalid" if rolled.startswith("ignored") else "roll")
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
