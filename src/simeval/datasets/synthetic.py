"""Synthetic comparable collections for timing linking at BUCC's scale (and beyond).

An English vocabulary of ``vocab`` words ``e0 … e{V-1}`` has Zipfian frequencies
``p(i) ∝ (i + 1)^-s``. The X vocabulary ``x0 …`` translates it: a synthetic dictionary maps
each ``x{i}`` to ``e{i}`` for a random share ``coverage`` of the words (the rest are unknown
to the dictionary), and some X words get a second, wrong translation (``ambiguity``).

Each English document mixes background words (drawn from the Zipf law) with ``topic`` words
(a document-specific set drawn uniformly from the rarer half of the vocabulary), ``topic_share``
of its tokens; lengths are Poisson around ``length``. Its X counterpart is *comparable*, not a
translation: each English token is kept (as its X word) with probability ``keep``, and
``1 - keep`` of the X tokens are fresh background draws. Everything draws from ``seed``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class SyntheticCollection:
    queries: list[str]  # X documents; query i links to corpus document i
    corpus: list[str]  # English documents
    dictionary: list[tuple[str, str]]  # (X word, English word)


def _zipf(vocab: int, s: float) -> np.ndarray:
    p = (np.arange(1, vocab + 1, dtype=float)) ** -s
    return p / p.sum()


def synthetic_collection(
    n_docs: int,
    vocab: int = 50_000,
    length: int = 120,
    s: float = 1.1,
    topic: int = 30,
    topic_share: float = 0.02,
    keep: float = 0.25,
    coverage: float = 0.8,
    ambiguity: float = 0.2,
    seed: int = 0,
) -> SyntheticCollection:
    """``n_docs`` linked (X, English) documents and a dictionary (module docstring)."""
    rng = np.random.default_rng(seed)
    p = _zipf(vocab, s)
    lengths = np.maximum(5, rng.poisson(length, n_docs))
    total = int(lengths.sum())
    background = rng.choice(vocab, size=total, p=p)
    rare = np.arange(vocab // 2, vocab)
    topics = rng.choice(rare, size=(n_docs, topic))
    doc_of = np.repeat(np.arange(n_docs), lengths)
    is_topic = rng.random(total) < topic_share
    tokens = np.where(is_topic, topics[doc_of, rng.integers(0, topic, total)], background)
    kept = rng.random(total) < keep
    x_tokens = np.where(kept, tokens, rng.choice(vocab, size=total, p=p))
    bounds = np.cumsum(lengths)[:-1]
    en_words = np.char.add("e", np.arange(vocab).astype(str))
    x_words = np.char.add("x", np.arange(vocab).astype(str))
    corpus = [" ".join(part) for part in np.split(en_words[tokens], bounds)]
    queries = [" ".join(part) for part in np.split(x_words[x_tokens], bounds)]
    known = np.flatnonzero(rng.random(vocab) < coverage)
    dictionary = [(str(x_words[i]), str(en_words[i])) for i in known]
    ambiguous = known[rng.random(len(known)) < ambiguity]
    wrong = rng.integers(0, vocab, len(ambiguous))
    pairs = zip(ambiguous, wrong, strict=True)
    dictionary += [(str(x_words[i]), str(en_words[j])) for i, j in pairs]
    return SyntheticCollection(queries, corpus, dictionary)
