"""The organiser's console: sign-in, every campaign at a glance, and one campaign's phases
with the forms that change them and the audit log. Every value escaped; every form carries the
CSRF value bound to the organiser's session."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from simeval.report.format import html_text as escape
from simeval.report.format import number
from simeval.report.html_table import Cell, html_table
from simeval.report.policy import SHORT
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
from simeval.serve.views.pages import csrf_input, per_day_text, policy_html

BASE = "/organiser"


def sign_in_html(csrf: str) -> str:
    """The organiser's sign-in form (a token from ``simeval serve organiser add``)."""
    return (
        f'<form method="post" action="{BASE}/login">{csrf_input(csrf)}'
        '<label>Organiser token <input name="token" type="password" required '
        'autocomplete="off"></label> <button>Sign in</button></form>'
        '<p class="note">An account is made on the server\'s machine with <code>simeval serve '
        "organiser add FOLDER NAME</code>, which prints its token once.</p>"
    )


def signed_in_html(name: str, csrf: str) -> str:
    return (
        f'<p class="note">Organiser <strong>{escape(name)}</strong> · '
        f'<a href="{BASE}">all campaigns</a></p>'
        f'<form method="post" action="{BASE}/logout">{csrf_input(csrf)}'
        "<button>Sign out</button></form>"
    )


