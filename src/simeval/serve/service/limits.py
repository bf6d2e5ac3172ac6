"""A phase's per-day limit: at most ``per_day`` scored runs per team and target in any 24
hours (a rolling window, not a calendar day: a run counts until 24 hours after it was
received, so there is no midnight rush of two days' runs). The run limit counts the same rows
(scored, of the team, phase and target), and both are counted inside the transaction that
inserts the run, the runs used first: the unique (team, phase, target, run) constraint that
holds the run limit under concurrency makes two uploads that counted the same runs compete for
one run number, so the loser counts again and sees the winner's run in its window too; and a
run committed between the two counts is counted in the window (stricter, never looser)
(:mod:`.submit`).

A carried run (:mod:`.carry`) is received when it is carried: it counts in the window from
then, as an upload at that moment would."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select

from simeval.serve.db.models import SCORED, Submission, naive, utc

DAY = timedelta(days=1)


def next_run_at(
    s: Any, team_id: int, phase_id: int, target: str, per_day: int, at: datetime
) -> datetime | None:
    """When the team's next run on ``target`` is possible under the per-day limit, counted in
    session ``s`` at the moment ``at`` (None: now). Count it after the runs used, in the same
    transaction (module docstring)."""
    since = naive(at - DAY)
    recent = (
        Submission.team_id == team_id,
        Submission.phase_id == phase_id,
        Submission.target == target,
        Submission.status == SCORED,
        Submission.received > since,
    )
    # the per_day-th newest run of the window leaves it 24 hours after it was received
    leaves = s.scalar(
        select(Submission.received)
        .where(*recent)
        .order_by(Submission.received.desc())
        .offset(per_day - 1)
        .limit(1)
    )
    return None if leaves is None else utc(leaves) + DAY


def per_day_text(per_day: int, target: str, phase: str, next_at: datetime) -> str:
    """Why an upload is refused with 409 by the per-day limit, and when it is possible."""
    return (
        f"{per_day} run(s) a day on {target} in {phase} (any 24 hours): the next is possible "
        f"at {next_at:%Y-%m-%d %H:%M:%S} UTC"
    )
