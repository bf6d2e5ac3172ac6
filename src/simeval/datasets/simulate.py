"""Which assignment mode needs fewer answers? A campaign replayed from real ratings.

A pool of real ratings (a pairs × raters matrix, NaN: not rated; WordSim-353's 29 raters of
set1 and set2) stands in for the crowd. The campaign hands out assignments of ``size`` pairs in
``count`` or ``sd`` mode (:mod:`simeval.datasets.annotation`); each pair of an assignment receives
the next rating of that pair from the pool, in an order shuffled once per pair (seeded). A pair
whose ratings are used up is no longer drawn.

A pair is *done* when the 95% interval of its mean, 2·t(0.975, n−1)·s/√n wide (s: the sample
SD of its n ≥ 2 ratings), is narrower than ``target``, or when the pool has no rating of it
left (*capped*: the target is out of reach with this pool). The campaign stops when every pair
is done; the answers given until then are the cost of the mode. Done pairs are still drawn:
the modes are compared as defined, not with an oracle that knows when to stop a pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import t as student_t

from simeval.datasets.annotation import draw, weights
from simeval.metrics.agreement import item_sd


def interval_width(ratings: np.ndarray, level: float = 0.95) -> np.ndarray:
    """Width of the t interval of each pair's mean (inf below two ratings)."""
    n = np.sum(~np.isnan(ratings), axis=1)
    out = np.full(len(ratings), np.inf)
    ok = n >= 2
    if ok.any():
        t = student_t.ppf(0.5 + level / 2, n[ok] - 1)
        out[ok] = 2 * t * item_sd(ratings[ok]) / np.sqrt(n[ok])
    return out


@dataclass
class Trace:
    """One replay: after each assignment, the answers so far and the share of pairs done."""

    mode: str
    seed: int
    answers: list[int] = field(default_factory=list)
    done: list[float] = field(default_factory=list)
    capped: int = 0  # pairs done only because their ratings ran out
    given: list[tuple[int, int]] = field(default_factory=list)  # (pair, rater) of each answer

    @property
    def needed(self) -> int:
        return self.answers[-1] if self.answers else 0

    def answers_until(self, share: float) -> int:
        """Answers given when the share of done pairs first reached ``share``."""
        return next(a for a, d in zip(self.answers, self.done, strict=True) if d >= share)


def replay(
    pool: np.ndarray,
    mode: str,
    target: float,
    size: int = 15,
    seed: int = 0,
    level: float = 0.95,
) -> Trace:
    """Run one campaign on ``pool`` until every pair is done (module docstring)."""
    rng = np.random.default_rng(seed)
    n_pairs, n_raters = pool.shape
    order = []  # each pair's raters in a shuffled order
    for row in pool:
        order.append(rng.permutation(np.flatnonzero(~np.isnan(row))))
    got = np.full((n_pairs, n_raters), np.nan)
    used = np.zeros(n_pairs, dtype=int)
    available = np.array([len(o) for o in order])
    trace = Trace(mode, seed)
    total = 0
    while True:
        width = interval_width(got, level)
        exhausted = used >= available
        done = (width < target) | exhausted
        if total:
            trace.answers.append(total)
            trace.done.append(float(done.mean()))
        if done.all():
            trace.capped = int(np.sum(exhausted & ~(width < target)))
            return trace
        w = weights(mode, used.astype(float), item_sd(got))
        w[exhausted] = 0.0
        for i in draw(w, size, rng):
            rater = order[i][used[i]]
            got[i, used[i]] = pool[i, rater]
            trace.given.append((int(i), int(rater)))
            used[i] += 1
            total += 1


@dataclass(frozen=True)
class Comparison:
    mode: str
    needed: list[int]
    capped: list[int]
    mean_sd: float  # mean SD per pair of the whole pool, for scale

    @property
    def mean(self) -> float:
        return float(np.mean(self.needed))

    @property
    def sd(self) -> float:
        return float(np.std(self.needed, ddof=1)) if len(self.needed) > 1 else math.nan


def compare_modes(
    pool: np.ndarray,
    target: float,
    size: int = 15,
    replays: int = 10,
    seed: int = 0,
) -> tuple[dict[str, Comparison], dict[str, list[Trace]]]:
    """Both modes, ``replays`` seeded campaigns each (the same seeds for both)."""
    traces = {
        mode: [replay(pool, mode, target, size, seed + r) for r in range(replays)]
        for mode in ("count", "sd")
    }
    mean_sd = float(np.nanmean(item_sd(pool)))
    out = {
        mode: Comparison(mode, [t.needed for t in ts], [t.capped for t in ts], mean_sd)
        for mode, ts in traces.items()
    }
    return out, traces
