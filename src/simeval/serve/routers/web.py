"""What every route shares, one object per app (``app.state.web``, :func:`web` as a FastAPI
dependency): the service, the client's rate limits, who is signed in (a bearer token or the
session cookie; tokens checked with scrypt in hashing threads, :mod:`..service.security`),
CSRF for forms, and an HTML response around a template's body.

Abuse (issue 28): every body is read to a cap (16 KiB for JSON and small forms, the phase's
``max_bytes`` for uploads; 413 past it) within ``upload_seconds`` (408); tokens are checked
at a per-client rate (``auth``: only checks that are not cached count); a team's rejected
uploads are capped per 24 hours (429) and their stored bytes pruned.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from weakref import WeakKeyDictionary

import anyio
import anyio.to_thread
from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from simeval.serve.db.models import Organiser, Team
from simeval.serve.db.storage import TooLarge, Upload
from simeval.serve.routers.board_pages import BoardPages
from simeval.serve.routers.forms import SMALL_FORM, BadForm, read_fields, timed
from simeval.serve.service.client_wheel import ClientWheel
from simeval.serve.service.security import (
    CSRF_COOKIE,
    CSRF_FIELD,
    Csrf,
    RateLimit,
    RateLimiter,
    cross_origin,
    hashing,
    new_csrf,
    new_token,
    split_token,
)
from simeval.serve.service.submit import (
    Clock,
    Refused,
    Service,
    Ticket,
    error_view,
    shown_name,
)
from simeval.serve.views import pages
from simeval.serve.views.submissions import submission_view

log = logging.getLogger("simeval.serve")

SESSION_COOKIE = "simeval_team"
ORGANISER_COOKIE = "simeval_organiser"  # the organiser's session: another cookie, another token
RATE_LIMITS = {
    "register": RateLimit(burst=5, per_minute=5),
    "login": RateLimit(burst=10, per_minute=10),
    "upload": RateLimit(burst=10, per_minute=20),
    "auth": RateLimit(burst=20, per_minute=30),  # token checks that cost a scrypt
    # leaderboard reads, HTML and JSON: a page reloaded every few seconds never meets it, a
    # client reading in a loop (a 10,000-run board is megabytes) is held to 2 a second
    "read": RateLimit(burst=60, per_minute=120),
}
REJECTED_PER_DAY = 20  # rejected uploads a team may send in 24 hours
KEEP_REJECTED = 20  # rejected uploads of a team whose bytes are kept ...
KEEP_REJECTED_DAYS = 7.0  # ... for at most this many days
UPLOAD_SECONDS = 600.0  # a request body is read within this long, or refused (408)
FLASH_COOKIE = "simeval_flash"  # the key of the outcome the next page shows (post/redirect/get)
MAX_FLASHES = 1000  # outcomes kept for their pages at most (the oldest go first)
MAX_PREVIEWS = 20  # previewed gold files kept for their Apply button
KEPT_ANSWERS = 64  # JSON answers of large boards kept at most (Web.keep_board_answer)
# uploads scored and recorded at once, beyond one per scoring process (Web.turns)
RECORDING_BEYOND_SCORERS = 1


@dataclass(frozen=True)
class Flash:
    """The outcome of a form, shown once by the page its POST redirects to (303): a line of
    ``text`` (``error``: a refusal, shown beside ``field`` of phase ``phase``'s form when
    named), or a whole ``body`` (a result page: what a re-scoring moved, a new token), called
    with the page's CSRF value. Kept in this process's memory under a random key that only the
    browser's cookie holds, so a token shown once never travels in a URL or a cookie."""

    text: str = ""
    error: bool = False
    phase: str | None = None
    field: str | None = None
    body: Callable[[str], Any] | None = None


def cookie(request: Request, name: str) -> str:
    """The name of a cookie on this request: over HTTPS with the ``__Host-`` prefix, which a
    browser takes only when set Secure by this host for path ``/``, so a page on another port
    or a subdomain (served over plain HTTP) cannot plant a session or a CSRF cookie
    ("cookie tossing"); over plain HTTP, where no such guard exists, the plain name."""
    return f"__Host-{name}" if request.url.scheme == "https" else name


