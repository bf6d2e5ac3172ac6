"""What the organiser's console shows: every campaign with its registration, teams and
submissions counted, and each phase's window, limits, state and uploads."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from simeval.serve.db import Database
from simeval.serve.db.models import SCORED, Campaign, Phase, Submission, Team, utc
from simeval.serve.service.campaigns import PhaseSpec, excluded_runs, exclusion_on, phase_spec
from simeval.serve.service.split_rule import is_split


@dataclass(frozen=True)
class PhaseSummary:
    """A phase as the console shows it: its declared fields (``spec``, read as the summary's
    own: ``p.name``, ``p.runs``, every field of :class:`.campaigns.PhaseSpec`) and its state."""

    spec: PhaseSpec
    published: datetime | None
    scored: int  # scored runs
    rejected: int  # refused uploads
    # {("<team> run <n>", target): (kind, reason)}, target None: excluded on every target
    excluded: dict[tuple[str, str | None], tuple[str, str]]
    # a split phase's (public share, secret seed, final runs per team): :mod:`.split_rule`
    split: tuple[float, str, int] | None = None
    # the scored runs an organiser may exclude: ("<team> run <n>", ...) by team and run
    systems: tuple[str, ...] = ()

    def __getattr__(self, name: str) -> Any:  # only for names the summary itself lacks
        if name == "spec":  # not set yet (a copy being made): no field to look in
            raise AttributeError(name)
        return getattr(self.spec, name)

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
    description: str = ""
    terms: str = ""


def _phase(
    p: Phase,
    counts: dict[tuple[int, str], int],
    out: dict[int, dict[tuple[str, str | None], tuple[str, str]]],
    systems: dict[int, list[str]],
) -> PhaseSummary:
    scored = counts.get((p.id, SCORED), 0)
    rejected = sum(n for (pid, status), n in counts.items() if pid == p.id and status != SCORED)
    split = (p.public_share, p.split_seed, p.final_runs) if is_split(p) else None
    published = utc(p.published) if p.published else None
    return PhaseSummary(phase_spec(p), published, scored, rejected, out.get(p.id, {}), split,
                        tuple(systems.get(p.id, ())))  # fmt: skip


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
        systems: dict[int, list[str]] = {}
        scored = (
            select(Submission.phase_id, Team.name, Submission.run)
            .join(Team, Submission.team_id == Team.id)
            .where(Submission.status == SCORED, Submission.run.is_not(None))
            .distinct()
            .order_by(Team.name, Submission.run)
        )
        for pid, team, run in s.execute(scored):
            systems.setdefault(pid, []).append(f"{team} run {run}")
        out: dict[int, dict[tuple[str, str | None], tuple[str, str]]] = {}
        for pid, team, run, kind, reason, target in excluded_runs(s):
            out.setdefault(pid, {})[(f"{team} run {run}", target)] = (kind, reason)
        return [
            CampaignSummary(
                c.id,
                c.name,
                c.title,
                c.registration,
                c.max_teams,
                teams.get(c.id, 0),
                [_phase(p, counts, out, systems) for p in c.phases],
                c.description,
                c.terms,
            )
            for c in campaigns
        ]


@dataclass(frozen=True)
class SubmissionRow:
    id: str
    received: datetime
    team: str
    phase: str
    target: str
    run: int | None
    status: str
    file: str
    scores: str  # "benchmark metric value" per result, or the refusal
    excluded: str  # "disqualified: reason" (of its run, or of its target's file), or empty


FILTERS = ("phase", "team", "target", "status")


def submissions(
    db: Database, campaign: str, filters: dict[str, str], limit: int = 500
) -> tuple[list[SubmissionRow], int]:
    """A campaign's uploads, newest first, narrowed by ``filters`` (``phase``, ``team``,
    ``target``, ``status``: exact values); at most ``limit`` rows, and how many matched."""
    from simeval.report.format import number

    query = (
        select(Submission, Team.name, Phase.name)
        .join(Team, Submission.team_id == Team.id)
        .join(Phase, Submission.phase_id == Phase.id)
        .join(Campaign, Phase.campaign_id == Campaign.id)
        .where(Campaign.name == campaign)
    )
    columns = {"phase": Phase.name, "team": Team.name, "target": Submission.target,
               "status": Submission.status}  # fmt: skip
    for key, value in filters.items():
        if value and key in columns:
            query = query.where(columns[key] == value)
    with db.reading() as s:
        total = s.scalar(select(func.count()).select_from(query.subquery()))
        found = s.execute(
            query.order_by(Submission.received.desc(), Submission.id.desc()).limit(limit)
        ).all()
        out = {
            ((pid, f"{team} run {run}"), target): f"{kind}: {reason}"
            for pid, team, run, kind, reason, target in excluded_runs(s)
        }
    rows = []
    for sub, team, phase in found:
        if sub.status == SCORED:
            scores = "; ".join(
                f"{r.get('benchmark')} {r.get('main_metric')} "
                f"{number(r.get('metrics', {}).get(r.get('main_metric')))}"
                for r in sub.results or []
            )
        else:
            scores = sub.error or ""
        mark = exclusion_on(out, (sub.phase_id, f"{team} run {sub.run}"), sub.target) or ""
        rows.append(SubmissionRow(sub.id, utc(sub.received), team, phase, sub.target, sub.run,
                                  sub.status, sub.client_name, scores, mark))  # fmt: skip
    return rows, total


@dataclass(frozen=True)
class TeamRow:
    name: str
    status: str
    registered: datetime
    terms_accepted: datetime | None
    scored: int
    baseline: bool = False


def teams(db: Database, campaign_id: int) -> list[TeamRow]:
    """A campaign's teams by registration, with their scored uploads counted."""
    with db.reading() as s:
        counts = dict(
            s.execute(
                select(Submission.team_id, func.count())
                .where(Submission.status == SCORED)
                .group_by(Submission.team_id)
            ).all()
        )
        rows = s.scalars(
            select(Team).where(Team.campaign_id == campaign_id).order_by(Team.created, Team.id)
        ).all()
        return [
            TeamRow(t.name, t.status, utc(t.created),
                    utc(t.terms_accepted) if t.terms_accepted else None, counts.get(t.id, 0),
                    t.baseline)
            for t in rows
        ]  # fmt: skip
