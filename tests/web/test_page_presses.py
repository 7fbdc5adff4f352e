"""The table's buttons on the page, for a table without real ones (`companion run --mock`): a tap
on the page's button, or a key typed on the page, drives the button's mock pin, so the press
goes the way a hand's goes (panel, table thread, log, page). A table on real pins shows none
unless its configuration asks ([web] page_buttons), and then its panel takes them."""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory

from companion.pi.gpio import Panel
from companion.clock.pins import DEFAULT_PINS, PinMap
from companion.table.classic import TableSession
from companion.web.app import create_app
from companion.web.auth import Auth
from tests.web.conftest import PIN, csrf_of
from tests.web.sim_table import SimTable
from tests.web.test_table_games import EN_WORDS, HOUSE, _rows
from tests.web.test_browser import shot


def test_a_few_moves_played_with_the_pages_buttons_and_keys(phone, tmp_path):
    t = SimTable(tmp_path, lambda store, now: TableSession(
        store, ["Ann", "Bob"], control="tournament", challenge="single", tileset="en", seed=11, now_ms=now,
        lexicon_for=lambda ts: EN_WORDS))
    try:
        page = phone(t.url)
        page.wait_for_selector("#presses:not([hidden])")
        # Classic has no dice: the roll button, wired at every table, is not shown for it (the
        # dungeon's page shows it).
        assert page.locator("[data-press]").all_inner_texts() == ["Ann's clock", "Bob's clock", "Pause"]
        shot(page, "table-page-buttons")
        a = t.call(lambda s, now: s.state.to_move)
        b = 1 - a
        name = ["Ann", "Bob"]

        def tap(button: str) -> None:
            page.click(f'[data-press="{button}"]')

        def key(button: str) -> None:
            page.keyboard.press({"player1": "1", "player2": "2", "pause": "p"}[button])

        t.press(b, tap=tap)  # the clock starts: a's runs
        assert t.call(lambda s, now: sorted(s.clocks.on_move())) == [a]
        t.camera.lay(HOUSE)
        t.press(a, think_ms=30_000, tap=tap)  # HOUSE, judged from the camera
        _rows(page, 1)
        assert "HOUSE" in page.inner_text("#history") and "+24" in page.inner_text("#history")
        # The keys on the page: p pauses the clock, p again resumes it.
        t.press("pause", think_ms=1_000, tap=key)
        assert t.said[-1] == "pause: paused" and t.call(lambda s, now: s.clocks.paused)
        t.press("pause", think_ms=1_000, tap=key)
        assert t.said[-1] == "pause: resumed"
        t.press(b, think_ms=5_000, tap=key)  # no new tile: a pass
        _rows(page, 2)
        # A key typed into a field is the field's, not a press.
        # r, the roll button's key, is not a press where the game has no dice (the list of
        # presses at the end has none).
        page.keyboard.press("r")
        page.fill("#exchange-count", "")
        page.type("#exchange-count", "1")
        assert t.call(lambda s, now: len(s.history())) == 2 and page.input_value("#exchange-count") == "1"
        events = [line for line in t.call(lambda s, now: s.gcg()).splitlines() if line.startswith(">")]
        assert events == [f">{name[a]}: HOUSE 8D HOUSE +24 24", f">{name[b]}: ? - +0 0"]
        # The venue's screen (/tv) shows the game, not the buttons.
        tv = phone(t.url + "tv")
        # (the session is read: a browser on the device itself is told the PIN after the buttons)
        tv.wait_for_function("() => document.getElementById('device-pin').textContent.includes('PIN')")
        assert tv.locator("#presses").is_hidden()
        # Every press went through the mock pin and the panel, as a hand's would.
        assert [line.split(" at ")[0] for line in t.said if line.startswith("press ")] == [
            f"press player{b + 1}", f"press player{a + 1}", f"press player{b + 1}"]
    finally:
        t.close()


def test_a_page_without_page_buttons_has_none_and_refuses_a_press(hub):
    client = create_app(hub, auth=Auth(PIN)).test_client()
    token = csrf_of(client)
    assert "buttons" not in client.get("/api/session").get_json()
    r = client.post("/api/press", json={"button": "player1"}, headers={"X-CSRF-Token": token})
    assert r.status_code == 404 and "pressed at the table" in r.get_json()["error"]


def test_real_pins_take_the_pages_presses_only_through_the_panel_when_configured(hub):
    """[web] page_buttons = true on real pins: the page's press is queued on the panel as its
    pin's callback queues it (here on mock pins standing for the Pi's, never driven)."""
    pins = PinMap(DEFAULT_PINS.player_buttons[:2], (), DEFAULT_PINS.pause_button, None, None, 0)
    panel = Panel(pins, pin_factory=MockFactory(), now_ms=lambda: 42)
    try:
        client = create_app(hub, auth=Auth(PIN), presses=panel).test_client()
        token = csrf_of(client)
        assert client.get("/api/session").get_json()["buttons"] == ["player1", "player2", "pause"]
        r = client.post("/api/press", json={"button": "roll"}, headers={"X-CSRF-Token": token})
        assert r.status_code == 400 and r.get_json()["error"] == "button: one of player1, player2, pause"
        r = client.post("/api/press", json={"button": "player2", "at": 1}, headers={"X-CSRF-Token": token})
        assert r.status_code == 400 and r.get_json()["error"] == "unknown field 'at' (known: button)"
        assert client.post("/api/press", json={"button": "player2"}).status_code == 403  # no CSRF token
        assert panel.presses.empty()
        r = client.post("/api/press", json={"button": "player2"}, headers={"X-CSRF-Token": token})
        assert r.status_code == 200 and panel.presses.get_nowait() == ("player2", 42)
    finally:
        panel.close()
