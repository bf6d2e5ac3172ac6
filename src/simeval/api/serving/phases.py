"""A campaign's phases: published or hidden, their window and limits changed, split into a
public and a private board, and runs carried from one into another."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simeval.api.serving.server import opened, scoring_service, utc_now


def set_published(
    folder: Path, campaign: str, phase: str, shown: bool, db: str | None = None
) -> None:
    """Show a hidden phase's scores to participants (``shown``, after its deadline) or hide
    them again; audited."""
    from simeval.serve.service.editing import publish, unpublish

    with opened(folder, db) as (database, _):
        (publish if shown else unpublish)(database, campaign, phase, utc_now())


def edit_phase(
    folder: Path,
    campaign: str,
    phase: str,
    *,
    opens: str | None = None,
    deadline: str | None = None,
    close: bool = False,
    runs: int | None = None,
    max_bytes: int | None = None,
    per_day: int | None = None,
    combine: str | None = None,
    reopen_reason: str | None = None,
    db: str | None = None,
) -> dict[str, tuple[Any, Any]]:
    """Change a phase's window or limits (times as text with their zone); ``{field: (before,
    after)}`` of what changed, each change audited."""
    from simeval.serve.service.editing import PhaseEdit
    from simeval.serve.service.editing import edit_phase as edit
    from simeval.serve.service.organisers import COMMAND_LINE

    change = PhaseEdit(opens, deadline, runs, max_bytes, close, per_day, combine, reopen_reason)
    with opened(folder, db) as (database, _):
        return edit(database, campaign, phase, change, utc_now(), COMMAND_LINE)


def split_phase(
    folder: Path,
    campaign: str,
    phase: str,
    share: float | None,
    final_runs: int | None = None,
    db: str | None = None,
) -> dict[str, tuple[Any, Any]]:
    """Give a phase a public ``share`` of its pairs on the live board (None: no split) and
    ``final_runs`` per team, before it opens; ``{field: (before, after)}``, audited."""
    from simeval.serve.service.organisers import COMMAND_LINE
    from simeval.serve.service.split_setting import set_split

    with opened(folder, db) as (database, _):
        return set_split(database, campaign, phase, share, final_runs, utc_now(), COMMAND_LINE)


def carry_runs(
    folder: Path,
    campaign: str,
    source: str,
    phase: str,
    team: str | None = None,
    db: str | None = None,
) -> Any:
    """Carry the scored runs of phase ``source`` into ``phase`` (``team``'s only, when
    given), each scored again; what was carried and what was not, with why
    (:class:`simeval.serve.service.carry.Carried`)."""
    from simeval.serve.service.carry import carry_runs as carry
    from simeval.serve.service.organisers import COMMAND_LINE

    with scoring_service(folder, db) as service:
        return carry(service, campaign, source, phase, team, utc_now(), COMMAND_LINE)
