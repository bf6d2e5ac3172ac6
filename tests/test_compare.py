"""compare's p-values against exact permutation tests enumerated here, and its bootstrap
intervals against a resampler written here."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import rankdata
from sklearn.metrics import average_precision_score

from simeval.api import score
from simeval.report.collect import load_grid
from simeval.report.compare import compare
from simeval.results.store import save_results

LABELS = [1, 0, 1, 0, 1, 1, 0, 0, 1, 0]
A = [0.9, 0.2, 0.8, 0.4, 0.7, 0.35, 0.5, 0.1, 0.6, 0.3]  # made up: ranks most related first
B = [0.3, 0.6, 0.5, 0.2, 0.9, 0.4, 0.8, 0.7, 0.1, 0.45]


@pytest.fixture
def related_results(tmp_path: Path) -> Path:
    from simeval.tasks.registry import pair_file

    gold = tmp_path / "rel.csv"
    gold.write_text("".join(f"w{i},v{i},{y}\n" for i, y in enumerate(LABELS)))
    results = tmp_path / "res"
    target = pair_file(gold, "related")
    for name, scores in (("A", A), ("B", B)):
        f = tmp_path / f"{name}.csv"
        f.write_text("".join(f"w{i},v{i},{s}\n" for i, s in enumerate(scores)))
        save_results(results, score(target, f, system={"name": name}))
    return results


def _pair(results: Path) -> tuple:
    grid = load_grid(results)
    (bench,) = grid.benchmarks
    return grid.get("A", bench), grid.get("B", bench)


def test_approximate_randomization_converges_to_the_exact_permutation_p(related_results) -> None:
    """Every one of the 2^10 swaps enumerated: the exact p of step-wise AP (scikit-learn on
    fractional ranks, as compare swaps them). AR with 20,000 rounds lands within 0.01 of it
    (its standard error is below 0.0036)."""
    ra, rb = rankdata(A) / len(A), rankdata(B) / len(B)

    def ap(x: np.ndarray) -> float:
        return average_precision_score(LABELS, x)

    observed = abs(ap(ra) - ap(rb))
    extreme = 0
    for swap in itertools.product((False, True), repeat=len(A)):
        s = np.array(swap)
        extreme += abs(ap(np.where(s, rb, ra)) - ap(np.where(s, ra, rb))) >= observed - 1e-12
    exact = extreme / 2 ** len(A)
    verdict = compare(*_pair(related_results), replicates=20_000)
    c = verdict.metrics["ap"]
    assert c.test == "approximate randomization"
    assert c.a == pytest.approx(ap(np.array(A)), abs=1e-12)
    assert c.p_value == pytest.approx(exact, abs=0.01)
    assert 0.05 < exact < 0.95  # a case where the test has something to decide


def test_paired_bootstrap_interval_equals_a_resampler_written_here(related_results) -> None:
    """The interval of A − B on step-wise AP from compare against the same draws made here:
    each replicate draws the items with replacement (numpy's generator, the same seed) and
    the 2.5th/97.5th percentiles of the differences bound the interval."""
    verdict = compare(*_pair(related_results), replicates=300, seed=5)
    # related pairs are drawn by word1 (every word1 here is its own cluster): items one by one
    rng = np.random.default_rng(5)
    labels, sa, sb = np.array(LABELS), np.array(A), np.array(B)
    diffs = []
    for _ in range(300):
        rows = rng.integers(0, len(labels), len(labels))
        if labels[rows].min() == labels[rows].max():
            diffs.append(np.nan)
            continue
        diffs.append(
            average_precision_score(labels[rows], sa[rows])
            - average_precision_score(labels[rows], sb[rows])
        )
    low, high = np.nanpercentile(diffs, [2.5, 97.5])
    interval = verdict.metrics["ap"].interval
    assert (interval.low, interval.high) == pytest.approx((low, high), abs=1e-9)
