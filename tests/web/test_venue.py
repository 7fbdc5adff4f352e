"""The page beyond a phone in one hand, in a real browser: the venue view (/tv) at 1920x1080
with the whole board, dark mode, the page without script, the organiser's controls out of a
spectator's sight, and axe-core's accessibility rules with no serious violation."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.web.conftest import PHONE, shot
from tests.web.test_browser import live, open_live  # noqa: F401 - the fixture: a game with two plays

AXE = Path(__file__).resolve().parents[1] / "vendor" / "axe.min.js"
HD = {"width": 1920, "height": 1080}


@pytest.fixture
def context_of(browser):  # type: ignore[no-untyped-def]
    """A browser context with the options given, closed after the test."""
    made = []

    def new(**options):  # type: ignore[no-untyped-def]
        made.append(browser.new_context(**options))
        return made[-1]

    yield new
    for c in made:
        c.close()


def test_the_venue_view_shows_the_whole_board_and_large_scores(live, context_of):  # noqa: F811
    context = context_of(viewport=HD)
    page = context.new_page()
    page.goto(live.server.url + "/tv")
    page.wait_for_selector("#live.ok")
    board = page.locator("#board").bounding_box()
    assert board["y"] >= 0 and board["y"] + board["height"] <= HD["height"], board  # all 15 rows on screen
    assert board["height"] >= 0.6 * HD["height"]
    assert page.evaluate("document.documentElement.scrollHeight") <= HD["height"] + 400
    score = page.locator("#score-0")
    assert float(page.evaluate("parseFloat(getComputedStyle(document.getElementById('score-0')).fontSize)")) >= 60
    assert score.inner_text() == "24"
    assert page.locator("#organiser").is_hidden()  # no organiser's control on a screen for the room
    shot(page, "tv-1920x1080")


def test_dark_mode_follows_the_system(live, context_of):  # noqa: F811
    context = context_of(viewport=PHONE, color_scheme="dark")
    page = context.new_page()
    open_live(page, live)
    bg = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
    rgb = [int(x) for x in bg[bg.index("(") + 1:bg.index(")")].split(",")[:3]]
    assert sum(rgb) < 3 * 60, bg  # a dark page
    ink = page.evaluate("getComputedStyle(document.querySelector('.player .score')).color")
    assert sum(int(x) for x in ink[ink.index("(") + 1:ink.index(")")].split(",")[:3]) > 3 * 180, ink
    shot(page, "phone-dark")


def test_the_page_without_script_shows_scores_clocks_moves_and_the_board(live, context_of):  # noqa: F811
    context = context_of(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto(live.server.url + "/")
    assert page.inner_text("#score-0") == "24" and page.inner_text("#score-1") == "6"
    clock = page.inner_text("#clock-0")
    assert clock.startswith("24:") or clock.startswith("25:")
    moves = page.inner_text("#history")
    assert "8D HOUSE" in moves and "E7 B(O)AT" in moves
    rows = page.locator("#board-text .board-rows li")
    assert rows.count() == 15 and rows.nth(7).is_visible()
    assert rows.nth(7).inner_text() == "Row 8: D8 H, E8 O, F8 U, G8 S, H8 E"
    assert page.locator("#organiser").is_hidden()
    shot(page, "phone-noscript")


def test_screen_readers_get_the_board_as_text_and_only_the_newest_verdict(live, context_of):  # noqa: F811
    context = context_of(viewport=PHONE)
    page = context.new_page()
    open_live(page, live)
    assert page.locator("#board").get_attribute("aria-hidden") == "true"
    assert page.locator("#board-text li").nth(6).text_content() == "Row 7: E7 B"
    assert page.locator("[aria-live]").count() == 1  # one live region: the newest verdict
    assert page.inner_text("#announce") == ""  # nothing read out on opening
    live.call(lambda s, now: s.play(now, "10C", "AN."))
    page.wait_for_function("() => document.getElementById('announce').textContent !== ''")
    newest = live.session.feed[-1]["message"]
    assert page.locator("#announce").text_content() == newest
    # The lists are reachable by keyboard (the scrolling referee's list takes the focus).
    assert page.locator("#verdicts").get_attribute("tabindex") == "0"
    # The organiser's controls stay closed behind their own toggle; a spectator sees no
    # organiser's action.
    assert page.locator("#organiser").get_attribute("open") is None
    assert page.locator("#login").is_hidden() and page.locator("#actions").is_hidden()


def serious_violations(page) -> dict[str, list[dict]]:  # type: ignore[no-untyped-def]
    """axe-core's serious and critical findings on the page as it is, light and dark. The page's
    context must bypass its Content-Security-Policy: axe is injected by the test (the page's own
    policy allows no script but its own)."""
    results = {}
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
        found = page.evaluate("""async () => {
            const r = await axe.run(document, {resultTypes: ['violations']});
            return r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length,
                                           target: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
        }""")
        results[scheme] = [v for v in found if v["impact"] in ("serious", "critical")]
    return results


def test_axe_core_finds_no_serious_violation(live, context_of):  # noqa: F811
    context = context_of(viewport=PHONE, bypass_csp=True)
    page = context.new_page()
    open_live(page, live)
    assert serious_violations(page) == {"light": [], "dark": []}
