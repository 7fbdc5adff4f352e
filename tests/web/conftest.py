"""Fixtures of the live page's tests: a session on a small word list (no house list to load),
a hub driven by a fake clock, the Flask app with a known PIN."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from companion.web.app import create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from companion.table.classic import ClassicSession

CHROMIUM = os.environ.get("COMPANION_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"  # screenshots, gitignored
PHONE = {"width": 390, "height": 844}
PIN = "314159"
WORDS = frozenset({"HOUSE", "BOAT", "AN", "ANT", "GREEN", "QI", "HOUSES"})


class FakeTime:
    def __init__(self) -> None:
        self.ms = 1_000_000

    def __call__(self) -> int:
        return self.ms

    def seconds(self) -> float:
        return self.ms / 1000


def make_session(**kw: Any) -> ClassicSession:
    kw.setdefault("seed", 7)
    kw.setdefault("challenge", "single")
    return ClassicSession(kw.pop("names", ["Ann", "Bob"]), lexicon_for=lambda tileset: WORDS, **kw)


@pytest.fixture
def clock() -> FakeTime:
    return FakeTime()


@pytest.fixture
def session() -> ClassicSession:
    return make_session()


@pytest.fixture
def hub(session: ClassicSession, clock: FakeTime) -> Hub:
    return Hub(session, now_ms=clock)


@pytest.fixture
def auth(clock: FakeTime) -> Auth:
    return Auth(PIN, now=clock.seconds)


@pytest.fixture
def app(hub: Hub, auth: Auth):  # type: ignore[no-untyped-def]
    return create_app(hub, auth=auth)


@pytest.fixture
def client(app):  # type: ignore[no-untyped-def]
    return app.test_client()


def csrf_of(client: Any) -> str:
    return client.get("/api/session").get_json()["csrf"]


def login(client: Any) -> str:
    """An admin session on ``client``; its CSRF token."""
    token = csrf_of(client)
    r = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200, r.get_json()
    return r.get_json()["csrf"]


@pytest.fixture(scope="module")
def browser():  # type: ignore[no-untyped-def]
    """Headless Chromium (the system's) driven by Playwright; the test skips without them."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')")
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: apt-get install chromium (.ci/run does)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def phone(browser):  # type: ignore[no-untyped-def]
    """Opens the page at a phone's viewport; at the end, no script error may have been seen."""
    opened: list[tuple[object, list[str]]] = []

    def open_page(url: str):  # type: ignore[no-untyped-def]
        context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        opened.append((context, errors))
        page.goto(url)
        page.wait_for_function("() => document.body.dataset.version !== undefined")
        page.wait_for_selector("#live.ok")
        return page

    yield open_page
    for context, errors in opened:
        context.close()  # type: ignore[attr-defined]
        assert not errors, errors


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"web-{name}.png"), full_page=True)


def open_organiser(page: Any) -> None:
    """The organiser's card opened (its own toggle, closed on a fresh page), as a tap on it would."""
    if not page.evaluate("document.getElementById('organiser').open"):
        page.click("#organiser summary")
