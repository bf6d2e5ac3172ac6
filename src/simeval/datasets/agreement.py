"""Inter-annotator agreement of a benchmark's individual ratings (WordSim-353's set1 and set2):
the ceiling a measure is compared with. The measures themselves (average pairwise Spearman,
leave-one-out) are in :mod:`simeval.metrics.agreement`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simeval.data.pair_files import read_pair_table
from simeval.data.textio import parse_float
from simeval.errors import InputError
from simeval.metrics.agreement import leave_one_out, pairwise_spearman

__all__ = ["Agreement", "agreement", "leave_one_out", "pairwise_spearman", "pooled", "read_ratings"]


@dataclass(frozen=True)
class Agreement:
    name: str
    items: int
    raters: int
    pairwise: float
    leave_one_out: float


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
