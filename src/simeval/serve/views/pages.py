"""The web pages, rendered from the templates in ``simeval/serve/templates`` (autoescaped:
:mod:`.html`): one layout (``base.html``) around a body, one small script that sorts tables
and counts down to deadlines. Forms carry the CSRF value (:mod:`.security`). Each function
here gathers what its template shows and returns the template's HTML (Markup)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from markupsafe import Markup

from simeval.report.html_table import Cell, html_table, value_cell
from simeval.report.leaderboard import ABSENT, CONSTANT_MARK, CONSTANT_NOTE, Table
from simeval.report.policy import ranking_policy
from simeval.serve.db.models import PENDING, REJECTED, Phase, utc
from simeval.serve.service.split_rule import PRIVATE, revealed, share_text
from simeval.serve.service.tiers import MAX_RUNS, method, tier_tables, tiered
from simeval.serve.views.html import macro, render
from simeval.serve.views.markdown import markdown_html
from simeval.serve.views.phrases import split_statement

INTERVAL = "rank interval"  # the tiers' interval column (``<benchmark> rank interval``)
# a board page's rows: a page stays under 200 KB with 15 benchmarks and long team names
# (tests/serve/test_board_pages.py); 10,000 runs make 67 pages
PAGE_ROWS = 150

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
form{margin:1rem 0}td form{margin:0}form.confirm{display:inline-block;margin:.2rem 0}
h1,h2,h3,.countdown,.error,.note,td{overflow-wrap:anywhere}
code.token{overflow-wrap:anywhere;word-break:break-all}
input,select,textarea{max-width:100%}textarea{width:100%}
label.target{display:inline-block;white-space:nowrap;margin-right:.6rem}
nav.toc{background:#f6f7f9;padding:.5rem .8rem;margin:1rem 0}
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
document.querySelectorAll('button.copy').forEach(b => b.addEventListener('click', () => {
  navigator.clipboard.writeText(b.dataset.copy).then(() => { b.textContent = 'Copied'; });
}));
"""


SERVER = "https://THIS-SERVER"  # the install line's stand-in for the page's own address


def countdown(deadline: datetime, now: datetime, tag: str = "span") -> Markup:
    """The time left in a ``tag`` element that the page's script keeps current, counting from
    the server's ``now`` (the kept board page swaps it for the time of each read)."""
    return macro("macros.html", "countdown", deadline, now, tag)


def page(title: str, body: Markup, team: str | None = None) -> Markup:
    """A whole page: ``title`` and the signed-in ``team`` (text), ``body`` (a template's
    Markup; text would be shown escaped) in the one layout."""
    return render("base.html", title=title, body=body, team=team,
                  style=Markup(STYLE), script=Markup(SCRIPT))  # fmt: skip


def refused_html(message: str) -> Markup:
    """Why a request was refused, and a link home."""
    return macro("macros.html", "refused", message)


def board_html(table: Table, mine: str | None, classes: str = "sortable board") -> Markup:
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
    board = html_table(table.columns, rows, classes=classes, head="board", row_classes=own)
    return macro("board.html", "board_table", board, notes)


def _interval_cell(value: str) -> Cell:
    """A rank interval ("2–4"), right-aligned as the numbers and sorted by its best rank."""
    low = value.split("–")[0]
    return Cell(value, float(low) if low.isdigit() else None, "num")


def excluded_html(excluded: dict[tuple[str, str | None], tuple[str, str]]) -> Markup:
    """The runs an organiser disqualified or withdrew, each with its reason (and the target
    it is excluded on, when one: the run keeps its row, that target's cell empty)."""
    return macro("board.html", "excluded", excluded)


@dataclass(frozen=True)
class Paging:
    """Which rows of a board a page shows: page ``number`` of ``pages`` over the ``found``
    runs (of ``total``) of the teams whose name holds ``team`` (every run when empty), and
    the links to the other pages."""

    number: int
    pages: int
    found: int
    total: int
    team: str
    links: tuple[tuple[int, str], ...]  # (page, its address) for each page

    @property
    def first(self) -> int:
        return min((self.number - 1) * PAGE_ROWS + 1, self.found)

    @property
    def last(self) -> int:
        return min(self.number * PAGE_ROWS, self.found)