def bucket(host: str) -> str:
    """The rate-limit bucket of a client address: an IPv6 address by its /64 (one host holds
    a whole /64 and could take a new address per request), anything else as it is."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


@dataclass
class Web:
    """The per-app context of the routes (module docstring)."""

    service: Service
    clock: Clock
    limiter: RateLimiter
    csrf: Csrf
    rejected_per_day: int = REJECTED_PER_DAY
    keep_rejected: tuple[int, float] = (KEEP_REJECTED, KEEP_REJECTED_DAYS)
    upload_seconds: float | None = UPLOAD_SECONDS
    client_wheel: ClientWheel | None = None  # the simeval participants install from here
    board_pages: BoardPages = field(default_factory=BoardPages)  # leaderboard pages kept
    # the JSON answers of large boards, by (campaign, phase, board) as asked: (kept until,
    # by the monotonic clock; the answer)
    board_answers: dict[tuple[str, str, str | None], tuple[float, bytes]] = field(
        default_factory=dict
    )
    flashes: OrderedDict[str, Flash] = field(default_factory=OrderedDict)
    turns: int = 0  # uploads worked on at once (__post_init__: from the scorers)
    # the turns' limiter of each event loop (a server has one; a test client one a request)
    _turns: WeakKeyDictionary[Any, anyio.CapacityLimiter] = field(default_factory=WeakKeyDictionary)
    # gold files previewed on the console, kept for its Apply button: key -> (campaign,
    # benchmark, the upload, its file name); the oldest past MAX_PREVIEWS are discarded
    previews: OrderedDict[str, tuple[str, str, Upload, str | None]] = field(
        default_factory=OrderedDict
    )

    def __post_init__(self) -> None:
        """An upload's work in worker threads (its checks before the body, then its scoring
        and recording, each a turn of :meth:`upload_work`) runs a few uploads at a time: one
        per scoring process (or, scoring in this process, one) plus
        :data:`RECORDING_BEYOND_SCORERS`, the one writing its row while the scorers work.
        The others wait for a turn; a slow client holds none while its body arrives. More
        at once add no uploads a second (the scorers are the limit), only threads contending
        for this process's interpreter lock, which the event loop then waits for at each
        system call: with 20 teams uploading at once, the JSON board's p95 fell from about
        110 ms to about 30 ms (``benchmarks/serve_throughput.py``, issue 46)."""
        if not self.turns:
            self.turns = max(1, self.service.scorers.processes) + RECORDING_BEYOND_SCORERS

    def client_install(self, request: Request) -> str | None:
        """The one ``pip install`` line of this server's own simeval with its ``client``
        extra, or None where it has no wheel to offer (:mod:`..service.client_wheel`)."""
        name = self.client_wheel.name if self.client_wheel is not None else None
        if name is None:
            return None
        # the request's Host header is the client's to write: never shown back in a page
        # (tests/serve/test_serve_abuse.py); the participant puts this page's own address
        return f'pip install "simeval[client] @ {pages.SERVER}/client/{name}"'

    def keep_board_answer(self, where: tuple[str, str, str | None], body: bytes) -> None:
        """Keep the JSON answer of a large board (one answered from its last build while the
        next is built: :mod:`simeval.serve.service.board_cache`) for as long as a build lags,
        ``lag_seconds``. A reader in a loop then costs the server no database read and no
        worker thread; what it sees lags the newest scores no more than the build already
        does. At most :data:`KEPT_ANSWERS` are kept (the key is the request's own text)."""
        if len(self.board_answers) >= KEPT_ANSWERS:
            self.board_answers.clear()
        until = time.monotonic() + self.service.boards.lag_seconds
        self.board_answers[where] = (until, body)

    # -- clients and teams

    def limit(self, request: Request, action: str) -> None:
        """429 once the client passed its rate for ``action``, with ``Retry-After``: the
        seconds until it may again."""
        wait = self.limiter.wait(_client(request), action)
        if wait > 0:
            raise Refused(
                429,
                f"too many {action} requests; wait a minute",
                {"Retry-After": str(max(1, math.ceil(wait)))},
            )

    async def authenticate(self, request: Request, token: str | None, refuse: bool) -> Team | None:
        """The team of ``token``: from the cache of checked tokens, else one scrypt in a
        hashing thread, charged to the client's ``auth`` bucket (past it: 429 if
        ``refuse``, else nobody is signed in)."""
        parts = split_token(token or "")
        if parts is None or token is None:
            return None
        team = await run_in_threadpool(self.service.cached, token)
        if team is not None:
            return team
        if not self.limiter.allow(_client(request), "auth"):
            if refuse:
                raise Refused(429, "too many token checks from your address; wait a minute")
            return None
        row = await run_in_threadpool(self.service.token_row, parts[0])  # no connection held
        return await hashing(self.service.verify, token, row)  # ... while scrypt runs

    async def bearer(self, request: Request) -> Team:
        """The team of the request's ``Authorization: Bearer`` token, or 401."""
        header = request.headers.get("authorization", "")
        token = header[7:] if header.lower().startswith("bearer ") else None
        team = await self.authenticate(request, token, refuse=True)
        if team is None:
            raise Refused(401, "a valid team token is needed (Authorization: Bearer …)")
        return team

    async def signed_in(self, request: Request) -> Team | None:
        """The team of the session cookie, if any."""
        token = request.cookies.get(cookie(request, SESSION_COOKIE))
        return await self.authenticate(request, token, refuse=False)

    async def organiser(self, request: Request, token: str | None = None) -> Organiser | None:
        """The organiser of ``token`` (default: the organiser's session cookie), checked as a
        team's token is: the cache first, else one scrypt charged to the client's ``auth``
        bucket (429 past it)."""
        token = (
            token if token is not None else request.cookies.get(cookie(request, ORGANISER_COOKIE))
        )
        tokens = self.service.organisers
        if not token or tokens.row_key(token) is None:
            return None
        known = await run_in_threadpool(tokens.cached, token)
        if known is not None:
            return known
        if not self.limiter.allow(_client(request), "auth"):
            raise Refused(429, "too many token checks from your address; wait a minute")
        row = await run_in_threadpool(tokens.row, token)  # no connection held ...
        return await hashing(tokens.verify, token, row)  # ... while scrypt runs

    async def register(self, campaign: str, name: str, accept_terms: bool) -> dict[str, str]:
        """A new team of ``campaign``, its token (shown once) and its status (``approved``,
        or ``pending`` where registration waits for the organiser)."""
        token = await hashing(new_token)
        secret = await run_in_threadpool(self.service.register, campaign, name, token, accept_terms)
        team = await run_in_threadpool(self.service.token_row, token.key)
        return {
            "team": team.name if team else name,
            "token": secret,
            "status": team.status if team else "approved",
        }

    def views(self, team_id: int) -> list[dict[str, Any]]:
        """The team's submissions as it may see them, newest first."""
        shown = self.service.part_records
        return [submission_view(s, p, shown(s, p)) for s, p in self.service.submissions(team_id)]

    # -- uploads

    async def receive(self, ticket: Ticket, request: Request, name: str | None) -> Response:
        """Stream a raw request body to storage (capped, timed), then record it."""
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > ticket.max_bytes:
            raise Refused(413, f"{shown_name(name)}: {TooLarge(ticket.max_bytes)}")
        upload = self.service.storage.new_upload(ticket.max_bytes)
        try:
            async for chunk in timed(request, self.upload_seconds):
                upload.write(chunk)
            await run_in_threadpool(upload.finish)  # an fsync: never on the event loop
        except TooLarge as exc:
            upload.discard()
            raise Refused(413, f"{shown_name(name)}: {exc}") from None
        except BadForm as exc:
            upload.discard()
            raise Refused(exc.status, str(exc)) from None
        except BaseException:
            upload.discard()
            raise
        return await self.record(ticket, upload, name, api=True)

    async def record(self, ticket: Ticket, upload: Upload, name: str | None, api: bool) -> Any:
        """Score and record an upload: its view (``api``: as a 201 or 422 response)."""
        error, view = await self.upload_work(self._recorded, ticket, upload, name)
        if not api:
            return view
        if error is not None:  # as `simeval score` prints it, and its parts to reprint it
            return JSONResponse({**view, **error_view(error)}, status_code=422)
        return JSONResponse(view, status_code=201)

    async def upload_work(self, work: Callable[..., Any], *args: Any) -> Any:
        """``work(*args)`` in a worker thread when one of the upload turns is free
        (:attr:`turns` at once): an upload's checks before its body and its recording. The
        limiter is the running event loop's: one loop's limiter cannot wake another's
        waiters."""
        loop = asyncio.get_running_loop()
        limiter = self._turns.get(loop)
        if limiter is None:
            limiter = self._turns[loop] = anyio.CapacityLimiter(self.turns)
        return await anyio.to_thread.run_sync(work, *args, limiter=limiter)

    def _recorded(self, ticket: Ticket, upload: Upload, name: str | None) -> tuple[Any, Any]:
        """:meth:`record`'s work in one worker thread (each hop between the event loop and a
        worker waits for the interpreter lock under a stream of uploads): the scorer's error
        and the recorded row's view; a rejected upload prunes its team's older rejected
        files."""
        sub, error = self.service.record(ticket, upload, name)
        if error is not None:
            pruned = self.service.prune_rejected(ticket.team_id, *self.keep_rejected)
            if pruned:
                log.info("pruned the stored bytes of %d rejected upload(s)", len(pruned))
        phase = self.service.phase_by_id(ticket.phase_id)
        return error, submission_view(sub, phase, self.service.part_records(sub, phase))

    # -- pages and forms

    def html(
        self,
        title: str,
        body: str,
        team: Team | None = None,
        browser_id: str | None = None,
        request: Request | None = None,
    ) -> HTMLResponse:
        """A page around a template's ``body`` (with the browser's CSRF cookie when given)."""
        response = HTMLResponse(pages.page(title, body, team.name if team else None))
        if browser_id is not None and request is not None:
            response.set_cookie(
                cookie(request, CSRF_COOKIE),
                browser_id,
                httponly=True,
                samesite="strict",
                secure=request.url.scheme == "https",
            )
        return response

    @staticmethod
    def browser(request: Request) -> str:
        """The browser's id (the CSRF cookie), new if it has none."""
        return request.cookies.get(cookie(request, CSRF_COOKIE)) or new_csrf()

    def form_value(self, request: Request, browser_id: str, session: str = SESSION_COOKIE) -> str:
        """The CSRF value of this page's forms (bound to the browser and its ``session``
        cookie: the team's, or the organiser's on the console)."""
        return self.csrf.value(browser_id, request.cookies.get(cookie(request, session)))

    def csrf_checked(
        self, request: Request, value: str | None, session: str = SESSION_COOKIE
    ) -> bool:
        """Whether a form's CSRF ``value`` is this browser's and session's."""
        if cross_origin(request.headers.get("sec-fetch-site")):
            return False
        browser_id = request.cookies.get(cookie(request, CSRF_COOKIE))
        return self.csrf.ok(browser_id, request.cookies.get(cookie(request, session)), value)

    async def checked_form(
        self, request: Request, session: str = SESSION_COOKIE, limit: int = SMALL_FORM
    ) -> dict[str, str]:
        """A form's fields (at most ``limit`` bytes), its CSRF value checked (403 otherwise)."""
        try:  # never starlette's request.form(): it reads a body of any size
            fields = await read_fields(request, limit, self.upload_seconds)
        except BadForm as exc:
            raise Refused(exc.status, str(exc)) from None
        if not self.csrf_checked(request, fields.get(CSRF_FIELD), session):
            raise Refused(403, "the form has expired (CSRF check failed); reload the page")
        return fields

    def see_other(self, request: Request, url: str, flash: Flash) -> RedirectResponse:
        """303 to the page ``url`` (a GET) that shows ``flash`` once: post/redirect/get, so a
        reload shows the outcome again instead of sending the form twice."""
        key = secrets.token_urlsafe(24)
        self.flashes[key] = flash
        while len(self.flashes) > MAX_FLASHES:
            self.flashes.popitem(last=False)
        response = RedirectResponse(url, status_code=303)
        response.set_cookie(cookie(request, FLASH_COOKIE), key, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https", max_age=600)  # fmt: skip
        return response

    def keep_preview(self, campaign: str, benchmark: str, upload: Upload, name: str | None) -> str:
        """Keep a previewed gold file for the Apply button of its preview; its key."""
        self.drop_previews(campaign, benchmark)  # superseded
        key = secrets.token_urlsafe(24)
        self.previews[key] = (campaign, benchmark, upload, name)
        while len(self.previews) > MAX_PREVIEWS:
            self.previews.popitem(last=False)[1][2].discard()
        return key

    def drop_previews(self, campaign: str, benchmark: str) -> None:
        """Discard the kept previews of ``campaign``'s ``benchmark`` (a newer file came)."""
        for key, (c, b, upload, _) in list(self.previews.items()):
            if (c, b) == (campaign, benchmark):
                del self.previews[key]
                upload.discard()

    def take_preview(self, key: str, campaign: str) -> tuple[str, Upload, str | None] | None:
        """The benchmark, file and name a preview of ``campaign`` kept (None: none or gone)."""
        found = self.previews.get(key)
        if found is None or found[0] != campaign:
            return None
        del self.previews[key]
        return found[1], found[2], found[3]

    def take_flash(self, request: Request) -> Flash | None:
        """The outcome this browser was redirected to see, once (None when there is none)."""
        key = request.cookies.get(cookie(request, FLASH_COOKIE))
        return self.flashes.pop(key, None) if key else None

    @staticmethod
    def forget_flash(response: Response, request: Request) -> None:
        """``response`` drops the browser's flash cookie (its outcome was shown)."""
        name = cookie(request, FLASH_COOKIE)
        if request.cookies.get(name):
            secure = request.url.scheme == "https"
            response.delete_cookie(name, httponly=True, samesite="strict", secure=secure)

    @staticmethod
    def session(
        response: Response, token: str, request: Request, name: str = SESSION_COOKIE
    ) -> Response:
        """``response`` setting the session cookie ``name`` to ``token``."""
        secure = request.url.scheme == "https"
        response.set_cookie(
            cookie(request, name), token, httponly=True, samesite="strict", secure=secure
        )
        response.headers["cache-control"] = "no-store"  # the page may show the token
        return response


def _client(request: Request) -> str:
    return bucket(request.client.host) if request.client else "unknown"


def web(request: Request) -> Web:
    """The app's :class:`Web` (a FastAPI dependency: ``w: Web = Depends(web)``)."""
    return request.app.state.web
