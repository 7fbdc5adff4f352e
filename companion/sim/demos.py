"""How ``companion demo --game NAME`` plays each game at the simulated table: a demo player
per game, named by the game's registry entry (``Game.demo = "companion.sim.demos:NAME"``; the
table names it rather than imports it, for the table imports no simulation).

A :class:`DemoPlayer` says which of the demo's options it cannot take and starts a
:class:`DemoRun`: a demo (``session``, ``clock``, ``data_dir``, ``table(hub)``, ``play``,
``summary``, ``close``) and the lines ``companion demo`` prints around it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module, resources
from pathlib import Path
from typing import Any

from companion.core.errors import CompanionError
from companion.core.gcg import GameRecord, decode_gcg, parse_gcg, read_record
from companion.rules.rescore import choose_tileset

# A real game: Doug v Emely from Macondo's tests (a phony withdrawn, a blank, rack points).
SHARED_GAME = Path(__file__).resolve().parents[2] / ".." / "shared" / "games" / "macondo" / "gcgio_doug_v_emely.gcg"

# The options of `companion demo` a player may refuse, as its error names them.
OPTIONS = {"game": "GCG file", "serve": "--serve", "referee": "--referee", "boards": "--boards", "camera": "--camera"}

Trace = Callable[[str], None] | None


@dataclass(frozen=True)
class DemoRun:
    demo: Any
    ready: str  # printed as "ready <this>" once the table is set
    what: str  # "Playing <what> at the table"
    ending: Callable[[dict[str, Any]], str] | None  # the line after the game, with the page served
    finals: Callable[[dict[str, Any]], list[str]]  # the last lines, from the demo's summary


@dataclass(frozen=True)
class DemoPlayer:
    help: str  # what `companion demo --game NAME` plays, for --help
    plays: str  # the same, for an option it refuses: "--game NAME <plays>: no ..."
    refuses: tuple[str, ...]  # keys of OPTIONS the demo cannot take
    start: Callable[[Any, argparse.Namespace, Trace], DemoRun]  # (the registry's game, the options, trace)

    def check(self, name: str, args: argparse.Namespace) -> None:
        """A clear one-line error when ``args`` asks for an option this demo cannot take."""
        if any(getattr(args, key, None) not in (None, False) for key in self.refuses):
            listed = [OPTIONS[k] for k in self.refuses]
            said = listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} or {listed[-1]}"
            raise CompanionError(f"--game {name} {self.plays}: no {said}")


def player(path: str) -> DemoPlayer:
    """The demo player a registry entry names ("module:attribute")."""
    module, _, attribute = path.partition(":")
    return getattr(import_module(module), attribute)


def default_record() -> tuple[str, bytes]:
    """The classic demo's game: the real one beside the checkout, else the one the package ships."""
    if SHARED_GAME.is_file():
        return str(SHARED_GAME.resolve()), SHARED_GAME.read_bytes()
    sample = resources.files("companion").joinpath("data", "sample.gcg")
    return "built-in sample game", sample.read_bytes()


def recorded(path: Path | None) -> tuple[str, GameRecord]:
    """The record the classic demo plays: the one given, else the default game; and where it came from."""
    if path is not None:
        return str(path), read_record(path)
    source, data = default_record()
    return source, parse_gcg(decode_gcg(data, source), source)


def _over(final: dict[str, Any]) -> str:
    return "Game over" if final["over"] else "End of the record"


def _classic(game: Any, args: argparse.Namespace, trace: Trace) -> DemoRun:
    """The recorded game played at a simulated table through the whole table loop."""
    from companion.sim.record import names_of
    from companion.sim.tabledemo import Demo
    if args.hands < 0:
        raise CompanionError("--hands must not be negative")
    source, record = recorded(args.game)
    choice = choose_tileset(record)
    tilesets = game.tilesets
    if choice.name not in tilesets:
        raise CompanionError(f"the table plays {' and '.join(tilesets)} games; this record is {choice.name}")
    demo = Demo(record, choice.name, names_of(record), data_dir=args.data_dir, truth=args.truth_readings,
                sim_time=args.sim_time, hands_every=args.hands, trace=trace, fresh_log=args.fresh_log)
    return DemoRun(demo, str(demo.resumed_at), source, _over,
                   lambda f: ["final " + ", ".join(str(x) for x in f["scores"])])


def _scrabble3(game: Any, args: argparse.Namespace, trace: Trace) -> DemoRun:
    """A Scrabble III record played at the simulated table (scrabble3demo.py)."""
    from companion.sim.record import names_of
    from companion.sim.scrabble3demo import Scrabble3Demo, sample_record

    if args.game is not None:
        source, record = str(args.game), read_record(args.game)
    else:
        source, record = sample_record()
    demo = Scrabble3Demo(record, names_of(record), data_dir=args.data_dir, truth=args.truth_readings,
                         sim_time=args.sim_time, trace=trace)
    return DemoRun(demo, str(demo.resumed_at), source, _over,
                   lambda f: ["final " + ", ".join(str(x) for x in f["scores"]) + "; PPT "
                              + ", ".join(str(x) for x in f["ppt"])])


def _stacking(game: Any, args: argparse.Namespace, trace: Trace) -> DemoRun:
    """The stacking game at a simulated table: three computer players, dealt from ``--seed``."""
    from companion.sim.stackingdemo import StackingDemo

    demo = StackingDemo(["Ann", "Bob", "Cy"], seed=args.seed, length=args.length, data_dir=args.data_dir,
                        truth=args.truth_readings, sim_time=args.sim_time, trace=trace,
                        area=getattr(args, "area", None))
    return DemoRun(demo, str(demo.session.game_id), "the stacking game", None,
                   lambda f: [f"game over: {f['end']}" if f["over"] else "stopped",
                              "final " + ", ".join(str(x) for x in f["scores"])])


# The record modes (--serve, --referee, --boards, --camera) replay a GCG record by the classic
# rules; the games that are not the classic one refuse them.
CLASSIC = DemoPlayer("a recorded game (the default)", "plays a recorded game", (), _classic)
SCRABBLE3 = DemoPlayer("a Scrabble III record (the built-in one unless GCG names one, docs/scrabble3.md)",
                       "plays its record at the table", ("serve", "referee", "boards", "camera"), _scrabble3)
STACKING = DemoPlayer("three computer players play the stacking game the companion deals",
                      "plays a dealt game at the table", ("game", "serve", "referee", "boards", "camera"), _stacking)
