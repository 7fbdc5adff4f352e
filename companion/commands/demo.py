"""`companion demo`: the companion's best end-to-end path without hardware.

The demo plays a recorded game at a simulated table: the synthetic camera photographs each
position as the players leave it, a hand passes over the board now and then, presses are
simulated, and the table (reader, stabiliser, inference, rules, game log) judges every move
while the live page is served on http://localhost:8080. It plays a real tournament record from
``../shared/games`` when that folder is beside the checkout, otherwise the short game the
package ships (``companion/data/sample.gcg``). ``--referee`` only replays the record, scoring
every move again and looking every word up, and prints it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from companion.core.gcg import describe
from companion.core.errors import CompanionError
from companion.lexicon import load_lexicon
from companion.rules.rescore import choose_tileset
from companion.sim import demos
from companion.table import games


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="referee a recorded game move by move (no hardware needed)",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("game", nargs="?", type=Path, help="a GCG file (default: a real game if present, else the built-in one)")
    p.add_argument("--delay", type=float, default=None, help="seconds to wait after each move (default 0; 2 with --serve)")
    p.add_argument("--boards", action="store_true", help="print the board after every move, not only at the end")
    p.add_argument(
        "--camera",
        action="store_true",
        help="also photograph every position with the synthetic camera and read it back (the vision pipeline)",
    )
    p.add_argument(
        "--serve",
        action="store_true",
        help="also serve the live page (http://localhost:8080) and play the game on it move by move "
        "(--delay defaults to 2 s), then keep serving until Ctrl-C",
    )
    p.add_argument("--linger", type=float, default=None,
                   help="seconds to keep serving the page after the last move (default: until Ctrl-C)")
    p.add_argument("--referee", action="store_true",
                   help="only referee the record and print it (the demo before the table existed)")
    players = {name: demos.player(games.GAMES[name].demo) for name in games.having("demo")}  # type: ignore[arg-type]
    p.add_argument("--game", dest="game_name", choices=list(players), default="classic",
                   help="; ".join(f"{name}: {player.help}" for name, player in players.items()))
    p.add_argument("--seed", type=int, default=1, help="with --game stacking: the deal's seed (default 1)")
    p.add_argument("--length", choices=("short", "normal", "long"), default="short",
                   help="with --game stacking: the game's length (default short)")
    p.add_argument("--area", type=int, default=None, metavar="N",
                   help="with --game stacking: play on the centre N x N squares only (odd, 3 to 15; "
                   "default the whole board): the game can end with every square covered")
    t = p.add_argument_group("the table (the default: camera, presses, game log, live page)")
    t.add_argument("--pace", type=float, default=None,
                   help="seconds each player thinks before pressing (default 3; 0 with --sim-time)")
    t.add_argument("--hands", type=int, default=3, metavar="N",
                   help="a hand passes over the board before about one press in N (default 3; 0: never)")
    t.add_argument("--data-dir", type=Path, default=None,
                   help="the game log's folder; a demo started again on it resumes (default: a fresh temporary one)")
    t.add_argument("--fresh-log", action="store_true",
                   help="a game log that cannot be read is moved aside whole (kept) and a new one begins")
    t.add_argument("--headless", action="store_true", help="no page: play the game and stop")
    t.add_argument("--truth-readings", action="store_true",
                   help="for tests: the camera's frames carry the board's truth instead of being read by the reader")
    t.add_argument("--sim-time", action="store_true",
                   help="for tests: scripted thinking times on the clocks, nothing waits")
    t.add_argument("--trace", action="store_true", help="print each step of the loop (for tests)")
    t.add_argument("--summary", type=Path, default=None, help="write the final state as JSON to this file")
    from companion.commands.serve import add_server_arguments

    add_server_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.delay is not None and args.delay < 0:
        raise CompanionError("--delay must not be negative")
    game = games.find_game(getattr(args, "game_name", "classic"))
    player = demos.player(game.demo)  # type: ignore[arg-type]
    player.check(game.name, args)
    if getattr(args, "serve", False):
        return _serve(args, game)
    if not (args.referee or args.boards or args.camera):
        return _table(args, game, player)
    args.delay = args.delay or 0.0
    source, record = demos.recorded(args.game)
    result = game.rescore(record, None, source)
    choice = result.tileset
    lexicon = load_lexicon(choice.name) if choice.name in ("en", "de", "super3") else None
    names = [p.name or p.nick for p in record.players]
    print(f"Refereeing {source}: {' v '.join(names)} (tile set {choice.name})")
    camera = None
    if args.camera:
        from companion.sim.camera import ReadBackCamera

        camera = ReadBackCamera(choice.name, result.board.layout.rows)
    for r in result.events:
        line = f"{names[r.seat]:>10}  {describe(r.event)} {r.score:+d}"
        if r.play is not None:
            unknown = [w.word.text for w in r.play.words if lexicon is not None and w.word.text not in lexicon]
            words = ", ".join(f"{w.word.gcg} {w.score}" for w in r.play.words)
            bonus = f" + {r.play.bonus} for all tiles" if r.play.bonus else ""
            line += f"  [{words}{bonus}]"
            if unknown:
                line += f"  not in the house list: {', '.join(unknown)}"
        mark = "" if r.agrees else f"  << recorded {r.event.score:+d} {r.event.total}"
        print(f"{line}  = {r.total}{mark}")
        if camera is not None and r.board is not None:
            print(f"{'':>10}  camera: {camera.check(r.board)}")
        if args.boards and r.board is not None:
            print(_indent(r.board.to_text(premiums=True)))
        if args.delay:
            time.sleep(args.delay)
    print()
    print(_indent(result.board.to_text(premiums=True)))
    print()
    totals = result.totals()
    best = max(totals)
    for seat, name in enumerate(names):
        print(f"{name:>10}  {totals[seat]:4d}{'  wins' if totals[seat] == best else ''}")
    agree = "every score agrees with the record" if result.agrees else (
        f"{len(result.disagreements)} events disagree with the record"
    )
    print(f"({agree})")
    if camera is not None:
        print(f"(camera: {camera.summary()})")
    return 0


def _serve(args: argparse.Namespace, game: type[games.Game]) -> int:
    """The recorded game played on the live page, one event every ``--delay`` seconds."""
    from companion.commands.serve import serving
    from companion.sim.record import names_of, steps
    from companion.table.session import ActionError

    source, record = demos.recorded(args.game)
    choice = choose_tileset(record)
    if choice.name not in game.tilesets:
        raise CompanionError(f"the live page plays {' and '.join(game.tilesets)} games; this record is {choice.name}")
    delay = 2.0 if args.delay is None else args.delay
    try:
        session = game.start(None, 0, names=names_of(record)[:4], control="tournament", challenge="single",
                             tileset=choice.name)
    except ActionError as exc:
        raise CompanionError(f"{source}: {exc}") from None
    with serving(session, args) as live:
        print(f"Playing {source} on the live page, one move every {delay:g} s", flush=True)
        live.hub.call(lambda s, now: s.resume(now))
        for what, step in steps(record):
            if live.stop.is_set():
                break
            try:
                live.hub.call(step)
            except ActionError as exc:
                print(f"{what}: {exc}", flush=True)
                continue
            doc = live.hub.document_json()
            scores = ", ".join(f"{p['name']} {p['score']}" for p in doc["players"])
            print(f"{what:<28} {scores}", flush=True)
            live.wait(delay)
        doc = live.hub.document_json()
        print("Game over" if doc["game"]["over"] else "End of the record", flush=True)
        if not live.stop.is_set():
            print("companion: still serving the page; Ctrl-C stops" if args.linger is None else "", flush=True)
            live.wait(args.linger)
    return 0


def _pace(args: argparse.Namespace) -> None:
    if args.pace is None:
        args.pace = 0.0 if args.sim_time else 3.0
    if args.pace < 0:
        raise CompanionError("--pace must not be negative")


def _table(args: argparse.Namespace, game: type[games.Game], player: demos.DemoPlayer) -> int:
    """The game played at a simulated table through the whole table loop, as its demo player
    (companion/sim/demos.py) sets it."""
    _pace(args)
    trace = (lambda line: print(f"trace {line}", flush=True)) if args.trace else None
    run = player.start(game, args, trace)
    print(f"ready {run.ready}", flush=True)
    final = _at_table(run.demo, args, run.what, ending=run.ending)
    for line in run.finals(final):
        print(line, flush=True)
    return 0


def _at_table(demo: Any, args: argparse.Namespace, what: str,
              ending: Callable[[dict[str, Any]], str] | None = None) -> dict[str, Any]:
    """``demo`` played through the table loop, headless or with its page served (then, after
    ``ending``'s line, kept serving until Ctrl-C or ``--linger``); its summary, written to
    ``--summary`` if asked."""
    from companion.sim.tabledemo import write_summary

    def say(line: str) -> None:
        print(line, flush=True)

    try:
        if args.headless:
            from companion.web.hub import Hub
            from companion.table.session import ActionError

            hub = Hub(demo.session, now_ms=demo.clock)
            try:
                demo.play(hub, demo.table(hub), pace_s=args.pace, say=say)
            except ActionError as exc:  # the log could not be written (a full disk): the game stays as logged
                raise CompanionError(str(exc)) from None
            final = demo.summary(hub)
        else:
            from companion.commands.serve import serving

            with serving(demo.session, args, now_ms=demo.clock) as live:
                print(f"Playing {what} at the table (game log in {demo.data_dir})", flush=True)
                demo.play(live.hub, demo.table(live.hub), pace_s=args.pace, stop=live.stop, say=say)
                final = demo.summary(live.hub)
                if ending is not None:
                    print(ending(final), flush=True)
                if not live.stop.is_set():
                    if args.linger is None:
                        print("companion: still serving the page; Ctrl-C stops", flush=True)
                    live.wait(args.linger)
        if args.summary is not None:
            write_summary(args.summary, final)
    finally:
        demo.close()
    return final


def _indent(text: str) -> str:
    return "\n".join("    " + " ".join(line) for line in text.splitlines())
