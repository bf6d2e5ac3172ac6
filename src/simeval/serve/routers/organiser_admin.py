"""The console's pages for what only the command line did (issue 46): ``/organiser/new-campaign``
(a campaign from its file or its text), ``/organiser/organisers`` (accounts: admins only, 403
for the others), ``/organiser/campaigns/{c}/split`` (a phase's public/private split) and
``POST /organiser/campaigns/{c}/export`` (the export as a zip). Each change goes through the
service function of its command (:mod:`simeval.serve.service.console_admin`,
:mod:`~simeval.serve.service.organisers`, :mod:`~simeval.serve.service.split_setting`), which
checks it and writes the audit log; a refused form comes back (422) filled in, with the
refusal beside its field, and nothing changed. A change that succeeds answers 303 to a page
(post/redirect/get), except a new organiser's token, which is shown once on the answer
itself (a redirect would have to carry it in its address).

The revoke form asks for a ticked "I understand" box (checked here too): the pages' Content
Security Policy runs no inline script, so there is no ``confirm()`` dialog."""

from __future__ import annotations

import shutil
import tempfile
from functools import partial
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool

from simeval.data.textio import parse_float, parse_int
from simeval.errors import InputError
from simeval.serve.db.models import Organiser
from simeval.serve.db.storage import TooLarge
from simeval.serve.routers.console import _apply, _organiser, _page, _whole
from simeval.serve.routers.forms import BadForm, read_form
from simeval.serve.routers.web import ORGANISER_COOKIE, Web, web
from simeval.serve.service.console import overview
from simeval.serve.service.console_admin import MAX_CAMPAIGN_FILE, create_sent_campaign, export_zip
from simeval.serve.service.organisers import actor_of, add_organiser, organisers, revoke_organiser
from simeval.serve.service.security import CSRF_FIELD
from simeval.serve.service.split_setting import set_split
from simeval.serve.service.submit import Refused
from simeval.serve.views import organiser_admin as views

router = APIRouter()
W = Annotated[Web, Depends(web)]
BASE = "/organiser"


def _see(path: str) -> RedirectResponse:
    """The answer to a change that succeeded: 303 to the page that shows it."""
    return RedirectResponse(path, status_code=303)


# -- a new campaign


@router.get(f"{BASE}/new-campaign", response_class=HTMLResponse)
async def new_campaign_page(request: Request, w: W) -> Any:
    who = await _organiser(request, w)
    return _page(w, request, "New campaign", views.new_campaign_html, who)


@router.post(f"{BASE}/new-campaign", response_class=HTMLResponse)
async def new_campaign(request: Request, w: W) -> Any:
    """Create a campaign from the sent file (or, without one, the form's text), as
    ``simeval serve campaign`` does; refused, the form again with the reason beside it."""
    who = await _organiser(request, w)
    new = partial(w.service.storage.new_upload, MAX_CAMPAIGN_FILE)
    try:  # a file and a text of at most the cap each
        form = await read_form(request, new, "file", 2 * MAX_CAMPAIGN_FILE, w.upload_seconds,
                               field_limit=MAX_CAMPAIGN_FILE)  # fmt: skip
    except TooLarge:
        raise Refused(413, f"a campaign file is at most {MAX_CAMPAIGN_FILE:,} bytes") from None
    except BadForm as exc:
        raise Refused(exc.status, str(exc)) from None
    upload = form.upload
    try:
        if not w.csrf_checked(request, form.fields.get(CSRF_FIELD), ORGANISER_COOKIE):
            raise Refused(403, "the form has expired (CSRF check failed); reload the page")
        if upload is not None and upload.size:
            upload.finish()
            data, name = upload.path.read_bytes(), form.filename
        else:
            data, name = form.fields.get("text", "").encode("utf-8"), None
    finally:
        if upload is not None:
            upload.discard()
    text = data.decode("utf-8", "replace")
    leaks = form.fields.get("allow_leaks", "").strip()
    if not data.strip():
        return _refused_campaign(w, request, who, text, "choose a campaign file or write its text",
                                 leaks)  # fmt: skip
    try:
        made = await run_in_threadpool(
            create_sent_campaign, w.service.db, w.service.targets, data, name, w.clock(),
            actor_of(who), leaks or None,
        )  # fmt: skip
    except InputError as exc:
        return _refused_campaign(w, request, who, text, str(exc), leaks)
    return _see(f"{BASE}/campaigns/{quote(made)}")


def _refused_campaign(
    w: Web, request: Request, who: Organiser, text: str, error: str, leaks: str
) -> Any:
    body = partial(views.new_campaign_html, text=text, error=error, allow_leaks=leaks)
    response = _page(w, request, "New campaign", lambda csrf: body(csrf), who)
    response.status_code = 422
    return response


# -- the export


