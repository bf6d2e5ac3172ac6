"""Rank tiers of the systems on one benchmark: a rank interval, LMArena's rank upper bound and
a significance tier for every system, from the recorded per-item rows.

- Rank intervals come from ONE paired bootstrap: every system's main metric in B replicates
  that draw the same items (the items every system counted, drawn as the benchmark's kind
  resamples them: within suite members, by word1 clusters for related pairs), ranked within
  each replicate (:mod:`simeval.metrics.tiers` states the tie rule and the percentile rule).
- The upper bound is 1 + the systems whose whole rank interval lies above.
- Tiers are greedy over the systems sorted by their recorded score: the best, and every system
  whose test against it is not significant after Holm's correction; then the best left. The
  test and its p-value are :func:`simeval.report.compare.compare`'s for the main metric (the
  p-value ``simeval compare`` prints for the same pair, seed and replicates).
- Systems not tiered: no per-item rows (an older record), an undefined score, or scores that
  carry no information (constant, or at least 99% tied: :mod:`simeval.report.ties`, the
  report's rule for never crowning a system); they rank last in every replicate and show no
  tier.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from simeval.engine import active
from simeval.kinds.rows import ItemMetrics
from simeval.metrics.stats import DEFAULT_RESAMPLING, Resampling, bootstrap
from simeval.metrics.tiers import greedy_tiers, rank_intervals, rank_upper_bounds
from simeval.report.collect import Entry, Grid
from simeval.report.compare import Verdict, aligned, compare
from simeval.report.leaderboard import Table

SHORT = {"approximate randomization": "approximate-randomization"}


@dataclass(frozen=True)
class Standing:
    """One system's place: its rank interval, upper bound and tier (None: not tiered), and its
    Holm-adjusted p-value against its tier's best (None for the best)."""

    system: str
    interval: tuple[int, int] | None
    upper_bound: int | None
    tier: int | None
    p_value: float | None = None


@dataclass
class Tiers:
    """The standings of the systems on one benchmark, and how they were found."""

    benchmark: str
    metric: str
    n: int  # items every tiered system counted
    how: Resampling  # the bootstrap's replicates, seed and level, the tests' alpha
    standings: dict[str, Standing]
    tests: list[str] = field(default_factory=list)  # the paired tests the tiers used
    # (tier's best, other) → the test's p-value before Holm, as compare gives it
    p_values: dict[tuple[str, str], float] = field(default_factory=dict)

    def note(self) -> str:
        """The method, stated under the table."""
        tests = " / ".join(SHORT.get(t, t) for t in self.tests) or "paired"
        return (
            f"Rank interval: the {self.how.level:.0%} percentile interval of the rank (1 + the "
            f"systems strictly better) over a paired bootstrap of the {self.n:,} items all "
            f"systems scored (B = {self.how.replicates}, seed {self.how.seed}). UB: 1 + the "
            "systems "
            "whose whole interval lies above. Tier: the best system left and every system "
            f"whose {tests} test against it (on {self.metric}) is not significant at "
            f"α = {self.how.alpha:g}, Holm-corrected over its comparisons with that best. "
            "–: not tiered (no per-item rows, an undefined score, or no information: "
            "constant or ≥ 99% tied scores)."
        )


def testable(e: Entry) -> bool:
    """Whether a system can be ranked by its rows: rows kept, a score, and information in it
    (not constant nor nearly so: :mod:`simeval.report.ties`)."""
    return e.has_items and not math.isnan(e.score) and not e.no_information


def _oriented(e: Entry) -> float:
    return e.score if e.higher_is_better else -e.score


def rank_intervals_of(
    entries: Sequence[Entry], how: Resampling = DEFAULT_RESAMPLING
) -> tuple[dict[str, tuple[int, int]], int]:
    """Every system's rank interval on one benchmark (systems without rows left out; untestable
    ones ranked last), and the number of items drawn from."""
    rows = [e for e in entries if e.has_items]
    if not rows:
        return {}, 0
    tables = aligned(rows)
    samples: dict[str, np.ndarray] = {}
    n = 0
    for e, items in zip(rows, tables, strict=True):
        metric = ItemMetrics(e.task, items, main_only=True)
        n = metric.n
        if not testable(e) or n < 2:
            samples[e.system] = np.full(how.replicates, np.nan)
            continue
        drawn = bootstrap(metric, n, how.of(metric).on(active()))
        values = drawn[e.main_metric]
        samples[e.system] = values if e.higher_is_better else -values
    return rank_intervals(samples, how.level), n


def tiers(
    entries: Sequence[Entry],
    how: Resampling = DEFAULT_RESAMPLING,
    compared: Callable[..., Verdict] = compare,
) -> Tiers:
    """Rank intervals, upper bounds and tiers of the systems of ``entries`` (one benchmark,
    one entry per system; module docstring). ``compared``: :func:`compare`, or a
    :class:`~simeval.report.compare.Compared` that keeps verdicts already made."""
    intervals, n = rank_intervals_of(entries, how)
    bounds = rank_upper_bounds(intervals)
    ranked = sorted((e for e in entries if testable(e)), key=lambda e: (-_oriented(e), e.system))
    by_name = {e.system: e for e in ranked}
    tests: list[str] = []
    p_values: dict[tuple[str, str], float] = {}

    def p_value(best: str, other: str) -> float:
        c = compared(by_name[best], by_name[other], how, True).main
        tests.append(c.test)
        p_values[(best, other)] = c.p_value
        return c.p_value

    placed = greedy_tiers([e.system for e in ranked], p_value, how.alpha)
    standings = {}
    for e in entries:
        p = placed.get(e.system)
        standings[e.system] = Standing(
            e.system,
            intervals.get(e.system),
            bounds.get(e.system),
            None if p is None else p.tier,
            None if p is None else p.p_value,
        )
    first = entries[0]
    used = list(dict.fromkeys(tests))
    return Tiers(first.benchmark, first.main_metric, n, how, standings, used, p_values)


def grid_tiers(
    grid: Grid,
    bench: str,
    how: Resampling = DEFAULT_RESAMPLING,
    compared: Callable[..., Verdict] = compare,
) -> Tiers:
    """:func:`tiers` of every system of ``grid`` on ``bench``."""
    found = [e for s in grid.systems if (e := grid.get(s, bench)) is not None]
    return tiers(found, how, compared)


TIER_COLUMNS = ("rank interval", "UB", "tier")


def with_tiers(table: Table, found: Tiers) -> Table:
    """``table`` (a leaderboard whose second column names the systems) with three more
    columns, the rank interval, the upper bound and the tier, and the method in its note."""
    rows = []
    for row in table.rows:
        s = found.standings.get(row[1])
        lo_hi = None if s is None or s.interval is None else "{}–{}".format(*s.interval)
        bound = None if s is None else s.upper_bound
        tier = None if s is None else s.tier
        rows.append([*row, lo_hi, bound, tier])
    note = (table.note + " " if table.note else "") + found.note()
    columns = [*table.columns, *TIER_COLUMNS]
    return replace(table, columns=columns, rows=rows, note=note, standings=found.standings)
