"""The report's resampling done at once (a matrix of row multiplicities per block of replicates)
gives the values of the per-replicate reference path: the same rows are drawn from the same
seed, and every metric of every kind equals the metric recomputed on each replicate's rows.

The reference path (a statistic without ``weighted``) is what the report ran before; its
metrics are checked against scipy and scikit-learn in test_metrics and test_stats. Here,
besides path against path, one replicate's values are recomputed from the expanded rows with
scipy and scikit-learn directly.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import average_precision_score, roc_auc_score

from simeval.api import evaluate
from simeval.kinds.rows import ItemMetrics, concat_items
from simeval.metrics.stats import (
    Resampling,
    approximate_randomization,
    bootstrap,
    bootstrap_rows,
    draw_counts,
    fractional_ranks,
    paired_bootstrap,
)


def _rowwise(metric: ItemMetrics):
    return lambda rows: metric(rows)  # hides ``weighted``: the per-replicate reference path


def _same(a: dict, b: dict, tol: float = 1e-12) -> None:
    assert list(a) == list(b)
    for k in a:
        assert np.array_equal(np.isnan(a[k]), np.isnan(b[k])), k
        keep = ~np.isnan(a[k])
        assert np.abs(a[k][keep] - b[k][keep]).max(initial=0) <= tol, k


@pytest.fixture(scope="module")
def results(store):
    return [
        *evaluate("overlap", "sts12", store=store),
        *evaluate("orthographic:kind=dice", "russe", "simlex999", "mc30", store=store),
    ]


def _hand_items(rng: np.random.Generator) -> dict[str, tuple[str, dict]]:
    """Kinds the real results above do not cover: STS with confidences, queries, a mean suite,
    heavy ties, a constant system, and near-ties chained within 1e-8 (the 2015 AP's merge)."""
    n = 120
    gold = rng.integers(0, 6, n).astype(float)
    sts = {"gold": gold, "score": rng.normal(size=n), "confidence": rng.integers(0, 100, n) * 1.0}
    queries = {
        "qid": np.array([f"q{i}" for i in range(n)]),
        "success_1": rng.integers(0, 2, n) * 1.0,
        "success_5": rng.integers(0, 2, n) * 1.0,
        "recip_rank": 1 / rng.integers(1, 6, n),
        "num_ret": np.full(n, 5.0),
        "num_rel": np.ones(n),
        "num_rel_ret": rng.integers(0, 2, n) * 1.0,
    }
    word1 = np.repeat(np.arange(20), 6).astype(str)
    related = {
        "word1": word1,
        "word2": np.array([f"w{i}" for i in range(n)]),
        "gold": np.tile([1.0, 1.0, 1.0, 0.0, 0.0, 0.0], 20),
        "score": np.round(rng.normal(size=n), 1),  # many ties
    }
    chained = dict(related, score=0.5 + np.arange(n) % 7 * 0.6e-8)  # a chain of near-ties
    constant = {"gold": gold, "score": np.zeros(n)}
    mean_suite = concat_items([("q-a", "linking", queries), ("q-b", "linking", queries)])
    return {
        "sts+confidence": ("sts", sts),
        "queries": ("linking", queries),
        "ties": ("related-pairs", related),
        "near-tie chain": ("related-pairs", chained),
        "constant": ("graded-pairs", constant),
        "mean suite": ("suite-mean", mean_suite),
    }


@pytest.mark.slow
def test_weighted_equals_per_replicate_on_every_kind(results) -> None:
    cases = {r.benchmark: (r.task, r.items) for r in results}
    cases.update(_hand_items(np.random.default_rng(0)))
    kinds = {ItemMetrics(task, items).task for task, items in cases.values()}
    assert kinds == {
        "graded-pairs",
        "related-pairs",
        "sts",
        "linking",
        "suite-sum",
        "suite-sts",
        "suite-mean",
    }
    for name, (task, items) in cases.items():
        for main_only in (False, True):
            m = ItemMetrics(task, items, main_only)
            fast = bootstrap(m, m.n, Resampling(200, 5).of(m))
            slow = bootstrap(_rowwise(m), m.n, Resampling(200, 5).of(m))
            try:
                _same(fast, slow)
            except AssertionError as exc:
                raise AssertionError(f"{name} main_only={main_only}: {exc}") from exc


def test_one_replicate_by_scipy_and_sklearn(results) -> None:
    """Replicate 7's rows, expanded, scored by the libraries: the weighted values match."""
    for r in results:
        if r.task not in ("graded-pairs", "related-pairs"):
            continue
        m = ItemMetrics(r.task, r.items)
        rows = list(bootstrap_rows(m.n, 8, 3, **m.resampling))[7]
        w = draw_counts(m.n, 8, 3, **m.resampling).astype(float)
        got = {k: v[7] for k, v in m.weighted(w).items()}
        gold, score = m.columns["gold"][rows], m.columns["score"][rows]
        if r.task == "graded-pairs":
            if np.ptp(score) == 0:
                continue
            assert got["spearman"] == pytest.approx(spearmanr(score, gold)[0], abs=1e-12)
            assert got["pearson"] == pytest.approx(pearsonr(score, gold)[0], abs=1e-12)
        else:
            assert got["ap"] == pytest.approx(average_precision_score(gold, score), abs=1e-12)
            assert got["roc_auc"] == pytest.approx(roc_auc_score(gold, score), abs=1e-12)


def test_paired_bootstrap_and_cached_values_are_unchanged(results) -> None:
    r = next(x for x in results if x.benchmark == "russe-ae")
    a = ItemMetrics(r.task, r.items, main_only=True)
    shifted = dict(r.items, score=r.items["score"] + np.arange(len(r.items["score"])) % 3 * 0.01)
    b = ItemMetrics(r.task, shifted, main_only=True)
    fast = paired_bootstrap(a, b, a.n, Resampling(300, 2).of(a))
    slow = paired_bootstrap(_rowwise(a), _rowwise(b), a.n, Resampling(300, 2).of(a))
    for k in slow:
        assert fast[k].interval.low == pytest.approx(slow[k].interval.low, abs=1e-12)
        assert fast[k].interval.high == pytest.approx(slow[k].interval.high, abs=1e-12)
        assert fast[k].p_value == slow[k].p_value
    # asked again (served from the memo), and a whole statistic's values serve a partial one
    whole = ItemMetrics(r.task, r.items)
    full = bootstrap(whole, whole.n, Resampling(300, 2).of(whole))
    again = bootstrap(a, a.n, Resampling(300, 2).of(a))
    assert list(again) == ["ap_trapezoid"]
    assert np.array_equal(again["ap_trapezoid"], full["ap_trapezoid"])


@pytest.mark.slow
def test_approximate_randomization_at_once_equals_round_by_round(results) -> None:
    rng = np.random.default_rng(1)
    hand = _hand_items(rng)
    r = next(x for x in results if x.benchmark == "russe-rt")
    noisy = dict(r.items, score=r.items["score"] + rng.normal(0, 0.05, len(r.items["score"])))
    cases = [
        (r.task, r.items, noisy),
        ("related-pairs", hand["ties"][1], hand["near-tie chain"][1]),  # chain: the loop path
        ("linking", hand["queries"][1], dict(hand["queries"][1], recip_rank=np.full(120, 0.5))),
    ]
    for task, items_a, items_b in cases:
        for main_only in (True, False):
            ma = ItemMetrics(task, items_a, main_only)
            mb = ItemMetrics(task, items_b, main_only)
            va, vb = ma.values, mb.values
            if not ma.linking:
                va, vb = fractional_ranks(va), fractional_ranks(vb)
            slow = approximate_randomization(lambda v, m=ma: m(scores=v), va, vb, 200, 9)
            fast = approximate_randomization(
                lambda v, m=ma: m(scores=v), va, vb, 200, 9, many=ma.swapped
            )
            assert {k: c.p_value for k, c in fast.items()} == {
                k: c.p_value for k, c in slow.items()
            }, (task, main_only)


def test_one_resampling_value_defaults_to_the_declared_options() -> None:
    """The bootstrap's one value object starts from the options the API and the command line
    declare (simeval.api.options), and takes a statistic's strata and clusters with ``of``."""
    from simeval.api.options import ALPHA, LEVEL, REPLICATES, SEED

    how = Resampling()
    declared = (REPLICATES.default, SEED.default, LEVEL.default, ALPHA.default)
    assert (how.replicates, how.seed, how.level, how.alpha) == declared
    assert (how.strata, how.clusters, how.engine) == (None, None, None)

    class Grouped:
        def __init__(self) -> None:
            self.resampling = {"strata": ["a", "b"], "clusters": [1, 1]}

    grouped = Resampling(300, 4).of(Grouped())
    assert (grouped.replicates, grouped.seed) == (300, 4)
    assert (grouped.strata, grouped.clusters) == (["a", "b"], [1, 1])
    assert Resampling(300, 4).of(object()).strata is None  # no groups: drawn from all items
