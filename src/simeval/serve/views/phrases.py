"""The phrases the pages say of a phase (the time left, its per-day limit, its split): text,
escaped where a template shows it."""

from __future__ import annotations

from datetime import datetime

from simeval.serve.db.models import Phase
from simeval.serve.service.split_rule import share_text

__all__ = ["per_day_text", "split_statement", "until"]


def until(deadline: datetime, now: datetime) -> str:
    """Time left as text (the page's script keeps it current)."""
    seconds = (deadline - now).total_seconds()
    if seconds <= 0:
        return "closed"
    d, rest = divmod(int(seconds), 86400)
    h, m = rest // 3600, rest % 3600 // 60
    return (f"{d} d " if d else "") + f"{h} h {m} min"


def per_day_text(per_day: int | None) -> str:
    """``, at most 3 a day (any 24 hours)`` for a phase's per-day limit; empty without one."""
    return f", at most {per_day} a day (any 24 hours)" if per_day else ""


def split_statement(phase: Phase) -> str:
    """What a split phase's pages say of it (never which pairs are public)."""
    share = share_text(phase.public_share or 0)
    return (
        f"the leaderboard scores a public {share} of the pairs; the rest decide the final "
        f"ranking after the deadline (each team's final runs: up to {phase.final_runs}, by "
        "default its last)"
    )
