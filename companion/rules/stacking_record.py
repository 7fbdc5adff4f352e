"""The stacking game's record: GCG v1.2 plus a few pragmas of its own, written from a game
(:func:`write_record`) and rescored exactly (:func:`rescore_stacking`).

The event lines are plain GCG, so any reader takes the file: a play is ``>ann: RACK 8G MEN +12
40`` with ``.`` for a tile already on the board that the play leaves as it is, a letter for a
tile laid (on an empty square or on top of a tile), lower case for a wild; a pass is ``-``; a
redraw is an exchange of the whole rack, ``-RACK +0`` (GCG scores an exchange +0; the running
total holds the 5 points). What GCG has no word for is said in pragmas, which other readers
skip (docs/stacking.md has the whole grammar):

- header: ``#game-type stacking``, ``#tile-set en``, ``#stacking-options key=value ...`` (the
  rules' options that decide scores and legality), ``#stacking-seed N`` (the seed the game was
  dealt from, for a replay tile by tile);
- after a play, about it: ``#stack H5 G5`` the squares where its tile went on top of a tile,
  ``#rainbow H6`` the squares where it laid a rainbow tile; after a redraw: ``#redraw 5``;
- anywhere after an event, in the order they happened: ``#buy NICK LETTER PRICE TOTAL`` a
  purchase and the buyer's running total after it; ``#concede NICK``; ``#end REASON``
  (pool-empty, all-passed, board-full, conceded).

A purchase is made before its buyer's turn, so its pragma follows the event before that turn;
the buyer's next event then shows a total that is the purchase's total plus the event's score.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, fields, replace
from typing import ClassVar

from companion.core.board import LAYOUTS, STANDARD, Coord
from companion.core.gcg import (
    Event,
    Exchange,
    GameRecord,
    Pass,
    Play,
    Player,
    TimePenalty,
    players_of_events,
)
from companion.core.move import format_square, notation_of, parse_position, placement_from_notation
from companion.core.stacks import StackBoard
from companion.core.words import words_formed
from companion.core.errors import CompanionError
from companion.rules import stacking
from companion.rules.rescore import Rescore, Rescored, TileSetChoice, choose_tileset
from companion.rules.stacking import (
    REDRAW_COST,
    EndReason,
    GameLength,
    Outcome,
    PremiumRule,
    PriceRule,
    RainbowRule,
    Seeded,
    StackingOptions,
    StackingState,
    VerdictKind,
)

GAME_TYPE = "stacking"
OPTIONS = "stacking-options"
SEED = "stacking-seed"
STACK, RAINBOW, REDRAW, BUY, CONCEDE, END = "stack", "rainbow", "redraw", "buy", "concede", "end"

# --- options as text ---------------------------------------------------------------------------


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def options_text(options: StackingOptions) -> str:
    """The options as ``key=value`` words: what a reader needs to score and judge the game."""
    return " ".join(
        [
            f"length={options.length.value}",
            f"pool={','.join(str(n) for n in options.pool_sizes)}",
            f"rack={options.rack_size}",
            f"market={options.market_size}",
            f"premiums={options.premiums.value}",
            f"prices={options.prices.value}",
            f"rainbows={options.rainbows.value}",
            f"same-letter={_yes(options.same_letter)}",
            f"max-height={options.max_height if options.max_height is not None else 'none'}",
            f"redraw-needs-score={_yes(options.redraw_needs_score)}",
            f"board={options.layout.name}",
            f"area={options.area if options.area is not None else 'all'}",
        ]
    )


def parse_options(text: str, tileset: str) -> StackingOptions:
    """The inverse of :func:`options_text`; keys left out keep their defaults."""
    values: dict[str, object] = {"tileset": tileset}
    for word in text.split():
        key, eq, value = word.partition("=")
        if not eq:
            raise CompanionError(f"#{OPTIONS}: {word!r} is not key=value")
        try:
            if key == "length":
                values["length"] = GameLength(value)
            elif key == "pool":
                sizes = tuple(int(n) for n in value.split(","))
                if len(sizes) != 3:
                    raise ValueError(value)
                values["pool_sizes"] = sizes
            elif key == "rack":
                values["rack_size"] = int(value)
            elif key == "market":
                values["market_size"] = int(value)
            elif key == "premiums":
                values["premiums"] = PremiumRule(value)
            elif key == "prices":
                values["prices"] = PriceRule(value)
            elif key == "rainbows":
                values["rainbows"] = RainbowRule(value)
            elif key in ("same-letter", "redraw-needs-score"):
                if value not in ("yes", "no"):
                    raise ValueError(value)
                values[key.replace("-", "_")] = value == "yes"
            elif key == "max-height":
                values["max_height"] = None if value == "none" else int(value)
            elif key == "board":
                values["layout"] = LAYOUTS[value]
            elif key == "area":
                values["area"] = None if value == "all" else int(value)
            else:
                known = " ".join(w.partition("=")[0] for w in options_text(StackingOptions()).split())
                raise CompanionError(f"#{OPTIONS}: unknown key {key!r} (known: {known})")
        except (ValueError, KeyError):
            raise CompanionError(f"#{OPTIONS}: {key}={value!r} is not a value it takes") from None
    names = {f.name for f in fields(StackingOptions)}
    bad_area = stacking.area_error(values.get("area"), values.get("layout", STANDARD))  # type: ignore[arg-type]
    if bad_area is not None:
        raise CompanionError(f"#{OPTIONS}: {bad_area}")
    return StackingOptions(**{k: v for k, v in values.items() if k in names})  # type: ignore[arg-type]


# --- the events GCG has no line for --------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Purchase(Event):
    """``#buy NICK LETTER PRICE TOTAL``: ``score`` is minus the price as recorded."""

    kind: ClassVar[str] = "purchase"

    letter: str

    @property
    def description(self) -> str:
        return f"buys {self.letter} for {-self.score}"


