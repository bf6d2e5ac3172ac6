"""The organiser's console: ``/organiser`` (sign-in, then every campaign),
``/organiser/campaigns/{c}`` (its phases with forms that extend, close, publish, change limits;
registration; the audit log). The organiser's session is its own cookie (HttpOnly,
SameSite=Strict) holding an organiser's token; a team's token never opens these pages. Every
change goes through :mod:`simeval.serve.service.editing`, which checks it and writes the audit
log; a refused change answers 422 with the reason and changes nothing (a refused phase form
goes back to the page with the reason beside the field it names).

Post/redirect/get: every form's POST answers 303 to a page that shows its outcome once
(:class:`.web.Flash`): the campaign's page at the form's section, or the result page at the
form's own address (a re-scoring, a gold's effect, a new token); a GET on a form's address
shows the campaign's page, so a reload never sends a form twice. Closing, publishing,
revoking and resetting a token want the form's confirm box ticked."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse
from starlette.concurrency import run_in_threadpool

from simeval.errors import InputError
from simeval.serve.db.models import DISQUALIFIED, WITHDRAWN, Organiser
from simeval.serve.db.storage import TooLarge
from simeval.serve.routers.forms import TEXT_FORM, BadForm, read_form
from simeval.serve.routers.web import ORGANISER_COOKIE, Flash, Web, cookie, web
from simeval.serve.service import editing
from simeval.serve.service.carry import carry_runs
from simeval.serve.service.console import FILTERS, overview, submissions, teams
from simeval.serve.service.gold import gold_states
from simeval.serve.service.gold_replace import MAX_GOLD, replace_gold, stored_gold_name
from simeval.serve.service.organisers import actor_of, audit_log
from simeval.serve.service.phases import add_phase, campaign_targets
from simeval.serve.service.rescoring import rescore_campaign
from simeval.serve.service.security import CSRF_FIELD
from simeval.serve.service.submit import Refused
from simeval.serve.views import console
from simeval.serve.views.gold import gold_html, replaced_html
from simeval.serve.views.organiser_admin import home_links_html

router = APIRouter()
W = Annotated[Web, Depends(web)]
ACTIONS = ("save", "close", "publish", "unpublish")


async def _organiser(request: Request, w: Web) -> Organiser:
    who = await w.organiser(request)
    if who is None:
        raise Refused(401, "sign in as an organiser first (/organiser)")
    return who


def _page(
    w: Web, request: Request, title: str, body: Callable[[str], str], who: Organiser | None
) -> Any:
    """A console page: ``body`` is rendered with the CSRF value of the organiser's forms."""
    browser_id = w.browser(request)
    csrf = w.form_value(request, browser_id, ORGANISER_COOKIE)
    head = console.signed_in_html(who.name, csrf) if who is not None else ""
    response = w.html(title, head + body(csrf), None, browser_id, request)
    response.headers["cache-control"] = "no-store"
    w.forget_flash(response, request)
    return response


@router.get("/organiser", response_class=HTMLResponse)
async def console_home(request: Request, w: W) -> Any:
    who = await w.organiser(request)
    if who is None:
        return _page(w, request, "Organiser sign-in", console.sign_in_html, None)
    campaigns = await run_in_threadpool(overview, w.service.db)
    now = w.clock()
    links = home_links_html(who.admin)  # the pages of :mod:`.organiser_admin`
    return _page(w, request, "Campaigns", lambda _: links + console.overview_html(campaigns, now),
                 who)  # fmt: skip


@router.post("/organiser/login")
async def console_login(request: Request, w: W) -> Any:
    w.limit(request, "login")
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    token = fields.get("token", "").strip()
    if await w.organiser(request, token) is None:
        raise Refused(401, "unknown or revoked organiser token")
    response = RedirectResponse("/organiser", status_code=303)
    return w.session(response, token, request, ORGANISER_COOKIE)


