"""The HTML report: one self-contained file (images inline, no network) over a results folder.

Sections: the overall leaderboard (dominated systems dropped, ranked by the sum), the top
systems per benchmark, then per benchmark every metric with its bootstrap interval, the
p-value of each system against the best (Holm-corrected), the rank tiers (every system's rank
interval, rank upper bound and significance tier: :mod:`simeval.report.tiers`), subsets with
interval whiskers and agreement ceilings, and a plot: human vs system scatter for graded
benchmarks, precision-recall curves for related/unrelated ones, bars per member for suites.
"""

from __future__ import annotations

import base64
import math
import multiprocessing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np
from markupsafe import Markup

from simeval.engine import active
from simeval.kinds.rows import ItemMetrics
from simeval.metrics import catalog, precision_recall_curve
from simeval.metrics.declared import FISHER_Z
from simeval.metrics.stats import (
    DEFAULT_RESAMPLING,
    Interval,
    Resampling,
    bootstrap_intervals,
    fisher_z_interval,
    holm,
)
from simeval.registry import Registry
from simeval.report import plots, ties
from simeval.report.collect import Entry, Grid
from simeval.report.compare import Compared
from simeval.report.format import number, p_value
from simeval.report.html_table import Cell, html_table
from simeval.report.leaderboard import (
    CONSTANT_MARK,
    CONSTANT_NOTE,
    Table,
    overall_table,
    to_html,
    top_table,
)
from simeval.report.page import page
from simeval.report.subsets import Subset, by_column, named_views, score_subsets
from simeval.report.templating import macro, render
from simeval.report.tiers import grid_tiers, with_tiers

Progress = Callable[[str], None]
PACKAGE = "simeval.report"  # whose templates (templates/*.html) the report is rendered from


@dataclass
class ReportOptions:
    how: Resampling = DEFAULT_RESAMPLING  # the bootstrap (its alpha unused: TIER_ALPHA)
    top: int = 5
    by: Sequence[str] = ()
    # benchmark → {label: value}: reference lines such as agreement ceilings
    references: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    benchmarks: Sequence[str] | None = None  # overall-table columns; None = the default rule
    jobs: int = 1  # processes building the benchmarks' sections (forked: they share the rows)
    registry: Registry | None = None  # whose views the subsets show (None: the default one)
    figure_format: str = "png"  # or "svg" (the docs' pages draw the figures so)


TIER_ALPHA = 0.05  # the report's tiers are judged at the level its * marks use


def overall_benchmarks(grid: Grid) -> list[str]:
    """The overall table's columns: every benchmark, except that a suite whose main metric is
    its members' sum (RUSSE) is shown as its members, and any other suite (STS: ALL) replaces
    its members."""
    drop: set[str] = set()
    for (_, bench), e in grid.entries.items():
        members = e.record.get("settings", {}).get("members", [])
        if members:
            drop |= {bench} if e.main_metric == "sum" else set(members)
    return [b for b in grid.benchmarks if b not in drop]


def _part(name: str, *args: Any) -> Markup:
    """A piece of the report between its tables (a macro of ``templates/report_parts.html``)."""
    return macro(PACKAGE, "report_parts.html", name, *args)


def _value(text: str, interval: str = "", bold: bool = False) -> Markup:
    """A table cell's value with its interval in small type after it (bold: the best)."""
    return macro(PACKAGE, "cells.html", "value", text, interval, bold)


def shared_rows(entries: Sequence[Entry]) -> np.ndarray | None:
    """The items every system with per-item rows counted (None when none has rows, or their
    rows differ in number or do not say which counted, as linking's per-query rows: then
    there is no shared n)."""
    found = [e.items() for e in entries if e.has_items]
    if (
        not found
        or len({_rows(it) for it in found}) > 1
        or any("counted" not in it for it in found)
    ):
        return None
    return np.logical_and.reduce([np.asarray(it["counted"], dtype=float) > 0 for it in found])


