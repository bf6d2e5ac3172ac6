"""Graded word pairs (SimLex-999, WordSim-353, RUSSE HJ...): Spearman's ρ (main), Pearson's r
(declared in :mod:`simeval.metrics.catalog`).

Rows: ``word1, word2, gold, score, covered, counted`` and the gold file's extra columns
(:mod:`.pairs`). A registry file declares one as ``kind = "graded"``.
"""

from __future__ import annotations

from simeval.kinds.pairs import PairKind


class GradedPairs(PairKind):
    name = "graded-pairs"
    toml = ("graded",)
    main = "spearman"
    plot = "scatter"


GRADED = GradedPairs()
