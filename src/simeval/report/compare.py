"""Is system A better than system B on a benchmark? Differences, intervals and tests.

Both results must have been scored on the same items (same benchmark and data). Only items
that entered both results' metrics are compared.

The verdict rests on the paired test the main metric's declaration names for the result's kind
(:attr:`simeval.metrics.declared.Metric.paired_test`):

- Williams (Spearman, Pearson, STS ALL): Williams' test for dependent correlations that
  share the gold, with r23 the same kind of correlation between the two systems (Spearman's
  for a rank correlation, else Pearson's);
- approximate randomization: for AP, accuracy, AUC (related pairs) on each system's scores
  turned into fractional ranks (within each member for a suite); for success@k and MRR
  (linking, and a mean over linking suite members) of the per-query values;
- the paired bootstrap for the rest, and for a metric the kind does not declare itself
  (RUSSE's sum, a mean over suite members);
- a main metric that is undefined for either system (a correlation of constant scores): no
  test. A system whose scores are all equal is named in ``constant``, one whose scores are
  at least 99% tied at one value in ``tied`` (:mod:`simeval.report.ties`): their numbers
  carry no information, so no verdict says either is better (the test's p is still shown).

Every metric also gets the paired-bootstrap interval of A − B.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any, ClassVar

import numpy as np

from simeval.engine import active
from simeval.errors import InputError
from simeval.kinds.rows import ItemMetrics, member_kinds, outputs_of
from simeval.metrics import catalog, pearson, spearman
from simeval.metrics.declared import BOOTSTRAP, RANDOMIZATION, WILLIAMS
from simeval.metrics.stats import (
    DEFAULT_RESAMPLING,
    Comparison,
    Resampling,
    approximate_randomization,
    fractional_ranks,
    paired_bootstrap,
    williams_test,
)
from simeval.report.collect import Entry
from simeval.report.format import p_is
from simeval.report.leaderboard import Table, to_csv, to_latex, to_markdown
from simeval.results.items import Items
from simeval.results.record import CONSTANT


@dataclass
class Verdict:
    """A − B on every metric; ``main`` is the comparison the verdict rests on."""

    benchmark: str
    a: str
    b: str
    n: int
    main: Comparison
    metrics: dict[str, Comparison]
    constant: list[str] = field(default_factory=list)  # systems whose scores are all equal
    higher_is_better: bool = True  # the main metric's declared direction
    tied: list[str] = field(default_factory=list)  # not constant, but 99% tied: no information

    @property
    def better(self) -> str:
        """The system ahead on the main metric, in its declared direction (B on a tie)."""
        ahead = self.main.difference > 0 if self.higher_is_better else self.main.difference < 0
        return self.a if ahead else self.b


def aligned(entries: Sequence[Entry]) -> list[Items]:
    """The entries' item tables restricted to the items every one of them counted, in one
    order (linking: the queries all have, by query id)."""
    tables = [e.items() for e in entries]
    first = entries[0]
    if outputs_of(member_kinds(first.task, tables[0])) != ("score",):  # per-query values
        common = reduce(np.intersect1d, [t["qid"] for t in tables])
        picked = [np.intersect1d(common, t["qid"], return_indices=True)[2] for t in tables]
        return [{k: v[rows] for k, v in t.items()} for t, rows in zip(tables, picked, strict=True)]
    ia = tables[0]
    for other, ib in zip(entries[1:], tables[1:], strict=True):
        same = len(ia["gold"]) == len(ib["gold"]) and np.array_equal(
            ia["gold"], ib["gold"], equal_nan=True
        )
        for key in ("word1", "word2", "benchmark"):
            same = same and (key not in ia or np.array_equal(ia[key], ib.get(key)))
        if not same:
            raise InputError(
                None,
                None,
                f"{first.system} and {other.system} were not scored on the same items of "
                f"{first.benchmark} (different data?); they cannot be compared item by item",
            )
    every = np.logical_and.reduce([t["counted"] > 0 for t in tables])
    return [{k: v[every] for k, v in t.items()} for t in tables]


def compare(
    a: Entry, b: Entry, how: Resampling = DEFAULT_RESAMPLING, main_only: bool = False
) -> Verdict:
    """Compare two results on the same benchmark (module docstring); ``how``: the replicates,
    seed and level of the bootstrap and of approximate randomization."""
    if a.benchmark != b.benchmark or a.task != b.task:
        raise InputError(None, None, f"cannot compare {a.benchmark} with {b.benchmark}")
    ia, ib = aligned([a, b])
    ma = ItemMetrics(a.task, ia, main_only)
    mb = ItemMetrics(a.task, ib, main_only)
    n = ma.n
    if n < 4:
        raise InputError(None, None, f"{a.benchmark}: only {n} items scored by both systems")
    boot = paired_bootstrap(ma, mb, n, how.of(ma).on(active()))
    main = a.main_metric
    declared = catalog.declared(main, a.task)
    test = BOOTSTRAP if declared is None else declared.paired_test
    undefined = not (np.isfinite(boot[main].a) and np.isfinite(boot[main].b))
    if undefined:  # a constant ranking has no correlation: there is nothing to test
        c = boot[main]
        chosen = Comparison(main, c.a, c.b, float("nan"), c.interval, float("nan"), "undefined")
    elif test == WILLIAMS and declared is not None:
        # Williams for one correlation over the items (STS ALL pools its members by
        # definition); a mean of the members' correlations goes to the bootstrap below
        corr = spearman if declared.ranks else pearson
        r23 = corr(ma.values, mb.values)
        t, p = williams_test(boot[main].a, boot[main].b, r23, n)
        chosen = Comparison(
            main,
            boot[main].a,
            boot[main].b,
            boot[main].difference,
            boot[main].interval,
            p,
            WILLIAMS,
            t,
        )
    elif ma.linking or test == RANDOMIZATION:
        values_a, values_b = ma.values, mb.values
        if not ma.linking:
            values_a = fractional_ranks(values_a, ma.strata)
            values_b = fractional_ranks(values_b, mb.strata)
        ar = approximate_randomization(
            lambda v: ma(scores=v), values_a, values_b, how.replicates, how.seed, many=ma.swapped
        )
        for k, c in ar.items():
            # values and interval from the original scores; the p-value from the swaps
            boot[k] = Comparison(
                k, boot[k].a, boot[k].b, boot[k].difference, boot[k].interval, c.p_value, c.test
            )
        chosen = boot[main]
    else:
        chosen = boot[main]
    boot[main] = chosen
    for k, c in boot.items():  # no test where a side has no value (constant scores)
        if not (np.isfinite(c.a) and np.isfinite(c.b)):
            boot[k] = Comparison(k, c.a, c.b, float("nan"), c.interval, float("nan"), "undefined")
    constant = [e.system for e in (a, b) if CONSTANT in e.record.get("flags", [])]
    tied = [e.system for e in (a, b) if e.no_information and e.system not in constant]
    return Verdict(
        a.benchmark, a.system, b.system, n, chosen, boot, constant, a.higher_is_better, tied
    )


class Compared:
    """:func:`compare`, each verdict kept by what decides it: the benchmark, the two systems,
    the rows each counts, and the replicates, seed and level (not ``alpha``, which only
    judges the p-value afterwards). A report's section asks for the same pairs twice, for its
    p against the best and for its tiers; the second ask is answered from here, so the
    numbers are the same by construction and the paired test (on RUSSE's related sets,
    1000 approximate-randomization rounds of average precision) runs once."""

    def __init__(self) -> None:
        self.found: dict[tuple, Verdict] = {}

    @staticmethod
    def _counted(e: Entry) -> bytes | None:
        if not e.has_items or "counted" not in e.items():
            return None
        return np.packbits(np.asarray(e.items()["counted"], dtype=float) > 0).tobytes()

    def __call__(
        self, a: Entry, b: Entry, how: Resampling = DEFAULT_RESAMPLING, main_only: bool = False
    ) -> Verdict:
        key = (
            a.benchmark,
            a.system,
            b.system,
            self._counted(a),
            self._counted(b),
            how.replicates,
            how.seed,
            how.level,
            main_only,
        )
        if key not in self.found:
            self.found[key] = compare(a, b, how, main_only)
        return self.found[key]


def verdict_text(v: Verdict, alpha: float = 0.05) -> str:
    """The verdict in words: which system is better on the main metric, by which test, or
    why there is none."""
    m = v.main
    if v.constant:
        return (
            f"none: the scores of {' and '.join(v.constant)} are constant, so {m.metric} "
            "carries no information"
        )
    if v.tied:
        test = f"{m.test}, p {p_is(m.p_value)}" if m.p_value == m.p_value else m.test
        return (
            f"none: the scores of {' and '.join(v.tied)} are at least 99% tied at one value, "
            f"so {m.metric} reflects how ties are broken ({test}: no verdict)"
        )
    if m.p_value != m.p_value:
        return f"none: {m.metric} is undefined for one of the systems"
    if m.p_value < alpha:
        return f"{v.better} is better on {m.metric} ({m.test}, p {p_is(m.p_value)} < {alpha})"
    return f"no significant difference on {m.metric} ({m.test}, p {p_is(m.p_value)} ≥ {alpha})"


@dataclass
class ComparisonReport:
    """A − B on each benchmark both systems have: every metric with its paired-bootstrap
    interval, and the verdict of the main metric's test. ``to_frame()``, ``to_markdown()``,
    ``to_latex()`` and ``to_csv()`` give the same rows."""

    verdicts: list[Verdict]
    level: float
    alpha: float

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "benchmark",
        "metric",
        "main",
        "A",
        "B",
        "A - B",
        "low",
        "high",
        "p",
        "test",
    )

    def rows(self) -> list[dict[str, object]]:
        """A row per (benchmark, metric); ``low`` and ``high`` bound A − B."""
        out = []
        for v in self.verdicts:
            for name, c in v.metrics.items():
                low, high = (
                    (None, None) if c.interval is None else (c.interval.low, c.interval.high)
                )
                values = [v.benchmark, name, name == v.main.metric, c.a, c.b, c.difference,
                          low, high, c.p_value, c.test]  # fmt: skip
                out.append(dict(zip(self.COLUMNS, values, strict=True)))
        return out

    def to_frame(self) -> Any:
        """The rows as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=list(self.COLUMNS))

    def table(self) -> Table:
        """The rows as a leaderboard :class:`~simeval.report.leaderboard.Table` (main metric
        rows marked), with the systems and verdicts as its note."""
        found = self.rows()
        rows = [[r["benchmark"], r["metric"], r["A"], r["B"], r["A - B"], r["low"], r["high"],
                 r["p"], r["test"]] for r in found]  # fmt: skip
        best = {(i, 1) for i, r in enumerate(found) if r["main"]}
        notes = [f"{v.benchmark}: A = {v.a}, B = {v.b}, {v.n} items; verdict: "
                 f"{verdict_text(v, self.alpha)}" for v in self.verdicts]  # fmt: skip
        columns = ["benchmark", "metric", "A", "B", "A − B", f"{self.level:.0%} low",
                   f"{self.level:.0%} high", "p", "test"]  # fmt: skip
        note = " ".join(notes) + " Bold: the main metric, whose test gives the verdict."
        return Table("A − B", columns, rows, best, note)

    def to_markdown(self) -> str:
        return to_markdown(self.table())

    def to_latex(self) -> str:
        return to_latex(self.table())

    def to_csv(self) -> str:
        return to_csv(self.table())

    def _repr_markdown_(self) -> str:  # a notebook shows the table
        return self.to_markdown()

    def __str__(self) -> str:
        return self.to_markdown()