@router.post("/organiser/logout")
async def console_logout(request: Request, w: W) -> Any:
    await w.checked_form(request, ORGANISER_COOKIE)
    response = RedirectResponse("/organiser", status_code=303)
    response.delete_cookie(cookie(request, ORGANISER_COOKIE), httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")  # fmt: skip
    return response


async def _campaign_page(request: Request, w: Web, who: Organiser, name: str) -> Any:
    found = await run_in_threadpool(overview, w.service.db, name)
    if not found:
        raise Refused(404, f"no campaign {name!r}")
    flash = w.take_flash(request) or Flash()
    log = await run_in_threadpool(audit_log, w.service.db, found[0].id)
    rows = await run_in_threadpool(teams, w.service.db, found[0].id)
    news = await run_in_threadpool(editing.announcements, w.service.db, found[0].id)
    golds = await run_in_threadpool(gold_states, w.service, found[0].id)
    known = await run_in_threadpool(campaign_targets, w.service.db, w.service.targets, name)
    now = w.clock()
    body = partial(console.campaign_html, found[0], log, now, flash=flash, team_rows=rows,
                   news=news, known=known)  # fmt: skip
    return _page(w, request, f"{found[0].title} (organiser)",
                 lambda csrf: body(csrf=csrf, gold=gold_html(name, golds, csrf)), who)  # fmt: skip


def _done(w: Web, request: Request, campaign: str, flash: Flash, section: str = "") -> Any:
    """303 to the campaign's console page (at ``section``), which shows ``flash`` once."""
    anchor = f"#{section}" if section else ""
    return w.see_other(request, f"/organiser/campaigns/{campaign}{anchor}", flash)


def _confirmed(fields: dict[str, str], what: str) -> None:
    """A change that is hard to undo is made only with the form's ``confirm`` box ticked."""
    if fields.get("confirm") != "yes":
        raise Refused(422, f"{what}: tick the confirm box to do it")


@router.get("/organiser/campaigns/{campaign}", response_class=HTMLResponse)
async def console_campaign(campaign: str, request: Request, w: W) -> Any:
    who = await _organiser(request, w)
    return await _campaign_page(request, w, who, campaign)


# a form's address read with GET (a bookmark, a reload after its redirect): its section
SECTIONS = {
    "phases/{phase}": "phases",
    "new-phase": "add-phase",
    "phases/{phase}/carry": "phases",
    "phases/{phase}/runs": "phases",
    "teams/approve": "teams",
    "gold/apply": "gold",
    "announcements": "announcements",
    "texts": "texts",
    "registration": "registration",
}


def _section_route(path: str, section: str) -> None:
    async def show(campaign: str, request: Request, w: W) -> Any:
        await _organiser(request, w)
        return RedirectResponse(f"/organiser/campaigns/{campaign}#{section}", status_code=303)

    router.add_api_route(f"/organiser/campaigns/{{campaign}}/{path}", show, methods=["GET"],
                         name=f"console_get_{section}_{path}")  # fmt: skip


for _path, _section in SECTIONS.items():
    _section_route(_path, _section)


async def _result_page(request: Request, w: Web, campaign: str, title: str) -> Any:
    """The page a result form redirected to (what a re-scoring moved, a gold's effect, a new
    token), shown once; without one (a reload, a bookmark) the campaign's page."""
    who = await _organiser(request, w)
    flash = w.take_flash(request)
    if flash is None or flash.body is None:
        return RedirectResponse(f"/organiser/campaigns/{campaign}", status_code=303)
    return _page(w, request, f"{campaign}: {title}", flash.body, who)


@router.post("/organiser/campaigns/{campaign}/phases/{phase}", response_class=HTMLResponse)
async def console_phase(campaign: str, phase: str, request: Request, w: W) -> Any:
    """Save a phase's fields, close it now, publish or hide its scores; a refused edit goes
    back to the page with the reason beside the field it names."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    action = fields.get("action", "save")
    if action not in ACTIONS:
        raise Refused(422, f"unknown action {action!r}")
    if action != "save":
        _confirmed(fields, f"{phase}: {action}")
    now, actor, db = w.clock(), actor_of(who), w.service.db
    try:
        if action == "publish":
            await _apply(editing.publish, db, campaign, phase, now, actor)
            message = f"{phase}: published"
        elif action == "unpublish":
            await _apply(editing.unpublish, db, campaign, phase, now, actor)
            message = f"{phase}: scores hidden again"
        else:
            edit = editing.PhaseEdit(
                opens=_moment(fields, "opens"),
                deadline=None if action == "close" else _moment(fields, "deadline"),
                runs=_whole(fields, "runs"),
                max_bytes=_whole(fields, "max_bytes"),
                close=action == "close",
                per_day=_whole(fields, "per_day"),
                combine=_text(fields, "combine"),
                reopen_reason=_text(fields, "reopen_reason"),
            )
            changed = await _apply(editing.edit_phase, db, campaign, phase, edit, now, actor)
            shown = "; ".join(f"{k} {b} → {a}" for k, (b, a) in changed.items())
            message = f"{phase}: {shown}" if changed else f"{phase}: nothing changed"
    except Refused as exc:
        if exc.status != 422:
            raise
        return _done(w, request, campaign, _refusal(exc, phase), f"phase-{phase}")
    return _done(w, request, campaign, Flash(message), f"phase-{phase}")


def _refusal(exc: Refused, phase: str) -> Flash:
    """A refused phase form's reason, to show beside the time field it names (if any)."""
    named = [key for key in ("deadline", "opens") if key in exc.message]
    return Flash(exc.message, error=True, phase=phase, field=named[0] if named else None)


@router.post("/organiser/campaigns/{campaign}/new-phase", response_class=HTMLResponse)
async def console_add_phase(campaign: str, request: Request, w: W) -> Any:
    """Add a phase: the keys of a campaign file's ``[[phase]]``, checked as there; each
    target a ``target:<name>`` box or named in ``targets`` (commas or spaces)."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    named = fields.get("targets", "").replace(",", " ").split()
    ticked = [k.removeprefix("target:") for k, v in fields.items() if k.startswith("target:") and v]
    spec: dict[str, Any] = {
        "name": fields.get("name", "").strip(),
        "targets": list(dict.fromkeys([*ticked, *named])),
        "hidden": fields.get("hidden") == "yes",
        "combine": fields.get("combine") or "sum",
    }
    try:
        for key in ("opens", "deadline"):
            if _moment(fields, key) is not None:
                spec[key] = _moment(fields, key)
        for key in ("runs", "max_bytes", "per_day"):
            value = _whole(fields, key)
            if value is not None and not (key == "per_day" and value == 0):
                spec[key] = value
        leaks = fields.get("allow_leaks", "").strip() or None
        added = await _apply(
            add_phase,
            w.service.db,
            w.service.targets,
            campaign,
            spec,
            w.clock(),
            actor_of(who),
            leaks,
        )
    except Refused as exc:
        if exc.status != 422:
            raise
        return _done(w, request, campaign, _refusal(exc, console.NEW_PHASE), "add-phase")
    return _done(w, request, campaign, Flash(f"phase {added.name} added"), "phases")


@router.post("/organiser/campaigns/{campaign}/phases/{phase}/carry", response_class=HTMLResponse)
async def console_carry(campaign: str, phase: str, request: Request, w: W) -> Any:
    """Carry a team's (or every team's) scored runs of phase ``source`` into ``phase``."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    source, team = fields.get("source", ""), fields.get("team", "").strip() or None
    done = await _apply(
        carry_runs, w.service, campaign, source, phase, team, w.clock(), actor_of(who)
    )
    message = f"{phase}: {len(done.carried)} run(s) carried from {source}"
    if done.refused:
        message += f"; not carried: {'; '.join(done.refused)}"
    return _done(w, request, campaign, Flash(message), f"phase-{phase}")


