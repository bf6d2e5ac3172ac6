"""Teams and their runs: the organiser's side (a new token, a run excluded or ranked again)
and the participant's, over HTTP (register, submit, pick the final runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from simeval.api.serving.server import opened, utc_now


def rotate_token(folder: Path, campaign: str, team: str, db: str | None = None) -> str:
    """A new token for ``team`` (its old one stops working at once, in a running server
    too); audited without the token."""
    from simeval.serve.service.editing import rotate_token as rotate

    with opened(folder, db) as (database, _):
        return rotate(database, campaign, team)


def exclude_run(
    folder: Path,
    campaign: str,
    phase: str,
    team: str,
    run: int,
    reason: str,
    withdrawn: bool = False,
    db: str | None = None,
    target: str | None = None,
) -> str:
    """Disqualify a team's run, or mark it ``withdrawn``, with ``reason`` (audited), on every
    target of the phase or on ``target`` only (the run keeps its other targets' cells); which
    of the two it now is."""
    from simeval.serve.db.models import DISQUALIFIED, WITHDRAWN
    from simeval.serve.service.editing import exclude_run as exclude

    kind = WITHDRAWN if withdrawn else DISQUALIFIED
    with opened(folder, db) as (database, _):
        exclude(database, campaign, phase, team, run, kind, reason, utc_now(), target=target)
    return kind


def reinstate_run(
    folder: Path,
    campaign: str,
    phase: str,
    team: str,
    run: int,
    db: str | None = None,
    target: str | None = None,
) -> None:
    """Rank a disqualified or withdrawn run again, on every target or on ``target`` (the
    exclusion of that target; audited)."""
    from simeval.serve.service.editing import reinstate_run as reinstate

    with opened(folder, db) as (database, _):
        reinstate(database, campaign, phase, team, run, utc_now(), target=target)


def register_team(
    server: str, campaign: str, team: str, accept_terms: bool = False
) -> dict[str, Any]:
    """Register ``team`` in ``campaign`` at ``server`` (http://host:port); the server's
    answer: ``token`` (shown once) and ``status`` (``pending`` while it awaits approval)."""
    from simeval.serve.client import registration

    return registration(server, campaign, team, accept_terms)


def send_submission(
    server: str, file: Path, token: str, phase: str, target: str | None = None
) -> tuple[int, dict[str, Any]]:
    """Upload ``file`` to ``phase`` (and ``target``, if the phase has several); the HTTP
    status and the server's answer as it is (:func:`check_answer` reads it)."""
    from simeval.serve.client import send_file

    return send_file(server, file, token, phase, target)


def check_answer(status: int, answer: dict[str, Any], file: Path) -> dict[str, Any]:
    """``answer`` if the upload of ``file`` was accepted; else the error the task found in
    the file, with its file and line, or the server's refusal, raised."""
    from simeval.serve.client import accepted

    return accepted(status, answer, file)


def final_runs(
    server: str, token: str, phase: str, runs: list[int] | None = None
) -> dict[str, Any]:
    """Show (``runs`` None) or pick (an empty list: drop the pick) the team's final runs in
    a phase with a private leaderboard; the server's answer: ``final``, ``picked``,
    ``limit``."""
    from simeval.serve.client import final_runs as finals

    return finals(server, token, phase, runs)
