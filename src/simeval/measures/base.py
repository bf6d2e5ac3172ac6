"""The measure protocol: score batches of word pairs or text pairs.

A measure knows nothing of benchmarks. It returns one score per pair, NaN where it cannot
score the pair (an out-of-vocabulary word under the ``skip`` policy); the task then counts the
pair as missing. ``missing`` tells the task what a NaN means: ``zero`` (score 0, RUSSE's
official rule) or ``skip`` (leave the pair out). Coverage is always reported.

What a task asks of a measure is a :class:`Request` (word pairs, text pairs, documents to
link; a kind may define its own), defined here so that the kinds (:mod:`simeval.kinds`) and the
trainers build requests without the measures knowing of either; :func:`numbers_per_pair` is
the one check of a measure's answers as one number per pair.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from simeval.data.documents import LinkingInput, TopK
from simeval.errors import InputError
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
    ``data.ties``, unscorable last). Quadratic; for small collections. Every text is scored,
    so the measure prepares them all first, at once (an encoder then embeds them in batches,
    not one query at a time)."""
    measure.prepare((), [*data.queries, *data.corpus])
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


class Request(ABC):
    """What a task asks of a measure; ``answer`` calls the measure's matching method."""

    def words(self) -> set[str]:
        return set()

    def texts(self) -> set[str]:
        return set()

    @abstractmethod
    def answer(self, measure: Any, progress: Any = None) -> Any: ...


@dataclass
class WordPairs(Request):
    """Word pairs to score (``measure.score_words``)."""

    pairs: list[tuple[str, str]]

    def strings(self) -> set[str]:
        return {x for p in self.pairs for x in p}

    def words(self) -> set[str]:
        return self.strings()

    def answer(self, measure: Any, progress: Any = None) -> np.ndarray:
        return np.asarray(measure.score_words(self.pairs), dtype=float)


class TextPairs(WordPairs):
    """Sentence or text pairs to score (``measure.score_texts``)."""

    def words(self) -> set[str]:
        return set()

    def texts(self) -> set[str]:
        return self.strings()

    def answer(self, measure: Any, progress: Any = None) -> np.ndarray:
        return np.asarray(measure.score_texts(self.pairs), dtype=float)


@dataclass
class Documents(Request):
    """Query documents to link to candidates (``measure.rank``): the top ``k`` per query."""

    data: LinkingInput
    k: int

    def answer(self, measure: Any, progress: Any = None) -> Any:
        return measure.rank(self.data, self.k, progress)


def numbers_per_pair(answers: Any, count: int, *, not_numbers: str, wrong_count: str) -> np.ndarray:
    """``answers`` as one float per pair, refused unless there are ``count`` of them.

    ``not_numbers`` is the refusal's text when they are not numbers (``{error}`` is replaced by
    numpy's reason), ``wrong_count`` when their number is wrong (``{got}`` by how many came;
    replaced, not formatted, so braces in a measure's name stay as they are):
    the check is one, the message names what the caller asked of the user.
    """
    try:
        scores = np.asarray(answers, dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise InputError(None, None, not_numbers.replace("{error}", str(exc))) from None
    if len(scores) != count:
        raise InputError(None, None, wrong_count.replace("{got}", str(len(scores))))
    return scores