@router.post("/organiser/campaigns/{campaign}/phases/{phase}/runs", response_class=HTMLResponse)
async def console_runs(campaign: str, phase: str, request: Request, w: W) -> Any:
    """Disqualify, withdraw or rank again one run (``system`` "<team> run <n>", picked from
    the phase's scored runs, or ``team`` and ``run``) on every target, or on ``target``."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    action = fields.get("action", "")
    team, run = fields.get("team", "").strip(), _whole(fields, "run")
    if fields.get("system"):
        team, _, number = fields["system"].rpartition(" run ")
        run = int(number) if number.isdigit() else None
    if not team or run is None:
        raise Refused(422, "name the team and the run's number")
    now, actor, db = w.clock(), actor_of(who), w.service.db
    target = _text(fields, "target")  # None: every target
    what = f"{team} run {run}" + ("" if target is None else f" on {target}")
    if action == "reinstate":
        await _apply(editing.reinstate_run, db, campaign, phase, team, run, now, actor, target)
        message = f"{what}: ranked again"
    elif action in ("disqualify", "withdraw"):
        kind = DISQUALIFIED if action == "disqualify" else WITHDRAWN
        reason = fields.get("reason", "")
        await _apply(editing.exclude_run, db, campaign, phase, team, run, kind, reason, now,
                     actor, target)  # fmt: skip
        message = f"{what}: {kind}"
    else:
        raise Refused(422, f"unknown action {action!r}")
    return _done(w, request, campaign, Flash(message), f"phase-{phase}")


@router.get("/organiser/campaigns/{campaign}/submissions", response_class=HTMLResponse)
async def console_submissions(campaign: str, request: Request, w: W) -> Any:
    who = await _organiser(request, w)
    if not await run_in_threadpool(overview, w.service.db, campaign):
        raise Refused(404, f"no campaign {campaign!r}")
    filters = {k: request.query_params.get(k, "").strip() for k in FILTERS}
    rows, total = await run_in_threadpool(submissions, w.service.db, campaign, filters)
    body = console.submissions_html(campaign, rows, total, filters)
    return _page(w, request, f"{campaign}: submissions", lambda _: body, who)


@router.get("/organiser/campaigns/{campaign}/rescore", response_class=HTMLResponse)
async def console_rescored(campaign: str, request: Request, w: W) -> Any:
    return await _result_page(request, w, campaign, "re-scoring")


@router.post("/organiser/campaigns/{campaign}/rescore", response_class=HTMLResponse)
async def console_rescore(campaign: str, request: Request, w: W) -> Any:
    """Re-score every stored submission: ``action=dry`` shows what would move, ``apply``
    keeps the new scores (the old ones go to the history; audited)."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    apply = fields.get("action") == "apply"
    reason = " ".join(fields.get("reason", "re-score all").split())[:200] or "re-score all"
    done = await _apply(
        rescore_campaign, w.service, campaign, w.clock(), actor_of(who), apply, reason
    )
    body = partial(console.rescore_html, campaign, done)
    url = f"/organiser/campaigns/{campaign}/rescore"
    return w.see_other(request, url, Flash(body=lambda csrf: body(csrf)))


