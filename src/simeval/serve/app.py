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
"""

from __future__ import annotations

import logging
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

from simeval.serve import pages
from simeval.serve.forms import BadForm, read_fields, read_form
from simeval.serve.models import REJECTED, SCORED, Phase, Submission, Team, utc
from simeval.serve.security import (
    CSRF_COOKIE,
    CSRF_FIELD,
    RateLimit,
    RateLimiter,
    csrf_ok,
    new_csrf,
)
from simeval.serve.stamp import FolderLock, open_pair
from simeval.serve.storage import TooLarge, Upload
from simeval.serve.submit import Clock, Refused, Service, Ticket, error_view

log = logging.getLogger("simeval.serve")
SESSION_COOKIE = "simeval_team"
RATE_LIMITS = {
    "register": RateLimit(burst=5, per_minute=5),
    "login": RateLimit(burst=10, per_minute=10),
    "upload": RateLimit(burst=10, per_minute=20),
}


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


def visible(phase: Phase) -> bool:
    """Scores of ``phase`` may be shown to participants."""
    return not phase.hidden or phase.published is not None


def submission_view(sub: Submission, phase: Phase) -> dict[str, Any]:
    """A submission as its team sees it (scores only where the phase shows them)."""
    results = None
    if sub.status == SCORED and visible(phase):
        results = [
            {
                "benchmark": r["benchmark"],
                "main_metric": r["main_metric"],
                "score": r["metrics"].get(r["main_metric"]),
                "metrics": r["metrics"],
                "coverage": r["coverage"],
                "warnings": r["warnings"],
            }
            for r in sub.results or []
        ]
    return {
        "id": sub.id,
        "phase": phase.name,
        "target": sub.target,
        "run": sub.run,
        "runs": phase.runs,
        "status": sub.status,
        "received": utc(sub.received).isoformat(timespec="seconds"),
        "file": sub.client_name,
        "sha256": sub.sha256,
        "size": sub.size,
        # a counted run's error (the gold refused it, :mod:`.hidden`) waits for publication
        "error": sub.error if sub.status != SCORED or visible(phase) else None,
        "hidden": sub.status == SCORED and not visible(phase),
        "results": results,
        "warnings": list(sub.warnings or []),  # a hidden phase's: the file and input's alone
    }


def create_app(
    db_url: str,
    storage_dir: str | Path,
    clock: Clock = utc_now,
    rate_limits: dict[str, RateLimit] | None = None,
    scorers: int = 0,
    busy_timeout: float = 30,
) -> FastAPI:
    """The server over the database at ``db_url`` (migrated to the newest schema) and the
    storage folder; ``clock`` gives the server's time (tests inject one); ``scorers``
    processes score the uploads (0: this process; :mod:`.scoring`).

    Starting takes the folder's lock and checks that the database and the folder are a pair
    (:mod:`.stamp`: refused with :class:`~simeval.serve.stamp.Busy` or
    :class:`~simeval.serve.stamp.Mismatch`); unfinished uploads and files without a row are
    then moved to quarantine, never deleted. The lock is held until the app shuts down.
    Storage and database failures while serving answer 503 with ``Retry-After``."""
    lock = FolderLock(storage_dir).acquire()  # one server per folder: before anything moves
    try:
        db, storage = open_pair(db_url, storage_dir, busy_timeout)
        with db.reading() as s:
            moved = storage.quarantine(s.scalars(select(Submission.id)).all())
    except BaseException:
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
    limiter = RateLimiter(rate_limits if rate_limits is not None else RATE_LIMITS)

    def shutdown() -> None:
        service.close()
        db.dispose()
        lock.release()

    app = FastAPI(
        title="simeval shared task", docs_url=None, redoc_url=None, on_shutdown=[shutdown]
    )
    app.state.lock = lock
    app.state.service = service
    app.state.db = db

    def client(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    def limit(request: Request, action: str) -> None:
        if not limiter.allow(client(request), action):
            raise Refused(429, f"too many {action} requests; wait a minute")

    def bearer(request: Request) -> Team:
        header = request.headers.get("authorization", "")
        token = header[7:] if header.lower().startswith("bearer ") else None
        team = service.authenticate(token)
        if team is None:
            raise Refused(401, "a valid team token is needed (Authorization: Bearer …)")
        return team

    def signed_in(request: Request) -> Team | None:
        return service.authenticate(request.cookies.get(SESSION_COOKIE))

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

    @app.exception_handler(OperationalError)
    async def database_failed(request: Request, exc: OperationalError) -> Response:
        log.error("database failed on %s %s", request.method, request.url.path, exc_info=exc)
        return await refused(request, unavailable("the database is busy or unreachable"))

    # ---- API

    @app.post("/api/campaigns/{campaign}/teams", status_code=201)
    async def api_register(campaign: str, request: Request) -> dict[str, str]:
        limit(request, "register")
        try:
            body = await request.json()
        except ValueError:
            raise Refused(422, 'send {"team": NAME}') from None
        name = body.get("team") if isinstance(body, dict) else None
        token = await run_in_threadpool(service.register, campaign, str(name or ""))
        return {"team": str(name), "token": token}

    async def _receive(ticket: Ticket, request: Request, name: str | None) -> Response:
        length = request.headers.get("content-length")
        if length and length.isdigit() and int(length) > ticket.max_bytes:
            raise Refused(413, f"the file is larger than this phase's cap of {ticket.max_bytes:,}")
        upload = storage.new_upload(ticket.max_bytes)
        try:
            async for chunk in request.stream():
                upload.write(chunk)
            upload.finish()
        except TooLarge as exc:
            upload.discard()
            raise Refused(413, str(exc)) from None
        except BaseException:
            upload.discard()
            raise
        return await _record(ticket, upload, name, api=True)

    async def _record(ticket: Ticket, upload: Upload, name: str | None, api: bool) -> Any:
        sub, error = await run_in_threadpool(service.record, ticket, upload, name)
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
        team = bearer(request)
        ticket = await run_in_threadpool(service.admit, team, phase, target)
        return await _receive(ticket, request, filename)

    @app.get("/api/submissions")
    async def api_mine(request: Request) -> list[dict[str, Any]]:
        team = bearer(request)
        return service.views(team.id)

    @app.get("/api/submissions/{submission_id}")
    async def api_one(submission_id: str, request: Request) -> dict[str, Any]:
        team = bearer(request)
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

    def html(title: str, body: str, team: Team | None = None, csrf: str | None = None) -> Any:
        response = HTMLResponse(pages.page(title, body, team.name if team else None))
        if csrf is not None:
            response.set_cookie(CSRF_COOKIE, csrf, httponly=True, samesite="strict")
        return response

    def form_csrf(request: Request) -> str:
        return request.cookies.get(CSRF_COOKIE) or new_csrf()

    @app.get("/", response_class=HTMLResponse)
    async def home(request: Request) -> Any:
        names = service.campaigns()
        items = "".join(
            f'<li><a href="/campaigns/{escape(n)}">{escape(t)}</a></li>' for n, t in names
        )
        return html("Shared tasks", f"<ul>{items}</ul>", signed_in(request))

    @app.get("/campaigns/{campaign}", response_class=HTMLResponse)
    async def campaign_page(campaign: str, request: Request) -> Any:
        team = signed_in(request)
        csrf = form_csrf(request)
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
                    f'{pages.csrf_input(csrf)}<select name="target">{options}</select> '
                    '<input type="file" name="file" required> <button>Upload</button></form>'
                )
        if team is None:
            parts.append(
                f'<h2>Register a team</h2><form method="post" action="/campaigns/'
                f'{escape(c.name)}/register">{pages.csrf_input(csrf)}<input name="team" '
                'required placeholder="team name"> <button>Register</button></form>'
                f'<h2>Sign in</h2><form method="post" action="/login">{pages.csrf_input(csrf)}'
                '<input name="token" type="password" required placeholder="team token"> '
                "<button>Sign in</button></form>"
            )
        return html(c.title, "".join(parts), team, csrf)

    async def checked_form(request: Request) -> dict[str, str]:
        try:  # never starlette's request.form(): it reads a body of any size
            fields = await read_fields(request)
        except BadForm as exc:
            raise Refused(exc.status, str(exc)) from None
        if not csrf_ok(request.cookies.get(CSRF_COOKIE), fields.get(CSRF_FIELD)):
            raise Refused(403, "the form has expired (CSRF check failed); reload the page")
        return fields

    def session(response: Response, token: str, request: Request) -> Response:
        secure = request.url.scheme == "https"
        response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="strict", secure=secure)
        return response

    @app.post("/campaigns/{campaign}/register", response_class=HTMLResponse)
    async def register_page(campaign: str, request: Request) -> Any:
        limit(request, "register")
        fields = await checked_form(request)
        token = await run_in_threadpool(service.register, campaign, fields.get("team", ""))
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
        team = service.authenticate(token)
        if team is None:
            raise Refused(401, "unknown token")
        c = service.campaign_name(team.campaign_id)
        return session(RedirectResponse(f"/campaigns/{c}", status_code=303), token, request)

    @app.post("/logout")
    async def logout(request: Request) -> Any:
        await checked_form(request)
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="strict")
        return response

    @app.post("/campaigns/{campaign}/phases/{phase}/upload", response_class=HTMLResponse)
    async def upload_page(campaign: str, phase: str, request: Request) -> Any:
        limit(request, "upload")
        team = signed_in(request)
        if team is None or service.campaign_name(team.campaign_id) != campaign:
            raise Refused(401, "sign in with your team's token first")
        p = await run_in_threadpool(service.open_phase, team, phase)
        try:
            new = partial(storage.new_upload, p.max_bytes)
            form = await read_form(request, new, "file", p.max_bytes)
        except TooLarge as exc:
            raise Refused(413, str(exc)) from None
        except BadForm as exc:
            raise Refused(exc.status, str(exc)) from None
        upload = form.upload
        if upload is None:
            raise Refused(422, "no file in the form")
        if not csrf_ok(request.cookies.get(CSRF_COOKIE), form.fields.get(CSRF_FIELD)):
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
        team = signed_in(request)
        p, table = service.leaderboard(campaign, phase)
        mine = team.name if team is not None and team.campaign_id == p.campaign_id else None
        body = pages.board_page(campaign, p, table, mine, clock())
        return html(f"{campaign}: {phase}", body, team)

    @app.get("/mine", response_class=HTMLResponse)
    async def mine_page(request: Request) -> Any:
        team = signed_in(request)
        if team is None:
            raise Refused(401, "sign in with your team's token first")
        return html(
            f"Submissions of {team.name}", pages.submissions_html(service.views(team.id)), team
        )

    return app


def _nan(value: Any) -> bool:
    return isinstance(value, float) and value != value