def n_note(entries: Sequence[Entry], shared: np.ndarray | None) -> Markup | str:
    """What n counts, when it is not the coverage's gold count (a pair in several members of
    a suite is an item of each)."""
    gold = {e.record.get("coverage", {}).get("gold") for e in entries}
    if shared is None or gold == {int(shared.sum())}:
        return ""
    return _part("n_note", int(shared.sum()), sorted(x for x in gold if x is not None))


def _on_rows(entry: Entry, rows: np.ndarray | None) -> Entry:
    """``entry`` with only ``rows`` counted (the items every system scored)."""
    if rows is None or not entry.has_items or "counted" not in entry.items():
        return entry
    items = dict(entry.items())
    items["counted"] = np.asarray(items["counted"], dtype=float) * rows
    return Entry(entry.system, entry.record, entry.folder, items)


def _ci(interval: Interval) -> str:
    return f"[{number(interval.low)}, {number(interval.high)}]"


def _img(image: bytes, alt: str, fmt: str = "png") -> Markup:
    """A figure inlined in the page (no file beside it)."""
    data = base64.b64encode(image).decode("ascii")
    return _part("figure", alt, "svg+xml" if fmt == "svg" else fmt, data)


def _table(
    title: str, columns: list[str], rows: list[list[str | Markup]], sort_keys: list[list]
) -> Markup:
    """A sortable table of cells (text, or Markup of a template), each sorted by its key."""
    cells = [
        [Cell(c, k) for c, k in zip(row, keys, strict=True)]
        for row, keys in zip(rows, sort_keys, strict=True)
    ]
    return html_table(columns, cells, title)