@router.post(f"{BASE}/campaigns/{{campaign}}/export")
async def export_download(campaign: str, request: Request, w: W) -> Any:
    """The campaign's export (``simeval serve export``) as a zip; ``anonymise=yes``: every
    team ``team-NN``; ``top``: the top runs' tables. Audited."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    anonymise = fields.get("anonymise") == "yes"
    top = _whole(fields, "top") or 0
    if top < 0:
        raise Refused(422, f"top: expected a whole number ≥ 0, got {top}")
    folder = Path(tempfile.mkdtemp(prefix="simeval-export-"))
    try:
        archive = await _apply(
            export_zip, w.service.db, w.service.storage, campaign, folder, w.clock(),
            actor_of(who), anonymise, top,
        )  # fmt: skip
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return FileResponse(
        archive,
        media_type="application/zip",
        filename=archive.name,
        headers={"cache-control": "no-store"},
        background=BackgroundTask(shutil.rmtree, folder, ignore_errors=True),
    )


# -- organisers (admins only)


async def _admin(request: Request, w: Web) -> Organiser:
    who = await _organiser(request, w)
    if not who.admin:
        raise Refused(403, "only an admin organiser manages the organisers")
    return who


async def _organisers_page(
    request: Request, w: Web, who: Organiser, error: str = "", error_for: str | None = None
) -> Any:
    rows = await run_in_threadpool(organisers, w.service.db)
    body = partial(views.organisers_html, rows, who.name, error=error, error_for=error_for)
    response = _page(w, request, "Organisers", lambda csrf: body(csrf=csrf), who)
    if error:
        response.status_code = 422
    return response


@router.get(f"{BASE}/organisers", response_class=HTMLResponse)
async def organisers_page(request: Request, w: W) -> Any:
    return await _organisers_page(request, w, await _admin(request, w))


@router.post(f"{BASE}/organisers", response_class=HTMLResponse)
async def organiser_add(request: Request, w: W) -> Any:
    """Add an organiser (``admin=yes``: an admin); its token shown once."""
    who = await _admin(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    name = fields.get("name", "").strip()
    try:
        token = await run_in_threadpool(
            add_organiser, w.service.db, name, w.clock(), None, actor_of(who),
            fields.get("admin") == "yes",
        )  # fmt: skip
    except InputError as exc:
        return await _organisers_page(request, w, who, str(exc), "")
    body = views.organiser_token_html(name, token)
    return _page(w, request, "New organiser", lambda _: body, who)


@router.post(f"{BASE}/organisers/revoke", response_class=HTMLResponse)
async def organiser_revoke(request: Request, w: W) -> Any:
    """Revoke an organiser, once the form's "I understand" box is ticked."""
    who = await _admin(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    name = fields.get("name", "")
    if fields.get("confirm") != "yes":
        error = "tick the box: the account's token stops working at once"
        return await _organisers_page(request, w, who, error, name)
    try:
        await run_in_threadpool(revoke_organiser, w.service.db, name, w.clock(), actor_of(who))
    except InputError as exc:
        return await _organisers_page(request, w, who, str(exc), name)
    return _see(f"{BASE}/organisers")


# -- a phase's public/private split


async def _split_page(
    request: Request,
    w: Web,
    who: Organiser,
    campaign: str,
    error: str = "",
    error_phase: str | None = None,
    saved: str | None = None,
) -> Any:
    found = await run_in_threadpool(overview, w.service.db, campaign)
    if not found:
        raise Refused(404, f"no campaign {campaign!r}")
    phases, now = found[0].phases, w.clock()
    if saved not in {p.name for p in phases}:
        saved = None  # only a phase of the campaign is named back
    body = partial(views.split_html, campaign, phases, now, error=error,
                   error_phase=error_phase, saved=saved)  # fmt: skip
    response = _page(w, request, f"{campaign}: public/private split", lambda c: body(csrf=c), who)
    if error:
        response.status_code = 422
    return response


@router.get(f"{BASE}/campaigns/{{campaign}}/split", response_class=HTMLResponse)
async def split_page(campaign: str, request: Request, w: W) -> Any:
    who = await _organiser(request, w)
    return await _split_page(request, w, who, campaign, saved=request.query_params.get("saved"))


@router.post(f"{BASE}/campaigns/{{campaign}}/phases/{{phase}}/split", response_class=HTMLResponse)
async def split_phase(campaign: str, phase: str, request: Request, w: W) -> Any:
    """Set a phase's public ``share`` (empty: no split) and ``final_runs``, as ``simeval
    serve split`` does (before it opens; a new seed; audited)."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    try:
        share = _share(fields.get("share", ""))
        finals = _final_runs(fields.get("final_runs", ""))
        await run_in_threadpool(set_split, w.service.db, campaign, phase, share, finals,
                                w.clock(), actor_of(who), w.service.targets)  # fmt: skip
    except InputError as exc:
        return await _split_page(request, w, who, campaign, str(exc), phase)
    return _see(f"{BASE}/campaigns/{quote(campaign)}/split?saved={quote(phase)}")


def _share(text: str) -> float | None:
    """The form's share: empty for no split, else a number (its range is the service's)."""
    return parse_float(text, None, None, "public share") if text.strip() else None


def _final_runs(text: str) -> int | None:
    """The form's final runs: empty leaves them, else a whole number (checked by the service)."""
    return parse_int(text, None, None, "final runs") if text.strip() else None
