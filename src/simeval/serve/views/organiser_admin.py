"""The console's pages for what the command line did alone (``templates/organiser_admin.html``,
autoescaped): a new campaign from its file, the organiser accounts, a phase's public/private
split, and the export form of a campaign's page. A refused form comes back filled in, the
refusal beside its field."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from markupsafe import Markup

from simeval.serve.db.models import Organiser
from simeval.serve.service.console import PhaseSummary
from simeval.serve.service.console_admin import MAX_CAMPAIGN_FILE
from simeval.serve.service.split_rule import share_text
from simeval.serve.views.html import macro

ADMIN = "organiser_admin.html"


def home_links_html(admin: bool) -> Markup:
    """The console home's links to a new campaign and (``admin``) the organisers."""
    return macro(ADMIN, "home_links", admin)


def new_campaign_html(csrf: str, text: str = "", error: str = "", allow_leaks: str = "") -> Markup:
    """The form that creates a campaign: its file, or its text (``text``: as last sent),
    with the refusal ``error`` beside it."""
    return macro(ADMIN, "new_campaign", csrf, text, error, allow_leaks, MAX_CAMPAIGN_FILE)


def organisers_html(
    rows: Sequence[Organiser], me: str, csrf: str, error: str = "", error_for: str | None = None
) -> Markup:
    """Every account with a revoke form (not for ``me``) and the form that adds one;
    ``error`` beside the revoke form of ``error_for`` ("": beside the add form)."""
    return macro(ADMIN, "organisers", rows, me, csrf, error, error_for)


def organiser_token_html(name: str, token: str) -> Markup:
    """A new organiser's token, shown this once."""
    return macro(ADMIN, "organiser_token", name, token)


def split_html(
    campaign: str,
    phases: Sequence[PhaseSummary],
    now: datetime,
    csrf: str,
    error: str = "",
    error_phase: str | None = None,
    saved: str | None = None,
) -> Markup:
    """Each phase's split, with a form for a phase not yet open; ``error`` beside the form
    of ``error_phase``; ``saved``: the phase just split."""
    shown = [(p, share_text(p.public_share) if p.public_share is not None else "") for p in phases]
    return macro(ADMIN, "split_page", campaign, shown, now, csrf, error, error_phase, saved)


def campaign_tools_html(campaign: str, csrf: str) -> Markup:
    """The export's form and the split page's link, on the campaign's console page."""
    return macro(ADMIN, "campaign_tools", campaign, csrf)
