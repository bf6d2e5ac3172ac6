"""The sorts a kind's metrics reuse over many bootstrap resamples at once.

A kind's ``resampled`` computes the same metrics as its ``metrics`` for a (B, n) matrix of row
multiplicities instead of one array of drawn rows (:mod:`simeval.metrics.weighted`), so a
report's B = 1000 replicates cost a few array passes rather than 1000 metric calls. Keys come
in the same order as the per-resample functions give them; tests check the two against each
other on every kind. :class:`Sorted` holds one result's (or suite member's) columns and the
rankings those functions share, each computed once.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

import numpy as np

from simeval.metrics import weighted as wt
from simeval.metrics.classification import LEGACY_TIE_TOLERANCE

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
