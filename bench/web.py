"""The live page under load, over real HTTP on the loopback: 50 phones holding an event stream
open and 200 polling requests a second, for 60 s, while the game changes once a second.

The server is the real thing (the app, the hub's game thread, waitress) in a process of its
own, started as ``python -m bench.web --server``; the clients run here, in this process, on
the same machine: the driver competes with the server for the same cores, so the figures are
a ceiling on what a phone on the Wi-Fi would see from the server's side, not a network test.

- Polls: ``GET /api/state`` at a steady 200 a second, spread over keep-alive connections; the
  latency of each is from sending the request to the last byte of the answer.
- Streams: each client reads its stream as a browser does; the delivery delay of an update is
  the time it arrives here minus the ``server_time`` the document was made at (both are the
  system's monotonic clock, which two processes on one machine share).
- Errors: any status but 200, any broken connection, any stream missing an update.

``COMPANION_BENCH_WEB_SECONDS`` shortens the run for a quick check; ``make bench`` runs 60 s.
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any

SSE_CLIENTS = 50
POLLS_PER_SECOND = 200
POLL_CONNECTIONS = 16
DEFAULT_SECONDS = 60.0
UPDATE_EVERY_S = 1.0


def now_ms() -> float:
    return time.monotonic_ns() / 1e6


def percentile(values: list[float], p: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return round(s[k], 2)


# --- the server process ----------------------------------------------------------------------


def serve(seconds: float) -> None:
    """The real app on a free loopback port; the game changes every second until ``seconds``
    have passed after the first client, then the process ends."""
    from companion.web.app import create_app
    from companion.web.auth import Auth
    from companion.web.hub import Hub
    from companion.web.server import ServerThread
    from companion.table.classic import ClassicSession

    session = ClassicSession(["Ann", "Bob"], challenge="single", seed=1)
    hub = Hub(session).start()
    server = ServerThread(create_app(hub, auth=Auth()), hub).start()
    hub.call(lambda s, now: s.resume(now))
    print(server.port, flush=True)
    # The driver says when to start changing the game (its streams are open) by a line.
    sys.stdin.readline()
    letters = "ABCDEFGHIJKLMNOPRSTUVWY"
    deadline = time.monotonic() + seconds + 2
    i = 0
    next_at = time.monotonic()
    while time.monotonic() < deadline:
        next_at += UPDATE_EVERY_S
        time.sleep(max(0.0, next_at - time.monotonic()))
        letter = letters[i % len(letters)]
        hub.call(lambda s, now, x=letter: s.correct(now, "O15", x))
        i += 1
    sys.stdin.readline()
    server.stop()


# --- the clients -------------------------------------------------------------------------------


_phones = itertools.count()


def phone_address() -> tuple[str, int]:
    """A loopback address of its own for each simulated phone (127.0.0.2, ...), as each phone has
    its own on the table's network: the server limits the connections of one address."""
    return (f"127.0.0.{2 + next(_phones) % 250}", 0)


class Stream(threading.Thread):
    """One phone's event stream: every snapshot's version and delivery delay."""

    def __init__(self, port: int, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.port, self.stop = port, stop
        self.address = phone_address()
        self.delays: list[float] = []
        self.versions: list[int] = []
        self.errors: list[str] = []
        self.connected = threading.Event()

    def run(self) -> None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=self.address)
            conn.request("GET", "/api/events")
            resp = conn.getresponse()
            if resp.status != 200:
                self.errors.append(f"status {resp.status}")
                return
            self.connected.set()
            event = None
            while not self.stop.is_set():
                line = resp.fp.readline()
                if not line:
                    if not self.stop.is_set():
                        self.errors.append("stream closed")
                    return
                if line.startswith(b"event: "):
                    event = line[7:].strip()
                elif line.startswith(b"data: ") and event in (b"snapshot", b"patch"):
                    arrived = now_ms()
                    doc = json.loads(line[6:])
                    if event == b"patch":  # a change: its version and time are in the patch
                        doc = doc["patch"]
                    self.versions.append(doc["version"])
                    self.delays.append(arrived - doc["server_time"])
            conn.close()
        except Exception as exc:  # counted, not raised: a benchmark reports
            if not self.stop.is_set():
                self.errors.append(f"{type(exc).__name__}: {exc}")


