"""Adding a phase to a campaign after it was made (the organiser's console), checked as the
campaign file's phases are (:func:`.campaigns.read_phase`: name, times, limits, policy;
:func:`.campaigns.check_targets`: each target loads and a file answers it;
:func:`.campaigns.check_against_server`: no benchmark or item both in a visible and a hidden
phase, of this campaign or any other) and refused when its name is taken in the campaign
(ignoring case, as in the file), and by the leak audit (:mod:`.leaks`: its findings refuse
the phase unless the organiser gives a reason to go on, audited as ``leak-override``).
Audited as ``phase-add`` with every value."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from simeval.errors import InputError
from simeval.serve.db import Database
from simeval.serve.db.models import Phase
from simeval.serve.service.campaigns import (
    PhaseSpec,
    Targets,
    check_against_server,
    check_findings,
    check_targets,
    find_campaign,
    phase_row,
    read_phase,
    record_override,
)
from simeval.serve.service.leaks import Finding, audit_phase
from simeval.serve.service.organisers import audit


def known_targets(targets: Targets, registry: list[str]) -> list[str]:
    """The names a phase of a campaign with these registry files may score: its registry's
    benchmarks and one-file suites (a group of them is named by its parts)."""
    reg = targets.registry(registry)
    return sorted(n for n in reg.names if reg.expand(n) == [n])


def campaign_targets(db: Database, targets: Targets, campaign: str) -> list[str]:
    """:func:`known_targets` of the campaign named ``campaign``."""
    with db.reading() as s:
        registry = list(find_campaign(s, campaign).registry_files)
    return known_targets(targets, registry)


def _name_taken(s: Any, campaign_id: int, name: str) -> str | None:
    return s.scalar(
        select(Phase.name).where(
            Phase.campaign_id == campaign_id, func.lower(Phase.name) == name.lower()
        )
    )


def add_phase(
    db: Database,
    targets: Targets,
    campaign: str,
    spec: dict[str, Any],
    now: datetime,
    actor: str,
    allow_leaks: str | None = None,
) -> PhaseSpec:
    """Add the phase ``spec`` (the keys of a campaign file's ``[[phase]]``) to ``campaign``
    (module docstring); the phase as checked."""
    where = f"{campaign}: new phase"
    phase = read_phase(spec, where, None)
    with db.reading() as s:
        c = find_campaign(s, campaign)
        taken = _name_taken(s, c.id, phase.name)
        registry, secret = list(c.registry_files), c.input_secret
    if taken is not None:
        raise InputError(None, None, f"{where}: {campaign} has a phase named {taken} already")
    check_targets(targets, registry, phase, None)
    check_against_server(db, targets, campaign, registry, [phase], None)
    loaded = [targets.get(registry, t) for t in phase.targets]
    findings = audit_phase(phase.name, loaded, secret)
    check_findings(findings, allow_leaks, None)
    with db.session() as s:
        c = find_campaign(s, campaign)
        taken = _name_taken(s, c.id, phase.name)  # again: another organiser may be quicker
        if taken is not None:
            raise InputError(None, None, f"{where}: {campaign} has a phase named {taken} already")
        s.add(phase_row(phase, campaign_id=c.id))
        audit(s, now, actor, c.id, "phase-add", phase=phase.name,
              targets=", ".join(phase.targets),
              opens=f"{phase.opens:%Y-%m-%dT%H:%M:%SZ}",
              deadline=f"{phase.deadline:%Y-%m-%dT%H:%M:%SZ}", runs=phase.runs,
              per_day=phase.per_day, max_bytes=phase.max_bytes, hidden=phase.hidden,
              combine=phase.combine)  # fmt: skip
        if findings:
            record_override(s, now, actor, c.id, findings, str(allow_leaks))
    return phase


def audit_inputs(
    db: Database | None, targets: Targets, campaign: str | None, file: Path | None
) -> list[Finding]:
    """The leak audit (:mod:`.leaks`) of every phase of ``campaign`` in ``db``, as its inputs
    are handed out now, or of the campaign file ``file`` as it would be created."""
    from simeval.serve.service.campaigns import (
        campaign_doc,
        check_campaign_file,
        new_input_secret,
        read_inputs,
    )

    if file is not None:
        _, _, registry, specs, _ = check_campaign_file(file)
        secret = new_input_secret(read_inputs(campaign_doc(file), file))
        phases = [(p.name, list(p.targets)) for p in specs]
    else:
        assert db is not None and campaign is not None
        with db.reading() as s:
            c = find_campaign(s, campaign)
            registry, secret = list(c.registry_files), c.input_secret
            phases = [(p.name, list(p.targets)) for p in c.phases]
    found: list[Finding] = []
    for name, names in phases:
        found += audit_phase(name, [targets.get(registry, t) for t in names], secret)
    return found
