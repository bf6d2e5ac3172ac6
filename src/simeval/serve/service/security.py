"""Tokens, CSRF and rate limits.

- A team token is ``st_<key>_<secret>``: ``key`` (public, 12 hex digits) finds the team's row,
  ``secret`` (32 random bytes, urlsafe) is checked against scrypt(secret, salt) with
  n=2**14, r=8, p=1 (RFC 7914's interactive parameters). The token is shown once, at
  registration, and stored nowhere. A verified token is remembered in memory by its SHA-256
  (never the token itself), so a busy client does not pay scrypt on every request.
  Checking a token costs one scrypt whether its key exists or not (an unknown key is hashed
  against a dummy salt), compared with :func:`hmac.compare_digest`, so timing does not tell
  which keys exist. Hashing runs in worker threads (:func:`hashing`), at most
  :data:`HASHERS` at once, never on the event loop and never while a database connection is
  held.
- CSRF: a form's value is an HMAC, with a secret of the server process, of the browser's
  ``simeval_csrf`` cookie (a random id) *and* its session cookie (:class:`Csrf`). Cookies are
  shared by every port of a host, so a page on another port can set ``simeval_csrf`` and
  submit a form that matches it; it cannot compute the HMAC, nor read the victim's session.
  Forms a browser marks as coming from another origin (``Sec-Fetch-Site`` other than
  ``same-origin``/``none``) are refused too, which also covers sign-in and registration
  (where there is no session to bind to).
- Rate limits: a token bucket per (client address, action), in memory. The client address is
  the peer's, or, when the peer is a proxy the organiser named (``--trust-proxy``), the
  right-most address of ``X-Forwarded-For`` that is not such a proxy (:class:`TrustedProxies`).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import ipaddress
import os
import secrets
import threading
import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from simeval.errors import InputError

TOKEN_PREFIX = "st"  # a team's token
ORGANISER_PREFIX = "so"  # an organiser's: never accepted where a team's is asked, nor back
SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
CSRF_COOKIE = "simeval_csrf"
CSRF_FIELD = "csrf"
HASHERS = max(1, (os.cpu_count() or 1) // 2)  # scrypt computations at once (each ~16 MiB)
DUMMY_SALT = secrets.token_hex(16)  # what an unknown key's secret is hashed with
DUMMY_HASH = "00" * SCRYPT["dklen"]
T = TypeVar("T")
_limiters: weakref.WeakKeyDictionary[Any, anyio.CapacityLimiter] = weakref.WeakKeyDictionary()


async def hashing(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` (something that runs scrypt) in a worker thread, at most
    :data:`HASHERS` at once per event loop (a limiter belongs to one loop), so the event loop
    keeps answering while tokens are checked."""
    loop = asyncio.get_running_loop()
    limiter = _limiters.get(loop)
    if limiter is None:
        limiter = _limiters.setdefault(loop, anyio.CapacityLimiter(HASHERS))
    return await anyio.to_thread.run_sync(fn, *args, limiter=limiter)


@dataclass(frozen=True)
class NewToken:
    """A freshly made token and what is stored of it."""

    token: str
    key: str
    salt: str
    hash: str


def hash_secret(secret: str, salt: str) -> str:
    return hashlib.scrypt(secret.encode(), salt=bytes.fromhex(salt), **SCRYPT).hex()


def new_token(prefix: str = TOKEN_PREFIX) -> NewToken:
    key = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    salt = secrets.token_hex(16)
    return NewToken(f"{prefix}_{key}_{secret}", key, salt, hash_secret(secret, salt))


def split_token(token: str, prefix: str = TOKEN_PREFIX) -> tuple[str, str] | None:
    """(key, secret) of a well-formed token with ``prefix``, else None."""
    parts = token.strip().split("_", 2)
    if len(parts) != 3 or parts[0] != prefix or not parts[1] or not parts[2]:
        return None
    return parts[1], parts[2]


def check_secret(secret: str, salt: str | None, stored: str | None) -> bool:
    """``secret`` hashes to ``stored`` with ``salt``; with no salt (an unknown key), the same
    scrypt is paid against a dummy salt and the answer is no."""
    try:
        computed = hash_secret(secret, salt if salt is not None else DUMMY_SALT)
    except ValueError:  # a salt that is not hex: a broken row, never a match
        computed = hash_secret(secret, DUMMY_SALT)
        stored = None
    same = hmac.compare_digest(computed.encode(), (stored or DUMMY_HASH).encode())
    return same and salt is not None and stored is not None


