"""Whole games at the simulated table, from the first press to the final score, with nothing but
buttons (gpiozero's mock pins, through the panel and the table's own thread) and taps on the
page (Playwright's Chromium at a phone's viewport). The camera gives the board as the players
leave it; time is simulated. Each game's final GCG is compared with one computed by hand."""

from __future__ import annotations

import pytest

from companion.table.classic import TableSession
from tests.web.sim_table import SimTable
from tests.web.test_browser import PHONE, browser, shot  # noqa: F401 (the browser fixture)

DE_WORDS = frozenset({"DÜS", "DÜSE", "SEE", "DÜSEN"})


def _phone(browser, url):  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("() => document.body.dataset.version !== undefined")
    page.wait_for_selector("#live.ok")
    return context, page, errors


@pytest.fixture
def classic_de(tmp_path):
    table = SimTable(tmp_path, lambda store, now: TableSession(
        store, ["Anna", "Ben"], control="tournament", challenge="single", tileset="de", seed=3, now_ms=now,
        lexicon_for=lambda tileset: DE_WORDS))
    yield table
    table.close()


def test_classic_with_a_camera_question_answered_on_the_page(browser, classic_de):
    t = classic_de
    context, page, errors = _phone(browser, t.url)
    try:
        first = t.call(lambda s, now: s.state.to_move)
        t.press(1 - first)  # the clock starts: the first player's runs
        # DÜS through the centre; the camera is not sure of the Ü on H8.
        t.camera.lay({(7, 6): "D", (7, 7): "Ü", (7, 8): "S"})
        t.camera.unsure = {(7, 7)}
        t.press(first, think_ms=40_000)
        page.wait_for_selector("#question:not([hidden])")
        assert "is there a tile on H8?" in page.inner_text("#question")
        assert page.locator('#board rect.asked[data-square="H8"]').count() == 1
        shot(page, "table-question")
        ask = page.locator('[data-ask="H8"]')
        ask.locator(".answer-letter").fill("ü")
        ask.locator('[data-answer="letter"]').click()
        page.wait_for_selector("#question", state="hidden")
        page.wait_for_function("() => document.querySelectorAll('#history tr').length === 1")
        assert "8G DÜS" in page.inner_text("#history") and "+16" in page.inner_text("#history")
        assert page.locator('#board rect.asked').count() == 0
        assert t.call(lambda s, now: s.history()[-1]["points"]) == 16
        assert not errors, errors
    finally:
        context.close()
