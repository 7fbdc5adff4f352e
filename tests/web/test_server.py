"""The app as waitress serves it, over real HTTP on the loopback: streams deliver changes, the
stream bound holds (503, and a freed place is taken again), downloads are what they say."""

from __future__ import annotations

import gzip
import http.client
import zlib
import json
import time
import xml.etree.ElementTree as ET

import pytest

from companion.web.app import WebConfig, create_app
from companion.web.auth import Auth
from companion.web.hub import Hub
from companion.web.patch import apply_patch
from companion.web.server import ServerThread
from tests.web.conftest import PIN, make_session


@pytest.fixture
def served():
    hub = Hub(make_session(), max_clients=2).start()
    app = create_app(hub, WebConfig(keepalive_s=0.2, public_url="http://192.168.1.20:8080/"), Auth(PIN))
    server = ServerThread(app, hub).start()
    yield hub, server
    server.stop()


def open_stream(port: int):  # type: ignore[no-untyped-def]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", "/api/events")
    return conn, conn.getresponse()


def next_event(resp) -> tuple[str, dict]:  # type: ignore[no-untyped-def]
    name = None
    while True:
        line = resp.fp.readline()
        assert line, "the stream ended"
        if line.startswith(b"event: "):
            name = line[7:].strip().decode()
        elif line.startswith(b"data: "):
            return name, json.loads(line[6:])


def next_snapshot(resp) -> dict:  # type: ignore[no-untyped-def]
    while True:
        name, data = next_event(resp)
        if name == "snapshot":
            return data


def test_a_stream_gets_a_snapshot_then_every_change(served):
    hub, server = served
    conn, resp = open_stream(server.port)
    assert resp.status == 200 and resp.getheader("Content-Type").startswith("text/event-stream")
    first = next_snapshot(resp)
    assert first["players"][0]["score"] == 0
    name, tick = next_event(resp)
    assert name == "time" and tick["server_time"] >= first["server_time"]
    hub.call(lambda s, now: s.play(now, "8D", "HOUSE"))
    changed = next_change(resp, first)
    assert changed["version"] == first["version"] + 1 and changed["players"][0]["score"] == 24
    assert changed == json.loads(hub.document()[1])
    conn.close()


def next_change(resp, shown: dict) -> dict:  # type: ignore[no-untyped-def]
    """The document after the stream's next patch."""
    while True:
        name, data = next_event(resp)
        if name == "patch":
            assert data["base"] == shown["version"]
            return apply_patch(shown, data["patch"])


def test_the_stream_and_the_state_are_gzipped_for_a_browser_that_takes_it(served):
    hub, server = served
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/api/state", headers={"Accept-Encoding": "gzip, deflate"})
    r = conn.getresponse()
    body = r.read()
    assert r.getheader("Content-Encoding") == "gzip"
    assert json.loads(gzip.decompress(body)) == json.loads(hub.document()[1])
    assert len(body) < len(hub.document()[1]) / 2
    conn.request("GET", "/api/events", headers={"Accept-Encoding": "gzip"})
    r = conn.getresponse()
    assert r.getheader("Content-Encoding") == "gzip"
    unpack = zlib.decompressobj(31)
    text = b""
    # Each event arrives whole at once (the compressor is flushed after each).
    while b"event: time" not in text:
        text += unpack.decompress(r.read1(65536))
    assert b"event: snapshot" in text
    hub.call(lambda s, now: s.play(now, "8D", "HOUSE"))
    while b"event: patch" not in text:
        text += unpack.decompress(r.read1(65536))
    conn.close()


def test_the_stream_bound_holds_and_a_freed_place_is_taken_again(served):
    hub, server = served
    a, ra = open_stream(server.port)
    b, rb = open_stream(server.port)
    next_snapshot(ra), next_snapshot(rb)
    c, rc = open_stream(server.port)
    assert rc.status == 503 and rc.getheader("Retry-After") == "10"
    assert "at most 2" in json.loads(rc.read())["error"]
    c.close()
    # Polling still answers while every stream is taken.
    p = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    p.request("GET", "/api/state")
    r = p.getresponse()
    assert r.status == 200 and json.loads(r.read())["version"] >= 1
    assert int(r.getheader("X-Server-Time")) > 0
    # A page goes away: its place is free once the server notices (at the next keep-alive).
    ra.close(), a.close()  # the response holds the socket too
    deadline = time.monotonic() + 10
    while hub.clients >= 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    d, rd = open_stream(server.port)
    assert rd.status == 200
    d.close(), b.close(), p.close()


def test_the_qr_code_and_the_gcg_download(served):
    hub, server = served
    hub.call(lambda s, now: s.play(now, "8D", "HOUSE"))
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    conn.request("GET", "/qr.svg")
    r = conn.getresponse()
    svg = r.read()
    assert r.status == 200 and r.getheader("Content-Type").startswith("image/svg+xml")
    assert r.getheader("X-Page-URL") == "http://192.168.1.20:8080/"
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    conn.request("GET", "/game.gcg")
    r = conn.getresponse()
    text = r.read().decode()
    assert r.status == 200 and "attachment" in r.getheader("Content-Disposition")
    assert ">Ann: HOUSE 8D HOUSE +24 24" in text  # the rack: the tiles played (not tracked)
    conn.close()


def test_the_gcg_file_is_named_after_the_players_and_the_day():
    from companion.web.app import gcg_filename

    # 2026-11-27 12:00 UTC
    assert gcg_filename(["Ann", "Bob"], 1_795_780_800_000) == "Ann-Bob-2026-11-27.gcg"
    assert gcg_filename(["Zoë Ämter", "<x>"], 1_795_780_800_000) == "Zo_mter-x-2026-11-27.gcg"
    assert gcg_filename(["", "Bob"], None).startswith("player1-Bob-")
