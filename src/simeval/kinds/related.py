"""Related/unrelated word pairs (RUSSE RT, AE, AE2): average precision as in 2015 (main),
step-wise AP, RUSSE's accuracy and ROC AUC.

Rows: as graded pairs (:mod:`.pairs`), gold 1 or 0. The rows resample by ``word1`` (RUSSE's
accuracy labels pairs within each word1, and every word1 has as many related as unrelated
partners). A registry file declares one as ``kind = "related"``.
"""

from __future__ import annotations

import numpy as np

from simeval.kinds.base import Batch, Columns
from simeval.kinds.pairs import PairKind
from simeval.kinds.resampled import Sorted
from simeval.metrics import average_precision, average_precision_trapezoid, roc_auc, russe_accuracy
from simeval.metrics import weighted as wt
from simeval.metrics.classification import LEGACY_TIE_TOLERANCE


def related_metrics(
    gold: np.ndarray, score: np.ndarray, word1: np.ndarray, word2: np.ndarray
) -> dict[str, float]:
    """RUSSE's related/unrelated metrics: AP as in 2015 (main), step-wise AP, accuracy, AUC."""
    return {
        "ap_trapezoid": average_precision_trapezoid(gold, score),
        "ap": average_precision(gold, score),
        "accuracy": russe_accuracy(word1, word2, score, gold),
        "roc_auc": roc_auc(gold, score),
    }


class RelatedPairs(PairKind):
    name = "related-pairs"
    toml = ("related",)
    main = "ap_trapezoid"
    codes = ("word1", "word2")
    cluster = "word1"
    plot = "pr"
    binary_gold = True

    def metrics(self, c: Columns, main_only: bool) -> dict[str, float]:
        if main_only:
            return {"ap_trapezoid": average_precision_trapezoid(c["gold"], c["score"])}
        return related_metrics(c["gold"], c["score"], c["word1"], c["word2"])

    def resampled(self, p: Sorted, w: np.ndarray, main_only: bool) -> Batch:
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

    def randomized(self, main: str) -> bool:
        return True


RELATED = RelatedPairs()
