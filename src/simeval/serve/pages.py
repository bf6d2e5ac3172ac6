"""The web pages: plain HTML with every value escaped, one small script that sorts tables and
counts down to deadlines. Forms carry the CSRF value (:mod:`.security`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from html import escape
from typing import Any

from simeval.report.leaderboard import Table
from simeval.serve.security import CSRF_FIELD

STYLE = """
body{font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:1rem 0}th,td{padding:.3rem .7rem;border-bottom:1px solid #ddd}
th{cursor:pointer;background:#f4f4f4;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.mine{background:#fff4c2;font-weight:600}.error{color:#a00;white-space:pre-wrap}
.note{color:#666;font-size:.9em}code{background:#f4f4f4;padding:0 .2rem}form{margin:1rem 0}
"""
SCRIPT = """
const sortable = document.querySelectorAll('table.sortable th');
sortable.forEach((th, i) => th.addEventListener('click', () => {
  const tb = th.closest('table').tBodies[0], rows = [...tb.rows], up = th.dataset.dir !== 'up';
  th.dataset.dir = up ? 'up' : 'down';
  const key = r => { const c = r.cells[i];
    return c.dataset.sort !== undefined ? parseFloat(c.dataset.sort) : c.textContent; };
  const order = (x, y) => (x < y ? -1 : x > y ? 1 : 0) * (up ? 1 : -1);
  rows.sort((a, b) => order(key(a), key(b)));
  rows.forEach(r => tb.appendChild(r));
}));
function tick() {
  document.querySelectorAll('[data-deadline]').forEach(e => {
    const s = (Date.parse(e.dataset.deadline) - Date.now()) / 1000;
    if (s <= 0) { e.textContent = 'closed'; return; }
    const d = Math.floor(s / 86400), h = Math.floor(s % 86400 / 3600);
    const m = Math.floor(s % 3600 / 60);
    e.textContent = (d ? d + ' d ' : '') + h + ' h ' + m + ' min';
  });
}
tick(); setInterval(tick, 30000);
"""


def page(title: str, body: str, team: str | None = None) -> str:
    who = (
        f'<p class="note">Signed in as <strong>{escape(team)}</strong> · '
        '<a href="/mine">my submissions</a></p>'
        if team
        else ""
    )
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}'
        f"</title><style>{STYLE}</style></head><body><h1>{escape(title)}</h1>{who}{body}"
        f"<script>{SCRIPT}</script></body></html>"
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


def deadline_span(deadline: datetime, now: datetime) -> str:
    return (
        f'<span data-deadline="{deadline.isoformat()}">{until(deadline, now)}</span> '
        f'<span class="note">(deadline {deadline:%Y-%m-%d %H:%M} UTC)</span>'
    )


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "<td>–</td>"
    if isinstance(value, float | int) and not isinstance(value, bool):
        text = f"{value:.4f}" if isinstance(value, float) else str(value)
        return f'<td class="num" data-sort="{float(value)!r}">{text}</td>'
    return f"<td>{escape(str(value))}</td>"


def board_html(table: Table, mine: str | None) -> str:
    """A sortable leaderboard; the rows of team ``mine`` highlighted."""
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    rows = []
    for row in table.rows:
        system = str(row[1])
        own = mine is not None and system.startswith(f"{mine} run ")
        cells = "".join(_cell(v) for v in row)
        rows.append(f'<tr class="mine">{cells}</tr>' if own else f"<tr>{cells}</tr>")
    note = f'<p class="note">{escape(table.note)}</p>' if table.note else ""
    return (
        f'<table class="sortable board"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{note}"
    )


def submissions_html(views: Sequence[dict[str, Any]]) -> str:
    """A team's own submissions, newest first."""
    if not views:
        return "<p>No submissions yet.</p>"
    head = "<tr><th>received</th><th>phase</th><th>target</th><th>run</th><th>file</th>"
    head += "<th>status</th><th>scores</th></tr>"
    rows = []
    for v in views:
        if v["status"] == "rejected":
            scores = f'<span class="error">{escape(v["error"] or "")}</span>'
        elif v["results"] is None:
            scores = "hidden until the organiser publishes"
        else:
            scores = "<br>".join(
                f"{escape(r['benchmark'])}: {escape(r['main_metric'])} "
                + ("–" if r["score"] is None else f"{r['score']:.4f}")
                for r in v["results"]
            )
        rows.append(
            f"<tr><td>{escape(v['received'])}</td><td>{escape(v['phase'])}</td>"
            f"<td>{escape(v['target'])}</td><td>{v['run'] or '–'}</td>"
            f"<td>{escape(v['file'])}</td><td>{escape(v['status'])}</td><td>{scores}</td></tr>"
        )
    return f'<table class="sortable"><thead>{head}</thead><tbody>{"".join(rows)}</tbody></table>'
