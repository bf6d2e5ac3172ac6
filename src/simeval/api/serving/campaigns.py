"""A server's campaigns: created from their TOML file, their inputs' leak audit, their
registration, exported for the overview paper, and scored again (all, or after a gold file is
replaced)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from simeval.api.serving.server import opened, scoring_service, utc_now
from simeval.errors import InputError


class CampaignMade(NamedTuple):
    """A campaign just created: its name, and a line per phase saying whether its scores are
    hidden (and when that was the default)."""

    name: str
    phases: list[str]


def create_campaign(
    folder: Path, file: Path, db: str | None = None, allow_leaks: str | None = None
) -> CampaignMade:
    """Add the campaign of the TOML ``file`` to the server of ``folder`` (made if missing);
    ``allow_leaks``: the reason to save phases the leak audit finds fault with. A wrong file
    is refused before the server is opened, or made."""
    from simeval.serve.service.campaigns import (
        Targets,
        check_campaign_file,
        phase_lines,
    )
    from simeval.serve.service.campaigns import create_campaign as create

    check_campaign_file(file)
    with opened(folder, db, make=True) as (database, _):
        made = create(database, file, utc_now(), Targets(), allow_leaks)
        name = made.name
    return CampaignMade(name, phase_lines(file))


def audit_inputs(
    folder: Path | None = None,
    campaign: str | None = None,
    file: Path | None = None,
    db: str | None = None,
) -> list[str]:
    """The leak audit's findings on a campaign's inputs as its teams get them: campaign
    ``campaign`` of the server of ``folder``, or the campaign file ``file`` before it is
    added."""
    from simeval.serve.service.campaigns import Targets
    from simeval.serve.service.phases import audit_inputs as audit

    if (file is None) == (campaign is None) or (campaign is not None and folder is None):
        raise InputError(None, None, "give a server's folder and a campaign, or a campaign file")
    if campaign is None or folder is None:
        return [str(f) for f in audit(None, Targets(), None, file)]
    with opened(folder, db) as (database, _):
        return [str(f) for f in audit(database, Targets(), campaign, file)]


def set_registration(
    folder: Path,
    campaign: str,
    state: str | None = None,
    max_teams: int | None = None,
    db: str | None = None,
) -> tuple[str, int | None]:
    """Open or close a campaign's registration (``state``: open, approval or closed) or cap
    its teams (0: no cap), audited; the registration and cap after (None: none)."""
    from simeval.serve.service.editing import set_registration as set_it

    with opened(folder, db) as (database, _):
        now = set_it(database, campaign, state, max_teams)
    return now.state, now.max_teams


def export_campaign(
    folder: Path,
    campaign: str,
    to: Path,
    anonymise: bool = False,
    key: Path | None = None,
    top: int = 0,
    keep_dominated: bool = False,
    db: str | None = None,
) -> list[Path]:
    """Write a campaign's submissions, results and leaderboards into the new folder ``to``
    (:func:`simeval.serve.service.export.export`); the paths written."""
    from simeval.serve.service.export import export

    if key is not None and not anonymise:
        raise InputError(key, None, "a key goes with anonymise (it lists which alias is which)")
    with opened(folder, db) as (database, storage):
        return export(database, storage, campaign, to, anonymise, key, top, keep_dominated)


def rescore(
    folder: Path,
    campaign: str,
    apply: bool = False,
    reason: str = "re-score all",
    db: str | None = None,
) -> Any:
    """Score every stored submission of a campaign again with this simeval; with ``apply``,
    keep the new scores (the old ones stay in the scores' history; audited). What moved and
    what this simeval refuses (:class:`simeval.serve.service.rescoring.Rescore`)."""
    from simeval.serve.service.organisers import COMMAND_LINE
    from simeval.serve.service.rescoring import rescore_campaign

    with scoring_service(folder, db) as service:
        return rescore_campaign(service, campaign, utc_now(), COMMAND_LINE, apply, reason)


def replace_gold(
    folder: Path,
    campaign: str,
    benchmark: str,
    file: Path,
    dry_run: bool = False,
    db: str | None = None,
) -> Any:
    """Replace ``benchmark``'s gold in a campaign by ``file`` and score again every stored
    submission that reads it (with ``dry_run``: say what would move, keep nothing); what it
    did (:class:`simeval.serve.service.gold_replace.GoldReplaced`)."""
    from simeval.serve.service.gold_replace import replace_gold as replace
    from simeval.serve.service.gold_replace import stored_gold_name
    from simeval.serve.service.organisers import COMMAND_LINE

    if not file.is_file():
        raise InputError(file, None, "no such file")
    with scoring_service(folder, db) as service:
        name = stored_gold_name(file.name)
        return replace(service, campaign, benchmark, file, name, utc_now(), COMMAND_LINE,
                       apply=not dry_run)  # fmt: skip
