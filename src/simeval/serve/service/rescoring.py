"""Scoring every stored submission of a campaign again, and showing what moved.

After an upgrade of simeval (or a gold file replaced) the scores on the board were computed by
another scorer than the one running now; Codabench users meet old scorers still running after
an update. ``simeval serve rescore`` (and the console's button) scores each scored upload
again, from the stored bytes, exactly as a new upload of it would be scored now, and reports
each benchmark's main score before and after. Nothing changes until it is applied:

- dry run (the default): the new scores are computed in a scratch folder and thrown away;
- applied: each submission's new records go to a new store folder beside its upload
  (``submissions/<id>/rescored/<n>/``); its old records and their store file are kept in
  ``score_history`` (the file is never overwritten), and one audit entry says how many
  submissions were scored again and how many scores moved.

A file the scorer of today refuses (it was accepted before) keeps its old scores and is
listed, never silently dropped. Every record carries the sha256 of the gold files it read
(``data``) and the simeval version that computed it (``versions``), so history says which
gold and which scorer each score came from.
"""

from __future__ import annotations

import math
import os
import shutil
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from simeval.data.atomic import private_dir
from simeval.serve.db.models import (
    SCORED,
    Phase,
    ScoreHistory,
    Submission,
    Team,
    naive,
)
from simeval.serve.db.storage import UPLOAD
from simeval.serve.service.board_table import system_of
from simeval.serve.service.campaigns import find_campaign
from simeval.serve.service.gold import Replaced, job_gold, replaced
from simeval.serve.service.organisers import audit
from simeval.serve.service.results import stored_records
from simeval.serve.service.scoring import Job

RESCORED = "rescored"  # the folder, beside a submission's upload, of its later scorings


@dataclass(frozen=True)
class Change:
    """One benchmark's main score of one submission, before and after."""

    submission: str
    phase: str
    system: str
    target: str
    benchmark: str
    metric: str
    before: float | None
    after: float | None

    @property
    def moved(self) -> bool:
        """Whether the score differs at all (both missing or both NaN is no move)."""
        a, b = self.before, self.after
        if a is None or b is None or math.isnan(a) or math.isnan(b):
            return _blank(a) != _blank(b)
        return a != b

    @property
    def delta(self) -> str:
        """`` (+1.2e-05)``: after minus before, when both are numbers; else empty."""
        if _blank(self.before) or _blank(self.after):
            return ""
        return f" ({self.after - self.before:+.2e})"  # type: ignore[operator]


def _blank(value: float | None) -> bool:
    return value is None or math.isnan(value)


@dataclass
class Rescore:
    """What a re-scoring found (and did, when ``applied``)."""

    applied: bool
    submissions: int = 0
    changes: list[Change] = field(default_factory=list)
    refused: list[tuple[str, str, str]] = field(default_factory=list)  # (system, target, why)

    @property
    def moved(self) -> list[Change]:
        """The scores that moved, by phase, system, target and benchmark."""
        moved = [c for c in self.changes if c.moved]
        return sorted(moved, key=lambda c: (c.phase, c.system, c.target, c.benchmark))


def _main_scores(records: list[dict[str, Any]]) -> dict[str, tuple[str, float | None]]:
    """``{benchmark: (main metric, its value)}`` of result records."""
    out = {}
    for r in records:
        metric = str(r.get("main_metric"))
        value = (r.get("metrics") or {}).get(metric)
        out[str(r.get("benchmark"))] = (metric, None if value is None else float(value))
    return out


def _scratch(folder: Path, upload: Path) -> None:
    """``folder`` made, holding the stored upload (a hard link where the file system allows:
    the bytes are the same file, never copied or changed)."""
    private_dir(folder.parent)
    folder.mkdir(mode=0o700)
    try:
        os.link(upload, folder / UPLOAD)
    except OSError:
        shutil.copyfile(upload, folder / UPLOAD)
        os.chmod(folder / UPLOAD, 0o600)


