"""The game registry: a made-up game (tests/web/tiny_game.py: two rules, a session, a page view)
registered from outside companion/ is offered by `companion serve`'s page and played on it in a
real Chromium, with no other module touched."""

from __future__ import annotations

import argparse
import signal

import pytest

from companion.commands.serve import serving, session_for
from companion.table import games
from tests.web.test_browser import CHROMIUM, PHONE, sync_api  # skips without Playwright or Chromium
from tests.web.tiny_game import Tiny, TinySession


@pytest.fixture
def tiny():
    games.register(Tiny)
    yield Tiny
    games.unregister(Tiny.name)


def serve_args(game: str) -> argparse.Namespace:
    return argparse.Namespace(game=game, names=["Ann", "Bob"], control=None, challenge=None, tileset=None,
                              host="127.0.0.1", port=0, max_clients=8)


def test_serve_starts_a_registered_game_by_its_name(tiny):
    session = session_for(serve_args("tiny"))
    assert isinstance(session, TinySession) and session.names == ["Ann", "Bob"]
    doc = games.document(session, 0)
    assert doc["game"]["title"] == Tiny.title and "tiny" in [g["name"] for g in doc["options"]["games"]]


def test_a_registered_game_is_offered_and_played_on_the_page(tiny):
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    lines: list[str] = []
    try:
        with sync_api.sync_playwright() as p, serving(session_for(serve_args("classic")), serve_args("classic"),
                                                      out=lines.append) as live:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
            page = browser.new_page(viewport=PHONE)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(live.url)
            page.wait_for_selector("#live.ok")
            page.click("#organiser summary")  # the organiser's controls: their own toggle
            page.fill("#pin", live.auth.pin)
            page.click("#login button")
            page.wait_for_selector("#admin", state="visible")

            # The new-game form offers the made-up game, with only the settings it takes.
            page.select_option("#game", "tiny")
            assert page.locator("#control").is_hidden() and page.locator("#objects").is_hidden()
            page.fill("#names", "Ann\nBob")
            page.click("#new-game button[type=submit]")
            page.wait_for_function("() => document.getElementById('title').textContent.includes('Word chain')")
            assert live.hub.call(lambda s, now: s.game) == "tiny"

            def say(word: str) -> str:
                version = int(page.evaluate("document.body.dataset.version"))
                page.fill("#action-tiles", word)
                page.click("#action-buttons [data-action=say]")
                # A word played publishes a new document; a word refused is named in the message.
                page.wait_for_function(
                    f"() => Number(document.body.dataset.version) > {version}"
                    f" || document.getElementById('admin-msg').textContent.includes('{word.upper()}')", timeout=3000)
                return page.inner_text("#admin-msg")

            say("cat")  # the first rule: in the list; the chain starts anywhere
            assert page.inner_text("#score-0") == "3"
            # The second rule: a word begins with the last letter of the word before it.
            assert "DOG does not begin with T" in say("dog")
            assert page.inner_text("#score-1") == "0"
            say("tea")
            assert page.inner_text("#score-1") == "3"
            assert "XYZ is not in the list" in say("xyz")
            assert page.locator("g.piece.tile").count() == 6  # CAT and TEA on the board, one a row
            assert live.hub.call(lambda s, now: s.words) == ["CAT", "TEA"]
            assert not errors, errors
            browser.close()
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
