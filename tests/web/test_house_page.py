"""Scrabble House on the live page, in a real browser: both boards drawn, and an explosion
waiting for the players shown on the board (turned and removed squares) and in words (each step,
the tiles to the partner) before anything is removed. The session is driven with board readings
as values (the camera is tested in tests/table/test_house_game.py)."""

from __future__ import annotations

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
from tests.web.conftest import PIN, shot
from tests.web.test_browser import page  # noqa: F401 - the fixture


def test_the_page_shows_both_boards_and_the_explosion_before_anything_is_removed(tmp_path, page):  # noqa: F811
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
        page.goto(server.url + "/")
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
        assert page.locator("#board2-caption").inner_text().startswith("Board 2 (wood tiles)")
        shot(page, "house-explosion")
    finally:
        server.stop()
        store.close()