class ReportBuilder:
    def __init__(self, grid: Grid, options: ReportOptions, progress: Progress | None = None):
        self.grid = grid
        self.o = options
        self.progress = progress or (lambda _: None)
        # name → image of every figure drawn here, in order (with jobs > 1 the sections are
        # drawn by forked workers, whose figures stay with them: the page has them all)
        self.figures: dict[str, bytes] = {}
        # the paired tests of a section's p against the best, reused by its tiers
        self.compared = Compared()

    def figure(self, name: str, image: bytes, alt: str) -> Markup:
        """Keep a drawn figure under ``name`` and return it inlined."""
        self.figures[name] = image
        return _img(image, alt, self.o.figure_format)

    def entries(self, bench: str) -> list[Entry]:
        return [e for s in self.grid.systems if (e := self.grid.get(s, bench)) is not None]

    # -- per benchmark ---------------------------------------------------------------------

    def metric_table(self, bench: str, entries: list[Entry]) -> str:
        """Every metric with its bootstrap interval, and p against the best (Holm): the best
        is the best informative system (:mod:`simeval.report.ties`), tested against each
        other informative one on the items all systems scored (the one n of the caption)."""
        o = self.o
        main = entries[0].main_metric
        task = entries[0].task
        names = [k for k in entries[0].record["metrics"] if not catalog.is_count(k, task)]
        blank = {e.system for e in entries if e.no_information}

        def rank_key(e: Entry) -> float:
            if math.isnan(e.score) or e.system in blank:
                return -math.inf
            return e.score if e.higher_is_better else -e.score  # the declared direction

        best: Entry | None = max(entries, key=rank_key)
        if rank_key(best) == -math.inf:
            best = None  # no system ranks anything: nobody is crowned
        shared = shared_rows(entries)
        intervals: dict[str, dict[str, Interval]] = {}
        for e in entries:  # first: the comparisons below reuse these replicates
            if e.has_items:  # older records carry no rows: their numbers, without intervals
                metric = ItemMetrics(e.task, e.items())
                intervals[e.system] = bootstrap_intervals(
                    metric, metric.n, o.how.of(metric).on(active())
                )
        p_raw: dict[str, float] = {}
        for e in entries:
            tested = best is not None and e is not best and e.system not in blank
            if tested and not math.isnan(e.score) and best.has_items and e.has_items:
                a, b = _on_rows(best, shared), _on_rows(e, shared)
                p_raw[e.system] = self.compared(a, b, o.how, True).main.p_value
        adjusted = dict(zip(p_raw, holm(list(p_raw.values())), strict=True)) if p_raw else {}
        rows, keys = [], []
        for e in entries:
            cis = intervals.get(e.system, {})
            mark = f" {CONSTANT_MARK}" if e.system in blank else ""
            row: list[str | Markup] = [e.system + mark]
            key: list = [e.system]
            for k in names:
                value = e.record["metrics"].get(k)
                value = float("nan") if value is None else float(value)
                interval = _ci(cis[k]) if k in cis else ""
                row.append(_value(number(value), interval, e is best and k == main))
                key.append(value)
            declared = catalog.declared(main, e.task)
            if declared is not None and declared.interval == FISHER_Z:
                n = int(e.record.get("coverage", {}).get("scored", 0))
                fz = fisher_z_interval(
                    e.score, n, o.how.level, "spearman" if declared.ranks else "pearson"
                )
                row.append(_ci(fz))
                key.append(fz.low)
            cov = e.record.get("coverage", {})
            row.append(f"{cov.get('scored', '')} / {cov.get('gold', '')}")
            key.append(cov.get("scored"))
            p = adjusted.get(e.system)
            if e is best:
                row.append("best")
            elif e.system in blank:
                row.append("– (no information)")
            else:
                row.append(p_value(p) + (" *" if p is not None and p < 0.05 else ""))
            key.append(-1.0 if e is best else p)
            rows.append(row)
            keys.append(key)
        columns = ["system", *[k + (" (main)" if k == main else "") for k in names]]
        if len(rows[0]) > len(columns) + 2:
            columns.append("Fisher-z CI")
        columns += ["scored / gold", "p vs best (Holm)"]
        level = f"{o.how.level:.0%}"
        shown_n = (
            f"; n = {int(shared.sum()):,} items scored by every system"
            if shared is not None
            else ""
        )
        table = _table(
            f"{bench}: metrics with {level} bootstrap intervals (B = {o.how.replicates}, "
            f"seed {o.how.seed}){shown_n}",
            columns,
            rows,
            keys,
        )
        return table + _part("metric_note", CONSTANT_MARK, ties.RULE) + n_note(entries, shared)

    def tier_table(self, bench: str) -> Markup:
        """The benchmark's leaderboard with every system's rank interval, rank upper bound and
        significance tier (:mod:`simeval.report.tiers`), the method stated under it."""
        o, grid = self.o, self.grid
        table = grid_top(grid, bench, len(grid.systems))
        table.title = f"{bench}: rank tiers"
        found = grid_tiers(grid, bench, replace(o.how, alpha=TIER_ALPHA), self.compared)
        return to_html(with_tiers(table, found))

    def subset_section(self, bench: str, entries: list[Entry]) -> Markup:
        first = entries[0].items()
        views: dict[str, list[Subset]] = {}
        for s in named_views(bench, first, self.o.registry):
            views.setdefault(s.view, []).append(s)
        by = [*self.o.by, *(["source"] if "source" in first else [])]  # linking: per source
        for column in dict.fromkeys(by):
            if column in first:
                for s in by_column(first, column):
                    views.setdefault(s.view, []).append(s)
        out: list[Markup] = []
        if not views:
            return Markup()
        everything = Subset("", "all", np.ones(_rows(first), dtype=bool))
        o = self.o

        def score(e: Entry, subsets: list[Subset]) -> list:
            return score_subsets(e.task, e.items(), [_same(g, e) for g in subsets], o.how)

        whole = {e.system: score(e, [everything])[0] for e in entries}  # the same in every view
        shared = shared_rows(entries)
        for view, subsets in views.items():
            groups = [everything, *subsets]
            scored = {e.system: [whole[e.system], *score(e, subsets)] for e in entries}
            series = {
                system: [(s.value, s.interval.low, s.interval.high) for s in found]
                for system, found in scored.items()
            }
            hollow = {
                e.system: [ties.no_information(e.items(), _same(g, e).mask) for g in groups]
                for e in entries
            }
            lead = scored[entries[0].system]  # the first system's scores: n and metric names
            metrics = [s.metric for s in lead]
            rows, keys = [], []
            for i, g in enumerate(groups):
                n = lead[i].n if shared is None else int((shared & g.mask).sum())
                row: list[str | Markup] = [g.label, str(n)]
                key: list = [g.label, n]
                for e in entries:
                    s = scored[e.system][i]
                    mark = f" {CONSTANT_MARK}" if hollow[e.system][i] else ""
                    row.append(_value(f"{number(s.value)}{mark}", _ci(s.interval)))
                    key.append(s.value)
                rows.append(row)
                keys.append(key)
            columns = ["subset", "n", *[e.system for e in entries]]
            out.append(_table(f"{bench} by {view}", columns, rows, keys))
            refs = dict(self.o.references.get(bench, {}))
            title = f"{bench} by {view}"
            image = plots.bars(
                title,
                [g.label for g in groups],
                series,
                metrics,
                refs,
                hollow,
                self.o.figure_format,
            )
            out.append(self.figure(f"{bench}-by-{view}", image, f"{title}: bars"))
            if len(set(metrics)) > 1:
                found = [
                    (m, [groups[i].label for i in ix])
                    for m, ix in plots.panels_by_metric(metrics).items()
                ]
                out.append(_part("panels", found))
            if any(any(v) for v in hollow.values()):
                out.append(_part("hollow", CONSTANT_MARK, ties.RULE))
            if refs:
                out.append(_part("ceilings", list(refs.items())))
        return Markup().join(out)

    def plot(self, bench: str, entries: list[Entry]) -> Markup:
        kind = entries[0].kind
        if kind.plot == "pr":
            curves = {}
            for e in entries:
                it = e.items()
                keep = it["counted"] > 0
                precision, recall = precision_recall_curve(it["gold"][keep], it["score"][keep])
                label = e.system + (f" {CONSTANT_MARK}" if e.no_information else "")
                curves[label] = (precision, recall, e.score)
            return self.figure(
                f"{bench}-precision-recall",
                plots.pr_curves(f"{bench}: precision-recall", curves, self.o.figure_format),
                f"{bench}: precision-recall curves",
            )
        if kind.plot == "scatter" and (kind.plot_members or not self._in_suite(bench)):
            panels = []
            for e in entries:
                it = e.items()
                keep = it["counted"] > 0
                panels.append(
                    (
                        e.system,
                        it["gold"][keep],
                        it["score"][keep],
                        f"{e.main_metric} = {number(e.score)}",
                    )
                )
            return self.figure(
                f"{bench}-scatter",
                plots.scatter(f"{bench}: human vs system", panels, self.o.figure_format),
                f"{bench}: human vs system scatter",
            )
        return Markup()

    def _in_suite(self, bench: str) -> bool:
        return any(
            bench in e.record.get("settings", {}).get("members", [])
            for e in self.grid.entries.values()
        )

    # -- the page --------------------------------------------------------------------------

    def build(self, folder: str = "") -> str:
        grid, o = self.grid, self.o
        scores = grid.scores()
        columns = list(o.benchmarks or overall_benchmarks(grid))
        flags = grid.no_information()
        board = overall_table(scores, columns, flags=flags, lower=grid.lower())
        tops = [grid_top(grid, bench, o.top, flags) for bench in grid.benchmarks]
        for top in tops:  # the † note once under the lists, not beside each
            top.note = top.note.replace(CONSTANT_NOTE, "").strip()
        body = render(
            PACKAGE,
            "report.html",
            folder=folder,
            systems=len(grid.systems),
            benchmarks=len(grid.benchmarks),
            when=datetime.now(UTC).isoformat(timespec="seconds"),
            overall=to_html(board),
            tops=[to_html(top) for top in tops],
            constant_note=CONSTANT_NOTE if any(top.constant for top in tops) else "",
            sections=self.sections(),
        )
        return page("simeval report", body)

    def section(self, bench: str) -> Markup:
        """One benchmark's part of the page: metrics, subsets, plot."""
        entries = self.entries(bench)
        with_rows = [e for e in entries if e.has_items]
        return render(
            PACKAGE,
            "section.html",
            bench=bench,
            metrics=self.metric_table(bench, entries),
            tiers=self.tier_table(bench),
            old=", ".join(e.system for e in entries if not e.has_items),
            with_rows=bool(with_rows),
            subsets=self.subset_section(bench, with_rows) if with_rows else "",
            plot=self.plot(bench, with_rows) if with_rows else "",
        )

    def sections(self) -> list[Markup]:
        """Every benchmark's section, in the grid's order; with ``jobs`` > 1 built by forked
        processes (each benchmark's bootstraps are independent of the others'), largest first
        so the last to finish is a small one. ``progress`` hears of each as it is done. With a
        Dask scheduler the bootstraps run there and nothing is forked (a fork would copy the
        live client)."""
        benches = list(self.grid.benchmarks)
        jobs = min(self.o.jobs, len(benches))
        if jobs <= 1 or "fork" not in multiprocessing.get_all_start_methods() or active():
            out = []
            for bench in benches:
                out.append(self.section(bench))
                self.progress(bench)
            return out
        global _ACTIVE
        _ACTIVE = self
        size = {b: sum(_rows(e.items()) for e in self.entries(b) if e.has_items) for b in benches}
        order = sorted(benches, key=lambda b: -size[b])
        done: dict[str, Markup] = {}
        try:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                for bench, text in pool.imap_unordered(_section, order):
                    done[bench] = text
                    self.progress(bench)
        finally:
            _ACTIVE = None
        return [done[b] for b in benches]


