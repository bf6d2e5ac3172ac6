"""The web pages: plain HTML with every value escaped, one small script that sorts tables and
counts down to deadlines. Forms carry the CSRF value (:mod:`.security`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from simeval.report.format import html_text as escape
from simeval.report.format import number
from simeval.report.html_table import Cell, html_table, value_cell
from simeval.report.leaderboard import ABSENT, CONSTANT_MARK, CONSTANT_NOTE, Table
from simeval.report.policy import SHORT, ranking_policy
from simeval.serve.db.models import PENDING, REJECTED, REVOKED, Phase, utc
from simeval.serve.service.security import CSRF_FIELD
from simeval.serve.service.split_rule import PRIVATE, PUBLIC, is_split, revealed, share_text
from simeval.serve.service.tiers import MAX_RUNS, method, tier_tables, tiered
from simeval.serve.views.markdown import markdown_html
from simeval.serve.views.submissions import visible

INTERVAL = "rank interval"  # the tiers' interval column (``<benchmark> rank interval``)

STYLE = """
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;max-width:72rem;margin:1.5rem auto;padding:0 1rem;
color:#222;line-height:1.45}
h1{font-size:1.6rem;margin:.4rem 0 .8rem}h2{font-size:1.25rem}
a{color:#1a56b0}nav{font-size:.95em}
table{border-collapse:collapse;margin:1rem 0}
th,td{padding:.35rem .7rem;border-bottom:1px solid #ddd;vertical-align:top}
th{background:#eef0f3;text-align:left}th.num{text-align:right}
.board th,.tiered th{white-space:nowrap}
th button{font:inherit;font-weight:600;color:inherit;background:none;border:0;padding:0;
cursor:pointer}
th button::after{content:" \\2195";color:#999}
th[aria-sort=ascending] button::after{content:" \\25B2";color:#1a56b0}
th[aria-sort=descending] button::after{content:" \\25BC";color:#1a56b0}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.best{font-weight:700}td.when{white-space:nowrap}td.system{overflow-wrap:anywhere}
.board td.system,.tiered td.system{min-width:9em}
tr.mine{background:#fff4c2}tr.mine td:first-child{box-shadow:inset 4px 0 #d9a400}
.scroll{overflow-x:auto}
.countdown{font-size:1.15rem;background:#eef4ff;border-left:4px solid #1a56b0;
padding:.6rem .9rem;margin:1rem 0}
.countdown strong{font-size:1.5rem;font-variant-numeric:tabular-nums;white-space:nowrap}
.error{color:#a00;white-space:pre-wrap}
.note{color:#555;font-size:.9em;max-width:48rem}code{background:#f4f4f4;padding:0 .2rem}
form{margin:1rem 0}td form{margin:0}
@media (max-width:40rem){body{margin:.75rem auto;padding:0 .5rem}
th,td{padding:.3rem .35rem}.countdown strong{font-size:1.25rem}}
"""
# Sorting: a header's first click sorts its column the way a reader wants first (scores
# best-first, rank and names ascending), the next reverses; missing values (–) stay last.
# Countdown: from the server's time (data-now) plus the time the page has been open, never
# the browser's clock: the server's clock decides whether an upload is in time.
SCRIPT = """
document.querySelectorAll('table.sortable').forEach(table => {
  const heads = [...table.tHead.rows[0].cells];
  heads.forEach((th, i) => th.addEventListener('click', () => sortBy(table, heads, i)));
});
function sortBy(table, heads, i) {
  const th = heads[i], now = th.getAttribute('aria-sort');
  const up = now ? now === 'descending' : th.dataset.first !== 'descending';
  heads.forEach(h => h.removeAttribute('aria-sort'));
  th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
  const key = r => { const c = r.cells[i];
    if (c.dataset.sort === undefined) return c.textContent;
    return c.dataset.sort === '' ? null : parseFloat(c.dataset.sort); };
  const order = (a, b) => { const x = key(a), y = key(b);
    if (x === null || y === null) return (x === null) - (y === null);
    return (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1); };
  const tb = table.tBodies[0];
  [...tb.rows].sort(order).forEach(r => tb.appendChild(r));
}
const loaded = performance.now();
function tick() {
  document.querySelectorAll('[data-deadline]').forEach(e => {
    const now = e.dataset.now ? Date.parse(e.dataset.now) + performance.now() - loaded
      : Date.now();
    const s = (Date.parse(e.dataset.deadline) - now) / 1000;
    if (s <= 0) { e.textContent = 'closed'; return; }
    const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600);
    const m = Math.floor(s % 3600 / 60);
    e.textContent = (d ? d + ' d ' : '') + h + ' h ' + m + ' min';
  });
}
tick(); setInterval(tick, 15000);
"""


def page(title: str, body: str, team: str | None = None) -> str:
    who = (
        f'<p class="note">Signed in as <strong>{escape(team)}</strong> · '
        '<a href="/mine">my submissions</a></p>'
        if team
        else ""
    )
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1>{who}{body}<script>{SCRIPT}</script></body></html>"
    )


def csrf_input(csrf: str) -> str:
    return f'<input type="hidden" name="{CSRF_FIELD}" value="{escape(csrf)}">'


def until(deadline: datetime, now: datetime) -> str:
    """Time left as text (the page's script keeps it current)."""
    seconds = (deadline - now).total_seconds()
    if seconds <= 0:
        return "closed"
    d, rest = divmod(int(seconds), 86400)
    h, m = rest // 3600, rest % 3600 // 60
    return (f"{d} d " if d else "") + f"{h} h {m} min"


def countdown(deadline: datetime, now: datetime, tag: str = "span") -> str:
    """The time left in a ``tag`` element that the page's script keeps current, counting from
    the server's ``now`` (data-now), not from the browser's clock."""
    ms = "milliseconds"
    return (
        f'<{tag} data-deadline="{escape(deadline.isoformat(timespec=ms))}" '
        f'data-now="{escape(now.isoformat(timespec=ms))}">{until(deadline, now)}</{tag}>'
    )


def deadline_span(deadline: datetime, now: datetime) -> str:
    return (
        f"{countdown(deadline, now)} "
        f'<span class="note">(deadline {deadline:%Y-%m-%d %H:%M} UTC)</span>'
    )


def _head(column: str, i: int) -> str:
    """A sortable header: rank (the order shown) and system sort ascending first, scores
    descending first (best first)."""
    button = f'<button type="button">{escape(column)}</button>'
    if i == 0:
        return f'<th scope="col" class="num" aria-sort="ascending">{button}</th>'
    if i == 1:
        return f'<th scope="col">{button}</th>'
    return f'<th scope="col" class="num" data-first="descending">{button}</th>'


def board_html(table: Table, mine: str | None, classes: str = "sortable board") -> str:
    """A sortable leaderboard (columns: rank, system, one per benchmark, sum); the rows of
    team ``mine`` highlighted, the best score of each column in bold."""
    rows = [
        [
            Cell(ABSENT, "", "num")
            if (i, j) in table.absent
            else _interval_cell(v)
            if table.columns[j].endswith(INTERVAL) and isinstance(v, str)
            else value_cell(
                v,
                "system" if j == 1 else "best" if (i, j) in table.best else "",
                f" {CONSTANT_MARK}" if (i, j) in table.constant else "",
            )
            for j, v in enumerate(row)
        ]
        for i, row in enumerate(table.rows)
    ]
    own = [
        "mine" if mine is not None and str(row[1]).startswith(f"{mine} run ") else ""
        for row in table.rows
    ]
    notes = [table.note] if table.note else []
    notes += [CONSTANT_NOTE] if table.constant else []
    note = "".join(f'<p class="note">{escape(n)}</p>' for n in notes)
    board = html_table(table.columns, rows, classes=classes, head=_head, row_classes=own)
    return f'<div class="scroll">{board}</div>{note}'


def _interval_cell(value: str) -> Cell:
    """A rank interval ("2–4"), right-aligned as the numbers and sorted by its best rank."""
    low = value.split("–")[0]
    return Cell(escape(value), float(low) if low.isdigit() else None, "num")


def excluded_html(excluded: dict[str, tuple[str, str]]) -> str:
    """The runs an organiser disqualified or withdrew, each with its reason."""
    if not excluded:
        return ""
    items = "".join(
        f"<li>{escape(system)}: <strong>{escape(kind)}</strong> — {escape(reason)}</li>"
        for system, (kind, reason) in excluded.items()
    )
    return f'<h2>Not ranked</h2><ul class="excluded">{items}</ul>'


def board_page(
    campaign: str,
    phase: Phase,
    table: Table | None,
    mine: str | None,
    now: datetime,
    excluded: dict[str, tuple[str, str]] | None = None,
    tiers: dict[str, Any] | None = None,
    part: str | None = None,
    reopened: Sequence[tuple[datetime, str, str]] = (),
) -> str:
    """The body of a phase's leaderboard page: the time to the deadline, the table (or why
    there is none) and what its columns mean; with ``tiers`` (:mod:`simeval.serve.service.
    tiers`) each benchmark's rank interval, upper bound and tier, and how they were computed,
    else a line saying they are being computed; a split phase's ``part`` (public or private
    board) said above the table; ``reopened``: each time the organisers reopened the phase
    after its scores were shown, ``(when, what was shown, their reason)``
    (:func:`simeval.serve.service.editing.reopenings`), said under the deadline."""
    deadline, opens = utc(phase.deadline), utc(phase.opens)
    back = f'<nav><a href="/campaigns/{escape(campaign)}">&larr; {escape(campaign)}</a></nav>'
    when = f"deadline {deadline:%Y-%m-%d %H:%M} UTC"
    if now < opens:
        when = f"opens {opens:%Y-%m-%d %H:%M} UTC, " + when
    head = (
        f'<p class="countdown">Time left: {countdown(deadline, now, "strong")}<br>'
        f'<span class="note">{when}; {phase.runs} run(s) per target'
        f"{per_day_text(phase.per_day)}</span></p>"
    ) + reopened_html(reopened)
    policy = policy_html(phase.combine)
    if table is None:
        return (
            back
            + head
            + ("<p>Scores are hidden until the organiser publishes them after the deadline.</p>")
            + policy
        )
    gone = excluded_html(excluded or {})
    head += board_part_html(campaign, phase, part, revealed(phase, now))
    if not table.rows:
        return back + head + "<p>No ranked runs yet.</p>" + policy + gone
    yours = " Highlighted: your team's runs." if mine else ""
    note = (
        '<p class="note">One row per system: run <em>n</em> of a team is its <em>n</em>-th '
        f"scored file for each target (at most {phase.runs} per target in this phase; a "
        f"rejected file uses no run). Each benchmark column is its main score ({ABSENT}: no "
        "score). Bold: the best in its column."
        + yours
        + " Click a header to sort."
        + (" Each team's final runs are listed here." if part == PRIVATE else "")
        + "</p>"
    )
    if tiers and len(tiers) == 1:  # the board gains the benchmark's three columns
        shown, how = tiered(table, tiers), tiers_html(tiers)
    elif tiers:  # one table of tiers per benchmark under the board
        shown, how = table, tiers_html(tiers, tier_tables(table, tiers), mine)
    elif part is not None:  # a split board: tiers would read the private items' rows too
        shown, how = table, SPLIT_UNTIERED
    elif tiers is not None:  # nothing to tier (baselines only), or too many runs
        shown, how = table, _untiered(len(table.rows))
    else:
        shown, how = table, '<p class="note tiers">tiers: computing… (reload in a moment)</p>'
    return back + head + board_html(shown, mine) + note + policy + how + gone


def reopened_html(reopened: Sequence[tuple[datetime, str, str]]) -> str:
    """One line per reopening of a phase after its scores were shown (:func:`board_page`)."""
    return "".join(
        f'<p class="reopened"><strong>Note:</strong> {at:%Y-%m-%d %H:%M} UTC, reopened after '
        f"its {escape(shown)}, by the organisers: {escape(reason)}</p>"
        for at, shown, reason in reopened
    )


SPLIT_UNTIERED = (
    '<p class="note tiers">No rank tiers on a board of a public/private split (they would '
    "be drawn from every item; the organisers compute them offline from the export).</p>"
)


def _untiered(runs: int) -> str:
    if runs <= MAX_RUNS:
        return ""
    return (
        f'<p class="note tiers">No rank tiers: this board has more than {MAX_RUNS} runs '
        "(the organisers compute them offline from the export).</p>"
    )


def tiers_html(found: dict[str, Any], tables: Sequence[Table] = (), mine: str | None = None) -> str:
    """Each benchmark's table of tiers (``tables``, when the board has several), then the
    "How tiers are computed" paragraph."""
    shown = "".join(
        f"<h2>{escape(t.title)}</h2>" + board_html(t, mine, "sortable tiered") for t in tables
    )
    return (
        shown + '<h2 id="tiers">How tiers are computed</h2>'
        f'<p class="note tiers">{escape(method(found))}</p>'
    )


def per_day_text(per_day: int | None) -> str:
    """``, at most 3 a day (any 24 hours)`` for a phase's per-day limit; empty without one."""
    return f", at most {per_day} a day (any 24 hours)" if per_day else ""


def policy_html(combine: str, pruned: bool = False) -> str:
    """The phase's declared ranking policy (:func:`simeval.report.policy.ranking_policy`)."""
    text = " ".join(ranking_policy(combine, pruned))
    return f'<p class="note policy"><strong>Ranking policy.</strong> {escape(text)}</p>'


def split_statement(phase: Phase) -> str:
    """What a split phase's pages say of it (never which pairs are public)."""
    share = share_text(phase.public_share or 0)
    return (
        f"the leaderboard scores a public {share} of the pairs; the rest decide the final "
        f"ranking after the deadline (each team's final runs: up to {phase.final_runs}, by "
        "default its last)"
    )


def board_part_html(campaign: str, phase: Phase, part: str | None, both: bool) -> str:
    """Which board of a split phase this is, and a link to the other when ``both`` are
    shown (after the deadline)."""
    if part is None:
        return ""
    here = f"/campaigns/{escape(campaign)}/phases/{escape(phase.name)}"
    if part == PUBLIC:
        other = f' <a href="{here}?board={PRIVATE}">The private (final) leaderboard</a>.'
        return (
            f'<p class="board-part"><strong>Public leaderboard (live)</strong>: '
            f"{escape(split_statement(phase))}.{other if both else ''}</p>"
        )
    private = share_text(1 - (phase.public_share or 0))
    return (
        f'<p class="board-part"><strong>Private leaderboard (final)</strong>: each team\'s '
        f"final runs scored on the private {private} of the pairs. "
        f'<a href="{here}?board={PUBLIC}">The public (live) leaderboard</a>.</p>'
    )


def finals_html(
    campaign: str, finals: Sequence[tuple[Phase, list[int], list[int], bool]], csrf: str,
    now: datetime,
) -> str:  # fmt: skip
    """A form per split phase for the team's final runs: a checkbox per scored run, the
    final ones checked; after the deadline the runs alone."""
    if not finals:
        return ""
    parts = [
        '<h2>Final runs</h2><p class="note">The private leaderboard ranks your final runs '
        "after the deadline; until you pick them, your last runs are final.</p>"
    ]
    for p, final, runs, picked in finals:
        how = "picked by your team" if picked else f"your last {p.final_runs} (the default)"
        shown = ", ".join(f"run {r}" for r in final) or "none yet"
        parts.append(f"<h3>{escape(p.name)}</h3><p>Final: {shown} ({how}).</p>")
        if now > utc(p.deadline) or not runs:
            continue
        boxes = "".join(
            f'<label><input type="checkbox" name="run-{r}" value="yes"'
            f"{' checked' if r in final else ''}> run {r}</label> "
            for r in runs
        )
        parts.append(
            f'<form method="post" class="finals" action="/campaigns/{escape(campaign)}/phases/'
            f'{escape(p.name)}/final">{csrf_input(csrf)}{boxes}<button>Pick these as final '
            f"(at most {p.final_runs})</button></form>"
        )
    return "".join(parts)


def when(iso: str) -> str:
    """An ISO time in UTC as ``YYYY-MM-DD HH:MM:SS`` (still sorts as text)."""
    return iso.replace("T", " ").removesuffix("+00:00")


def _button_head(column: str, i: int) -> str:
    return f'<th scope="col"><button type="button">{escape(column)}</button></th>'


def _carried(view: dict[str, Any], phase_of: dict[str, str]) -> str:
    """`` carried from trial`` under a carried run's status (its source: one of the team's)."""
    source = view.get("carried_from")
    if not source:
        return ""
    return f'<br><span class="note">carried from {escape(phase_of.get(source, "a phase"))}</span>'


def submissions_html(views: Sequence[dict[str, Any]]) -> str:
    """A team's own submissions, newest first."""
    if not views:
        return "<p>No submissions yet.</p>"
    names = ("received (UTC)", "phase", "target", "run", "file", "status", "scores")
    phase_of = {v["id"]: v["phase"] for v in views}  # a carried run's source is the team's
    rows = []
    for v in views:
        if v["status"] == "rejected":
            scores = f'<span class="error">{escape(v["error"] or "")}</span>'
        elif v["results"] is None:
            scores = "hidden until the organiser publishes"
        else:
            public = f"{v['part']} " if v.get("part") else ""  # a split phase's part
            scores = "<br>".join(
                f"{escape(r['benchmark'])}: {public}{escape(r['main_metric'])} {number(r['score'])}"
                for r in v["results"]
            )
            if v["error"]:  # a counted run of a hidden phase that the gold refused, published
                scores += f'<span class="error">not scored: {escape(v["error"])}</span>'
        rows.append(
            [
                Cell(escape(when(v["received"])), None, "when"),
                *(value_cell(v[k]) for k in ("phase", "target")),
                str(v["run"] or "–"),
                value_cell(v["file"]),
                escape(v["status"]) + _carried(v, phase_of),
                scores,
            ]
        )
    return f'<div class="scroll">{html_table(names, rows, head=_button_head)}</div>'


def fact_sheets_html(campaign: str, sheets: Sequence[tuple[str, str]], csrf: str) -> str:
    """A form per phase for the team's fact sheet: its system described, in Markdown (what
    it is, the resources it used, what it was trained on), shown in the organisers' export."""
    forms = "".join(
        f'<h3>{escape(phase)}</h3><form method="post" '
        f'action="/campaigns/{escape(campaign)}/phases/{escape(phase)}/factsheet">'
        f'{csrf_input(csrf)}<textarea name="text" rows="6" cols="80">{escape(text)}'
        "</textarea><br><button>Save the fact sheet</button></form>"
        for phase, text in sheets
    )
    return (
        '<h2>Fact sheets</h2><p class="note">Describe the system behind your runs (Markdown): '
        "the method, the resources and data it used, which runs are which. The organisers "
        "publish them with the results; a hidden phase's stay open until they are published, "
        "a visible phase's for a week after its deadline.</p>" + forms
    )


def home_html(campaigns: Sequence[tuple[str, str]]) -> str:
    """The list of campaigns ``(name, title)``."""
    items = "".join(
        f'<li><a href="/campaigns/{escape(n)}">{escape(t)}</a></li>' for n, t in campaigns
    )
    return f"<ul>{items}</ul>"


def campaign_html(
    c: Any,
    phases: Sequence[Phase],
    now: datetime,
    csrf: str,
    member: bool,
    signed_in: bool,
    status: str | None = None,
    news: Sequence[Any] = (),
    detectable: dict[str, Sequence[tuple[str, Any]]] | None = None,
) -> str:
    """A campaign's description, phases with their input files; the upload forms for a
    ``member`` team (a note instead while its ``status`` is pending or revoked), the register
    form (with the terms to accept, when the campaign has some) and the sign-in form for a
    browser not ``signed_in``."""
    parts = [f'<div class="description">{markdown_html(c.description or "")}</div>']
    if news:
        items = "".join(
            f'<li><strong>{escape(a.title)}</strong> <span class="note">'
            f"({utc(a.at):%Y-%m-%d %H:%M} UTC)</span>{markdown_html(a.body)}</li>"
            for a in news
        )
        parts.append(f'<h2>Announcements</h2><ul class="news">{items}</ul>')
    if member and status == PENDING:
        parts.append('<p class="countdown">Your team waits for the organiser\'s approval; '
                     "uploads open then.</p>")  # fmt: skip
        member = False
    elif member and status == REVOKED:
        parts.append('<p class="countdown">The organiser revoked your team\'s registration.</p>')
        member = False
    for p in phases:
        links = " ".join(
            f'<a href="/campaigns/{escape(c.name)}/phases/{escape(p.name)}/inputs/'
            f'{escape(t)}">{escape(t)}</a>'
            for t in p.targets
        )
        parts.append(
            f'<h2><a href="/campaigns/{escape(c.name)}/phases/{escape(p.name)}">'
            f"{escape(p.name)}</a></h2>"
            f"<p>Time left: {deadline_span(utc(p.deadline), now)}"
            f"; {p.runs} run(s) per target{per_day_text(p.per_day)}, files up to "
            f"{p.max_bytes:,} bytes{'; scores hidden until published' if not visible(p) else ''}"
            f"; ranked by {SHORT[p.combine]}"
            f"{'; ' + escape(split_statement(p)) if is_split(p) else ''}.</p>"
            f"<p>Input files: {links}</p>" + _detectable_html((detectable or {}).get(p.name, ()))
        )
        if member:
            options = "".join(f"<option>{escape(t)}</option>" for t in p.targets)
            parts.append(
                f'<form method="post" enctype="multipart/form-data" '
                f'action="/campaigns/{escape(c.name)}/phases/{escape(p.name)}/upload">'
                f'{csrf_input(csrf)}<select name="target">{options}</select> '
                '<input type="file" name="file" required> <button>Upload</button></form>'
            )
    if not signed_in:
        terms, accept = "", ""
        if (c.terms or "").strip():
            terms = f'<h2>Terms</h2><div class="terms">{markdown_html(c.terms)}</div>'
            accept = ('<label><input type="checkbox" name="accept_terms" value="yes" required> '
                      "I accept the terms above</label> ")  # fmt: skip
        waits = (
            '<p class="note">The organiser approves each team; uploads open then.</p>'
            if c.registration == "approval"
            else ""
        )
        parts.append(
            f'{terms}<h2>Register a team</h2>{waits}<form method="post" action="/campaigns/'
            f'{escape(c.name)}/register">{csrf_input(csrf)}<input name="team" '
            f'required placeholder="team name"> {accept}<button>Register</button></form>'
            f'<h2>Sign in</h2><form method="post" action="/login">{csrf_input(csrf)}'
            '<input name="token" type="password" required placeholder="team token"> '
            "<button>Sign in</button></form>"
        )
    return "".join(parts)


def client_html(install: str | None) -> str:
    """The line that installs this server's simeval for its command line (``simeval register``,
    ``predict``, ``submit``); nothing where the server offers no wheel."""
    if not install:
        return ""
    return (
        "<h2>Command line</h2><p>simeval as this server runs it, with its HTTP client:</p>"
        f'<div class="scroll"><pre><code>{escape(install)}</code></pre></div>'
    )


def _detectable_html(found: Sequence[tuple[str, Any]]) -> str:
    """How small a difference each benchmark of a phase can tell apart (the method stated)."""
    if not found:
        return ""
    items = ", ".join(
        f"{escape(name)} {escape(d.metric)} {d.difference:.3f} (n = {d.n:,})" for name, d in found
    )
    first = found[0][1]
    return (
        f'<p class="note">Smallest difference the test set can detect (two-sided α = '
        f"{first.alpha:g}, power {first.power:.0%}): {items}. Method: {escape(first.assumptions)}."
        "</p>"
    )


def registered_html(campaign: str, token: str, status: str = "approved") -> str:
    """A new team's token, shown this once (and that it waits for approval, if so)."""
    waits = (
        "<p><strong>Your team waits for the organiser's approval</strong>; uploads open then.</p>"
        if status == PENDING
        else ""
    )
    return (
        "<p>Your team's token, shown this once — keep it: it signs you in and "
        f"<code>simeval submit</code> needs it.</p><p><code>{escape(token)}</code></p>{waits}"
        f'<p><a href="/campaigns/{escape(campaign)}">to the campaign</a></p>'
    )


def uploaded_html(campaign: str, view: dict[str, Any]) -> str:
    """What an upload from the page was told: refused, received (hidden) or its scores,
    and its warnings."""
    back = f'<p><a href="/campaigns/{escape(campaign)}">back</a> · <a href="/mine">mine</a></p>'
    if view["status"] == REJECTED:
        body = f'<p>Not accepted (no run used):</p><p class="error">{escape(view["error"])}</p>'
    elif view["results"] is None:
        body = (
            f"<p>Received: run {view['run']} of {view['runs']}; scores hidden until published.</p>"
        )
    else:
        body = submissions_html([view])
    if view["warnings"]:
        items = "".join(f"<li>{escape(w)}</li>" for w in view["warnings"])
        body += f'<p>Warnings:</p><ul class="warnings">{items}</ul>'
    return body + back
