"""What the organiser's console shows: every campaign with its registration, teams and
submissions counted, and each phase's window, limits, state and uploads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select

from simeval.serve.db import Database
from simeval.serve.db.models import SCORED, Campaign, Phase, Submission, Team, utc


@dataclass(frozen=True)
class PhaseSummary:
    name: str
    targets: list[str]
    opens: datetime
    deadline: datetime
    runs: int
    max_bytes: int
    hidden: bool
    published: datetime | None
    scored: int  # scored runs
    rejected: int  # refused uploads

    def state(self, now: datetime) -> str:
        """``not open yet``, ``open`` or ``closed`` (and ``published`` for a hidden phase)."""
        if now < self.opens:
            return "not open yet"
        if now <= self.deadline:
            return "open"
        if self.hidden:
            return "closed, published" if self.published else "closed, scores hidden"
        return "closed"


@dataclass(frozen=True)
class CampaignSummary:
    id: int
    name: str
    title: str
    registration: str
    max_teams: int | None
    teams: int
    phases: list[PhaseSummary]


def _phase(p: Phase, counts: dict[tuple[int, str], int]) -> PhaseSummary:
    scored = counts.get((p.id, SCORED), 0)
    rejected = sum(n for (pid, status), n in counts.items() if pid == p.id and status != SCORED)
    return PhaseSummary(p.name, list(p.targets), utc(p.opens), utc(p.deadline), p.runs,
                        p.max_bytes, p.hidden, utc(p.published) if p.published else None,
                        scored, rejected)  # fmt: skip


def overview(db: Database, campaign: str | None = None) -> list[CampaignSummary]:
    """Every campaign (or the one named ``campaign``) summarised, its phases by opening."""
    with db.reading() as s:
        query = select(Campaign).order_by(Campaign.id)
        if campaign is not None:
            query = query.where(Campaign.name == campaign)
        campaigns = list(s.scalars(query))
        teams = dict(
            s.execute(select(Team.campaign_id, func.count()).group_by(Team.campaign_id)).all()
        )
        counts = {
            (pid, status): n
            for pid, status, n in s.execute(
                select(Submission.phase_id, Submission.status, func.count()).group_by(
                    Submission.phase_id, Submission.status
                )
            )
        }
        return [
            CampaignSummary(
                c.id,
                c.name,
                c.title,
                c.registration,
                c.max_teams,
                teams.get(c.id, 0),
                [_phase(p, counts) for p in c.phases],
            )
            for c in campaigns
        ]
