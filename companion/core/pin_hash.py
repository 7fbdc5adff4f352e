"""The organiser's fixed PIN, kept as a salted scrypt hash (``[web] pin_hash`` in the
configuration, written by ``companion config pin``), never as the digits themselves.

Format: ``scrypt$N$r$p$SALT$HASH`` (base64 without padding). N = 2**14, r = 8, p = 1 is
scrypt's interactive setting: about 16 MB and a few tens of milliseconds a check on a Pi 4,
so a wrong-PIN flood costs the guesser, and the lock-out in :mod:`companion.web.auth` limits
the tries. It slows an offline search of the six digits from a copied configuration; it cannot
make a million PINs safe from a patient one: the configuration stays readable by root alone
when that matters (``chmod 600``).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

N, R, P, DKLEN, SALT_BYTES = 2**14, 8, 1, 32, 16
FORMAT = re.compile(r"scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)")


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4))


def hash_pin(pin: str, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    digest = hashlib.scrypt(pin.encode(), salt=salt, n=N, r=R, p=P, dklen=DKLEN)
    return f"scrypt${N}${R}${P}${_b64(salt)}${_b64(digest)}"


def is_pin_hash(text: str) -> bool:
    """A hash this module can check (its parameters within what a Pi can compute)."""
    m = FORMAT.fullmatch(text)
    if not m:
        return False
    n, r, p = (int(v) for v in m.groups()[:3])
    return 2 <= n <= 2**16 and n & (n - 1) == 0 and 1 <= r <= 16 and 1 <= p <= 4 and len(_unb64(m[5])) >= 16


def verify_pin(pin: str, stored: str) -> bool:
    """Whether ``pin`` is the one ``stored`` was made from, compared in constant time."""
    m = FORMAT.fullmatch(stored)
    if not m or not is_pin_hash(stored):
        return False
    n, r, p = (int(v) for v in m.groups()[:3])
    expected = _unb64(m[5])
    digest = hashlib.scrypt(pin.encode("utf-8", "replace"), salt=_unb64(m[4]), n=n, r=r, p=p,
                            dklen=len(expected), maxmem=2 * 128 * r * (n + p + 2))
    return hmac.compare_digest(digest, expected)
