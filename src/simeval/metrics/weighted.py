"""Metrics of many resamples of the same items at once, each resample given by its weights.

A bootstrap replicate repeats item i w_i times (w_i = 0: left out). Every metric here is a
function of the items in their original order and a (B, n) matrix W of such multiplicities, and
returns B values, one per row of W, equal (up to floating-point summation order) to the plain
metric of the expanded resample. Ranks, precision-recall points and RUSSE's labels are derived
from one sort of the original items — the resample never needs sorting again:

- a tie group g (items of equal value) of a resample holds c_g = Σ_{i∈g} w_i copies; its
  average rank is C_{g−1} + (c_g + 1)/2 with C the running sum of c over the groups in value
  order — O(n) per replicate, vectorised over replicates;
- precision-recall points at each distinct score of the resample are running sums of w·y and
  w·(1−y) over the score order, read at the last present item of each threshold group;
- RUSSE's labels give the first ⌊N/2⌋ of a word1's N resampled pairs (in score order) the
  label related: a pair occupying positions (P, P + w] of its word1 gets min(w, max(0, ⌊N/2⌋ − P))
  related copies.

:mod:`simeval.metrics.stats` uses these for bootstrap intervals and paired bootstraps; the
per-resample functions in :mod:`.correlation` and :mod:`.classification` remain the reference
(tests check one against the other on every kind of result).
"""

from __future__ import annotations

import numpy as np

from simeval.metrics.classification import LEGACY_TIE_TOLERANCE
from simeval.metrics.correlation import unit_scale


