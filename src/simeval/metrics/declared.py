"""A metric declared once: the :class:`Metric` object, and the sorts its resampled values share.

A declaration names the metric, the task kinds it belongs to, its point function over a
result's rows, its direction, bounds and documentation, what it is (its ``family``), the
interval the report gives it beside the bootstrap's, the paired test that compares two systems
on it, its invariances (``ranks``, ``symmetric``) and the independent implementation its values
are checked against (``reference``), and, when it has one, its vectorised resampled function
(:mod:`.weighted`). Everything else is derived from it: a kind's metric set
(:meth:`simeval.kinds.base.TaskKind.metrics`), the bootstrap's values (:func:`resampled_values`;
a metric without a vectorised function is computed replicate by replicate, so its interval is
never missing), the report's columns, ranking direction, Fisher-z column and paired test
(:mod:`simeval.report.compare`), the smallest detectable difference
(:func:`simeval.metrics.tiers.detectable_difference`), the metric table in the docs
(:func:`simeval.metrics.catalog.markdown_table`) and the property tests every declared metric
passes (``tests/metrics/test_common.py``).

Rows are the columns of one result (``Columns``), or, for a suite kind, the list of its
members' columns. :class:`Sorted` holds one result's columns and the sorts every resample
reuses (ranks, precision-recall groups, RUSSE's labelling), computed once; :class:`Replicates`
is one block of resamples (a (B, n) matrix of row multiplicities) and the per-block work that
several metrics share (the precision-recall points of AP and ROC AUC, STS's per-member fits).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from simeval.metrics import weighted as wt
from simeval.metrics.classification import LEGACY_TIE_TOLERANCE

Columns = Mapping[str, np.ndarray]
Rows = Any  # Columns, or a suite's list of its members' Columns


class Sorted:
    """One result's (or suite member's) columns and the sorts its resampled metrics reuse."""

    def __init__(self, columns: Columns) -> None:
        self.c = columns

    @cached_property
    def score_ranks(self) -> wt.Ranking:
        return wt.Ranking(self.c["score"])

    @cached_property
    def gold_ranks(self) -> wt.Ranking:
        return wt.Ranking(self.c["gold"])

    @cached_property
    def curve_2015(self) -> wt.ScoreGroups:
        return wt.ScoreGroups(self.c["gold"], self.c["score"], LEGACY_TIE_TOLERANCE)

    @cached_property
    def curve(self) -> wt.ScoreGroups:
        return wt.ScoreGroups(self.c["gold"], self.c["score"], 0.0)

    @cached_property
    def labels(self) -> wt.RusseLabels:
        return wt.RusseLabels(self.c["word1"], self.c["word2"], self.c["score"])


class Replicates:
    """A block of resamples: row b of ``w`` (B, n) gives how often each row of ``p`` enters
    resample b. A suite's block also has its ``members``: each member's rows (indices into
    ``p``) and their :class:`Sorted`."""

    def __init__(
        self, p: Sorted, w: np.ndarray, members: Sequence[tuple[np.ndarray, Sorted]] = ()
    ) -> None:
        self.p = p
        self.c = p.c
        self.w = w
        self.members = list(members)

    @cached_property
    def total(self) -> np.ndarray:
        """(B,) rows in each resample."""
        return self.w.sum(axis=1)

    @cached_property
    def points_2015(self) -> tuple:
        """Each resample's precision-recall points with the 2015 scorer's near-tie merging."""
        return self.p.curve_2015.points(self.w)

    @cached_property
    def points(self) -> tuple:
        """Each resample's precision-recall points at exact ties (without near-ties these are
        the 2015 thresholds: one set of points serves both)."""
        if self.p.curve.same_groups(self.p.curve_2015):
            return self.points_2015
        return self.p.curve.points(self.w)

    @cached_property
    def member_fits(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A suite's members fitted by least squares within each resample: (B, n) the fitted
        scores, (M, B) each member's Pearson r and (M, B) its size."""
        fitted = np.empty(self.w.shape)
        rs, sizes = [], []
        for rows, part in self.members:
            wm = self.w[:, rows]
            b1, b2 = wt.least_squares(part.c["score"], part.c["gold"], wm)
            fitted[:, rows] = b1[:, None] * part.c["score"] + b2[:, None]
            rs.append(wt.pearson(part.c["score"], part.c["gold"], wm))
            sizes.append(wm.sum(axis=1))
        return fitted, np.array(rs), np.array(sizes)

    def drawn(self, b: int) -> Rows:
        """Resample ``b`` as rows (each row repeated as often as it was drawn), for a metric
        without a vectorised function."""
        counts = np.asarray(self.w[b], dtype=np.int64)
        if not self.members:
            index = np.repeat(np.arange(len(counts)), counts)
            return {k: v[index] for k, v in self.c.items()}
        parts = []
        for rows, part in self.members:
            index = np.repeat(np.arange(len(rows)), counts[rows])
            parts.append({k: v[index] for k, v in part.c.items()})
        return parts