_ACTIVE: ReportBuilder | None = None  # the builder forked workers inherit


def _section(bench: str) -> tuple[str, Markup]:
    assert _ACTIVE is not None
    return bench, _ACTIVE.section(bench)


def grid_top(
    grid: Grid, bench: str, n: int, flags: set | None = None, metric: str | None = None
) -> Table:
    """The top ``n`` systems on ``bench`` by its main metric (or ``metric``), in the
    declared direction."""
    scores = {s: v for s, v in grid.scores(metric).items() if bench in v}
    flags = grid.no_information() if flags is None else flags
    name = metric or grid.main_metric(bench)
    return top_table(scores, bench, n, name, flags, grid.higher_is_better(bench, metric))


def _rows(items: dict) -> int:
    return len(next(iter(items.values())))


def _same(subset: Subset, entry: Entry) -> Subset:
    """The subset for another system's items: the same rows (items share the gold order)."""
    return (
        subset
        if len(subset.mask) == _rows(entry.items())
        else Subset(subset.view, subset.label, np.zeros(_rows(entry.items()), dtype=bool))
    )


def build_report(
    grid: Grid, options: ReportOptions, folder: str = "", progress: Progress | None = None
) -> str:
    """The whole report as one HTML string."""
    return ReportBuilder(grid, options, progress).build(folder)


