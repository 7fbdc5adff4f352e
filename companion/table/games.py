"""The games the table plays, each registered once under its name (python-chess's ``variant.py``
is the model: each variant a small class over a shared base).

A :class:`Game` names a game's pieces: its rules module (``rules/<game>.py``), its table session
(``table/<game>.py``), its page view (the session's document), and what the table and the page
need to know of it: tile sets, grid, boards (one camera each), seats, clocks, the settings the
page's new-game form and ``companion serve`` take, the keys it reads from the configuration
file, the organiser's actions the page offers for it, and how its games are told apart in the
game log. ``companion run``, ``serve`` and ``demo``, ``gcg rescore`` and ``hint``, the page's
new-game form, the configuration and the game log read this registry; a game's optional hooks
(``rescore``, ``hint``, ``demo``) decide which commands offer it.

Adding a game: its rules module, its session (and view), and one subclass here, decorated with
:func:`register`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Container, Sequence
from types import ModuleType
from typing import Any, ClassVar

from companion.core.errors import CompanionError, ConfigError, one_line
from companion.core.gcg import LETTERED_ROWS, GameRecord, parse_gcg
from companion.rules.rescore import GameScoring, Rescore, TileSetChoice, choose_tileset, rescore
from companion.rules import classic as classic_rules
from companion.rules import dungeon as dungeon_rules
from companion.rules import house as house_rules
from companion.rules import scrabble3 as scrabble3_rules
from companion.rules import stacking as stacking_rules
from companion.table.classic import ClassicSession, TableSession
from companion.table.dungeon import DungeonSession, start_dungeon
from companion.table.dungeon_snapshot import dungeon_document
from companion.table.hints import HintReport, classic_hints, scrabble3_hints
from companion.table.house import HouseSession
from companion.table.house_snapshot import house_document
from companion.table.review import review_moves
from companion.table.scrabble3 import Scrabble3Session, scrabble3_document
from companion.table.session import PRESETS, TILESETS, ActionError, time_control
from companion.table.snapshot import classic_document
from companion.table.stacking import StackingSession, start_stacking
from companion.table.stacking_snapshot import stacking_document
from companion.table.store import GAME_STARTS, DamagedLog, GameStore, StoredEvent, starts_games

LexiconFor = Callable[[str], Container[str]]


class Game:
    """One game the table plays. Subclasses set the class attributes and override the hooks."""

    name: ClassVar[str]  # the configuration's game.name, the page's form, each session's ``game``
    title: ClassVar[str]  # as the page shows it
    rules: ClassVar[ModuleType]  # the pure rules: rules/<name>.py
    session: ClassVar[type]  # the table session: its ``game`` is ``name``
    view: ClassVar[Callable[[Any, int], dict[str, Any]]]  # the page's document of a session at a time
    log_kind: ClassVar[str]  # the kind of a game's first event in the game log
    # Which event of that kind starts a game: an SQL condition on its JSON ``payload`` (None:
    # any event of the kind). The log finds the game in progress by it (GameStore.current_game).
    log_start: ClassVar[str | None] = None
    tilesets: ClassVar[tuple[str, ...]] = TILESETS
    grid: ClassVar[int] = 15
    boards: ClassVar[int] = 1  # boards on the table, one camera and one loop each
    seats: ClassVar[tuple[int, int]] = (2, 4)  # players, fewest and most
    clocks: ClassVar[bool] = True  # a time control per player (the page offers the presets)
    challenge_modes: ClassVar[tuple[str, ...]] = ()
    # What the page's new-game form and `companion serve` may set (names always).
    settings: ClassVar[tuple[str, ...]] = ("names", "tileset", "seed")
    config_keys: ClassVar[frozenset[str]] = frozenset()  # [game] keys beyond the shared ones
    # The organiser's actions on the page beyond every game's: name -> the session's method,
    # called as method(now_ms, tiles).
    actions: ClassVar[dict[str, str]] = {}
    from_page: ClassVar[bool] = True  # the page's new-game form can start one
    # GCG records: the #game-type values that name this game (`gcg rescore` then plays it by
    # its rules without --game); plain_records: a record that names no such game is this one's.
    record_types: ClassVar[tuple[str, ...]] = ()
    plain_records: ClassVar[bool] = False
    # How `companion demo --game NAME` plays it at the simulated table: "module:attribute" of a
    # demo player in companion/sim (named, not imported: the table imports no simulation).
    demo: ClassVar[str | None] = None

    @classmethod
    def start(cls, store: GameStore | None, now_ms: int, *, lexicon_for: LexiconFor | None = None,
              **settings: Any) -> Any:
        """A new game from the page's (or ``companion serve``'s) settings; ActionError when
        they do not make one."""
        raise NotImplementedError

    @classmethod
    def from_config(cls, cfg: Any, store: GameStore) -> Callable[[int], Any]:
        """``companion run``'s new game from the configuration file: ``start(now_ms)``. Errors
        in the configuration are raised here, before the table starts."""
        names = cfg.player_names()
        return lambda now_ms: cls.start(store, now_ms, names=names, tileset=cfg.tileset)

    @classmethod
    def settings_of(cls, session: Any) -> dict[str, Any] | None:
        """The settings a session of this game runs with, as the configuration gives them
        (None: the game does not say; its configuration is not compared)."""
        return None

    @classmethod
    def configured(cls, cfg: Any) -> dict[str, Any] | None:
        """The settings the configuration file gives a new game of this one (as settings_of)."""
        return None

    @classmethod
    def restore(cls, store: GameStore, lexicon_for: LexiconFor | None = None) -> Any:
        """The game in progress in the log, folded back (it is this game's)."""
        return cls.session.restore(store, lexicon_for=lexicon_for)

    @classmethod
    def owns(cls, first: StoredEvent) -> bool:
        """Whether the log's game that begins with ``first`` is one of this game's."""
        return first.kind == cls.log_kind

    @classmethod
    def rescore(cls, record: GameRecord, tileset: str | None, source: str) -> Rescore:
        """``companion gcg rescore``: every event of ``record`` scored again by this game's rules
        (``tileset``: the one asked for, else the record's). A hook: a game without it has no
        records to rescore."""
        raise NotImplementedError

    @classmethod
    def record_notes(cls, record: GameRecord, tileset: str) -> list[str]:
        """What a reader of the rescored record should know of this game's reading of it."""
        return []

    @classmethod
    def hint(cls, record: GameRecord, *, turn: int | None, rack: str | None, top: int, tileset: str | None,
             source: str) -> HintReport:
        """``companion hint``: the best moves before ``turn`` (default: the last) by this game's
        rules. A hook: a game without it gives no hints."""
        raise NotImplementedError

    @classmethod
    def review(cls, session: Any) -> Callable[[Callable[[], bool]], dict[str, Any]] | None:
        """After the game: a job giving each move of the move list its best alternative and the
        points it left on the table (:mod:`companion.table.review`). Made on the game thread
        from what ``session`` holds; run beside it (it takes seconds) as ``job(stopped)``,
        which gives up when ``stopped()`` says so. A hook: None while the game is on; a game
        without it offers no review."""
        raise NotImplementedError

    @classmethod
    def form(cls, current: bool = False) -> dict[str, Any]:
        """The game as the page's new-game form offers it."""
        return {"name": cls.name, "title": cls.title, "available": cls.from_page or current,
                "seats": list(cls.seats), "settings": list(cls.settings), "clocks": cls.clocks,
                "challenge_modes": list(cls.challenge_modes), "tilesets": list(cls.tilesets)}


GAMES: dict[str, type[Game]] = {}


def register(game: type[Game]) -> type[Game]:
    """Adds ``game`` to the registry under its name (a class decorator)."""
    if game.name in GAMES and GAMES[game.name] is not game:
        raise ValueError(f"a game named {game.name!r} is registered already")
    GAMES[game.name] = game
    starts_games(game.log_kind, game.log_start)
    return game


def unregister(name: str) -> None:
    """Takes a game out of the registry (a test's made-up game)."""
    game = GAMES.pop(name, None)
    if game is not None and all(g.log_kind != game.log_kind for g in GAMES.values()):
        GAME_STARTS.pop(game.log_kind, None)


def find_game(name: Any) -> type[Game]:
    """The game registered under ``name``; an ActionError naming the known ones otherwise."""
    if not isinstance(name, str) or name not in GAMES:
        raise ActionError(f"no game {name!r} (known: {', '.join(GAMES)})")
    return GAMES[name]


def provides(game: type[Game], hook: str) -> bool:
    """Whether ``game`` has the hook (a method it overrides, or an attribute it sets)."""
    own, base = getattr(game, hook, None), getattr(Game, hook, None)
    if callable(base):
        return getattr(own, "__func__", own) is not getattr(base, "__func__", base)
    return own is not None


def having(hook: str) -> list[str]:
    """The names of the games that have ``hook`` (a command's --game choices)."""
    return [name for name, game in GAMES.items() if provides(game, hook)]


def named_game(record: GameRecord) -> type[Game] | None:
    """The game a GCG record's #game-type names, None when it names none registered."""
    named = (record.game_type or "").strip().lower()
    return next((g for g in GAMES.values() if named in g.record_types), None)


def record_game(record: GameRecord) -> type[Game]:
    """The game a GCG record is played by: the one its #game-type names, else the plain records' game."""
    game = named_game(record)
    if game is None:
        game = next((g for g in GAMES.values() if g.plain_records), None)
    if game is None or not provides(game, "rescore"):
        raise CompanionError(f"no game rescores a record of game type {one_line(record.game_type or '')!r}")
    return game


def game_of(session: Any) -> type[Game] | None:
    return GAMES.get(getattr(session, "game", None))  # type: ignore[arg-type]


def for_table(players: int, boards: int) -> type[Game] | None:
    """The first game registered that seats ``players`` at ``boards`` boards (a configuration
    that does not name its game)."""
    for game in GAMES.values():
        if game.boards == boards and game.seats[0] <= players <= game.seats[1]:
            return game
    return None


def form(session: Any) -> dict[str, Any]:
    """The page's new-game form: every game, the time controls, the current game's choices."""
    current = game_of(session)
    games = [g.form(current=g is current) for g in GAMES.values()]
    return {
        "games": games,
        "time_controls": [{"name": k, "label": v[0]} for k, v in PRESETS.items()],
        "challenge_modes": list(current.challenge_modes) if current else [],
        "tilesets": list(current.tilesets) if current else list(TILESETS),
        "actions": sorted(current.actions) if current else [],
        # What the current game offers, from the registry (the page branches on these, never on
        # a game's name): a challenge mode, a choice of tile sets, a review after the game.
        "capabilities": {
            "challenge": bool(current and current.challenge_modes),
            "tilesets": bool(current and len(current.tilesets) > 1),
            "review": bool(current and provides(current, "review")),
            # The roll button rolls where the session has dice (:func:`roll_dice`'s own test).
            "dice": callable(getattr(session, "reroll", None)),
        },
    }


def document(session: Any, now_ms: int) -> dict[str, Any]:
    """The page's document: the game's view of ``session``, the new-game form, and what the
    configuration file asks of the next game when it differs from this one."""
    game = game_of(session)
    if game is None:
        raise LookupError(f"no game registered for a {type(session).__name__}")
    return {**game.view(session, now_ms), "options": form(session), "configured": getattr(session, "configured", None)}


def new_game(session: Any, now_ms: int, *, game: Any = None, **settings: Any) -> Any:
    """The organiser's new game (the page's form): the current game started again (None, or
    the session that now holds it), or another game's session (the hub then serves it)."""
    current = game_of(session)
    chosen = find_game(game) if game is not None else current
    if chosen is None:
        raise ActionError("game: which game to start")
    if not chosen.from_page and chosen is not current:
        raise ActionError(f"{chosen.title} is not started from the page", 409)
    unknown = sorted(k for k, v in settings.items() if v is not None and k not in chosen.settings)
    if unknown:
        raise ActionError(f"{unknown[0]}: not a setting of {chosen.title} ({', '.join(chosen.settings)})")
    if chosen is current:
        return session.new_game(now_ms, **{k: v for k, v in settings.items() if v is not None})
    return chosen.start(getattr(session, "store", None), now_ms, lexicon_for=getattr(session, "lexicon_for", None),
                        **{k: v for k, v in settings.items() if v is not None})


def act(session: Any, now_ms: int, action: Any, tiles: Any) -> None:
    """One of the organiser's actions the current game offers on the page."""
    current = game_of(session)
    offered = current.actions if current else {}
    if action not in offered:
        raise ActionError(f"action: {', '.join(offered) or 'none in this game'}", 409 if not offered else 400)
    getattr(session, offered[action])(now_ms, tiles)


def configuration_note(session: Any, cfg: Any) -> dict[str, Any] | None:
    """When the configuration file asks for another game or other settings than the game in
    progress runs with: what it asks, for the next game (the game in progress goes on: it is
    in the log, and stopping it is the organiser's call on the page)."""
    configured_game = find_game(cfg.game)
    running = game_of(session)
    wanted = configured_game.configured(cfg)
    if running is not configured_game:
        return {"game": configured_game.name, "title": configured_game.title, "settings": wanted,
                "differs": ["game"]}
    now = running.settings_of(session)
    if wanted is None or now is None:
        return None
    differs = [k for k in now if now[k] != wanted.get(k)]
    if not differs:
        return None
    return {"game": configured_game.name, "title": configured_game.title, "settings": wanted, "differs": differs}


def resume(store: GameStore, lexicon_for: LexiconFor | None = None) -> Any:
    """The game in progress in the log, folded back by the game it belongs to; None when the log
    has none. Events that do not fold into a game (a renamed key, a value of another type) are
    :class:`DamagedLog`, one line, not a traceback."""
    try:
        current = store.current_game()
        if current is None:
            return None
        first = store.events(current)[0]
        for game in GAMES.values():
            if game.owns(first):
                return game.restore(store, lexicon_for)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, sqlite3.Error, ActionError) as exc:
        what = f"lacks {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise DamagedLog(store.path, f"its events do not fold into a game (an event {one_line(what)})") from None
    raise DamagedLog(store.path, f"the game in progress ({one_line(current)}) is no game this companion plays "
                     f"(its log begins with {one_line(first.kind)!r})")