def poller(port: int, jobs: "queue.Queue[float | None]", latencies: list[float], errors: list[str],
           lateness: list[float]) -> None:
    address = phone_address()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=address)
    while True:
        due = jobs.get()
        if due is None:
            break
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        lateness.append(max(0.0, time.monotonic() - due) * 1000)
        started = now_ms()
        try:
            conn.request("GET", "/api/state")
            resp = conn.getresponse()
            body = resp.read()
            latencies.append(now_ms() - started)
            if resp.status != 200 or not body.startswith(b'{"version":'):
                errors.append(f"status {resp.status}")
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=address)
    conn.close()


# --- bytes per phone per game -------------------------------------------------------------------

GAME = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "games", "macondo",
                    "gcgio_doug_v_emely.gcg")


class _AnyWord:
    """Every word stands: the benchmark replays a record's plays, not its challenges."""

    def __contains__(self, word: object) -> bool:
        return True


def game_bytes() -> dict[str, Any]:
    """What one phone receives over a whole game: the real server on the loopback, one event
    stream read as a browser reads it (gzip accepted), a tournament game's plays made one by
    one (the shipped short game without ../shared). Counted: every byte off the socket, HTTP
    headers included; beside it, what the page received before (the whole document at every
    change, uncompressed)."""
    import socket

    from companion.core.gcg import Play, Withdrawn, decode_gcg, parse_gcg
    from companion.table.classic import ClassicSession
    from companion.web.app import create_app
    from companion.web.auth import Auth
    from companion.web.hub import Hub
    from companion.web.server import ServerThread

    if os.path.isfile(GAME):
        with open(GAME, "rb") as f:
            record, source = parse_gcg(decode_gcg(f.read())), "doug_v_emely (../shared)"
    else:
        from importlib import resources

        data = resources.files("companion").joinpath("data", "sample.gcg").read_bytes()
        record, source = parse_gcg(decode_gcg(data)), "the shipped sample game"
    # The plays that stood (a phony challenged off is the next event's business: left out).
    events = list(record.events)
    plays = [e for i, e in enumerate(events) if isinstance(e, Play)
             and not (i + 1 < len(events) and isinstance(events[i + 1], Withdrawn))]
    session = ClassicSession([p.nick for p in record.players], challenge="void", seed=1,
                             lexicon_for=lambda tileset: _AnyWord())
    hub = Hub(session).start()
    server = ServerThread(create_app(hub, auth=Auth()), hub).start()
    received = bytearray()
    done = threading.Event()

    def read(sock: socket.socket) -> None:
        while not done.is_set():
            try:
                chunk = sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            received.extend(chunk)

    try:
        hub.call(lambda s, now: s.resume(now))
        sock = socket.create_connection(("127.0.0.1", server.port))
        sock.sendall(b"GET /api/events HTTP/1.1\r\nHost: phone\r\nAccept: text/event-stream\r\n"
                     b"Accept-Encoding: gzip, deflate\r\n\r\n")
        reader = threading.Thread(target=read, args=(sock,), daemon=True)
        reader.start()
        time.sleep(0.3)
        full = len(hub.document()[1])  # the snapshot on connect, as before
        made = 0
        for p in plays:
            before = hub.version
            hub.call(lambda s, now, p=p: s.play(now, p.position, p.word))
            made += hub.version > before
            full += len(hub.document()[1])
            time.sleep(0.05)
        time.sleep(0.5)
        done.set()
        sock.close()
        last_doc = len(hub.document()[1])
    finally:
        server.stop()
    return {
        "game": source,
        "moves": made,
        "bytes_per_phone_per_game": len(received),
        "bytes_per_phone_per_game_before": full,
        "last_document_bytes": last_doc,
        "target_bytes": 300_000,
    }


