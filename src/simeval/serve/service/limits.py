"""A phase's per-day limit: at most ``per_day`` scored runs per team and target in any 24
hours (a rolling window, not a calendar day: a run counts until 24 hours after it was
received, so there is no midnight rush of two days' runs). The run limit counts the same rows
(scored, of the team, phase and target), and both are counted in one statement, inside the
transaction that inserts the run: the unique (team, phase, target, run) constraint that holds
the run limit under concurrency makes two uploads that counted the same rows compete for one
run number, so the loser counts again and sees the winner's run in its window too
(:mod:`.submit`).

A carried run (:mod:`.carry`) keeps the time its file was received, and counts in the window
of that time."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import case, func, select

from simeval.serve.db.models import SCORED, Submission, naive, utc

DAY = timedelta(days=1)


class Counted(NamedTuple):
    """A team's scored runs on a target of a phase: all of them, and when its next run is
    possible under the per-day limit (None: now)."""

    used: int
    next_at: datetime | None


def counted(
    s: Any, team_id: int, phase_id: int, target: str, per_day: int | None, at: datetime
) -> Counted:
    """Count in session ``s`` (one statement: module docstring) the runs ``at`` a moment."""
    since = naive(at - DAY)
    mine = (
        Submission.team_id == team_id,
        Submission.phase_id == phase_id,
        Submission.target == target,
        Submission.status == SCORED,
    )
    used, recent = s.execute(
        select(func.count(), func.count(case((Submission.received > since, 1)))).where(*mine)
    ).one()
    if not per_day or recent < per_day:
        return Counted(used, None)
    # the per_day-th newest run of the window leaves it 24 hours after it was received
    leaves = s.scalar(
        select(Submission.received)
        .where(*mine, Submission.received > since)
        .order_by(Submission.received.desc())
        .offset(per_day - 1)
        .limit(1)
    )
    return Counted(used, utc(leaves) + DAY)


def per_day_text(per_day: int, target: str, phase: str, next_at: datetime) -> str:
    """Why an upload is refused with 409 by the per-day limit, and when it is possible."""
    return (
        f"{per_day} run(s) a day on {target} in {phase} (any 24 hours): the next is possible "
        f"at {next_at:%Y-%m-%d %H:%M:%S} UTC"
    )
