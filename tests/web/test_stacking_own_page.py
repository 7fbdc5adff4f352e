"""A player's own page in the stacking game buys and redraws without the organiser's PIN (POST
/api/buy, /api/redraw): on that player's turn, within their finalised score, every refusal one
line of JSON."""

from __future__ import annotations

from dataclasses import replace

from companion.table.stacking import start_stacking
from companion.web.app import create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from tests.web.conftest import PIN, FakeTime, csrf_of, make_session

WORDS = frozenset({"MEN"})


def client_for(session):  # type: ignore[no-untyped-def]
    clock = FakeTime()
    app = create_app(Hub(session, now_ms=clock), auth=Auth(PIN, now=clock.seconds))
    client = app.test_client()
    return client, {"X-CSRF-Token": csrf_of(client)}


def test_a_player_buys_on_their_own_page_without_the_pin():
    s = start_stacking(None, 0, names=["Ann", "Bob", "Cy"], seed=4, lexicon_for=lambda _: WORDS)
    s.state = replace(s.state, players=(replace(s.state.players[0], score=12),) + s.state.players[1:])
    client, headers = client_for(s)
    first, second = s.state.market[:2]
    r = client.post("/api/buy", json={"player": 0, "letter": first}, headers=headers)
    assert r.status_code == 200, r.get_json()
    assert s.state.players[0].score == 7 and first in s.state.players[0].rack
    assert client.get("/api/state").get_json()["stacking"]["prices"] == [10, 5, 5]
    # Ann's second tile costs 10: she has 7.
    r = client.post("/api/buy", json={"player": 0, "letter": second}, headers=headers)
    assert r.status_code == 409
    assert r.get_json() == {"error": f"{second} costs 10 points and Ann has 7: you cannot buy below zero"}
    r = client.post("/api/buy", json={"player": 1, "letter": second}, headers=headers)
    assert r.status_code == 409 and r.get_json() == {"error": "it is Ann's turn: buy before your own play"}
    for body, error in (({"player": 0, "letter": "QQ"}, "buy: the one letter to buy from the marketplace"),
                        ({"player": "Ann", "letter": "E"}, "player: a number from 0 to 2"),
                        ({"player": 0, "tiles": "E"}, "unknown field 'tiles' (known: letter, player)")):
        r = client.post("/api/buy", json=body, headers=headers)
        assert r.status_code in (400, 409) and r.get_json() == {"error": error}
    assert s.state.players[0].score == 7 and s.state.players[0].purchases == 1  # nothing else spent
    # Without the session's CSRF token nothing is bought.
    assert client.post("/api/buy", json={"player": 0, "letter": second}).status_code == 403
    # Ann's own page redraws (5 of her 7 points; the turn passes to Bob); Ann's cannot again.
    r = client.post("/api/redraw", json={"player": 0}, headers=headers)
    assert r.status_code == 200 and s.state.players[0].score == 2 and s.state.to_move == 1
    r = client.post("/api/redraw", json={"player": 0}, headers=headers)
    assert r.status_code == 409 and r.get_json() == {"error": "it is Bob's turn: redraw on your own turn"}
    r = client.post("/api/redraw", json={"player": 1}, headers=headers)  # Bob has no points
    assert r.status_code == 409 and r.get_json() == {"error": "A redraw costs 5 points and Bob has 0"}


def test_another_game_has_no_purchase():
    client, headers = client_for(make_session())
    r = client.post("/api/buy", json={"player": 0, "letter": "E"}, headers=headers)
    assert r.status_code == 409 and r.get_json() == {"error": "classic has no marketplace on the page"}
    r = client.post("/api/redraw", json={"player": 0}, headers=headers)
    assert r.status_code == 409 and r.get_json() == {"error": "classic has no redraw on the page"}
