"""The statistics of a tiered leaderboard, over arrays: ranks in bootstrap replicates, rank
intervals, LMArena's rank upper bound, greedy significance tiers, and the smallest difference
a test set of a given size can detect.

- **Ranks** are competition ranks ("1224"): a system's rank is 1 + the number of systems with
  a strictly better value (higher, after the caller has turned lower-is-better metrics round);
  equal values share a rank. An undefined value (NaN) is worse than every number, so a system
  without a value is ranked last, never first; NaNs tie among themselves.
- **Rank interval** at level L: every system's metric in B paired bootstrap replicates (the
  same resampled items for every system in a replicate), ranked within each replicate; the
  interval is [lo, hi], lo the smallest rank r with #{b : rank_b ≤ r} ≥ B·(1 − L)/2 and hi the
  smallest r with #{b : rank_b ≤ r} ≥ B·(1 + L)/2 (the percentile interval read from the
  empirical distribution function, numpy's ``inverted_cdf``: both ends are ranks that occurred).
- **Rank upper bound**, LMArena's "rank (UB)": UB_i = 1 + #{j : hi_j < lo_i}, the number of
  systems whose whole rank interval lies above system i's whole interval, plus one. LMArena
  applies the rule to score intervals (1 + the models whose lower bound beats this model's
  upper bound); here it is applied to the rank intervals of one paired bootstrap.
- **Tiers**, greedy: the systems sorted best first; tier 1 is the best system and every system
  whose paired test against it is not significant at α after Holm's correction over the
  comparisons with that best; the next tier starts at the best system left, compared with the
  systems left, and so on. A system joins the first tier whose best it cannot be told from.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from simeval.metrics.catalog import find
from simeval.metrics.declared import AREA, CORRELATION, SHARE
from simeval.metrics.stats import holm


def replicate_ranks(samples: np.ndarray) -> np.ndarray:
    """Competition ranks of the rows of ``samples`` (systems × replicates, higher is better,
    NaN worst) within each replicate (column): 1 + the systems strictly better."""
    values = np.where(np.isnan(samples), -np.inf, samples)
    nan = np.isnan(samples)
    better = (values[None, :, :] > values[:, None, :]) & ~nan[None, :, :]
    # a NaN is beaten by every number (-inf would tie with a real -inf)
    better |= nan[:, None, :] & ~nan[None, :, :]
    return 1 + better.sum(axis=1)


def rank_interval(ranks: np.ndarray, level: float = 0.95) -> tuple[int, int]:
    """The percentile interval of one system's replicate ranks (module docstring)."""
    tail = (1 - level) / 2
    low, high = np.quantile(ranks, [tail, 1 - tail], method="inverted_cdf")
    return int(low), int(high)


def rank_intervals(samples: Mapping[str, np.ndarray], level: float = 0.95) -> dict[str, tuple]:
    """Each system's rank interval from its bootstrap replicates (``samples``: system → B
    values, the same resampled items at each index, higher is better, NaN worst)."""
    names = list(samples)
    ranks = replicate_ranks(np.vstack([np.asarray(samples[s], dtype=float) for s in names]))
    return {s: rank_interval(r, level) for s, r in zip(names, ranks, strict=True)}


def rank_upper_bounds(intervals: Mapping[str, tuple[int, int]]) -> dict[str, int]:
    """UB_i = 1 + #{j : hi_j < lo_i} (module docstring): the systems ranked above i in every
    plausible ordering, plus one."""
    return {
        s: 1 + sum(hi < lo for t, (_, hi) in intervals.items() if t != s)
        for s, (lo, _) in intervals.items()
    }


@dataclass(frozen=True)
class Placed:
    """A system's tier, and its Holm-adjusted p-value against the tier's best (None for the
    best itself)."""

    tier: int
    best: str
    p_value: float | None
    p_raw: float | None


def greedy_tiers(
    order: Sequence[str], p_value: Callable[[str, str], float], alpha: float = 0.05
) -> dict[str, Placed]:
    """Tiers by the greedy rule of the module docstring. ``order``: the systems, best first;
    ``p_value(best, other)``: the paired test's two-sided p-value (NaN counts as a difference).
    """
    left = list(order)
    out: dict[str, Placed] = {}
    tier = 0
    while left:
        tier += 1
        best, rest = left[0], left[1:]
        out[best] = Placed(tier, best, None, None)
        raw = [p_value(best, s) for s in rest]
        adjusted = holm([1.0 if p != p else p for p in raw]) if rest else []
        joined = []
        for s, p, q in zip(rest, raw, adjusted, strict=True):
            if p == p and q >= alpha:
                out[s] = Placed(tier, best, float(q), float(p))
                joined.append(s)
        left = [s for s in rest if s not in joined]
    return out


