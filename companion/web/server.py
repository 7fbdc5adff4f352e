"""Serving the page with waitress, inside the companion's own process, guarded against a hostile
LAN.

Why waitress: it is pure Python (no C build on the Pi, nothing but PyPI), production-grade,
threaded, and runs in-process, next to the thread that owns the camera, the pins and the game,
so the page reads the game through a queue and a lock instead of another process and a
database. Its threads are a fixed pool; an open event stream holds one of them for as long as
the page is open, so the pool is the stream bound plus headroom for the polls, downloads and
the organiser's actions, and the hub refuses streams past the bound (503: the page polls).

What waitress does not do, and :class:`GuardedServer` adds (about 263 half-open connections
took the page down for everyone: waitress stops accepting at its connection limit, drops a
connection only after 120 s without a byte, and a header line every 50 s kept one open for
ever):

- a deadline for a request: its headers and body must arrive within ``REQUEST_TIMEOUT_S`` of
  its first byte (and a connection's first byte within that of the connection), however
  slowly they trickle;
- idle keep-alive connections dropped after ``IDLE_TIMEOUT_S``, checked every second;
- at most ``PER_ADDRESS`` connections from one address: one host cannot fill the table;
- at ``MAX_CONNECTIONS`` a new connection is still accepted, and the connection that has sat
  longest without a request being answered (silent, or trickling) is dropped for it: a
  stranger on many addresses delays an honest phone, never locks it out;
- an event stream's slot freed within a second of its socket closing
  (``channel_request_lookahead`` keeps the channel read while the stream runs, so waitress sees
  the close; the stream asks ``waitress.client_disconnected``).

Why not another server in front (nginx) or instead (cheroot, gunicorn): nginx would be a second
service to install, configure and keep running on the Pi for four rules that fit in fifty lines
over waitress's own hooks (its server's ``handle_accept`` and ``maintenance``); cheroot and
gunicorn have no per-address limit or whole-request deadline either, and gunicorn's workers are
processes, not the in-process threads the page relies on.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

from companion.web.hub import Hub

HEADROOM_THREADS = 16  # requests served while every stream is open
REQUEST_TIMEOUT_S = 10.0  # a request's headers and body, from its first byte
IDLE_TIMEOUT_S = 30  # a keep-alive connection with no request
PER_ADDRESS = 32  # connections from one address (a phone opens about six)
MAX_CONNECTIONS = 512  # in all (under the 1024 descriptors a service gets by default)

log = logging.getLogger("companion.web")


class GuardedServer(TcpWSGIServer):
    """waitress's TCP server with the guards of this module's docstring."""

    request_timeout_s = REQUEST_TIMEOUT_S
    per_address = PER_ADDRESS
    max_connections = MAX_CONNECTIONS

    def __init__(self, *args: Any, **kw: Any) -> None:
        self._begun: dict[int, tuple[Any, float]] = {}  # channel -> (its request in progress, since)
        super().__init__(*args, **kw)

    def _channels(self) -> list[HTTPChannel]:
        return [c for c in list(self._map.values()) if isinstance(c, HTTPChannel)]

    def handle_accept(self) -> None:
        try:
            v = self.accept()
            if v is None:
                return
            conn, addr = v
            self.set_socket_options(conn)
        except OSError:
            return
        channels = self._channels()
        host = addr[0]
        if sum(1 for c in channels if c.addr and c.addr[0] == host) >= self.per_address:
            log.warning("%s: more than %d connections from one address, refused", host, self.per_address)
            conn.close()
            return
        if len(channels) >= self.max_connections:
            waiting = [c for c in channels if not c.requests]
            if not waiting:
                conn.close()
                return
            oldest = min(waiting, key=lambda c: c.last_activity if c.request is None else self._since(c))
            log.warning("%d connections: dropped the longest waiting one, from %s", len(channels), oldest.addr[0])
            oldest.handle_close()
        self.channel_class(self, conn, addr, self.adj, map=self._map)

    def _since(self, channel: HTTPChannel) -> float:
        begun = self._begun.get(id(channel))
        return begun[1] if begun is not None and begun[0] is channel.request else channel.last_activity

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # idle keep-alive connections (channel_timeout)
        seen: dict[int, tuple[Any, float]] = {}
        for channel in self._channels():
            if channel.requests:  # a request being answered (an event stream): not ours to judge
                continue
            if channel.request is not None and not channel.request.completed:
                key = id(channel)
                before = self._begun.get(key)
                since = before[1] if before is not None and before[0] is channel.request else now
                seen[key] = (channel.request, since)
            elif channel.last_activity == channel.creation_time:
                since = channel.creation_time  # not a byte since it connected
            else:
                continue
            if now - since > self.request_timeout_s:
                channel.will_close = True
                self.pull_trigger()
        self._begun = seen


def create_server(app: Any, hub: Hub, host: str = "0.0.0.0", port: int = 8080) -> Any:
    adj = Adjustments(
        host=host,
        port=port,
        threads=hub.max_clients + HEADROOM_THREADS,
        # The guard's own limit comes first (it drops a waiting connection for a new one);
        # waitress's stops accepting, only a little above it.
        connection_limit=MAX_CONNECTIONS + 64,
        channel_timeout=IDLE_TIMEOUT_S,
        cleanup_interval=1,
        # Read a channel while its request runs, so that a closed event stream is seen.
        channel_request_lookahead=1,
        # poll(2) rather than select(2): no 1024-descriptor ceiling.
        asyncore_use_poll=True,
        ident="companion",
        # Bodies are bounded by the app (16 KB); the server stops anything absurd earlier.
        max_request_body_size=1 << 20,
        clear_untrusted_proxy_headers=True,
    )
    dispatcher = ThreadedTaskDispatcher()
    dispatcher.set_thread_count(adj.threads)
    # One listening socket (a host that resolves to several, like localhost: its first address).
    return GuardedServer(app, {}, True, None, dispatcher=dispatcher, adj=adj, sockinfo=adj.listen[0])


class ServerThread:
    """The app served on a background thread (the demo, the tests, the benchmark)."""

    def __init__(self, app: Any, hub: Hub, host: str = "127.0.0.1", port: int = 0) -> None:
        self.hub = hub
        self.server = create_server(app, hub, host, port)
        self.port = self.server.effective_port
        self.host = host
        self._thread = threading.Thread(target=self._run, name="companion-web", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _run(self) -> None:
        try:
            self.server.run()
        except OSError:  # the socket closed under the loop at shutdown
            pass

    def start(self) -> "ServerThread":
        self._thread.start()
        return self

    def stop(self) -> None:
        # The streams end first (the hub wakes them), then the threads finish their requests,
        # then the sockets close.
        self.hub.stop()
        self.server.task_dispatcher.shutdown(timeout=5)
        self.server.close()
        # Open connections (a browser's keep-alive) keep waitress's loop going: close them.
        for channel in list(getattr(self.server, "_map", {}).values()):
            try:
                channel.close()
            except OSError:
                pass
        self._thread.join(timeout=5)

    def __enter__(self) -> "ServerThread":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
