"""The venue's topic tree on the broker (documented in docs/venue.md).

    venue/<event>/table/<n>/log            every event of the table's game log, in the log's
                                           order (QoS 1, not retained): {seq, prev, game, kind,
                                           payload, at_ms, wall_ms}; moves and corrections are
                                           kind "entry", presses "clock", questions "question"
    venue/<event>/table/<n>/game/<game>    the game as it stands (QoS 1, retained): players,
                                           scores, clocks, board, last move, moves, GCG, and the
                                           game's whole log; a screen that joins late has every
                                           game of the event at once
    venue/<event>/table/<n>/status         "online" / "offline" (retained; the broker sends
                                           "offline" as the table's last will)

``seq`` is the game log's own sequence number and ``prev`` the one published before it by the
same table, so a screen can tell a repeat (seq it has) from a gap (prev it lacks). A table's
broker account may write only under its own ``venue/<event>/table/<n>/``; a screen's only reads.
"""

from __future__ import annotations

import re

from companion.core.errors import CompanionError

ROOT = "venue"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
MAX_TABLE = 999


def check_event(event: str) -> str:
    """An event's name as a topic level: letters, digits, ``_ . -`` (no ``/ + #``)."""
    if not isinstance(event, str) or not _NAME.match(event):
        raise CompanionError(f"event name {event!r}: 1 to 64 letters, digits, '_', '.' or '-'")
    return event


def check_table(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_TABLE:
        raise CompanionError(f"table number {n!r}: a whole number from 1 to {MAX_TABLE}")
    return n


def table_root(event: str, n: int) -> str:
    return f"{ROOT}/{check_event(event)}/table/{check_table(n)}"


def log_topic(event: str, n: int) -> str:
    return f"{table_root(event, n)}/log"


def game_topic(event: str, n: int, game: str) -> str:
    return f"{table_root(event, n)}/game/{game}"


def status_topic(event: str, n: int) -> str:
    return f"{table_root(event, n)}/status"


def subscription(event: str) -> str:
    """What a screen subscribes to: every table of the event."""
    return f"{ROOT}/{check_event(event)}/table/+/#"


def parse(topic: str) -> tuple[int, str, str | None] | None:
    """(table, "log" | "game" | "status", the game's id or None), or None for a topic that is
    not a table's."""
    parts = topic.split("/")
    if len(parts) < 5 or parts[0] != ROOT or parts[2] != "table" or not parts[3].isdigit():
        return None
    n = int(parts[3])
    if parts[4] in ("log", "status") and len(parts) == 5:
        return n, parts[4], None
    if parts[4] == "game" and len(parts) == 6 and parts[5]:
        return n, "game", parts[5]
    return None
