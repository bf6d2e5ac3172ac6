"""Related/unrelated pairs: average precision (two variants), RUSSE accuracy, ROC AUC.

``y_true`` holds 1 for related and 0 for unrelated pairs; ``y_score`` is the system's similarity.
All functions return NaN when only one class is present (the metric is undefined).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simeval.metrics.correlation import average_ranks

ArrayLike = Sequence[float] | np.ndarray

# scikit-learn 0.16-0.18 merged thresholds whose scores were np.isclose(diff, 0), i.e. within
# 1e-8 of each other; later versions merge only exactly equal scores.
LEGACY_TIE_TOLERANCE = 1e-8


def _pr_points(
    y_true: ArrayLike, y_score: ArrayLike, tie_tolerance: float
) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Cumulative (true positives, false positives) at each distinct threshold, score descending,
    and the number of positives; None when a class is missing."""
    y = np.asarray(y_true, dtype=float)
    s = np.asarray(y_score, dtype=float)
    positives = int((y == 1).sum())
    if positives == 0 or positives == len(y):
        return None
    order = np.argsort(s, kind="mergesort")[::-1]
    s, y = s[order], y[order]
    step = np.diff(s)
    distinct = (
        np.flatnonzero(np.abs(step) > tie_tolerance) if tie_tolerance else np.flatnonzero(step)
    )
    ends = np.append(distinct, len(y) - 1)
    tps = np.cumsum(y == 1)[ends].astype(float)
    fps = (ends + 1) - tps
    return tps, fps, positives


def average_precision(y_true: ArrayLike, y_score: ArrayLike) -> float:
    """Step-wise average precision, as ``sklearn.metrics.average_precision_score`` (≥ 0.19).

    Thresholds t_1 > t_2 > … are the distinct scores (tied pairs enter together). With P_k and R_k
    the precision and recall of the pairs scoring ≥ t_k: AP = Σ_k (R_k − R_{k−1}) · P_k, R_0 = 0.
    Without ties this is Σ_r P@r / R over the ranks r of related pairs (the RUSSE paper's AveP).
    """
    points = _pr_points(y_true, y_score, 0.0)
    if points is None:
        return float("nan")
    tps, fps, positives = points
    precision = tps / (tps + fps)
    recall = tps / positives
    return float(np.sum(np.diff(recall, prepend=0.0) * precision))


def precision_recall_curve(y_true: ArrayLike, y_score: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """(precision, recall) at each distinct score threshold, highest first, as
    ``sklearn.metrics.precision_recall_curve`` gives them reversed and without its final
    (1, 0) point. Empty arrays when a class is missing."""
    points = _pr_points(y_true, y_score, 0.0)
    if points is None:
        return np.array([]), np.array([])
    tps, fps, positives = points
    return tps / (tps + fps), tps / positives


def average_precision_trapezoid(y_true: ArrayLike, y_score: ArrayLike) -> float:
    """Average precision as the RUSSE 2015 scorer computed it (scikit-learn 0.16–0.18).

    ``average_precision_score`` was then ``auc(recall, precision)`` over
    ``precision_recall_curve``: thresholds are the distinct scores (scores within 1e-8 count as
    tied), the curve stops at the first threshold reaching full recall, the point
    (recall 0, precision 1) is appended, and the area is taken by the trapezoid rule:
    AP = Σ_k (R_k − R_{k−1}) · (P_k + P_{k−1}) / 2 with (R_0, P_0) = (0, 1).
    It exceeds the step-wise value whenever precision falls between thresholds.
    """
    points = _pr_points(y_true, y_score, LEGACY_TIE_TOLERANCE)
    if points is None:
        return float("nan")
    tps, fps, positives = points
    last = int(np.searchsorted(tps, tps[-1]))
    precision = np.concatenate(([1.0], (tps / (tps + fps))[: last + 1]))
    recall = np.concatenate(([0.0], (tps / positives)[: last + 1]))
    return float(np.sum(np.diff(recall) * (precision[1:] + precision[:-1]) / 2))


def roc_auc(y_true: ArrayLike, y_score: ArrayLike) -> float:
    """Area under the ROC curve, as ``sklearn.metrics.roc_auc_score`` for binary labels.

    Computed as the Mann–Whitney statistic: the probability that a random related pair scores
    above a random unrelated one, ties counting one half:
    AUC = (Σ ranks of related − R(R+1)/2) / (R · U), ranks averaged over ties.
    """
    y = np.asarray(y_true, dtype=float) == 1
    positives, negatives = int(y.sum()), int((~y).sum())
    if positives == 0 or negatives == 0:
        return float("nan")
    ranks = average_ranks(np.asarray(y_score, dtype=float))  # scipy's rankdata, tie-averaged
    return float((ranks[y].sum() - positives * (positives + 1) / 2) / (positives * negatives))


def russe_labels(word1: Sequence[str], word2: Sequence[str], y_score: ArrayLike) -> np.ndarray:
    """RUSSE 2015 predicted labels: within each word1, sort its pairs by score descending, ties
    by word2 ascending (code-point order); the first ⌊n/2⌋ of its n pairs are related (1).

    This is the official scorer's rule (``evaluate.py``: sort by word1, usim desc, word2; a pair
    at 1-based position i is related iff i ≤ n/2).
    """
    w1 = np.asarray(word1)  # strings, or integer codes in the strings' order
    w2 = np.asarray(word2)
    s = np.asarray(y_score, dtype=float)
    order = np.lexsort((w2, -s, w1))
    sorted_w1 = w1[order]
    starts = np.concatenate(([0], np.flatnonzero(sorted_w1[1:] != sorted_w1[:-1]) + 1))
    sizes = np.diff(starts, append=len(order))
    position = np.arange(len(order)) - np.repeat(starts, sizes) + 1
    labels = np.empty(len(order), dtype=np.int64)
    labels[order] = (position <= np.repeat(sizes, sizes) / 2).astype(np.int64)
    return labels


def russe_accuracy(
    word1: Sequence[str], word2: Sequence[str], y_score: ArrayLike, y_true: ArrayLike
) -> float:
    """RUSSE 2015 accuracy: the share of pairs whose :func:`russe_labels` label equals gold
    (``sklearn.metrics.accuracy_score`` of those labels, as the official scorer did)."""
    if len(y_true) == 0:
        return float("nan")
    labels = russe_labels(word1, word2, y_score)
    return float(np.mean(labels == np.asarray(y_true, dtype=float)))
