"""Lexical baselines that need no resources: token overlap, Jaccard, orthographic, random.

RUSSE 2015's strong systems used orthographic and prefix features (a shared prefix often means
a shared stem in Russian); the SemEval-2012 STS baseline is the token-overlap cosine.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable

import numpy as np

from simeval.measures.base import Measure, Pairs
from simeval.measures.spec import Params


def token_cosine(a: str, b: str) -> float:
    """The SemEval-2012 STS baseline: split at white space (case kept), binary bag-of-words
    vectors, cosine = |A ∩ B| / sqrt(|A| · |B|); 0 when either text has no token.

    Reproduces the paper's baseline row (ALL 0.3110, ALLnrm 0.6732).
    """
    ta, tb = set(a.split()), set(b.split())
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / math.sqrt(len(ta) * len(tb))


def token_jaccard(a: str, b: str) -> float:
    """|A ∩ B| / |A ∪ B| over white-space tokens (case kept); 0 when both are empty."""
    ta, tb = set(a.split()), set(b.split())
    union = ta | tb
    return len(ta & tb) / len(union) if union else 0.0


def levenshtein(a: str, b: str) -> int:
    """Edit distance with unit costs for insertion, deletion and substitution."""
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def levenshtein_similarity(a: str, b: str) -> float:
    """1 − levenshtein(a, b) / max(|a|, |b|); 1 for two empty strings."""
    longest = max(len(a), len(b))
    return 1.0 - levenshtein(a, b) / longest if longest else 1.0


def prefix_similarity(a: str, b: str) -> float:
    """Length of the longest common prefix / max(|a|, |b|); 1 for two empty strings."""
    longest = max(len(a), len(b))
    if not longest:
        return 1.0
    n = 0
    for ca, cb in zip(a, b, strict=False):
        if ca != cb:
            break
        n += 1
    return n / longest


def ngram_dice(a: str, b: str, n: int = 3) -> float:
    """Dice coefficient 2|A ∩ B| / (|A| + |B|) of the character n-gram sets of the strings
    padded with one space each side (so short words still have n-grams)."""

    def grams(s: str) -> set[str]:
        s = f" {s} "
        return {s[i : i + n] for i in range(max(len(s) - n + 1, 1))}

    ga, gb = grams(a), grams(b)
    return 2 * len(ga & gb) / (len(ga) + len(gb))


def _batch(fn: Callable[[str, str], float], pairs: Pairs) -> np.ndarray:
    return np.fromiter((fn(a, b) for a, b in pairs), dtype=float, count=len(pairs))


class Overlap(Measure):
    """``overlap``: the STS-2012 token-overlap cosine baseline (no parameters)."""

    name = "overlap"

    def score_texts(self, pairs: Pairs) -> np.ndarray:
        return _batch(token_cosine, pairs)


class Jaccard(Measure):
    """``jaccard``: token-set Jaccard (no parameters)."""

    name = "jaccard"

    def score_texts(self, pairs: Pairs) -> np.ndarray:
        return _batch(token_jaccard, pairs)


ORTHOGRAPHIC = {"levenshtein": levenshtein_similarity, "prefix": prefix_similarity, "dice": None}


class Orthographic(Measure):
    """``orthographic:kind=levenshtein|prefix|dice,n=3,lower=true``: string similarity of the
    two items (words, or whole texts)."""

    name = "orthographic"

    def __init__(self, spec: str, params: dict) -> None:
        super().__init__(spec, params)
        kind, n = params["kind"], params["n"]
        fn = ORTHOGRAPHIC[kind] or (lambda a, b: ngram_dice(a, b, n))
        if params["lower"]:
            self.fn = lambda a, b: fn(a.lower(), b.lower())
        else:
            self.fn = fn

    def score_texts(self, pairs: Pairs) -> np.ndarray:
        return _batch(self.fn, pairs)


class Random(Measure):
    """``random:seed=0``: a uniform score in [0, 1) derived from (seed, item1, item2), so a
    pair gets the same score whatever batch or order it comes in."""

    name = "random"

    def score_texts(self, pairs: Pairs) -> np.ndarray:
        seed = self.params["seed"]

        def draw(a: str, b: str) -> float:
            digest = hashlib.blake2b(f"{seed}\t{a}\t{b}".encode(), digest_size=8).digest()
            return int.from_bytes(digest, "little") / 2**64

        return _batch(draw, pairs)


def make_lexical(name: str, p: Params) -> Measure:
    """Build a lexical measure from its parsed parameters."""
    if name == "orthographic":
        p.get("kind", "levenshtein", str, tuple(ORTHOGRAPHIC))
        p.get("n", 3, int, minimum=1)
        p.get("lower", True, bool)
        return Orthographic(str(p.spec), p.done())
    if name == "random":
        p.get("seed", 0, int)
        return Random(str(p.spec), p.done())
    cls = {"overlap": Overlap, "jaccard": Jaccard}[name]
    return cls(str(p.spec), p.done())
