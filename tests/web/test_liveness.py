"""The page tells the truth about its connection, in a real browser (Chromium via Playwright):

- a server restarted on the same game log starts its versions again at 1: the page takes the
  restarted server's state (its epoch differs) instead of dropping it as older;
- a connection that stalls without closing (a loopback proxy that stops forwarding) brings the
  "connection lost" banner and dimmed clocks within the watchdog's time, and the game is caught
  up once the proxy forwards again.
"""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

from companion.table.classic import TableSession
from companion.table.store import GameStore
from companion.web.app import create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from companion.web.server import ServerThread
from tests.web.conftest import PHONE, PIN, WORDS, shot


def _serve(store: GameStore, port: int = 0, session: TableSession | None = None) -> tuple[Hub, ServerThread]:
    if session is None:
        session = TableSession.restore(store, lexicon_for=lambda tileset: WORDS)
    assert session is not None
    hub = Hub(session).start()
    return hub, ServerThread(create_app(hub, auth=Auth(PIN)), hub, port=port).start()


def _page(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))  # script errors (network refusals are expected here)
    return context, page, errors


def test_a_restarted_server_is_followed_within_two_seconds(browser, tmp_path: Path):
    store = GameStore(tmp_path / "games.sqlite")
    first = TableSession(store, ["Ann", "Bob"], seed=7, lexicon_for=lambda tileset: WORDS)
    hub, server = _serve(store, session=first)
    port = server.port
    hub.call(lambda s, now: s.resume(now))
    for move in (("8D", "HOUSE"), ("E7", "B.AT"), ("10C", "AN.")):
        hub.call(lambda s, now, m=move: s.play(now, *m))
    for _ in range(4):  # more versions than the restarted server will have for a while
        hub.call(lambda s, now: s.pause(now))
        hub.call(lambda s, now: s.resume(now))
    context, page, errors = _page(browser)
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("#live.ok")
        page.wait_for_function("() => document.getElementById('score-0').textContent === '27'")
        old_epoch = page.evaluate("doc.epoch")
        assert int(page.evaluate("document.body.dataset.version")) > 5

        server.stop()
        # The same game log, a new process's hub: version 1 again; one more move played there.
        hub, server = _serve(store, port=port)
        hub.call(lambda s, now: s.play(now, "8D", ".....S"))
        assert hub.version < 5
        bob = hub.document_json()["players"][1]["score"]
        assert bob > 6
        started = time.monotonic()
        page.wait_for_function(f"() => document.getElementById('score-1').textContent === '{bob}'", timeout=5000)
        took = time.monotonic() - started
        page.wait_for_selector("#live.ok")
        assert page.evaluate("doc.epoch") != old_epoch
        assert page.locator("#lost").is_hidden()
        shot(page, "restart-followed")
        assert took < 2.0, f"the page followed the restarted server after {took:.1f} s"
        assert not errors, errors
    finally:
        context.close()
        server.stop()
        store.close()


class StallingProxy:
    """A loopback TCP proxy that can stop forwarding without closing anything: the page's
    connections stay open and silent, as over a Wi-Fi link that dropped."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.flowing = threading.Event()
        self.flowing.set()
        self.closed = False
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                self.flowing.wait()  # stalled: the bytes wait here, nothing is closed
                if self.closed:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.closed = True
        self.flowing.set()
        self.listener.close()
        for s in self.sockets:
            try:
                s.close()
            except OSError:
                pass


def test_a_stalled_connection_shows_the_banner_and_catches_up(browser, tmp_path: Path):
    store = GameStore(tmp_path / "games.sqlite")
    session = TableSession(store, ["Ann", "Bob"], seed=7, lexicon_for=lambda tileset: WORDS)
    hub, server = _serve(store, session=session)
    proxy = StallingProxy(server.port)
    hub.call(lambda s, now: s.resume(now))
    hub.call(lambda s, now: s.play(now, "8D", "HOUSE"))
    context, page, errors = _page(browser)
    try:
        page.goto(f"http://127.0.0.1:{proxy.port}/")
        page.wait_for_selector("#live.ok")
        page.wait_for_function("() => document.getElementById('score-0').textContent === '24'")
        assert page.locator("#lost").is_hidden()

        proxy.flowing.clear()
        stalled = time.monotonic()
        hub.call(lambda s, now: s.play(now, "E7", "B.AT"))  # the game goes on; the page cannot know
        page.wait_for_selector("#lost", state="visible", timeout=17000)
        banner_after = time.monotonic() - stalled
        assert page.locator("body.stale").count() == 1
        assert float(page.evaluate("getComputedStyle(document.getElementById('clock-0')).opacity")) < 0.5
        assert page.inner_text("#score-1") == "0"  # still the old position, and the page says so
        assert "lost" in page.inner_text("#live")
        shot(page, "stalled-banner")
        assert banner_after <= 16.0, f"the banner came {banner_after:.1f} s after the stall"

        proxy.flowing.set()
        page.wait_for_function("() => document.getElementById('score-1').textContent === '6'", timeout=8000)
        page.wait_for_selector("#lost", state="hidden", timeout=8000)
        page.wait_for_selector("#live.ok")
        assert page.locator("body.stale").count() == 0
        shot(page, "stalled-caught-up")
        assert not errors, errors
    finally:
        context.close()
        proxy.close()
        server.stop()
        store.close()


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
