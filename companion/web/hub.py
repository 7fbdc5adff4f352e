"""The hub between the game and the pages: one thread owns the game, many threads read it.

- **The game thread** is the only one that touches the session. Requests (and, later, the
  table's camera and buttons) hand it work through :meth:`Hub.call`, which queues a function
  and waits for its result; between calls it polls the clocks (a flag falls on time even when
  nobody acts).
- **The document** is made once per change by the game thread and kept as JSON bytes; the
  polling API and every stream send those same bytes. ``version`` goes up with each change;
  ``epoch`` names this hub's life (a random token made at its start), so a page that outlived
  a restart of the server takes the new server's version 1 instead of dropping it as older
  than the version it holds.
- **Subscribers** (open event streams) each have a bounded queue: the whole document when
  they open, then each change as a patch against the one before (:mod:`companion.web.patch`). Publishing never waits: a
  client whose queue is full is dropped (its browser reconnects and gets a fresh snapshot),
  so a slow phone can never hold up the game. At most ``max_clients`` streams are open.

- **The review** after a game (each move's best alternative, :mod:`companion.table.review`)
  takes seconds: the game's registry hook makes the job on the game thread when the game is
  over, a thread of its own runs it, and the document carries ``review`` (``{"state":
  "working"}``, then the result) for as long as the game is that game, over, with that move
  list. The table's loop never waits for it.

One lock guards the document, the version and the subscribers, and is held only for a few
assignments.
"""

from __future__ import annotations

import json
import logging
import queue
import secrets
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from companion.clock.now import monotonic_ms
from companion.core.errors import one_line
from companion.table.games import document, game_of, provides
from companion.table.session import GameSession
from companion.web.patch import make_patch

T = TypeVar("T")
log = logging.getLogger("companion.web")


@dataclass(eq=False)
class Subscriber:
    queue: "queue.Queue[bytes]"
    first: tuple[int, bytes] = (0, b"")
    dropped: bool = False
    since: float = field(default_factory=time.monotonic)


class HubStopped(Exception):
    pass