# -- the smallest detectable difference ---------------------------------------------------


@dataclass(frozen=True)
class Detectable:
    """The smallest true difference in ``metric`` between two systems that a two-sided paired
    test at ``alpha`` finds with probability ``power`` on ``n`` items, and the assumptions it
    rests on (in words, for the page)."""

    metric: str
    n: int
    alpha: float
    power: float
    difference: float
    assumptions: str


def detectable_difference(
    n: int,
    metric: str,
    alpha: float = 0.05,
    power: float = 0.8,
    *,
    value: float | None = None,
    between: float = 0.7,
    positives: float = 0.5,
) -> Detectable:
    """The smallest difference the test set can detect: Δ such that a two-sided test at
    ``alpha`` rejects with probability ``power`` (z_a = Φ⁻¹(1 − α/2), z_b = Φ⁻¹(power)).

    The formula is the one of the metric's declared family (:mod:`simeval.metrics.catalog`):

    - Correlations (Spearman, Pearson, STS ALL): Fisher's z for two correlations with a shared
      gold (Meng, Rosenthal & Rubin 1992): Δz = (z_a + z_b)·√(2(1 − r_x)·h / (n − 3)) with
      r_x = ``between`` the correlation of the two systems' scores, h = (1 − f·r²)/(1 − r²),
      f = min(1, (1 − r_x)/(2(1 − r²))), r = ``value`` (default 0.6) the better system's
      correlation; for a rank correlation (Spearman's) the variance is scaled by 1 + r²/2
      (Bonett & Wright 2000).
      Δ = r − tanh(atanh(r) − Δz).
    - Shares and per-item means in [0, 1] (accuracy, success@k, MRR): the normal approximation
      of a paired difference of means, Δ = (z_a + z_b)·√(2·p(1 − p)(1 − ρ)/n), p = ``value``
      (default 0.5, the largest variance; for MRR p(1 − p) bounds the variance of a mean p),
      ρ = ``between`` the correlation of the two systems' per-item values.
    - AP and ROC AUC: the binomial approximation of an area's standard error over the
      positives (Boyd, Eng & Page 2013), √(θ(1 − θ)/n₊) with n₊ = ``positives``·n, paired as
      above: Δ = (z_a + z_b)·√(2·θ(1 − θ)(1 − ρ)/n₊), θ = ``value`` (default 0.5).

    Other families (STS Mean and ALLnrm, tallies) and undeclared names (RUSSE's sum) have no
    formula: ValueError.
    """
    from scipy.stats import norm

    z = norm.ppf(1 - alpha / 2) + norm.ppf(power)
    declared = find(metric)
    family = None if declared is None else declared.family
    ranks = declared is not None and declared.ranks
    if family == CORRELATION:
        r = 0.6 if value is None else value
        if n <= 3:
            raise ValueError(f"a correlation needs more than 3 items, got {n}")
        f = min(1.0, (1 - between) / (2 * (1 - r * r)))
        h = (1 - f * r * r) / (1 - r * r)
        scale = 1 + r * r / 2 if ranks else 1.0
        dz = z * np.sqrt(2 * (1 - between) * h * scale / (n - 3))
        diff = r - float(np.tanh(np.arctanh(r) - dz))
        said = (
            f"Fisher z (Meng, Rosenthal & Rubin 1992), the better system at {r:g}, the two "
            f"systems' scores correlated {between:g}"
            + (", Spearman's variance × (1 + r²/2)" if scale != 1 else "")
        )
    elif family in (SHARE, AREA):
        p = 0.5 if value is None else value
        m = n * positives if family == AREA else n
        diff = float(z * np.sqrt(2 * p * (1 - p) * (1 - between) / m))
        said = (
            f"normal approximation, the metric near {p:g}, the systems' per-item values "
            f"correlated {between:g}"
            + (f", {positives:.0%} of items positive (Boyd et al. 2013)" if family == AREA else "")
        )
    else:
        raise ValueError(f"no detectable-difference formula for {metric!r}")
    return Detectable(metric, n, alpha, power, diff, said)
