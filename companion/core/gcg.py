"""GCG v1.2 game records: text in, values out, and back.

The format (John Chew's, poslfit.com/scrabble/gcg) is one line per pragma (``#keyword ...``) or
event (``>nick: ...``). This module knows the syntax only; what an event is worth on a board is
the business of :mod:`companion.rules.rescore`. :func:`decode_gcg` turns bytes into text,
:func:`parse_gcg` the text into a :class:`GameRecord`, :func:`write_gcg` a record back into
text; :func:`read_record` is the one reader of a file, every problem one line.

Dialects met in real files and accepted here (each kept so that writing gives it back):

- CR LF line ends, blank lines, runs of spaces between tokens (Quackle aligns columns);
- lower-case positions (Quackle's ``8b``, ``h10``) and full words where GCG wants ``.`` for a
  tile already on the board (Elise, Quackle, scrabscrap): positions are read by
  :func:`companion.core.move.parse_position`, which takes either case, and
  :func:`companion.core.move.placement_from_notation` accepts a letter matching the tile there;
- text after the running total (Quackle lists the cross-words formed there): kept as ``extra``;
- a score without its sign (scrabscrap's ``-OOU 0 0``);
- a note running on over lines that start with neither ``#`` nor ``>`` (continuation lines).
"""

from __future__ import annotations

import re
from pathlib import Path
from dataclasses import dataclass, field, replace
from typing import Any, Callable, ClassVar

from companion.core.board import Layout
from companion.core.move import format_position, parse_position
from companion.core.errors import CompanionError

MAX_PLAYERS = 4

# The one encoding the v1.2 pragma may name, and the spec's default for files without it (which
# some programs also write out explicitly).
UTF8_NAMES = frozenset({"utf-8", "utf8"})
LATIN1_NAMES = frozenset({"iso-8859-1", "iso8859-1", "iso_8859-1", "latin-1", "latin1"})

# ``#orientation``: how the file names squares. The GCG standard letters the columns (``8D`` is
# row 8, column D). scrabscrap's boards letter the rows instead and say so with
# ``#orientation lettered-rows``: there ``H4`` is row H, column 4, and, as in the standard, the
# coordinate of the row comes first for an across play. That is the standard notation with rows
# and columns swapped, i.e. the whole game transposed.
LETTERED_COLUMNS = "lettered-columns"
LETTERED_ROWS = "lettered-rows"
ORIENTATIONS = (LETTERED_COLUMNS, LETTERED_ROWS)


# --- values --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Player:
    number: int  # N of #playerN, 1..4: the seat, in playing order
    nick: str  # the name events use after '>'
    name: str = ""  # the full name, free text


@dataclass(frozen=True, kw_only=True)
class Event:
    """One event line. ``score`` and ``total`` are as recorded: signed points of this event and
    the player's running total after it. ``line`` is where it was read (not part of equality,
    so that a record written and read back compares equal)."""

    nick: str
    rack: str = ""  # the player's rack before the event, as written ("" when not given)
    score: int = 0
    total: int = 0
    notes: tuple[str, ...] = ()  # the #note pragmas that follow the event, one entry each
    # Pragmas this module does not know that follow the event, whole lines in order: how a
    # game's own extension (the stacking game's #buy, #stack, ...) says what happened in a turn.
    pragmas: tuple[str, ...] = ()
    extra: str = ""  # text after the total (Quackle writes the cross-words formed there)
    line: int = field(default=0, compare=False)
    pragma_lines: tuple[int, ...] = field(default=(), compare=False)  # where each of ``pragmas`` was read

    kind: ClassVar[str] = "event"  # a stable name for machine-readable output


@dataclass(frozen=True, kw_only=True)
class Play(Event):
    """Tiles put on the board: ``position`` as written (``8D`` across, ``D8`` down, either case)
    and ``word`` the whole word along the line, ``.`` for a tile already there, lower case for a
    blank."""

    kind: ClassVar[str] = "play"

    position: str
    word: str


@dataclass(frozen=True, kw_only=True)
class Pass(Event):
    """``-  +0``; also how a turn lost to an unsuccessful challenge is written."""

    kind: ClassVar[str] = "pass"


@dataclass(frozen=True, kw_only=True)
class Exchange(Event):
    """``-ABC +0``, or ``-3`` when only the number of tiles is known (then ``tiles`` is "")."""

    kind: ClassVar[str] = "exchange"

    tiles: str = ""
    count: int