def resume_or_start(store: GameStore, names: Sequence[str] = (), *, game: str = "classic",
                    lexicon_for: LexiconFor | None = None, clock: Callable[[StoredEvent | None], Any] | None = None,
                    start: Callable[[int], Any] | None = None, **settings: Any) -> tuple[Any, Any]:
    """The game in progress in ``store`` (restored from its log, whichever game it is), else a
    new one (``start(now_ms)``, else ``game`` with ``names`` and ``settings``); and the table's
    clock continuing the log's time (``clock(last_event)``, :meth:`TableClock.resumed` unless
    given). The one place the demo and ``companion run`` start a table's game."""
    from companion.table.table import TableClock

    if lexicon_for is None:
        from companion.lexicon import load_lexicon

        lexicon_for = load_lexicon
    try:
        session = resume(store, lexicon_for)
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
                session = find_game(game).start(store, now(), names=list(names), lexicon_for=lexicon_for, **settings)
        except ActionError as exc:
            raise CompanionError(str(exc)) from None
    return session, now


# --- the games ---------------------------------------------------------------------------------


@register
class Classic(Game):
    name = "classic"
    title = "Classic Scrabble (2-4 players)"
    rules = classic_rules
    session = ClassicSession
    view = staticmethod(classic_document)
    log_kind = "entry"
    log_start = "json_extract(payload, '$.entry.event.type') = 'started'"
    challenge_modes = tuple(m.value for m in classic_rules.ChallengeMode)
    settings = ("names", "control", "challenge", "tileset", "seed", "computers")
    config_keys = frozenset({"challenge"})
    plain_records = True
    demo = "companion.sim.demos:CLASSIC"

    @classmethod
    def rescore(cls, record: GameRecord, tileset: str | None, source: str) -> Rescore:
        return rescore(record, choose_tileset(record, tileset), source)

    @classmethod
    def hint(cls, record: GameRecord, *, turn: int | None, rack: str | None, top: int, tileset: str | None,
             source: str) -> HintReport:
        return classic_hints(record, turn=turn, rack=rack, top=top, tileset=tileset, source=source)

    @classmethod
    def review(cls, session: Any) -> Callable[[Callable[[], bool]], dict[str, Any]] | None:
        if not session.state.over:
            return None
        # The record and the move list as they are now (the job runs on another thread).
        record = parse_gcg(session.gcg(), "the game")
        rows = [dict(row) for row in session.history()]
        return lambda stopped: review_moves(record, rows, lambda rec, turn, rack: cls.hint(
            rec, turn=turn, rack=rack, top=1, tileset=None, source="the game"), stopped)

    @classmethod
    def start(cls, store: GameStore | None, now_ms: int, *, lexicon_for: LexiconFor | None = None,
              **settings: Any) -> Any:
        names = settings.pop("names", None) or ["Player 1", "Player 2"]
        if store is not None:
            return TableSession(store, names, now_ms=now_ms, lexicon_for=lexicon_for, **settings)
        if settings.pop("computers", None):
            raise ActionError("computers: computer seats play at a table with its game log (companion run or serve)")
        return ClassicSession(names, now_ms=now_ms, lexicon_for=lexicon_for, **settings)

    @classmethod
    def from_config(cls, cfg: Any, store: GameStore) -> Callable[[int], Any]:
        control = classic_control(cfg)
        names = cfg.player_names()
        return lambda now_ms: cls.start(store, now_ms, names=names, control=control, challenge=cfg.challenge,
                                        tileset=cfg.tileset)

    @classmethod
    def restore(cls, store: GameStore, lexicon_for: LexiconFor | None = None) -> Any:
        return TableSession.restore(store, lexicon_for=lexicon_for)

    @classmethod
    def settings_of(cls, session: Any) -> dict[str, Any] | None:
        state = session.state
        return {"names": [p.name for p in state.players], "control": session.control_label,
                "challenge": state.options.challenge.value, "tileset": state.options.tileset}

    @classmethod
    def configured(cls, cfg: Any) -> dict[str, Any] | None:
        spec = classic_control(cfg)
        return {"names": cfg.player_names(), "control": time_control(spec)[0], "challenge": cfg.challenge,
                "tileset": cfg.tileset, "control_spec": spec}


