"""Statistics: intervals, tests, Holm; and the per-item rows that results keep for them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import norm, pearsonr, rankdata, spearmanr
from scipy.stats import t as student_t

from simeval.api import evaluate, load_target
from simeval.data.pair_files import ScoredPairs
from simeval.kinds.rows import ItemMetrics, task_metrics
from simeval.metrics.stats import (
    Resampling,
    approximate_randomization,
    bootstrap_intervals,
    bootstrap_rows,
    fisher_z_interval,
    fractional_ranks,
    holm,
    paired_bootstrap,
    williams_test,
)
from simeval.results.items import read_items, write_items

# -- items: the metrics recomputed from a result's rows equal the result's metrics ----------


@pytest.fixture(scope="module")
def overlap_results(store):
    return [
        *evaluate("overlap", "sts12", store=store),
        *evaluate("orthographic:kind=dice", "russe", "simlex999", store=store),
    ]


def test_item_metrics_reproduce_every_result(overlap_results, tmp_path: Path) -> None:
    assert len(overlap_results) == 6 + 5 + 1
    for r in overlap_results:
        path = tmp_path / f"{r.benchmark}.tsv.gz"
        write_items(path, r.items)
        again = task_metrics(r.task, read_items(path))  # through the file, as reports read it
        for name, value in r.metrics.items():
            assert again[name] == pytest.approx(value, abs=1e-12, nan_ok=False), (r.benchmark, name)
    simlex = next(r for r in overlap_results if r.benchmark == "simlex999")
    assert set(simlex.items["POS"]) == {"A", "N", "V"}  # metadata travels with the rows
    suite = next(r for r in overlap_results if r.benchmark == "russe")
    assert len(suite.items["gold"]) == 14835


def test_items_keep_the_missing_policy(store) -> None:
    bench = load_target("simlex999", store)
    half = bench.gold.take(np.arange(len(bench)) % 2 == 0)
    submission = ScoredPairs(None, half.pairs, np.arange(len(half), dtype=float), half.lines)
    for missing in ("zero", "skip"):
        (r,) = bench.evaluate(submission, missing=missing)
        assert task_metrics(r.task, r.items)["spearman"] == pytest.approx(r.score, abs=1e-12)
        assert r.items["covered"].sum() == 500
        assert r.items["counted"].sum() == (999 if missing == "zero" else 500)


# -- Fisher z, Williams, Holm: hand computations from the published formulas ---------------


def test_fisher_z_interval_by_hand() -> None:
    r, n = 0.6, 50
    z, q = 0.5 * math.log((1 + r) / (1 - r)), 1.959963984540054
    se = 1 / math.sqrt(n - 3)
    got = fisher_z_interval(r, n)
    assert got.low == pytest.approx(math.tanh(z - q * se), abs=1e-12)
    assert got.high == pytest.approx(math.tanh(z + q * se), abs=1e-12)
    se_s = math.sqrt((1 + r * r / 2) / (n - 3))  # Bonett & Wright for Spearman
    assert fisher_z_interval(r, n, kind="spearman").high == pytest.approx(
        math.tanh(z + q * se_s), abs=1e-12
    )
    assert math.isnan(fisher_z_interval(0.5, 3).low)


def test_williams_test_by_hand() -> None:
    # Steiger (1980) eq. 7, written out: r12 = .50, r13 = .30, r23 = .40, n = 100
    r12, r13, r23, n = 0.5, 0.3, 0.4, 100
    det = 1 - 0.25 - 0.09 - 0.16 + 2 * 0.5 * 0.3 * 0.4  # = 0.62
    rbar = 0.4
    t = 0.2 * math.sqrt(99 * 1.4 / (2 * 99 / 97 * det + rbar**2 * 0.6**3))
    got_t, got_p = williams_test(r12, r13, r23, n)
    assert got_t == pytest.approx(t, rel=1e-12)
    assert got_t == pytest.approx(2.0650, abs=1e-4)  # 0.2·√(138.6 / 1.30013), by calculator
    assert got_p == pytest.approx(2 * student_t.sf(t, 97), rel=1e-12)
    t_rev, p_rev = williams_test(r13, r12, r23, n)
    assert t_rev == pytest.approx(-got_t) and p_rev == pytest.approx(got_p)
    assert williams_test(0.5, 0.5, 0.9, 100) == (0.0, 1.0)


def test_fisher_and_williams_use_scipys_quantile_and_tail_bit_for_bit() -> None:
    """They compute scipy.stats' normal quantile and t tail through scipy.special (importing
    scipy.stats cost the report most of a second): the same float, not just close."""
    for level in (0.5, 0.8, 0.9, 0.95, 0.99, 0.999):
        for r, n in ((0.6, 50), (-0.31, 12), (0.05, 1000)):
            z, q = np.arctanh(r), norm.ppf((1 + level) / 2)
            se = 1 / np.sqrt(n - 3)
            got = fisher_z_interval(r, n, level)
            assert (got.low, got.high) == (float(np.tanh(z - q * se)), float(np.tanh(z + q * se)))
    rng = np.random.default_rng(5)
    for _ in range(200):
        r12, r13, r23 = rng.uniform(-0.9, 0.9, 3)
        n = int(rng.integers(4, 3000))
        t, p = williams_test(r12, r13, r23, n)
        assert p == float(2 * student_t.sf(abs(t), n - 3)), (r12, r13, r23, n)


def test_fractional_ranks_are_scipys_rankdata_bit_for_bit() -> None:
    rng = np.random.default_rng(9)
    for _ in range(50):
        x = rng.integers(0, 20, size=int(rng.integers(1, 200))).astype(float) / 7
        strata = rng.integers(0, 3, size=len(x))
        expected = np.empty(len(x))
        for s in np.unique(strata):
            g = np.flatnonzero(strata == s)
            expected[g] = rankdata(x[g]) / len(g)
        assert fractional_ranks(x, strata).tobytes() == expected.tobytes()
    with_nan = np.array([1.0, np.nan, 2.0, 3.0])  # rankdata: a NaN makes every rank NaN
    assert np.isnan(fractional_ranks(with_nan)).all()
    assert np.isnan(rankdata(with_nan) / 4).all()


def test_williams_test_holds_its_level_under_the_null() -> None:
    # gold and two systems equally correlated with it: H0 true, ~5% rejections expected
    rng = np.random.default_rng(7)
    cov = np.array([[1, 0.5, 0.5], [0.5, 1, 0.6], [0.5, 0.6, 1]])
    rejections = 0
    for _ in range(400):
        g, a, b = rng.multivariate_normal(np.zeros(3), cov, size=80).T
        _, p = williams_test(pearsonr(g, a)[0], pearsonr(g, b)[0], pearsonr(a, b)[0], 80)
        rejections += p < 0.05
    assert 0.02 <= rejections / 400 <= 0.09  # binomial sd at 5% is 1.1 points


def test_holm_by_hand() -> None:
    # sorted: .005·4 = .02, .01·3 = .03, .03·2 = .06, .04·1 = .04 → running max .06
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


# -- bootstrap intervals: coverage on synthetic data with a known truth ---------------------


def test_bootstrap_intervals_cover_the_true_correlation() -> None:
    """200 samples of n = 150 from a bivariate normal with ρ = 0.5: the 95% percentile
    intervals for Pearson's r should cover 0.5, and for Spearman's ρ its population value
    (6/π)·asin(ρ/2), about 95% of the time. With 200 simulations the binomial sd of the rate
    is 1.5 points; the percentile bootstrap runs slightly short at this n, so accept 0.90-0.99.
    """
    rng = np.random.default_rng(2026)
    rho = 0.5
    rho_s = 6 / math.pi * math.asin(rho / 2)
    hits = {"pearson": 0, "spearman": 0}
    for sim in range(200):
        x, y = rng.multivariate_normal([0, 0], [[1, rho], [rho, 1]], size=150).T
        items = {"gold": x, "score": y}
        ci = bootstrap_intervals(ItemMetrics("graded-pairs", items), 150, Resampling(200, sim))
        hits["pearson"] += ci["pearson"].contains(rho)
        hits["spearman"] += ci["spearman"].contains(rho_s)
    for name, count in hits.items():
        assert 0.90 <= count / 200 <= 0.99, (name, count)


def test_paired_bootstrap_covers_a_known_difference() -> None:
    """Per-query reciprocal ranks of two systems that differ by 0.1 in expectation."""
    rng = np.random.default_rng(5)
    covered = 0
    for sim in range(200):
        a = rng.binomial(1, 0.6, 300).astype(float)
        b = rng.binomial(1, 0.5, 300).astype(float)

        def stat(values):
            return lambda rows: {"recip_rank": float(values[rows].mean())}

        cmp = paired_bootstrap(stat(a), stat(b), 300, Resampling(300, sim))["recip_rank"]
        covered += cmp.interval.contains(0.1)
    assert 0.90 <= covered / 200 <= 0.99


def test_approximate_randomization_level_and_power() -> None:
    rng = np.random.default_rng(11)

    def mean(values):
        return {"m": float(values.mean())}

    rejections = 0
    for sim in range(100):  # exchangeable systems: ~5% rejections
        a, b = rng.normal(size=(2, 60))
        p = approximate_randomization(mean, a, b, rounds=200, seed=sim)["m"].p_value
        rejections += p < 0.05
    assert rejections <= 12
    a = rng.normal(0.5, 1, 200)
    b = rng.normal(0.0, 1, 200)
    got = approximate_randomization(mean, a, b, rounds=500, seed=1)["m"]
    assert got.p_value < 0.01 and got.difference == pytest.approx(a.mean() - b.mean())
    same = approximate_randomization(mean, a, a, rounds=100, seed=1)["m"]
    assert same.p_value == 1.0


def test_fractional_ranks_keep_order_within_strata() -> None:
    x = np.array([10.0, 30.0, 20.0, 20.0, 1.0, 2.0])
    got = fractional_ranks(x, ["a", "a", "a", "a", "b", "b"])
    assert got.tolist() == pytest.approx([0.25, 1.0, 0.625, 0.625, 0.5, 1.0])
    assert spearmanr(got[:4], x[:4])[0] == pytest.approx(1.0)


def test_percentile_interval_level() -> None:
    # B large, a statistic with a known sampling distribution: the mean of n N(0,1) draws
    rng = np.random.default_rng(3)
    x = rng.normal(size=400)
    ci = bootstrap_intervals(lambda rows: {"mean": float(x[rows].mean())}, 400, Resampling(2000, 1))
    half = norm.ppf(0.975) * x.std() / math.sqrt(400)
    assert ci["mean"].high - ci["mean"].low == pytest.approx(2 * half, rel=0.1)


def test_cluster_bootstrap_draws_whole_clusters_within_strata() -> None:
    clusters = np.array([0, 0, 0, 1, 1, 2, 3, 3, 4, 4, 4, 4])
    strata = np.array(["a"] * 5 + ["b"] * 7)  # clusters 0, 1 in a; 2, 3, 4 in b
    rows_of = {c: set(np.flatnonzero(clusters == c)) for c in range(5)}
    seen = set()
    for rows in bootstrap_rows(12, 300, seed=4, strata=strata, clusters=clusters):
        drawn = clusters[rows]
        counts = {c: int((drawn == c).sum()) for c in range(5)}
        for c, k in counts.items():  # a drawn cluster comes whole, maybe several times
            assert k % len(rows_of[c]) == 0
        assert sum(counts[c] // len(rows_of[c]) for c in (0, 1)) == 2  # two clusters from a
        assert sum(counts[c] // len(rows_of[c]) for c in (2, 3, 4)) == 3  # three from b
        seen.add(tuple(sorted(counts.items())))
    assert len(seen) > 10  # it does resample


def test_related_pairs_are_resampled_by_word1() -> None:
    items = {
        "word1": np.array(["x", "x", "y", "y", "z", "z"]),
        "word2": np.array(["a", "b", "a", "b", "a", "b"]),
        "gold": np.array([1.0, 0, 1, 0, 1, 0]),
        "score": np.array([0.9, 0.1, 0.2, 0.8, 0.7, 0.6]),
        "counted": np.ones(6),
    }
    metric = ItemMetrics("related-pairs", items)
    assert metric.clusters.tolist() == [0, 0, 1, 1, 2, 2]
    # accuracy is whole-word1 correct or wrong here (2 of 3 word1 right): replicates can only
    # take the values k/3
    ci = bootstrap_intervals(metric, 6, Resampling(200, 0).of(metric))
    samples = [
        metric(rows)["accuracy"]
        for rows in __import__("simeval.metrics.stats", fromlist=["x"]).bootstrap_rows(
            6, 50, 0, clusters=metric.clusters
        )
    ]
    assert set(np.round(np.array(samples) * 3, 9)) <= {0.0, 1.0, 2.0, 3.0}
    assert 0 <= ci["accuracy"].low <= 2 / 3 <= ci["accuracy"].high <= 1
