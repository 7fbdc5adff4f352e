"""The stacking game's page in a real Chromium at a phone's size: the marketplace sold by taps,
each player's purchases and next price, the pool, a stack's height and a rainbow's token on the
board, each word's score with its stack multipliers and rainbow doubles; a purchase beyond the
score refused on the page. Screenshots are kept in artifacts/."""

from __future__ import annotations

import argparse
import signal
from dataclasses import replace

from companion.commands.serve import serving
from companion.core.board import Tile
from companion.core.move import placement_from_notation
from companion.rules import stacking as rules
from companion.table.stacking import start_stacking
from tests.table.test_stacking_table import looks_like
from tests.web.test_browser import sync_api  # skips without Playwright or Chromium
from tests.web.conftest import ARTIFACTS, CHROMIUM, PHONE, open_organiser

WORDS = frozenset({"MEN", "MAN", "AT", "NA"})


def args() -> argparse.Namespace:
    return argparse.Namespace(
        game="stacking",
        names=None,
        control=None,
        challenge=None,
        tileset=None,
        host="127.0.0.1",
        port=0,
        max_clients=8,
    )


def two_plays(s) -> None:
    """Ann lays MEN with a rainbow M (20), Bob puts A on the E and T below (MAN 12, AT 4)."""
    players = list(s.state.players)
    players[0] = replace(players[0], rack=tuple("EMNOSTA"), rainbows=("M",))
    players[1] = replace(players[1], rack=tuple("AIORSTU"), rainbows=())
    s.state = replace(s.state, players=tuple(players))
    men = rules.Play(placement_from_notation(s.state.board.top, "8F", "MEN"), frozenset({(7, 5)}))
    after = rules.apply(s.state, men, WORDS).state
    assert s.press(0, 10) == "judge"
    assert s.judge(20, looks_like(after.board.top, after.rainbow))["kind"] == "played"
    seen = s.state.board.top.with_tiles([((7, 6), Tile("A")), ((8, 6), Tile("T"))])
    assert s.press(1, 30) == "judge"
    assert s.judge(40, looks_like(seen, s.state.rainbow))["kind"] == "played"


def test_the_marketplace_is_sold_by_taps_and_each_word_spelled_out():
    session = start_stacking(None, 0, names=["Ann", "Bob", "Cy"], seed=4, lexicon_for=lambda _: WORDS)
    two_plays(session)
    session.pass_turn(50)  # Cy
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        with sync_api.sync_playwright() as p, serving(session, args(), out=lambda line: None) as live:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport=PHONE)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(live.url)
            page.wait_for_selector("#live.ok")
            assert page.inner_text("#title") == "The stacking game"
            assert page.is_visible("#stacking") and "pool 71" in page.inner_text(
                "#stacking-facts"
            )  # 100 - 3 racks - 3 for sale - 5 drawn
            # The last move, each word as the rules text writes it; the stack of two on G8.
            last = page.inner_text("#last-move")
            assert "MAN: M3 + A1 x2 + N1 x2 rainbow = 12" in last and "AT: A1 x2 + T1 DL = 4" in last
            assert page.locator("g.piece.tile title", has_text="G8: A, stack of 2").count() == 1
            assert page.locator("g.piece.tile title", has_text="F8: M, a token").count() == 1
            page.screenshot(path=str(ARTIFACTS / "web-stacking-board.png"), full_page=True)

            open_organiser(page)
            page.fill("#pin", live.auth.pin)
            page.click("#login button")
            page.wait_for_selector("#admin", state="visible")

            def tap(i: int) -> str:
                version = int(page.evaluate("document.body.dataset.version"))
                letter = page.locator("#market button").nth(i).get_attribute("data-letter")
                page.locator("#market button").nth(i).click()
                page.wait_for_function(
                    f"() => Number(document.body.dataset.version) > {version}"
                    " || document.getElementById('admin-msg').textContent.includes('below zero')",
                    timeout=3000,
                )
                return letter or ""

            assert page.inner_text("#price-0").split() == ["Ann", "0", "5"]
            first = tap(0)
            page.wait_for_function("() => document.getElementById('price-0').textContent.includes('10')")
            assert page.inner_text("#price-0").split() == ["Ann", "1", "10"]
            assert page.inner_text("#score-0") == "15"
            tap(0)
            page.wait_for_function("() => document.getElementById('price-0').textContent.includes('15')")
            assert page.inner_text("#score-0") == "5"
            tap(0)  # 15 is more than Ann's 5
            assert "costs 15 points and Ann has 5: you cannot buy below zero" in page.inner_text("#admin-msg")
            assert page.inner_text("#price-0").split() == ["Ann", "2", "15"]
            assert page.inner_text("#price-1").split() == ["Bob", "0", "5"]  # each counts their own
            assert first in live.hub.call(lambda s, now: s.state.players[0].rack)
            page.screenshot(path=str(ARTIFACTS / "web-stacking-market.png"), full_page=True)
            assert not errors, errors
            browser.close()
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