@dataclass(frozen=True, kw_only=True)
class Concession(Event):
    kind: ClassVar[str] = "concession"

    @property
    def description(self) -> str:
        return "concedes"


@dataclass(frozen=True, kw_only=True)
class GameEnd(Event):
    kind: ClassVar[str] = "end"

    reason: str

    @property
    def description(self) -> str:
        return f"game over: {self.reason}"


@dataclass(frozen=True, kw_only=True)
class Redrawn(Exchange):
    """A redraw, read from its GCG exchange line."""

    kind: ClassVar[str] = "redraw"

    @property
    def description(self) -> str:
        return f"redraw {self.tiles or self.count}"


# --- writing ---------------------------------------------------------------------------------


def rack_text(rack: Iterable[str]) -> str:
    """A rack as GCG writes it: letters in order, then ``?`` for each wild."""
    tiles = list(rack)
    return "".join(sorted(t for t in tiles if t != "?")) + "?" * tiles.count("?")


def nick_of(name: str) -> str:
    """A GCG nickname is one word."""
    return "_".join(name.split()) or "player"


def _squares(coords: Iterable[Coord]) -> str:
    return " ".join(format_square(c) for c in sorted(coords))


def write_record(
    start: StackingState, steps: Sequence[tuple[stacking.Action, Outcome]], *, title: str | None = None
) -> GameRecord:
    """The record of a game: ``start`` as :func:`stacking.new_game` made it, then each action
    and its outcome in order (refused actions are left out)."""
    nicks = [nick_of(p.name) for p in start.players]
    if len(set(nicks)) != len(nicks):
        raise CompanionError("two players' names make the same GCG nickname")
    header = [f"#{OPTIONS} {options_text(start.options)}"]
    if isinstance(start.randomness, Seeded):
        header.append(f"#{SEED} {start.randomness.seed}")
    events: list[Event] = []

    def after_last(pragma: str) -> None:
        if events:
            events[-1] = replace(events[-1], pragmas=events[-1].pragmas + (pragma,))
        else:
            header.append(pragma)

    before = start
    for action, out in steps:
        if out.verdicts and out.verdict.kind is VerdictKind.REFUSED:
            continue
        v = out.verdict
        me = v.player
        nick = nicks[me]
        player_before = before.players[me]
        total = out.state.players[me].score
        if isinstance(action, stacking.Buy):
            after_last(f"#{BUY} {nick} {action.letter.upper()} {-v.points} {total}")
        elif isinstance(action, stacking.Play):
            placement = action.placement
            top = before.board.top
            direction = words_formed(top, placement)[0].direction
            position, word = notation_of(top, placement, direction)
            pragmas: tuple[str, ...] = ()
            stacked = [t.coord for t in placement.tiles if t.coord in top]
            if stacked:
                pragmas += (f"#{STACK} {_squares(stacked)}",)
            if action.rainbow:
                pragmas += (f"#{RAINBOW} {_squares(action.rainbow)}",)
            events.append(
                Play(
                    nick=nick,
                    rack=rack_text(player_before.rack),
                    position=position,
                    word=word,
                    score=v.points,
                    total=total,
                    pragmas=pragmas,
                )
            )
        elif isinstance(action, stacking.Pass):
            events.append(Pass(nick=nick, rack=rack_text(player_before.rack), score=0, total=total))
        elif isinstance(action, stacking.Redraw):
            tiles = rack_text(player_before.rack)
            events.append(
                Exchange(
                    nick=nick,
                    rack=tiles,
                    tiles=tiles,
                    count=len(tiles),
                    score=0,
                    total=total,
                    pragmas=(f"#{REDRAW} {-v.points}",),
                )
            )
        elif isinstance(action, stacking.Concede):
            after_last(f"#{CONCEDE} {nick}")
        if out.state.over and out.state.end is not None:
            after_last(f"#{END} {out.state.end.value}")
        before = out.state
    return GameRecord(
        players=tuple(Player(i + 1, nick, p.name) for i, (nick, p) in enumerate(zip(nicks, start.players))),
        events=tuple(events),
        title=title,
        tile_set=start.options.tileset,
        game_type=GAME_TYPE,
        pragmas=tuple(header),
    )


