"""The export's files for the overview paper (issue 32, item 5), per phase, read from the
phase's exported results folder (the store's own output, so every number is the one
``simeval leaderboard`` prints from that folder):

- ``final.{csv,tex,md}``: the final table: rank, run (``<team> run <n>``, or the alias when
  anonymised), each target's main score, the sum, and each target's rank interval, rank
  upper bound and tier (:mod:`.tiers`; LaTeX ruled with booktabs, every cell escaped by
  :mod:`simeval.report.format`). Dominated runs are dropped as in RUSSE's Table 5 unless the
  organiser keeps them (:func:`simeval.serve.service.board_table.board`); the tiers are computed
  over every team run, as ``simeval leaderboard --tiers`` computes them, so dropping a row
  changes no one's interval;
- ``top.{csv,tex,md}`` (``top`` > 0): the top N runs of each target, with their tiers, as
  ``simeval leaderboard --top N --tiers`` prints them (RUSSE's Tables 6-9);
- ``per-item/<benchmark>.csv``: every run's per-item rows, one line per run and item (the
  run, the item's key columns, the gold, the run's score, whether it was covered and counted),
  for the organisers' own analysis.

Baselines are shown in the final table, marked, and are neither ranked nor tiered; they take
no place in a top N.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from simeval.report.format import sheet_text
from simeval.serve.service.tiers import board_benchmarks, method, tiered, tiers_of_grid

SUFFIXES = {"csv": "csv", "latex": "tex", "markdown": "md"}
ITEMS_FOLDER = "per-item"


def paper_files(
    folder: Path,
    records: Sequence[dict[str, Any]],
    title: str,
    order: Sequence[str],
    baselines: Collection[str],
    keep_dominated: bool = False,
    top: int = 0,
    combine: str = "sum",
) -> list[Path]:
    """Write the files of the module docstring into ``folder`` (a phase's exported results
    folder holding ``records``), the final table ranked by the phase's policy ``combine``;
    the paths written."""
    from simeval.report.collect import grid_of, load_grid
    from simeval.serve.service.board_table import board

    grid = load_grid(folder)
    teams = grid_of([e for e in grid.entries.values() if e.system not in baselines])
    final = board(records, prune=not keep_dominated, title=f"{title}: final table",
                  order=order, baselines=baselines, combine=combine)  # fmt: skip
    found = tiers_of_grid(teams, board_benchmarks(final))
    written = _tables(folder / "final", [_noted(tiered(final, found), found)])
    if top > 0:
        written += _tables(folder / "top", _top_tables(teams, found, top))
    return written + _per_item(folder / ITEMS_FOLDER, grid)


def _noted(table: Any, found: dict[str, Any]) -> Any:
    from dataclasses import replace

    return replace(table, note=" ".join(n for n in (table.note, method(found)) if n))


def _top_tables(grid: Any, found: dict[str, Any], top: int) -> list[Any]:
    """Each benchmark's top ``top`` runs with their tiers (``simeval leaderboard --top N
    --tiers``'s tables: :func:`simeval.report.html.grid_top`, :func:`~simeval.report.tiers.
    with_tiers`)."""
    from simeval.report.html import grid_top
    from simeval.report.tiers import with_tiers

    flags = grid.no_information()
    return [with_tiers(grid_top(grid, b, top, flags), t) for b, t in found.items()]


def _tables(stem: Path, tables: Sequence[Any]) -> list[Path]:
    """``stem.csv``, ``.tex`` and ``.md``: the tables one after another (CSV: a blank line
    between them)."""
    from simeval.report.leaderboard import to_csv, to_markdown

    written = []
    for fmt, render in (("csv", to_csv), ("latex", _booktabs), ("markdown", to_markdown)):
        path = stem.with_suffix("." + SUFFIXES[fmt])
        path.write_text("\n".join(render(t) for t in tables), encoding="utf-8")
        written.append(path)
    return written


def _booktabs(table: Any) -> str:
    from simeval.report.leaderboard import to_latex

    return to_latex(table, booktabs=True)


def _per_item(folder: Path, grid: Any) -> list[Path]:
    """``<benchmark>.csv`` per benchmark: ``run`` and the columns of each run's per-item rows
    (full precision; text cells guarded for spreadsheets)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for bench in grid.benchmarks:
        entries = [e for s in grid.systems if (e := grid.get(s, bench)) and e.has_items]
        if not entries:
            continue
        columns = list(entries[0].items())
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["run", *columns])
        for e in entries:
            items = e.items()
            for i in range(len(items[columns[0]])):
                writer.writerow([_cell(e.system), *(_cell(items[c][i]) for c in columns)])
        path = folder / f"{_file_name(bench)}.csv"
        path.write_text(out.getvalue(), encoding="utf-8")
        written.append(path)
    return written


def _cell(value: Any) -> Any:
    if isinstance(value, str):
        return sheet_text(value)
    return value.item() if hasattr(value, "item") else value


def _file_name(bench: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in bench).lstrip(".") or "_"
