"""STS-style sampling: sentence pairs spread over string-similarity bands.

The STS organisers sampled pairs so that a set is not dominated by near-duplicates or by
unrelated pairs (Agirre et al. 2012: MSRpar and MSRvid pairs were drawn across string
similarity). Here each pair of a pool gets a string similarity in [0, 1] — ``overlap``: the
token-overlap cosine (the STS baseline), ``edit``: 1 − Levenshtein distance / longer length —
and falls in one of ``bands`` equal-width bands (band b holds [b/B, (b+1)/B), the last also 1).

Quotas: ``size`` pairs split evenly over the bands (the first ``size mod B`` bands take one
more). A band with fewer pairs than its quota gives all it has, and the shortfall goes to the
bands that still have pairs, again evenly, in band order, until the size is reached or the
pool is used up. Within a band pairs are drawn uniformly without replacement (seeded); exact
duplicates in the pool count once. The sample is written in a shuffled order, so an annotator
does not see the bands.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simeval.measures.lexical import levenshtein_similarity, token_cosine

SIMILARITIES: dict[str, Callable[[str, str], float]] = {
    "overlap": token_cosine,
    "edit": levenshtein_similarity,
}


def band_of(similarity: np.ndarray, bands: int) -> np.ndarray:
    """The band (0 … bands − 1) of each similarity in [0, 1]."""
    return np.minimum((np.asarray(similarity) * bands).astype(int), bands - 1)


def quotas(available: list[int], size: int) -> list[int]:
    """How many pairs each band gives (module docstring)."""
    bands = len(available)
    take = [min(size // bands + (1 if b < size % bands else 0), n) for b, n in enumerate(available)]
    left = size - sum(take)
    while left > 0:
        open_bands = [b for b, n in enumerate(available) if take[b] < n]
        if not open_bands:
            break
        share, extra = divmod(left, len(open_bands))
        for k, b in enumerate(open_bands):
            want = share + (1 if k < extra else 0)
            got = min(want, available[b] - take[b])
            take[b] += got
            left -= got
    return take


@dataclass
class Sample:
    pairs: list[tuple[str, str]]  # in the written (shuffled) order
    similarity: np.ndarray
    band: np.ndarray
    source: np.ndarray  # index of each pair in the deduplicated pool
    available: list[int]  # pairs of the pool per band
    taken: list[int]


def sample(
    pool: list[tuple[str, str]], size: int, bands: int = 5, by: str = "overlap", seed: int = 0
) -> Sample:
    """Draw ``size`` pairs of ``pool`` across similarity bands (module docstring)."""
    unique = list(dict.fromkeys(pool))
    fn = SIMILARITIES[by]
    sim = np.array([fn(a, b) for a, b in unique], dtype=float)
    band = band_of(sim, bands)
    available = [int(np.sum(band == b)) for b in range(bands)]
    taken = quotas(available, size)
    rng = np.random.default_rng(seed)
    chosen = np.concatenate(
        [rng.choice(np.flatnonzero(band == b), size=taken[b], replace=False) for b in range(bands)]
    ).astype(int)
    chosen = chosen[rng.permutation(len(chosen))]
    return Sample([unique[i] for i in chosen], sim[chosen], band[chosen], chosen, available, taken)
