"""The live page in a real browser: Playwright drives headless Chromium (the system's, Debian's
`chromium` package) at a phone's viewport against the real app served by waitress on a
loopback port. Screenshots are kept in artifacts/ (gitignored) for a person to look at."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from companion.web.app import create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from companion.web.server import ServerThread
from tests.web.conftest import PIN, make_session, open_organiser

from tests.web.conftest import CHROMIUM, PHONE, shot
TABLET = {"width": 1024, "height": 1366}

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
if not Path(CHROMIUM).is_file():
    pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)", allow_module_level=True)


class Live:
    def __init__(self, max_clients: int = 64) -> None:
        self.session = make_session(names=["Ann", "Bob"])
        self.hub = Hub(self.session, max_clients=max_clients).start()
        self.app = create_app(self.hub, auth=Auth(PIN))
        self.server = ServerThread(self.app, self.hub).start()
        self.url = self.server.url + "/"

    def call(self, fn):  # type: ignore[no-untyped-def]
        return self.hub.call(fn)


@pytest.fixture
def live():
    live = Live()
    live.call(lambda s, now: s.resume(now))
    live.call(lambda s, now: s.play(now, "8D", "HOUSE"))
    live.call(lambda s, now: s.play(now, "E7", "B.AT"))
    yield live
    live.server.stop()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # Refusals the tests provoke are not errors; nor is the server gone at the test's end (the
    # page retries its stream every second and the fixture stops the server first: a retry then
    # finds the port closed, its connection reset or closed by the server closing its sockets, or
    # the socket not connected - each of Chromium's names for a transport gone, never a script
    # error or an HTTP status, which are still errors here).
    gone = ("ERR_CONNECTION_REFUSED", "ERR_CONNECTION_RESET", "ERR_CONNECTION_CLOSED", "ERR_SOCKET_NOT_CONNECTED",
            "ERR_EMPTY_RESPONSE")
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "401" not in m.text
            and "403" not in m.text and "409" not in m.text and not any(g in m.text for g in gone) else None)
    yield page
    context.close()
    assert not errors, errors


def open_live(page, live) -> None:  # type: ignore[no-untyped-def]
    page.goto(live.url)
    page.wait_for_function("() => document.body.dataset.version !== undefined")
    page.wait_for_selector("#live.ok")


def test_the_page_shows_a_game(page, live):
    open_live(page, live)
    assert page.inner_text("#players").count("Ann") == 1
    assert page.inner_text("#score-0") == "24" and page.inner_text("#score-1") == "6"
    # Tiles on the board, where the moves put them; the last move outlined.
    assert page.locator("g.piece.tile").count() == 8
    assert page.locator('g.piece[data-square="D8"] text.letter').text_content() == "H"
    assert page.locator("rect.last").count() == 3
    assert page.locator("rect.last[data-square='E7']").count() == 1
    assert "E7 B(O)AT" in page.inner_text("#last-move")  # the letter played through in brackets
    assert "BOAT: B3 + O1 + A1 + T1 = 6 = 6" in page.inner_text("#last-move")
    assert page.locator("#history tr").count() == 2
    # The premium squares are labelled; the board fits the phone's width.
    assert page.locator("#board text.premium", has_text="TW").count() == 8
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scroll
    box = page.locator("#board").bounding_box()
    assert box["width"] <= PHONE["width"] and box["width"] > 340
    # Bob's clock runs: counted down here between documents.
    first = page.inner_text("#clock-0")
    assert first.startswith("24:") or first.startswith("25:")
    # The QR code of the page's address, made by the server; the GCG download.
    assert page.evaluate("document.getElementById('qr').naturalWidth") > 0
    gcg = page.evaluate("fetch('/game.gcg').then(r => r.text())")
    assert ">Ann: HOUSE 8D HOUSE +24 24" in gcg and ">Bob: BAT E7 B.AT +6 6" in gcg
    shot(page, "phone-game")
    page.set_viewport_size(TABLET)
    shot(page, "tablet-game")


def test_a_change_appears_within_one_second_without_a_reload(page, live):
    open_live(page, live)
    version = int(page.evaluate("document.body.dataset.version"))
    page.evaluate("window.__sameDocument = true")
    started = time.monotonic()
    live.call(lambda s, now: s.play(now, "10C", "AN."))
    page.wait_for_function(f"() => Number(document.body.dataset.version) > {version}", timeout=1000)
    took = time.monotonic() - started
    assert took < 1.0
    assert page.evaluate("window.__sameDocument") is True  # no reload happened
    assert page.inner_text("#score-0") == "27"
    assert "10C AN(T)" in page.inner_text("#last-move")
    shot(page, "phone-after-change")


def test_the_clock_counts_down_on_the_phone(page, live):
    open_live(page, live)
    first = page.inner_text("#clock-0")
    page.wait_for_function(f"() => document.getElementById('clock-0').textContent !== {first!r}", timeout=3000)
    mins, secs = page.inner_text("#clock-0").split(":")
    assert int(mins) * 60 + int(secs) < 25 * 60


def test_admin_actions_are_refused_without_the_pin_and_work_with_it(page, live):
    open_live(page, live)
    assert page.locator("#admin").is_hidden()
    # The API itself refuses, even from the page with its CSRF token.
    status = page.evaluate("""async () => {
        const s = await (await fetch('/api/session')).json();
        const r = await fetch('/api/admin/undo', {method: 'POST', headers: {'X-CSRF-Token': s.csrf}});
        return r.status; }""")
    assert status == 401
    assert page.inner_text("#score-1") == "6"
    page.click("#organiser summary")  # the organiser's controls: their own toggle
    page.fill("#pin", "000000" if PIN != "000000" else "111111")
    page.click("#login button")
    page.wait_for_selector("#admin-msg.bad")
    assert "wrong PIN" in page.inner_text("#admin-msg")
    assert page.locator("#admin").is_hidden()
    shot(page, "phone-wrong-pin")

    page.fill("#pin", PIN)
    page.click("#login button")
    page.wait_for_selector("#admin", state="visible")
    version = int(page.evaluate("document.body.dataset.version"))
    page.click("#undo")
    page.wait_for_function(f"() => Number(document.body.dataset.version) > {version}", timeout=3000)
    page.wait_for_function("() => document.getElementById('score-1').textContent === '0'", timeout=3000)
    assert page.locator("g.piece.tile").count() == 5
    assert "Undone" in page.inner_text("#verdicts")

    page.fill("#square", "H8")
    page.fill("#letter", "A")
    page.click("#correct button")
    page.wait_for_selector('g.piece[data-square="H8"] text.letter >> text=A', timeout=3000)
    assert page.locator("rect.corrected").count() == 1

    page.click("#pause")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('clock paused')", timeout=3000)

    page.fill("#names", "Cleo\nDan\nEve")
    page.select_option("#control", "untimed")
    page.click("#new-game button[type=submit]")
    page.wait_for_function("() => document.getElementById('players').textContent.includes('Eve')", timeout=3000)
    assert page.locator("g.piece.tile").count() == 0
    assert page.locator("#game option[disabled]").count() == 1  # House: two cameras, started by `companion run`
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "phone-admin")
    assert [p.name for p in live.session.state.players] == ["Cleo", "Dan", "Eve"]


def test_what_other_games_show_is_drawn(page, live):
    from companion.vision.reading import BoardReading, CellReading

    cells = [CellReading(r, c, "back", rgb=(60, 90, 160)) if (r, c) == (0, 0) else
             CellReading(r, c, token=True) if (r, c) == (14, 14) else
             CellReading(r, c, "tile", "H", 180, (240, 220, 170), "ivory") if (r, c) == (7, 3) else
             CellReading(r, c) for r in range(15) for c in range(15)]

    def show(s, now):  # type: ignore[no-untyped-def]
        s.observe(BoardReading(15, 15, ((0, 0),) * 4, tuple(cells)))
        s.heights = {(7, 4): 3}
        s.preview = {"kind": "explosion", "squares": [[6, 6], [6, 7], [6, 8]], "label": "Explosion: 3 squares"}
        s._say("explosion", 0, "TNT on G7 would explode 3 squares", squares=[[6, 6], [6, 7], [6, 8]])
        s._say("dungeon", None, "A monster wakes on A1")

    open_live(page, live)
    live.call(show)
    page.wait_for_selector("rect.preview")
    assert page.locator("rect.preview").count() == 3
    assert page.locator("g.piece.back").count() == 1
    assert page.locator("circle.token").count() == 1
    assert page.locator('g.piece[data-square="E8"] text.height').text_content() == "3"
    rotated = page.locator('g.piece[data-square="D8"] g').get_attribute("transform")
    assert rotated.startswith("rotate(180")
    assert "TNT on G7" in page.inner_text("#verdicts") and "G7 H7 I7" in page.inner_text("#verdicts")
    assert page.locator(".verdict.dungeon").count() == 1
    shot(page, "phone-other-games")


def test_the_page_polls_when_streams_are_full(browser):
    live = Live(max_clients=0)
    try:
        context = browser.new_context(viewport=PHONE)
        page = context.new_page()
        page.goto(live.url)
        page.wait_for_function("() => document.body.dataset.version !== undefined", timeout=5000)
        assert "every 2 s" in page.inner_text("#live")
        live.call(lambda s, now: s.play(now, "8D", "HOUSE"))
        page.wait_for_function("() => document.getElementById('score-0').textContent === '24'", timeout=5000)
        context.close()
    finally:
        live.server.stop()


def test_the_dungeon_plan_is_on_the_board_and_the_rack_entered_on_the_page(page, live):
    open_live(page, live)
    page.click("#organiser summary")  # the organiser's controls: their own toggle
    page.fill("#pin", PIN)
    page.click("#login button")
    page.wait_for_selector("#admin", state="visible")
    page.select_option("#game", "dungeon")
    page.fill("#names", "Ann")
    page.fill("#objects", "12")
    page.click("#new-game button[type=submit]")
    page.wait_for_selector("#dungeon", state="visible")
    doc = page.evaluate("fetch('/api/state').then(r => r.json())")
    plan = doc["dungeon"]["plan"]
    assert doc["game"]["name"] == "dungeon" and plan["asked"] == 12
    # Every obstacle square outlined on the board with its kind's mark, and listed beside it.
    assert page.locator("g.plan").count() == plan["tiles"]
    marks = {"wall": "W", "monster": "M", "treasure": "T", "fixed letter": "F"}
    for o in plan["objects"]:
        for q in o["squares"]:
            assert page.locator(f'g.plan[data-plan="{q["name"]}"] text.plan-mark').text_content() == marks[o["type"]]
    assert page.locator("#dungeon-plan li").count() == len(plan["objects"])
    assert "Lay out the plan" in page.inner_text("#dungeon-phase")
    page.fill("#action-tiles", "aeinrst")
    page.click("#action-buttons [data-action=rack]")
    page.wait_for_function("() => document.getElementById('dungeon-facts').textContent.includes('rack AEINRST')")
    shot(page, "phone-dungeon-plan")


def test_a_browser_on_the_device_is_shown_the_pin(page, live):
    # This browser is on the server's own machine (loopback): the organiser at the table.
    open_live(page, live)
    page.wait_for_function("() => !document.getElementById('device-pin').hidden")
    open_organiser(page)
    assert page.inner_text("#device-pin") == f"On this device the PIN is {PIN}."
    page.fill("#pin", PIN)
    page.click("#login button[type=submit]")
    page.wait_for_function("() => !document.getElementById('admin').hidden")


def test_the_organiser_sees_what_the_camera_last_read(page):
    import types

    from companion.vision.overlay import LatestView
    from tests.web.test_camera_view import a_reading

    view = LatestView()
    image, reading = a_reading(800)
    view.wrap(0, lambda frame: (reading, None))(types.SimpleNamespace(image=image))
    hub = Hub(make_session(names=["Ann", "Bob"])).start()
    server = ServerThread(create_app(hub, auth=Auth(PIN), camera_view=view.jpeg), hub).start()
    try:
        page.goto(server.url + "/")
        page.wait_for_function("() => document.body.dataset.version !== undefined")
        open_organiser(page)
        page.fill("#pin", PIN)
        page.click("#login button[type=submit]")
        page.wait_for_function("() => !document.getElementById('admin').hidden")
        page.click("#camera-toggle")
        page.wait_for_function("() => { const i = document.getElementById('camera-0');"
                               " return !i.hidden && i.complete && i.naturalWidth === 800; }")
        assert page.is_hidden("#camera-1")  # one board: one view
        shot(page, "camera-view")
    finally:
        server.stop()


def test_a_scrabble3_game_on_the_page(page):
    """The 21x21 board, a pick-off stretch's bonuses apart, PPT on each player's card."""
    from companion.core.move import PlacedTile, Placement
    from companion.lexicon import load_lexicon
    from companion.rules import scrabble3 as s3
    from companion.table.games import GAMES

    lexicon = load_lexicon("en")
    session = GAMES["scrabble3"].start(None, 0, names=["Ann", "Bob"], control="rapid", seed=3,
                                       lexicon_for=lambda ts: lexicon)
    hub = Hub(session).start()
    server = ServerThread(create_app(hub, auth=Auth(PIN)), hub).start()
    try:
        def moves(s, now):  # type: ignore[no-untyped-def]
            s.resume(now)
            s.act(now, s3.Play(Placement.of(PlacedTile(10, 7 + i, ch) for i, ch in enumerate("DREAMY"))))
            s.act(now, s3.Play(Placement.of(PlacedTile(10, 12 + i, ch) for i, ch in enumerate("ILY")),
                               pick_off=((10, 12),)))

        hub.call(moves)
        page.goto(server.url + "/")
        page.wait_for_function("() => document.body.dataset.version !== undefined")
        page.wait_for_selector("g.piece.tile")
        assert page.locator("g.piece.tile").count() == 8  # DREAMILY
        assert page.locator('g.piece[data-square="O11"] text.letter').text_content() == "Y"
        last = page.inner_text("#last-move")
        assert "Bob: 11H .....ILY +48" in last and "stretch by 2: +30" in last and "picked off M11" in last
        assert "Y4×2" in last  # O11's double letter; M11, the picked square, gives none
        assert "PPT 44" in page.inner_text("#players") and "PPT 48" in page.inner_text("#players")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
        shot(page, "phone-scrabble3")

        # The bag is as good as empty: both players stuck, the racks told on the page's own
        # form (8 tiles fit), then the final-racks round said in the status line.
        def stuck(s, now):  # type: ignore[no-untyped-def]
            from dataclasses import replace

            s.state = replace(s.state, bag_size=0)
            s.act(now, s3.Pass())
            s.act(now, s3.Pass())
            return [p.rack_size for p in s.state.players]

        sizes = hub.call(stuck)
        page.wait_for_selector("#racks:not([hidden])")
        racks = ["AEIOUSTR"[:sizes[0]], "BCDFGHLM"[:sizes[1]]]
        for i, rack in enumerate(racks):
            page.fill(f"#rack-{i}", rack)
            assert page.input_value(f"#rack-{i}") == rack
        page.click("#racks-form button[type=submit]")
        page.wait_for_function("() => document.getElementById('status').textContent.includes('swap final racks')")
        mover = hub.call(lambda s, now: s.state.to_move)
        assert f"plays with {['Ann', 'Bob'][1 - mover]}'s rack" in page.inner_text("#status")
    finally:
        server.stop()
