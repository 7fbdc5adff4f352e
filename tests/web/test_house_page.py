"""Scrabble House on the live page, in a real browser: both boards drawn, and an explosion
waiting for the players shown on the board (turned and removed squares) and in words (each step,
the tiles to the partner) before anything is removed. The session is driven with board readings
as values (the camera is tested in tests/table/test_house_game.py)."""

from __future__ import annotations

import pytest

from companion.table.house import HouseSession
from companion.rules.house import HouseOptions
from companion.table.store import open_store
from companion.web.app import create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from companion.web.server import ServerThread
from tests.table.test_house_session import EXPLODING as MOVES
from tests.table.test_house_session import EXPLODING_WORDS as WORDS
from tests.table.test_house_session import reading_of
from tests.web.conftest import PHONE, PIN, shot
from tests.web.test_browser import page  # noqa: F401 - the fixture
from tests.web.test_venue import HD


@pytest.fixture
def exploding(tmp_path):  # type: ignore[no-untyped-def]
    """A House match served on a loopback port, its fifth play's explosion waiting on board 1."""
    store = open_store(tmp_path)
    session = HouseSession(store, ["Ann", "Bob", "Cy", "Di"], options=HouseOptions(colours=("ivory", "wood")),
                           lexicon_for=lambda t: WORDS)
    hub = Hub(session).start()
    server = ServerThread(create_app(hub, auth=Auth(PIN)), hub).start()
    try:
        hub.call(lambda s, now: s.press(0, 1, now))  # Bob starts Ann's clock
        tiles: dict = {}
        for i, move in enumerate(MOVES):
            tiles.update({(r, c): (ch, rot) for r, c, ch, rot in move})
            player = i % 2
            assert hub.call(lambda s, now, p=player: s.press(0, p, now)) == "judge"
            v = hub.call(lambda s, now, t=dict(tiles): s.judge(0, now, reading_of(t)))
            assert v["verdicts"] == (["explosion"] if i == 4 else ["played"]), v
        yield server
    finally:
        server.stop()
        store.close()


def test_the_page_shows_both_boards_and_the_explosion_before_anything_is_removed(exploding, page):  # noqa: F811
    page.goto(exploding.url + "/")
    page.wait_for_function("() => !document.getElementById('explosion-card').hidden")
    assert page.locator("#board2-wrap").is_visible()
    text = page.locator("#explosion").inner_text()
    assert "Board 1: Ann plays OPERA" in text
    assert "Turn to Ann: D5" in text
    assert "Step b: ASHORE is mixed: its upside-down A S H R E come off (B5 C5 E5 F5 G5)" in text
    assert "Step c: TAIR is not a word: it comes off (F1 F2 F3 F4)" in text
    assert "To Cy: R I A T E R H S A" in text
    # On the board: D5 marked as turned, the nine squares as coming off; the tiles still there.
    assert page.locator("#board rect.preview.turn[data-square='D5']").count() == 1
    assert page.locator("#board rect.preview:not(.turn)").count() == 9
    assert page.locator("#board g.piece.tile").count() == 24
    assert "OPERA" in page.locator("#history").inner_text()
    # Last move: the fifth play, named (it said "No move yet." whatever had been played).
    assert page.locator("#last-move").inner_text().startswith("Ann: board 1: "), page.locator("#last-move").inner_text()
    assert "OPERA" in page.locator("#last-move").inner_text()
    assert page.locator("#board2-caption").inner_text().startswith("Board 2 (wood tiles)")
    # The marks over the tiles (drawn after them: what a finger on the square finds), each
    # tile's letter still there under its tint; the card with the steps in the first screen.
    for square in ("D5", "B5", "F1"):
        on_top = page.evaluate("""(sq) => {
            const mark = document.querySelector(`#board rect.preview[data-square="${sq}"]`);
            const b = mark.getBoundingClientRect();
            const hit = document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2);
            return hit === mark;
        }""", square)
        assert on_top, square
        assert page.locator(f"#board g.piece.tile[data-square='{square}'] text.letter").count() == 1
    card = page.locator("#explosion-card").bounding_box()
    assert card is not None and card["y"] < PHONE["height"], card  # above the fold, above the boards
    assert card["y"] < page.locator("#board").bounding_box()["y"]
    shot(page, "house-explosion")


def test_the_venue_view_shows_house_two_boards_side_by_side_whole(exploding, browser):
    context = browser.new_context(viewport=HD)
    try:
        page = context.new_page()
        page.goto(exploding.url + "/tv")
        page.wait_for_function("() => !document.getElementById('explosion-card').hidden")
        one, two = page.locator("#board").bounding_box(), page.locator("#board2").bounding_box()
        for b in (one, two):  # every row and column of both boards on the screen
            assert b["x"] >= 0 and b["y"] >= 0 and b["x"] + b["width"] <= HD["width"], b
            assert b["y"] + b["height"] <= HD["height"], b
            assert b["height"] >= 0.6 * HD["height"], b  # large, not shrunk to fit
        assert two["x"] >= one["x"] + one["width"] and abs(two["y"] - one["y"]) < 2  # side by side
        assert page.evaluate("document.documentElement.scrollWidth") <= HD["width"]
        # The scores and the explosion beside them, in view.
        card = page.locator("#explosion-card").bounding_box()
        assert card["x"] >= two["x"] + two["width"] and card["y"] < HD["height"], card
        assert page.locator("#board rect.preview").count() == 10
        assert page.locator("#organiser").is_hidden()
        shot(page, "tv-house-1920x1080")
    finally:
        context.close()
