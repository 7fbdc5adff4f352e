"""Who may change the game: the organiser, who knows the PIN the device shows.

- The PIN is six random digits made at start (``secrets``), shown on the device (printed to
  the console and the journal, and on the page of a browser on the device itself) and compared
  in constant time; or the organiser's fixed PIN, known only by its hash (``pin_hash``).
- Every visitor gets a session (a random id in an HttpOnly, SameSite=Strict cookie) with its
  own CSRF token; every POST must carry that token in ``X-CSRF-Token``. Logging in with the
  PIN makes a new session (new id, new token: a planted id is worth nothing) marked admin.
- Wrong PINs are counted per client address: ``max_tries`` within ``window_s`` locks that
  address out until the window has passed (429), and ``global_tries`` wrong PINs from all
  addresses together within the window lock out everyone: a million PINs cannot be walked
  through from many addresses either. The organiser at the device can always restart.

Time is injected (``now``: monotonic seconds) so the tests need no sleeping.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from typing import Callable

PIN_DIGITS = 6


def new_pin() -> str:
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


@dataclass
class WebSession:
    id: str
    csrf: str
    admin: bool
    expires: float


@dataclass(frozen=True)
class PinResult:
    ok: bool
    locked: bool = False
    retry_after: int = 0
    tries_left: int = 0


class Auth:
    def __init__(
        self,
        pin: str | None = None,
        *,
        pin_hash: str | None = None,  # a fixed PIN from the configuration (web/pin_hash.py); pin is then None
        now: Callable[[], float] = time.monotonic,
        max_tries: int = 5,
        window_s: float = 60.0,
        global_tries: int = 30,
        session_ttl_s: float = 12 * 3600,
        max_sessions: int = 2000,
    ) -> None:
        if pin is not None and not (pin.isdigit() and len(pin) == PIN_DIGITS and pin.isascii()):
            raise ValueError(f"a PIN is {PIN_DIGITS} digits")
        self.pin_hash = pin_hash
        self.pin = None if pin_hash else pin if pin is not None else new_pin()
        self.now = now
        self.max_tries = max_tries
        self.window_s = window_s
        self.global_tries = global_tries
        self.session_ttl_s = session_ttl_s
        self.max_sessions = max_sessions
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, WebSession] = OrderedDict()
        self._failures: dict[str, deque[float]] = {}
        self._all_failures: deque[float] = deque()

    # -- sessions --

    def new_session(self, admin: bool = False) -> WebSession:
        s = WebSession(secrets.token_urlsafe(32), secrets.token_urlsafe(32), admin, self.now() + self.session_ttl_s)
        with self._lock:
            self._sessions[s.id] = s
            while len(self._sessions) > self.max_sessions:
                # The oldest goes first; admin sessions are few and are kept while others exist.
                victim = next((k for k, v in self._sessions.items() if not v.admin), None)
                self._sessions.pop(victim if victim is not None else next(iter(self._sessions)))
        return s

    def session(self, sid: str | None) -> WebSession | None:
        if not sid:
            return None
        with self._lock:
            s = self._sessions.get(sid)
            if s is None:
                return None
            if s.expires < self.now():
                del self._sessions[sid]
                return None
            return s

    def csrf_ok(self, sid: str | None, token: str | None) -> bool:
        s = self.session(sid)
        if s is None or not token:
            return False
        return hmac.compare_digest(s.csrf.encode(), token.encode("utf-8", "replace"))

    def end(self, sid: str | None) -> None:
        with self._lock:
            if sid:
                self._sessions.pop(sid, None)

    # -- the PIN --

    def try_pin(self, address: str, pin: str) -> PinResult:
        now = self.now()
        with self._lock:
            mine = self._failures.setdefault(address, deque())
            for q in (mine, self._all_failures):
                while q and q[0] <= now - self.window_s:
                    q.popleft()
            if not mine:
                del self._failures[address]
            if len(mine) >= self.max_tries:
                return PinResult(False, True, max(1, int(mine[0] + self.window_s - now + 0.999)))
            if len(self._all_failures) >= self.global_tries:
                return PinResult(False, True, max(1, int(self._all_failures[0] + self.window_s - now + 0.999)))
            ok = self.pin_matches(pin)
            if ok:
                self._failures.pop(address, None)
                return PinResult(True)
            mine = self._failures.setdefault(address, deque())
            mine.append(now)
            self._all_failures.append(now)
            return PinResult(False, False, 0, self.max_tries - len(mine))

    def pin_matches(self, pin: str) -> bool:
        if self.pin_hash:
            from companion.web.pin_hash import verify_pin

            return verify_pin(pin, self.pin_hash)
        return self.pin is not None and hmac.compare_digest(self.pin.encode(), pin.encode("utf-8", "replace"))

    def login(self, old_sid: str | None) -> WebSession:
        """A fresh admin session in place of ``old_sid``."""
        self.end(old_sid)
        return self.new_session(admin=True)