# --- reading the pragmas ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pragma:
    key: str
    args: tuple[str, ...]
    line: int


def _pragmas(lines: Sequence[str], numbers: Sequence[int], default_line: int) -> list[_Pragma]:
    out = []
    for i, text in enumerate(lines):
        key, _, rest = text[1:].partition(" ")
        line = numbers[i] if i < len(numbers) else default_line
        try:
            args = tuple(shlex.split(rest))
        except ValueError:
            args = tuple(rest.split())
        out.append(_Pragma(key, args, line))
    return out


def _square(text: str, board: StackBoard) -> Coord:
    """A square as format_square writes it (``H5``: column, then row)."""
    return parse_position(text, board.layout)[0]


def options_of(record: GameRecord, tileset: str) -> tuple[StackingOptions, int | None]:
    """The record's options (defaults where it names none) and its seed, if it gives one."""
    options = StackingOptions(tileset=tileset)
    seed = None
    for pragma in _pragmas(record.pragmas, (), 0):
        if pragma.key == OPTIONS:
            options = parse_options(" ".join(pragma.args), tileset)
        elif pragma.key == SEED:
            if len(pragma.args) != 1 or not pragma.args[0].lstrip("-").isdigit():
                raise CompanionError(f"#{SEED} takes one whole number")
            seed = int(pragma.args[0])
    return options, seed


# --- rescoring ---------------------------------------------------------------------------------


@dataclass
class _Game:
    """What the rescoring has rebuilt so far."""

    board: StackBoard
    rainbow: frozenset[Coord]
    totals: list[int]
    recorded: list[int]  # each player's last recorded total
    purchases: list[int]
    conceded: set[int]
    passes_in_a_row: int = 0


