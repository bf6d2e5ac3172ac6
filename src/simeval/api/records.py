"""Result records as every door shows them: as JSON lines, and marked † when their scores
carry no information (constant, or at least 99% of the items tied: :mod:`simeval.report.ties`,
the rule every report marks with). Light to import once results exist: ``simeval score trec
--json`` (:mod:`simeval.cli.lean`) prints through it without loading the report's tables."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from simeval.results.record import CONSTANT, json_lines

if TYPE_CHECKING:  # the same names, for type checkers; loaded by __getattr__ below
    from simeval.report.leaderboard import CONSTANT_MARK, CONSTANT_NOTE

__all__ = ["CONSTANT_MARK", "CONSTANT_NOTE", "json_lines", "no_information", "warn_of_zeroed"]


def no_information(result: Any) -> bool:
    """Whether ``result``'s scores carry no information: flagged constant, or its items at
    least 99% tied."""
    from simeval.report import ties

    if CONSTANT in result.flags:
        return True
    return result.items is not None and ties.no_information(result.items)


def warn_of_zeroed(results: list[Any]) -> None:
    """A Python warning per benchmark where the default ``missing="zero"`` scored pairs 0
    (:class:`~simeval.errors.DefaultPolicyWarning`), as ``evaluate`` and ``score`` warn when
    ``missing`` was not given; none inside a command, whose record's warning says it."""
    import warnings

    from simeval.errors import DefaultPolicyWarning, on_command_line
    from simeval.results.store import system_name

    if on_command_line():
        return
    for r in results:
        n = r.coverage.get("missing", 0)
        if n and r.settings.get("missing") == "zero" and "gold" in r.coverage:
            warnings.warn(
                f"{r.benchmark}: {system_name(r.system)} left {n} of {r.coverage['gold']} items "
                "without a score; they were scored 0 (missing='zero', RUSSE's rule and the "
                "default). Pass missing='skip' to leave them out or missing='error' to refuse.",
                DefaultPolicyWarning,
                stacklevel=4,
            )


def __getattr__(name: str) -> Any:
    """The mark and its note (:data:`simeval.report.leaderboard.CONSTANT_MARK`,
    ``CONSTANT_NOTE``), loaded with the report's tables when first asked for."""
    if name in ("CONSTANT_MARK", "CONSTANT_NOTE"):
        from simeval.report import leaderboard

        return getattr(leaderboard, name)
    raise AttributeError(f"module 'simeval.api.records' has no attribute {name!r}")
