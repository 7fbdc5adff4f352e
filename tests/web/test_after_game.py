"""After the game, in a real browser: each move of the move list with its best alternative by the
companion's own move generator and the points it left on the table; the racks at this table are
private, so each play is compared with the best play of the tiles it put down, and a pass has no
alternative (the page says so)."""

from __future__ import annotations

from companion.core.gcg import parse_gcg
from companion.rules import classic
from companion.table.games import GAMES
from tests.web.conftest import PHONE, shot
from tests.web.test_browser import live, open_live, page  # noqa: F401 - the fixtures
from tests.web.test_venue import serious_violations

REVIEWED = "() => document.getElementById('review').textContent.startsWith('Points left')"


def test_each_move_shows_its_best_alternative_and_the_points_left(page, live):  # noqa: F811
    open_live(page, live)
    assert page.locator("#review").is_hidden()  # the game is on: no review
    for _ in range(6):
        live.call(lambda s, now: s.act(now, classic.Pass()))
    live.call(lambda s, now: s.act(now, classic.RevealRacks(("AEIRSTU", "CDLNOPR"))))
    page.wait_for_function(REVIEWED, timeout=60_000)
    # What the registry's hint hook finds for Bob's E7 B.AT, from its tiles B, A, T.
    record = parse_gcg(live.call(lambda s, now: s.gcg()))
    best = GAMES["classic"].hint(record, turn=2, rack="BAT", top=1, tileset=None, source="test").moves[0]
    assert best["score"] > 6  # the same tiles laid better
    rows = page.locator("#history tr")
    assert rows.count() == 10
    bat = rows.nth(1).locator(".best").inner_text()
    left = best["score"] - 6
    assert bat == f"best of its tiles: {best['position']} {best['shown']} {best['score']}, {left} left"
    house = rows.nth(0).locator(".best").inner_text()
    assert house.startswith(("the best play of its tiles", "best of its tiles: ")), house
    assert rows.nth(2).locator(".best").inner_text() == "rack unknown: no alternative"  # Ann's pass
    assert rows.nth(8).locator(".best").count() == 0  # the racks left at the end: no turn
    summary = page.inner_text("#review")
    assert f"Bob {best['score'] - 6}" in summary and "the racks are unknown" in summary
    shot(page, "phone-after-game")


def test_the_page_after_the_game_passes_axe(browser, live):  # noqa: F811
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # for axe, injected by the test
    try:
        page = context.new_page()
        for _ in range(6):
            live.call(lambda s, now: s.act(now, classic.Pass()))
        live.call(lambda s, now: s.act(now, classic.RevealRacks(("AEIRSTU", "CDLNOPR"))))
        open_live(page, live)
        page.wait_for_function(REVIEWED, timeout=60_000)
        assert serious_violations(page) == {"light": [], "dark": []}
    finally:
        context.close()