def rescore_campaign(
    service: Any,
    campaign: str,
    now: datetime,
    actor: str,
    apply: bool,
    reason: str,
    targets: Collection[str] | None = None,
    gold: Replaced | None = None,
    ids: Collection[str] | None = None,
) -> Rescore:
    """Score every scored submission of ``campaign`` again (module docstring); only those of
    ``targets``, or those of ``ids``, when given. Each is scored against the campaign's gold in
    use (:mod:`.gold`), or against ``gold``'s files for the benchmarks it names (a
    replacement's dry run)."""
    from simeval.results.store import RESULTS_FILE

    db, storage = service.db, service.storage
    with db.reading() as s:
        c = find_campaign(s, campaign)
        query = (
            select(Submission, Team.name, Phase)
            .join(Team, Submission.team_id == Team.id)
            .join(Phase, Submission.phase_id == Phase.id)
            .where(Phase.campaign_id == c.id, Submission.status == SCORED)
            .order_by(Submission.received, Submission.id)
        )
        if targets is not None:
            query = query.where(Submission.target.in_(list(targets)))
        if ids is not None:
            query = query.where(Submission.id.in_(list(ids)))
        rows = s.execute(query).all()
        campaign_id, registry, secret = c.id, tuple(c.registry_files), c.input_secret
        files = {**replaced(s, storage.root, campaign_id), **(gold or {})}
    reg = service.targets.registry(list(registry))
    report = Rescore(applied=apply)
    updates: list[tuple[Submission, list[dict[str, Any]], str, str | None]] = []
    stamp = f"{naive(now):%Y%m%dT%H%M%S}"
    for sub, team, phase in rows:
        system = system_of(team, sub.run or 0)
        before, _ = stored_records(storage, sub)
        folder = storage.folder(sub.id) / RESCORED / stamp
        n = 1
        while folder.exists():  # two re-scorings within one second
            n += 1
            folder = storage.folder(sub.id) / RESCORED / f"{stamp}-{n}"
        _scratch(folder, storage.file(sub.id))
        job = Job(registry, sub.target, str(folder), sub.sha256, sub.client_name,
                  phase.max_bytes, phase.hidden, job_gold(reg, sub.target, files),
                  secret)  # fmt: skip
        try:
            answer = service.scorers(job)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        report.submissions += 1
        if answer.results is None:
            report.refused.append((system, sub.target, str(answer.error)))
            shutil.rmtree(folder, ignore_errors=True)
            continue
        old, new = _main_scores(before), _main_scores(answer.results)
        for bench in [*old, *(b for b in new if b not in old)]:
            metric = (new.get(bench) or old[bench])[0]
            report.changes.append(
                Change(sub.id, phase.name, system, sub.target, bench, metric,
                       old.get(bench, (metric, None))[1], new.get(bench, (metric, None))[1])
            )  # fmt: skip
        if apply:
            relative = (folder / RESULTS_FILE).relative_to(storage.root).as_posix()
            error = str(answer.error) if answer.error else None
            updates.append((sub, answer.results, relative, error))
        else:
            shutil.rmtree(folder, ignore_errors=True)
    if apply:
        with db.session() as s:
            for sub, results, relative, error in updates:
                row = s.get(Submission, sub.id)
                s.add(ScoreHistory(submission_id=sub.id, at=naive(now), actor=actor,
                                   reason=reason, results=row.results,
                                   results_file=row.results_file, error=row.error))  # fmt: skip
                row.results, row.results_file, row.error = results, relative, error
            audit(s, now, actor, campaign_id, "re-score", reason=reason,
                  submissions=report.submissions, moved=len(report.moved),
                  refused=len(report.refused))  # fmt: skip
    return report


def history(db: Any, submission_id: str) -> list[ScoreHistory]:
    """A submission's earlier scores, oldest first."""
    with db.reading() as s:
        return list(
            s.scalars(
                select(ScoreHistory)
                .where(ScoreHistory.submission_id == submission_id)
                .order_by(ScoreHistory.at, ScoreHistory.id)
            )
        )
