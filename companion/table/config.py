"""The companion's one configuration file (TOML), validated, every problem one line naming the key.

Where it is: ``--config FILE``, else ``$COMPANION_CONFIG``, else
``$XDG_CONFIG_HOME/companion/config.toml``, else ``~/.config/companion/config.toml``. A file
named explicitly must exist; the default one may be absent, and then every default holds.
Every key is optional; an unknown key is an error (a typo must not be silently ignored).
:data:`EXAMPLE` is the documented file with every default; ``companion config example``
prints it.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.clock.dice import DICE_COUNTS
from companion.clock.engine import (
    MINUTE_MS,
    ClockGroup,
    Overtime,
    Stage,
    TimeControl,
    scrabble,
)
from companion.clock.pins import DEFAULT_PINS, HEADER, MAX_PLAYERS, PinMap
from companion.core.errors import ConfigError
from companion.pi.mount import FOCUS_CM, LIVE_SIZE
from companion.rules.classic import ChallengeMode
from companion.table.games import GAMES, Game, for_table
from companion.table.session import MAX_NAME, display_name

EXAMPLE = """\
# The companion's configuration. Every key is optional; these are the defaults.

[game]
# name = "classic"   # the game: classic, house or dungeon; by default the first that seats the
                     # players at the boards (1 player: the solo dungeon; 4 at 2 boards: House)
players = 2          # 1 to 4 (1: the solo dungeon)
boards = 1           # 2 for Scrabble House: one clock per board, the players shared evenly
tileset = "en"       # the tiles on the table: "en" or "de"
# names = ["Ann", "Ben"]   # the players in seat order, as the page shows them (default Player 1, ...)
challenge = "single" # void (every word checked when played), single, double or five-points
# colours = ["white", "red"]  # Scrabble House: board 1's set and board 2's, as the profiles name them

[clock]
kind = "countdown"   # or "stopwatch": counts up (the solo dungeon)
# Scrabble overtime: the time runs on below zero, each started minute costs points, and at
# the cap the player loses on time. overtime = false: the flag at 0:00 loses.
overtime = true
overtime_points_per_minute = 10
overtime_cap_minutes = 10
# One press per button within this window (contact bounce, a nervous double press).
lockout_ms = 150
# Stages: each but the last lasts `moves` of a player's moves; the last, the rest of the game.
# A stage may have one of increment_seconds (Fischer), bronstein_seconds, delay_seconds
# (simple delay). For example 40 moves in 90 minutes, then 30 minutes + 30 s a move:
#   stages = [{ minutes = 90, moves = 40 }, { minutes = 30, increment_seconds = 30 }]
stages = [{ minutes = 25 }]

[dice]
count = 2            # the dungeon's dice: 2 or 4
# seed = "any text"  # a reproducible set-up; without it the dice are cryptographically random

[pins]
# BCM numbers (GPIO17 is header pin 11); see hardware/README.md. false: not wired.
player_buttons = [17, 27, 22, 23]   # the first `players` are used
player_leds = [5, 6, 13, 19]        # [] when there are no LEDs
pause_button = 24
roll_button = 25
buzzer = 12
bounce_ms = 10

[camera]
# Where `companion run` gets its frames: "picamera2" (the Raspberry Pi camera), "device" (a
# webcam through OpenCV), "folder" (the photos of a folder, in a loop: for trying it out) or
# "synthetic" (the renderer's photos of a random board: no camera at all).
source = "picamera2"
device = 0           # the camera's number (picamera2, device) or, for device, a path like "/dev/video2"
folder = ""          # source = "folder": the folder of photos (required then)
profile = ""         # a calibration profile (companion calibrate); "": find the board in each frame
# The frame size: by default 2304x1296 from a Raspberry Pi camera (a Camera Module 3's fast mode,
# 57 pixels a square at its height) and 1920x1080 from a webcam (OpenCV's own 640x480 is too
# small for the grid finder); see hardware/README.md's camera table. A webcam that cannot give
# the size asked for says what it gives.
# size = [2304, 1296]
# Camera Module 3 (autofocus): the lens fixed at this distance from the board, in cm (57.5 for
# the standard module at its height, 32.5 for the Wide); "auto": continuous autofocus.
focus_cm = 57.5
exposure_ms = "auto" # or a fixed exposure in ms (under a flickering lamp: 10 on 50 Hz mains, 8.33 on 60 Hz)
gain = "auto"        # or a fixed analogue gain (1.0 to 16.0) with a fixed exposure

