"""The statistics of a tiered leaderboard over arrays: ranks per replicate with the stated
tie rule, the percentile rank interval, LMArena's upper bound and the greedy tiers with Holm's
correction (by hand), and the detectable difference against a formula written here and a
simulation of Williams' test."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from simeval.metrics.stats import williams_test
from simeval.metrics.tiers import (
    detectable_difference,
    greedy_tiers,
    rank_interval,
    rank_upper_bounds,
    replicate_ranks,
)


def test_replicate_ranks_competition_ties_and_nan_last() -> None:
    """Per replicate: 1 + the systems strictly better; equal values share a rank; NaN last."""
    samples = np.array([[0.5, 0.1], [0.5, np.nan], [0.2, 0.3], [np.nan, np.nan]])
    assert replicate_ranks(samples).tolist() == [[1, 2], [1, 3], [3, 1], [4, 3]]


def test_rank_interval_reads_the_empirical_distribution() -> None:
    """1,000 replicates: rank 1 thirty times, 2 940 times, 3 thirty times. The 2.5% point
    is the smallest rank whose cumulative count reaches 25 (rank 1: 30), the 97.5% point the
    smallest reaching 975 (rank 2 reaches 970 only: rank 3); with rank 1 twenty times, 2."""
    ranks = np.array([1] * 30 + [2] * 940 + [3] * 30)
    assert rank_interval(ranks, 0.95) == (1, 3)
    ranks = np.array([1] * 20 + [2] * 960 + [3] * 20)
    assert rank_interval(ranks, 0.95) == (2, 2)


def _smallest_rank_reaching(ranks: list[int], share: float) -> int:
    """The definition, by counting: the smallest observed rank r with #{b : rank_b ≤ r} ≥
    B·share."""
    return min(r for r in ranks if sum(x <= r for x in ranks) >= len(ranks) * share)


def test_rank_interval_with_few_replicates_is_read_from_the_counts() -> None:
    """Five replicates, ranks 1, 1, 2, 2, 3, level 0.95: the 97.5% end needs a cumulative
    count of 5·0.975 = 4.875, which only rank 3 reaches (rank 2: 4), so the interval is
    (1, 3); interpolating numpy methods on the index (B − 1)·q = 3.9 (``lower``) would read
    rank 2. Seven replicates, ranks 1, 1, 2, 3, 3, 3, 4, level 0.4: the 30% end needs
    7·0.3 = 2.1 (rank 1: 2, rank 2: 3), so 2, where ``lower`` (index 1.8) reads 1; the 70%
    end needs 4.9: rank 3 (count 6)."""
    five = [3, 1, 2, 1, 2]
    lo, hi = _smallest_rank_reaching(five, 0.025), _smallest_rank_reaching(five, 0.975)
    assert (lo, hi) == (1, 3)
    assert rank_interval(np.array(five), 0.95) == (lo, hi)
    seven = [4, 3, 1, 3, 2, 1, 3]
    lo, hi = _smallest_rank_reaching(seven, 0.3), _smallest_rank_reaching(seven, 0.7)
    assert (lo, hi) == (2, 3)
    assert rank_interval(np.array(seven), 0.4) == (lo, hi)


def test_upper_bound_counts_the_intervals_wholly_above() -> None:
    intervals = {"A": (1, 1), "B": (2, 3), "C": (2, 4), "D": (4, 4)}
    # D: A (1) and B (3) end above 4; C ends at 4, which overlaps
    assert rank_upper_bounds(intervals) == {"A": 1, "B": 2, "C": 2, "D": 3}


def test_greedy_rule_on_a_chain_and_holm_joining() -> None:
    """A ≈ B, B ≈ C, A ≫ C: B joins A's tier; C does not, although B cannot be told from it.
    Then two raw p-values under 0.05 (0.03, 0.04) that Holm lifts to 0.06 join the tier."""
    p = {("A", "B"): 0.3, ("A", "C"): 0.001, ("B", "C"): 0.3}
    placed = greedy_tiers(["A", "B", "C"], lambda a, b: p[(a, b)])
    assert {s: t.tier for s, t in placed.items()} == {"A": 1, "B": 1, "C": 2}
    # Holm by hand: 0.001·2 = 0.002, then max(0.002, 0.3·1) = 0.3
    assert placed["B"].p_value == pytest.approx(0.3)
    assert placed["C"].best == "C"
    q = {("A", "B"): 0.03, ("A", "C"): 0.04}
    placed = greedy_tiers(["A", "B", "C"], lambda a, b: q[(a, b)])
    assert {s: t.tier for s, t in placed.items()} == {"A": 1, "B": 1, "C": 1}
    assert placed["B"].p_value == pytest.approx(0.06)  # 0.03 · 2
    assert placed["C"].p_value == pytest.approx(0.06)  # max(0.06, 0.04 · 1)


def test_a_holm_p_value_exactly_at_alpha_is_not_significant() -> None:
    """Rejection is p̃ < α (Holm), so p̃ = α joins the tier. With B = 39 replicates a
    bootstrap or randomization p-value is (1 + k)/(B + 1): k = 0 gives 1/40, which Holm
    doubles over two comparisons to 2/40 = 0.05 exactly (doubling is exact in binary)."""
    replicates = 39
    p = {("A", "B"): (1 + 0) / (replicates + 1), ("A", "C"): (1 + 29) / (replicates + 1)}
    assert 2 * p[("A", "B")] == 0.05
    placed = greedy_tiers(["A", "B", "C"], lambda a, b: p[(a, b)], alpha=0.05)
    assert placed["B"].p_value == 0.05
    assert {s: t.tier for s, t in placed.items()} == {"A": 1, "B": 1, "C": 1}
    # below α: the same Holm 0.05 against α = 0.0625 is a difference
    placed = greedy_tiers(["A", "B", "C"], lambda a, b: p[(a, b)], alpha=0.0625)
    assert placed["B"].tier == 2


# -- the smallest detectable difference ---------------------------------------------------


def test_detectable_difference_of_a_share_by_hand() -> None:
    """Accuracy on 1,000 items, p = 0.5, per-item correlation 0.7, α 0.05, power 0.8:
    (1.959964 + 0.841621)·√(2·0.25·0.3/1000) = 0.034313."""
    d = detectable_difference(1000, "accuracy", 0.05, 0.8, between=0.7)
    z = norm.ppf(0.975) + norm.ppf(0.8)
    assert d.difference == pytest.approx(z * np.sqrt(2 * 0.25 * 0.3 / 1000), rel=1e-12)
    assert d.difference == pytest.approx(0.034313, abs=1e-6)
    # AP over the positives only (half the items): √2 times wider
    ap = detectable_difference(1000, "ap", between=0.7).difference
    assert ap == pytest.approx(d.difference * np.sqrt(2), rel=1e-12)
    with pytest.raises(ValueError):
        detectable_difference(1000, "sum")


def test_detectable_difference_of_pearson_has_its_power_in_a_simulation() -> None:
    """Draw (gold, A, B) normal with corr(gold, A) = 0.6, corr(gold, B) = 0.6 − Δ and
    corr(A, B) = 0.7 on 400 items, Δ the detectable difference: Williams' test rejects at
    0.05 in about 80% of 600 draws (binomial SD 1.6%)."""
    n, r, between = 400, 0.6, 0.7
    delta = detectable_difference(n, "pearson", value=r, between=between).difference
    assert 0.05 < delta < 0.15
    cov = np.array([[1, r, r - delta], [r, 1, between], [r - delta, between, 1]])
    rng = np.random.default_rng(3)
    rejected = 0
    for _ in range(600):
        g, a, b = rng.multivariate_normal(np.zeros(3), cov, size=n).T
        r12, r13, r23 = np.corrcoef(a, g)[0, 1], np.corrcoef(b, g)[0, 1], np.corrcoef(a, b)[0, 1]
        rejected += williams_test(r12, r13, r23, n)[1] < 0.05
    assert 0.74 < rejected / 600 < 0.86
    # Spearman: its variance is (1 + r²/2) times Pearson's, so a wider difference
    assert detectable_difference(n, "spearman", value=r, between=between).difference > delta