def rescore_stacking(record: GameRecord, tileset: TileSetChoice, source: str = "GCG") -> Rescore:
    """Replay a stacking record and score every event again: plays (stack heights, premiums,
    wilds, rainbow doubles), purchases (each player's price sequence, never below zero),
    redraws (5 points), passes; check a concession and the recorded end. A record that cannot
    be replayed raises :class:`CompanionError` naming the line."""
    options, _ = options_of(record, tileset.name)
    ts = stacking.get_tileset(tileset.name)
    seats = players_of_events(record)
    nicks = {p.nick: i for i, p in enumerate(record.players)}
    n = len(record.players)
    game = _Game(StackBoard(options.layout), frozenset(), [0] * n, [0] * n, [0] * n, set())
    out: list[Rescored] = []

    def fail(line: int, message: str) -> CompanionError:
        return CompanionError(f"{source} line {line}: {message}")

    def seat_of(nick: str, line: int) -> int:
        if nick not in nicks:
            raise fail(line, f"player {nick!r} is not declared by a #playerN pragma")
        return nicks[nick]

    def happening(pragma: _Pragma) -> None:
        """A pragma that is an event of its own: a purchase, a concession, the end."""
        if pragma.key == BUY:
            if len(pragma.args) != 4 or not all(a.lstrip("-").isdigit() for a in pragma.args[2:]):
                raise fail(pragma.line, f"#{BUY} is NICK LETTER PRICE TOTAL")
            nick, letter, recorded_price, recorded_total = (
                pragma.args[0],
                pragma.args[1].upper(),
                *map(int, pragma.args[2:]),
            )
            seat = seat_of(nick, pragma.line)
            if letter not in ts.alphabet:
                raise fail(pragma.line, f"#{BUY}: {letter!r} is not a tile of the {ts.name} set")
            if seat in game.conceded:
                raise fail(pragma.line, f"{nick} buys after conceding")
            cost = stacking.price(game.purchases[seat], options.prices)
            remark = f"purchase {game.purchases[seat] + 1}: {cost}"
            agrees = recorded_price == cost
            if game.totals[seat] < cost:
                remark += f"; refused by the rules: {game.totals[seat]} points, below zero"
                agrees = False
            game.purchases[seat] += 1
            game.totals[seat] -= cost
            game.recorded[seat] = recorded_total
            event = Purchase(
                nick=nick, letter=letter, score=-recorded_price, total=recorded_total, line=pragma.line
            )
            out.append(Rescored(event, seat, -cost, game.totals[seat], agrees, remark, None, game.board.top))
        elif pragma.key == CONCEDE:
            if len(pragma.args) != 1:
                raise fail(pragma.line, f"#{CONCEDE} is NICK")
            seat = seat_of(pragma.args[0], pragma.line)
            if seat in game.conceded:
                raise fail(pragma.line, f"{pragma.args[0]} concedes twice")
            game.conceded.add(seat)
            event = Concession(nick=pragma.args[0], total=game.recorded[seat], line=pragma.line)
            out.append(Rescored(event, seat, 0, game.totals[seat], True, "", None, game.board.top))
        elif pragma.key == END:
            reasons = [r.value for r in EndReason]
            if len(pragma.args) != 1 or pragma.args[0] not in reasons:
                raise fail(pragma.line, f"#{END} is one of {', '.join(reasons)}")
            reason = EndReason(pragma.args[0])
            active = n - len(game.conceded)
            empty = stacking.empty_squares(game.board, options)
            agrees, remark = {
                EndReason.BOARD_FULL: (empty == 0, f"{empty} squares empty"),
                EndReason.CONCEDED: (active == 1, f"{active} players left"),
                EndReason.ALL_PASSED: (
                    game.passes_in_a_row >= active,
                    f"{game.passes_in_a_row} passes in a row",
                ),
                EndReason.POOL_EMPTY: (True, "as recorded: the pool is not in the record"),
            }[reason]
            seat = 0
            event = GameEnd(
                nick=record.players[0].nick, reason=reason.value, total=game.recorded[0], line=pragma.line
            )
            if not agrees:
                remark = f"{reason.text}? {remark}"
            out.append(Rescored(event, seat, 0, game.totals[seat], agrees, remark, None, game.board.top))
        elif pragma.key in (STACK, RAINBOW, REDRAW):
            pass  # about the event before: read there
        elif pragma.key in (OPTIONS, SEED):
            raise fail(pragma.line, f"#{pragma.key} belongs before the first event")

    for pragma in _pragmas(record.pragmas, (), 0):
        if pragma.key in (STACK, RAINBOW, REDRAW):
            raise CompanionError(
                f"{source}: #{pragma.key} before the first event: it is about the event before it"
            )
        if pragma.key in (BUY, CONCEDE, END):
            happening(pragma)
    for seat, event in zip(seats, record.events):
        pragmas = _pragmas(event.pragmas, event.pragma_lines, event.line)
        if seat in game.conceded and not isinstance(event, TimePenalty):
            raise fail(event.line, f"{event.nick} has conceded and takes no more turns")
        out.append(_rescore_event(event, seat, pragmas, game, options, ts, fail))
        for pragma in pragmas:
            happening(pragma)
    return Rescore(record, tileset, tuple(out), game.board.top)