def classic_control(cfg: Any) -> dict[str, Any]:
    """The configuration's time control as the classic table takes it: any the clock engine
    has (stages by moves, increment, Bronstein or delay, Scrabble's overtime at any rate)."""
    from companion.table.session import control_spec

    c = cfg.control
    if c is None:
        raise ConfigError(f"{cfg.source}: clock.kind: a stopwatch is for the solo dungeon (game.players = 1)")
    spec = control_spec(c)
    try:
        time_control(spec)
    except ActionError as exc:
        raise ConfigError(f"{cfg.source}: clock: {exc}") from None
    return spec


@register
class House(Game):
    name = "house"
    title = "Scrabble House (two boards, four players)"
    rules = house_rules
    session = HouseSession
    view = staticmethod(house_document)
    log_kind = "house"
    log_start = "json_extract(payload, '$.type') = 'started'"
    boards = 2
    seats = (4, 4)
    challenge_modes = ("void", "consent")  # consent: rule 9, a challenge ends the match
    config_keys = frozenset({"colours"})
    from_page = False  # two cameras: `companion run` with game.boards = 2

    @classmethod
    def start(cls, store: GameStore | None, now_ms: int, *, lexicon_for: LexiconFor | None = None,
              **settings: Any) -> Any:
        names = settings.pop("names", None) or ["Player 1", "Player 2", "Player 3", "Player 4"]
        if "challenge" in settings:
            settings["challenges"] = settings.pop("challenge") == "consent"
        options = house_rules.HouseOptions(**{k: settings.pop(k) for k in ("tileset", "colours", "minutes", "challenges")
                                              if k in settings})
        # The registry offers a seed for every game (the simulated bags' shuffle): House took none.
        seed = settings.pop("seed", None)
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63):
            raise ActionError("seed: a whole number")
        if settings:
            raise ActionError(f"{sorted(settings)[0]}: not a setting of Scrabble House")
        return HouseSession(store, names, options=options, now_ms=now_ms, lexicon_for=lexicon_for,  # type: ignore[arg-type]
                            **({} if seed is None else {"seed": seed}))

    @classmethod
    def from_config(cls, cfg: Any, store: GameStore) -> Callable[[int], Any]:
        """The four players in order, 1 and 2 at board 1 (the bottom edge, the top), 3 and 4 at
        board 2, partners 1 and 3, 2 and 4; each board's set by its colour; sudden-death clocks
        of the first stage's minutes (the rules' flag fall)."""
        from companion.clock.engine import MINUTE_MS

        c = cfg.control
        if c is None or len(c.stages) != 1 or c.stages[0].increment_ms or c.stages[0].bronstein_ms or c.stages[0].delay_ms:
            raise ConfigError(f"{cfg.source}: clock.stages: Scrabble House plays one stage, sudden death")
        minutes = c.stages[0].time_ms / MINUTE_MS
        names = cfg.player_names()
        return lambda now_ms: cls.start(store, now_ms, names=names, tileset=cfg.tileset, colours=cfg.colours,
                                        minutes=minutes, challenge=cfg.challenge)


