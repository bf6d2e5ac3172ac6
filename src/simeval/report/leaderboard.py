"""Leaderboards: top-N per benchmark and an overall table with dominated systems dropped.

The overall table follows RUSSE 2015 Table 5: a system is dropped when another beats it on
every benchmark of the table, the rest are ranked by the sum of their main scores.

- *Beats on every benchmark*: X dominates Y when, on each benchmark, X has a score and it is
  strictly higher than Y's, or Y has none. A tie on one benchmark protects Y; a system missing a
  benchmark can dominate no one (it beats no one there). A score that carries no information
  (``flags``: constant or nearly all tied, :mod:`simeval.report.ties`) counts as a tie: it
  beats no one and protects its system.
- *Sum*: an undefined score (a correlation of constant scores: recorded, no number) adds 0 (as
  the RUSSE scorer gives a missing pair 0) and shows as "–". A sum that adds a flagged score
  (no information) is marked too and not ranked: its rows follow the ranked ones, rank "–", so
  a tie-inflated sum is never ranked first.
- *Missing target*: a system with no result on a benchmark of the table shows "—" there and is
  ranked after every system that has them all (never first), by the sum of what it has; the
  rule is printed under the table (:data:`ABSENT_NOTE`).
- *Combining targets* (``combine``): the ``sum`` of main scores (RUSSE's, the default), their
  ``mean`` (over the benchmarks the system has a result on), or the ``mean-rank``: each
  system's mean of its competition ranks per benchmark (lower first; a missing or undefined
  score ranked last on that benchmark, after every score, tied with the other missing ones; a
  no-information score beats no one). :func:`combined` computes all three (:data:`COMBINE`).
- *Ranks*: competition ranking (1, 2, 2, 4): equal sums share a rank; ties are listed by name.
  A top list ranks the informative scores only; the flagged ones follow them, rank "–".
- *Direction*: every main metric of the built-in kinds ranks higher first; a benchmark whose
  main metric is declared lower-is-better (``lower``) has its scores negated for "beats", the
  sum and the best mark (:func:`oriented`).
"""

from __future__ import annotations

import bisect
import csv
import io
import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup
from rich.text import Text

from simeval.report.format import (
    latex_text,
    markdown_text,
    number,
    plain_text,
    sheet_text,
)
from simeval.report.html_table import Cell, html_table, strong
from simeval.report.templating import render
from simeval.report.terminal import Column, TerminalTable

Scores = Mapping[str, Mapping[str, float]]


@dataclass
class Table:
    """Rows of cells (str, int or float; None = no value) with the best cells marked."""

    title: str
    columns: list[str]
    rows: list[list[Any]]
    best: set[tuple[int, int]] = field(default_factory=set)
    note: str = ""
    # cells of constant scores: shown with CONSTANT_MARK, never marked best
    constant: set[tuple[int, int]] = field(default_factory=set)
    # cells of a target the system has no result on: shown as ABSENT
    absent: set[tuple[int, int]] = field(default_factory=set)
    # the combined column (sum, mean, mean rank) -> 1; on a narrow terminal it comes last, in
    # the last part, after the benchmarks it combines
    priority: dict[str, int] = field(default_factory=dict)
    benchmark: str = ""  # a benchmark's table (top N, tiers): its benchmark
    # with tiers: system -> its standing (simeval.report.tiers.Standing), the one printed
    standings: dict[str, Any] | None = None


CONSTANT_MARK = "†"
CONSTANT_NOTE = (
    f"{CONSTANT_MARK} constant scores, or nearly (at least 99% of the items tied at one score): "
    "the number carries no information (RUSSE's 2015 AP gives an all-tied ranking 0.75 on a "
    "half-related set); never marked best or ranked first, it beats no one. – no score "
    "(undefined, e.g. a correlation of constant scores)."
)
Flags = set[tuple[str, str]]  # (system, benchmark) with constant scores
LOWER_NOTE = "Lower is better on {}: those scores enter the sum negated."
ABSENT = "—"  # no result at all on a target (an undefined score is format.MISSING, "–")
ABSENT_NOTE = (
    f"{ABSENT} no result on that benchmark: a system missing any benchmark of the sum is ranked "
    "after every system that has them all, by the sum of the scores it has."
)


