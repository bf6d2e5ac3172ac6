"""The organiser's console: sign-in, every campaign at a glance, and one campaign's phases
with the forms that change them and the audit log, rendered from ``templates/console.html``
(autoescaped: :mod:`.html`); every form carries the CSRF value bound to the organiser's
session."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from markupsafe import Markup

from simeval.report.format import number
from simeval.report.html_table import Cell, html_table
from simeval.report.policy import SHORT, ranking_policy
from simeval.serve.db.models import AuditEntry
from simeval.serve.service.console import (
    FILTERS,
    CampaignSummary,
    PhaseSummary,
    SubmissionRow,
    TeamRow,
)
from simeval.serve.service.organisers import detail_text
from simeval.serve.service.rescoring import Rescore
from simeval.serve.service.split_rule import share_text
from simeval.serve.views.html import macro

NEW_PHASE = "new-phase"  # the add-a-phase form, as a refusal's place (routers/console.py)
BASE = "/organiser"  # the console's paths (templates/console.html says it too)
CONSOLE = "console.html"


def sign_in_html(csrf: str) -> Markup:
    """The organiser's sign-in form (a token from ``simeval serve organiser add``)."""
    return macro(CONSOLE, "sign_in", csrf)


def signed_in_html(name: str, csrf: str) -> Markup:
    return macro(CONSOLE, "signed_in", name, csrf)


def overview_html(campaigns: Sequence[CampaignSummary], now: datetime) -> Markup:
    """Every campaign: registration, teams, and per phase its state and runs."""
    if not campaigns:
        return macro(CONSOLE, "no_campaign")
    rows = [
        [
            macro(CONSOLE, "link", f"{BASE}/campaigns/{c.name}", c.name),
            c.title,
            c.registration + (f" (cap {c.max_teams})" if c.max_teams else ""),
            str(c.teams),
            macro(CONSOLE, "phase_lines", c.phases, now),
        ]
        for c in campaigns
    ]
    table = html_table(("campaign", "title", "registration", "teams", "phases"), rows)
    return macro(CONSOLE, "scroll", table)


def combine_select(chosen: str = "sum") -> Markup:
    """The ranking policy's choice (how a run's targets combine on the board)."""
    return macro(CONSOLE, "combine_select", list(SHORT.items()), chosen)


def carry_html(campaign: str, p: PhaseSummary, phases: Sequence[PhaseSummary], csrf: str) -> Markup:
    """The form that carries scored runs of another phase with a target of ``p`` into ``p``
    (empty when no other phase has one)."""
    sources = [q.name for q in phases if q.name != p.name and set(q.targets) & set(p.targets)]
    return macro(CONSOLE, "carry", campaign, p, sources, csrf)


def add_phase_html(campaign: str, known: Sequence[str], csrf: str, refused: Any = None) -> Markup:
    """The form that adds a phase (its keys as a campaign file's ``[[phase]]``; ``refused``:
    why the last one sent was refused, shown beside its field)."""
    return macro(CONSOLE, "add_phase", campaign, known, csrf, list(SHORT.items()), refused)


def submissions_html(
    campaign: str, rows: Sequence[SubmissionRow], total: int, filters: dict[str, str]
) -> Markup:
    """Every upload of a campaign, newest first, with the filter form."""
    shown = f"{len(rows)} of {total}" if len(rows) < total else f"{total}"
    body = [
        [
            Cell(f"{r.received:%Y-%m-%d %H:%M:%S}", classes="when"),  # on one line
            *(str(v) for v in (r.team, r.phase, r.target, r.run or "–", r.status)),
            r.file,
            macro(CONSOLE, "scores_cell", r.scores, r.status != "scored"),
            r.excluded,
        ]
        for r in rows
    ]
    columns = ("received (UTC)", "team", "phase", "target", "run", "status", "file", "scores",
               "excluded")  # fmt: skip
    table = html_table(columns, body)
    return macro(CONSOLE, "submissions", campaign, filters, FILTERS, shown, table)