@router.get("/organiser/campaigns/{campaign}/gold", response_class=HTMLResponse)
async def console_gold_result(campaign: str, request: Request, w: W) -> Any:
    return await _result_page(request, w, campaign, "gold")


@router.post("/organiser/campaigns/{campaign}/gold", response_class=HTMLResponse)
async def console_gold(campaign: str, request: Request, w: W) -> Any:
    """Replace a benchmark's gold (a multipart form): ``action=dry`` shows what would move and
    keeps nothing, ``apply`` keeps the file and the new scores (:mod:`.gold_replace`)."""
    who = await _organiser(request, w)
    new = partial(w.service.storage.new_upload, MAX_GOLD)
    try:
        form = await read_form(request, new, "file", MAX_GOLD, w.upload_seconds)
    except TooLarge as exc:
        raise Refused(413, str(exc)) from None
    except BadForm as exc:
        raise Refused(exc.status, str(exc)) from None
    upload, preview = form.upload, None
    apply, benchmark = form.fields.get("action") == "apply", form.fields.get("benchmark", "")
    try:
        if not w.csrf_checked(request, form.fields.get(CSRF_FIELD), ORGANISER_COOKIE):
            raise Refused(403, "the form has expired (CSRF check failed); reload the page")
        if upload is None or not upload.size:
            raise Refused(422, "no gold file in the form")
        upload.finish()
        w.drop_previews(campaign, benchmark)  # this file supersedes them
        done = await _apply(
            replace_gold, w.service, campaign, benchmark, upload.path,
            stored_gold_name(form.filename), w.clock(), actor_of(who), apply,
        )  # fmt: skip
        if not apply:  # kept for the preview's Apply button
            preview = w.keep_preview(campaign, benchmark, upload, form.filename)
    finally:
        if upload is not None and preview is None:
            upload.discard()
    return _gold_result(w, request, campaign, done, preview)


