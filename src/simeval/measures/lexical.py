"""Lexical baselines that need no resources."""

from __future__ import annotations

import math
from collections.abc import Iterable


def token_cosine(a: str, b: str) -> float:
    """The SemEval-2012 STS baseline: split at white space (case kept), binary bag-of-words
    vectors, cosine = |A ∩ B| / sqrt(|A| · |B|); 0 when either text has no token.

    Reproduces the paper's baseline row (ALL 0.3110, ALLnrm 0.6732).
    """
    ta, tb = set(a.split()), set(b.split())
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / math.sqrt(len(ta) * len(tb))


def token_cosine_batch(pairs: Iterable[tuple[str, str]]) -> list[float]:
    return [token_cosine(a, b) for a, b in pairs]