def teams_html(campaign: str, rows: Sequence[TeamRow], csrf: str) -> Markup:
    """The teams, each with buttons to approve or revoke it and reset its token, and a form
    to rename it; with pending teams, a box each and one button that approves the ticked."""
    if not rows:
        return macro(CONSOLE, "no_team")
    pending = any(r.status == "pending" for r in rows)
    body = [
        [
            *(
                [macro(CONSOLE, "approve_box", r.name) if r.status == "pending" else ""]
                if pending
                else []
            ),
            macro(CONSOLE, "team_name", r.name, r.baseline),
            r.status,
            f"{r.registered:%Y-%m-%d %H:%M}",
            f"{r.terms_accepted:%Y-%m-%d %H:%M}" if r.terms_accepted else "–",
            str(r.scored),
            macro(CONSOLE, "team_form", campaign, r, csrf),
        ]
        for r in rows
    ]
    columns = ("team", "status", "registered (UTC)", "terms accepted", "scored", "")
    table = macro(
        CONSOLE, "scroll", html_table(("approve", *columns) if pending else columns, body)
    )
    return macro(CONSOLE, "approve_all", campaign, csrf) + table if pending else table


def texts_html(campaign: str, description: str, terms: str, csrf: str) -> Markup:
    """The form that edits the campaign's description and terms (Markdown)."""
    return macro(CONSOLE, "texts", campaign, description, terms, csrf)


def news_html(campaign: str, news: Sequence[Any], csrf: str) -> Markup:
    """The campaign's announcements, each with a button that takes it down, and the form
    that posts one."""
    return macro(CONSOLE, "news", campaign, news, csrf)


def token_html(campaign: str, team: str, token: str) -> Markup:
    """A team's new token, shown this once to the organiser who reset it."""
    return macro(CONSOLE, "token", campaign, team, token)


def campaign_html(
    c: CampaignSummary,
    log: Sequence[AuditEntry],
    now: datetime,
    flash: Any = None,
    *,
    csrf: str,
    team_rows: Sequence[TeamRow] = (),
    news: Sequence[Any] = (),
    gold: str = "",
    known: Sequence[str] = (),
) -> Markup:
    """One campaign: its phases (state, window, limits, runs; a form each), registration, and
    the audit log newest first, in sections listed at the top; ``gold``: the Gold section
    (:mod:`.gold`); ``flash``: the outcome of the form just sent (:class:`..routers.web.Flash`;
    a phase form's refusal is shown in that form)."""
    choices = list(SHORT.items())
    refused = flash if flash is not None and flash.error and flash.phase else None
    phases = [
        (
            p,
            " ".join(ranking_policy(p.combine)),
            macro(CONSOLE, "split", p, share_text(p.split[0]) if p.split else "", now)
            + macro(
                CONSOLE,
                "phase_form",
                c.name,
                p,
                now,
                csrf,
                choices,
                refused if refused is not None and refused.phase == p.name else None,
            )
            + carry_html(c.name, p, c.phases, csrf)
            + macro(CONSOLE, "runs", c.name, p, csrf),
        )
        for p in c.phases
    ]
    return macro(
        CONSOLE,
        "campaign",
        c,
        now,
        None if flash is None or refused is not None else flash,
        csrf,
        phases,
        gold,
        teams_html(c.name, team_rows, csrf),
        texts_html(c.name, c.description, c.terms, csrf),
        news_html(c.name, news, csrf),
        audit_html(log),
        add_phase_html(
            c.name, known, csrf, refused if refused and refused.phase == NEW_PHASE else None
        ),
    )


def audit_html(log: Sequence[AuditEntry]) -> Markup:
    """Who changed what and when, newest first, with the values before and after."""
    if not log:
        return macro(CONSOLE, "no_change")
    rows = [
        [
            # the time and the action on one line each ("when": the style's nowrap cells)
            Cell(f"{e.at:%Y-%m-%d %H:%M:%S}", classes="when"),
            e.actor,
            Cell(e.action, classes="when"),
            detail_text(e.detail),
        ]
        for e in log
    ]
    table = html_table(("when (UTC)", "who", "what", "detail"), rows)
    return macro(CONSOLE, "scroll", table, "scroll audit")


def rescore_html(campaign: str, done: Rescore, csrf: str, offer_apply: bool = True) -> Markup:
    """What a re-scoring moved (or would move), and (``offer_apply``) the button that applies
    a dry run."""
    rows = [
        [c.phase, c.system, c.target, c.benchmark, c.metric]
        + [
            Cell(text, classes="num")  # right-aligned, so the digits line up
            for text in (number(c.before, 6), number(c.after, 6), c.delta.strip(" ()"))
        ]
        for c in done.moved
    ]
    columns = ("phase", "system", "target", "benchmark", "metric", "before", "after", "change")
    table = html_table(columns, rows) if rows else ""
    return macro(CONSOLE, "rescore", campaign, done, table, done.refused, offer_apply, csrf)
