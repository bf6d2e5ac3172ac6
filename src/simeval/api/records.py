"""Result records as every door shows them: as JSON lines, and marked † when their scores
carry no information (constant, or at least 99% of the items tied: :mod:`simeval.report.ties`,
the rule every report marks with). Light to import once results exist: ``simeval score trec
--json`` (:mod:`simeval.cli.lean`) prints through it without loading the report's tables."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simeval.results.record import CONSTANT, json_lines

if TYPE_CHECKING:  # the same names, for type checkers; loaded by __getattr__ below
    from simeval.report.leaderboard import CONSTANT_MARK, CONSTANT_NOTE

__all__ = ["CONSTANT_MARK", "CONSTANT_NOTE", "json_lines", "no_information"]


def no_information(result: Any) -> bool:
    """Whether ``result``'s scores carry no information: flagged constant, or its items at
    least 99% tied."""
    from simeval.report import ties

    if CONSTANT in result.flags:
        return True
    return result.items is not None and ties.no_information(result.items)


def __getattr__(name: str) -> Any:
    """The mark and its note (:data:`simeval.report.leaderboard.CONSTANT_MARK`,
    ``CONSTANT_NOTE``), loaded with the report's tables when first asked for."""
    if name in ("CONSTANT_MARK", "CONSTANT_NOTE"):
        from simeval.report import leaderboard

        return getattr(leaderboard, name)
    raise AttributeError(f"module 'simeval.api.records' has no attribute {name!r}")
