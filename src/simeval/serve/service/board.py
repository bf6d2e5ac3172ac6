"""Leaderboards of a phase from the recorded result records, by the rules of
:mod:`simeval.report.leaderboard` (RUSSE 2015 Table 5: dominated systems dropped, ranked by
the sum of main scores). Nothing is scored again here.

A system is one run of a team: ``"<team> run <n>"`` — run n of each target of the phase, so a
team's first mc30 file and first rg65 file are one system, as an STS run covered every set.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from simeval.report.leaderboard import Table, overall_table
from simeval.results.record import CONSTANT


def system_of(team: str, run: int) -> str:
    return f"{team} run {run}"


def records_of(rows: Iterable[tuple[str, int, Sequence[dict[str, Any]]]]) -> list[dict[str, Any]]:
    """The result records of scored submissions ``(team, run, records)``, each named by its
    system, oldest first (a later record of the same system and benchmark wins)."""
    out = []
    for team, run, records in rows:
        for r in records:
            out.append({**r, "system": {**r.get("system", {}), "name": system_of(team, run)}})
    return out


def grid_of(records: Sequence[dict[str, Any]]) -> Any:
    """The records as a :class:`simeval.report.collect.Grid` (without per-item rows)."""
    from pathlib import Path

    from simeval.report.collect import Entry, Grid
    from simeval.results.store import system_name

    entries: dict[tuple[str, str], Entry] = {}
    systems: list[str] = []
    benchmarks: list[str] = []
    for record in records:
        system, bench = system_name(record["system"]), str(record["benchmark"])
        entries[(system, bench)] = Entry(system, record, Path())
        systems += [] if system in systems else [system]
        benchmarks += [] if bench in benchmarks else [bench]
    return Grid(entries, systems, benchmarks)


def board(
    records: Sequence[dict[str, Any]], prune: bool, title: str = "", order: Sequence[str] = ()
) -> Table:
    """The overall table of these records: the columns ``simeval leaderboard`` shows (RUSSE
    as its four parts, an STS suite as ALL), in the ``order`` of the phase's targets (others
    after them), ranked by the sum of main scores."""
    from simeval.report.html import overall_benchmarks

    grid = grid_of(records)
    columns = sorted(
        overall_benchmarks(grid), key=lambda b: order.index(b) if b in order else len(order)
    )
    table = overall_table(grid.scores(), columns, prune=prune, flags=grid.flagged(CONSTANT))
    if title:
        table.title = title
    return table