class VerifiedTokens:
    """SHA-256 of tokens already checked with scrypt → (team id, the team's stored hash then)
    (bounded, thread-safe). A hit counts only while the team's row still holds that hash, so
    a token rotated by another process stops working at once."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._known: dict[str, tuple[int, str]] = {}
        self._lock = threading.Lock()

    @staticmethod
    def _digest(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def get(self, token: str) -> tuple[int, str] | None:
        with self._lock:
            return self._known.get(self._digest(token))

    def add(self, token: str, team_id: int, stored: str) -> None:
        with self._lock:
            if len(self._known) >= self.size:
                self._known.pop(next(iter(self._known)))
            self._known[self._digest(token)] = (team_id, stored)

    def forget(self, token: str) -> None:
        with self._lock:
            self._known.pop(self._digest(token), None)


def new_csrf() -> str:
    """A browser's random id (the ``simeval_csrf`` cookie)."""
    return secrets.token_urlsafe(24)


class Csrf:
    """A form's CSRF value: HMAC-SHA256, keyed by a secret of this server process, of the
    browser id (cookie) and the session cookie as the browser sends them. A value made for
    one session is refused with another (or none), so signing in or out renews the forms."""

    def __init__(self, secret: bytes | None = None) -> None:
        self._secret = secret or secrets.token_bytes(32)

    def value(self, browser: str, session: str | None) -> str:
        message = b"simeval-csrf\0" + browser.encode() + b"\0" + (session or "").encode()
        digest = hmac.new(self._secret, message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def ok(self, browser: str | None, session: str | None, field_value: str | None) -> bool:
        """The form's value is the one made for this browser and session (compared as bytes:
        a str comparison refuses non-ASCII text with an error instead of saying no)."""
        if not browser or not field_value:
            return False
        expected = self.value(browser, session)
        return hmac.compare_digest(expected.encode(), field_value.encode())


def cross_origin(sec_fetch_site: str | None) -> bool:
    """A browser says the request comes from a page of another origin (another port of the
    same host is ``same-site``: refused too)."""
    return sec_fetch_site is not None and sec_fetch_site.strip().lower() not in (
        "same-origin",
        "none",
    )


class TrustedProxies:
    """The proxies the organiser named (addresses or networks); which client a request is
    from. Without any, ``X-Forwarded-For`` is ignored."""

    def __init__(self, proxies: Iterable[str] = ()) -> None:
        self.networks = []
        for p in proxies:
            p = p.strip()
            if not p:
                continue
            try:
                self.networks.append(ipaddress.ip_network(p, strict=False))
            except ValueError:
                raise InputError(
                    None, None, f"--trust-proxy {p!r}: not an address or network"
                ) from None

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusted(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host.strip().strip("[]"))
        except ValueError:
            return False
        return any(address in n for n in self.networks)

    def client(self, peer: str, forwarded_for: list[str]) -> str:
        """``peer`` itself unless it is a trusted proxy; then the right-most address of the
        ``X-Forwarded-For`` headers that is not a trusted proxy (the left part is written
        by the client and proves nothing), or the left-most when all are trusted."""
        if not self.networks or not self.trusted(peer):
            return peer
        hops = [h.strip() for value in forwarded_for for h in value.split(",") if h.strip()]
        for hop in reversed(hops):
            if not self.trusted(hop):
                return hop
        return hops[0] if hops else peer


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
        return self.wait(client, action) == 0

    def wait(self, client: str, action: str) -> float:
        """0 when ``client`` may do ``action`` now (a token is taken), else the seconds until
        its next token (none is taken: a refused request costs nothing)."""
        limit = self.limits.get(action)
        if limit is None or limit.per_minute <= 0:
            return 0.0
        now = self.clock()
        with self._lock:
            if len(self._buckets) >= self.max_buckets:
                self._prune(now)
            tokens, then = self._buckets.get((client, action), (float(limit.burst), now))
            tokens = min(float(limit.burst), tokens + (now - then) * limit.per_minute / 60)
            if tokens < 1:
                self._buckets[(client, action)] = (tokens, now)
                return (1 - tokens) * 60 / limit.per_minute
            self._buckets[(client, action)] = (tokens - 1, now)
            return 0.0
