"""The HTTP side: a JSON API for ``simeval submit`` and scripts, and the web pages.

API (a team's token in ``Authorization: Bearer …``):

- ``POST /api/campaigns/{campaign}/teams`` ``{"team": NAME}`` → ``{"team", "token"}`` (once);
- ``POST /api/phases/{phase}/submissions?target=T&filename=F``, the file as the raw body →
  201 with the submission, 422 with ``error``/``file``/``line``/``message`` for a file the
  task refuses (recorded, no run taken), 413 past the cap, 403 outside the phase's window,
  409 with no runs left, 429 when the client sends too fast. In a hidden phase a file is
  refused only for what the input file shows, and ``warnings`` lists what the file and the
  input alone say about it (:mod:`.hidden`);
- ``GET /api/submissions`` and ``/api/submissions/{id}``: the team's own only (another
  team's id is 404);
- ``GET /api/campaigns/{campaign}/phases/{phase}/leaderboard`` and ``…/inputs/{target}``
  (403 before the phase opens).

Pages: ``/`` campaigns, ``/campaigns/{c}`` phases, inputs, register/sign-in and upload forms,
``/campaigns/{c}/phases/{p}`` the leaderboard, ``/mine`` the team's submissions. The session
cookie holds the token (HttpOnly, SameSite=Strict).

Abuse (issue 28): every body is read to a cap (16 KiB for JSON and small forms, the phase's
``max_bytes`` for uploads; 413 past it) within ``upload_seconds`` (408); tokens are checked
with scrypt in hashing threads (:mod:`.security`), at a per-client rate (``auth``: only checks
that are not cached count); a team's rejected uploads are capped per 24 hours (429) and their
stored bytes pruned; responses carry a Content-Security-Policy (the page's one script and one
style by hash, no framing), ``X-Content-Type-Options: nosniff`` and ``X-Frame-Options``; no
redirect is built from the Host header (no trailing-slash redirects). ``/openapi.json`` and the
docs pages are not served: the API is this docstring, and ``simeval submit`` its client.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
import logging
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import partial
from html import escape
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy import select
from sqlalchemy.exc import OperationalError
from starlette.concurrency import run_in_threadpool

from simeval.errors import SimevalError
from simeval.serve import pages
from simeval.serve.forms import BadForm, read_fields, read_form, read_json, timed
from simeval.serve.models import REJECTED, Submission, Team, utc
from simeval.serve.security import (
    CSRF_COOKIE,
    CSRF_FIELD,
    Csrf,
    RateLimit,
    RateLimiter,
    TrustedProxies,
    cross_origin,
    hashing,
    new_csrf,
    new_token,
    split_token,
)
from simeval.serve.stamp import DatabaseLock, FolderLock, open_pair
from simeval.serve.storage import TooLarge, Upload
from simeval.serve.submit import Clock, Refused, Service, Ticket, error_view
from simeval.serve.views import submission_view, visible

log = logging.getLogger("simeval.serve")
SESSION_COOKIE = "simeval_team"


def cookie(request: Request, name: str) -> str:
    """The name of a cookie on this request: over HTTPS with the ``__Host-`` prefix, which a
    browser takes only when set Secure by this host for path ``/``, so a page on another port
    or a subdomain (served over plain HTTP) cannot plant a session or a CSRF cookie
    ("cookie tossing"); over plain HTTP, where no such guard exists, the plain name."""
    return f"__Host-{name}" if request.url.scheme == "https" else name


RATE_LIMITS = {
    "register": RateLimit(burst=5, per_minute=5),
    "login": RateLimit(burst=10, per_minute=10),
    "upload": RateLimit(burst=10, per_minute=20),
    "auth": RateLimit(burst=20, per_minute=30),  # token checks that cost a scrypt
}
REJECTED_PER_DAY = 20  # rejected uploads a team may send in 24 hours
KEEP_REJECTED = 20  # rejected uploads of a team whose bytes are kept ...
KEEP_REJECTED_DAYS = 7.0  # ... for at most this many days
UPLOAD_SECONDS = 600.0  # a request body is read within this long, or refused (408)


def _sha256_source(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


CSP = (
    f"default-src 'none'; script-src {_sha256_source(pages.SCRIPT)}; "
    f"style-src {_sha256_source(pages.STYLE)}; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
]


class Guard:
    """ASGI middleware: the client address (``scope["client"]``, and the scheme from
    ``X-Forwarded-Proto``) from a trusted proxy's headers (:class:`.security.TrustedProxies`;
    nobody else's), and the security headers on every response."""

    def __init__(self, app: Any, proxies: TrustedProxies) -> None:
        self.app = app
        self.proxies = proxies

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        peer = scope.get("client")
        if self.proxies and peer and self.proxies.trusted(peer[0]):
            forwarded = [
                v.decode("latin-1") for k, v in scope["headers"] if k == b"x-forwarded-for"
            ]
            proto = [v.decode("latin-1") for k, v in scope["headers"] if k == b"x-forwarded-proto"]
            scope = dict(scope, client=(self.proxies.client(peer[0], forwarded), 0))
            if proto and proto[-1].strip() in ("http", "https"):
                scope["scheme"] = proto[-1].strip()

        async def secured(message: Any) -> None:
            if message["type"] == "http.response.start":
                names = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS if k not in names]
                message = dict(message, headers=[*message.get("headers", []), *extra])
            await send(message)

        await self.app(scope, receive, secured)


