"""The web pages: ``/`` campaigns, ``/campaigns/{c}`` phases, inputs, register/sign-in and
upload forms, ``/campaigns/{c}/phases/{p}`` the leaderboard (``?page=N`` and ``?team=TEXT`` on
a board of many runs), ``/mine`` the team's submissions (and its final runs in split phases);
``/client/<wheel>`` the simeval the server runs, for the campaign page's ``pip install`` line.
The session cookie holds the token (HttpOnly, SameSite=Strict); every form carries a CSRF
value. Each route here renders one template of :mod:`simeval.serve.views.pages`.
"""

from __future__ import annotations

from datetime import datetime
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from markupsafe import Markup
from starlette.concurrency import run_in_threadpool

from simeval.errors import SimevalError
from simeval.serve.db.models import utc
from simeval.serve.db.storage import TooLarge
from simeval.serve.routers.board_pages import phase_key
from simeval.serve.routers.forms import TEXT_FORM, BadForm, read_form
from simeval.serve.routers.web import SESSION_COOKIE, Web, cookie, web
from simeval.serve.service.editing import announcements, reopenings
from simeval.serve.service.security import CSRF_FIELD
from simeval.serve.service.split_rule import board_part, is_split, revealed
from simeval.serve.service.submit import Refused
from simeval.serve.views import pages

router = APIRouter()
W = Annotated[Web, Depends(web)]


@router.get("/", response_class=HTMLResponse)
async def home(request: Request, w: W) -> Any:
    body = pages.home_html(w.service.campaigns())
    return w.html("Shared tasks", body, await w.signed_in(request))


@router.get("/campaigns/{campaign}", response_class=HTMLResponse)
async def campaign_page(campaign: str, request: Request, w: W) -> Any:
    team = await w.signed_in(request)
    browser_id = w.browser(request)
    c, phases = w.service.campaign(campaign)
    member = team is not None and team.campaign_id == c.id
    value = w.form_value(request, browser_id)
    status = team.status if member and team is not None else None
    news = await run_in_threadpool(announcements, w.service.db, c.id)
    now = w.clock()
    detectable = {p.name: w.service.detectable(c, p) for p in phases if now < utc(p.opens)}
    body = pages.campaign_html(c, phases, now, value, member, team is not None, status,
                               news, detectable)  # fmt: skip
    body += pages.client_html(w.client_install(request))
    return w.html(c.title, body, team, browser_id, request)


@router.get("/client/{name}")
async def client_wheel(name: str, w: W) -> Any:
    """The wheel of the simeval this server runs, the campaign page's ``pip install`` line
    (made on the first download: :mod:`simeval.serve.service.client_wheel`)."""
    wheel = w.client_wheel
    if wheel is None or name != wheel.name:
        raise Refused(404, f"no file {name} here")
    try:
        path = await run_in_threadpool(wheel.path)
    except SimevalError as exc:
        raise Refused(503, str(exc)) from None
    return FileResponse(path, media_type="application/zip", filename=name)


@router.post("/campaigns/{campaign}/register", response_class=HTMLResponse)
async def register_page(campaign: str, request: Request, w: W) -> Any:
    w.limit(request, "register")
    fields = await w.checked_form(request)
    made = await w.register(campaign, fields.get("team", ""), fields.get("accept_terms") == "yes")
    body = pages.registered_html(campaign, made["token"], made["status"])
    return w.session(w.html("Registered", body), made["token"], request)


@router.post("/login")
async def login(request: Request, w: W) -> Any:
    w.limit(request, "login")
    fields = await w.checked_form(request)
    token = fields.get("token", "")
    team = await w.authenticate(request, token, refuse=True)
    if team is None:
        raise Refused(401, "unknown token")
    c = w.service.campaign_name(team.campaign_id)
    return w.session(RedirectResponse(f"/campaigns/{c}", status_code=303), token, request)


