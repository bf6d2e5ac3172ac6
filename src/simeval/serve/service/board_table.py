"""Leaderboards of a phase from the recorded result records, by the rules of
:mod:`simeval.report.leaderboard` (RUSSE 2015 Table 5: dominated systems dropped, ranked by
the sum of main scores, or by the phase's ``combine``: their mean or mean rank). Nothing is
scored again here.

A system is one run of a team: ``"<team> run <n>"`` — run n of each target of the phase, so a
team's first mc30 file and first rg65 file are one system, as an STS run covered every set.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from typing import Any

from simeval.report.collect import Grid
from simeval.report.leaderboard import (
    ABSENT,
    Table,
    dominators,
    dropped_note,
    overall_table,
)
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


def entries_of(records: Sequence[dict[str, Any]]) -> list[Any]:
    """The records as entries of a :class:`simeval.report.collect.Grid` (no per-item rows)."""
    from pathlib import Path

    from simeval.report.collect import Entry
    from simeval.results.store import system_name

    here = Path()
    return [Entry(system_name(r["system"]), r, here) for r in records]


def grid_of(records: Sequence[dict[str, Any]]) -> Any:
    """The records as a :class:`simeval.report.collect.Grid` (without per-item rows)."""
    from simeval.report.collect import grid_of as entries_grid

    return entries_grid(entries_of(records))


BASELINE_NOTE = (
    "(baseline): a run of the organisers, shown for comparison, never ranked among the teams "
    "and never dropping a team's run as dominated."
)


def board(
    records: Sequence[dict[str, Any]] | Grid,
    prune: bool,
    title: str = "",
    order: Sequence[str] = (),
    baselines: Collection[str] = (),
    combine: str = "sum",
    every_target: bool = False,
) -> Table:
    """The overall table of these records: the columns ``simeval leaderboard`` shows (RUSSE
    as its four parts, an STS suite as ALL), in the ``order`` of the phase's targets (others
    after them), ranked by the sum of main scores (or their mean or mean rank: ``combine``,
    :func:`simeval.report.leaderboard.combined`). ``baselines``: the organisers' systems,
    marked and left out of the teams' ranks (:data:`BASELINE_NOTE`); a mean rank counts the
    teams only. ``records`` may be a grid of them already. ``every_target``: a target of
    ``order`` nobody has a result on yet is a column all the same (the live board, so a team
    sees from the start every target it may send a run to)."""
    from simeval.report.html import overall_benchmarks

    grid = records if isinstance(records, Grid) else grid_of(records)
    columns = sorted(
        overall_benchmarks(grid), key=lambda b: order.index(b) if b in order else len(order)
    )
    scores, flags = grid.scores(), grid.flagged(CONSTANT)
    baselines = set(baselines) & set(scores)
    if not baselines:
        table = overall_table(scores, columns, prune=prune, flags=flags, combine=combine)
    else:
        beaten: dict[str, list[str]] = {}
        if prune:  # dominance among the teams alone
            teams = {s: v for s, v in scores.items() if s not in baselines}
            beaten = dominators(teams, columns, flags)
            scores = {s: v for s, v in scores.items() if s not in beaten}
        teams = [s for s in scores if s not in baselines]
        table = overall_table(
            scores, columns, prune=False, flags=flags, combine=combine, among=teams
        )
        _rank_teams_only(table, baselines)
        if beaten:  # which runs went, as the table without baselines says
            table.note = f"{dropped_note(beaten)}. {table.note}"
    if title:
        table.title = title
    _mark_first(table)
    if every_target:
        _absent_columns(table, [t for t in order if t not in grid.benchmarks and t not in columns])
    return table


def _absent_columns(table: Table, names: Sequence[str]) -> None:
    """Add a column for each of ``names`` (targets nobody has a result on) before the
    combined column, every cell absent: shown, never ranked on (the ranks, the sums and the
    bold are those of the targets with results, as without them)."""
    if not names:
        return
    at, k = len(table.columns) - 1, len(names)

    def moved(cells: set[tuple[int, int]]) -> set[tuple[int, int]]:
        return {(i, j + k if j >= at else j) for i, j in cells}

    table.columns[at:at] = list(names)
    for row in table.rows:
        row[at:at] = [None] * k
    table.best, table.constant = moved(table.best), moved(table.constant)
    table.absent = moved(table.absent) | {
        (i, j) for i in range(len(table.rows)) for j in range(at, at + k)
    }
    waiting = f"{ABSENT} {', '.join(names)}: no run sent yet, so not in the {table.columns[-1]}."
    table.note = f"{table.note} {waiting}".strip()


SUM_BOLD_NOTE = (
    "Bold: the best score of each column; in the {} column, the first-ranked run's (a run "
    "missing a target, or with a † score, is ranked after every run that has them all, so "
    "its larger {} is not bold)."
)


def _mark_first(table: Table) -> None:
    """Bold the combined column (the last) of the first-ranked team's runs only (not a
    baseline's, which ranks among no one), and say why when a larger value stands in it."""
    last = len(table.columns) - 1
    table.best -= {(i, j) for i, j in table.best if j == last}
    first = {i for i, row in enumerate(table.rows) if row[0] == 1}
    table.best |= {(i, last) for i in first}
    label = table.columns[last]
    sign = 1 if label == "mean rank" else -1  # lower mean rank is better
    values = [v for row in table.rows if isinstance(v := row[last], float) and not math.isnan(v)]
    shown = [table.rows[i][last] for i in first if isinstance(table.rows[i][last], float)]
    if values and shown and sign * min(sign * v for v in values) != shown[0]:
        table.note = f"{table.note} {SUM_BOLD_NOTE.format(label, label)}".strip()


def _rank_teams_only(table: Table, baselines: set[str]) -> None:
    """Baseline rows lose their rank and are marked; each team's rank counts only the teams
    ahead of it (ties kept)."""
    ranks = [row[0] for row in table.rows]
    teams = [r for r, row in zip(ranks, table.rows, strict=True) if row[1] not in baselines]
    for row, rank in zip(table.rows, ranks, strict=True):
        if row[1] in baselines:
            row[0], row[1] = None, f"{row[1]} (baseline)"
        else:
            row[0] = 1 + sum(r < rank for r in teams)
    table.note = f"{table.note} {BASELINE_NOTE}".strip()
