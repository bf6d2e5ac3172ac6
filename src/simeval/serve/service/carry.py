"""Carrying a team's runs of one phase into the next (Codabench's
``auto_migrate_to_this_phase``, here on the organiser's request from the console).

Each scored run of phase A on a target that phase B also has becomes a new submission of B:

- its stored file is linked (or copied where the file system cannot link) under the new
  submission's own id, and scored again by B's scorer exactly as an upload of it now would be
  (:meth:`.submit.Service.record`), so its records hold B's gold and today's simeval;
- it takes B's next run number and counts against B's limits, runs and per day, as of the
  moment it is carried: a run that exceeds them is refused and said so, the others are kept;
- ``carried_from`` names the submission it came from (the team's submissions show "carried
  from A"); a run already carried into B, and a run disqualified or withdrawn in A, is not
  carried again;
- one audit entry (``carry``) lists what was carried and what was refused.

B must still take uploads: its deadline has not passed.
"""

from __future__ import annotations

import shutil
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from simeval.errors import InputError
from simeval.serve.db.models import SCORED, Exclusion, Submission, Team, utc
from simeval.serve.service.campaigns import excluded_runs, exclusion_on, find_phase
from simeval.serve.service.organisers import audit
from simeval.serve.service.rescoring import _scratch


@dataclass
class Carried:
    """What a carry did: ``"<team> run <n> <target> → run <m>"`` lines, and the refused ones
    with their reasons."""

    carried: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


class _Linked:
    """A stored upload linked into the upload area under a new id, as :meth:`record` takes
    an upload."""

    def __init__(self, folder: Path, source: Path, sha256: str, size: int) -> None:
        self.id = folder.name
        self.folder = folder
        self.sha256 = sha256
        self.size = size
        _scratch(folder, source)

    def discard(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def carry_runs(
    service: Any,
    campaign: str,
    source: str,
    dest: str,
    team: str | None,
    now: datetime,
    actor: str,
) -> Carried:
    """Carry ``team``'s (None: every team's) scored runs of phase ``source`` into ``dest``
    (module docstring)."""
    from simeval.serve.service.submit import Refused, Ticket

    db, storage = service.db, service.storage
    with db.reading() as s:
        a, b = find_phase(s, campaign, source), find_phase(s, campaign, dest)
        if a.id == b.id:
            raise InputError(None, None, f"{source}: carry runs into another phase")
        common = [t for t in a.targets if t in b.targets]
        if not common:
            raise InputError(None, None, f"{dest} has none of the targets of {source}: "
                             f"{', '.join(a.targets)}")  # fmt: skip
        if now > utc(b.deadline):
            raise InputError(None, None, f"{dest} closed at {utc(b.deadline):%Y-%m-%d %H:%M} "
                             "UTC: extend it first")  # fmt: skip
        query = (
            select(Submission, Team)
            .join(Team, Submission.team_id == Team.id)
            .where(Submission.phase_id == a.id, Submission.status == SCORED,
                   Submission.target.in_(common))
            .order_by(Team.name, Submission.run, Submission.target)
        )  # fmt: skip
        if team:
            query = query.where(Team.name == team)
        rows = s.execute(query).all()
        tickets = {(t.id, sub.target): Ticket.of(t.id, t.name, b, sub.target, b.campaign)
                   for sub, t in rows}  # fmt: skip
        if team and not rows:
            raise InputError(None, None, f"{team!r} has no scored run in {campaign}/{source}")
        done = set(s.scalars(select(Submission.carried_from).where(Submission.phase_id == b.id)))
        found = excluded_runs(s, Exclusion.phase_id == a.id)
        out = {((t, run), target): True for _, t, run, _, _, target in found}
        campaign_id = b.campaign_id
    report = Carried()
    for sub, t in rows:
        what = f"{t.name} run {sub.run} {sub.target}"
        if sub.id in done:
            report.refused.append(f"{what}: carried into {dest} already")
            continue
        if exclusion_on(out, (t.name, sub.run), sub.target):
            report.refused.append(f"{what}: disqualified or withdrawn in {source}")
            continue
        ticket = tickets[(t.id, sub.target)]
        upload = _Linked(storage.tmp / uuid.uuid4().hex, storage.file(sub.id), sub.sha256,
                         sub.size)  # fmt: skip
        try:
            recorded = service.record(ticket, upload, sub.client_name, carried_from=sub.id)
        except Refused as exc:
            report.refused.append(f"{what}: {exc.message}")
            continue
        if recorded.error is not None:
            report.refused.append(f"{what}: refused by {dest}'s scorer: {recorded.error}")
        else:
            report.carried.append(f"{what} → run {recorded.row.run}")
    with db.session() as s:
        audit(s, now, actor, campaign_id, "carry", phase=dest, source=source,
              team=team or "every team", carried=report.carried,
              refused=report.refused)  # fmt: skip
    return report
