"""`companion venue`: the venue's screen (every table of an event, from the MQTT broker), and
`companion venue-broker`: a Mosquitto set-up for an event (docs/venue.md)."""

from __future__ import annotations

import argparse
import os
import signal
import threading
from pathlib import Path

from companion.core.errors import CompanionError, ConfigError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("venue", help="the venue's screen: every board of an event, live",
                       description="Subscribe to every table of EVENT on the broker and serve the venue's page: "
                       "every board, the standings, each game's GCG and the whole event as a download.")
    p.add_argument("event", help="the event's name, as the tables' [venue] event")
    p.add_argument("--broker", default="127.0.0.1:1883", help="the broker, HOST:PORT (default 127.0.0.1:1883)")
    p.add_argument("--username", default="screen", help="the screen's account on the broker (default screen)")
    p.add_argument("--password-file", type=Path,
                   help="a file holding the account's password (else $COMPANION_VENUE_PASSWORD)")
    p.add_argument("--ca-file", default="", help="TLS: the CA that signed the broker's certificate")
    p.add_argument("--host", default="0.0.0.0", help="the page's address (default all)")
    p.add_argument("--port", type=int, default=8090, help="the page's port (default 8090; 0: any free port)")
    p.set_defaults(func=run)

    b = sub.add_parser("venue-broker", help="write a Mosquitto set-up for an event's tables and screens",
                       description="Write mosquitto.conf, a password file (a new password per table and one "
                       "for the screens) and the ACLs (a table writes only its own topics; screens only read) "
                       "into FOLDER, and print each account's password once.")
    b.add_argument("folder", type=Path, help="where to write them (e.g. /etc/mosquitto/companion)")
    b.add_argument("--event", required=True, help="the event's name")
    b.add_argument("--tables", type=int, required=True, help="how many tables (1 to 999)")
    b.add_argument("--port", type=int, default=1883, help="the broker's port (default 1883)")
    b.set_defaults(func=run_broker)


def _broker(args: argparse.Namespace):
    from companion.table.publish.publisher import BrokerConfig

    host, _, port = args.broker.rpartition(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ConfigError(f"--broker: HOST:PORT, like 192.168.1.10:1883, not {args.broker!r}")
    if args.password_file is not None:
        try:
            password = args.password_file.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{args.password_file}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    else:
        password = os.environ.get("COMPANION_VENUE_PASSWORD", "")
    if args.ca_file and not Path(args.ca_file).is_file():
        raise ConfigError(f"--ca-file: no such file: {args.ca_file}")
    return BrokerConfig(host, int(port), args.username, password, args.ca_file)


def run(args: argparse.Namespace) -> int:
    from companion.venue.app import create_venue_app
    from companion.venue.screen import Screen
    from companion.venue.subscriber import Subscriber
    from companion.table.publish.topics import check_event
    from waitress.server import create_server

    # The service's options (systemd/companion-venue.service) are its configuration: refused with
    # ConfigError's exit 78, which the unit does not restart into.
    try:
        event = check_event(args.event)
    except CompanionError as exc:
        raise ConfigError(str(exc)) from None
    if not 0 <= args.port <= 65535:
        raise ConfigError(f"--port: from 0 to 65535, not {args.port}")
    broker = _broker(args)
    sub = Subscriber(broker, Screen(event), say=lambda line: print(line, flush=True)).start()
    try:
        server = create_server(create_venue_app(sub), host=args.host, port=args.port, threads=8, ident="companion-venue")
    except OSError as exc:
        sub.stop()
        raise CompanionError(f"cannot serve on {args.host}:{args.port}: {exc.strerror or exc}") from None
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    thread = threading.Thread(target=server.run, name="venue-page", daemon=True)
    thread.start()
    print(f"venue {event!r}: the screen at http://{args.host}:{server.effective_port}/ "
          f"(broker {broker.describe()})", flush=True)
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        sub.stop()
    return 0


def run_broker(args: argparse.Namespace) -> int:
    from companion.venue.broker import setup_broker

    if not 1 <= args.port <= 65535:
        raise CompanionError(f"--port: from 1 to 65535, not {args.port}")
    users = setup_broker(args.folder, args.event, args.tables, port=args.port)
    print(f"wrote {args.folder / 'mosquitto.conf'}, passwords and acl for {args.tables} tables of {args.event!r}")
    for user, password in users.items():
        print(f"{user}\t{password}")
    return 0
