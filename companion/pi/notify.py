"""systemd's notification protocol in a few lines: READY=1, WATCHDOG=1, STOPPING=1, STATUS=...

A service of Type=notify tells systemd it is ready, and with WatchdogSec= pings it at least that
often, by sending a datagram to the unix socket named in ``$NOTIFY_SOCKET`` (a path, or an
abstract name written with a leading ``@``). Outside systemd there is no socket and every call
is a harmless no-op, so the same code runs at a desk. No dependency: the protocol is one
``sendto``.
"""

from __future__ import annotations

import os
import socket
from typing import Mapping


def notify(message: str, env: Mapping[str, str] | None = None) -> bool:
    """Send ``message`` (``KEY=VALUE`` lines) to systemd; False when not under systemd."""
    env = os.environ if env is None else env
    address = env.get("NOTIFY_SOCKET")
    if not address or address[0] not in "/@":
        return False
    target = "\0" + address[1:] if address[0] == "@" else address
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        s.sendto(message.encode("utf-8"), target)
    return True


def watchdog_interval_s(env: Mapping[str, str] | None = None) -> float | None:
    """How often to ping: half of systemd's WatchdogSec (as systemd advises), None without one.

    ``$WATCHDOG_PID``, when set, names the process meant; another process (a child) does not ping.
    """
    env = os.environ if env is None else env
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    pid = env.get("WATCHDOG_PID")
    if usec <= 0 or (pid and pid != str(os.getpid())):
        return None
    return usec / 2_000_000
