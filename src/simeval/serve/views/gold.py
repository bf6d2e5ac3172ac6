"""The console's Gold section (each benchmark of a campaign's targets, the gold it is scored
against, and the form that replaces one) and the page a replacement answers with
(``templates/console.html``)."""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup

from simeval.report.html_table import html_table
from simeval.serve.service.gold import GoldState
from simeval.serve.service.gold_replace import GoldReplaced
from simeval.serve.views.console import CONSOLE, rescore_html
from simeval.serve.views.html import macro


def gold_html(campaign: str, states: Sequence[GoldState], csrf: str) -> Markup:
    """Each benchmark's gold in use (sha256, where it comes from) and the replacement form."""
    rows = [
        [
            g.target,
            g.benchmark,
            macro(CONSOLE, "sha", g.sha256[:12]) if g.sha256 else "",
            g.source if g.replaceable is None else g.replaceable,
        ]
        for g in states
    ]
    table = html_table(("target", "benchmark", "gold sha256", "source"), rows)
    names = list(dict.fromkeys(g.benchmark for g in states if g.replaceable is None))
    return macro(CONSOLE, "gold", campaign, table, names, csrf)


def replaced_html(
    campaign: str, done: GoldReplaced, csrf: str, preview: str | None = None
) -> Markup:
    """What a replacement moved (or would move: nothing is kept on a dry run; ``preview``:
    the key of the file kept for the Apply button)."""
    rescored = rescore_html(campaign, done.rescore, csrf, offer_apply=False)
    return macro(CONSOLE, "replaced", campaign, done, rescored, preview, csrf)
