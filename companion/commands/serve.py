"""`companion serve`: the live page on the players' phones, for a game at this table.

The page is served by waitress from inside this process (see companion/web/server.py); the
organiser's PIN is printed here, on the device, at every start. Without the table loop (camera
and buttons: ``companion run``) the game, any of the registry's (``--game``), changes through
the organiser's actions on the page; ``companion demo --serve`` plays a recorded game on it.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from typing import Any, Callable

from companion.core.errors import CompanionError

DEFAULT_PORT = 8080


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="serve the live page (board, scores, clocks) for the players' phones",
        description="Serve the live page for a game at this table; the organiser's PIN is printed at start.",
    )
    add_server_arguments(p)
    p.add_argument("--game", default="classic",
                   help="the game, by its name in the registry (default classic; a wrong name lists them)")
    p.add_argument("--names", nargs="+", default=None, metavar="NAME",
                   help="the players' display names (as many as the game seats; default Player 1, Player 2, ...)")
    p.add_argument("--control", default=None, help="time control: tournament, club, rapid, blitz, untimed")
    p.add_argument("--challenge", default=None, choices=["void", "single", "double", "five-points"])
    p.add_argument("--tileset", default=None, choices=["en", "de"])
    p.set_defaults(func=run)


def add_server_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default all: the phones are on the LAN)")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--max-clients", type=int, default=64, help="live streams at most (default 64); more pages poll")


def run(args: argparse.Namespace) -> int:
    with serving(session_for(args), args) as live:
        print("companion: Ctrl-C stops", flush=True)
        live.wait()
    return 0


def session_for(args: argparse.Namespace) -> Any:
    """The game ``--game`` names, started from the options it takes (the registry's settings):
    a page without a table, no game log."""
    from companion.table.games import find_game
    from companion.table.session import ActionError

    try:
        game = find_game(args.game)
        given = {k: getattr(args, k, None) for k in game.settings}
        unknown = [k for k in ("control", "challenge") if getattr(args, k, None) is not None and k not in game.settings]
        if unknown:
            raise ActionError(f"--{unknown[0]}: not an option of {game.title}")
        names = given.pop("names", None) or [f"Player {i + 1}" for i in range(max(2, game.seats[0]))][:game.seats[1]]
        return game.start(None, 0, names=names, **{k: v for k, v in given.items() if v is not None})
    except ActionError as exc:
        raise CompanionError(str(exc)) from None


class serving:
    """The session's hub and page served on a thread while the ``with`` block runs."""

    def __init__(self, session: Any, args: argparse.Namespace, out: Callable[[str], None] | None = None,
                 now_ms: Callable[[], int] | None = None) -> None:
        self.session, self.args = session, args
        self.now_ms = now_ms  # the table's clock (None: the hub's monotonic one)
        self.out = out or (lambda line: print(line, flush=True))
        self.stop = threading.Event()

    def __enter__(self) -> "serving":
        from companion.web.app import create_app, page_url
        from companion.web.auth import Auth
        from companion.web.hub import Hub
        from companion.web.server import ServerThread

        if not 1 <= self.args.max_clients <= 1000:
            raise CompanionError("--max-clients: 1 to 1000")
        if not 0 <= self.args.port <= 65535:
            raise CompanionError("--port: 0 to 65535")
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
        # A stop asked for from now on ends the block cleanly: set before the address is
        # announced, since whoever reads it may stop the process at once (systemd, a test on a
        # loaded machine: SIGTERM's default between the two killed the process outright).
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: self.stop.set())
        more = {"now_ms": self.now_ms} if self.now_ms is not None else {}
        self.hub = Hub(self.session, max_clients=self.args.max_clients, **more).start()
        self.auth = Auth(pin_hash=getattr(self.args, "pin_hash", "") or None)
        app = create_app(self.hub, auth=self.auth, camera_view=getattr(self.args, "camera_view", None),
                         presses=getattr(self.args, "presses", None))
        try:
            self.server = ServerThread(app, self.hub, self.args.host, self.args.port).start()
        except OSError as exc:
            self.hub.stop()
            raise CompanionError(f"cannot listen on {self.args.host}:{self.args.port}: {exc.strerror or exc}") from None
        shown = "localhost" if self.args.host in ("0.0.0.0", "::", "127.0.0.1") else self.args.host
        self.url = f"http://{shown}:{self.server.port}/"
        self.out(f"companion: the live page is at {self.url} (on the network: {page_url(self.url)})")
        if self.auth.pin is not None:
            self.out(f"companion: the organiser's PIN (also on the page of a browser on this device) is {self.auth.pin}")
        else:
            self.out("companion: the organiser's PIN is the fixed one (companion config pin)")
        return self

    def wait(self, seconds: float | None = None) -> None:
        self.stop.wait(seconds)

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
        print("companion: the live page stopped", file=sys.stderr)
