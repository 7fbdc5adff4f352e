"""What a stranger on the network can and cannot do: CSRF, the PIN's rate limit, paths,
malformed and oversized bodies. Every refusal leaves the document's version unchanged."""

from __future__ import annotations

import json

import pytest

from tests.web.conftest import PIN, csrf_of, login


def version(client) -> int:  # type: ignore[no-untyped-def]
    return client.get("/api/state").get_json()["version"]


def test_admin_actions_refused_without_the_pin(client, hub):
    token = csrf_of(client)
    before = version(client)
    for path in ("/api/admin/undo", "/api/admin/pause", "/api/admin/resume"):
        r = client.post(path, headers={"X-CSRF-Token": token})
        assert r.status_code == 401 and "PIN" in r.get_json()["error"]
    r = client.post("/api/admin/new-game", json={"names": ["X", "Y"]}, headers={"X-CSRF-Token": token})
    assert r.status_code == 401
    assert version(client) == before


@pytest.mark.parametrize("header", [None, "", "not-the-token"])
def test_csrf_missing_or_wrong_is_403_and_changes_nothing(client, hub, header):
    good = login(client)
    hub.call(lambda s, now: s.resume(now))
    before = version(client)
    headers = {} if header is None else {"X-CSRF-Token": header}
    for path, body in [("/api/admin/pause", {}), ("/api/admin/new-game", {"names": ["X", "Y"]}),
                       ("/api/admin/correct", {"square": "H8", "letter": "A"}), ("/api/logout", {})]:
        r = client.post(path, json=body, headers=headers)
        assert r.status_code == 403, path
        assert "CSRF" in r.get_json()["error"]
    assert version(client) == before
    # The same request with the token goes through: the test can fail.
    assert client.post("/api/admin/pause", headers={"X-CSRF-Token": good}).status_code == 200
    assert version(client) == before + 1


def test_another_sessions_token_is_not_enough(app, hub):
    organiser, stranger = app.test_client(), app.test_client()
    login(organiser)
    stranger_token = csrf_of(stranger)
    before = version(organiser)
    r = organiser.post("/api/admin/resume", headers={"X-CSRF-Token": stranger_token})
    assert r.status_code == 403 and version(organiser) == before


def test_a_post_without_a_session_cookie_is_refused(client):
    r = client.post("/api/login", json={"pin": PIN})
    assert r.status_code == 403


def test_the_sixth_wrong_pin_in_a_minute_is_429_even_when_right(client, clock):
    token = csrf_of(client)
    wrong = "000000" if PIN != "000000" else "111111"
    for i in range(5):
        r = client.post("/api/login", json={"pin": wrong}, headers={"X-CSRF-Token": token})
        assert r.status_code == 403, i
    r = client.post("/api/login", json={"pin": wrong}, headers={"X-CSRF-Token": token})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    # Locked out: the right PIN is not even tried.
    r = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token})
    assert r.status_code == 429
    clock.ms += 61_000
    r = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token})
    assert r.status_code == 200 and r.get_json()["admin"] is True


def test_the_rate_limit_is_per_address(app, clock):
    a = app.test_client()
    b = app.test_client()
    ta, tb = csrf_of(a), csrf_of(b)
    for _ in range(6):
        a.post("/api/login", json={"pin": "999999"}, headers={"X-CSRF-Token": ta},
               environ_base={"REMOTE_ADDR": "10.0.0.5"})
    r = a.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": ta}, environ_base={"REMOTE_ADDR": "10.0.0.5"})
    assert r.status_code == 429
    r = b.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": tb}, environ_base={"REMOTE_ADDR": "10.0.0.6"})
    assert r.status_code == 200


def _pin(client, token: str, pin: str, address: str):  # type: ignore[no-untyped-def]
    return client.post("/api/login", json={"pin": pin}, headers={"X-CSRF-Token": token},
                       environ_base={"REMOTE_ADDR": address})


