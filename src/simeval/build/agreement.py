"""Inter-annotator agreement from individual ratings: the ceiling a measure is compared with.

- *Average pairwise Spearman* (the SimLex-999 paper's agreement, 0.67 there and 0.61 for
  WordSim-353 "by the same method"): the mean of Spearman's ρ over all pairs of raters.
- *Leave-one-out*: the mean over raters of ρ between the rater and the mean of all the others.

Ratings are a pairs × raters matrix; NaN marks an item a rater did not rate, and each ρ uses
the items both sides rated.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from simeval.data.pairs import read_pair_table
from simeval.data.textio import parse_float
from simeval.errors import InputError


@dataclass(frozen=True)
class Agreement:
    name: str
    items: int
    raters: int
    pairwise: float
    leave_one_out: float


def _rho(a: np.ndarray, b: np.ndarray) -> float:
    both = ~(np.isnan(a) | np.isnan(b))
    if both.sum() < 3:
        return float("nan")
    return float(spearmanr(a[both], b[both])[0])


def pairwise_spearman(ratings: np.ndarray) -> float:
    """Mean Spearman's ρ over every pair of raters (columns)."""
    values = [
        _rho(ratings[:, i], ratings[:, j]) for i, j in combinations(range(ratings.shape[1]), 2)
    ]
    return float(np.nanmean(values))


def leave_one_out(ratings: np.ndarray) -> float:
    """Mean over raters of ρ(rater, mean of the other raters)."""
    values = []
    for i in range(ratings.shape[1]):
        others = np.delete(ratings, i, axis=1)
        with warnings.catch_warnings():  # an item only this rater rated has no others' mean
            warnings.simplefilter("ignore", RuntimeWarning)
            values.append(_rho(ratings[:, i], np.nanmean(others, axis=1)))
    return float(np.nanmean(values))


def read_ratings(path: str | Path, first: int = 3) -> np.ndarray:
    """Individual ratings from a pair file whose columns from ``first`` (0-based) on are raters
    (WordSim-353's set1.tab and set2.tab: word1, word2, mean, then one column per rater)."""
    table = read_pair_table(path)
    if len(table.columns) <= first + 1:
        raise InputError(path, None, f"expected rater columns after column {first}")
    rows, lines = table.rows, table.lines
    width = len(table.columns)
    out = np.full((len(rows), width - first), np.nan)
    for r, (row, line) in enumerate(zip(rows, lines, strict=True)):
        for c, cell in enumerate(row[first:width]):
            if cell.strip():
                out[r, c] = parse_float(cell, path, line, "rating")
    keep = ~np.all(np.isnan(out), axis=0)  # WordSim-353 rows end with an empty field
    return out[:, keep]


def agreement(name: str, ratings: np.ndarray) -> Agreement:
    return Agreement(
        name, ratings.shape[0], ratings.shape[1], pairwise_spearman(ratings), leave_one_out(ratings)
    )


def pooled(name: str, parts: list[Agreement]) -> Agreement:
    """Several rater groups (WordSim-353's set1 and set2) as one: item-weighted means."""
    n = sum(p.items for p in parts)
    return Agreement(
        name,
        n,
        sum(p.raters for p in parts),
        sum(p.pairwise * p.items for p in parts) / n,
        sum(p.leave_one_out * p.items for p in parts) / n,
    )


# Benchmarks whose individual ratings ship with the data: the data files of each rater group.
RATINGS = {"wordsim353": ("wordsim353/set1.tab", "wordsim353/set2.tab")}