def _rescore_event(event, seat, pragmas, game: _Game, options, ts, fail) -> Rescored:
    about = {p.key: p for p in pragmas if p.key in (STACK, RAINBOW, REDRAW)}
    for key, pragma in about.items():
        wanted = Exchange if key == REDRAW else Play
        if not isinstance(event, wanted):
            raise fail(
                pragma.line, f"#{key} follows {'a redraw' if key == REDRAW else 'a play'}, not this event"
            )
    if isinstance(event, Play):
        try:
            stacked = {_square(s, game.board) for s in about[STACK].args} if STACK in about else set()
            laid_rainbow = (
                frozenset(_square(s, game.board) for s in about[RAINBOW].args)
                if RAINBOW in about
                else frozenset()
            )
            placement = placement_from_notation(game.board.top, event.position, event.word, stacked)
        except CompanionError as exc:
            raise fail(event.line, str(exc)) from None
        coords = set(placement.coords)
        for s in stacked - coords:
            raise fail(about[STACK].line, f"#{STACK} {format_square(s)}: the play lays no tile there")
        for s in laid_rainbow:
            if s not in coords:
                raise fail(about[RAINBOW].line, f"#{RAINBOW} {format_square(s)}: the play lays no tile there")
            if any(t.blank for t in placement.tiles if t.coord == s):
                raise fail(
                    about[RAINBOW].line, f"#{RAINBOW} {format_square(s)}: a wild tile is never rainbow"
                )
        illegal = stacking.placement_error(game.board, placement, options)
        if illegal is not None:
            raise fail(event.line, f"{event.position} {event.word}: {illegal.message}")
        scored = stacking.score_play(game.board, game.rainbow, placement, laid_rainbow, ts, options)
        game.board = game.board.with_tiles((t.coord, t.tile) for t in placement.tiles)
        game.rainbow = (game.rainbow - coords) | laid_rainbow
        game.passes_in_a_row = 0
        game.totals[seat] += scored.total
        game.recorded[seat] = event.total
        special = [stacking.explain(w, ts) for w in scored.words if max(w.heights) > 1 or w.doubling > 1]
        return Rescored(
            event,
            seat,
            scored.total,
            game.totals[seat],
            scored.total == event.score,
            "; ".join(special),
            None,
            game.board.top,
        )
    if isinstance(event, Pass):
        game.passes_in_a_row += 1
        game.recorded[seat] = event.total
        return Rescored(event, seat, 0, game.totals[seat], event.score == 0, "", None, game.board.top)
    if isinstance(event, Exchange):
        cost = REDRAW_COST
        agrees = event.score == 0
        remark = f"redraw: {cost} points, in the total (GCG scores an exchange +0)"
        if REDRAW in about:
            args = about[REDRAW].args
            if len(args) != 1 or not args[0].isdigit():
                raise fail(about[REDRAW].line, f"#{REDRAW} takes the points it cost")
            if int(args[0]) != cost:
                agrees = False
                remark = f"a redraw costs {cost}, not {args[0]}"
        if options.redraw_needs_score and game.totals[seat] < cost:
            agrees = False
            remark += f"; refused by the rules: {game.totals[seat]} points"
        game.passes_in_a_row = 0
        game.totals[seat] -= cost
        game.recorded[seat] = event.total
        redraw = Redrawn(**{f.name: getattr(event, f.name) for f in fields(event)})
        return Rescored(redraw, seat, -cost, game.totals[seat], agrees, remark, None, game.board.top)
    if isinstance(event, TimePenalty):
        game.totals[seat] += event.score
        game.recorded[seat] = event.total
        return Rescored(
            event,
            seat,
            event.score,
            game.totals[seat],
            True,
            "as recorded: time is not on the board",
            None,
            game.board.top,
        )
    raise fail(event.line, f"the stacking game has no {event.kind.replace('-', ' ')} events")