def test_strangers_cannot_lock_the_organiser_out(app, clock):
    organiser, stranger = app.test_client(), app.test_client()
    admin_token = login(organiser)  # logged in before the storm, from 10.0.0.2
    token = csrf_of(stranger)
    # 30 wrong PINs from a mix of other addresses: some guess 5 times, some 3, some once.
    addresses = [f"10.0.1.{i}" for i in range(1, 5) for _ in range(5)] + [f"10.0.2.{i}" for i in range(1, 3) for _ in range(3)] \
        + [f"10.0.3.{i}" for i in range(1, 5)]
    assert len(addresses) == 30
    for a in addresses:
        assert _pin(stranger, token, "999999", a).status_code in (403, 429)
    # Every address that guessed wrong is locked now, even one that guessed once...
    assert _pin(stranger, token, PIN, "10.0.3.1").status_code == 429
    # ...but the organiser, on a new phone from an address that never guessed wrong, logs in at once,
    other = app.test_client()
    r = _pin(other, csrf_of(other), PIN, "10.0.0.3")
    assert r.status_code == 200 and r.get_json()["admin"] is True
    # and the session logged in before the storm is still the organiser's.
    assert organiser.get("/api/session").get_json()["admin"] is True
    r = organiser.post("/api/admin/new-game", json={"names": ["Ann", "Bob"]}, headers={"X-CSRF-Token": admin_token})
    assert r.status_code == 200, r.get_json()


def test_under_many_guessers_a_new_address_gets_one_try(app, clock):
    c = app.test_client()
    token = csrf_of(c)
    for i in range(30):
        _pin(c, token, "999999", f"10.0.4.{i}")
    assert _pin(c, token, "999999", "10.0.5.1").status_code == 403  # its one try
    assert _pin(c, token, PIN, "10.0.5.1").status_code == 429  # then it waits like the others
    clock.ms += 61_000  # the window passed: the one try is forgotten with the storm
    assert _pin(c, token, PIN, "10.0.5.1").status_code == 200


def test_each_lock_out_of_an_address_lasts_twice_the_one_before(client, clock):
    token = csrf_of(client)
    waits = []
    for _ in range(3):
        for _ in range(5):
            assert _pin(client, token, "999999", "10.0.6.1").status_code == 403
        r = _pin(client, token, PIN, "10.0.6.1")
        assert r.status_code == 429
        waits.append(int(r.headers["Retry-After"]))
        clock.ms += waits[-1] * 1000
    assert waits == [60, 120, 240]
    assert _pin(client, token, PIN, "10.0.6.1").status_code == 200


def test_login_makes_a_new_session_id(client):
    client.get("/api/session")
    before = client.get_cookie("companion_session").value
    login(client)
    after = client.get_cookie("companion_session")
    assert after.value != before
    assert after.http_only and after.same_site == "Strict"


@pytest.mark.parametrize("path", [
    "/static/../../etc/passwd",
    "/static/..%2f..%2fetc%2fpasswd",
    "/static/%2e%2e/%2e%2e/etc/passwd",
    "/static/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/static/....//....//etc/passwd",
    "/static/%252e%252e/etc/passwd",
    "/static//etc/passwd",
    "/static/..\\..\\etc\\passwd",
    "/../../etc/passwd",
    "/game.gcg/../../etc/passwd",
    "/static/../app.py",
    "/static/../templates/index.html",
])
def test_no_path_traversal(client, path):
    # A doubled slash is redirected to its single-slash form first (and that is a 404 too).
    r = client.get(path, follow_redirects=True)
    assert r.status_code == 404, (path, r.status_code)
    assert b"root:" not in r.data and b"create_app" not in r.data
    assert r.get_json() == {"error": "no such page"}


