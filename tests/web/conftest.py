"""Fixtures of the live page's tests: a session on a small word list (no house list to load),
a hub driven by a fake clock, the Flask app with a known PIN."""

from __future__ import annotations

from typing import Any

import pytest

from companion.web.app import create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from companion.table.classic import ClassicSession

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
