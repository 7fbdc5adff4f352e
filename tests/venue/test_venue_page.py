"""`companion venue`'s page in a real browser (Playwright, the system's Chromium) at a wall
screen's 1920x1080, with thirty simulated tables publishing through a real Mosquitto; the
export holds every game's GCG and the results. The screenshot is kept in artifacts/ (gitignored)."""

from __future__ import annotations

import csv
import io
import os
import shutil
import threading
import zipfile
from pathlib import Path

import pytest

from companion.venue.app import create_venue_app
from companion.venue.screen import Screen
from companion.venue.subscriber import Subscriber
from tests.venue.conftest import EVENT, have_mosquitto
from tests.venue.test_venue_broker import SHARED_GAMES, wait_for

CHROMIUM = os.environ.get("COMPANION_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
TABLES = 30


@pytest.fixture(scope="module")
def venue_page(tmp_path_factory):
    from waitress.server import create_server

    from companion.sim.venuedemo import Venue, recorded_games
    from companion.venue.broker import LocalBroker

    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (Debian: apt install mosquitto; .ci/run installs it)")
    tmp_path = tmp_path_factory.mktemp("venue-page")
    broker = LocalBroker(tmp_path / "broker", EVENT, TABLES).start()

    records = recorded_games(SHARED_GAMES if SHARED_GAMES.is_dir() else None)
    venue = Venue([records[i % len(records)] for i in range(TABLES)], tmp_path / "tables", EVENT,
                  lambda n: broker.config(f"table{n}")).start()
    sub = Subscriber(broker.config("screen"), Screen(EVENT)).start()
    app = create_venue_app(sub)
    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    try:
        # The first ten tables play their games to the end, the others stop mid-game.
        for t in venue.tables:
            t.play(None if t.number <= 10 else 14)
        assert venue.flush(30)
        assert wait_for(lambda: len(sub.document()["games"]) == TABLES and all(
            g["seq"] == t.demo.store.last().seq for t in venue.tables
            for g in sub.document()["games"] if g["table"] == t.number), 30)
        yield venue, sub, app, f"http://127.0.0.1:{server.effective_port}/"
    finally:
        server.close()
        sub.stop()
        venue.close()
        broker.stop()


@pytest.mark.skipif(not SHARED_GAMES.is_dir(), reason=f"needs {SHARED_GAMES} (../shared absent): the recorded "
                    "games to their ends")
def test_the_export_holds_every_game_and_the_results(venue_page):
    venue, sub, app, _ = venue_page
    client = app.test_client()
    data = client.get("/export.zip")
    assert data.status_code == 200
    z = zipfile.ZipFile(io.BytesIO(data.data))
    gcgs = [n for n in z.namelist() if n.endswith(".gcg")]
    assert len(gcgs) == TABLES
    for t in venue.tables:
        mine = [n for n in gcgs if f"-table{t.number:03d}-" in n]
        assert len(mine) == 1 and z.read(mine[0]).decode("utf-8") == t.demo.session.gcg()
    rows = list(csv.DictReader(io.StringIO(z.read(f"{EVENT}/results.csv").decode("utf-8"))))
    assert len(rows) == 2 * TABLES
    for t in venue.tables:
        players = t.demo.session.state.players
        row = next(r for r in rows if r["table"] == str(t.number) and r["player"] == players[0].name)
        assert int(row["score"]) == players[0].score and int(row["opponent_score"]) == players[1].score
        assert row["over"] == str(int(t.demo.session.state.over))
    one = venue.tables[0]
    gcg = client.get(f"/table/1/{one.demo.session.game_id}.gcg")
    assert gcg.status_code == 200 and gcg.data.decode("utf-8") == one.demo.session.gcg()
    assert client.get("/table/1/nope.gcg").status_code == 404
    # The standings count the finished games only: wins and spread from their final scores.
    standings = sub.document()["standings"]
    finished = [t for t in venue.tables if t.demo.session.state.over]
    assert finished, "some of the recorded games end"
    for t in finished:
        a, b = t.demo.session.state.players
        row = next(r for r in standings if r["name"] == a.name)
        assert row["spread"] == a.score - b.score
        assert row["wins"] == (1.0 if a.score > b.score else 0.5 if a.score == b.score else 0.0)


def test_thirty_boards_on_a_wall_screen_and_one_large_on_a_tap(venue_page):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)")
    venue, sub, _, url = venue_page
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            page.wait_for_function(f"() => document.querySelectorAll('.card').length === {TABLES}")
            page.wait_for_function(f"() => document.querySelectorAll('#standings tr').length === {2 * TABLES + 1}")
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "venue-30-boards-1920x1080.png"))
            # Every board on the screen at once, no scrolling: the last card inside the viewport.
            box = page.locator(".card").nth(TABLES - 1).bounding_box()
            assert box is not None and box["y"] + box["height"] <= 1080 and box["x"] + box["width"] <= 1920 - 380
            for t in venue.tables[:3] + venue.tables[-2:]:
                card = page.locator(f".card[data-table='{t.number}']")
                text = card.inner_text()
                for player in t.demo.session.state.players:
                    assert player.name in text and str(player.score) in text
                tiles = card.locator(".sq.t").count()
                assert tiles == sum(ch.isalpha() for ch in t.demo.session.state.board.to_text())
            # A tap: table 12 large, its moves and its GCG.
            page.locator(".card[data-table='12']").click()
            page.wait_for_selector("#large.open .board.big")
            twelve = venue.tables[11].demo.session
            assert page.locator("#large .moves table tr").count() == len(twelve.history())
            page.screenshot(path=str(ARTIFACTS / "venue-table-12-large.png"))
            href = page.locator("#gcg").get_attribute("href")
            assert href == f"table/12/{twelve.game_id}.gcg"
            page.locator("#close").click()
            page.wait_for_function("() => !document.querySelector('#large.open')", timeout=2000)
            assert not errors, errors
        finally:
            browser.close()
