"""Which results carry no information: scores (nearly) all tied at one value.

A measure that gives almost every item the same score (``overlap`` on single words: no shared
token, score 0) ranks nothing; what its metrics show is how ties are handled. RUSSE 2015's
average precision (trapezoid rule, ties merged) gives an all-tied half-related set 0.75, more
than most real systems reach, and a correlation over a handful of untied items says nothing
about the rest.

The rule: a result carries **no information** on a set of items when at least
:data:`NO_INFORMATION_SHARE` (99%) of its counted scores are equal to one value (its most
common score), or when it is flagged constant (every counted score equal; records without
per-item rows know only this flag). Reports mark such a result with † and never crown it:
it is not marked best, not ranked in a top list, and no test is claimed against it.

99% leaves measures that are sparse but informative alone: ``orthographic:kind=prefix`` ties
85-93% of the RUSSE pairs at 0 and ranks the rest; ``overlap`` ties 99.7% and more.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

NO_INFORMATION_SHARE = 0.99
RULE = (
    "no information: constant scores, or at least 99% of the items tied at one score; the "
    "number then reflects how ties are broken"
)


def tied_share(scores: np.ndarray) -> float:
    """The share of ``scores`` equal to their most common value (NaN counts as one value);
    0 for no scores."""
    values = np.asarray(scores, dtype=float)
    if len(values) == 0:
        return 0.0
    nan = np.isnan(values)
    _, counts = np.unique(values[~nan], return_counts=True)
    top = max(int(counts.max()) if len(counts) else 0, int(nan.sum()))
    return top / len(values)


def no_information(items: Mapping[str, np.ndarray], mask: np.ndarray | None = None) -> bool:
    """Whether the counted scores of ``items`` (within ``mask``) carry no information (module
    docstring). Items without a ``score`` column (linking's per-query values) never do."""
    if "score" not in items:
        return False
    keep = np.asarray(items.get("counted", np.ones(len(items["score"]))), dtype=float) > 0
    if mask is not None:
        keep &= np.asarray(mask, dtype=bool)
    scores = np.asarray(items["score"], dtype=float)[keep]
    return len(scores) > 1 and tied_share(scores) >= NO_INFORMATION_SHARE
