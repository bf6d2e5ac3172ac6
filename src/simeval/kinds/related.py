"""Related/unrelated word pairs (RUSSE RT, AE, AE2): average precision as in 2015 (main),
step-wise AP, RUSSE's accuracy and ROC AUC (declared in :mod:`simeval.metrics.catalog`).

Rows: as graded pairs (:mod:`.pairs`), gold 1 or 0. The rows resample by ``word1`` (RUSSE's
accuracy labels pairs within each word1, and every word1 has as many related as unrelated
partners). A registry file declares one as ``kind = "related"``.
"""

from __future__ import annotations

import numpy as np

from simeval.kinds.base import Batch, Columns
from simeval.kinds.pairs import PairKind
from simeval.metrics import weighted as wt
from simeval.metrics.classification import LEGACY_TIE_TOLERANCE


class RelatedPairs(PairKind):
    name = "related-pairs"
    toml = ("related",)
    main = "ap_trapezoid"
    codes = ("word1", "word2")
    cluster = "word1"
    plot = "pr"
    binary_gold = True

    def swapped(
        self, c: Columns, a: np.ndarray, b: np.ndarray, swap: np.ndarray, main_only: bool
    ) -> tuple[Batch, Batch] | None:
        """The main metric (AP as in 2015) of every round at once, when the swaps group."""
        if not main_only:
            return None
        swaps = wt.Swaps(a, b, LEGACY_TIE_TOLERANCE)
        if not swaps.grouped:
            return None
        pa, pb = swaps.points(c["gold"], swap)
        return (
            {"ap_trapezoid": wt.average_precision(pa, trapezoid=True)},
            {"ap_trapezoid": wt.average_precision(pb, trapezoid=True)},
        )


RELATED = RelatedPairs()
