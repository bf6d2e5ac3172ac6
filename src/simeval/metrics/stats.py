"""Statistics over per-item scores: confidence intervals and tests comparing two systems.

Every function is pure and seeded; a statistic is any function of a row-index array (one
bootstrap replicate) to a dict of metric values, so one resampling serves every metric.

- Bootstrap intervals are percentile intervals (Efron & Tibshirani 1993, ch. 13): resample the
  items with replacement B times (within strata when given: STS datasets, RUSSE benchmarks),
  recompute the metric, take the (1−level)/2 and (1+level)/2 quantiles. Replicates where the
  metric is undefined (NaN: a constant resample) are left out. With clusters, whole clusters
  are drawn (a cluster bootstrap: for RUSSE, all pairs of one word1 together).
- Fisher-z intervals for a correlation r over n items: tanh(atanh(r) ± z_q · se) with
  se = 1/√(n−3) for Pearson and √((1 + r²/2)/(n−3)) for Spearman (Bonett & Wright 2000).
- Williams' test (Steiger 1980, eq. 7) for two correlations with a shared variable.
- Paired bootstrap and approximate randomization (Noreen 1989) for any metric; Holm's step-down
  correction for many comparisons.

The bootstrap's settings travel as one :class:`Resampling` (replicates, seed, level, alpha,
strata, clusters, engine). Where the replicates run is the caller's choice: its ``engine`` (a
:class:`Runner`, such as ``simeval.engine.active()``), or this process when it is None.
This package imports nothing else of simeval.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from simeval.metrics import weighted
from simeval.metrics.correlation import average_ranks

Statistic = Callable[[np.ndarray], Mapping[str, float]]


class Runner(Protocol):
    """Where partitioned work runs (``simeval.engine.Engine`` is one): how many workers, values
    every task may read (:meth:`share`), parts spread over the workers and kept under a key
    (:meth:`share_parts`), and ``[fn(item, *shared) for item in items]`` as tasks (:meth:`map`)."""

    @property
    def workers(self) -> int: ...

    def share(self, value: Any) -> Any: ...

    def share_parts(self, key: Any, parts: list[Any]) -> list[Any]: ...

    def map(self, fn: Callable[..., Any], items: Sequence[Any], *shared: Any) -> list[Any]: ...


@dataclass(frozen=True)
class Resampling:
    """How a bootstrap resamples and judges, one value passed from the API to the functions
    below: ``replicates`` (B) drawn with ``seed``, intervals at ``level``, tests at ``alpha``;
    the items drawn within ``strata`` and by ``clusters`` (a benchmark's: :meth:`of`); the
    replicates run on ``engine`` (None: this process). The user's four are declared, with their
    ranges, in :mod:`simeval.api.options` (its defaults are these)."""

    replicates: int = 1000
    seed: int = 0
    level: float = 0.95
    alpha: float = 0.05
    strata: Sequence | np.ndarray | None = field(default=None, compare=False, repr=False)
    clusters: Sequence | np.ndarray | None = field(default=None, compare=False, repr=False)
    engine: Runner | None = field(default=None, compare=False, repr=False)

    def of(self, statistic: Any) -> Resampling:
        """This resampling within the groups ``statistic``'s items are drawn by (its
        ``resampling``: strata and clusters, :class:`simeval.kinds.rows.ItemMetrics`)."""
        return replace(self, **getattr(statistic, "resampling", {}))

    def on(self, engine: Runner | None) -> Resampling:
        """This resampling with its replicates run on ``engine``."""
        return replace(self, engine=engine)


DEFAULT_RESAMPLING = Resampling()  # B = 1000, seed 0, 95% intervals, α = 0.05, this process


@dataclass(frozen=True)
class Interval:
    """A two-sided interval at ``level`` (0.95 = 95%)."""

    low: float
    high: float
    level: float

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


@dataclass(frozen=True)
class Comparison:
    """System A minus system B on one metric: the difference, its interval and a p-value."""

    metric: str
    a: float
    b: float
    difference: float
    interval: Interval | None
    p_value: float
    test: str
    statistic: float | None = None

    def significant(self, alpha: float = 0.05) -> bool:
        return bool(self.p_value < alpha)


def strata_groups(strata: Sequence | np.ndarray | None, n: int) -> list[np.ndarray]:
    """Row indices of each stratum (one group of all rows when ``strata`` is None)."""
    if strata is None:
        return [np.arange(n)]
    _, codes = np.unique(np.asarray(strata), return_inverse=True)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return np.split(order, bounds)


def bootstrap_rows(
    n: int,
    replicates: int,
    seed: int,
    strata: Sequence | np.ndarray | None = None,
    clusters: Sequence | np.ndarray | None = None,
) -> Iterator[np.ndarray]:
    """``replicates`` resamples of the rows 0..n−1 with replacement, each stratum keeping its
    size (so an aggregate over datasets keeps every dataset's weight).

    With ``clusters`` the units drawn are clusters (all their rows together), as many per
    stratum as it has; a cluster must lie within one stratum.
    """
    rng = np.random.default_rng(seed)
    if clusters is None:
        groups = strata_groups(strata, n)
        for _ in range(replicates):
            yield np.concatenate([g[rng.integers(0, len(g), len(g))] for g in groups])
        return
    members = strata_groups(clusters, n)  # rows of each cluster
    order = np.concatenate(members)
    sizes = np.array([len(m) for m in members])
    starts = np.cumsum(sizes) - sizes
    first_rows = np.array([m[0] for m in members])
    label = None if strata is None else np.asarray(strata)[first_rows]
    units = strata_groups(label, len(members))  # clusters of each stratum
    for _ in range(replicates):
        pick = np.concatenate([u[rng.integers(0, len(u), len(u))] for u in units])
        counts = sizes[pick]
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        yield order[np.repeat(starts[pick], counts) + offsets]


def bootstrap(
    statistic: Statistic, n: int, how: Resampling = DEFAULT_RESAMPLING
) -> dict[str, np.ndarray]:
    """Bootstrap replicates of every metric ``statistic`` returns: name → array of B values
    (``how``: B, the seed, strata, clusters and engine; its level and alpha unused).

    A statistic with a ``weighted`` method (:meth:`simeval.kinds.rows.ItemMetrics.weighted`)
    is given the replicates as blocks of row multiplicities and computes a block at once; the
    rows drawn, and so the values, are the same as calling it on each replicate's rows. When it
    also has a ``fingerprint`` (its content), the values are kept for the next request of the
    same statistic, draws and seed in this process (a report asks for each system's several
    times); a ``partial`` statistic (a subset of the metrics) is served from a whole one. With
    an ``engine`` the blocks of replicates run as its tasks, with the same values.
    """
    replicates, seed, strata, clusters = how.replicates, how.seed, how.strata, how.clusters
    engine = how.engine
    if not hasattr(statistic, "weighted"):
        samples: dict[str, list] = {}
        for rows in bootstrap_rows(n, replicates, seed, strata, clusters):
            for name, value in statistic(rows).items():
                samples.setdefault(name, []).append(value)
        return {k: np.asarray(v, dtype=float) for k, v in samples.items()}
    fingerprint = getattr(statistic, "fingerprint", None)
    partial = bool(getattr(statistic, "partial", False))
    key = (fingerprint, n, replicates, seed, _digest(strata), _digest(clusters))
    if fingerprint is not None:
        for part in (True, False) if partial else (False,):
            found = _REPLICATES.get((*key, part))
            if found is not None and part == partial:
                return found
            if found is not None:  # only the metrics the partial statistic gives
                return {k: found[k] for k in statistic.weighted(np.ones((1, n)))}
    counts = draw_counts(n, replicates, seed, strata, clusters)
    if engine is None:
        out = _weighted_rows(counts, statistic)
    else:  # row ranges of the draws as tasks on Dask (the draws sent once per resampling)
        # parts made of whole blocks of _weighted_rows: each block's arithmetic, so each
        # value, is then the same as in one process, bit for bit
        blocks = np.arange(0, replicates, weighted.chunks(n, replicates))
        cuts = [b[0] for b in np.array_split(blocks, min(len(blocks), 2 * engine.workers))]
        # key[1:] names the draws: (n, replicates, seed, strata's and clusters' digests)
        parts = engine.share_parts(("draws", *key[1:]), np.split(counts, cuts[1:]))
        results = engine.map(_weighted_rows, parts, engine.share(statistic))
        out = {k: np.concatenate([r[k] for r in results]) for k in results[0]}
    if fingerprint is not None:
        _REPLICATES.put((*key, partial), out)
    return out


class _Recent:
    """The ``size`` most recently used values by key (a bounded memo)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.values: OrderedDict = OrderedDict()

    def get(self, key: Hashable) -> Any:
        if key in self.values:
            self.values.move_to_end(key)
            return self.values[key]
        return None

    def put(self, key: Hashable, value: Any) -> None:
        self.values[key] = value
        self.values.move_to_end(key)
        while len(self.values) > self.size:
            self.values.popitem(last=False)


_REPLICATES = _Recent(512)  # metric values: B floats per metric
_DRAWS = _Recent(4)  # multiplicity matrices: B × n small integers


def _digest(values: Sequence | np.ndarray | None) -> str | None:
    """A content key for strata or clusters."""
    if values is None:
        return None
    a = np.asarray(values)
    if a.dtype.kind in "OU":
        a = np.unique(a, return_inverse=True)[1]
    return hashlib.blake2b(np.ascontiguousarray(a).tobytes(), digest_size=16).hexdigest()


def draw_counts(
    n: int,
    replicates: int,
    seed: int,
    strata: Sequence | np.ndarray | None = None,
    clusters: Sequence | np.ndarray | None = None,
) -> np.ndarray:
    """:func:`bootstrap_rows` as a (replicates, n) matrix of small integers: how often each
    row was drawn in each replicate. The draws of the last few (n, B, seed, strata, clusters)
    are kept for statistics resampled the same way."""
    key = (n, replicates, seed, _digest(strata), _digest(clusters))
    counts = _DRAWS.get(key)
    if counts is None:
        counts = np.empty((replicates, n), dtype=np.uint16)
        for b, rows in enumerate(bootstrap_rows(n, replicates, seed, strata, clusters)):
            drawn = np.bincount(rows, minlength=n)
            if drawn.max(initial=0) > np.iinfo(np.uint16).max:  # a row drawn 65,536 times
                counts = counts.astype(np.int64)
            counts[b] = drawn
        _DRAWS.put(key, counts)
    return counts


def _weighted_rows(counts: np.ndarray, statistic: Any) -> dict[str, np.ndarray]:
    """A statistic's values for replicates given as draw counts, computed a block of about
    256k cells at a time (so memory stays flat in B and n)."""
    block = weighted.chunks(counts.shape[1], len(counts))
    parts: dict[str, list[np.ndarray]] = {}
    for start in range(0, len(counts), block):
        w = counts[start : start + block].astype(float)
        for name, values in statistic.weighted(w).items():
            parts.setdefault(name, []).append(np.asarray(values, dtype=float))
    return {k: np.concatenate(v) for k, v in parts.items()}


def percentile_interval(samples: np.ndarray, level: float = 0.95) -> Interval:
    """The percentile interval of bootstrap ``samples`` (NaN replicates left out; NaN bounds
    when none is defined)."""
    finite = samples[~np.isnan(samples)]
    if not len(finite):
        return Interval(float("nan"), float("nan"), level)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return Interval(float(low), float(high), level)


def bootstrap_intervals(
    statistic: Statistic, n: int, how: Resampling = DEFAULT_RESAMPLING
) -> dict[str, Interval]:
    """Percentile bootstrap intervals at ``how.level`` for every metric of ``statistic``
    (the replicates: :func:`bootstrap`)."""
    samples = bootstrap(statistic, n, how)
    return {k: percentile_interval(v, how.level) for k, v in samples.items()}


def fisher_z_interval(r: float, n: int, level: float = 0.95, kind: str = "pearson") -> Interval:
    """Interval for a correlation through Fisher's z = atanh(r) (module docstring for se).

    NaN bounds when n ≤ 3 or r is NaN; r = ±1 gives the degenerate interval [r, r].
    """
    if n <= 3 or np.isnan(r):
        return Interval(float("nan"), float("nan"), level)
    if abs(r) >= 1:
        return Interval(float(r), float(r), level)
    if kind == "pearson":
        se = 1 / np.sqrt(n - 3)
    elif kind == "spearman":
        se = np.sqrt((1 + r * r / 2) / (n - 3))
    else:
        raise ValueError(f"kind must be pearson or spearman, got {kind!r}")
    # the normal quantile as ``scipy.stats.norm.ppf`` computes it (its ``_ppf``), without
    # importing scipy.stats (most of a second) for it
    from scipy.special import ndtri

    z, q = np.arctanh(r), ndtri((1 + level) / 2)
    return Interval(float(np.tanh(z - q * se)), float(np.tanh(z + q * se)), level)


def williams_test(r12: float, r13: float, r23: float, n: int) -> tuple[float, float]:
    """Williams' t for H0: ρ12 = ρ13, where variable 1 (the gold) is shared (Steiger 1980, eq. 7):

        t = (r12 − r13) · √( (n−1)(1+r23) / ( 2·(n−1)/(n−3)·|R| + r̄²·(1−r23)³ ) ),
        |R| = 1 − r12² − r13² − r23² + 2·r12·r13·r23,  r̄ = (r12 + r13)/2,

    with n − 3 degrees of freedom. Returns (t, two-sided p).
    """
    if n <= 3:
        raise ValueError(f"Williams' test needs more than 3 items, got {n}")
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    denom = 2 * (n - 1) / (n - 3) * det + rbar**2 * (1 - r23) ** 3
    if denom <= 0:  # the two systems are the same variable: no difference can be shown
        return 0.0, 1.0
    # Student's t survival function as ``scipy.stats.t.sf`` computes it (its ``_sf``), without
    # importing scipy.stats (most of a second of the report's start) for it
    from scipy.special import stdtr

    t = (r12 - r13) * np.sqrt((n - 1) * (1 + r23) / denom)
    return float(t), float(2 * stdtr(n - 3, -abs(t)))


def paired_bootstrap(
    statistic_a: Statistic, statistic_b: Statistic, n: int, how: Resampling = DEFAULT_RESAMPLING
) -> dict[str, Comparison]:
    """A − B for every metric, both systems scored on the same resampled items (``how``: the
    replicates, as :func:`bootstrap` draws them, and the intervals' level).

    The interval is the percentile interval of the replicate differences δ_b. The two-sided
    p-value tests δ = 0 by shifting the replicates to the null (Efron & Tibshirani 1993, §16.4):
    p = (1 + #{b : |δ_b − δ| ≥ |δ|}) / (B + 1).
    """
    full = np.arange(n)
    a0, b0 = statistic_a(full), statistic_b(full)
    diffs: dict[str, list] = {k: [] for k in a0}
    if hasattr(statistic_a, "weighted") and hasattr(statistic_b, "weighted"):
        sa, sb = bootstrap(statistic_a, n, how), bootstrap(statistic_b, n, how)
        diffs = {k: list(sa[k] - sb[k]) for k in diffs}
    else:
        for rows in bootstrap_rows(n, how.replicates, how.seed, how.strata, how.clusters):
            sa, sb = statistic_a(rows), statistic_b(rows)
            for k in diffs:
                diffs[k].append(sa[k] - sb[k])
    out = {}
    for k, values in diffs.items():
        d = np.asarray(values, dtype=float)
        d = d[~np.isnan(d)]
        delta = a0[k] - b0[k]
        extreme = int(np.sum(np.abs(d - delta) >= abs(delta) - 1e-12))
        out[k] = Comparison(
            k,
            a0[k],
            b0[k],
            delta,
            percentile_interval(d, how.level),
            (1 + extreme) / (len(d) + 1),
            "paired bootstrap",
        )
    return out


def approximate_randomization(
    metric: Callable[[np.ndarray], Mapping[str, float]],
    scores_a: np.ndarray,
    scores_b: np.ndarray,
    rounds: int = 1000,
    seed: int = 0,
    many: Callable[[np.ndarray, np.ndarray, np.ndarray], Any] | None = None,
) -> dict[str, Comparison]:
    """Approximate randomization (Noreen 1989): under H0 the two systems' outputs are
    exchangeable item by item. Each round swaps every item's pair of outputs with probability
    1/2 and recomputes δ_r = metric(A′) − metric(B′); p = (1 + #{r : |δ_r| ≥ |δ|}) / (R + 1).

    ``metric`` maps one system's per-item outputs (a vector, or a row per item) to metric
    values. For rank-based metrics
    (average precision, accuracy by rank, AUC, ρ) pass each system's scores as fractional
    ranks, so the swapped outputs share a scale; for per-query values (reciprocal rank) pass
    the values themselves. ``many(a, b, swap)``, when given, computes a block of rounds at
    once: ``swap`` (R, n) says which items trade outputs; it returns the metrics of A′ and of
    B′ (name → R values), or None when it cannot. The rounds' swaps are the same either way
    (a block of R × n uniforms is R rounds' draws in order).
    """
    a = np.asarray(scores_a, dtype=float)
    b = np.asarray(scores_b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"the systems have {len(a)} and {len(b)} items")
    rng = np.random.default_rng(seed)
    ma, mb = metric(a), metric(b)
    counts = dict.fromkeys(ma, 0)
    if many is not None and many(a, b, np.zeros((0, len(a)), dtype=bool)) is not None:
        block = weighted.chunks(a.size, rounds)
        for start in range(0, rounds, block):
            swap = rng.random((min(block, rounds - start), len(a))) < 0.5
            sa, sb = many(a, b, swap)
            for k in counts:
                counts[k] += int(np.sum(np.abs(sa[k] - sb[k]) >= abs(ma[k] - mb[k]) - 1e-12))
    else:
        for _ in range(rounds):
            swap = (rng.random(len(a)) < 0.5).reshape(-1, *[1] * (a.ndim - 1))  # whole rows
            sa, sb = metric(np.where(swap, b, a)), metric(np.where(swap, a, b))
            for k in counts:
                counts[k] += abs(sa[k] - sb[k]) >= abs(ma[k] - mb[k]) - 1e-12
    return {
        k: Comparison(
            k,
            ma[k],
            mb[k],
            ma[k] - mb[k],
            None,
            (1 + counts[k]) / (rounds + 1),
            "approximate randomization",
        )
        for k in ma
    }


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), in the input order.

    Sorted ascending p_(1) ≤ … ≤ p_(m): p̃_(i) = max_{j ≤ i} min(1, (m − j + 1) · p_(j)).
    Rejecting where p̃ < α controls the family-wise error rate at α.
    """
    p = np.asarray(p_values, dtype=float)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order]))
    out = np.empty(m)
    out[order] = adjusted
    return out


def fractional_ranks(x: np.ndarray, strata: Sequence | np.ndarray | None = None) -> np.ndarray:
    """Average ranks divided by the group size (within each stratum): order and ties kept,
    scale removed, so two systems' outputs can be swapped item by item."""
    x = np.asarray(x, dtype=float)
    out = np.empty(len(x))
    for g in strata_groups(strata, len(x)):
        # scipy.stats.rankdata's ranks (a NaN makes the group's ranks NaN, as there), without
        # importing scipy.stats (most of a second of the report's start) for them
        group = x[g]
        out[g] = (np.nan if np.isnan(group).any() else average_ranks(group)) / len(g)
    return out
