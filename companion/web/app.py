"""The live page's Flask application: ``create_app(hub, config)``.

Thin on purpose: routes read the hub's document or hand the organiser's actions to the game
thread (:meth:`Hub.call`); the game's own checks answer for what an action means. Every
refusal is a 4xx with one line of JSON (``{"error": "..."}``), never a traceback, and nothing
changes state over GET.

Endpoints (also in the README):

    GET  /                     the page (written by the server as it is now: it reads without script)
    GET  /tv                   the venue view: the board to the screen's height, large scores and clocks
    GET  /api/state            the document (same as the stream's); header X-Server-Time
    GET  /api/events           server-sent events: snapshot on connect, then every change,
                               `time` events as keep-alives; 503 beyond max_clients streams
    GET  /api/session          {admin, csrf}: sets the session cookie if there is none
    POST /api/login            {"pin": "123456"} -> a new admin session (403 wrong, 429 locked)
    POST /api/logout
    POST /api/admin/new-game   {game, names, control, challenge, tileset, seed; the dungeon: objects, dice}
    POST /api/admin/action     {action, tiles}: an action the game offers (the solo dungeon's "rack",
                               "refill", "burn" with tiles: "AEINRST"); /api/admin/dungeon the same
    POST /api/admin/pause | /api/admin/resume | /api/admin/undo
    POST /api/admin/correct    {square: "H8", letter: "A" | "" (empty), blank: false}
    POST /api/admin/challenge  {decision: "dictionary" | "valid" | "phony", by: 1}
    POST /api/answer           {square: "H8", letter: "Ü" | "" (no tile), blank: false}: the answer to the
                               table's question about a square, by the player on move or the organiser
                               (any page at the table: no PIN, as anyone there could set the tile right)
    POST /api/challenge        {by: 1}: that player challenges the last play; the house list decides; no PIN
    POST /api/declare          {count: 3}: the player on move's next turn without tiles is an exchange
                               of 3 tiles (0: a pass); no PIN
    POST /api/racks            {racks: ["AEI", ""]}: the tiles left on each rack when the game asks; no PIN
    POST /api/buy              {player: 0, letter: "E"}: the stacking game's purchase from that player's own
                               page (on their turn, within their score); no PIN, as a tap on the game's screen
    POST /api/redraw           {player: 0}: the stacking game's redraw (5 points, the turn over) from that
                               player's own page, on their turn; no PIN
    POST /api/press            {button: "player1" | ... | "pause" | "roll"}: a press of that button where
                               the table has page buttons (mock pins, or [web] page_buttons); no PIN
    POST /api/admin/resign     {player: 0}: that player resigns, the game ends
    POST /api/admin/adjourn    the game stops for now (clock paused, kept in the log); resume goes on
    GET  /game.gcg             the game so far as GCG
    GET  /qr.svg               a QR code of the page's own address
    GET  /api/admin/camera.jpg what the table last saw, the grid and readings drawn (?board=1: House's second)
"""

from __future__ import annotations

import gzip
import io
import ipaddress
import logging
import queue
import socket
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

import segno
from flask import Flask, Response, g, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from companion.web.auth import Auth
from companion.web.hub import Hub, HubStopped, sse_event
from companion.web.plain import plain_view
from companion.table import games
from companion.table.session import ActionError

log = logging.getLogger("companion.web")

COOKIE = "companion_session"
CSRF_HEADER = "X-CSRF-Token"
DISCONNECT_CHECK_S = 0.5  # how soon a closed event stream frees its slot


@dataclass(frozen=True)
class WebConfig:
    max_body: int = 16 * 1024  # every admin action's JSON is far smaller
    keepalive_s: float = 10.0  # a `time` event this often on an idle stream
    public_url: str | None = None  # the address the QR code shows; default: the request's
    secure_cookie: bool = False  # True behind HTTPS
    call_timeout_s: float = 10.0


def _loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


class Presses(Protocol):
    """The table's buttons pressed from the page (`companion run --mock`'s mock pins)."""

    buttons: Any  # the names: player1 ..., pause, roll

    def press(self, name: str) -> None: ...