def simulation_page(
    rows: list[tuple[float, str, Any, float]],
    curves: dict[str, tuple[list[int], list[float]]],
    agreement: Any,
    size: int,
    replays: int,
) -> str:
    """The campaign simulation (:mod:`simeval.datasets.simulate`) as a page: the answers each
    mode needed and the share of pairs done as answers come in."""
    from simeval.report.plots import curves as draw_curves

    table = _table(
        f"Answers needed until every pair's mean has a 95% interval narrower than the target "
        f"(mean ± SD of {replays} replays, assignments of {size} pairs)",
        ["target", "mode", "all pairs done", "90% done", "capped pairs"],
        [
            [
                f"{t:g}",
                m,
                f"{c.mean:,.0f} ± {c.sd:,.0f}",
                f"{n:,.0f}",
                f"{np.mean(c.capped):.1f}",
            ]
            for t, m, c, n in rows
        ],
        [[t, m, c.mean, n, float(np.mean(c.capped))] for t, m, c, n in rows],
    )
    png = draw_curves(
        "Share of pairs done as answers come in (first replay)",
        curves,
        "answers",
        "share of pairs done",
    )
    figure = _img(png, "share of pairs done against answers, per mode and target")
    body = render(PACKAGE, "simulation.html", table=table, agreement=agreement, figure=figure)
    return page("simeval campaign simulation", body)
