"""The console's Gold section (each benchmark of a campaign's targets, the gold it is scored
against, and the form that replaces one) and the page a replacement answers with."""

from __future__ import annotations

from collections.abc import Sequence

from simeval.report.format import html_text as escape
from simeval.report.html_table import html_table
from simeval.serve.service.gold import GoldState
from simeval.serve.service.gold_replace import GoldReplaced
from simeval.serve.views.console import BASE, rescore_html
from simeval.serve.views.pages import csrf_input


def gold_html(campaign: str, states: Sequence[GoldState], csrf: str) -> str:
    """Each benchmark's gold in use (sha256, where it comes from) and the replacement form."""
    rows = [
        [
            escape(g.target),
            escape(g.benchmark),
            f"<code>{escape(g.sha256[:12])}…</code>" if g.sha256 else "",
            escape(g.source if g.replaceable is None else g.replaceable),
        ]
        for g in states
    ]
    table = html_table(("target", "benchmark", "gold sha256", "source"), rows)
    names = [g.benchmark for g in states if g.replaceable is None]
    if not names:
        return f'<div class="scroll">{table}</div><p class="note">No gold here can be replaced.</p>'
    options = "".join(f"<option>{escape(n)}</option>" for n in dict.fromkeys(names))
    return (
        f'<div class="scroll">{table}</div>'
        f'<form method="post" enctype="multipart/form-data" '
        f'action="{BASE}/campaigns/{escape(campaign)}/gold">{csrf_input(csrf)}'
        f'<p><label>benchmark <select name="benchmark">{options}</select></label> '
        '<label>new gold file <input type="file" name="file" required></label></p>'
        '<p><button name="action" value="dry">Show what would move</button> '
        '<button name="action" value="apply">Replace and re-score</button></p></form>'
        '<p class="note">The new file must read as the benchmark\'s gold and hold exactly its '
        "pairs. Replacing it scores every stored run of that benchmark again; the old scores "
        "stay in each run's history, and the audit log keeps both checksums.</p>"
    )


def replaced_html(campaign: str, done: GoldReplaced, csrf: str) -> str:
    """What a replacement moved (or would move: nothing is kept on a dry run)."""
    applied = done.rescore.applied
    what = "replaced" if applied else "would be replaced (nothing kept yet)"
    head = (
        f"<p>The gold of <strong>{escape(done.benchmark)}</strong> {what}: sha256 "
        f"<code>{escape(done.before[:12])}…</code> → <code>{escape(done.after[:12])}…</code> "
        f"(targets {escape(', '.join(done.targets))}).</p>"
    )
    if not applied:
        head += (
            '<p class="note">To keep it, send the file again with <em>Replace and '
            "re-score</em> on the campaign's page.</p>"
        )
    return head + rescore_html(campaign, done.rescore, csrf, offer_apply=False)
