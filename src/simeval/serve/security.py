"""Tokens, CSRF and rate limits.

- A team token is ``st_<key>_<secret>``: ``key`` (public, 12 hex digits) finds the team's row,
  ``secret`` (32 random bytes, urlsafe) is checked against scrypt(secret, salt) with
  n=2**14, r=8, p=1 (RFC 7914's interactive parameters). The token is shown once, at
  registration, and stored nowhere. A verified token is remembered in memory by its SHA-256
  (never the token itself), so a busy client does not pay scrypt on every request.
- CSRF: forms carry a random value that must equal the ``simeval_csrf`` cookie (double
  submit); the cookie is SameSite=Strict, so another site can neither send nor read it.
- Rate limits: a token bucket per (client address, action), in memory.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

TOKEN_PREFIX = "st"
SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
CSRF_COOKIE = "simeval_csrf"
CSRF_FIELD = "csrf"


@dataclass(frozen=True)
class NewToken:
    """A freshly made token and what is stored of it."""

    token: str
    key: str
    salt: str
    hash: str


def hash_secret(secret: str, salt: str) -> str:
    return hashlib.scrypt(secret.encode(), salt=bytes.fromhex(salt), **SCRYPT).hex()


def new_token() -> NewToken:
    key = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    salt = secrets.token_hex(16)
    return NewToken(f"{TOKEN_PREFIX}_{key}_{secret}", key, salt, hash_secret(secret, salt))


def split_token(token: str) -> tuple[str, str] | None:
    """(key, secret) of a well-formed token, else None."""
    parts = token.strip().split("_", 2)
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX or not parts[1] or not parts[2]:
        return None
    return parts[1], parts[2]


def check_secret(secret: str, salt: str, stored: str) -> bool:
    return hmac.compare_digest(hash_secret(secret, salt), stored)


class VerifiedTokens:
    """SHA-256 of tokens already checked with scrypt → team id (bounded, thread-safe)."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._known: dict[str, int] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _digest(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def get(self, token: str) -> int | None:
        with self._lock:
            return self._known.get(self._digest(token))

    def add(self, token: str, team_id: int) -> None:
        with self._lock:
            if len(self._known) >= self.size:
                self._known.pop(next(iter(self._known)))
            self._known[self._digest(token)] = team_id


def new_csrf() -> str:
    return secrets.token_urlsafe(24)


def csrf_ok(cookie: str | None, field_value: str | None) -> bool:
    """The form's value equals the cookie's (compared as bytes: a str comparison refuses
    non-ASCII text with an error instead of saying no)."""
    if not cookie or not field_value:
        return False
    return hmac.compare_digest(cookie.encode(), field_value.encode())


@dataclass
class RateLimit:
    """``burst`` requests at once, refilled at ``per_minute`` a minute (0: no limit)."""

    burst: int = 10
    per_minute: float = 30.0


@dataclass
class RateLimiter:
    """Token buckets per (client, action); ``allow`` takes one token or says no."""

    limits: dict[str, RateLimit]
    clock: Callable[[], float] = time.monotonic
    max_buckets: int = 100_000
    _buckets: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _prune(self, now: float) -> None:
        """Forget buckets that have refilled (the same as no bucket); if clients with many
        addresses still keep more than ``max_buckets`` busy, forget the longest idle half."""
        full = [
            key
            for key, (tokens, then) in self._buckets.items()
            if tokens + (now - then) * self.limits[key[1]].per_minute / 60
            >= self.limits[key[1]].burst
        ]
        for key in full:
            del self._buckets[key]
        if len(self._buckets) >= self.max_buckets:
            idle = sorted(self._buckets, key=lambda k: self._buckets[k][1])
            for key in idle[: len(idle) // 2 + 1]:
                del self._buckets[key]

    def allow(self, client: str, action: str) -> bool:
        limit = self.limits.get(action)
        if limit is None or limit.per_minute <= 0:
            return True
        now = self.clock()
        with self._lock:
            if len(self._buckets) >= self.max_buckets:
                self._prune(now)
            tokens, then = self._buckets.get((client, action), (float(limit.burst), now))
            tokens = min(float(limit.burst), tokens + (now - then) * limit.per_minute / 60)
            if tokens < 1:
                self._buckets[(client, action)] = (tokens, now)
                return False
            self._buckets[(client, action)] = (tokens - 1, now)
            return True
