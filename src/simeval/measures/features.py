"""Cheap pair features for learned combinations (``simeval train combine``).

Each group gives a few columns per pair, symmetric in the two items, computed from the
strings alone (``frequency`` also from a model folder's ``vocab.txt``):

- ``length``: log(1 + min), log(1 + max) and min/max of the two lengths (tokens for texts,
  characters for words);
- ``orthographic``: 1 − levenshtein/max length, character-trigram Dice and the common-prefix
  share, on lowercased strings (RUSSE 2015's orthographic and prefix features);
- ``overlap``: the STS-2012 token cosine and the token Jaccard of lowercased word tokens;
- ``pos``: 1 when the two words' most probable pymorphy3 parts of speech agree (Russian words;
  0.5 for texts and for words pymorphy3 cannot tag);
- ``frequency``: log rank of each item in the vocabulary of a model folder (most frequent first;
  unknown words rank after the last), as min and max over the pair; for texts the mean over
  the tokens of each side.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

import numpy as np

from simeval.errors import InputError
from simeval.measures.base import Pairs
from simeval.measures.lexical import (
    levenshtein_similarity,
    ngram_dice,
    prefix_similarity,
    token_cosine,
    token_jaccard,
)

GROUPS = ("length", "orthographic", "overlap", "pos", "frequency")
_WORD = re.compile(r"\w+")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _length(a: str, b: str, texts: bool) -> list[float]:
    la, lb = (len(_tokens(a)), len(_tokens(b))) if texts else (len(a), len(b))
    low, high = min(la, lb), max(la, lb)
    return [math.log1p(low), math.log1p(high), low / high if high else 1.0]


def _orthographic(a: str, b: str, texts: bool) -> list[float]:
    a, b = a.lower(), b.lower()
    return [levenshtein_similarity(a, b), ngram_dice(a, b), prefix_similarity(a, b)]


def _overlap(a: str, b: str, texts: bool) -> list[float]:
    ta, tb = " ".join(_tokens(a)), " ".join(_tokens(b))
    return [token_cosine(ta, tb), token_jaccard(ta, tb)]


@lru_cache(maxsize=1 << 16)
def _pos(word: str) -> str | None:
    from simeval.text.normalize import _morph

    parses = _morph().parse(word)
    return parses[0].tag.POS if parses else None


def _pos_agree(a: str, b: str, texts: bool) -> list[float]:
    if texts:
        return [0.5]
    pa, pb = _pos(a.lower()), _pos(b.lower())
    return [0.5 if pa is None or pb is None else float(pa == pb)]


def vocabulary_ranks(folder: str | Path) -> dict[str, int]:
    """Word → rank (0: the most frequent) from a model folder's ``vocab.txt`` (read once per
    folder: a learned measure asks for it on every batch it scores)."""
    return _ranks(str(Path(folder).resolve()))


@lru_cache(maxsize=4)
def _ranks(folder: str) -> dict[str, int]:
    path = Path(folder) / "vocab.txt"
    if not path.is_file():
        raise InputError(path, None, "no vocab.txt: frequency= takes a `simeval train` folder")
    words = path.read_text(encoding="utf-8").split("\n")
    return {w: i for i, w in enumerate(w for w in words if w)}


def _frequency(ranks: dict[str, int]) -> Callable[[str, str, bool], list[float]]:
    unknown = len(ranks)

    def log_rank(item: str, texts: bool) -> float:
        words = _tokens(item) if texts else [item.lower()]
        if not words:
            return math.log1p(unknown)
        return float(np.mean([math.log1p(ranks.get(w, unknown)) for w in words]))

    def features(a: str, b: str, texts: bool) -> list[float]:
        ra, rb = log_rank(a, texts), log_rank(b, texts)
        return [min(ra, rb), max(ra, rb)]

    return features


def feature_names(groups: list[str]) -> list[str]:
    """Column names of :func:`pair_features` for these groups, in order."""
    names = {
        "length": ["length_min", "length_max", "length_ratio"],
        "orthographic": ["levenshtein", "dice3", "prefix"],
        "overlap": ["token_cosine", "token_jaccard"],
        "pos": ["pos_agree"],
        "frequency": ["log_rank_min", "log_rank_max"],
    }
    return [n for g in groups for n in names[g]]


def check_groups(groups: list[str], frequency: str | None) -> None:
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise InputError(None, None, f"unknown feature {unknown[0]!r}; one of {', '.join(GROUPS)}")
    if "frequency" in groups and not frequency:
        raise InputError(None, None, "the frequency feature needs a model folder (--frequency)")


def pair_features(
    pairs: Pairs, groups: list[str], texts: bool, frequency: str | Path | None = None
) -> np.ndarray:
    """The feature matrix (pairs × :func:`feature_names`) of ``groups``."""
    check_groups(groups, str(frequency) if frequency else None)
    fns: list[Callable[[str, str, bool], list[float]]] = []
    for g in groups:
        if g == "frequency":
            fns.append(_frequency(vocabulary_ranks(frequency)))  # type: ignore[arg-type]
        else:
            fns.append(
                {
                    "length": _length,
                    "orthographic": _orthographic,
                    "overlap": _overlap,
                    "pos": _pos_agree,
                }[g]
            )
    rows = [[v for fn in fns for v in fn(a, b, texts)] for a, b in pairs]
    return np.asarray(rows, dtype=float).reshape(len(pairs), len(feature_names(groups)))