def _gold_result(w: Web, request: Request, campaign: str, done: Any, preview: str | None) -> Any:
    """303 to the page that shows what a gold replaced (or would: with ``preview``, the key of
    the kept file its Apply button sends)."""
    body = partial(replaced_html, campaign, done, preview=preview)
    url = f"/organiser/campaigns/{campaign}/gold"
    return w.see_other(request, url, Flash(body=lambda csrf: body(csrf)))


@router.post("/organiser/campaigns/{campaign}/gold/apply", response_class=HTMLResponse)
async def console_gold_apply(campaign: str, request: Request, w: W) -> Any:
    """Replace the gold previewed (the file kept from the preview: not chosen again)."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    kept = w.take_preview(fields.get("preview", ""), campaign)
    if kept is None:
        raise Refused(422, "that preview is no longer kept: choose the gold file again")
    benchmark, upload, name = kept
    try:
        done = await _apply(
            replace_gold, w.service, campaign, benchmark, upload.path, stored_gold_name(name),
            w.clock(), actor_of(who), True,
        )  # fmt: skip
    finally:
        upload.discard()
    return _gold_result(w, request, campaign, done, None)


@router.get("/organiser/campaigns/{campaign}/teams", response_class=HTMLResponse)
async def console_token(campaign: str, request: Request, w: W) -> Any:
    return await _result_page(request, w, campaign, "new token")


@router.post("/organiser/campaigns/{campaign}/teams", response_class=HTMLResponse)
async def console_teams(campaign: str, request: Request, w: W) -> Any:
    """Approve, revoke, rename a team or reset its token (the new token shown once, on the
    page this redirects to); revoking and resetting want the confirm box ticked."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    action, team = fields.get("action", ""), fields.get("team", "")
    if action in ("revoke", "reset"):
        _confirmed(fields, f"{team}: {action}")
    now, actor, db = w.clock(), actor_of(who), w.service.db
    if action in editing.TEAM_ACTIONS:
        status = await _apply(editing.set_team_status, db, campaign, team, action, now, actor)
        message = f"{team}: {status}"
    elif action == "rename":
        new = await _apply(
            editing.rename_team, db, campaign, team, fields.get("new_name", ""), now, actor
        )
        message = f"{team} is now {new}"
    elif action in ("baseline", "team"):
        on = action == "baseline"
        await _apply(editing.set_baseline, db, campaign, team, on, now, actor)
        message = f"{team}: {'a baseline of the organisers' if on else 'a team'}"
    elif action == "reset":
        token = await _apply(editing.rotate_token, db, campaign, team, now, actor)
        body = console.token_html(campaign, team, token)
        url = f"/organiser/campaigns/{campaign}/teams"
        return w.see_other(request, url, Flash(body=lambda _: body))
    else:
        raise Refused(422, f"unknown action {action!r}")
    return _done(w, request, campaign, Flash(message), "teams")