def create_app(hub: Hub, config: WebConfig | None = None, auth: Auth | None = None,
               camera_view: Callable[[int], bytes | None] | None = None,
               presses: Presses | None = None) -> Flask:
    config = config or WebConfig()
    auth = auth or Auth()
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = config.max_body
    app.config["JSON_SORT_KEYS"] = False
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.extensions["companion"] = {"hub": hub, "auth": auth, "config": config}

    def error(status: int, message: str, **headers: str) -> Response:
        resp = jsonify(error=message)
        resp.status_code = status
        for k, v in headers.items():
            resp.headers[k] = v
        return resp

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        messages = {
            404: "no such page",
            405: "method not allowed",
            413: f"request body larger than {config.max_body} bytes",
        }
        return error(exc.code or 500, messages.get(exc.code or 0, exc.description or exc.name))

    @app.errorhandler(Exception)
    def internal_error(exc: Exception) -> Response:
        log.exception("request %s %s", request.method, request.path)
        return error(500, "internal error: the game is unchanged")

    @app.after_request
    def headers(resp: Response) -> Response:
        # Everything the page needs is served from here: no other origin, no inline script.
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        )
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        if request.path.startswith("/api/"):
            resp.headers.setdefault("Cache-Control", "no-store")
        cookie = g.get("set_session")
        if cookie is not None:
            resp.set_cookie(
                COOKIE,
                cookie,
                httponly=True,
                samesite="Strict",
                secure=config.secure_cookie,
                max_age=int(auth.session_ttl_s),
                path="/",
            )
        if g.get("clear_session"):
            resp.delete_cookie(COOKIE, path="/", httponly=True, samesite="Strict")
        return resp

    def current_session():  # type: ignore[no-untyped-def]
        return auth.session(request.cookies.get(COOKIE))

    def body() -> dict[str, Any]:
        """The POST's JSON object (an empty body is an empty object)."""
        data = request.get_data(cache=True)  # raises 413 past MAX_CONTENT_LENGTH
        if not data.strip():
            return {}
        if request.mimetype != "application/json":
            raise _Refusal(415, "send JSON (Content-Type: application/json)")
        try:
            value = request.get_json(force=True, silent=False)
        except Exception:
            raise _Refusal(400, "malformed JSON") from None
        if not isinstance(value, dict):
            raise _Refusal(400, "the body must be a JSON object")
        return value

    class _Refusal(Exception):
        def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
            super().__init__(message)
            self.status, self.message, self.headers = status, message, headers or {}

    @app.errorhandler(_Refusal)
    def refused(exc: _Refusal) -> Response:
        return error(exc.status, exc.message, **exc.headers)

    @app.before_request
    def csrf() -> Response | None:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return None
        s = current_session()
        if s is None:
            return error(403, "no session: reload the page")
        if not auth.csrf_ok(s.id, request.headers.get(CSRF_HEADER)):
            return error(403, "missing or wrong CSRF token: reload the page")
        return None

    # -- the page --

    @app.get("/")
    def index() -> str:
        # The page as it is now, written by the server: a phone without script reads it as is.
        return render_template("index.html", plain=plain_view(hub.document_json(), hub.now_ms()), tv=False)

    @app.get("/tv")
    def tv() -> str:
        """The venue view: the board fitted to the screen's height, scores and clocks to read
        across a room, no organiser's controls."""
        return render_template("index.html", plain=plain_view(hub.document_json(), hub.now_ms()), tv=True)

    @app.get("/api/state")
    def state() -> Response:
        version, data = hub.document()
        resp = Response(gzip.compress(data, 6) if _accepts_gzip() else data, mimetype="application/json")
        if _accepts_gzip():
            resp.headers["Content-Encoding"] = "gzip"
        resp.headers["Vary"] = "Accept-Encoding"
        resp.headers["X-Server-Time"] = str(hub.now_ms())
        resp.headers["X-Version"] = str(version)
        return resp

    @app.get("/api/events")
    def events() -> Response:
        sub = hub.subscribe()
        if sub is None:
            return error(503, f"too many live pages open (at most {hub.max_clients}): the page polls instead",
                         **{"Retry-After": "10"})

        # waitress says when the page's socket has closed: the stream's slot is freed within a
        # second (it waited for the next keep-alive's failed write, up to 10 s: 64 quick
        # reconnects were refused meanwhile).
        gone = request.environ.get("waitress.client_disconnected") or (lambda: False)

        # gzip when the browser takes it (every browser does): one compressor for the stream,
        # flushed after each event, so that a change costs the bytes it changes.
        gzip_it = _accepts_gzip()
        packer = zlib.compressobj(6, zlib.DEFLATED, 31) if gzip_it else None

        def packed(data: bytes) -> bytes:
            return data if packer is None else packer.compress(data) + packer.flush(zlib.Z_SYNC_FLUSH)

        def stream() -> Iterator[bytes]:
            try:
                # The browser reconnects after a second when the stream breaks.
                version, data = sub.first
                yield packed(b"retry: 1000\n\n" + sse_event("snapshot", data, event_id=version)
                             + _time_event(hub, config.keepalive_s))
                quiet = 0.0
                while not sub.dropped and not hub.stopped:
                    if gone():
                        return
                    try:
                        item = sub.queue.get(timeout=min(DISCONNECT_CHECK_S, config.keepalive_s))
                    except queue.Empty:
                        quiet += min(DISCONNECT_CHECK_S, config.keepalive_s)
                        if quiet >= config.keepalive_s:
                            quiet = 0.0
                            yield packed(_time_event(hub, config.keepalive_s))
                        continue
                    quiet = 0.0
                    if sub.dropped:
                        break
                    yield packed(item + _time_event(hub, config.keepalive_s))
            finally:
                hub.unsubscribe(sub)

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no", "Vary": "Accept-Encoding"}
        if gzip_it:
            headers["Content-Encoding"] = "gzip"
        return Response(stream(), mimetype="text/event-stream", headers=headers)

    @app.get("/api/session")
    def session_info() -> Response:
        s = current_session()
        if s is None:
            s = auth.new_session()
            g.set_session = s.id
        # A browser on the device itself (the organiser at the table) is shown the day's PIN:
        # the socket's own peer, which no request header can forge (nothing proxies this server).
        more: dict[str, Any] = {"buttons": list(presses.buttons)} if presses is not None else {}
        if auth.pin is not None and _loopback(request.remote_addr):
            more["device_pin"] = auth.pin
        return jsonify(admin=s.admin, csrf=s.csrf, **more)

    @app.post("/api/login")
    def login() -> Response:
        data = body()
        pin = data.get("pin")
        if not isinstance(pin, str) or len(pin) > 32:
            return error(400, "pin: the six digits shown on the device")
        address = request.remote_addr or "?"
        result = auth.try_pin(address, pin.strip())
        if result.locked:
            return error(429, f"too many wrong PINs: try again in {result.retry_after} s",
                         **{"Retry-After": str(result.retry_after)})
        if not result.ok:
            log.warning("wrong PIN from %s", address)
            return error(403, f"wrong PIN ({result.tries_left} tries left this minute)")
        s = auth.login(request.cookies.get(COOKIE))
        g.set_session = s.id
        log.info("organiser logged in from %s", address)
        return jsonify(admin=True, csrf=s.csrf)

    @app.post("/api/logout")
    def logout() -> Response:
        s = current_session()
        auth.end(s.id if s else None)
        fresh = auth.new_session()
        g.set_session = fresh.id
        return jsonify(admin=False, csrf=fresh.csrf)

    # -- the organiser's actions --

    def admin_action(allowed: set[str], fn: Callable[[Any, int, dict[str, Any]], None],
                     admin: bool = True) -> Response:
        """The organiser's action (``admin``: the admin session first), then the body, then the game."""
        s = current_session()
        if admin and (s is None or not s.admin):
            return error(401, "the organiser's PIN is needed for that")
        data = body()
        unknown = sorted(set(data) - allowed)
        if unknown:
            return error(400, f"unknown field {unknown[0]!r} (known: {', '.join(sorted(allowed)) or 'none'})")
        try:
            hub.call(lambda session, now: fn(session, now, data), timeout=config.call_timeout_s)
        except ActionError as exc:
            return error(exc.status, str(exc))
        except (HubStopped, TimeoutError):
            return error(503, "the game is busy or stopping: try again")
        version, _ = hub.document()
        return jsonify(ok=True, version=version)

    @app.post("/api/admin/new-game")
    def new_game() -> Response:
        def start(session: Any, now: int, d: dict[str, Any]) -> None:
            other = games.new_game(session, now, **d)
            if other is not None:  # another game: its session is the one the page shows now
                hub.replace_session(other)

        return admin_action({"game"} | {k for g in games.GAMES.values() for k in g.settings}, start)

    # The organiser's actions a game offers beyond every game's (the registry's ``actions``);
    # /api/admin/dungeon is the name the solo dungeon's came first under.
    @app.post("/api/admin/action")
    @app.post("/api/admin/dungeon", endpoint="dungeon")
    def action() -> Response:
        return admin_action({"action", "tiles"}, lambda session, now, d: games.act(session, now, d.get("action"),
                                                                                    d.get("tiles")))

    @app.post("/api/admin/pause")
    def pause() -> Response:
        return admin_action(set(), lambda session, now, d: session.pause(now))

    @app.post("/api/admin/resume")
    def resume() -> Response:
        return admin_action(set(), lambda session, now, d: session.resume(now))

    @app.post("/api/admin/undo")
    def undo() -> Response:
        return admin_action(set(), lambda session, now, d: session.undo(now))

    @app.post("/api/admin/correct")
    def correct() -> Response:
        return admin_action(
            {"square", "letter", "blank"},
            lambda session, now, d: session.correct(now, d.get("square"), d.get("letter"), d.get("blank", False)),
        )

    @app.post("/api/admin/challenge")
    def challenge() -> Response:
        return admin_action(
            {"decision", "by"},
            lambda session, now, d: session.rule_challenge(now, d.get("decision"), d.get("by")),
        )

    # -- the players' answers (a page at the table, no PIN) --

    def offered(session: Any, name: str, what: str | None = None) -> Callable[..., Any]:
        fn = getattr(session, name, None)
        if fn is None:
            what = what or name.replace('_', ' ')
            raise ActionError(f"{getattr(session, 'game', 'this game')} has no {what} on the page", 409)
        return fn

    @app.post("/api/answer")
    def answer() -> Response:
        return admin_action(
            {"square", "letter", "blank"},
            lambda session, now, d: offered(session, "answer")(now, d.get("square"), d.get("letter"), d.get("blank", False)),
            admin=False,
        )

    @app.post("/api/challenge")
    def player_challenge() -> Response:
        return admin_action({"by"}, lambda session, now, d: offered(session, "challenge")(now, d.get("by")), admin=False)

    @app.post("/api/declare")
    def declare() -> Response:
        return admin_action({"count"}, lambda session, now, d: offered(session, "declare_exchange")(now, d.get("count")),
                            admin=False)

    @app.post("/api/racks")
    def racks() -> Response:
        return admin_action({"racks"}, lambda session, now, d: offered(session, "enter_racks")(now, d.get("racks")),
                            admin=False)

    @app.post("/api/buy")
    def player_buy() -> Response:
        return admin_action({"player", "letter"},
                            lambda session, now, d: offered(session, "buy_for", "marketplace")(now, d.get("player"), d.get("letter")),
                            admin=False)

    @app.post("/api/redraw")
    def player_redraw() -> Response:
        return admin_action({"player"},
                            lambda session, now, d: offered(session, "redraw_for", "redraw")(now, d.get("player")),
                            admin=False)

    @app.post("/api/press")
    def press() -> Response:
        """A button of the table pressed from the page: as a press of it at the table, so no PIN."""
        if presses is None:
            return error(404, "this table's buttons are pressed at the table (page buttons: `companion run --mock`, "
                              "or [web] page_buttons = true)")
        data = body()
        unknown = sorted(set(data) - {"button"})
        if unknown:
            return error(400, f"unknown field {unknown[0]!r} (known: button)")
        names = list(presses.buttons)
        button = data.get("button")
        if not isinstance(button, str) or button not in names:
            return error(400, f"button: one of {', '.join(names)}")
        presses.press(button)
        return jsonify(ok=True)

    @app.post("/api/admin/resign")
    def resign() -> Response:
        return admin_action({"player"}, lambda session, now, d: offered(session, "resign")(now, d.get("player")))

    @app.post("/api/admin/adjourn")
    def adjourn() -> Response:
        return admin_action(set(), lambda session, now, d: offered(session, "adjourn")(now))

    # -- downloads --

    @app.get("/api/admin/camera.jpg")
    def camera() -> Response:
        """What the table last saw (``?board=1`` for a House table's second), the found grid and
        readings drawn over it: for the organiser only."""
        s = current_session()
        if s is None or not s.admin:
            return error(401, "the organiser's PIN is needed for that")
        board = request.args.get("board", "0")
        if camera_view is None:
            return error(404, "no camera at this table")
        if board not in ("0", "1"):
            return error(400, "board: 0 or 1")
        picture = camera_view(int(board))
        if picture is None:
            return error(404, "no reading yet: the table reads the board when a clock button is pressed")
        return Response(picture, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/game.gcg")
    def gcg() -> Response:
        # Scrabble House: one file a board (?board=1 or 2); a game of one board takes no board.
        board = request.args.get("board")
        if board is not None and len(hub.document_json().get("boards") or []) < 2:
            return error(404, "this game has one board: /game.gcg without ?board")
        if board is not None and board not in ("1", "2"):
            return error(404, "board: 1 or 2")

        def written(session: Any, now: int) -> tuple[str, int | None]:
            text = session.gcg() if board is None else session.gcg(int(board) - 1)
            return text, _started_wall_ms(session)

        try:
            text, started = hub.call(written, timeout=config.call_timeout_s)
        except ActionError as exc:
            return error(exc.status, str(exc))
        doc = hub.document_json()
        players = doc.get("players", [])
        if board is not None:  # the board's own players
            players = [p for p in players if p.get("board") in (None, int(board) - 1)]
        name = gcg_filename([p.get("name", "") for p in players], started)
        return Response(
            text.encode("utf-8"),
            mimetype="text/plain",
            headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"},
        )

    @app.get("/qr.svg")
    def qr() -> Response:
        url = config.public_url or page_url(request.host_url)
        code = segno.make(url, error="m")
        buf = io.BytesIO()
        # A standalone SVG document (with its namespace): the page shows it as an <img>.
        code.save(buf, kind="svg", scale=4, border=2, dark="#000", light="#fff", title=f"QR code: {url}",
                  xmldecl=False, svgclass=None, lineclass=None)
        resp = Response(buf.getvalue(), mimetype="image/svg+xml")
        resp.headers["X-Page-URL"] = url
        resp.headers["Cache-Control"] = "no-cache"
        return resp

    return app


def _accepts_gzip() -> bool:
    return "gzip" in request.headers.get("Accept-Encoding", "").lower()


def _started_wall_ms(session: Any) -> int | None:
    """When the game began by the wall clock, from its game log (a session without one: None)."""
    store = getattr(session, "store", None)
    if store is None:
        return None
    events = store.events(session.game_id)
    return events[0].wall_ms if events else None


def gcg_filename(names: list[str], started_wall_ms: int | None) -> str:
    """``Ann-Bob-2026-11-27.gcg``: the players (ASCII letters, digits, ``_`` and ``-`` of their
    names, so that every browser keeps the name) and the day the game began (today without a
    game log)."""
    import datetime as dt
    import re

    day = (dt.datetime.fromtimestamp(started_wall_ms / 1000, dt.timezone.utc).date() if started_wall_ms
           else dt.datetime.now(dt.timezone.utc).date())
    parts = [re.sub(r"[^A-Za-z0-9_-]+", "", n.replace(" ", "_")) or f"player{i + 1}" for i, n in enumerate(names)]
    return "-".join(parts + [day.isoformat()]) + ".gcg"


def _time_event(hub: Hub, keepalive_s: float) -> bytes:
    # The keep-alive says how often it comes: the page's watchdog calls the stream lost after
    # one and a half of its periods without any event.
    body = f'{{"server_time":{hub.now_ms()},"keepalive_ms":{round(keepalive_s * 1000)},"epoch":"{hub.epoch}"}}'
    return sse_event("time", body.encode())


def page_url(host_url: str) -> str:
    """The page's address for another phone: the request's, unless that is the loopback (the
    Pi's own browser), where the Pi's address on the local network is the one to show."""
    from urllib.parse import urlsplit

    parts = urlsplit(host_url)
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        lan = lan_address()
        if lan is not None:
            port = f":{parts.port}" if parts.port else ""
            return f"{parts.scheme}://{lan}{port}/"
    return host_url if host_url.endswith("/") else host_url + "/"


def lan_address() -> str | None:
    """This machine's address on its local network (no packet is sent: a UDP socket only
    picks the route)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            addr = s.getsockname()[0]
    except OSError:
        return None
    return None if ipaddress.ip_address(addr).is_loopback else addr