def oriented(scores: Scores, lower: Collection[str]) -> dict[str, dict[str, float]]:
    """The scores with those of the ``lower`` (lower-is-better) benchmarks negated, so that
    higher is better everywhere."""
    return {s: {b: -v if b in lower else v for b, v in row.items()} for s, row in scores.items()}


def dropped_note(beaten: dict[str, list[str]]) -> str:
    """The note naming the dominated systems dropped, each with those that beat it."""
    return "Dropped (beaten on every benchmark): " + "; ".join(
        f"{y} (by {', '.join(xs)})" for y, xs in beaten.items()
    )


def _has(scores: Scores, system: str, benchmark: str) -> bool:
    value = scores[system].get(benchmark)
    return value is not None and not math.isnan(value)


def dominators(
    scores: Scores, benchmarks: Sequence[str], flags: Flags = frozenset()
) -> dict[str, list[str]]:
    """For every dominated system, the systems that beat it on every benchmark (a flagged
    score counts as a tie: module docstring)."""

    def beats(x: str, y: str, b: str) -> bool:
        if not _has(scores, x, b) or (x, b) in flags:
            return False
        return not _has(scores, y, b) or ((y, b) not in flags and scores[x][b] > scores[y][b])

    out: dict[str, list[str]] = {}
    for y in scores:
        for x in scores:
            if x != y and all(beats(x, y, b) for b in benchmarks):
                out.setdefault(y, []).append(x)
    return out


def competition_ranks(keys: Sequence[Any]) -> list[int]:
    """Competition ranks (1, 2, 2, 4) of sort keys, smaller first: 1 + the number of keys
    strictly ahead."""
    ordered = sorted(keys)  # n log n: a 10,000-run board counted pairs in seconds
    return [1 + bisect.bisect_left(ordered, x) for x in keys]


def _mark_best(table: Table, columns: Sequence[int], lower: Collection[int] = ()) -> None:
    """Mark the best value of each column: the highest, or the lowest in ``lower``."""
    for c in columns:
        values = [
            r[c]
            for i, r in enumerate(table.rows)
            if isinstance(r[c], float) and not math.isnan(r[c]) and (i, c) not in table.constant
        ]
        if values:
            top = min(values) if c in lower else max(values)
            table.best |= {
                (i, c)
                for i, r in enumerate(table.rows)
                if r[c] == top and (i, c) not in table.constant
            }


def _mark_constant(table: Table, systems: Sequence[str], columns: dict[int, str], flags: Flags):
    table.constant = {
        (i, c) for i, s in enumerate(systems) for c, b in columns.items() if (s, b) in flags
    }
    if table.constant:
        _add_note(table, CONSTANT_NOTE)


def _add_note(table: Table, text: str) -> None:
    table.note = (table.note + " " if table.note else "") + text


# how a phase's board combines a run's targets -> the combined column's name
COMBINE = {"sum": "sum", "mean": "mean", "mean-rank": "mean rank"}


def combined(
    up: Scores,
    benchmarks: Sequence[str],
    systems: Sequence[str],
    combine: str = "sum",
    flags: Flags = frozenset(),
    among: Collection[str] | None = None,
) -> dict[str, float]:
    """Each system's combined score over ``benchmarks`` (``up``: higher is better everywhere,
    :func:`oriented`), by ``combine`` (module docstring): ``sum`` and ``mean`` are higher
    first, ``mean-rank`` lower first. A system's rank on a benchmark is 1 + the number of
    systems of ``among`` (default ``systems``) with a strictly better informative score; with
    no score it is 1 + the number of them that have one (last)."""
    if combine not in COMBINE:
        raise ValueError(f"combine {combine!r}: one of {', '.join(COMBINE)}")
    if combine != "mean-rank":
        sums = {s: float(sum(up[s][b] for b in benchmarks if _has(up, s, b))) for s in systems}
        if combine == "sum":
            return sums
        return {s: sums[s] / max(1, sum(b in up[s] for b in benchmarks)) for s in systems}
    among = list(systems if among is None else among)
    out = {}
    for s in systems:
        ranks = []
        for b in benchmarks:
            scored = [y for y in among if y != s and _has(up, y, b)]
            if not _has(up, s, b):
                ranks.append(1 + len(scored))
            else:
                ahead = [y for y in scored if (y, b) not in flags and up[y][b] > up[s][b]]
                ranks.append(1 + len(ahead))
        out[s] = sum(ranks) / max(1, len(ranks))
    return out


