"""A metric declared once: the :class:`Metric` object, and the sorts its resampled values share.

A declaration names the metric, the task kinds it belongs to, its point function over a
result's rows, its direction and its documentation, and, when it has one, its vectorised
resampled function (:mod:`.weighted`). Everything else is derived from it: a kind's metric set
(:meth:`simeval.kinds.base.TaskKind.metrics`), the bootstrap's values (:func:`resampled_values`;
a metric without a vectorised function is computed replicate by replicate, so its interval is
never missing), the report's columns and ranking direction, and the metric table in the docs
(:func:`simeval.metrics.catalog.markdown_table`).

Rows are the columns of one result (``Columns``), or, for a suite kind, the list of its
members' columns. :class:`Sorted` holds one result's columns and the sorts every resample
reuses (ranks, precision-recall groups, RUSSE's labelling), computed once; :class:`Replicates`
is one block of resamples (a (B, n) matrix of row multiplicities) and the per-block work that
several metrics share (the precision-recall points of AP and ROC AUC, STS's per-member fits).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Metric:
    """One metric, declared once.

    ``point(rows)`` is the metric over a result's rows; ``resampled(r)`` the same metric over
    every resample of a :class:`Replicates` block at once ((B,) values), or None: it is then
    computed replicate by replicate from ``point``. ``needs``: columns that must be present
    for the metric to apply (STS's confidences); without them the metric is left out of the
    record. ``count``: a tally (trec_eval's ``num_*``), not a score: suites do not average it
    and the report's metric table does not show it. ``bounds``: the (lowest, highest) value the
    metric can take, when it has such bounds; a record read back with a value outside them is
    refused (:func:`simeval.results.record.check_record`).
    """

    name: str
    kinds: tuple[str, ...]
    point: Callable[[Rows], float]
    resampled: Callable[[Replicates], np.ndarray] | None = None
    higher_is_better: bool = True
    needs: tuple[str, ...] = ()
    count: bool = False
    description: str = ""
    scorer: str = ""  # the official scorer it matches
    bounds: tuple[float, float] | None = None

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