@dataclass(frozen=True, kw_only=True)
class Withdrawn(Event):
    """``--  -N``: the player's last play was challenged off; its tiles leave the board."""

    kind: ClassVar[str] = "withdrawn"


@dataclass(frozen=True, kw_only=True)
class ChallengeBonus(Event):
    """``(challenge) +N``: points for a play that was challenged and stood."""

    kind: ClassVar[str] = "challenge-bonus"


@dataclass(frozen=True, kw_only=True)
class EndRackPoints(Event):
    """``(TILES) +N``: the points a player gets for the tiles left on the other racks."""

    kind: ClassVar[str] = "end-rack-points"

    tiles: str


@dataclass(frozen=True, kw_only=True)
class LastRackPenalty(Event):
    """``RACK (RACK) -N``: a player loses the value of the tiles left on their own rack."""

    kind: ClassVar[str] = "last-rack-penalty"

    tiles: str


@dataclass(frozen=True, kw_only=True)
class TimePenalty(Event):
    """``RACK (time) -N``: points lost for overtime."""

    kind: ClassVar[str] = "time-penalty"


@dataclass(frozen=True)
class GameRecord:
    """A whole GCG file as values. Known pragmas have a field each (their text verbatim, None
    when absent); any other pragma is kept as its whole line, in ``pragmas`` before the first
    event, else in the ``pragmas`` of the event it follows."""

    players: tuple[Player, ...] = ()
    events: tuple[Event, ...] = ()
    title: str | None = None
    description: str | None = None
    id: str | None = None  # "authority identifier", e.g. "io.woogles kYmDwcfkbY"
    lexicon: str | None = None
    tile_set: str | None = None
    game_type: str | None = None
    orientation: str | None = None
    style: str | None = None
    incomplete: str | None = None  # "" for a bare #incomplete
    racks: tuple[tuple[int, str], ...] = ()  # (N, rack) of #rackN: racks left in an unfinished game
    notes: tuple[str, ...] = ()  # notes before the first event
    pragmas: tuple[str, ...] = ()  # unknown pragmas before the first event, whole lines


# Single-valued pragmas and the field each fills.
_TEXT_PRAGMAS = {
    "title": "title",
    "description": "description",
    "id": "id",
    "lexicon": "lexicon",
    "tile-set": "tile_set",
    "game-type": "game_type",
    "orientation": "orientation",
    "style": "style",
    "incomplete": "incomplete",
}


# --- decoding --------------------------------------------------------------------------------

_ENCODING_PRAGMA = re.compile(rb"^#character-encoding[ \t]+(\S+)")


