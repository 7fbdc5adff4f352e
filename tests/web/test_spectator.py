"""A spectator's page, for every game of the registry, in a real browser: no organiser's control
in sight (the dungeon's "Enter the rack", the stacking game's sales, the organiser's card), only
the players' own controls and the *Organiser* toggle that asks for the PIN; once the PIN is in,
the game's actions are there. The status line says what the game's registry entry offers (a
challenge mode), never what the page would guess from the game's name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.table import games
from companion.table.store import open_store
from companion.web.app import create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from companion.web.server import ServerThread
from tests.web.conftest import PHONE, PIN, open_organiser, shot
from tests.web.test_browser import sync_api  # noqa: F401 - skips without Playwright or Chromium
from tests.web.test_venue import serious_violations

APP_JS = Path(__file__).resolve().parents[2] / "companion" / "web" / "static" / "app.js"
WORDS = frozenset({"CAT", "HOUSE"})

# Every control a page shows: what a finger or the Tab key can reach.
CONTROLS = """() => {
    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    return [...document.querySelectorAll('button, input, select, textarea, summary, [tabindex], a[href]')]
        .filter(shown)
        .map((e) => ({tag: e.tagName.toLowerCase(), id: e.id, text: (e.innerText || e.value || '').trim(),
                      action: e.dataset.action || null,
                      inside: ['admin', 'actions', 'login', 'market'].filter((id) => e.closest('#' + id))}));
}"""


def start(name: str, store):  # type: ignore[no-untyped-def]
    game = games.GAMES[name]
    names = ["Ann", "Bob", "Cy", "Di"][:max(game.seats[0], 2)] if game.seats[1] > 1 else ["Dora"]
    return game.start(store, 1000, names=names, lexicon_for=lambda tileset: WORDS)


@pytest.mark.parametrize("name", list(games.GAMES))
def test_a_spectator_sees_no_organiser_control(name, browser, tmp_path):
    store = open_store(tmp_path)
    hub = Hub(start(name, store)).start()
    server = ServerThread(create_app(hub, auth=Auth(PIN)), hub).start()
    context = browser.new_context(viewport=PHONE, bypass_csp=True)  # for axe, injected by the test
    try:
        doc = hub.document_json()
        labels = [a["label"] for a in doc.get("actions") or []]
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + "/")
        page.wait_for_selector("#live.ok")
        open_organiser(page)  # even with the organiser's card open, the PIN is all it offers
        seen = page.evaluate(CONTROLS)
        assert seen, "the page shows no control at all: the query is wrong"
        for c in seen:
            assert not c["inside"] or c["inside"] == ["login"], c  # nothing of the organiser's
            assert c["action"] is None and c["text"] not in labels, c
        assert not any(c["inside"] == ["market"] for c in seen)  # tiles for sale: not buttons
        for label in labels + ["Enter the rack", "Start / resume", "Undo"]:
            assert page.get_by_text(label, exact=True).filter(visible=True).count() == 0, label
        # The status line names a challenge mode when the game has them (the registry says so).
        status = page.inner_text("#status")
        assert bool(re.search(r"\bchallenge \w", status)) == bool(games.GAMES[name].challenge_modes), status
        shot(page, f"spectator-{name}")
        assert serious_violations(page) == {"light": [], "dark": []}

        # With the PIN, the organiser's actions this game offers now are there.
        page.fill("#pin", PIN)
        page.click("#login button")
        page.wait_for_selector("#admin", state="visible")
        for label in labels:
            assert page.get_by_role("button", name=label, exact=True).first.is_visible(), label
        assert not errors, errors
    finally:
        context.close()
        server.stop()
        store.close()


def test_the_page_names_no_game():
    """The page branches on what the document says a game offers, never on a game's name."""
    script = APP_JS.read_text(encoding="utf-8")
    for name in games.GAMES:
        quoted = rf"""["'`]{re.escape(name)}["'`]"""
        compared = rf"(?:[!=]==?\s*{quoted}|{quoted}\s*[!=]==?|case\s+{quoted}|\.includes\(\s*{quoted})"
        assert not re.search(compared, script), name
