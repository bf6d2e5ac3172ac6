"""Replacing the gold of one benchmark of a campaign (the console's Gold form, ``simeval serve
gold``), and scoring every stored submission that reads it again.

The new file is checked before anything is kept: it must read as the benchmark's gold (its
own reader, with the entry's options) and ask for exactly the pairs the gold in use asks for
(participants were given those; another set would break every run), and it must differ from
the gold in use. Then it is stored (:mod:`.gold`), recorded with an audit entry
(``gold-replace``: the old and new sha256), and every scored submission of the targets holding
the benchmark is scored again and applied (:func:`.rescoring.rescore_campaign`: the old scores
go to the history). A dry run scores them against the new file without keeping anything.

In a hidden phase nothing is shown to teams: only the stored records change, as a re-scoring
after an upgrade changes them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from simeval.data.atomic import private_dir, write_atomic
from simeval.data.textio import sha256_file
from simeval.errors import InputError
from simeval.serve.db.models import SCORED, GoldFile, Phase, Submission, naive
from simeval.serve.service.campaigns import find_campaign
from simeval.serve.service.gold import (
    GOLD_FOLDER,
    campaign_targets,
    job_gold,
    members,
    replaced,
)
from simeval.serve.service.organisers import audit
from simeval.serve.service.rescoring import Rescore, rescore_campaign

MAX_GOLD = 64 * 1024 * 1024  # bytes of a gold file (RUSSE's largest, rt.csv, has 4.1 MB)
SHOWN_PAIRS = 3  # pairs named when the new gold's pairs differ


@dataclass
class GoldReplaced:
    """What a replacement did (or, ``rescore.applied`` false, would do)."""

    benchmark: str
    targets: list[str]
    before: str  # sha256 of the gold in use
    after: str  # sha256 of the new file
    rescore: Rescore


def replace_gold(
    service: Any,
    campaign: str,
    benchmark: str,
    path: Path,
    name: str,
    now: datetime,
    actor: str,
    apply: bool = True,
) -> GoldReplaced:
    """Replace the gold of ``benchmark`` in ``campaign`` by the file at ``path`` (the client
    called it ``name``) and score again what reads it (module docstring)."""
    with service.db.reading() as s:
        c = find_campaign(s, campaign)
        campaign_id, registry = c.id, list(c.registry_files)
        targets = campaign_targets(s, campaign_id)
        files = replaced(s, service.storage.root, campaign_id)
    reg = service.targets.registry(registry)
    holding = [t for t in targets if benchmark in members(reg, t)]
    if not holding:
        raise InputError(
            None,
            None,
            f"{benchmark} is not scored in campaign {campaign}; "
            f"replaceable: {_replaceable(reg, targets)}",
        )
    try:
        gold_path = reg.gold_path(benchmark)
    except InputError as exc:
        raise InputError(
            None, None, f"{exc.message}; replaceable: {_replaceable(reg, targets)}"
        ) from None
    size = path.stat().st_size
    if size > MAX_GOLD:
        raise InputError(name, None, f"{size:,} bytes: a gold file may have {MAX_GOLD:,}")
    after = sha256_file(path)
    target = holding[0]
    old = _benchmark(service.targets.get(registry, target, job_gold(reg, target, files)), benchmark)
    before = old.data[gold_path]
    if after == before:
        raise InputError(
            name,
            None,
            f"nothing to replace: this is the gold of {benchmark} in use (sha256 {after[:12]}…)",
        )
    trial = {**files, benchmark: (str(path), after)}
    try:
        new = _benchmark(
            _load(reg.with_gold({b: (Path(p), h) for b, (p, h) in trial.items()}), target),
            benchmark,
        )
    except InputError as exc:
        raise InputError(
            name, exc.line, f"not a gold of {benchmark}: {exc.message.replace(str(path), name)}"
        ) from None
    _same_pairs(old, new, benchmark, name)
    reason = f"gold of {benchmark} replaced (sha256 {after[:12]}…)"
    if not apply:
        done = rescore_campaign(service, campaign, now, actor, False, reason, holding, trial)
        return GoldReplaced(benchmark, holding, before, after, done)
    stored = Path(GOLD_FOLDER) / str(campaign_id) / after
    where = service.storage.root / stored
    private_dir(where.parent)
    write_atomic(where, path.read_bytes(), mode=0o600)
    with service.db.session() as s:
        s.add(
            GoldFile(
                campaign_id=campaign_id,
                benchmark=benchmark,
                file=stored.as_posix(),
                sha256=after,
                size=size,
                client_name=name[:128],
                at=naive(now),
                actor=actor,
            )
        )
        audit(
            s,
            now,
            actor,
            campaign_id,
            "gold-replace",
            benchmark=benchmark,
            file=name,
            before=before,
            after=after,
        )
    done = rescore_campaign(service, campaign, now, actor, True, reason, holding)
    late = rescore_late(service, campaign, benchmark, gold_path, after, now, actor, reason)
    if late is not None:
        done.submissions += late.submissions
        done.changes += late.changes
        done.refused += late.refused
    return GoldReplaced(benchmark, holding, before, after, done)


def rescore_late(
    service: Any,
    campaign: str,
    benchmark: str,
    gold_path: str,
    sha256: str,
    now: datetime,
    actor: str,
    reason: str,
) -> Rescore | None:
    """Score again, against the gold in use, each run whose record of ``benchmark`` names
    another gold than ``sha256``: an upload scored while the gold was being replaced (it read
    the old gold, and its row came after the re-scoring had chosen its runs). None when there
    is none."""
    with service.db.reading() as s:
        c = find_campaign(s, campaign)
        rows = s.execute(
            select(Submission.id, Submission.results)
            .join(Phase, Submission.phase_id == Phase.id)
            .where(Phase.campaign_id == c.id, Submission.status == SCORED)
        ).all()
    late = [
        sid
        for sid, records in rows
        for r in records or []
        if r.get("benchmark") == benchmark
        and (r.get("data") or {}).get(gold_path, sha256) != sha256
    ]
    if not late:
        return None
    return rescore_campaign(service, campaign, now, actor, True, reason, ids=late)


def _load(reg: Any, target: str) -> Any:
    from simeval.datasets.loading import load

    return load(reg, target)


def _benchmark(target: Any, name: str) -> Any:
    """Benchmark ``name`` of a loaded target (itself, or one of its members)."""
    return next(b for b in (getattr(target, "members", None) or [target]) if b.name == name)


def _pairs(benchmark: Any) -> list[Any]:
    """The pairs the benchmark asks for when scoring (those its gold scores)."""
    return [tuple(p) for r in benchmark.requests(scored_only=True) for p in r.pairs]


def _same_pairs(old: Any, new: Any, benchmark: str, name: str) -> None:
    """Refuse a new gold that asks for other pairs than the gold in use, naming the first
    pairs that differ."""
    before, after = _pairs(old), _pairs(new)
    known, found = set(before), set(after)
    if known == found:
        return
    gone = [p for p in before if p not in found][:SHOWN_PAIRS]
    extra = list(dict.fromkeys(p for p in after if p not in known))[:SHOWN_PAIRS]
    parts = []
    if gone:
        parts.append(f"{len(known - found):,} pair(s) of the gold in use missing: {_shown(gone)}")
    if extra:
        parts.append(f"{len(found - known):,} pair(s) not in it: {_shown(extra)}")
    raise InputError(
        name,
        None,
        f"the new gold of {benchmark} has other pairs than the gold in "
        f"use ({'; '.join(parts)}); a gold must keep the pairs "
        "participants were given",
    )


def _shown(pairs: list[Any]) -> str:
    return ", ".join(f"({a} | {b})" for a, b in pairs)


def _replaceable(reg: Any, targets: list[str]) -> str:
    """The benchmarks of ``targets`` whose gold can be replaced, or "none"."""
    names = []
    for t in targets:
        for b in members(reg, t):
            try:
                reg.gold_path(b)
            except InputError:
                continue
            names.append(b)
    return ", ".join(dict.fromkeys(names)) or "none"


def stored_gold_name(name: str | None) -> str:
    """The client's name of a gold file, for the log and the console: its last part only."""
    return os.path.basename((name or "").replace("\\", "/")) or "gold"