def overall_table(
    scores: Scores,
    benchmarks: Sequence[str],
    prune: bool = True,
    flags: Flags = frozenset(),
    lower: Collection[str] = frozenset(),
    metric: str | None = None,
    combine: str = "sum",
    among: Collection[str] | None = None,
) -> Table:
    """Systems ranked by the sum of their main scores (``scores`` of ``metric``, when given;
    or their mean or mean rank: ``combine``, :func:`combined`; ``among``: the systems the mean
    ranks count, default all) after dropping dominated ones (``lower``: benchmarks whose metric
    ranks lower first)."""
    lower = set(lower) & set(benchmarks)
    up = oriented(scores, lower)
    beaten = dominators(up, benchmarks, flags) if prune else {}
    kept = [s for s in scores if s not in beaten]
    among = kept if among is None else [s for s in kept if s in among]
    sums = combined(up, benchmarks, kept, combine, flags, among)
    sign = 1 if combine == "mean-rank" else -1  # lower mean rank first; higher sum first
    # a sum that adds a no-information score is not ranked (module docstring)
    blind = {s for s in kept if any(_has(up, s, b) and (s, b) in flags for b in benchmarks)}
    # incomplete systems after complete ones; a sum of fewer targets is not comparable
    order = {s: (any(b not in scores[s] for b in benchmarks), sign * sums[s]) for s in kept}
    kept.sort(key=lambda s: (s in blind, order[s], s))
    ranked = [s for s in kept if s not in blind]
    ranks = [*competition_ranks([order[s] for s in ranked]), *[None] * len(blind)]
    rows = [
        [rank, s, *(scores[s][b] if _has(scores, s, b) else None for b in benchmarks), sums[s]]
        for rank, s in zip(ranks, kept, strict=True)
    ]
    label = COMBINE[combine]
    title = f"Overall: {label} of {metric or 'main scores'}"
    table = Table(title, ["rank", "system", *benchmarks, label], rows, priority={label: 1})
    table.absent = {
        (i, 2 + j)
        for i, s in enumerate(kept)
        for j, b in enumerate(benchmarks)
        if b not in scores[s]
    }
    if beaten:
        table.note = dropped_note(beaten)
    if lower:
        _add_note(table, LOWER_NOTE.format(", ".join(b for b in benchmarks if b in lower)))
    sum_column = 2 + len(benchmarks)
    _mark_constant(table, kept, {2 + j: b for j, b in enumerate(benchmarks)}, flags)
    table.constant |= {(i, sum_column) for i, s in enumerate(kept) if s in blind}
    if table.absent:
        _add_note(table, ABSENT_NOTE)
    _mark_best(
        table,
        range(2, 2 + len(benchmarks)),
        [2 + j for j, b in enumerate(benchmarks) if b in lower],
    )
    # the best sum is the first-ranked one: an incomplete system's larger sum is not better
    table.best |= {(i, 2 + len(benchmarks)) for i, row in enumerate(rows) if row[0] == 1}
    return table