@router.post("/logout")
async def logout(request: Request, w: W) -> Any:
    await w.checked_form(request)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(
        cookie(request, SESSION_COOKIE),
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/campaigns/{campaign}/phases/{phase}/upload", response_class=HTMLResponse)
async def upload_page(campaign: str, phase: str, request: Request, w: W) -> Any:
    w.limit(request, "upload")
    team = await w.signed_in(request)
    if team is None or w.service.campaign_name(team.campaign_id) != campaign:
        raise Refused(401, "sign in with your team's token first")
    p = await w.upload_work(w.service.admit_form, team, phase, w.rejected_per_day)
    try:
        new = partial(w.service.storage.new_upload, p.max_bytes)
        form = await read_form(request, new, "file", p.max_bytes, w.upload_seconds)
    except TooLarge as exc:
        raise Refused(413, str(exc)) from None
    except BadForm as exc:
        raise Refused(exc.status, str(exc)) from None
    upload = form.upload
    if upload is None:
        raise Refused(422, "no file in the form")
    if not w.csrf_checked(request, form.fields.get(CSRF_FIELD)):
        upload.discard()
        raise Refused(403, "the form has expired (CSRF check failed); reload the page")
    try:
        upload.finish()
        ticket = await w.upload_work(w.service.admit, team, phase, form.fields.get("target"))
    except BaseException:
        upload.discard()
        raise
    view = await w.record(ticket, upload, form.filename, api=False)
    return w.html(f"Upload to {phase}", pages.uploaded_html(campaign, view), team)


@router.get("/campaigns/{campaign}/phases/{phase}", response_class=HTMLResponse)
async def board_page(
    campaign: str,
    phase: str,
    request: Request,
    w: W,
    board: str | None = None,
    page: int = 1,
    search: Annotated[str, Query(alias="team")] = "",  # the runs of the teams named so
) -> Any:
    w.limit(request, "read")
    team = await w.signed_in(request)
    p, table = await run_in_threadpool(w.service.leaderboard, campaign, phase, board)
    mine = team.name if team is not None and team.campaign_id == p.campaign_id else None
    excluded = w.service.excluded(p.id) if table is not None else {}
    tiers = w.service.tiers(p, table)  # at once: None while they are computed aside
    part = board_part(p, w.clock(), board) if table is not None else None
    reopened = await run_in_threadpool(reopenings, w.service.db, p)
    now = w.clock()

    def build(at: datetime) -> Markup:
        return pages.board_page(campaign, p, table, mine, at, excluded, tiers, part, reopened,
                                page, search)  # fmt: skip

    if table is None:  # hidden: a few lines
        return w.html(f"{campaign}: {phase}", build(now), team)
    key = (campaign, phase_key(p), tuple(excluded.items()), tuple(reopened),
           now < utc(p.opens), revealed(p, now))  # fmt: skip
    # a large board's body is big: built in a worker thread, once per change (and page)
    body = await run_in_threadpool(
        w.board_pages.body, (p.id, part, mine, page, search), (table, tiers), key, p, now, build
    )
    return w.html(f"{campaign}: {phase}", body, team)


@router.get("/mine", response_class=HTMLResponse)
async def mine_page(request: Request, w: W) -> Any:
    team = await w.signed_in(request)
    if team is None:
        raise Refused(401, "sign in with your team's token first")
    browser_id = w.browser(request)
    csrf = w.form_value(request, browser_id)
    c, phases = w.service.campaign(w.service.campaign_name(team.campaign_id))
    sheets = [(p.name, w.service.fact_sheet(team, p.name)) for p in phases]
    finals = [w.service.final_runs(team, p.name) for p in phases if is_split(p)]
    body = (
        pages.submissions_html(w.views(team.id))
        + pages.finals_html(c.name, finals, csrf, w.clock())
        + pages.fact_sheets_html(c.name, sheets, csrf)
    )
    return w.html(f"Submissions of {team.name}", body, team, browser_id, request)


@router.post("/campaigns/{campaign}/phases/{phase}/factsheet", response_class=HTMLResponse)
async def fact_sheet_page(campaign: str, phase: str, request: Request, w: W) -> Any:
    team = await w.signed_in(request)
    if team is None or w.service.campaign_name(team.campaign_id) != campaign:
        raise Refused(401, "sign in with your team's token first")
    fields = await w.checked_form(request, limit=TEXT_FORM)
    await run_in_threadpool(w.service.fact_sheet, team, phase, fields.get("text", ""))
    return RedirectResponse("/mine", status_code=303)


@router.post("/campaigns/{campaign}/phases/{phase}/final", response_class=HTMLResponse)
async def finals_page(campaign: str, phase: str, request: Request, w: W) -> Any:
    team = await w.signed_in(request)
    if team is None or w.service.campaign_name(team.campaign_id) != campaign:
        raise Refused(401, "sign in with your team's token first")
    fields = await w.checked_form(request)
    # one checkbox per run, ``run-N`` (the form's fields are read as one value per name)
    picked = [k.removeprefix("run-") for k in fields if k.startswith("run-")]
    if not all(r.isdecimal() and len(r) < 10 for r in picked):
        raise Refused(422, "final runs are run numbers")
    runs = [int(r) for r in picked]
    await run_in_threadpool(w.service.final_runs, team, phase, runs)
    return RedirectResponse("/mine", status_code=303)
