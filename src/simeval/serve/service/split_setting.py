"""Setting a phase's public/private split after ``serve campaign`` made it
(``simeval serve split``): its public share, a fresh secret seed drawn with it, and the final
runs a team picks (:mod:`.split_rule`). Only before the phase opens: once teams have seen public
scores, another split would change what their scores meant. A phase given a split is checked
as a campaign file's split phase is (:func:`.campaigns.check_against_server`: no benchmark or
item of it in a phase that shows its scores). Each change is audited (the seed is never
written to the log)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from simeval.errors import InputError
from simeval.serve.db import Database
from simeval.serve.db.models import utc
from simeval.serve.service.campaigns import (
    Targets,
    check_against_server,
    check_share,
    check_whole,
    find_phase,
    phase_spec,
)
from simeval.serve.service.organisers import audit
from simeval.serve.service.split_rule import new_seed


def set_split(
    db: Database,
    campaign: str,
    phase: str,
    share: float | None,
    final_runs: int | None,
    now: datetime,
    actor: str,
    targets: Targets | None = None,
) -> dict[str, tuple[Any, Any]]:
    """Give ``phase`` the public ``share`` (None: no split) with a new seed, and
    ``final_runs`` when given; ``{field: (before, after)}`` of what changed. ``targets``:
    the server's loaded benchmarks (loaded here when not given)."""
    where = f"{campaign}/{phase}"
    share = check_share(share, f"{where} public_share", None)
    if final_runs is not None:
        final_runs = check_whole(final_runs, f"{where} final_runs", None)
    if share is not None:
        _check_split(db, targets or Targets(), campaign, phase, share)
    with db.session() as s:
        p = find_phase(s, campaign, phase)
        if utc(p.opens) <= now:
            raise InputError(
                None, None, f"{where} opened at {utc(p.opens):%Y-%m-%d %H:%M} UTC: its split stays"
            )
        changed: dict[str, tuple[Any, Any]] = {}
        if share != p.public_share:
            changed["public_share"] = (p.public_share, share)
            p.public_share = share
            p.split_seed = None if share is None else new_seed()
        if final_runs is not None and final_runs != p.final_runs:
            changed["final_runs"] = (p.final_runs, final_runs)
            p.final_runs = final_runs
        if changed:
            audit(s, now, actor, p.campaign_id, "split phase", phase=p.name,
                  changes={k: list(v) for k, v in changed.items()})  # fmt: skip
    return changed


def _check_split(db: Database, targets: Targets, campaign: str, phase: str, share: float) -> None:
    """Refuse a split of ``phase`` whose items a phase that shows its scores has (module
    docstring), checking it against every other phase as it would be once split."""
    with db.reading() as s:
        p = find_phase(s, campaign, phase)
        registry = list(p.campaign.registry_files)
        spec = phase_spec(p)
        pid = p.id
    check_against_server(db, targets, campaign, registry, [replace(spec, public_share=share)],
                         None, skip={pid})  # fmt: skip
