"""Who may change the game: the organiser, who knows the PIN the device shows.

- The PIN is six random digits made at start (``secrets``), shown on the device (printed to
  the console and the journal, and on the page of a browser on the device itself) and compared
  in constant time; or the organiser's fixed PIN, known only by its hash (``pin_hash``).
- Every visitor gets a session (a random id in an HttpOnly, SameSite=Strict cookie) with its
  own CSRF token; every POST must carry that token in ``X-CSRF-Token``. Logging in with the
  PIN makes a new session (new id, new token: a planted id is worth nothing) marked admin.
- Wrong PINs are counted per client address: ``max_tries`` within ``window_s`` lock that
  address out (429) for ``window_s``, and each further lock-out of it lasts twice the one before
  (up to ``max_lock_s``). When ``global_tries`` wrong PINs from all addresses together fall
  within the window (many addresses guessing), every address that has guessed wrong is locked
  until the window has passed, but an address with no wrong PIN still gets its try: strangers
  cannot lock the organiser out (they could, for a minute at a time, when the global limit
  locked everyone), and a million PINs still cannot be walked through from many addresses, one
  try each. A session once logged in is never touched by any of this.

Time is injected (``now``: monotonic seconds) so the tests need no sleeping.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
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


@dataclass
class _Guesser:
    """An address that gave a wrong PIN: its wrong PINs in the window, how often it was locked
    out (the next lock-out lasts twice as long), and until when it is."""

    failures: deque[float] = field(default_factory=deque)
    lockouts: int = 0
    locked_until: float = 0.0


def _seconds(s: float) -> int:
    return max(1, int(s + 0.999))


class Auth:
    def __init__(
        self,
        pin: str | None = None,
        *,
        pin_hash: str | None = None,  # a fixed PIN from the configuration (core/pin_hash.py); pin is then None
        now: Callable[[], float] = time.monotonic,
        max_tries: int = 5,
        window_s: float = 60.0,
        global_tries: int = 30,
        max_lock_s: float = 3600.0,
        max_addresses: int = 10_000,
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
        self.max_lock_s = max_lock_s
        self.max_addresses = max_addresses
        self.session_ttl_s = session_ttl_s
        self.max_sessions = max_sessions
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, WebSession] = OrderedDict()
        # The addresses that guessed wrong, the one that did last at the end (the oldest are
        # forgotten first, past ``max_addresses``).
        self._addresses: OrderedDict[str, _Guesser] = OrderedDict()
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
            while self._all_failures and self._all_failures[0] <= now - self.window_s:
                self._all_failures.popleft()
            rec = self._addresses.get(address)
            if rec is not None:
                while rec.failures and rec.failures[0] <= now - self.window_s:
                    rec.failures.popleft()
                if rec.locked_until > now:
                    return PinResult(False, True, _seconds(rec.locked_until - now))
                if rec.failures and len(self._all_failures) >= self.global_tries:
                    return PinResult(False, True, _seconds(self._all_failures[0] + self.window_s - now))
            ok = self.pin_matches(pin)
            if ok:
                self._addresses.pop(address, None)
                return PinResult(True)
            if rec is None:
                rec = self._addresses[address] = _Guesser()
                while len(self._addresses) > self.max_addresses:
                    self._addresses.popitem(last=False)
            self._addresses.move_to_end(address)
            rec.failures.append(now)
            self._all_failures.append(now)
            if len(rec.failures) >= self.max_tries:
                rec.locked_until = now + min(self.max_lock_s, self.window_s * 2 ** min(rec.lockouts, 30))
                rec.lockouts += 1
                rec.failures.clear()
                return PinResult(False, False, 0, 0)
            return PinResult(False, False, 0, self.max_tries - len(rec.failures))

    def pin_matches(self, pin: str) -> bool:
        if self.pin_hash:
            from companion.core.pin_hash import verify_pin

            return verify_pin(pin, self.pin_hash)
        return self.pin is not None and hmac.compare_digest(self.pin.encode(), pin.encode("utf-8", "replace"))

    def login(self, old_sid: str | None) -> WebSession:
        """A fresh admin session in place of ``old_sid``."""
        self.end(old_sid)
        return self.new_session(admin=True)