def _constant(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Whether the values present in each resample are all equal (x: (n,) or (B, n))."""
    x = np.broadcast_to(x, w.shape)
    present = w > 0
    high = np.where(present, x, -np.inf).max(axis=1)
    low = np.where(present, x, np.inf).min(axis=1)
    return ~(high > low)


def _flat(x: np.ndarray, w: np.ndarray, spread: np.ndarray, total: np.ndarray) -> np.ndarray:
    """Whether each resample's values are constant, given spread = Σ w (x − m)². A constant
    resample's spread is rounding noise, at most total · (4 n ε max|x|)²; only resamples
    within that bound are examined value by value (usually none)."""
    out = ~(spread > 0)
    scale = float(np.max(np.abs(x))) if x.size else 0.0
    bound = total * (4 * x.shape[-1] * np.finfo(float).eps * scale) ** 2
    suspect = np.flatnonzero(~(spread > bound))
    if len(suspect):
        out[suspect] |= _constant(x[suspect] if x.ndim == 2 else x, w[suspect])
    return out


def pearson(
    x: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    count: np.ndarray | None = None,
    constant: np.ndarray | None = None,
) -> np.ndarray:
    """Pearson's r of each resample: with weights w (a row of W),
    r = Σ w (x − m_x)(y − m_y) / sqrt(Σ w (x − m_x)² · Σ w (y − m_y)²), m = Σ w x / Σ w.

    x and y are (n,) or (B, n) (per-resample values, e.g. ranks); NaN where either side is
    constant in the resample (``constant`` when the caller knows it already) or it has fewer
    than two items (``count``: the resample's size when w is not a multiplicity), as
    :func:`simeval.metrics.correlation.pearson`.
    """
    x = unit_scale(np.asarray(x, dtype=float)) if np.ndim(x) == 1 else x
    y = unit_scale(np.asarray(y, dtype=float)) if np.ndim(y) == 1 else y
    total = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = x - ((w * x).sum(axis=1) / total)[:, None]
        dy = y - ((w * y).sum(axis=1) / total)[:, None]
        wdx = w * dx
        sxy, sxx, syy = (wdx * dy).sum(axis=1), (wdx * dx).sum(axis=1), (w * dy * dy).sum(axis=1)
        r = np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0)
    if constant is None:
        constant = _flat(x, w, sxx, total) | _flat(y, w, syy, total)
    size = total if count is None else count
    undefined = (size < 2) | ~(total > 0) | constant | ~(sxx > 0) | ~(syy > 0)
    return np.where(undefined, np.nan, r)


def weighted_pearson(x: np.ndarray, y: np.ndarray, c: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The confidence-weighted r of each resample: weights c·w (multiplicity times confidence)."""
    c = unit_scale(np.asarray(c, dtype=float))
    return pearson(x, y, w * c, count=w.sum(axis=1))


class Groups:
    """One sort of n values into groups of equal values (or, with ``tolerance``, of
    neighbours within it), reused for any number of resamples."""

    def __init__(self, x: np.ndarray, descending: bool = False, tolerance: float = 0.0) -> None:
        self.x = np.asarray(x, dtype=float)
        order = np.argsort(self.x, kind="mergesort")
        self.order = order[::-1] if descending else order
        xs = self.x[self.order]
        step = np.abs(np.diff(xs))
        new = step > tolerance if tolerance else step != 0
        starts = np.flatnonzero(new) + 1
        self.ends = np.append(starts, len(xs)) - 1  # last position of each group
        self.starts = np.concatenate(([0], starts))
        self.group = np.empty(len(xs), dtype=np.int64)  # each item's group
        self.group[self.order] = np.cumsum(np.concatenate(([False], new)))
        self.singletons = len(self.ends) == len(xs)

    def cumulative(self, w: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        """(B, G): the copies in each resample up to and including each group, in sort order
        (only the items where ``mask``, a boolean per item, is set)."""
        w = w[:, self.order]
        if mask is not None:
            w = w * mask[self.order]
        c = np.cumsum(w, axis=1)
        return c if self.singletons else c[:, self.ends]


class Ranking(Groups):
    """Ascending tie groups: each resample's average ranks."""

    def ranks(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(B, n) each item's average rank among its resample's copies (1-based), and (B,)
        whether the resample holds a single value."""
        if not len(self.x):
            return np.zeros(w.shape), np.ones(len(w), dtype=bool)
        upto = self.cumulative(w)
        c = np.diff(upto, axis=1, prepend=0.0)
        average = upto - (c - 1) / 2  # group g: C_{g−1} + (c_g + 1)/2
        return average[:, self.group], c.max(axis=1) >= upto[:, -1]


def spearman(x: Ranking, y: Ranking, w: np.ndarray) -> np.ndarray:
    """Spearman's ρ of each resample: Pearson's r of its average ranks."""
    rx, cx = x.ranks(w)
    ry, cy = y.ranks(w)
    return pearson(rx, ry, w, constant=cx | cy)


class ScoreGroups(Groups):
    """Gold labels grouped by score threshold, descending, for the resamples' PR points and AUC.

    Thresholds are the distinct scores present in a resample; with ``tolerance`` two
    consecutive present scores within it are one threshold (the 2015 scorer's scikit-learn
    merged scores within 1e-8), decided on the resample's own neighbours as that code did.
    When every merged group of the full data spans at most ``tolerance`` (always, unless
    scores form chains of near-ties), a resample's thresholds are the full data's groups that
    it draws from, and every metric is computed on group counts; otherwise per position.
    """

    def __init__(self, y_true: np.ndarray, y_score: np.ndarray, tolerance: float) -> None:
        super().__init__(y_score, descending=True, tolerance=tolerance)
        self.y = np.asarray(y_true, dtype=float) == 1
        self.s = self.x[self.order]
        self.tolerance = tolerance
        self.grouped = not tolerance or bool(
            np.all(self.s[self.starts] - self.s[self.ends] <= tolerance)
        )

    def same_groups(self, other: ScoreGroups) -> bool:
        return self.grouped and other.grouped and np.array_equal(self.ends, other.ends)

    def points(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Cumulative (tp, fp) per resample at each threshold point, and, on the per-position
        path, which positions close one of the resample's thresholds (None: every group)."""
        if self.grouped:
            tp = self.cumulative(w, self.y)
            return tp, self.cumulative(w) - tp, None
        y = self.y[self.order]
        w = w[:, self.order]
        present = w > 0
        tp = np.cumsum(w * y, axis=1)
        fp = np.cumsum(w * ~y, axis=1)
        n = w.shape[1]
        index = np.broadcast_to(np.arange(n), w.shape)
        # the next present position after each one (n when none)
        nxt = np.minimum.accumulate(np.where(present, index, n)[:, ::-1], axis=1)[:, ::-1]
        nxt = np.concatenate([nxt[:, 1:], np.full((len(w), 1), n)], axis=1)
        step = self.s - np.concatenate([self.s, [np.nan]])[nxt]
        closes = (step > self.tolerance) if self.tolerance else (step != 0)
        return tp, fp, present & (closes | (nxt == n))


def _trapezoid_or_step(
    tp: np.ndarray, fp: np.ndarray, ends: np.ndarray | None, trapezoid: bool
) -> np.ndarray:
    """Σ_k (R_k − R_{k−1}) · h_k over threshold points k, h_k = P_k (step-wise) or
    (P_k + P_{k−1})/2 (trapezoid), (R_0, P_0) = (0, 1). Points that are not thresholds (absent
    groups, or positions that close none when ``ends`` is given) carry the previous point's
    R and P, so they add nothing and pass P on."""
    positives = tp[:, -1:]
    if ends is not None:  # carry each threshold's tp, fp forward over the other positions
        n = tp.shape[1]
        last = np.maximum.accumulate(np.where(ends, np.arange(n), -1), axis=1)
        known = last >= 0
        tp = np.where(known, np.take_along_axis(tp, np.maximum(last, 0), axis=1), 0.0)
        fp = np.where(known, np.take_along_axis(fp, np.maximum(last, 0), axis=1), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        seen = tp + fp
        precision = np.where(seen > 0, tp / np.where(seen > 0, seen, 1), 1.0)
        recall = tp / positives
    gain = np.diff(recall, axis=1, prepend=0.0)
    if trapezoid:
        before = np.concatenate([np.ones((len(tp), 1)), precision[:, :-1]], axis=1)
        return (gain * (precision + before) / 2).sum(axis=1)
    return (gain * precision).sum(axis=1)


def average_precision(
    points: tuple[np.ndarray, np.ndarray, np.ndarray | None], trapezoid: bool
) -> np.ndarray:
    """Step-wise AP Σ_k (R_k − R_{k−1}) P_k, or the 2015 trapezoid Σ_k (R_k − R_{k−1})
    (P_k + P_{k−1})/2 with (R_0, P_0) = (0, 1), over each resample's thresholds
    (:meth:`ScoreGroups.points`; see :mod:`.classification`). Points past full recall add
    R_k − R_{k−1} = 0, so the 2015 curve's stop at full recall needs no special case."""
    tp, fp, ends = points
    positives, negatives = tp[:, -1], fp[:, -1]
    ap = _trapezoid_or_step(tp, fp, ends, trapezoid)
    return np.where((positives > 0) & (negatives > 0), ap, np.nan)


class Swaps:
    """Two systems' outputs coded on the sorted union of their values, for approximate
    randomization: a round's A′ takes b_i where items are swapped and a_i elsewhere, so its
    sorted order is a count per code — no sort per round. Codes of values within
    ``tolerance`` of a neighbour share a group (``grouped`` is False when such chains make the
    groups depend on which values a round holds)."""

    def __init__(self, a: np.ndarray, b: np.ndarray, tolerance: float) -> None:
        union = np.unique(np.concatenate([a, b]))[::-1]  # descending
        groups = Groups(union, descending=True, tolerance=tolerance)
        self.grouped = not tolerance or bool(
            np.all(union[groups.starts] - union[groups.ends] <= tolerance)
        )
        code = groups.group[np.arange(len(union))]  # union position → group, descending
        position = len(union) - 1 - np.searchsorted(union[::-1], a)  # a's value in union
        self.a = code[position]
        self.b = code[len(union) - 1 - np.searchsorted(union[::-1], b)]
        self.k = len(groups.ends)

    def points(self, y_true: np.ndarray, swap: np.ndarray) -> list[tuple]:
        """Cumulative (tp, fp) per threshold group, descending, of A′ and B′ for each round."""
        y = np.broadcast_to(np.asarray(y_true, dtype=float) == 1, swap.shape).ravel()
        offset = (np.arange(len(swap)) * self.k)[:, None]
        out = []
        for codes in (np.where(swap, self.b, self.a), np.where(swap, self.a, self.b)):
            flat = (codes + offset).ravel()
            size = len(swap) * self.k
            pos = np.bincount(flat, weights=y, minlength=size).reshape(-1, self.k)
            total = np.bincount(flat, minlength=size).reshape(-1, self.k)
            tp = np.cumsum(pos, axis=1)
            out.append((tp, np.cumsum(total, axis=1) - tp, None))
        return out


def roc_auc(points: tuple[np.ndarray, np.ndarray, np.ndarray | None]) -> np.ndarray:
    """The Mann–Whitney AUC of each resample from exact-tie group points (descending):
    Σ_g pos_g · (unrelated copies below g + neg_g / 2) / (P · N)."""
    tp, fp, _ = points
    pos, neg = np.diff(tp, axis=1, prepend=0.0), np.diff(fp, axis=1, prepend=0.0)
    p, q = tp[:, -1], fp[:, -1]
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = (pos * (q[:, None] - fp + neg / 2)).sum(axis=1) / (p * q)
    return np.where((p > 0) & (q > 0), auc, np.nan)


class RusseLabels:
    """RUSSE 2015 labelling (:func:`simeval.metrics.classification.russe_labels`) of resamples:
    each word1's pairs in the official order (score descending, word2 ascending), its first
    ⌊N/2⌋ resampled copies related."""

    def __init__(self, word1: np.ndarray, word2: np.ndarray, y_score: np.ndarray) -> None:
        s = np.asarray(y_score, dtype=float)
        w1 = np.asarray(word1)
        self.order = np.lexsort((np.asarray(word2), -s, w1))
        sorted_w1 = w1[self.order]
        self.starts = np.concatenate(([0], np.flatnonzero(sorted_w1[1:] != sorted_w1[:-1]) + 1))
        self.sizes = np.diff(self.starts, append=len(self.order))

    def accuracy(self, y_true: np.ndarray, w: np.ndarray) -> np.ndarray:
        """The share of resampled pairs whose label equals gold."""
        w = w[:, self.order]
        y = (np.asarray(y_true, dtype=float) == 1)[self.order]
        if not w.shape[1]:
            return np.full(len(w), np.nan)
        after = np.cumsum(w, axis=1)  # copies up to and including each pair, from the start
        first = after[:, self.starts] - w[:, self.starts]  # copies before each word1's pairs
        totals = after[:, self.starts + self.sizes - 1] - first
        before = after - w - np.repeat(first, self.sizes, axis=1)  # earlier pairs, same word1
        half = np.floor(np.repeat(totals, self.sizes, axis=1) / 2)
        related = np.clip(half - before, 0, w)
        correct = np.where(y, related, w - related).sum(axis=1)
        n = w.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n > 0, correct / n, np.nan)


def least_squares(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per resample (β1, β2) minimising Σ w (y − β1 x − β2)²; constant x gives β1 = 0,
    β2 = the mean of y (:func:`simeval.metrics.correlation.least_squares_fit`)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    total = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = (w * x).sum(axis=1) / total
        my = (w * y).sum(axis=1) / total
        dx = x - mx[:, None]
        sxx = (w * dx * dx).sum(axis=1)
        beta1 = np.where(
            _constant(x, w) | ~(sxx > 0), 0.0, (w * dx * (y - my[:, None])).sum(1) / sxx
        )
    return beta1, my - beta1 * mx


def chunks(n: int, replicates: int, budget: int = 1 << 18) -> int:
    """Replicates per block so that a (block, n) float matrix holds about ``budget`` cells."""
    return max(1, min(replicates, budget // max(n, 1)))


__all__ = [
    "LEGACY_TIE_TOLERANCE",
    "Ranking",
    "RusseLabels",
    "ScoreGroups",
    "average_precision",
    "chunks",
    "least_squares",
    "pearson",
    "roc_auc",
    "spearman",
    "weighted_pearson",
]
