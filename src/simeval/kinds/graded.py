"""Graded word pairs (SimLex-999, WordSim-353, RUSSE HJ...): Spearman's ρ (main), Pearson's r.

Rows: ``word1, word2, gold, score, covered, counted`` and the gold file's extra columns
(:mod:`.pairs`). A registry file declares one as ``kind = "graded"``.
"""

from __future__ import annotations

import numpy as np

from simeval.kinds.base import Batch, Columns
from simeval.kinds.pairs import PairKind
from simeval.kinds.resampled import Sorted
from simeval.metrics import pearson, spearman
from simeval.metrics import weighted as wt


def graded_metrics(gold: np.ndarray, score: np.ndarray) -> dict[str, float]:
    """Spearman's ρ (main) and Pearson's r of system scores with graded gold."""
    return {"spearman": spearman(score, gold), "pearson": pearson(score, gold)}


class GradedPairs(PairKind):
    name = "graded-pairs"
    toml = ("graded",)
    main = "spearman"
    plot = "scatter"
    fisher_z = True

    def metrics(self, c: Columns, main_only: bool) -> dict[str, float]:
        if main_only:
            return {"spearman": spearman(c["score"], c["gold"])}
        return graded_metrics(c["gold"], c["score"])

    def resampled(self, p: Sorted, w: np.ndarray, main_only: bool) -> Batch:
        rho = wt.spearman(p.score_ranks, p.gold_ranks, w)
        if main_only:
            return {"spearman": rho}
        return {"spearman": rho, "pearson": wt.pearson(p.c["score"], p.c["gold"], w)}


GRADED = GradedPairs()