def _when(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"


def overview_html(campaigns: Sequence[CampaignSummary], now: datetime) -> str:
    """Every campaign: registration, teams, and per phase its state and runs."""
    if not campaigns:
        return "<p>No campaign yet: <code>simeval serve campaign FOLDER FILE</code> makes one.</p>"
    rows = []
    for c in campaigns:
        cap = f" (cap {c.max_teams})" if c.max_teams else ""
        phases = "<br>".join(
            f"{escape(p.name)}: {escape(p.state(now))}, {p.scored} scored run(s)" for p in c.phases
        )
        rows.append(
            [
                f'<a href="{BASE}/campaigns/{escape(c.name)}">{escape(c.name)}</a>',
                escape(c.title),
                escape(c.registration) + escape(cap),
                str(c.teams),
                phases,
            ]
        )
    table = html_table(("campaign", "title", "registration", "teams", "phases"), rows)
    return f'<div class="scroll">{table}</div>'


def _phase_form(campaign: str, p: PhaseSummary, now: datetime, csrf: str) -> str:
    action = f"{BASE}/campaigns/{escape(campaign)}/phases/{escape(p.name)}"
    iso = "%Y-%m-%dT%H:%M:%SZ"
    opens = (
        f'<label>opens <input name="opens" value="{p.opens:{iso}}" size="22"></label> '
        if now < p.opens
        else ""  # an opening that has passed stays
    )
    buttons = '<button name="action" value="save">Save</button> '
    if p.opens <= now <= p.deadline:
        buttons += '<button name="action" value="close">Close now</button> '
    if p.hidden and now > p.deadline:
        buttons += (
            '<button name="action" value="unpublish">Unpublish</button>'
            if p.published
            else '<button name="action" value="publish">Publish results</button>'
        )
    reason = ""
    if now > p.deadline and (p.hidden or p.split is not None):  # its scores may have been shown
        reason = (
            "<label>reason to reopen it after its scores were shown (shown on its board) "
            '<input name="reopen_reason" size="40" maxlength="500"></label> '
        )
    return (
        f'<form method="post" action="{action}" class="phase">{csrf_input(csrf)}{opens}'
        f'<label>deadline <input name="deadline" value="{p.deadline:{iso}}" size="22"></label> '
        f"{reason}"
        f'<label>runs <input name="runs" value="{p.runs}" size="4"></label> '
        f'<label>per day (0: no limit) <input name="per_day" value="{p.per_day or 0}" '
        'size="4"></label> '
        f'<label>max bytes <input name="max_bytes" value="{p.max_bytes}" size="10"></label> '
        f"{combine_select(p.combine)} {buttons}</form>"
    )


def combine_select(chosen: str = "sum") -> str:
    """The ranking policy's choice (how a run's targets combine on the board)."""
    options = "".join(
        f'<option value="{key}"{" selected" if key == chosen else ""}>{escape(words)}</option>'
        for key, words in SHORT.items()
    )
    return f'<label>ranked by <select name="combine">{options}</select></label>'


def carry_html(campaign: str, p: PhaseSummary, phases: Sequence[PhaseSummary], csrf: str) -> str:
    """The form that carries scored runs of another phase with a target of ``p`` into ``p``
    (empty when no other phase has one)."""
    sources = [q.name for q in phases if q.name != p.name and set(q.targets) & set(p.targets)]
    if not sources:
        return ""
    action = f"{BASE}/campaigns/{escape(campaign)}/phases/{escape(p.name)}/carry"
    options = "".join(f"<option>{escape(name)}</option>" for name in sources)
    return (
        f"<details><summary>Carry runs into {escape(p.name)}</summary>"
        f'<form method="post" action="{action}">{csrf_input(csrf)}'
        f'<label>from <select name="source">{options}</select></label> '
        '<label>team (empty: every team) <input name="team" size="14"></label> '
        "<button>Carry</button></form>"
        '<p class="note">Each scored run on a target both phases have becomes a run of this '
        "phase, scored again from its stored file, counted against this phase's limits "
        "(what exceeds them is refused and listed).</p></details>"
    )


def add_phase_html(campaign: str, known: Sequence[str], csrf: str) -> str:
    """The form that adds a phase (its keys as a campaign file's ``[[phase]]``)."""
    boxes = "".join(
        f'<label class="target"><input type="checkbox" name="target:{escape(name)}" '
        f'value="yes">&nbsp;{escape(name)}</label> '
        for name in known
    )
    return (
        f'<form method="post" action="{BASE}/campaigns/{escape(campaign)}/new-phase" '
        f'class="phase">{csrf_input(csrf)}'
        '<p><label>name <input name="name" required size="16" maxlength="64"></label> '
        '<label>opens <input name="opens" required size="22" '
        'placeholder="2026-01-01T00:00:00Z"></label> '
        '<label>deadline <input name="deadline" required size="22" '
        'placeholder="2026-02-01T00:00:00Z"></label></p>'
        '<p><label>runs <input name="runs" required size="4" value="3"></label> '
        '<label>per day (0: no limit) <input name="per_day" size="4" value="0"></label> '
        '<label>max bytes <input name="max_bytes" required size="10" value="1000000"></label> '
        '<label><input type="checkbox" name="hidden" value="yes"> scores hidden until '
        f"published</label> {combine_select()}</p>"
        f"<details><summary>Targets</summary><p>{boxes}</p></details>"
        '<p><label>or name them <input name="targets" size="40" '
        'placeholder="mc30, rg65"></label></p>'
        '<p><label>go on despite the leak audit, because <input name="allow_leaks" '
        'size="40" maxlength="500" placeholder="(leave empty)"></label> '
        "<button>Add the phase</button></p></form>"
        '<p class="note">Times with their zone (Z for UTC). Checked as a campaign file\'s '
        "phase: no benchmark or item may be both in a visible and a hidden phase, and the "
        "leak audit refuses inputs whose order or ids tell the gold (a reason given above "
        "saves the phase all the same, and the audit log keeps it).</p>"
    )


def _split_html(p: PhaseSummary, now: datetime) -> str:
    """A split phase's public share, final runs and (after its deadline) its seed."""
    if p.split is None:
        return ""
    share, seed, finals = p.split
    told = "shown after the deadline"
    if now > p.deadline:
        told = f"<code>{escape(seed)}</code>"
    return (
        f'<p class="note">Public leaderboard: {share_text(share)} of the pairs, drawn by a '
        f"secret seed ({told}); the private board ranks each team's final runs (up to "
        f"{finals}) on the rest after the deadline.</p>"
    )


def _runs_html(campaign: str, p: PhaseSummary, csrf: str) -> str:
    """A phase's excluded runs (each with a button that ranks it again) and the form that
    disqualifies or withdraws one."""
    action = f"{BASE}/campaigns/{escape(campaign)}/phases/{escape(p.name)}/runs"
    items = "".join(
        f'<li><form method="post" action="{action}">{csrf_input(csrf)}'
        f'<input type="hidden" name="system" value="{escape(system)}">'
        f"{escape(system)}: <strong>{escape(kind)}</strong> — {escape(reason)} "
        '<button name="action" value="reinstate">Rank again</button></form></li>'
        for system, (kind, reason) in p.excluded.items()
    )
    listed = f'<ul class="excluded">{items}</ul>' if items else ""
    if not p.scored and not listed:
        return ""
    return (
        f"{listed}<details><summary>Disqualify or withdraw a run</summary>"
        f'<form method="post" action="{action}">{csrf_input(csrf)}'
        '<label>team <input name="team" required size="14"></label> '
        '<label>run <input name="run" required size="3"></label> '
        '<select name="action"><option value="disqualify">disqualify</option>'
        '<option value="withdraw">withdraw</option></select> '
        '<label>reason <input name="reason" required size="40" maxlength="500"></label> '
        "<button>Apply</button></form></details>"
    )


def submissions_html(
    campaign: str, rows: Sequence[SubmissionRow], total: int, filters: dict[str, str]
) -> str:
    """Every upload of a campaign, newest first, with the filter form."""
    inputs = " ".join(
        f'<label>{key} <input name="{key}" value="{escape(filters.get(key, ""))}" size="12">'
        "</label>"
        for key in FILTERS
    )
    form = (
        f'<form method="get" action="{BASE}/campaigns/{escape(campaign)}/submissions">'
        f"{inputs} <button>Filter</button></form>"
    )
    shown = f"{len(rows)} of {total}" if len(rows) < total else f"{total}"
    head = f'<p><a href="{BASE}/campaigns/{escape(campaign)}">&larr; {escape(campaign)}</a>'
    head += f" · {shown} submission(s)</p>"
    body = [
        [
            Cell(escape(f"{r.received:%Y-%m-%d %H:%M:%S}"), classes="when"),  # on one line
            *(escape(str(v)) for v in (r.team, r.phase, r.target, r.run or "–", r.status)),
            escape(r.file),
            f'<span class="{"error" if r.status != "scored" else ""}">{escape(r.scores)}</span>',
            escape(r.excluded),
        ]
        for r in rows
    ]
    columns = ("received (UTC)", "team", "phase", "target", "run", "status", "file", "scores",
               "excluded")  # fmt: skip
    return form + head + f'<div class="scroll">{html_table(columns, body)}</div>'


def teams_html(campaign: str, rows: Sequence[TeamRow], csrf: str) -> str:
    """The teams, each with buttons to approve or revoke it and reset its token, and a form
    to rename it."""
    if not rows:
        return "<p>No team yet.</p>"
    action = f"{BASE}/campaigns/{escape(campaign)}/teams"
    body = []
    for r in rows:
        team = f'<input type="hidden" name="team" value="{escape(r.name)}">'
        flip = "revoke" if r.status != "revoked" else "approve"
        buttons = (
            ('<button name="action" value="approve">Approve</button> '
             if r.status == "pending" else "")
            + f'<button name="action" value="{flip}">{flip.capitalize()}</button> '
            '<button name="action" value="reset">Reset token</button> '
            + ('<button name="action" value="team">Not a baseline</button>' if r.baseline
               else '<button name="action" value="baseline">Baseline</button>')
        )  # fmt: skip
        rename = (
            '<input name="new_name" size="12" placeholder="new name"> '
            '<button name="action" value="rename">Rename</button>'
        )
        accepted = f"{r.terms_accepted:%Y-%m-%d %H:%M}" if r.terms_accepted else "–"
        body.append(
            [
                escape(r.name) + (" <em>(baseline)</em>" if r.baseline else ""),
                escape(r.status),
                escape(f"{r.registered:%Y-%m-%d %H:%M}"),
                escape(accepted),
                str(r.scored),
                f'<form method="post" action="{action}">{csrf_input(csrf)}{team}{buttons} '
                f"{rename}</form>",
            ]
        )
    columns = ("team", "status", "registered (UTC)", "terms accepted", "scored", "")
    return f'<div class="scroll">{html_table(columns, body)}</div>'


def texts_html(campaign: str, description: str, terms: str, csrf: str) -> str:
    """The form that edits the campaign's description and terms (Markdown)."""
    return (
        f'<form method="post" action="{BASE}/campaigns/{escape(campaign)}/texts">'
        f"{csrf_input(csrf)}<p><label>Description (Markdown, on the campaign's page)<br>"
        f'<textarea name="description" rows="6" cols="80">{escape(description)}</textarea>'
        "</label></p><p><label>Terms (Markdown; a team accepts them on registering)<br>"
        f'<textarea name="terms" rows="6" cols="80">{escape(terms)}</textarea></label></p>'
        "<button>Save texts</button></form>"
    )


def news_html(campaign: str, news: Sequence[Any], csrf: str) -> str:
    """The campaign's announcements, each with a button that takes it down, and the form
    that posts one."""
    action = f"{BASE}/campaigns/{escape(campaign)}/announcements"
    items = "".join(
        f'<li><form method="post" action="{action}">{csrf_input(csrf)}'
        f'<input type="hidden" name="id" value="{a.id}">'
        f"<strong>{escape(a.title)}</strong> ({a.at:%Y-%m-%d %H:%M} UTC) "
        '<button name="action" value="withdraw">Take down</button></form></li>'
        for a in news
    )
    listed = f"<ul>{items}</ul>" if items else "<p>None yet.</p>"
    return listed + (
        f'<form method="post" action="{action}">{csrf_input(csrf)}'
        '<p><label>Title <input name="title" required size="50" maxlength="200"></label></p>'
        '<p><label>Text (Markdown)<br><textarea name="body" rows="4" cols="80"></textarea>'
        '</label></p><button name="action" value="post">Post</button></form>'
    )


def token_html(campaign: str, team: str, token: str) -> str:
    """A team's new token, shown this once to the organiser who reset it."""
    return (
        f"<p>The new token of <strong>{escape(team)}</strong>, shown this once (its old token "
        f"no longer works): give it to the team.</p><p><code>{escape(token)}</code></p>"
        f'<p><a href="{BASE}/campaigns/{escape(campaign)}">&larr; {escape(campaign)}</a></p>'
    )


def campaign_html(
    c: CampaignSummary,
    log: Sequence[AuditEntry],
    now: datetime,
    message: str = "",
    *,
    csrf: str,
    team_rows: Sequence[TeamRow] = (),
    news: Sequence[Any] = (),
    gold: str = "",
    known: Sequence[str] = (),
) -> str:
    """One campaign: its phases (state, window, limits, runs; a form each), registration, and
    the audit log newest first."""
    parts = [f'<p class="countdown">{escape(message)}</p>'] if message else []
    parts.append(
        f'<p><a href="/campaigns/{escape(c.name)}">the public page</a> · {c.teams} team(s)</p>'
    )
    for p in c.phases:
        hidden = "; scores hidden until published" if p.hidden else ""
        if p.hidden and p.published:
            hidden = f"; hidden until its scores were published at {_when(p.published)}"
        parts.append(
            f"<h2>{escape(p.name)} <small>({escape(p.state(now))})</small></h2>"
            f"<p>{_when(p.opens)} – {_when(p.deadline)}; targets "
            f"{escape(', '.join(p.targets))}; {p.runs} run(s) per team and target"
            f"{per_day_text(p.per_day)}, files up to {p.max_bytes:,} bytes{hidden}; "
            f"{p.scored} scored run(s), {p.rejected} refused upload(s).</p>"
            + policy_html(p.combine)
            + _split_html(p, now)
            + _phase_form(c.name, p, now, csrf)
            + carry_html(c.name, p, c.phases, csrf)
            + _runs_html(c.name, p, csrf)
        )
    parts.append("<h2>Add a phase</h2>" + add_phase_html(c.name, known, csrf))
    parts.append(
        f'<p><a href="{BASE}/campaigns/{escape(c.name)}/submissions">every submission</a> '
        "(filter by phase, team, target, status)</p>"
    )
    parts.append(
        f'<h2>Scores</h2><form method="post" action="{BASE}/campaigns/{escape(c.name)}/rescore">'
        f'{csrf_input(csrf)}<button name="action" value="dry">Re-score all (show what would '
        'move)</button></form><p class="note">Every stored submission is scored again by this '
        "server's simeval, from its stored file; nothing changes until you apply it.</p>"
    )
    if gold:  # the Gold section (:mod:`.gold`)
        parts.append("<h2>Gold</h2>" + gold)
    options = "".join(
        f"<option{' selected' if s == c.registration else ''}>{s}</option>"
        for s in ("open", "approval", "closed")
    )
    parts.append(
        f'<h2>Registration</h2><form method="post" action="{BASE}/campaigns/{escape(c.name)}'
        f'/registration">{csrf_input(csrf)}<select name="state">{options}</select> '
        '<label>team cap (0: none) <input name="max_teams" '
        f'value="{c.max_teams or 0}" size="5"></label> <button>Save</button></form>'
        '<p class="note">approval: a team registers, and uploads once you approve it.</p>'
    )
    parts.append("<h2>Teams</h2>" + teams_html(c.name, team_rows, csrf))
    parts.append(
        "<h2>Description and terms</h2>" + texts_html(c.name, c.description, c.terms, csrf)
    )
    parts.append("<h2>Announcements</h2>" + news_html(c.name, news, csrf))
    parts.append("<h2>Audit log</h2>" + audit_html(log))
    return "".join(parts)


def audit_html(log: Sequence[AuditEntry]) -> str:
    """Who changed what and when, newest first, with the values before and after."""
    if not log:
        return "<p>No change since the campaign was created.</p>"
    rows = [
        [
            # the time and the action on one line each ("when": the style's nowrap cells)
            Cell(escape(f"{e.at:%Y-%m-%d %H:%M:%S}"), classes="when"),
            escape(e.actor),
            Cell(escape(e.action), classes="when"),
            escape(detail_text(e.detail)),
        ]
        for e in log
    ]
    table = html_table(("when (UTC)", "who", "what", "detail"), rows)
    return f'<div class="scroll audit">{table}</div>'


def rescore_html(campaign: str, done: Rescore, csrf: str, offer_apply: bool = True) -> str:
    """What a re-scoring moved (or would move), and (``offer_apply``) the button that applies
    a dry run."""
    back = f'<p><a href="{BASE}/campaigns/{escape(campaign)}">&larr; {escape(campaign)}</a></p>'
    verb = "Re-scored" if done.applied else "Would re-score (nothing changed yet)"
    head = (
        f"<p>{verb}: {done.submissions} submission(s), {len(done.moved)} score(s) moved, "
        f"{len(done.refused)} refused by this simeval (their old scores stay).</p>"
    )
    rows = [
        [escape(x) for x in (c.phase, c.system, c.target, c.benchmark, c.metric)]
        + [
            Cell(escape(text), classes="num")  # right-aligned, so the digits line up
            for text in (number(c.before, 6), number(c.after, 6), c.delta.strip(" ()"))
        ]
        for c in done.moved
    ]
    columns = ("phase", "system", "target", "benchmark", "metric", "before", "after", "change")
    table = f'<div class="scroll">{html_table(columns, rows)}</div>' if rows else ""
    refused = "".join(
        f'<li>{escape(system)} {escape(target)}: <span class="error">{escape(why)}</span></li>'
        for system, target, why in done.refused
    )
    refused = f"<h2>Refused now</h2><ul>{refused}</ul>" if refused else ""
    apply = ""
    if offer_apply and not done.applied and (done.moved or done.refused):
        apply = (
            f'<form method="post" action="{BASE}/campaigns/{escape(campaign)}/rescore">'
            f'{csrf_input(csrf)}<label>reason <input name="reason" value="re-score all" '
            'size="30" maxlength="200"></label> <button name="action" value="apply">Apply: '
            "keep the new scores</button></form>"
        )
    return back + head + table + refused + apply