# Scrabble House (boards = 2): the second board's camera, the same keys; by default the same
# source with device = 1 (a Raspberry Pi 5 takes two cameras).
# [camera2]
# device = 1
# profile = "/etc/companion/board2.json"

[web]
# The live page on the players' phones, served by `companion run`.
host = "0.0.0.0"     # all addresses: the phones are on the LAN
port = 8080          # 0: any free port (printed at start)
max_clients = 64     # live streams at most; more pages poll
# The organiser's PIN: "" makes six new digits at each start, shown on the console (and the
# journal) and on the page of a browser on the Pi itself. A fixed PIN survives restarts: set it
# with `sudo companion config pin`, which writes its salted hash here.
pin_hash = ""
# Buttons for the clock, pause and roll on the page: always there with `companion run --mock`
# (no real buttons); on real pins only when true (then anyone with the page can press them).
page_buttons = false

# A venue with many tables (docs/venue.md): this table publishes its games to the venue's MQTT
# broker. Without a [venue] table nothing is published.
# [venue]
# host = "192.168.1.10"   # the broker (Mosquitto on the venue's machine)
# port = 1883             # 8883 is usual with TLS
# event = "club-night"    # the event's name in the topics: letters, digits, _ . -
# table = 7               # this table's number (1 to 999): its account may write only its topics
# username = "table7"
# password = "..."        # as `companion venue-broker` made it
# ca_file = ""            # TLS: the CA that signed the broker's certificate ("": no TLS)
# round = 0               # the round being played (0: this table's games counted from 1)
"""

CAMERA_SOURCES = ("picamera2", "device", "folder", "synthetic")
CAMERA_KEYS = {"source", "device", "folder", "profile", "size", "focus_cm", "exposure_ms", "gain"}
CHALLENGES = tuple(m.value for m in ChallengeMode)


@dataclass(frozen=True)
class Config:
    players: int = 2
    boards: int = 1
    control: TimeControl | None = field(default_factory=scrabble)  # None: a stopwatch
    lockout_ms: int = 150
    dice: int = 2
    seed: str | None = None
    pins: PinMap = DEFAULT_PINS
    source: str = "defaults"
    tileset: str = "en"
    camera: CameraConfig = field(default_factory=lambda: CameraConfig())
    web: WebConfig = field(default_factory=lambda: WebConfig())
    names: tuple[str, ...] | None = None  # None: "Player 1", "Player 2", ...
    challenge: str = "single"
    colours: tuple[str, str] = ("white", "red")  # Scrabble House: each board's set (profile set names)
    camera2: CameraConfig | None = None  # Scrabble House: the second board's camera
    game: str = "classic"  # the registry's name (companion.table.games)
    venue: VenueConfig | None = None  # publishing to a venue's broker (companion/venue)

    def player_names(self) -> list[str]:
        return list(self.names) if self.names else [f"Player {i + 1}" for i in range(self.players)]

    def clocks(self) -> ClockGroup:
        return ClockGroup.of(self.control, self.players, self.boards)

    def used_pins(self) -> PinMap:
        """The pin map cut to the players at the table."""
        p = self.pins
        return PinMap(
            p.player_buttons[: self.players],
            p.player_leds[: self.players],
            p.pause_button,
            p.roll_button,
            p.buzzer,
            p.bounce_ms,
        )


@dataclass(frozen=True)
class CameraConfig:
    source: str = "picamera2"
    device: int | str = 0
    folder: str = ""
    profile: str = ""
    size: tuple[int, int] | None = LIVE_SIZE["picamera2"]  # None: the source's own (a folder's photos)
    focus_cm: float | None = FOCUS_CM  # None: continuous autofocus
    exposure_ms: float | None = None  # None: automatic
    gain: float | None = None  # None: automatic


@dataclass(frozen=True)
class WebConfig:
    host: str = "0.0.0.0"
    port: int = 8080
    max_clients: int = 64
    pin_hash: str = ""  # "": a new PIN at each start
    page_buttons: bool = False  # the page's buttons on real pins too (with --mock always)


@dataclass(frozen=True)
class VenueConfig:
    host: str
    port: int
    event: str
    table: int
    username: str = ""
    password: str = ""
    ca_file: str = ""
    round: int = 0


def default_path() -> Path:
    if explicit := os.environ.get("COMPANION_CONFIG"):
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config"
    return base / "companion" / "config.toml"


MAX_CONFIG_BYTES = 256 * 1024  # a configuration is a few KB; a larger file is not one (and is not read whole)


def load_config(path: Path | None = None) -> Config:
    """The configuration at ``path`` (or the default place); any problem is one line."""
    explicit = path is not None or bool(os.environ.get("COMPANION_CONFIG"))
    path = path if path is not None else default_path()
    name = str(path)
    if not path.exists():
        if explicit:
            raise ConfigError(f"{name}: no such configuration file")
        return Config()
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{name}: larger than {MAX_CONFIG_BYTES // 1024} KB: not a configuration file")
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{name}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_config(text, name)


def parse_config(text: str, name: str = "config") -> Config:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML: {exc}") from None
    r = _Reader(name)
    r.known(doc, "", {"game", "clock", "dice", "pins", "camera", "camera2", "web", "venue"})
    game = r.table(doc, "game", {"name", "players", "boards", "tileset", "names"}
                   | {k for g in GAMES.values() for k in g.config_keys})
    clock = r.table(doc, "clock", {
        "kind", "overtime", "overtime_points_per_minute", "overtime_cap_minutes", "lockout_ms", "stages",
    })
    dice = r.table(doc, "dice", {"count", "seed"})
    pins = r.table(doc, "pins", {
        "player_buttons", "player_leds", "pause_button", "roll_button", "buzzer", "bounce_ms",
    })

    players = r.integer(game, "game.players", 2, 1, MAX_PLAYERS)
    boards = r.integer(game, "game.boards", 1, 1, 2)
    if players % boards:
        raise ConfigError(f"{name}: game.boards: {players} players cannot share {boards} boards evenly")
    chosen = _game(r, game, players, boards)

    kind = r.choice(clock, "clock.kind", "countdown", ("countdown", "stopwatch"))
    lockout_ms = r.integer(clock, "clock.lockout_ms", 150, 0, 2000)
    control = None
    if kind == "stopwatch":
        if players != 1 or boards != 1:
            raise ConfigError(f"{name}: clock.kind: a stopwatch is for one player (game.players = 1)")
    else:
        overtime = None
        if r.boolean(clock, "clock.overtime", True):
            overtime = Overtime(
                r.integer(clock, "clock.overtime_points_per_minute", 10, 0, 1000),
                r.duration(clock, "clock.overtime_cap_minutes", 10, MINUTE_MS, positive=True),
            )
        control = TimeControl(_stages(r, clock.get("stages", [{"minutes": 25}])), overtime)

    count = r.integer(dice, "dice.count", 2, 0, 100)
    if count not in DICE_COUNTS:
        raise ConfigError(f"{name}: dice.count: 2 or 4 dice, not {count}")
    seed = dice.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (str, int))):
        raise ConfigError(f"{name}: dice.seed: a text or a whole number, not {seed!r}")

    pin_map = _pins(r, pins, players)
    tileset = r.choice(game, "game.tileset", "en", chosen.tilesets)
    camera = _camera(r, r.table(doc, "camera", CAMERA_KEYS))
    second = r.table(doc, "camera2", CAMERA_KEYS)
    camera2 = _camera(r, second, "camera2", camera.source, 1) if boards == 2 else None
    colours = game.get("colours", ["white", "red"])
    if (not isinstance(colours, list) or len(colours) != 2 or not all(isinstance(c, str) and c.strip() for c in colours)
            or colours[0].strip() == colours[1].strip()):
        raise ConfigError(f"{name}: game.colours: two different set names, board 1's then board 2's")
    web = _web(r, r.table(doc, "web", {"host", "port", "max_clients", "pin_hash", "page_buttons"}))
    names = game.get("names")
    if names is not None:
        if (not isinstance(names, list) or len(names) != players
                or not all(isinstance(n, str) and display_name(n) is not None for n in names)):
            raise ConfigError(f"{name}: game.names: {players} names of 1 to {MAX_NAME} characters, one per player, "
                                 "none of them a control character")
        names = [" ".join(n.split()) for n in names]
        if len({n.casefold() for n in names}) != len(names):
            raise ConfigError(f"{name}: game.names: two players have the same name")
    # The chosen game's challenge modes (Scrabble House: void, or consent, its rule 9).
    modes = tuple(chosen.challenge_modes) or CHALLENGES
    challenge = r.choice(game, "game.challenge", "single" if "single" in modes else modes[0], modes)
    return Config(players, boards, control, lockout_ms, count, None if seed is None else str(seed), pin_map, name,
                  tileset, camera, web, None if names is None else tuple(names), challenge,
                  (colours[0].strip(), colours[1].strip()), camera2, chosen.name, _venue(r, doc))


def _venue(r: _Reader, doc: dict) -> VenueConfig | None:
    if "venue" not in doc:
        return None
    t = r.table(doc, "venue", {"host", "port", "event", "table", "username", "password", "ca_file", "round"})
    for key in ("host", "event", "table"):
        if key not in t:
            raise r.fail(f"venue.{key}", "missing (a venue needs the broker's host, the event and the table number)")
    host = r.text(t, "venue.host", "")
    if not host or any(c.isspace() for c in host):
        raise r.fail("venue.host", f"the broker's name or address, not {host!r}")
    event = r.text(t, "venue.event", "")
    if not event or len(event) > 64 or not all(c.isalnum() or c in "_.-" for c in event):
        raise r.fail("venue.event", f"1 to 64 letters, digits, '_', '.' or '-', not {event!r}")
    ca_file = r.text(t, "venue.ca_file", "")
    if ca_file and not Path(ca_file).expanduser().is_file():
        raise r.fail("venue.ca_file", f"no such file: {ca_file}")
    return VenueConfig(host, r.integer(t, "venue.port", 1883, 1, 65535), event, r.integer(t, "venue.table", 0, 1, 999),
                       r.text(t, "venue.username", ""), r.text(t, "venue.password", ""), ca_file,
                       r.integer(t, "venue.round", 0, 0, 999))


def _game(r: _Reader, game: dict, players: int, boards: int) -> type[Game]:
    """The game the table plays: game.name's, else the first registered that seats the
    players at the boards."""
    if "name" in game:
        chosen = GAMES.get(r.choice(game, "game.name", "classic", tuple(GAMES)))
    else:
        chosen = for_table(players, boards) or next((g for g in GAMES.values() if g.boards == boards), None)
    if chosen is None:
        raise ConfigError(f"{r.name}: game.boards: no game is played on {boards} boards")
    low, high = chosen.seats
    if not low <= players <= high:
        seats = str(low) if low == high else f"{low} to {high}"
        raise ConfigError(f"{r.name}: game.players: {chosen.title} is for {seats} player{'s' if high > 1 else ''}, "
                             f"not {players}")
    if boards != chosen.boards:
        raise ConfigError(f"{r.name}: game.boards: {chosen.title} is played on {chosen.boards}, not {boards}")
    return chosen


def _camera(r: _Reader, t: dict, key: str = "camera", source: str = "picamera2", device: int = 0) -> CameraConfig:
    source = r.choice(t, f"{key}.source", source, CAMERA_SOURCES)
    device = t.get("device", device)
    if isinstance(device, bool) or not isinstance(device, (int, str)) or (isinstance(device, int) and not 0 <= device <= 63):
        raise r.fail(f"{key}.device", f"a camera number from 0 to 63 or a device path, not {device!r}")
    if isinstance(device, str) and not device.strip():
        raise r.fail(f"{key}.device", "an empty path (a number like 0, or a path like \"/dev/video2\")")
    if source == "picamera2" and not isinstance(device, int):
        raise r.fail(f"{key}.device", f"picamera2 takes a camera number, not {device!r}")
    folder = r.text(t, f"{key}.folder", "")
    if source == "folder" and not folder:
        raise r.fail(f"{key}.folder", "missing (source = \"folder\" needs the folder of photos)")
    profile = r.text(t, f"{key}.profile", "")
    size = _size(r, t, f"{key}.size", LIVE_SIZE.get(source))
    focus = r.number_or_auto(t, f"{key}.focus_cm", FOCUS_CM, 5, 500)
    exposure = r.number_or_auto(t, f"{key}.exposure_ms", None, 0.01, 1000)
    gain = r.number_or_auto(t, f"{key}.gain", None, 1.0, 16.0)
    return CameraConfig(source, device, folder, profile, size, focus, exposure, gain)


def _size(r: _Reader, t: dict, key: str, default: tuple[int, int] | None) -> tuple[int, int] | None:
    v = t.get(key.rsplit(".", 1)[-1])
    if v is None:
        return default
    if (not isinstance(v, list) or len(v) != 2 or any(isinstance(n, bool) or not isinstance(n, int) for n in v)
            or not (64 <= v[0] <= 9152 and 64 <= v[1] <= 6944)):
        raise r.fail(key, f"[width, height] in pixels, each 64 or more, like [1920, 1080], not {v!r}")
    return (v[0], v[1])


def _web(r: _Reader, t: dict) -> WebConfig:
    host = r.text(t, "web.host", "0.0.0.0")
    if not host:
        raise r.fail("web.host", "an empty address (\"0.0.0.0\": all addresses)")
    pin_hash = r.text(t, "web.pin_hash", "")
    if pin_hash:
        from companion.core.pin_hash import is_pin_hash

        if not is_pin_hash(pin_hash):
            raise r.fail("web.pin_hash", "not a PIN hash written by `companion config pin` (\"\": a new PIN at each start)")
    return WebConfig(host, r.integer(t, "web.port", 8080, 0, 65535), r.integer(t, "web.max_clients", 64, 1, 1000),
                     pin_hash, r.boolean(t, "web.page_buttons", False))


def _stages(r: _Reader, stages: Any) -> tuple[Stage, ...]:
    key = "clock.stages"
    if not isinstance(stages, list) or not stages:
        raise ConfigError(f"{r.name}: {key}: a list of stages, like [{{ minutes = 25 }}]")
    out = []
    for i, st in enumerate(stages):
        k = f"{key}[{i}]"
        if not isinstance(st, dict):
            raise ConfigError(f"{r.name}: {k}: a table, like {{ minutes = 25 }}")
        r.known(st, k, {"minutes", "moves", "increment_seconds", "bronstein_seconds", "delay_seconds"})
        last = i == len(stages) - 1
        if "minutes" not in st:
            raise ConfigError(f"{r.name}: {k}.minutes: missing (the stage's time)")
        time_ms = r.duration(st, f"{k}.minutes", 0, MINUTE_MS, positive=i == 0)
        if last and "moves" in st:
            raise ConfigError(f"{r.name}: {k}.moves: the last stage lasts the rest of the game")
        if not last and "moves" not in st:
            raise ConfigError(f"{r.name}: {k}.moves: missing (every stage but the last lasts a number of moves)")
        moves = None if last else r.integer(st, f"{k}.moves", 0, 1, 1000)
        bonus = {b: r.duration(st, f"{k}.{b}", 0, 1000) for b in ("increment_seconds", "bronstein_seconds", "delay_seconds")}
        given = [b for b, v in bonus.items() if v]
        if len(given) > 1:
            raise ConfigError(f"{r.name}: {k}: one of {', '.join(given)}, not both")
        out.append(Stage(time_ms, moves, bonus["increment_seconds"], bonus["bronstein_seconds"], bonus["delay_seconds"]))
    return tuple(out)


def _pins(r: _Reader, pins: dict, players: int) -> PinMap:
    d = DEFAULT_PINS
    buttons = r.pin_list(pins, "pins.player_buttons", d.player_buttons)
    leds = r.pin_list(pins, "pins.player_leds", d.player_leds)
    if len(buttons) < players:
        raise ConfigError(f"{r.name}: pins.player_buttons: {players} players need {players} buttons, not {len(buttons)}")
    if leds and len(leds) < players:
        raise ConfigError(f"{r.name}: pins.player_leds: {players} players need {players} LEDs (or [] for none), not {len(leds)}")
    m = PinMap(
        buttons,
        leds,
        r.pin(pins, "pins.pause_button", d.pause_button),
        r.pin(pins, "pins.roll_button", d.roll_button),
        r.pin(pins, "pins.buzzer", d.buzzer),
        r.integer(pins, "pins.bounce_ms", d.bounce_ms, 0, 500),
    )
    # Only the pins in use must differ: a three-player table may wire a spare.
    used = {
        **{f"pins.player_buttons[{i}]": p for i, p in enumerate(buttons[:players])},
        **{f"pins.player_leds[{i}]": p for i, p in enumerate(leds[:players])},
        **{f"pins.{k}": getattr(m, k) for k in ("pause_button", "roll_button", "buzzer") if getattr(m, k) is not None},
    }
    seen: dict[int, str] = {}
    for key, pin in used.items():
        if pin in seen:
            raise ConfigError(f"{r.name}: {key}: GPIO{pin} is already {seen[pin]}")
        seen[pin] = key
    return m


class _Reader:
    """Typed look-ups whose errors name the file and the key."""

    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.name}: {key}: {problem}")

    def known(self, table: dict, prefix: str, keys: set[str]) -> None:
        for k in table:
            if k not in keys:
                full = f"{prefix}.{k}" if prefix else k
                raise self.fail(full, f"unknown key (known: {', '.join(sorted(keys))})")

    def table(self, doc: dict, key: str, keys: set[str]) -> dict:
        t = doc.get(key, {})
        if not isinstance(t, dict):
            raise self.fail(key, "a table ([" + key + "])")
        self.known(t, key, keys)
        return t

    def integer(self, t: dict, key: str, default: int, lo: int, hi: int) -> int:
        v = t.get(key.rsplit(".", 1)[-1], default)
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(key, f"a whole number, not {v!r}")
        if not lo <= v <= hi:
            raise self.fail(key, f"between {lo} and {hi}, not {v}")
        return v

    def text(self, t: dict, key: str, default: str) -> str:
        v = t.get(key.rsplit(".", 1)[-1], default)
        if not isinstance(v, str):
            raise self.fail(key, f"a text in quotes, not {v!r}")
        return v.strip()

    def boolean(self, t: dict, key: str, default: bool) -> bool:
        v = t.get(key.rsplit(".", 1)[-1], default)
        if not isinstance(v, bool):
            raise self.fail(key, f"true or false, not {v!r}")
        return v

    def choice(self, t: dict, key: str, default: str, choices: tuple[str, ...]) -> str:
        v = t.get(key.rsplit(".", 1)[-1], default)
        if v not in choices:
            raise self.fail(key, f"one of {', '.join(choices)}, not {v!r}")
        return v

    def duration(self, t: dict, key: str, default: float, unit_ms: int, positive: bool = False) -> int:
        """A number of minutes or seconds (``unit_ms`` each), in milliseconds."""
        v = t.get(key.rsplit(".", 1)[-1], default)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise self.fail(key, f"a number, not {v!r}")
        ms = round(v * unit_ms)
        if ms < 0 or (positive and ms <= 0) or ms > 24 * 60 * MINUTE_MS:
            raise self.fail(key, f"{'above' if positive else 'at least'} 0 and at most a day, not {v}")
        return ms

    def number_or_auto(self, t: dict, key: str, default: float | None, lo: float, hi: float) -> float | None:
        """A number from ``lo`` to ``hi``, or "auto" (None)."""
        v = t.get(key.rsplit(".", 1)[-1], "auto" if default is None else default)
        if v == "auto":
            return None
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
            raise self.fail(key, f"\"auto\" or a number from {lo:g} to {hi:g}, not {v!r}")
        return float(v)

    def pin(self, t: dict, key: str, default: int | None) -> int | None:
        v = t.get(key.rsplit(".", 1)[-1], default)
        if v is False or v is None:
            return None
        return self._gpio(key, v)

    def pin_list(self, t: dict, key: str, default: tuple[int, ...]) -> tuple[int, ...]:
        v = t.get(key.rsplit(".", 1)[-1], default)
        if not isinstance(v, (list, tuple)):
            raise self.fail(key, f"a list of BCM pin numbers, not {v!r}")
        if len(v) > MAX_PLAYERS:
            raise self.fail(key, f"at most {MAX_PLAYERS} pins, not {len(v)}")
        return tuple(self._gpio(f"{key}[{i}]", p) for i, p in enumerate(v))

    def _gpio(self, key: str, v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(key, f"a BCM pin number (GPIO17 is 17), not {v!r}")
        if v not in HEADER:
            why = " (the HAT ID EEPROM's)" if v in (0, 1) else ""
            raise self.fail(key, f"GPIO{v} is not a usable pin{why}: BCM 2 to 27")
        return v