def top_table(
    scores: Scores,
    benchmark: str,
    n: int,
    metric: str = "",
    flags: Flags = frozenset(),
    higher_is_better: bool = True,
) -> Table:
    """The systems ranked 1..n on one benchmark (all systems tied at rank n included), in
    the main metric's direction; flagged scores (no information) are not ranked: they follow,
    rank None, while the list is shorter than ``n``."""
    up = oriented(scores, () if higher_is_better else {benchmark})
    have = [s for s in scores if _has(scores, s, benchmark)]
    have.sort(key=lambda s: (-up[s][benchmark], s))
    ranked = [s for s in have if (s, benchmark) not in flags]
    ranks = competition_ranks([-up[s][benchmark] for s in ranked])
    rows: list[list[Any]] = [
        [r, s, scores[s][benchmark]] for r, s in zip(ranks, ranked, strict=True) if r <= n
    ]
    for s in have:
        if (s, benchmark) in flags and len(rows) < n:
            rows.append([None, s, scores[s][benchmark]])
    table = Table(f"{benchmark}: top {n}", ["rank", "system", metric or "score"], rows)
    table.benchmark = benchmark
    _mark_constant(table, [r[1] for r in rows], {2: benchmark}, flags)
    _mark_best(table, [2], () if higher_is_better else [2])
    return table


def _text(table: Table, i: int, j: int) -> str:
    """A cell as text, with the constant-scores mark where it applies."""
    text = ABSENT if (i, j) in table.absent else number(table.rows[i][j])
    return text + " " + CONSTANT_MARK if (i, j) in table.constant else text


def to_markdown(table: Table) -> str:
    head = " | ".join(markdown_text(c) for c in table.columns)
    lines = [f"**{markdown_text(table.title)}**", "", "| " + head + " |"]
    lines.append(
        "|" + "|".join("---:" if i != 1 else "---" for i in range(len(table.columns))) + "|"
    )
    for i, row in enumerate(table.rows):
        cells = [
            f"**{markdown_text(_text(table, i, j))}**"
            if (i, j) in table.best
            else markdown_text(_text(table, i, j))
            for j, v in enumerate(row)
        ]
        lines.append("| " + " | ".join(cells) + " |")
    if table.note:
        lines += ["", markdown_text(table.note)]
    return "\n".join(lines) + "\n"


def to_latex(table: Table, booktabs: bool = False) -> str:
    """A LaTeX table; ``booktabs``: ruled with the booktabs package's \\toprule, \\midrule
    and \\bottomrule (a paper's style) instead of \\hline."""
    spec = "r" + "l" + "r" * (len(table.columns) - 2)
    top, mid, bottom = (r"\toprule", r"\midrule", r"\bottomrule") if booktabs else (r"\hline",) * 3
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\begin{{tabular}}{{{spec}}}",
        top,
        " & ".join(latex_text(c) for c in table.columns) + r" \\",
        mid,
    ]
    for i, row in enumerate(table.rows):
        cells = [
            rf"\textbf{{{latex_text(_text(table, i, j))}}}"
            if (i, j) in table.best
            else latex_text(_text(table, i, j))
            for j, v in enumerate(row)
        ]
        lines.append(" & ".join(cells) + r" \\")
    lines += [bottom, r"\end{tabular}", rf"\caption{{{latex_text(table.title)}}}"]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def _csv_text(value: str) -> str:
    """A text cell a spreadsheet will not run: a leading =, +, -, @ or tab gets a quote mark
    (the usual guard against formula injection); the csv module quotes the rest. Control
    characters are shown as ``?`` (:func:`plain_text`): the table may be read on a terminal."""
    return sheet_text(plain_text(value))


def _csv_cell(v: Any) -> str:
    """A CSV cell: floats to 6 significant digits, ints as they are (a number, not a
    formula: -1 stays -1), text guarded by :func:`_csv_text`."""
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    return _csv_text(str(v))


def to_csv(table: Table) -> str:
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([_csv_text(c) for c in table.columns])
    for row in table.rows:
        writer.writerow([_csv_cell(v) for v in row])
    return text.getvalue()


def to_html(table: Table) -> Markup:
    """A sortable table (the report's script sorts on a header click)."""
    rows = [
        [
            Cell(
                strong(_text(table, i, j)) if (i, j) in table.best else _text(table, i, j),
                float(v) if isinstance(v, int | float) else None,
            )
            for j, v in enumerate(row)
        ]
        for i, row in enumerate(table.rows)
    ]
    board = html_table(table.columns, rows, table.title, "sortable board")
    return render("simeval.report", "note.html", before=board, note=table.note)


BENCHMARK_CAP = 20  # a benchmark's name longer than this heads its column as [b1]