class Hub:
    def __init__(
        self,
        session: GameSession,
        *,
        now_ms: Callable[[], int] = monotonic_ms,
        max_clients: int = 64,
        queue_size: int = 32,
        tick_s: float = 0.2,
    ) -> None:
        self.session = session
        self.now_ms = now_ms
        self.max_clients = max_clients
        self.queue_size = queue_size
        self.tick_s = tick_s
        self._lock = threading.Lock()
        self._inline = threading.Lock()
        self._subscribers: set[Subscriber] = set()
        self._inbox: "queue.Queue[tuple[Callable[..., Any], Future[Any]] | None]" = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        self._revision = -1
        self.version = 0
        # Versions count within one epoch only: a restarted server starts again at 1.
        self.epoch = secrets.token_hex(6)
        self.dropped = 0  # subscribers dropped for being too slow, since the start
        self._doc_bytes = b""
        self._doc: dict[str, Any] = {}
        # The review of the game just over: the game, move list and end it is for, and its state.
        self._review_key: tuple[Any, ...] | None = None
        self._review: dict[str, Any] | None = None
        self._review_done = False
        self._review_thread: threading.Thread | None = None
        self._refresh(force=True)

    # -- the game thread --

    def start(self) -> "Hub":
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="companion-game", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        self._inbox.put(None)
        with self._lock:
            # Every open stream wakes and ends.
            for sub in self._subscribers:
                sub.dropped = True
                try:
                    sub.queue.put_nowait(b"")
                except queue.Full:
                    pass
            self._subscribers.clear()
        if self._thread is not None:
            self._thread.join(timeout=5)
        # A review under way gives up at its next move (it reads the word list: not after the
        # companion, or a test and its data directory, is gone).
        if self._review_thread is not None:
            self._review_thread.join(timeout=10)

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def call(self, fn: Callable[[Any, int], T], timeout: float = 10.0) -> T:
        """``fn(session, now_ms)`` run by the game thread; its result, or its exception."""
        if self._thread is None:
            # Not started (a test's hub, a command run once): the caller's thread is the game
            # thread, one at a time.
            with self._inline:
                try:
                    return fn(self.session, self.now_ms())
                finally:
                    self._refresh()
        if self.stopped:
            raise HubStopped("the companion is stopping")
        future: Future[T] = Future()
        self._inbox.put((fn, future))
        return future.result(timeout=timeout)

    def replace_session(self, session: GameSession) -> None:
        """Another game at the table (the organiser started one): called on the game thread
        (inside :meth:`call`); the new game's document is published at once."""
        self.session = session
        self._refresh(force=True)

    def _run(self) -> None:
        while not self.stopped:
            try:
                item = self._inbox.get(timeout=self.tick_s)
            except queue.Empty:
                item = None
            if item is not None:
                fn, future = item
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(fn(self.session, self.now_ms()))
                    except BaseException as exc:  # handed to the caller, who answers for it
                        future.set_exception(exc)
            try:
                self.session.tick(self.now_ms())
                self._refresh()
            except Exception:  # a bug must not stop the game thread: logged, the game goes on
                log.exception("the game thread")

    def _refresh(self, force: bool = False) -> None:
        """After the game thread ran: a new document for every change, published."""
        revision = self.session.revision
        with self._lock:
            force, self._review_done = force or self._review_done, False
        if revision == self._revision and not force:
            return
        now = self.now_ms()
        doc = document(self.session, now)  # the game's page view and the new-game form
        review = self._reviewed(doc)
        if review is not None:
            doc["review"] = review
        with self._lock:
            self._revision = revision
            self.version += 1
            doc = {"version": self.version, "epoch": self.epoch, "server_time": now, **doc}
            data = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            # The streams get what changed (a few hundred bytes a move), not the whole document.
            change = {"base": self.version - 1, "epoch": self.epoch, "patch": make_patch(self._doc, doc)}
            # Kept as its own copy, not the view's: a page view may hand out the session's own
            # lists (the stacking game's and House's move lists), which the next move appends to in
            # place; the kept document would change with them, and the next patch would miss the
            # new move (the Moves table stayed empty on every open page).
            self._doc, self._doc_bytes = json.loads(data), data
            event = sse_event("patch", json.dumps(change, ensure_ascii=False, separators=(",", ":")).encode("utf-8"),
                              event_id=self.version)
            for sub in list(self._subscribers):
                try:
                    sub.queue.put_nowait(event)
                except queue.Full:
                    sub.dropped = True
                    self._subscribers.discard(sub)
                    self.dropped += 1

    def _reviewed(self, doc: dict[str, Any]) -> dict[str, Any] | None:
        """The review of the game in ``doc`` (on the game thread): started when the game is
        over and its game offers one, kept while the game, its move list and its end stay."""
        game = game_of(self.session)
        g = doc.get("game", {})
        if game is None or not g.get("over") or not provides(game, "review"):
            with self._lock:
                self._review_key = self._review = None  # a running job's result is dropped
            return None
        # The game and its move list as they end (an undo and another last move: another review).
        key = (g.get("id"), g.get("result"), json.dumps(doc.get("history"), sort_keys=True))
        with self._lock:
            if key == self._review_key:
                return self._review
        try:
            job = game.review(self.session)
        except Exception as exc:  # a bug must not stop the game thread: no review, the game goes on
            log.exception("the review of the game")
            failed = {"state": "failed", "error": one_line(f"{type(exc).__name__}: {exc}")}
            with self._lock:
                self._review_key, self._review = key, failed
            return self._review
        if job is None:
            return None
        with self._lock:
            self._review_key, self._review = key, {"state": "working"}
        self._review_thread = threading.Thread(target=self._review_run, args=(key, job),
                                               name="companion-review", daemon=True)
        self._review_thread.start()
        return self._review

    def _review_run(self, key: tuple[Any, ...], job: Callable[[Callable[[], bool]], dict[str, Any]]) -> None:
        try:
            result = job(lambda: self.stopped or key != self._review_key)
        except Exception as exc:
            log.exception("the review of the game")
            result = {"state": "failed", "error": one_line(f"{type(exc).__name__}: {exc}")}
        with self._lock:
            if key != self._review_key or self.stopped:
                return  # the game went on (an undo) or another began meanwhile
            self._review, self._review_done = result, True
        # The game thread publishes it (the next tick; at once for a hub not started).
        if self._thread is None:
            self.call(lambda session, now: None)

    # -- readers (any thread) --

    def document(self) -> tuple[int, bytes]:
        with self._lock:
            return self.version, self._doc_bytes

    def document_json(self) -> dict[str, Any]:
        with self._lock:
            return self._doc

    def subscribe(self) -> Subscriber | None:
        """A new stream's queue, or None when ``max_clients`` streams are open. ``sub.first``
        is the document as it was when the queue opened: every patch queued applies to it."""
        with self._lock:
            if len(self._subscribers) >= self.max_clients or self.stopped:
                return None
            sub = Subscriber(queue.Queue(self.queue_size), first=(self.version, self._doc_bytes))
            self._subscribers.add(sub)
            return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        with self._lock:
            self._subscribers.discard(sub)

    @property
    def clients(self) -> int:
        with self._lock:
            return len(self._subscribers)


def sse_event(name: str, data: bytes, event_id: int | None = None) -> bytes:
    """One server-sent event; ``data`` is one line of JSON (no newline inside)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {name}\n".encode() + b"data: " + data + b"\n\n"