def decode_gcg(data: bytes, source: str = "GCG") -> str:
    """The text of a GCG file's bytes.

    With ``#character-encoding`` on the first line, that encoding (UTF-8; ISO-8859-1 is also
    taken, since it is the default anyway). Without it, strict UTF-8 when the bytes decode as
    such, else ISO-8859-1, the spec's default. Trying UTF-8 first is safe in both directions:
    Latin-1 text with accented letters almost never forms valid UTF-8 sequences, while UTF-8
    read as Latin-1 would turn every non-ASCII letter into two wrong ones (``Ã©`` for ``é``).
    Real files need it: scrabscrap and Macondo write UTF-8 without the pragma.
    """
    if data.startswith(b"\xef\xbb\xbf"):  # a byte order mark some editors add
        data = data[3:]
    if b"\x00" in data:
        line = data.count(b"\n", 0, data.index(b"\x00")) + 1
        raise CompanionError(f"{source} line {line}: a NUL byte: binary data, not a GCG file")
    first = data.split(b"\n", 1)[0].rstrip(b"\r")
    m = _ENCODING_PRAGMA.match(first)
    if m:
        name = m.group(1).decode("ascii", "replace")
        if name.lower() in LATIN1_NAMES:
            return data.decode("latin-1")
        if name.lower() not in UTF8_NAMES:
            raise CompanionError(
                f"{source} line 1: #character-encoding {name} is not supported (GCG v1.2 knows UTF-8 only)"
            )
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise CompanionError(
                f"{source} line {line}: not UTF-8, although #character-encoding says so"
            ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# --- parsing ---------------------------------------------------------------------------------

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_PRAGMA = re.compile(r"^#(?P<key>\S*)\s*(?P<value>.*)$")
_EVENT = re.compile(r"^>(?P<nick>\S+):(?:\s+(?P<rest>.*))?$")
_PLAYER = re.compile(r"^player(?P<n>\d+)$")
_RACK = re.compile(r"^rack(?P<n>\d+)$")

_SCORE = r"(?P<score>[+-]?\d+)\s+(?P<total>-?\d+)(?:\s+(?P<extra>.*))?$"
_OPT_RACK = r"^(?:(?P<rack>\S+)\s+)?"
_POSITION = r"(?P<position>\d{1,2}[A-Za-z]|[A-Za-z]\d{1,2})"
# Order matters: the first pattern that matches names the event.
_EVENT_SHAPES: tuple[tuple[type[Event], re.Pattern[str]], ...] = (
    (TimePenalty, re.compile(_OPT_RACK + r"\(time\)\s+" + _SCORE)),
    (ChallengeBonus, re.compile(_OPT_RACK + r"\(challenge\)\s+" + _SCORE)),
    (EndRackPoints, re.compile(r"^\((?P<tiles>[^\s()]*)\)\s+" + _SCORE)),
    (LastRackPenalty, re.compile(r"^(?P<rack>\S+)\s+\((?P<tiles>[^\s()]*)\)\s+" + _SCORE)),
    (Withdrawn, re.compile(_OPT_RACK + r"--\s+" + _SCORE)),
    (Pass, re.compile(_OPT_RACK + r"-\s+" + _SCORE)),
    (Exchange, re.compile(_OPT_RACK + r"-(?P<tiles>[^\s\-]\S*)\s+" + _SCORE)),
    (Play, re.compile(_OPT_RACK + _POSITION + r"\s+(?P<word>\S+)\s+" + _SCORE)),
)

# The sign an event's score must have: +1 not negative, -1 not positive, 0 exactly zero.
_SIGN = {
    Play: 1,
    ChallengeBonus: 1,
    EndRackPoints: 1,
    Pass: 0,
    Exchange: 0,
    Withdrawn: -1,
    LastRackPenalty: -1,
    TimePenalty: -1,
}
_NAMES = {
    Play: "a play",
    ChallengeBonus: "a challenge bonus",
    EndRackPoints: "end-of-game rack points",
    Pass: "a pass",
    Exchange: "an exchange",
    Withdrawn: "a withdrawn play",
    LastRackPenalty: "a last-rack deduction",
    TimePenalty: "a time penalty",
}


def _shown(text: str, limit: int = 60) -> str:
    """A line quoted on one line of output, however strange its characters."""
    text = text if len(text) <= limit else text[:limit] + "..."
    return repr(text)


def parse_gcg(text: str, source: str = "GCG") -> GameRecord:
    """Read GCG text (already decoded, see :func:`decode_gcg`) into a record.

    Raises :class:`CompanionError` ``"SOURCE line N: what is wrong"`` at the first bad line.
    """
    fields: dict[str, object] = {}
    players: dict[int, Player] = {}
    player_lines: dict[int, int] = {}
    racks: dict[int, str] = {}
    pragmas: list[str] = []
    notes: list[str] = []  # before the first event
    events: list[Event] = []
    in_note = False  # whether a bare line continues the last note

    def fail(n: int, message: str) -> CompanionError:
        return CompanionError(f"{source} line {n}: {message}")

    def add_note(note: str, continuation: bool) -> None:
        if events:
            last = events[-1]
            old = list(last.notes)
            if continuation:
                old[-1] = old[-1] + "\n" + note
            else:
                old.append(note)
            events[-1] = replace(last, notes=tuple(old))
        elif continuation:
            notes[-1] = notes[-1] + "\n" + note
        else:
            notes.append(note)

    lines = _LINE_BREAK.split(text)
    for n, raw in enumerate(lines, start=1):
        line = raw.strip()
        if n == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if not line:
            continue  # blank lines separate nothing; they do not end a note
        if in_note and raw[:1].isspace():
            # An indented line under a note continues it, even one starting with '#' or '>':
            # that is how write_gcg keeps such a note line from reading as a pragma or event.
            add_note(line, continuation=True)
            continue
        if line.startswith("#"):
            in_note = False
            m = _PRAGMA.match(line)
            assert m is not None  # the pattern matches any line starting with '#'
            key, value = m.group("key"), m.group("value").strip()
            if key == "note":
                add_note(value, continuation=False)
                in_note = True
            elif key == "character-encoding":
                if n != 1:
                    raise fail(n, "#character-encoding must be the first line")
                if value.lower() not in UTF8_NAMES | LATIN1_NAMES:
                    raise fail(n, f"#character-encoding {value} is not supported (GCG v1.2 knows UTF-8 only)")
            elif pm := _PLAYER.match(key):
                number = int(pm.group("n"))
                if not 1 <= number <= MAX_PLAYERS:
                    raise fail(n, f"#player{number}: players are numbered 1 to {MAX_PLAYERS}")
                if number in players:
                    raise fail(n, f"#player{number} given twice")
                if not value:
                    raise fail(n, f"#player{number} needs a nickname")
                # Two players may share a nickname (Quackle's "NoName"): players_of_events
                # tells them apart by turn order.
                nick, *name = value.split(None, 1)
                players[number] = Player(number, nick, name[0] if name else "")
                player_lines[number] = n
            elif rm := _RACK.match(key):
                number = int(rm.group("n"))
                if not 1 <= number <= MAX_PLAYERS:
                    raise fail(n, f"#rack{number}: players are numbered 1 to {MAX_PLAYERS}")
                if " " in value:
                    raise fail(n, f"#rack{number}: a rack is one word of tiles, not {_shown(value)}")
                racks[number] = value
            elif key in _TEXT_PRAGMAS:
                if key == "orientation" and value not in ORIENTATIONS:
                    raise fail(
                        n, f"#orientation {_shown(value)} is unknown (known: {', '.join(ORIENTATIONS)})"
                    )
                fields[_TEXT_PRAGMAS[key]] = value
            elif key:
                if events:
                    last = events[-1]
                    events[-1] = replace(
                        last, pragmas=last.pragmas + (line,), pragma_lines=last.pragma_lines + (n,)
                    )
                else:
                    pragmas.append(line)
            else:
                raise fail(n, f"a '#' without a pragma keyword: {_shown(line)}")
            continue
        if line.startswith(">"):
            in_note = False
            event = _parse_event(line, n, fail)
            if not any(p.nick == event.nick for p in players.values()):
                raise fail(n, f"player {event.nick!r} is not declared by a #playerN pragma")
            events.append(event)
            continue
        if in_note:
            add_note(line, continuation=True)
            continue
        raise fail(n, f"neither a pragma ('#...') nor an event ('>nick: ...'): {_shown(line)}")

    if not players and not events and not fields and not pragmas and not notes:
        raise CompanionError(f"{source} line 1: no GCG pragmas or events: not a GCG record")
    numbers = sorted(players)
    if numbers != list(range(1, len(numbers) + 1)):
        missing = min(set(range(1, max(numbers) + 1)) - set(numbers))
        after = min(k for k in numbers if k > missing)
        raise fail(player_lines[after], f"#player{after} but no #player{missing} (players are numbered from 1)")
    return GameRecord(
        players=tuple(players[k] for k in numbers),
        events=tuple(events),
        racks=tuple(sorted(racks.items())),
        notes=tuple(notes),
        pragmas=tuple(pragmas),
        **fields,  # type: ignore[arg-type]
    )


def _parse_event(line: str, n: int, fail: Callable[[int, str], CompanionError]) -> Event:
    m = _EVENT.match(line)
    if not m:
        raise fail(n, f"an event is '>nick: ...': {_shown(line)}")
    nick, rest = m.group("nick"), (m.group("rest") or "").strip()
    for kind, pattern in _EVENT_SHAPES:
        em = pattern.match(rest)
        if em is None:
            continue
        g = em.groupdict()
        score, total = int(g["score"]), int(g["total"])
        sign = _SIGN[kind]
        if (sign == 1 and score < 0) or (sign == -1 and score > 0) or (sign == 0 and score != 0):
            want = {1: "+N", -1: "-N", 0: "+0"}[sign]
            raise fail(n, f"{_NAMES[kind]} scores {want}, not {g['score']}")
        common: dict[str, Any] = dict(nick=nick, rack=g.get("rack") or "", score=score, total=total,
                      extra=(g.get("extra") or "").strip(), line=n)
        if kind is Play:
            word = g["word"]
            bad = sorted({ch for ch in word if not (ch.isalpha() or ch == ".")})
            if bad:
                raise fail(n, f"play {word!r}: {''.join(bad)!r} is neither a letter nor '.'")
            if all(ch == "." for ch in word):
                raise fail(n, f"play {word!r} puts no tile down")
            return Play(position=g["position"], word=word, **common)
        if kind is Exchange:
            tiles = g["tiles"]
            if tiles.isdigit():
                return Exchange(tiles="", count=int(tiles), **common)
            return Exchange(tiles=tiles, count=len(tiles), **common)
        if kind in (EndRackPoints, LastRackPenalty):
            if kind is LastRackPenalty and common["rack"] != g["tiles"]:
                raise fail(n, f"last-rack deduction: rack {common['rack']} and ({g['tiles']}) differ")
            return kind(tiles=g["tiles"], **common)
        return kind(**common)
    raise fail(n, f"not a GCG event (play, pass, exchange, --, (challenge), (RACK), (time)): {_shown(line)}")


def players_of_events(record: GameRecord) -> tuple[int, ...]:
    """The seat (index into ``record.players``) of each event.

    A nickname names its player. Some files give two players the same nickname (Quackle's
    "NoName"); then the seat follows from the turn order, which the format implies: a turn
    (play, pass, exchange) goes to the seat after the last turn's; a withdrawal, a challenge
    bonus or end-of-game rack points to the player of the last turn; a penalty to the next
    candidate seat in order.
    """
    seats: list[int] = []
    last_turn: int | None = None
    count = len(record.players)
    for event in record.events:
        candidates = [i for i, p in enumerate(record.players) if p.nick == event.nick]
        if len(candidates) == 1:
            seat = candidates[0]
        else:
            if isinstance(event, (Play, Pass, Exchange)):
                want = 0 if last_turn is None else (last_turn + 1) % count
            elif isinstance(event, (Withdrawn, ChallengeBonus, EndRackPoints)):
                want = last_turn if last_turn is not None else 0
            else:
                want = ((last_turn if last_turn is not None else -1) + 1) % count
            # The wanted seat if it has this nickname, else the next one in order that has.
            seat = min(candidates, key=lambda i: (i - want) % count)
        if isinstance(event, (Play, Pass, Exchange)):
            last_turn = seat
        seats.append(seat)
    return tuple(seats)


def board_position(position: str, orientation: str | None, layout: Layout) -> str:
    """``position`` in the standard notation (columns lettered), whatever the file's
    ``#orientation``: with lettered rows, the square and direction are transposed."""
    coord, direction = parse_position(position, layout)
    if orientation != LETTERED_ROWS:
        return position
    if layout.rows != layout.cols:
        raise CompanionError(f"#orientation {LETTERED_ROWS} needs a square board")
    return format_position((coord[1], coord[0]), direction.other)


# --- writing ---------------------------------------------------------------------------------


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def event_line(event: Event) -> str:
    """One event as its GCG line (without its notes)."""
    rack = event.rack
    if isinstance(event, Play):
        body = f"{event.position} {event.word}"
    elif isinstance(event, Pass):
        body = "-"
    elif isinstance(event, Exchange):
        body = f"-{event.tiles or event.count}"
    elif isinstance(event, Withdrawn):
        body = "--"
    elif isinstance(event, ChallengeBonus):
        body = "(challenge)"
    elif isinstance(event, EndRackPoints):
        rack, body = "", f"({event.tiles})"
    elif isinstance(event, LastRackPenalty):
        rack, body = event.tiles, f"({event.tiles})"
    elif isinstance(event, TimePenalty):
        body = "(time)"
    else:
        raise CompanionError(f"cannot write an event of type {type(event).__name__}")
    parts = [f">{_written_nick(event.nick)}:"] + ([rack] if rack else []) + [body, _signed(event.score), str(event.total)]
    if event.extra:
        parts.append(event.extra)
    return " ".join(parts)


def _note_lines(note: str) -> list[str]:
    """A note as a #note line and its continuation lines. A continuation line that would read
    as a pragma or an event gets a leading space (readers strip it); blank lines are dropped,
    since a reader skips them."""
    first, *more = note.split("\n")
    out = [f"#note {first}".rstrip()]
    for ln in more:
        ln = ln.strip()
        if ln:
            out.append(" " + ln if ln[0] in "#>" else ln)
    return out


def nick_of(name: str, i: int) -> str:
    """A player's nick for the event lines (no white space in it): the name without its
    spaces, or ``P1``... for a name of nothing but spaces."""
    nick = "".join(ch for ch in printable_name(name) if not ch.isspace())
    return nick or f"P{i + 1}"


def _written_nick(nick: str) -> str:
    """A nick as the file writes it, in the ``#player`` line and its events alike."""
    return "".join(ch for ch in printable_name(nick) if not ch.isspace()) or "?"


def printable_name(name: str) -> str:
    """A player's name fit for a ``#player`` line: without control characters. Names are refused
    with them since issue 30, but a game log written before may hold one (a NUL), and a NUL or a
    newline in a GCG file makes it unreadable to every other program and to our own reader."""
    return "".join(ch if ch.isprintable() else " " for ch in name)


# The rack a line shows when the player's rack is not known (docs/web.md): GCG has no mark for
# "unknown", and both Macondo's and Quackle's readers need a rack on every move line.
UNKNOWN_RACK = "?"


def tiles_played(word: str) -> str:
    """The tiles a play put down, as GCG writes a rack: its letters without the ``.`` of the
    tiles already there (nor a bracketed run of them), a blank as ``?``."""
    out, through = [], False
    for ch in word:
        if ch == "(":
            through = True
        elif ch == ")":
            through = False
        elif ch != "." and not through:
            out.append("?" if ch.islower() else ch)
    return "".join(out)


def with_racks(events: tuple[Event, ...]) -> tuple[Event, ...]:
    """Every move line given a rack, for the programs that need one (Macondo, Woogles, Quackle):
    the rack where it is known; else, for a play, the tiles it put down; for an exchange, the
    tiles exchanged (``?`` each when only their number is known); for a withdrawn play, the
    rack its play was written with; for any other turn, :data:`UNKNOWN_RACK`. End-of-game rack
    points keep their form without a rack (``(TILES) +N``)."""
    last: dict[str, str] = {}
    out: list[Event] = []
    for e in events:
        rack = e.rack
        if not rack and not isinstance(e, EndRackPoints):
            if isinstance(e, Play):
                rack = tiles_played(e.word)
            elif isinstance(e, Exchange):
                rack = e.tiles or "?" * e.count
            elif isinstance(e, Withdrawn):
                rack = last.get(e.nick, UNKNOWN_RACK)
            elif isinstance(e, LastRackPenalty):
                rack = e.tiles
            else:
                rack = UNKNOWN_RACK
            e = replace(e, rack=rack)
        if isinstance(e, Play):
            last[e.nick] = e.rack
        out.append(e)
    return tuple(out)


def write_gcg(record: GameRecord) -> str:
    """The record as GCG v1.2 text: UTF-8 declared on the first line, then the players and the
    other pragmas, the events each followed by its notes, and the racks of an unfinished game."""
    out = ["#character-encoding UTF-8"]
    for p in record.players:
        out.append(f"#player{p.number} {_written_nick(p.nick)} {printable_name(p.name)}".rstrip())
    for key, attr in _TEXT_PRAGMAS.items():
        value = getattr(record, attr)
        if value is not None:
            out.append(f"#{key} {value}".rstrip())
    out.extend(record.pragmas)
    for note in record.notes:
        out.extend(_note_lines(note))
    for event in record.events:
        out.append(event_line(event))
        out.extend(event.pragmas)
        for note in event.notes:
            out.extend(_note_lines(note))
    for number, rack in record.racks:
        out.append(f"#rack{number} {rack}".rstrip())
    return "\n".join(out) + "\n"


def describe(event: Event) -> str:
    """An event in a few words, GCG's own where they are readable."""
    # A game's own events (the stacking game's purchases and redraws) say what they are.
    own = getattr(event, "description", None)
    if own is not None:
        return own
    if isinstance(event, Play):
        return f"{event.position} {event.word}"
    if isinstance(event, Pass):
        return "pass"
    if isinstance(event, Exchange):
        return f"exchange {event.tiles}" if event.tiles else f"exchange {event.count} tiles"
    if isinstance(event, Withdrawn):
        return "-- play withdrawn"
    if isinstance(event, ChallengeBonus):
        return "(challenge) bonus"
    if isinstance(event, EndRackPoints):
        return f"({event.tiles}) rack points"
    if isinstance(event, LastRackPenalty):
        return f"{event.tiles} ({event.tiles}) own rack"
    if isinstance(event, TimePenalty):
        return "(time) penalty"
    return event.kind


# A GCG record is a few kilobytes; anything far larger is not one (and /dev/zero never ends).
MAX_BYTES = 4 * 1024 * 1024


def read_record(path: Path) -> GameRecord:
    """The record in the GCG file at ``path``; any problem is one :class:`CompanionError` line."""
    name = str(path)
    if not path.exists():
        raise CompanionError(f"{name}: no such file")
    if path.is_dir():
        raise CompanionError(f"{name}: is a directory, not a GCG file")
    if not path.is_file():
        raise CompanionError(f"{name}: not a regular file")
    try:
        with path.open("rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise CompanionError(f"{name}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise CompanionError(f"{name}: larger than {MAX_BYTES // (1024 * 1024)} MB: not a GCG record")
    return parse_gcg(decode_gcg(data, name), name)
