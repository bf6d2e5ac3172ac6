"""Each task kind's metric set over many bootstrap resamples at once.

The same metrics as :mod:`simeval.tasks.items` defines, computed for a (B, n) matrix of row
multiplicities instead of one array of drawn rows (:mod:`simeval.metrics.weighted`), so a
report's B = 1000 replicates cost a few array passes rather than 1000 metric calls. Keys come
in the same order as the per-resample functions give them; tests check the two against each
other on every kind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cached_property

import numpy as np

from simeval.metrics import weighted as wt
from simeval.metrics.classification import LEGACY_TIE_TOLERANCE
from simeval.results.items import COUNTS, LINKING_METRICS

Batch = dict[str, np.ndarray]


class Sorted:
    """One result's (or suite member's) columns and the sorts its resampled metrics reuse."""

    def __init__(self, columns: Mapping[str, np.ndarray]) -> None:
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


def graded(p: Sorted, w: np.ndarray, main_only: bool) -> Batch:
    rho = wt.spearman(p.score_ranks, p.gold_ranks, w)
    if main_only:
        return {"spearman": rho}
    return {"spearman": rho, "pearson": wt.pearson(p.c["score"], p.c["gold"], w)}


def related(p: Sorted, w: np.ndarray, main_only: bool) -> Batch:
    points_2015 = p.curve_2015.points(w)
    out = {"ap_trapezoid": wt.average_precision(points_2015, trapezoid=True)}
    if main_only:
        return out
    # without near-ties the 2015 thresholds are the exact ones: one set of points serves all
    points = points_2015 if p.curve.same_groups(p.curve_2015) else p.curve.points(w)
    out["ap"] = wt.average_precision(points, trapezoid=False)
    out["accuracy"] = p.labels.accuracy(p.c["gold"], w)
    out["roc_auc"] = wt.roc_auc(points)
    return out


def sts(p: Sorted, w: np.ndarray, main_only: bool) -> Batch:
    out = {"pearson": wt.pearson(p.c["score"], p.c["gold"], w)}
    if main_only:
        return out
    out["spearman"] = wt.spearman(p.score_ranks, p.gold_ranks, w)
    if "confidence" in p.c:
        out["weighted_pearson"] = wt.weighted_pearson(
            p.c["score"], p.c["gold"], p.c["confidence"], w
        )
    return out


def linking(p: Sorted, w: np.ndarray, main_only: bool) -> Batch:
    total = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = {k: w @ p.c[k] / total for k in LINKING_METRICS}
    if not main_only and all(k in p.c for k in COUNTS):
        out = {**out, "num_q": total, **{k: w @ p.c[k] for k in COUNTS}}
    return out


KINDS: dict[str, Callable[[Sorted, np.ndarray, bool], Batch]] = {
    "graded-pairs": graded,
    "related-pairs": related,
    "sts": sts,
    "linking": linking,
}


def sts_suite(
    whole: Sorted,
    members: list[tuple[np.ndarray, Sorted]],
    w: np.ndarray,
    main_only: bool,
    all_main: bool,
) -> Batch:
    """SemEval-2012's ALL (Pearson over the pooled rows), ALLnrm (each member's scores fitted to
    its gold by least squares, then pooled) and Mean (members' r weighted by their sizes)."""
    out = {"all": wt.pearson(whole.c["score"], whole.c["gold"], w)}
    if main_only and all_main:
        return out
    fitted = np.empty(w.shape)
    rs, sizes = [], []
    for rows, part in members:
        wm = w[:, rows]
        b1, b2 = wt.least_squares(part.c["score"], part.c["gold"], wm)
        fitted[:, rows] = b1[:, None] * part.c["score"] + b2[:, None]
        rs.append(wt.pearson(part.c["score"], part.c["gold"], wm))
        sizes.append(wm.sum(axis=1))
    out["allnrm"] = wt.pearson(fitted, whole.c["gold"], w)
    n = np.array(sizes)
    out["mean"] = (np.array(rs) * n).sum(axis=0) / n.sum(axis=0)
    if not main_only:
        out["pooled_spearman"] = wt.spearman(whole.score_ranks, whole.gold_ranks, w)
    return out