def to_terminal(table: Table) -> tuple[TerminalTable, list[str]]:
    """The table for a terminal (:mod:`simeval.report.terminal`) and its note: rank and
    system repeated in every part of a narrow terminal, long system names numbered, the best
    cells in bold, the combined column (``table.priority``: sum, mean, mean rank) last, after
    the benchmarks it combines."""
    end = table.columns[-1:]  # the combined column of an overall table (sum, mean, mean rank)
    combined = end == ["sum"] or any(c in table.priority for c in end)
    last = len(table.columns) - 1 if combined else len(table.columns)
    columns = [
        Column(
            c,
            key=j < 2,
            name=j == 1,
            number=j != 1,
            header_is_name=1 < j < last,  # a benchmark, maybe a long path
            header_cap=BENCHMARK_CAP,
            tag="b" if 1 < j < last else "",
        )
        for j, c in enumerate(table.columns)
    ]
    rows = [
        [
            Text(_text(table, i, j), style="bold" if (i, j) in table.best else "")
            for j in range(len(row))
        ]
        for i, row in enumerate(table.rows)
    ]
    notes = [table.note] if table.note else []
    return TerminalTable(columns, rows, table.title), notes


RENDERERS = {"markdown": to_markdown, "latex": to_latex, "csv": to_csv, "html": to_html}

# the leaderboard as data (:func:`board_rows`): always these, then with tiers TIER_FIELDS
BOARD_FIELDS = ("benchmark", "system", "metric", "rank", "score", "no_information",
                "overall_rank", "overall")  # fmt: skip
TIER_FIELDS = ("rank_low", "rank_high", "upper_bound", "tier", "p_holm")


def board_rows(overall: Table, tables: Sequence[Table]) -> list[dict[str, Any]]:
    """The leaderboard as data, from the tables it prints: a row per system of each
    benchmark's table (:func:`top_table`, with tiers :func:`simeval.report.tiers.with_tiers`):
    ``rank`` on that benchmark (None: not ranked, a no-information score), ``score`` (NaN:
    undefined), ``no_information`` (the † mark), and the overall table's ``overall_rank`` and
    ``overall`` (the sum, mean or mean rank; None for a system dropped as dominated); with
    tiers, the rank interval's ends, its upper bound, its tier and its Holm-adjusted p-value
    against its tier's best (None for the best, and for a system not tiered)."""
    ranked = {row[1]: (row[0], row[-1]) for row in overall.rows}
    out = []
    for table in tables:
        for i, row in enumerate(table.rows):
            rank, system, score = row[:3]
            at, value = ranked.get(system, (None, None))
            found = {
                "benchmark": table.benchmark,
                "system": system,
                "metric": table.columns[2],
                "rank": rank,
                "score": math.nan if score is None else score,
                "no_information": (i, 2) in table.constant,
                "overall_rank": at,
                "overall": value,
            }
            if table.standings is not None:
                found |= _standing_fields(table.standings.get(system))
            out.append(found)
    return out


def rows_csv(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Rows of data as CSV: numbers in full (``repr``: read back, the same float), missing
    values (None, NaN, pandas' NA) empty, text guarded as the tables' CSV is
    (:func:`_csv_text`)."""

    def cell(v: Any) -> str:
        if isinstance(v, bool):
            return str(v).lower()
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return "" if math.isnan(v) else repr(v)
        if v is None or type(v).__name__ == "NAType":  # pandas.NA
            return ""
        return _csv_text(str(v))

    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow([_csv_text(c) for c in columns])
    writer.writerows([cell(v) for v in row] for row in rows)
    return text.getvalue()


def _standing_fields(standing: Any) -> dict[str, Any]:
    """The tier columns of one system (:data:`TIER_FIELDS`); None where it has no standing."""
    low, high = (None, None) if standing is None or standing.interval is None else standing.interval
    if standing is None:
        return dict.fromkeys(TIER_FIELDS)
    return {"rank_low": low, "rank_high": high, "upper_bound": standing.upper_bound,
            "tier": standing.tier, "p_holm": standing.p_value}  # fmt: skip
