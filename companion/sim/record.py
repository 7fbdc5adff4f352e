"""A recorded game played on a session, one event at a time: what the demo shows on the live
page while the table loop (camera and buttons) does not exist yet.

Each step is a function for :meth:`Hub.call`, so the game thread plays it as it will play the
table's moves. A phony the record withdrew is taken off by the director's ruling, so the
house list (which lacks words tournament lists have) does not decide a real game's challenges.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from companion.core.gcg import Exchange, GameRecord, Pass, Play, Withdrawn, board_position
from companion.rules import classic
from companion.table.classic import ClassicSession
from companion.table.session import ActionError

Step = Callable[[ClassicSession, int], Any]


def names_of(record: GameRecord) -> list[str]:
    names: list[str] = []
    for p in record.players:
        name = (p.name or p.nick).replace("_", " ").strip()[:24] or f"Player {p.number}"
        while name in names:
            name = f"{name[:21]} {p.number}"
        names.append(name)
    return names


def steps(record: GameRecord) -> Iterator[tuple[str, Step]]:
    """(what happens, the step) for every event the rules act on; the end of the game follows
    from the rules themselves."""
    seats = {p.nick: i for i, p in enumerate(record.players)}
    for event in record.events:
        seat = seats.get(event.nick, 0)
        if isinstance(event, Play):

            def play(s: ClassicSession, now: int, e: Play = event) -> Any:
                position = board_position(e.position, record.orientation, s.state.board.layout)
                return s.play(now, position, e.word)

            yield f"{event.nick}: {event.position} {event.word}", play
        elif isinstance(event, Pass):
            yield f"{event.nick}: pass", lambda s, now: s.act(now, classic.Pass())
        elif isinstance(event, Exchange):
            tiles = event.tiles.upper() or "?" * event.count
            yield f"{event.nick}: exchange {tiles}", lambda s, now, t=tiles: s.act(now, classic.Exchange(t))
        elif isinstance(event, Withdrawn):
            challenger = (seat + 1) % max(2, len(record.players))

            def withdraw(s: ClassicSession, now: int, by: int = challenger) -> Any:
                try:
                    s.rule_challenge(now, "phony", by)
                except ActionError:
                    pass  # nothing pending: the record withdrew a play the rules never saw

            yield f"{event.nick}: play withdrawn", withdraw

    def last_play_stands(s: ClassicSession, now: int) -> Any:
        if s.state.pending is not None and not s.state.over:
            return s.act(now, classic.Accept())
        return ()

    yield "the last play stands", last_play_stands