# --- replaying a dealt game ----------------------------------------------------------------------


def replay_record(record: GameRecord, lexicon: Container[str]) -> StackingState:
    """Deal the game again from the record's ``#stacking-seed`` and play every recorded action
    through the rules: each rack the record shows must be the rack dealt, each play legal and
    scored as recorded, each purchase at its recorded price, the end as recorded. The final
    state, or :class:`CompanionError` naming the first line that differs."""
    tileset = choose_tileset(record).name
    options, seed = options_of(record, tileset)
    if seed is None:
        raise CompanionError(f"the record has no #{SEED}: its pool cannot be dealt again")
    state = stacking.new_game([p.name or p.nick for p in record.players], options, seed=seed)
    seats = players_of_events(record)
    nicks = {p.nick: i for i, p in enumerate(record.players)}

    def fail(line: int, message: str) -> CompanionError:
        return CompanionError(f"line {line}: {message}")

    def act(action: stacking.Action, line: int, seat: int) -> Outcome:
        nonlocal state
        if not isinstance(action, stacking.Concede) and state.to_move != seat:
            raise fail(
                line, f"{record.players[seat].nick} acts, but {state.players[state.to_move].name} is to move"
            )
        out = stacking.apply(state, action, lexicon)
        if out.verdict.kind is VerdictKind.REFUSED:
            raise fail(line, f"the rules refuse it: {out.verdict.message}")
        state = out.state
        return out

    def happening(pragma: _Pragma) -> None:
        if pragma.key == BUY:
            seat = nicks[pragma.args[0]]
            out = act(stacking.Buy(pragma.args[1]), pragma.line, seat)
            if -out.verdict.points != int(pragma.args[2]):
                raise fail(pragma.line, f"the purchase costs {-out.verdict.points}, not {pragma.args[2]}")
        elif pragma.key == CONCEDE:
            act(stacking.Concede(nicks[pragma.args[0]]), pragma.line, nicks[pragma.args[0]])
        elif pragma.key == END:
            if not state.over or state.end is None or state.end.value != pragma.args[0]:
                raise fail(pragma.line, f"the game has not ended by {pragma.args[0]}")

    for pragma in _pragmas(record.pragmas, (), 0):
        happening(pragma)
    for seat, event in zip(seats, record.events):
        if event.rack and Counter(event.rack.upper()) != Counter(state.players[seat].rack):
            raise fail(
                event.line, f"the rack dealt is {rack_text(state.players[seat].rack)}, not {event.rack}"
            )
        pragmas = _pragmas(event.pragmas, event.pragma_lines, event.line)
        about = {p.key: p for p in pragmas}
        if isinstance(event, Play):
            stacked = {_square(s, state.board) for s in about[STACK].args} if STACK in about else set()
            rainbow = (
                frozenset(_square(s, state.board) for s in about[RAINBOW].args)
                if RAINBOW in about
                else frozenset()
            )
            placement = placement_from_notation(state.board.top, event.position, event.word, stacked)
            out = act(stacking.Play(placement, rainbow), event.line, seat)
            if out.verdict.points != event.score:
                raise fail(event.line, f"the play scores {out.verdict.points}, not {event.score}")
        elif isinstance(event, Pass):
            act(stacking.Pass(), event.line, seat)
        elif isinstance(event, Exchange):
            act(stacking.Redraw(), event.line, seat)
        else:
            raise fail(event.line, f"the stacking game has no {event.kind.replace('-', ' ')} events")
        if state.players[seat].score != event.total:
            raise fail(event.line, f"the total is {state.players[seat].score}, not {event.total}")
        for pragma in pragmas:
            happening(pragma)
    return state