@router.post("/organiser/campaigns/{campaign}/teams/approve", response_class=HTMLResponse)
async def console_approve_all(campaign: str, request: Request, w: W) -> Any:
    """Approve every ticked team (``approve:<name>`` boxes) at once."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    names = [
        k.removeprefix("approve:") for k, v in fields.items() if k.startswith("approve:") and v
    ]
    if not names:
        raise Refused(422, "tick the teams to approve")
    now, actor, db = w.clock(), actor_of(who), w.service.db
    for team in names:
        await _apply(editing.set_team_status, db, campaign, team, "approve", now, actor)
    return _done(w, request, campaign, Flash(f"approved: {', '.join(names)}"), "teams")


@router.post("/organiser/campaigns/{campaign}/announcements", response_class=HTMLResponse)
async def console_announcements(campaign: str, request: Request, w: W) -> Any:
    """Post an announcement, or take one down."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE, TEXT_FORM)
    now, actor, db = w.clock(), actor_of(who), w.service.db
    if fields.get("action") == "withdraw":
        number = _whole(fields, "id")
        if number is None:
            raise Refused(422, "which announcement?")
        await _apply(editing.withdraw_announcement, db, campaign, number, now, actor)
        message = "announcement taken down"
    else:
        await _apply(editing.announce, db, campaign, fields.get("title", ""),
                                fields.get("body", ""), now, actor)  # fmt: skip
        message = "announcement posted"
    return _done(w, request, campaign, Flash(message), "announcements")


@router.post("/organiser/campaigns/{campaign}/texts", response_class=HTMLResponse)
async def console_texts(campaign: str, request: Request, w: W) -> Any:
    """Save the campaign's description and terms (Markdown)."""
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE, TEXT_FORM)
    await _apply(
        editing.set_texts, w.service.db, campaign, fields.get("description"),
        fields.get("terms"), w.clock(), actor_of(who),
    )  # fmt: skip
    return _done(w, request, campaign, Flash("description and terms saved"), "texts")


@router.post("/organiser/campaigns/{campaign}/registration", response_class=HTMLResponse)
async def console_registration(campaign: str, request: Request, w: W) -> Any:
    who = await _organiser(request, w)
    fields = await w.checked_form(request, ORGANISER_COOKIE)
    now = await _apply(
        editing.set_registration, w.service.db, campaign, fields.get("state"),
        _whole(fields, "max_teams"), w.clock(), actor_of(who),
    )  # fmt: skip
    cap = f"at most {now.max_teams} teams" if now.max_teams else "no cap"
    return _done(w, request, campaign, Flash(f"registration {now.state}, {cap}"), "registration")


async def _apply(change: Callable[..., Any], *args: Any) -> Any:
    """``change(*args)`` (a service function that may refuse) in a worker thread; a refusal
    answers 422 with its reason, and nothing was changed."""
    try:
        return await run_in_threadpool(change, *args)
    except InputError as exc:
        raise Refused(422, str(exc)) from None


def _text(fields: dict[str, str], key: str) -> str | None:
    value = fields.get(key, "").strip()
    return value or None


LOCAL_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?")


def _moment(fields: dict[str, str], key: str) -> str | None:
    """A form's time: a ``datetime-local`` field's value (no zone) is read as UTC, as the
    form's label says; a value with its zone is passed on as it is (the service checks it)."""
    value = _text(fields, key)
    if value is not None and LOCAL_TIME.fullmatch(value):
        return f"{value}Z"
    return value


def _whole(fields: dict[str, str], key: str) -> int | None:
    """A form's whole number (its range is the service's to check); empty: unchanged."""
    value = fields.get(key, "").strip()
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise Refused(422, f"{key}: expected a whole number, got {value!r}") from None
