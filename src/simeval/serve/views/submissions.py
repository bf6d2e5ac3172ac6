"""What a participant is shown of their submissions: the one place that decides whether a
phase's scores, errors and warnings may be seen (the API and the pages both use it). In a
split phase the caller passes the run's records over one part of the items
(:meth:`simeval.serve.service.submit.Service.part_records`: the public part before the
deadline, the private one after it), shown instead of its own, which are over every item."""

from __future__ import annotations

from typing import Any

from simeval.serve.db.models import SCORED, Phase, Submission, utc


def visible(phase: Phase) -> bool:
    """Scores of ``phase`` may be shown to participants."""
    return not phase.hidden or phase.published is not None


def submission_view(
    sub: Submission, phase: Phase, part: tuple[str, list[dict[str, Any]]] | None = None
) -> dict[str, Any]:
    """A submission as its team sees it (scores only where the phase shows them; where
    ``part`` is given, ``(public or private, records)``, those records instead of its own)."""
    results = None
    if sub.status == SCORED and visible(phase):
        records = sub.results or [] if part is None else part[1]
        results = [
            {
                "benchmark": r["benchmark"],
                "main_metric": r["main_metric"],
                "score": r["metrics"].get(r["main_metric"]),
                "metrics": r["metrics"],
                "coverage": r["coverage"],
                "warnings": r["warnings"],
            }
            for r in records
        ]
    return {
        "id": sub.id,
        "phase": phase.name,
        "target": sub.target,
        "run": sub.run,
        "runs": phase.runs,
        "status": sub.status,
        "received": utc(sub.received).isoformat(timespec="seconds"),
        "file": sub.client_name,
        "sha256": sub.sha256,
        "size": sub.size,
        # a counted run's error (the gold refused it, :mod:`.hidden`) waits for publication
        "error": sub.error if sub.status != SCORED or visible(phase) else None,
        "hidden": sub.status == SCORED and not visible(phase),
        "results": results,
        "part": None if part is None else part[0],  # scored on that part of the items alone
        "warnings": list(sub.warnings or []),  # a hidden phase's: the file and input's alone
        "carried_from": sub.carried_from,  # the id of the run it was carried from
    }