def board_slice(
    table: Table, page: int, team: str, address: str, part: str | None = None
) -> tuple[Table, Paging]:
    """The rows of page ``page`` of ``table`` (the last page when past it), of the runs of
    the teams whose name holds ``team`` (any case) when given; the best, constant and absent
    cells follow their rows (a best cell is bold on its own page). ``address``: the board's,
    for the links to the other pages (``part``: a split phase's board, kept in them)."""
    wanted = team.casefold()
    keep = [
        i
        for i, row in enumerate(table.rows)
        if not wanted or wanted in str(row[1]).rpartition(" run ")[0].casefold()
    ]
    pages = max(1, -(-len(keep) // PAGE_ROWS))
    number = min(max(page, 1), pages)
    chosen = keep[(number - 1) * PAGE_ROWS : number * PAGE_ROWS]
    at = {old: new for new, old in enumerate(chosen)}

    def moved(cells: set[tuple[int, int]]) -> set[tuple[int, int]]:
        return {(at[i], j) for i, j in cells if i in at}

    rows = [table.rows[i] for i in chosen]
    shown = replace(table, rows=rows, best=moved(table.best), constant=moved(table.constant),
                    absent=moved(table.absent))  # fmt: skip
    query = {"board": part} if part else {}
    query |= {"team": team} if team else {}
    links = tuple((n, f"{address}?{urlencode({**query, 'page': n})}") for n in range(1, pages + 1))
    return shown, Paging(number, pages, len(keep), len(table.rows), team, links)


def board_page(
    campaign: str,
    phase: Phase,
    table: Table | None,
    mine: str | None,
    now: datetime,
    excluded: dict[tuple[str, str | None], tuple[str, str]] | None = None,
    tiers: dict[str, Any] | None = None,
    part: str | None = None,
    reopened: Sequence[tuple[datetime, str, str]] = (),
    page: int = 1,
    team: str = "",
) -> Markup:
    """The body of a phase's leaderboard page: the time to the deadline, the table (or why
    there is none) and what its columns mean; with ``tiers`` (:mod:`simeval.serve.service.
    tiers`) each benchmark's rank interval, upper bound and tier, and how they were computed,
    else a line saying they are being computed; a split phase's ``part`` (public or private
    board) said above the table; ``reopened``: each time the organisers reopened the phase
    after its scores were shown, ``(when, what was shown, their reason)``
    (:func:`simeval.serve.service.editing.reopenings`), said under the deadline. A board of
    more than :data:`PAGE_ROWS` runs is shown a page at a time (``page``), with a search by
    ``team`` (:func:`board_slice`)."""
    board: Markup | None = None
    how = Markup()
    paging = None
    if table is not None and table.rows:
        if tiers and len(tiers) == 1:  # the board gains the benchmark's three columns
            shown, how = tiered(table, tiers), tiers_html(tiers)
        elif tiers:  # one table of tiers per benchmark under the board
            shown, how = table, tiers_html(tiers, tier_tables(table, tiers), mine)
        elif part is not None:  # a split board: tiers would read the private items' rows too
            shown, how = table, macro("board.html", "split_untiered")
        elif tiers is not None:  # nothing to tier (baselines only), or too many runs
            shown, how = table, macro("board.html", "untiered", len(table.rows), MAX_RUNS)
        else:
            shown, how = table, macro("board.html", "computing")
        team = " ".join(team.split())[:100]
        if len(shown.rows) > PAGE_ROWS or team:
            address = f"/campaigns/{campaign}/phases/{phase.name}"
            shown, paging = board_slice(shown, page, team, address, part)
        board = board_html(shown, mine) if shown.rows else Markup()
    scores = table is not None
    return macro(
        "board.html",
        "board_page",
        campaign,
        phase,
        utc(phase.deadline),
        utc(phase.opens),
        now,
        scores,
        board_part_html(campaign, phase, part, revealed(phase, now)) if scores else "",
        reopened_html(reopened),
        " ".join(ranking_policy(phase.combine)),
        board,
        how,
        excluded_html(excluded or {}) if scores else "",
        mine,
        part == PRIVATE,
        paging,
        part,
    )


def reopened_html(reopened: Sequence[tuple[datetime, str, str]]) -> Markup:
    """One line per reopening of a phase after its scores were shown (:func:`board_page`)."""
    return macro("board.html", "reopened", reopened)


def tiers_html(
    found: dict[str, Any], tables: Sequence[Table] = (), mine: str | None = None
) -> Markup:
    """Each benchmark's table of tiers (``tables``, when the board has several), then the
    "How tiers are computed" paragraph."""
    shown = [(t.title, board_html(t, mine, "sortable tiered")) for t in tables]
    return macro("board.html", "tiers", shown, method(found))


def board_part_html(campaign: str, phase: Phase, part: str | None, both: bool) -> Markup:
    """Which board of a split phase this is, and a link to the other when ``both`` are
    shown (after the deadline)."""
    private = share_text(1 - (phase.public_share or 0))
    statement = split_statement(phase)
    return macro("board.html", "board_part", campaign, phase.name, part, both, statement, private)


def finals_html(
    campaign: str, finals: Sequence[tuple[Phase, list[int], list[int], bool]], csrf: str,
    now: datetime,
) -> Markup:  # fmt: skip
    """A form per split phase for the team's final runs: a checkbox per scored run, the
    final ones checked; after the deadline the runs alone."""
    return macro("team.html", "finals", campaign, finals, csrf, now)


def when(iso: str) -> str:
    """An ISO time in UTC as ``YYYY-MM-DD HH:MM:SS`` (still sorts as text)."""
    return iso.replace("T", " ").removesuffix("+00:00")


def submissions_html(views: Sequence[dict[str, Any]]) -> Markup:
    """A team's own submissions, newest first."""
    if not views:
        return macro("team.html", "submissions", None)
    names = ("received (UTC)", "phase", "target", "run", "file", "status", "scores")
    phase_of = {v["id"]: v["phase"] for v in views}  # a carried run's source is the team's
    rows = []
    for v in views:
        source = v.get("carried_from")
        carried = phase_of.get(source, "a phase") if source else ""
        part = f"{v['part']} " if v.get("part") else ""  # a split phase's part
        rows.append(
            [
                Cell(when(v["received"]), None, "when"),
                *(value_cell(v[k]) for k in ("phase", "target")),
                str(v["run"] or "–"),
                value_cell(v["file"]),
                macro("team.html", "status", v["status"], carried),
                macro("team.html", "scores", v, part),
            ]
        )
    return macro("team.html", "submissions", html_table(names, rows, head="buttons"))


def fact_sheets_html(campaign: str, sheets: Sequence[tuple[str, str]], csrf: str) -> Markup:
    """A form per phase for the team's fact sheet: its system described, in Markdown (what
    it is, the resources it used, what it was trained on), shown in the organisers' export."""
    return macro("team.html", "fact_sheets", campaign, sheets, csrf)


def home_html(campaigns: Sequence[tuple[str, str]]) -> Markup:
    """The list of campaigns ``(name, title)``."""
    return macro("campaign.html", "home", campaigns)


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
) -> Markup:
    """A campaign's description, phases with their input files; the upload forms for a
    ``member`` team (a note instead while its ``status`` is pending or revoked), the register
    form (with the terms to accept, when the campaign has some) and the sign-in form for a
    browser not ``signed_in``."""
    shown = [(a.title, utc(a.at), markdown_html(a.body)) for a in news]
    terms = markdown_html(c.terms) if (c.terms or "").strip() else ""
    return macro("campaign.html", "campaign", c, markdown_html(c.description or ""), phases, now,
                 csrf, member, status, signed_in, shown, detectable or {}, terms)  # fmt: skip


def client_html(install: str | None) -> Markup:
    """The line that installs this server's simeval for its command line (``simeval register``,
    ``predict``, ``submit``); nothing where the server offers no wheel."""
    return macro("campaign.html", "client", install or "", SERVER)


def registered_html(campaign: str, token: str, status: str = "approved") -> Markup:
    """A new team's token, shown this once (and that it waits for approval, if so)."""
    return macro("team.html", "registered", campaign, token, status == PENDING)


def uploaded_html(campaign: str, view: dict[str, Any]) -> Markup:
    """What an upload from the page was told: refused, received (hidden) or its scores,
    and its warnings."""
    rejected = view["status"] == REJECTED
    scored = submissions_html([view]) if not rejected and view["results"] is not None else ""
    return macro("team.html", "uploaded", campaign, view, rejected, scored)