def run() -> dict[str, Any]:
    game = game_bytes()
    seconds = float(os.environ.get("COMPANION_BENCH_WEB_SECONDS", DEFAULT_SECONDS))
    load_before = os.getloadavg()
    server = subprocess.Popen(
        [sys.executable, "-m", "bench.web", "--server", str(seconds)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )
    try:
        assert server.stdin is not None and server.stdout is not None
        port = int(server.stdout.readline())
        stop = threading.Event()
        streams = [Stream(port, stop) for _ in range(SSE_CLIENTS)]
        for s in streams:
            s.start()
        for s in streams:
            s.connected.wait(10)
        open_streams = sum(s.connected.is_set() for s in streams)
        first_versions = [s.versions[0] if s.versions else None for s in streams]

        jobs: "queue.Queue[float | None]" = queue.Queue()
        latencies: list[float] = []
        errors: list[str] = []
        lateness: list[float] = []
        pollers = [threading.Thread(target=poller, args=(port, jobs, latencies, errors, lateness), daemon=True)
                   for _ in range(POLL_CONNECTIONS)]
        for p in pollers:
            p.start()
        server.stdin.write("go\n")
        server.stdin.flush()
        started = time.monotonic()
        total = int(seconds * POLLS_PER_SECOND)
        for i in range(total):
            due = started + i / POLLS_PER_SECOND
            # Hand the job out a little before it is due; the poller waits for the moment.
            time.sleep(max(0.0, due - 0.05 - time.monotonic()))
            jobs.put(due)
        for _ in pollers:
            jobs.put(None)
        for p in pollers:
            p.join(timeout=30)
        elapsed = time.monotonic() - started
        time.sleep(UPDATE_EVERY_S * 1.5)  # the last update reaches the streams
        stop.set()
        server.stdin.write("stop\n")
        server.stdin.flush()
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
    delays = [d for s in streams for d in s.delays[1:]]  # the first is the snapshot on connect
    stream_errors = [e for s in streams for e in s.errors]
    # Every stream must have seen every version after its first, in order, none missing.
    gaps = 0
    for s in streams:
        v = s.versions
        gaps += sum(1 for a, b in zip(v, v[1:]) if b != a + 1)
    updates = min((len(s.versions) - 1 for s in streams), default=0)
    load_after = os.getloadavg()
    return {
        "seconds": round(elapsed, 1),
        "polls": len(latencies),
        "polls_per_second": round(len(latencies) / elapsed, 1),
        "poll_errors": len(errors),
        "poll_ms_p50": percentile(latencies, 50),
        "poll_ms_p95": percentile(latencies, 95),
        "poll_ms_p99": percentile(latencies, 99),
        "poll_ms_max": round(max(latencies), 2) if latencies else None,
        "poll_client_late_ms_p95": percentile(lateness, 95),
        "sse_clients": open_streams,
        "sse_updates_per_client": updates,
        "sse_deliveries": len(delays),
        "sse_errors": len(stream_errors),
        "sse_missed_versions": gaps,
        "sse_delay_ms_p50": percentile(delays, 50),
        "sse_delay_ms_p95": percentile(delays, 95),
        "sse_delay_ms_p99": percentile(delays, 99),
        "errors": len(errors) + len(stream_errors) + gaps + (SSE_CLIENTS - open_streams),
        "error_samples": (errors + stream_errors)[:5],
        "first_versions_seen": sorted({v for v in first_versions if v is not None})[:3],
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in load_after],
        "phone_game": game,
        "note": "server (app, hub, waitress) in its own process; the 50 stream readers and the pollers in "
        "the benchmark's process on the same machine and cores, over the loopback",
        "summary": (
            f"{len(latencies)} polls ({len(latencies) / elapsed:.0f}/s) p95 {percentile(latencies, 95)} ms, "
            f"{open_streams} streams x {updates} updates, delivery p95 {percentile(delays, 95)} ms, "
            f"{len(errors) + len(stream_errors) + gaps} errors; a {game['moves']}-move game "
            f"{game['bytes_per_phone_per_game'] / 1000:.0f} KB per phone "
            f"(whole documents uncompressed: {game['bytes_per_phone_per_game_before'] / 1000:.0f} KB)"
        ),
    }


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--server":
        serve(float(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_SECONDS)
    else:
        print(json.dumps(run(), indent=2))