RETRY_AFTER = 60  # seconds a client is asked to wait after a storage or database failure


def unavailable(why: str) -> Refused:
    """503 for a failure of the server's own storage or database: nothing was kept."""
    return Refused(
        503,
        f"{why}; nothing was kept and no run was used: send it again in a minute",
        {"Retry-After": str(RETRY_AFTER)},
    )


def utc_now() -> datetime:
    return datetime.now(UTC)


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


def create_app(
    db_url: str,
    storage_dir: str | Path,
    clock: Clock = utc_now,
    rate_limits: dict[str, RateLimit] | None = None,
    scorers: int = 0,
    busy_timeout: float = 30,
    trust_proxy: Iterable[str] = (),
    rejected_per_day: int = REJECTED_PER_DAY,
    keep_rejected: tuple[int, float] = (KEEP_REJECTED, KEEP_REJECTED_DAYS),
    upload_seconds: float | None = UPLOAD_SECONDS,
    csrf_secret: bytes | None = None,
) -> FastAPI:
    """The server over the database at ``db_url`` (migrated to the newest schema) and the
    storage folder; ``clock`` gives the server's time (tests inject one); ``scorers``
    processes score the uploads (0: this process; :mod:`.scoring`). ``trust_proxy``: the
    proxies (addresses, networks) whose ``X-Forwarded-For`` names the client;
    ``rejected_per_day``: rejected uploads a team may send in 24 hours (0: no limit);
    ``keep_rejected``: (count, days) of a team's latest rejected uploads whose bytes are kept;
    ``upload_seconds``: the time to send a body; ``busy_timeout``: how long SQLite waits for
    a lock before the request answers 503.

    Starting takes the folder's lock and checks that the database and the folder are a pair
    (:mod:`.stamp`: refused with :class:`~simeval.serve.stamp.Busy` or
    :class:`~simeval.serve.stamp.Mismatch`); unfinished uploads and files without a row are
    then moved to quarantine, never deleted. It also takes the database's lock
    (:class:`~simeval.serve.stamp.DatabaseLock`: a second live server on the same database is
    refused, whatever its folder). Both locks are held until the app shuts down.
    Storage and database failures while serving answer 503 with ``Retry-After``."""
    lock = FolderLock(storage_dir).acquire()  # one server per folder: before anything moves
    db_lock = DatabaseLock(db_url)
    try:
        db_lock.acquire()  # and one per database, whatever its folder
        db, storage = open_pair(db_url, storage_dir, busy_timeout)
        with db.reading() as s:
            moved = storage.quarantine(s.scalars(select(Submission.id)).all())
    except BaseException:
        db_lock.release(forget=True)
        lock.release()
        raise
    if moved:
        log.warning(
            "quarantined %d upload(s) that no row names (an earlier run stopped mid-upload): "
            "moved under %s/quarantine, nothing deleted: %s",
            len(moved),
            storage.root,
            ", ".join(moved),
        )
    service = Service(db, storage, clock, scorers)
    try:
        load_targets(service)
    except BaseException:
        service.close()
        db.dispose()
        db_lock.release()
        lock.release()
        raise
    limiter = RateLimiter(rate_limits if rate_limits is not None else RATE_LIMITS)

    def shutdown() -> None:
        service.close()
        db.dispose()
        db_lock.release()
        lock.release()

    app = FastAPI(
        title="simeval shared task",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        on_shutdown=[shutdown],
    )
    app.state.lock = lock
    app.state.db_lock = db_lock
    app.state.service = service
    app.state.db = db
    csrf = Csrf(csrf_secret)
    app.state.csrf = csrf
    app.router.redirect_slashes = False  # its redirects are built from the Host header
    app.add_middleware(Guard, proxies=TrustedProxies(trust_proxy))

    def client(request: Request) -> str:
        return bucket(request.client.host) if request.client else "unknown"

    def limit(request: Request, action: str) -> None:
        if not limiter.allow(client(request), action):
            raise Refused(429, f"too many {action} requests; wait a minute")

    async def authenticate(request: Request, token: str | None, refuse: bool) -> Team | None:
        """The team of ``token``: from the cache of checked tokens, else one scrypt in a
        hashing thread, charged to the client's ``auth`` bucket (past it: 429 if
        ``refuse``, else nobody is signed in)."""
        parts = split_token(token or "")
        if parts is None or token is None:
            return None
        team = await run_in_threadpool(service.cached, token)
        if team is not None:
            return team
        if not limiter.allow(client(request), "auth"):
            if refuse:
                raise Refused(429, "too many token checks from your address; wait a minute")
            return None
        row = await run_in_threadpool(service.token_row, parts[0])  # no connection held ...
        return await hashing(service.verify, token, row)  # ... while scrypt runs

    async def bearer(request: Request) -> Team:
        header = request.headers.get("authorization", "")
        token = header[7:] if header.lower().startswith("bearer ") else None
        team = await authenticate(request, token, refuse=True)
        if team is None:
            raise Refused(401, "a valid team token is needed (Authorization: Bearer …)")
        return team

    async def signed_in(request: Request) -> Team | None:
        return await authenticate(
            request, request.cookies.get(cookie(request, SESSION_COOKIE)), refuse=False
        )

    def refused_form(exc: BadForm) -> Refused:
        return Refused(exc.status, str(exc))

    async def after_rejection(team_id: int) -> None:
        pruned = await run_in_threadpool(service.prune_rejected, team_id, *keep_rejected)
        if pruned:
            log.info("pruned the stored bytes of %d rejected upload(s)", len(pruned))

    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.message}, exc.status, headers=exc.headers)
        body = f'<p class="error">{escape(exc.message)}</p><p><a href="/">back</a></p>'
        return HTMLResponse(pages.page("Refused", body), exc.status, headers=exc.headers)

    @app.exception_handler(OSError)
    async def storage_failed(request: Request, exc: OSError) -> Response:
        log.error("storage failed on %s %s", request.method, request.url.path, exc_info=exc)
        why = exc.strerror or type(exc).__name__
        return await refused(request, unavailable(f"the server could not store the file ({why})"))

    @app.exception_handler(SimevalError)
    async def simeval_failed(request: Request, exc: SimevalError) -> Response:
        # a benchmark or the data folder failed the server (not the client's file, whose
        # problems are answered as a rejection): the reason is logged, never sent (it may
        # quote the gold of a hidden phase)
        log.error("%s %s failed: %s", request.method, request.url.path, exc, exc_info=exc)
        return await refused(request, unavailable("the server could not load its benchmarks"))

    @app.exception_handler(OperationalError)
    async def database_failed(request: Request, exc: OperationalError) -> Response:
        log.error("database failed on %s %s", request.method, request.url.path, exc_info=exc)
        return await refused(request, unavailable("the database is busy or unreachable"))

    # ---- API

    @app.post("/api/campaigns/{campaign}/teams", status_code=201)
    async def api_register(campaign: str, request: Request) -> dict[str, str]:
        limit(request, "register")
        try:
            body = await read_json(request, seconds=upload_seconds)
        except BadForm as exc:
            if exc.status != 422:
                raise refused_form(exc) from None
            raise Refused(422, 'send {"team": NAME}') from None
        name = body.get("team") if isinstance(body, dict) else None
        return await _register(campaign, str(name or ""))

    async def _register(campaign: str, name: str) -> dict[str, str]:
        token = await hashing(new_token)
        secret = await run_in_threadpool(service.register, campaign, name, token)
        team = await run_in_threadpool(service.token_row, token.key)
        return {"team": team.name if team else name, "token": secret}

    async def _receive(ticket: Ticket, request: Request, name: str | None) -> Response:
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > ticket.max_bytes:
            raise Refused(413, f"the file is larger than this phase's cap of {ticket.max_bytes:,}")
        upload = storage.new_upload(ticket.max_bytes)
        try:
            async for chunk in timed(request, upload_seconds):
                upload.write(chunk)
            upload.finish()
        except TooLarge as exc:
            upload.discard()
            raise Refused(413, str(exc)) from None
        except BadForm as exc:
            upload.discard()
            raise refused_form(exc) from None
        except BaseException:
            upload.discard()
            raise
        return await _record(ticket, upload, name, api=True)

    async def _record(ticket: Ticket, upload: Upload, name: str | None, api: bool) -> Any:
        sub, error = await run_in_threadpool(service.record, ticket, upload, name)
        if error is not None:
            await after_rejection(ticket.team_id)
        view = submission_view(sub, service.phase_by_id(ticket.phase_id))
        if not api:
            return view
        if error is not None:  # as `simeval score` prints it, and its parts to reprint it
            return JSONResponse({**view, **error_view(error)}, status_code=422)
        return JSONResponse(view, status_code=201)

    @app.post("/api/phases/{phase}/submissions")
    async def api_submit(
        phase: str, request: Request, target: str | None = None, filename: str | None = None
    ) -> Response:
        limit(request, "upload")
        team = await bearer(request)
        await run_in_threadpool(service.check_rejections, team, rejected_per_day)
        ticket = await run_in_threadpool(service.admit, team, phase, target)
        return await _receive(ticket, request, filename)

    @app.get("/api/submissions")
    async def api_mine(request: Request) -> list[dict[str, Any]]:
        team = await bearer(request)
        return service.views(team.id)

    @app.get("/api/submissions/{submission_id}")
    async def api_one(submission_id: str, request: Request) -> dict[str, Any]:
        team = await bearer(request)
        for v in service.views(team.id):
            if v["id"] == submission_id:
                return v
        raise Refused(404, "no such submission of your team")

    @app.get("/api/campaigns/{campaign}/phases/{phase}/leaderboard")
    async def api_board(campaign: str, phase: str) -> dict[str, Any]:
        p, table = service.leaderboard(campaign, phase)
        if table is None:
            return {"phase": p.name, "hidden": True, "columns": [], "rows": []}
        rows = [[None if _nan(v) else v for v in row] for row in table.rows]
        return {"phase": p.name, "hidden": False, "columns": table.columns, "rows": rows}

    @app.get("/api/campaigns/{campaign}/phases/{phase}/inputs/{target}")
    @app.get("/campaigns/{campaign}/phases/{phase}/inputs/{target}")
    async def inputs(campaign: str, phase: str, target: str) -> Response:
        found = await run_in_threadpool(service.input_file, campaign, phase, target)
        name, data = found
        return Response(
            data,
            media_type="text/plain; charset=utf-8",
            headers={"content-disposition": f'attachment; filename="{name}"'},
        )

    # ---- pages

    def html(
        title: str,
        body: str,
        team: Team | None = None,
        browser_id: str | None = None,
        request: Request | None = None,
    ) -> Any:
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

    def browser(request: Request) -> str:
        """The browser's id (the CSRF cookie), new if it has none."""
        return request.cookies.get(cookie(request, CSRF_COOKIE)) or new_csrf()

    def form_value(request: Request, browser_id: str) -> str:
        """The CSRF value of this page's forms (bound to the browser and its session)."""
        return csrf.value(browser_id, request.cookies.get(cookie(request, SESSION_COOKIE)))

    def csrf_checked(request: Request, value: str | None) -> bool:
        if cross_origin(request.headers.get("sec-fetch-site")):
            return False
        session_cookie = request.cookies.get(cookie(request, SESSION_COOKIE))
        return csrf.ok(request.cookies.get(cookie(request, CSRF_COOKIE)), session_cookie, value)

    @app.get("/", response_class=HTMLResponse)
    async def home(request: Request) -> Any:
        names = service.campaigns()
        items = "".join(
            f'<li><a href="/campaigns/{escape(n)}">{escape(t)}</a></li>' for n, t in names
        )
        return html("Shared tasks", f"<ul>{items}</ul>", await signed_in(request))

    @app.get("/campaigns/{campaign}", response_class=HTMLResponse)
    async def campaign_page(campaign: str, request: Request) -> Any:
        team = await signed_in(request)
        browser_id = browser(request)
        value = form_value(request, browser_id)
        c, phases = service.campaign(campaign)
        now = clock()
        parts = []
        for p in phases:
            links = " ".join(
                f'<a href="/campaigns/{escape(c.name)}/phases/{escape(p.name)}/inputs/'
                f'{escape(t)}">{escape(t)}</a>'
                for t in p.targets
            )
            parts.append(
                f'<h2><a href="/campaigns/{escape(c.name)}/phases/{escape(p.name)}">'
                f"{escape(p.name)}</a></h2>"
                f"<p>Time left: {pages.deadline_span(utc(p.deadline), now)}"
                f"; {p.runs} run(s) per target, files up to {p.max_bytes:,} bytes"
                f"{'; scores hidden until published' if not visible(p) else ''}.</p>"
                f"<p>Input files: {links}</p>"
            )
            if team is not None and team.campaign_id == c.id:
                options = "".join(f"<option>{escape(t)}</option>" for t in p.targets)
                parts.append(
                    f'<form method="post" enctype="multipart/form-data" '
                    f'action="/campaigns/{escape(c.name)}/phases/{escape(p.name)}/upload">'
                    f'{pages.csrf_input(value)}<select name="target">{options}</select> '
                    '<input type="file" name="file" required> <button>Upload</button></form>'
                )
        if team is None:
            parts.append(
                f'<h2>Register a team</h2><form method="post" action="/campaigns/'
                f'{escape(c.name)}/register">{pages.csrf_input(value)}<input name="team" '
                'required placeholder="team name"> <button>Register</button></form>'
                f'<h2>Sign in</h2><form method="post" action="/login">{pages.csrf_input(value)}'
                '<input name="token" type="password" required placeholder="team token"> '
                "<button>Sign in</button></form>"
            )
        return html(c.title, "".join(parts), team, browser_id, request)

    async def checked_form(request: Request) -> dict[str, str]:
        try:  # never starlette's request.form(): it reads a body of any size
            fields = await read_fields(request, seconds=upload_seconds)
        except BadForm as exc:
            raise Refused(exc.status, str(exc)) from None
        if not csrf_checked(request, fields.get(CSRF_FIELD)):
            raise Refused(403, "the form has expired (CSRF check failed); reload the page")
        return fields

    def session(response: Response, token: str, request: Request) -> Response:
        secure = request.url.scheme == "https"
        response.set_cookie(
            cookie(request, SESSION_COOKIE), token, httponly=True, samesite="strict", secure=secure
        )
        response.headers["cache-control"] = "no-store"  # the page may show the token
        return response

    @app.post("/campaigns/{campaign}/register", response_class=HTMLResponse)
    async def register_page(campaign: str, request: Request) -> Any:
        limit(request, "register")
        fields = await checked_form(request)
        token = (await _register(campaign, fields.get("team", "")))["token"]
        body = (
            "<p>Your team's token, shown this once — keep it: it signs you in and "
            f"<code>simeval submit</code> needs it.</p><p><code>{escape(token)}</code></p>"
            f'<p><a href="/campaigns/{escape(campaign)}">to the campaign</a></p>'
        )
        return session(html("Registered", body), token, request)

    @app.post("/login")
    async def login(request: Request) -> Any:
        limit(request, "login")
        fields = await checked_form(request)
        token = fields.get("token", "")
        team = await authenticate(request, token, refuse=True)
        if team is None:
            raise Refused(401, "unknown token")
        c = service.campaign_name(team.campaign_id)
        return session(RedirectResponse(f"/campaigns/{c}", status_code=303), token, request)

    @app.post("/logout")
    async def logout(request: Request) -> Any:
        await checked_form(request)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(
            cookie(request, SESSION_COOKIE),
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return response

    @app.post("/campaigns/{campaign}/phases/{phase}/upload", response_class=HTMLResponse)
    async def upload_page(campaign: str, phase: str, request: Request) -> Any:
        limit(request, "upload")
        team = await signed_in(request)
        if team is None or service.campaign_name(team.campaign_id) != campaign:
            raise Refused(401, "sign in with your team's token first")
        p = await run_in_threadpool(service.open_phase, team, phase)
        await run_in_threadpool(service.check_rejections, team, rejected_per_day)
        await run_in_threadpool(service.check_runs_left, team, p)  # before the body is read
        try:
            new = partial(storage.new_upload, p.max_bytes)
            form = await read_form(request, new, "file", p.max_bytes, upload_seconds)
        except TooLarge as exc:
            raise Refused(413, str(exc)) from None
        except BadForm as exc:
            raise Refused(exc.status, str(exc)) from None
        upload = form.upload
        if upload is None:
            raise Refused(422, "no file in the form")
        if not csrf_checked(request, form.fields.get(CSRF_FIELD)):
            upload.discard()
            raise Refused(403, "the form has expired (CSRF check failed); reload the page")
        try:
            upload.finish()
            ticket = await run_in_threadpool(service.admit, team, phase, form.fields.get("target"))
        except BaseException:
            upload.discard()
            raise
        view = await _record(ticket, upload, form.filename, api=False)
        back = f'<p><a href="/campaigns/{escape(campaign)}">back</a> · <a href="/mine">mine</a></p>'
        if view["status"] == REJECTED:
            body = f'<p>Not accepted (no run used):</p><p class="error">{escape(view["error"])}</p>'
        elif view["results"] is None:
            body = (
                f"<p>Received: run {view['run']} of {view['runs']}; scores hidden until "
                "published.</p>"
            )
        else:
            body = pages.submissions_html([view])
        if view["warnings"]:
            items = "".join(f"<li>{escape(w)}</li>" for w in view["warnings"])
            body += f'<p>Warnings:</p><ul class="warnings">{items}</ul>'
        return html(f"Upload to {phase}", body + back, team)

    @app.get("/campaigns/{campaign}/phases/{phase}", response_class=HTMLResponse)
    async def board_page(campaign: str, phase: str, request: Request) -> Any:
        team = await signed_in(request)
        p, table = service.leaderboard(campaign, phase)
        mine = team.name if team is not None and team.campaign_id == p.campaign_id else None
        body = pages.board_page(campaign, p, table, mine, clock())
        return html(f"{campaign}: {phase}", body, team)

    @app.get("/mine", response_class=HTMLResponse)
    async def mine_page(request: Request) -> Any:
        team = await signed_in(request)
        if team is None:
            raise Refused(401, "sign in with your team's token first")
        return html(
            f"Submissions of {team.name}", pages.submissions_html(service.views(team.id)), team
        )

    return app


def load_targets(service: Service) -> None:
    """Load every campaign's targets once, before serving: one that does not load (the data
    folder missing, a registry file moved) refuses the start, naming the campaign, the
    target and why, instead of failing each request that needs it."""
    from simeval.serve.models import Campaign

    with service.db.reading() as s:
        found = [
            (c.name, list(c.registry_files or []), [t for p in c.phases for t in p.targets])
            for c in s.scalars(select(Campaign).order_by(Campaign.id))
        ]
    for campaign, registry, names in found:
        for name in dict.fromkeys(names):
            try:
                service.targets.get(registry, name)
            except Exception as exc:
                raise SimevalError(
                    f"campaign {campaign}: target {name} does not load ({exc}); the server "
                    "does not start until every campaign's targets load"
                ) from exc


def _nan(value: Any) -> bool:
    return isinstance(value, float) and value != value