@register
class Scrabble3(Game):
    name = "scrabble3"
    title = "Scrabble III (21x21, big words, wild JQXZ)"
    rules = scrabble3_rules
    session = Scrabble3Session
    view = staticmethod(scrabble3_document)
    log_kind = "scrabble3"
    # The tiles the camera reads are English tiles; the game's own bag (298, a scoop of 100)
    # is the rules' business.
    tilesets = ("en",)
    grid = 21
    seats = (2, 4)
    settings = ("names", "control", "seed", "deal", "stretch", "final_racks", "scoop")
    actions = {"racks": "enter_racks"}
    demo = "companion.sim.demos:SCRABBLE3"

    @classmethod
    def scoring(cls, record: GameRecord, tileset: str | None) -> tuple[TileSetChoice, GameScoring]:
        """The tile set and the scoring of a Scrabble III record: its own 298-tile set, the 21x21
        board, and its #scrabble3 note lines for pick-offs and blank swaps."""
        from companion.rules.scrabble3_gcg import Scrabble3Scoring, options_of

        if tileset not in (None, scrabble3_rules.TILESET):
            raise CompanionError(f"--game {cls.name} plays with the {scrabble3_rules.TILESET} tile set, not {tileset}")
        if record.orientation == LETTERED_ROWS:
            raise CompanionError("a Scrabble III record letters its columns (#orientation lettered-rows is not taken)")
        return TileSetChoice(scrabble3_rules.TILESET, f"--game {cls.name}"), Scrabble3Scoring(options_of(record))

    @classmethod
    def rescore(cls, record: GameRecord, tileset: str | None, source: str) -> Rescore:
        choice, scoring = cls.scoring(record, tileset)
        return rescore(record, choice, source, game=scoring)

    @classmethod
    def hint(cls, record: GameRecord, *, turn: int | None, rack: str | None, top: int, tileset: str | None,
             source: str) -> HintReport:
        return scrabble3_hints(record, cls.scoring(record, tileset), turn=turn, rack=rack, top=top, source=source,
                               name=cls.name)

    @classmethod
    def review(cls, session: Any) -> Callable[[Callable[[], bool]], dict[str, Any]] | None:
        if not session.state.over:
            return None
        record = parse_gcg(session.gcg(), "the game")
        rows = session.review_rows()
        return lambda stopped: review_moves(record, rows, lambda rec, turn, rack: cls.hint(
            rec, turn=turn, rack=rack, top=1, tileset=None, source="the game"), stopped)

    @classmethod
    def start(cls, store: GameStore | None, now_ms: int, *, lexicon_for: LexiconFor | None = None,
              **settings: Any) -> Any:
        names = settings.pop("names", None) or ["Player 1", "Player 2"]
        return Scrabble3Session(store, names, now_ms=now_ms, lexicon_for=lexicon_for, **settings)

    @classmethod
    def from_config(cls, cfg: Any, store: GameStore) -> Callable[[int], Any]:
        control = classic_control(cfg)
        names = cfg.player_names()
        return lambda now_ms: cls.start(store, now_ms, names=names, control=control)