def test_malformed_json_is_400_and_changes_nothing(client):
    token = login(client)
    before = version(client)
    for body in (b"{", b"[1, 2]", b'"text"', b"\xff\xfe", b'{"square": "H8",}', b"null"):
        r = client.post("/api/admin/correct", data=body, content_type="application/json",
                        headers={"X-CSRF-Token": token})
        assert r.status_code == 400, body
        assert set(r.get_json()) == {"error"}
    r = client.post("/api/admin/correct", data="square=H8", content_type="application/x-www-form-urlencoded",
                    headers={"X-CSRF-Token": token})
    assert r.status_code == 415
    assert version(client) == before


def test_oversized_bodies_are_413_and_change_nothing(client):
    token = login(client)
    before = version(client)
    big = json.dumps({"names": ["A" * 20_000, "B"]})
    r = client.post("/api/admin/new-game", data=big, content_type="application/json", headers={"X-CSRF-Token": token})
    assert r.status_code == 413 and "larger" in r.get_json()["error"]
    r = client.post("/api/login", data=json.dumps({"pin": "1" * 17_000}), content_type="application/json",
                    headers={"X-CSRF-Token": token})
    assert r.status_code == 413
    assert version(client) == before


@pytest.mark.parametrize("path,body", [
    ("/api/admin/correct", {"square": "Z99", "letter": "A"}),
    ("/api/admin/correct", {"square": "H8", "letter": "7"}),
    ("/api/admin/correct", {"square": ["H8"], "letter": "A"}),
    ("/api/admin/correct", {"square": "H8", "letter": "A", "blank": "yes"}),
    ("/api/admin/correct", {"square": "H8", "letter": "A", "extra": 1}),
    ("/api/admin/correct", {"square": "H8", "letter": ""}),
    ("/api/admin/challenge", {"decision": "maybe"}),
    ("/api/admin/challenge", {"decision": "valid"}),
    ("/api/admin/new-game", {"names": ["Only one"]}),
    ("/api/admin/new-game", {"names": ["A", "a"]}),
    ("/api/admin/new-game", {"names": "Ann, Bob"}),
    ("/api/admin/new-game", {"names": ["A", "B"], "game": "chess"}),
    ("/api/admin/new-game", {"names": ["A", "B"], "game": "dungeon"}),
    ("/api/admin/new-game", {"names": ["A", "B"], "control": "forever"}),
    ("/api/admin/new-game", {"names": ["A", "B"], "control": {"minutes": -5}}),
    ("/api/admin/new-game", {"names": ["A", "B"], "control": {"minutes": 1e308}}),
    ("/api/admin/new-game", {"names": ["A", "B"], "tileset": "klingon"}),
    ("/api/admin/new-game", {"names": ["A", "B"], "seed": "x"}),
    ("/api/admin/pause", {}),  # the clock has not started
    ("/api/admin/undo", {}),  # nothing to undo
    ("/api/admin/pause", {"now": 1}),
])
def test_bad_actions_are_4xx_one_line_and_change_nothing(client, path, body):
    token = login(client)
    before = version(client)
    r = client.post(path, json=body, headers={"X-CSRF-Token": token})
    assert 400 <= r.status_code < 500, (body, r.status_code)
    error = r.get_json()["error"]
    assert "\n" not in error and "Traceback" not in error
    assert version(client) == before


def test_nothing_changes_over_get(client):
    login(client)
    before = version(client)
    for path in ("/api/admin/new-game", "/api/admin/undo", "/api/admin/pause", "/api/admin/resume",
                 "/api/admin/correct", "/api/admin/challenge", "/api/login", "/api/logout"):
        r = client.get(path)
        assert r.status_code == 405, path
    assert version(client) == before


def test_a_bug_is_a_500_without_a_traceback(client, hub, monkeypatch):
    token = login(client)
    monkeypatch.setattr(type(hub.session), "undo", lambda self, now: 1 / 0)
    r = client.post("/api/admin/undo", headers={"X-CSRF-Token": token})
    assert r.status_code == 500
    assert r.get_json() == {"error": "internal error: the game is unchanged"}


def test_security_headers(client):
    r = client.get("/")
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert client.get("/api/state").headers["Cache-Control"] == "no-store"