# -- what a metric is: its family --------------------------------------------------------------
CORRELATION = "correlation"  # one correlation of the scores with the gold over the items
AGGREGATE = "aggregate"  # a combination of per-member correlations (STS ALLnrm, Mean)
SHARE = "share"  # a proportion, or a mean of per-item values in [0, 1] (accuracy, success@k, MRR)
AREA = "area"  # an area under a curve over binary gold (AP, ROC AUC)
COUNT = "count"  # a tally (trec_eval's num_*), not a score
OTHER = "other"  # none of these: intervals and tests from the bootstrap alone
FAMILIES = (CORRELATION, AGGREGATE, SHARE, AREA, COUNT, OTHER)

# -- the bounds most metrics have (``Metric.bounds``) -----------------------------------------
R_RANGE = (-1.0, 1.0)  # a correlation
UNIT = (0.0, 1.0)  # a proportion, an area or a mean of per-query values in [0, 1]
TALLY = (0.0, float("inf"))  # a count

# -- the interval the report shows beside every metric's bootstrap percentile interval --------
PERCENTILE = "bootstrap percentile"  # that one alone
FISHER_Z = "Fisher z"  # also Fisher's z (Bonett-Wright's variance for a rank correlation)
INTERVALS = (PERCENTILE, FISHER_Z)

# -- the paired test that compares two systems on it (the names the comparisons carry) --------
WILLIAMS = "Williams"  # dependent correlations sharing the gold (r23 of the same kind)
RANDOMIZATION = "approximate randomization"  # outputs swapped item by item
BOOTSTRAP = "paired bootstrap"
TESTS = (WILLIAMS, RANDOMIZATION, BOOTSTRAP)


@dataclass(frozen=True)
class Metric:
    """One metric, declared once.

    ``point(rows)`` is the metric over a result's rows; ``resampled(r)`` the same metric over
    every resample of a :class:`Replicates` block at once ((B,) values), or None: it is then
    computed replicate by replicate from ``point``. ``needs``: columns that must be present
    for the metric to apply (STS's confidences); without them the metric is left out of the
    record. ``bounds``: the (lowest, highest) value the metric can take, when it has such
    bounds; a record read back with a value outside them is refused
    (:func:`simeval.results.record.check_record`).

    ``family`` (one of ``FAMILIES``): what the value is; a ``COUNT`` is a tally (``count``), not
    a score: suites do not average it and the report's metric table does not show it.
    ``interval`` (``INTERVALS``): what the report shows beside the bootstrap's percentile
    interval. ``paired_test`` (``TESTS``): the paired test of two systems' main metric
    (:func:`simeval.report.compare.compare`). ``ranks``: the value depends on the system's
    scores (a linking run's) only through their order, ties included (a rank correlation takes
    Spearman's variance and r23). ``symmetric``: it is the same with scores and gold swapped.
    ``reaches_top``: a perfect prediction (a linking run: every relevant document first, by
    decreasing relevance) scores its best bound; False when the best it can do depends on the
    gold (P@k of a query with fewer than k relevant documents, recall@k of one with more).
    ``reference``: an expression of an independent implementation that gives the same value
    (``scipy.stats.spearmanr(score, gold).statistic``), over the rows' columns by name (a
    suite's: pooled, and ``parts``; a linking result's: also ``qrels`` and ``run`` as
    pytrec_eval reads them); empty when there is none (``no_reference`` says why). The property
    tests read all of these.
    """

    name: str
    kinds: tuple[str, ...]
    point: Callable[[Rows], float]
    resampled: Callable[[Replicates], np.ndarray] | None = None
    higher_is_better: bool = True
    needs: tuple[str, ...] = ()
    description: str = ""
    scorer: str = ""  # the official scorer it matches
    bounds: tuple[float, float] | None = None
    family: str = field(kw_only=True)
    interval: str = PERCENTILE
    paired_test: str = BOOTSTRAP
    ranks: bool = False
    symmetric: bool = False
    reaches_top: bool = True
    reference: str = ""
    no_reference: str = ""

    def __post_init__(self) -> None:
        for what, value, allowed in (
            ("family", self.family, FAMILIES),
            ("interval", self.interval, INTERVALS),
            ("paired_test", self.paired_test, TESTS),
        ):
            if value not in allowed:
                raise ValueError(f"metric {self.name!r}: {what} {value!r} is not one of {allowed}")

    @property
    def count(self) -> bool:
        """A tally (trec_eval's ``num_*``), not a score."""
        return self.family == COUNT

    def applies(self, columns: Collection[str]) -> bool:
        """Whether the rows' columns hold everything the metric reads."""
        return all(c in columns for c in self.needs)

    @property
    def vectorised(self) -> bool:
        """Whether its resamples are computed at once (else replicate by replicate)."""
        return self.resampled is not None


def point_values(metrics: Sequence[Metric], rows: Rows) -> dict[str, float]:
    """Every metric of ``metrics`` over ``rows``, in their order."""
    return {m.name: float(m.point(rows)) for m in metrics}


def resampled_values(metrics: Sequence[Metric], r: Replicates) -> dict[str, np.ndarray]:
    """Every metric of ``metrics`` over each resample of ``r``: vectorised where declared so,
    else one point value per replicate."""
    out = {}
    for m in metrics:
        if m.resampled is not None:
            out[m.name] = m.resampled(r)
        else:
            out[m.name] = np.array([m.point(r.drawn(b)) for b in range(len(r.w))], dtype=float)
    return out
