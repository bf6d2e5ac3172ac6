"""Inter-annotator agreement over a ratings matrix: items × raters, NaN where a rater did not
rate an item. Each Spearman's ρ between two raters uses the items both rated.

- *Average pairwise Spearman* (SimLex-999's agreement, 0.67 there and 0.61 for WordSim-353
  "by the same method"): the mean of ρ over every two raters with at least 3 shared items.
- *Leave-one-out*: the mean over raters of ρ between the rater and the mean of the others.
- *Krippendorff's α* for ordinal or interval data (the ``krippendorff`` package):
  α = 1 − D_o / D_e from the coincidence matrix of pairable values.
- Per-item sample SD (n − 1), NaN below two ratings.
"""

from __future__ import annotations

import math
import warnings
from itertools import combinations

import numpy as np

from simeval.metrics.correlation import average_ranks


def rho(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's ρ of two raters on the items both rated; NaN below 3 such items or when a
    side is constant there.

    Computed as ``scipy.stats.spearmanr`` does, to the bit: tie-averaged ranks (exact
    half-integers, as ``rankdata``'s), then ``numpy.corrcoef`` of the two ranked rows. Not
    ``spearmanr`` itself: importing ``scipy.stats`` took about a second of the report's start
    (its agreement ceilings), for this one function."""
    both = ~(np.isnan(a) | np.isnan(b))
    if both.sum() < 3 or np.ptp(a[both]) == 0 or np.ptp(b[both]) == 0:
        return math.nan
    ranked = np.vstack((average_ranks(a[both]), average_ranks(b[both])))
    return float(np.corrcoef(ranked)[1, 0])


def rho_matrix(ratings: np.ndarray) -> np.ndarray:
    """ρ of every two raters (columns); the diagonal is NaN."""
    k = ratings.shape[1]
    out = np.full((k, k), np.nan)
    for i, j in combinations(range(k), 2):
        out[i, j] = out[j, i] = rho(ratings[:, i], ratings[:, j])
    return out


def nan_mean(values: np.ndarray) -> float:
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(values.mean()) if len(values) else math.nan


def average_pairwise(rhos: np.ndarray, keep: list[int] | None = None) -> float:
    """The average pairwise ρ of the raters ``keep`` (all by default), from :func:`rho_matrix`."""
    keep = list(range(len(rhos))) if keep is None else keep
    sub = rhos[np.ix_(keep, keep)]
    return nan_mean(sub[np.triu_indices(len(keep), 1)])


def pairwise_spearman(ratings: np.ndarray) -> float:
    """Mean Spearman's ρ over every two raters (columns)."""
    return average_pairwise(rho_matrix(ratings))


def leave_one_out(ratings: np.ndarray) -> float:
    """Mean over raters of ρ(rater, mean of the other raters)."""
    values = []
    for i in range(ratings.shape[1]):
        others = np.delete(ratings, i, axis=1)
        with warnings.catch_warnings():  # an item only this rater rated has no others' mean
            warnings.simplefilter("ignore", RuntimeWarning)
            values.append(rho(ratings[:, i], np.nanmean(others, axis=1)))
    return nan_mean(np.array(values))


def item_sd(ratings: np.ndarray) -> np.ndarray:
    """Sample SD (n − 1) of each item's ratings; NaN below two ratings."""
    n = np.sum(~np.isnan(ratings), axis=1)
    out = np.full(len(ratings), np.nan)
    rated = n >= 2
    if rated.any():
        out[rated] = np.nanstd(ratings[rated], axis=1, ddof=1)
    return out


def krippendorff_alpha(ratings: np.ndarray, level: str) -> float:
    """Krippendorff's α of an items × raters matrix, ``ordinal`` or ``interval`` (the
    ``krippendorff`` package takes raters × items)."""
    try:
        import krippendorff
    except ImportError as exc:  # pragma: no cover
        raise ImportError("Krippendorff's alpha needs: pip install 'simeval[build]'") from exc
    return float(krippendorff.alpha(reliability_data=ratings.T, level_of_measurement=level))
