"""The measure protocol: score batches of word pairs or text pairs.

A measure knows nothing of benchmarks. It returns one score per pair, NaN where it cannot
score the pair (an out-of-vocabulary word under the ``skip`` policy); the task then counts the
pair as missing. ``missing`` tells the task what a NaN means: ``zero`` (score 0, RUSSE's
official rule) or ``skip`` (leave the pair out). Coverage is always reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from simeval.data.documents import LinkingInput, TopK
from simeval.metrics.ranking.order import ranking_rows

Pairs = Sequence[tuple[str, str]]


class Measure:
    """Base class. Subclasses implement :meth:`score_texts` and/or :meth:`score_words`; by
    default each falls back to the other (a word is a one-word text)."""

    name = "measure"
    missing = "zero"  # what the task does with NaN scores

    def __init__(self, spec: str, params: dict[str, Any]) -> None:
        self.spec = spec
        self.params = params

    def prepare(self, words: Iterable[str], texts: Iterable[str]) -> None:
        """Load what scoring these items needs (one pass over a vector file, say)."""

    def score_words(self, pairs: Pairs) -> np.ndarray:
        return self.score_texts(pairs)

    def score_texts(self, pairs: Pairs) -> np.ndarray:
        if type(self).score_words is Measure.score_words:
            raise NotImplementedError(f"{self.name} scores neither words nor texts")
        return self.score_words(pairs)

    def rank(self, data: LinkingInput, k: int, progress: Any = None) -> TopK:
        """The top ``k`` documents of ``data.corpus`` for each of ``data.queries``. A measure
        that only scores text pairs scores every (query, document) pair
        (:func:`rank_by_pairs`); rankers override this with a search."""
        return rank_by_pairs(self, data, k, progress)

    def describe(self) -> dict[str, Any]:
        """What a Result records as its system."""
        return {"kind": "measure", "measure": self.name, "spec": self.spec, "params": self.params}

    def extra(self) -> dict[str, Any]:
        """Facts found while scoring (vocabulary coverage, cache hits), recorded with results."""
        return {}

    def warnings(self) -> list[str]:
        """Problems in the measure's own files that did not stop scoring (a word twice in a
        vector file), added to every result's warnings."""
        return []


def rank_by_pairs(measure: Measure, data: LinkingInput, k: int, progress: Any = None) -> TopK:
    """Rank with a measure that only scores text pairs (``random``, ``overlap``): every
    (query, document) pair is scored, one query at a time, and each query's documents sorted
    by the one ranking rule (:mod:`simeval.metrics.ranking.order`: score descending, ties by
    ``data.ties``, unscorable last). Quadratic; for small collections."""
    nd = len(data.corpus)
    k = min(k, nd)
    ties = data.ties if data.ties is not None else np.arange(nd)
    index = np.empty((len(data.queries), k), np.int64)
    score = np.empty((len(data.queries), k), np.float32)
    for i, text in enumerate(data.queries):
        s = measure.score_texts([(text, doc) for doc in data.corpus])
        s = np.nan_to_num(np.asarray(s, dtype=np.float32), nan=-np.inf)
        index[i] = ranking_rows(s[None, :], ties)[0, :k]
        score[i] = s[index[i]]
        if progress:
            progress(i + 1, len(data.queries))
    return TopK(index, score)
