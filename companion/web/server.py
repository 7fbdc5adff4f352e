"""Serving the page with waitress, inside the companion's own process.

Why waitress: it is pure Python (no C build on the Pi, nothing but PyPI), production-grade,
threaded, and runs in-process, next to the thread that owns the camera, the pins and the game,
so the page reads the game through a queue and a lock instead of another process and a
database. Its threads are a fixed pool; an open event stream holds one of them for as long as
the page is open, so the pool is the stream bound plus headroom for the polls, downloads and
the organiser's actions, and the hub refuses streams past the bound (503: the page polls).
"""

from __future__ import annotations

import threading
from typing import Any

from companion.web.hub import Hub

HEADROOM_THREADS = 16  # requests served while every stream is open


def create_server(app: Any, hub: Hub, host: str = "0.0.0.0", port: int = 8080) -> Any:
    from waitress.server import create_server as waitress_server

    return waitress_server(
        app,
        host=host,
        port=port,
        threads=hub.max_clients + HEADROOM_THREADS,
        connection_limit=hub.max_clients + 200,
        # Streams send a `time` event every few seconds, far inside this.
        channel_timeout=120,
        # poll(2) rather than select(2): no 1024-descriptor ceiling.
        asyncore_use_poll=True,
        ident="companion",
        # Bodies are bounded by the app (16 KB); the server stops anything absurd earlier.
        max_request_body_size=1 << 20,
        clear_untrusted_proxy_headers=True,
    )


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