@register
class Dungeon(Game):
    name = "dungeon"
    title = "The solo dungeon"
    rules = dungeon_rules
    session = DungeonSession
    view = staticmethod(dungeon_document)
    log_kind = "dungeon"
    log_start = "json_extract(payload, '$.op') = 'start'"
    seats = (1, 1)
    clocks = False
    settings = ("names", "tileset", "seed", "objects", "dice")
    actions = {"rack": "enter_rack", "refill": "refill", "burn": "burn"}

    @classmethod
    def start(cls, store: GameStore | None, now_ms: int, *, lexicon_for: LexiconFor | None = None,
              **settings: Any) -> Any:
        return start_dungeon(store, now_ms, lexicon_for=lexicon_for, **settings)

    @classmethod
    def from_config(cls, cfg: Any, store: GameStore) -> Callable[[int], Any]:
        """The set-up rolled with [dice] (count, seed), shown on the page, checked by the camera
        when the player presses."""
        name = cfg.player_names()[0]

        def start(now_ms: int) -> Any:
            return DungeonSession(store, dungeon_rules.roll_setup(dice=cfg.dice, seed=cfg.seed), name=name,
                                  tileset=cfg.tileset, now_ms=now_ms)

        return start


@register
class Stacking(Game):
    """The stacking game (rules/003): the companion deals from its seed, sells from the
    marketplace, marks rainbow tiles with tokens and keeps the stacks the camera cannot see."""

    name = "stacking"
    title = "The stacking game (2-4 players)"
    rules = stacking_rules
    session = StackingSession
    view = staticmethod(stacking_document)
    log_kind = "stacking"
    log_start = "json_extract(payload, '$.op') = 'start'"
    clocks = False  # the text has no clock
    settings = ("names", "tileset", "seed", "length", "area")
    actions = {
        "buy": "buy", "redraw": "redraw", "pass": "pass_turn", "concede": "concede", "name": "name_wild",
    }
    record_types = ("stacking",)  # its records' #game-type (rules/stacking_record.py)
    demo = "companion.sim.demos:STACKING"

    @classmethod
    def rescore(cls, record: GameRecord, tileset: str | None, source: str) -> Rescore:
        from companion.rules.stacking_record import rescore_stacking

        return rescore_stacking(record, choose_tileset(record, tileset), source)

    @classmethod
    def record_notes(cls, record: GameRecord, tileset: str) -> list[str]:
        from companion.rules.stacking_record import options_of, options_text

        options, seed = options_of(record, tileset)
        seeded = f", seed {seed}" if seed is not None else ""
        return [f"stacking game: {options_text(options)}{seeded}"]

    @classmethod
    def start(cls, store: GameStore | None, now_ms: int, *, lexicon_for: LexiconFor | None = None,
              **settings: Any) -> Any:
        return start_stacking(store, now_ms, lexicon_for=lexicon_for, **settings)

    @classmethod
    def restore(cls, store: GameStore, lexicon_for: LexiconFor | None = None) -> Any:
        return StackingSession.restore(store, lexicon_for=lexicon_for)
