"""Final runs: in a split phase (:mod:`.split_rule`) each team picks up to ``final_runs`` of its
runs before the deadline; the private board ranks those alone. A team that picks none has
its last ``final_runs`` scored runs (the highest run numbers). A pick replaces the team's
earlier one; an empty pick goes back to the default. Picks are refused after the deadline.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, select

from simeval.serve.db import Database
from simeval.serve.db.models import SCORED, FinalPick, Phase, Submission, Team, naive, utc
from simeval.serve.service.refused import Refused
from simeval.serve.service.split_rule import is_split


def scored_runs(s: object, team_id: int, phase_id: int) -> list[int]:
    """The team's scored run numbers in the phase, ascending."""
    runs = s.scalars(  # type: ignore[attr-defined]
        select(Submission.run)
        .where(
            Submission.team_id == team_id,
            Submission.phase_id == phase_id,
            Submission.status == SCORED,
        )
        .distinct()
    )
    return sorted(r for r in runs if r is not None)


def _finals(picked: list[int], runs: list[int], n: int) -> list[int]:
    """The picked runs, or the last ``n`` scored runs when none were picked."""
    return sorted(picked) if picked else runs[-n:]


def final_runs(db: Database, team_id: int, phase: Phase) -> tuple[list[int], list[int], bool]:
    """``(final runs, scored runs, picked)`` of a team in ``phase``: ``picked`` is False when
    the finals are the default (its last ``final_runs``)."""
    with db.reading() as s:
        runs = scored_runs(s, team_id, phase.id)
        picked = list(
            s.scalars(
                select(FinalPick.run).where(
                    FinalPick.phase_id == phase.id, FinalPick.team_id == team_id
                )
            )
        )
    return _finals(picked, runs, phase.final_runs), runs, bool(picked)


def phase_finals(db: Database, phase: Phase) -> set[tuple[str, int]]:
    """``(team, run)`` of every team's final runs in ``phase``."""
    with db.reading() as s:
        scored = s.execute(
            select(Team.name, Submission.run)
            .join(Team, Submission.team_id == Team.id)
            .where(Submission.phase_id == phase.id, Submission.status == SCORED)
            .distinct()
        ).all()
        picks = s.execute(
            select(Team.name, FinalPick.run)
            .join(Team, FinalPick.team_id == Team.id)
            .where(FinalPick.phase_id == phase.id)
        ).all()
    runs: dict[str, list[int]] = {}
    for team, run in scored:
        runs.setdefault(team, []).append(run)
    picked: dict[str, list[int]] = {}
    for team, run in picks:
        picked.setdefault(team, []).append(run)
    return {
        (team, run)
        for team, found in runs.items()
        for run in _finals(picked.get(team, []), sorted(found), phase.final_runs)
    }


def pick_final(
    db: Database, team: Team, phase: Phase, runs: Sequence[int], now: datetime
) -> list[int]:
    """Record ``runs`` as the team's final runs of ``phase`` (module docstring); the final
    runs after it."""
    if not is_split(phase):
        raise Refused(422, f"{phase.name} has no private leaderboard: there are no final runs")
    if now > utc(phase.deadline):
        raise Refused(
            403, f"final runs of {phase.name} closed at {utc(phase.deadline):%Y-%m-%d %H:%M} UTC"
        )
    wanted = sorted(set(runs))
    if len(wanted) > phase.final_runs:
        raise Refused(422, f"pick at most {phase.final_runs} final run(s) in {phase.name}")
    with db.session() as s:
        scored = scored_runs(s, team.id, phase.id)
        unknown = [r for r in wanted if r not in scored]
        if unknown:
            shown = ", ".join(map(str, unknown))
            raise Refused(422, f"no scored run {shown} of your team in {phase.name}")
        mine = (FinalPick.phase_id == phase.id, FinalPick.team_id == team.id)
        s.execute(delete(FinalPick).where(*mine))
        for run in wanted:
            s.add(FinalPick(phase_id=phase.id, team_id=team.id, run=run, at=naive(now)))
    return final_runs(db, team.id, phase)[0]
