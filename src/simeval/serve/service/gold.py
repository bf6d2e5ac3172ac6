"""Which gold a campaign scores with: each benchmark's own file, or the newest one an organiser
uploaded in its place (``gold_file`` rows; :mod:`.gold_replace` adds them).

A replaced gold is kept in the storage folder as ``gold/<campaign id>/<sha256>`` (mode 0600,
never under the name the organiser's file had) and read through the registry's gold override
(:meth:`simeval.registry.Registry.with_gold`): the benchmark keeps its name, kind, reader
options and every other file, and its records' ``data`` give the new file's sha256 under the
entry's own gold path. A scoring job carries the overrides of its target as paths and hashes
(:data:`~.campaigns.Gold`), so a scoring process loads the same gold as the server.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from simeval.serve.db.models import GoldFile, Phase
from simeval.serve.service.campaigns import Gold

GOLD_FOLDER = "gold"  # in the storage folder: gold/<campaign id>/<sha256>

Replaced = dict[str, tuple[str, str]]  # benchmark -> (stored file, sha256)


def gold_rows(s: Any, campaign_id: int) -> dict[str, GoldFile]:
    """The active ``gold_file`` row of each benchmark whose gold was replaced in the campaign
    (the newest of its rows)."""
    rows = s.scalars(
        select(GoldFile)
        .where(GoldFile.campaign_id == campaign_id)
        .order_by(GoldFile.at, GoldFile.id)
    )
    return {row.benchmark: row for row in rows}


def replaced(s: Any, root: Path, campaign_id: int | None = None, phase_id: int = 0) -> Replaced:
    """Each replaced benchmark's active gold file (absolute) and sha256, in the campaign of
    ``campaign_id`` or of the phase ``phase_id``."""
    query = select(GoldFile).order_by(GoldFile.at, GoldFile.id)
    if campaign_id is None:
        of_phase = select(Phase.campaign_id).where(Phase.id == phase_id).scalar_subquery()
        query = query.where(GoldFile.campaign_id == of_phase)
    else:
        query = query.where(GoldFile.campaign_id == campaign_id)
    return {row.benchmark: (str(root / row.file), row.sha256) for row in s.scalars(query)}


def members(registry: Any, target: str) -> list[str]:
    """The benchmarks target ``target`` scores: a suite's members, or itself."""
    suite = registry.suites.get(target)
    return list(suite.members) if suite is not None else [target]


def job_gold(registry: Any, target: str, files: Replaced) -> Gold:
    """The overrides of ``files`` that target ``target`` reads, as a scoring job carries
    them."""
    return tuple(sorted((b, *files[b]) for b in members(registry, target) if b in files))


@dataclass(frozen=True)
class GoldState:
    """One benchmark of a campaign's targets as the console's Gold section lists it."""

    target: str
    benchmark: str
    sha256: str | None  # of the gold in use (None: the benchmark reads no gold file)
    source: str  # "catalog", "registry file" or who replaced it, when and from which file
    replaceable: str | None  # None when it can be replaced, else why not


def gold_states(service: Any, campaign_id: int) -> list[GoldState]:
    """Every benchmark of the campaign's targets, with the gold it is scored against."""
    from simeval.errors import InputError
    from simeval.serve.db.models import Campaign

    with service.db.reading() as s:
        c = s.get_one(Campaign, campaign_id)
        registry = list(c.registry_files)
        targets = campaign_targets(s, campaign_id)
        rows = gold_rows(s, campaign_id)
        files = replaced(s, service.storage.root, campaign_id)
    reg = service.targets.registry(registry)
    out = []
    for t in targets:
        try:
            loaded = service.targets.get(registry, t, job_gold(reg, t, files))
        except InputError:  # a target that no longer loads: listed, never replaceable
            loaded = None
        found = {b.name: b for b in (getattr(loaded, "members", None) or [loaded]) if b}
        for name in members(reg, t):
            try:
                path, why = reg.gold_path(name), None
            except InputError as exc:
                path, why = None, exc.message
            b = found.get(name)
            sha = None if path is None or b is None else b.data.get(path)
            row = rows.get(name)
            if row is not None:
                source = f"replaced by {row.actor} at {_when(row.at)} ({row.client_name})"
            else:
                source = "registry file" if name in reg.user else "catalog"
            out.append(GoldState(t, name, sha, source, why))
    return out


def campaign_targets(s: Any, campaign_id: int) -> list[str]:
    """The targets of the campaign's phases, each once, in phase order."""
    phases = s.scalars(select(Phase).where(Phase.campaign_id == campaign_id).order_by(Phase.id))
    return list(dict.fromkeys(t for p in phases for t in p.targets))


def _when(moment: datetime) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC"
