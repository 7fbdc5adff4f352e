"""What Macondo (Woogles' engine) and Quackle accept in a GCG file, as a checker for the files the
project writes (tests/core/test_gcg_interop.py, tests/table/test_replay.py).

Written from reading their readers, not copied from them:

- Macondo, ``gcgio/gcg.go`` (github.com/domino14/macondo): each line, trimmed, is tried against an
  ordered list of regular expressions and the first that matches decides what the line is; a line
  that matches none is an error unless it continues a note. Players are ``#player1``/``#player2``
  with a nick and a real name; every move line has a rack; a play's score is ``+N``; a pass is a
  lone ``-``, an exchange ``-TILES``, a withdrawn play ``--``; end-of-game rack points are
  ``(TILES) +N`` with no rack before them.
- Quackle, ``quackleio/gcgio.cpp`` (github.com/quackle/quackle): lines are split on white space.
  ``#playerN`` needs an abbreviation and a name; an event's first token is ``>nick:``, its second
  the rack, except ``(TILES)`` (end-of-game rack points); then ``--`` (withdrawn), ``-X`` (``-``
  or ``-0`` a pass, ``-N`` N unknown tiles exchanged, ``-TILES``), ``(time) N``,
  ``(challenge) N``, or a position and the tiles of a play.

:func:`macondo_kind` and :func:`quackle_kind` say what each reader takes a line to be (None:
it cannot read it); the kinds are the project's own (:class:`companion.core.gcg.Event.kind`).
"""

from __future__ import annotations

import re

_NICK = r">(?P<nick>\S+):"
# In Macondo's order: the first pattern that matches a line decides its kind.
MACONDO = [
    ("player", r"^#player[12]\s+\S+\s+.+"),
    ("title", r"^#title\s*.*"),
    ("description", r"^#description\s*.*"),
    ("id", r"^#id\s+\S+\s+\S+"),
    ("rack", r"^#rack[12]\s+\S+"),
    ("encoding", r"^#character-encoding\s+[!-~]+"),
    ("play", _NICK + r"\s+\S+\s+\w+\s+\S+\s+\+\d+\s+\d+"),
    ("note", r"^#note\s+.*"),
    ("lexicon", r"^#lexicon\s+.+"),
    ("withdrawn", _NICK + r"\s+\S+\s+--\s+-\d+\s+\d+"),
    ("pass", _NICK + r"\s+\S+\s+-\s+\+0\s+\d+"),
    ("challenge-bonus", _NICK + r"\s+\S*\s+\(challenge\)\s+\+\d+\s+\d+"),
    ("exchange", _NICK + r"\s+\S+\s+-\S+\s+\+0\s+\d+"),
    ("end-rack-points", _NICK + r"\s+\(\S+\)\s+\+\d+\s+-?\d+"),
    ("time-penalty", _NICK + r"(?:\s+\S*)?\s+\(time\)\s+\+?-\d+\s+-?\d+"),
    ("last-rack-penalty", _NICK + r"\s+\S+\s+\(\S+\)\s+-\d+\s+-?\d+"),
    ("game-type", r"^#game-type\s+.*"),
    ("tile-set", r"^#tile-set\s+.*"),
    ("game-board", r"^#game-board\s+.*"),
    ("continuation", r"^#- .*"),
    ("board-layout", r"^#board-layout\s+.*"),
    ("tile-distribution", r"^#tile-distribution\s+.*"),
    ("incomplete", r"^#incomplete.*"),
    ("tile", r"^#tile \S+\s+\S+"),
]
_MACONDO = [(kind, re.compile(p)) for kind, p in MACONDO]

_POSITION = re.compile(r"^(?:\d{1,2}[A-Za-z]|[A-Za-z]\d{1,2})$")
_SIGNED = re.compile(r"^[+-]?\d+$")


def macondo_kind(line: str) -> str | None:
    line = line.strip()
    for kind, pattern in _MACONDO:
        if pattern.search(line):
            return kind
    return None


def quackle_kind(line: str) -> str | None:
    tokens = line.split()
    if not tokens:
        return "blank"
    head = tokens[0]
    if head.startswith("#"):
        if head.startswith("#player"):
            return "player" if len(tokens) >= 3 and head[-1].isdigit() else None
        return head[1:]  # any other pragma is read or skipped without complaint
    if not head.startswith(">"):
        return None
    if not (head.endswith(":") and len(head) > 2) or len(tokens) < 3:
        return None  # ">nick:" then at least a rack and a move
    rack, bite, rest = tokens[1], tokens[2], tokens[3:]
    if rack.startswith("(") and rack.endswith(")"):
        return "end-rack-points" if _SIGNED.match(bite) else None
    if bite.startswith("--"):
        return "withdrawn"
    if bite.startswith("-"):
        x = bite[1:]
        return "pass" if x in ("", "0") else "exchange"
    if bite in ("(time)", "(challenge)"):
        return ("time-penalty" if bite == "(time)" else "challenge-bonus") if rest and _SIGNED.match(rest[0]) else None
    # The tiles: letters of the game's alphabet (any script: German's Ä Ö Ü), "." for a tile there.
    if _POSITION.match(bite) and rest and re.match(r"^(?:[^\W\d_]|[.?])+$", rest[0]):
        return "play"
    return None


def check_lines(text: str, kinds: list[str | None] | None = None) -> list[str]:
    """Every line of ``text`` that Macondo or Quackle would not read as the project meant it:
    ``"line N: ... (macondo: K, quackle: K)"``. ``kinds`` are the event kinds the project's own
    reader found, in order (None: not checked against them)."""
    from companion.core.gcg import parse_gcg

    wanted = iter(kinds if kinds is not None else [e.kind for e in parse_gcg(text).events])
    problems = []
    last_pragma = None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m, q = macondo_kind(line), quackle_kind(line)
        if line.startswith(">"):
            want = next(wanted)
            ok = m == want and q == want
        elif line.startswith("#"):
            ok = m is not None and q is not None
            last_pragma = m
        else:
            ok = last_pragma == "note"  # a note's continuation line: Macondo appends it to the note
            m = q = "continuation"
        if not ok:
            problems.append(f"line {n}: {line!r} (macondo: {m}, quackle: {q})")
    return problems
