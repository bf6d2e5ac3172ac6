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
from simeval.metrics.stats import Resampling
from simeval.report.collect import load_grid
from simeval.report.compare import compare
from simeval.results.store import save_results

LABELS = [1, 0, 1, 0, 1, 1, 0, 0, 1, 0]
A = [0.9, 0.2, 0.8, 0.4, 0.7, 0.35, 0.5, 0.1, 0.6, 0.3]  # made up: ranks most related first
B = [0.3, 0.6, 0.5, 0.2, 0.9, 0.4, 0.8, 0.7, 0.1, 0.45]


@pytest.fixture
def related_results(tmp_path: Path) -> Path:
    from simeval.kinds.pairs import pair_file

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


@pytest.mark.slow
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
    verdict = compare(*_pair(related_results), Resampling(20_000))
    c = verdict.metrics["ap"]
    assert c.test == "approximate randomization"
    assert c.a == pytest.approx(ap(np.array(A)), abs=1e-12)
    assert c.p_value == pytest.approx(exact, abs=0.01)
    assert 0.05 < exact < 0.95  # a case where the test has something to decide


def test_paired_bootstrap_interval_equals_a_resampler_written_here(related_results) -> None:
    """The interval of A − B on step-wise AP from compare against the same draws made here:
    each replicate draws the items with replacement (numpy's generator, the same seed) and
    the 2.5th/97.5th percentiles of the differences bound the interval."""
    verdict = compare(*_pair(related_results), Resampling(300, 5))
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


@pytest.fixture
def sts_suite_results(tmp_path: Path) -> Path:
    """Two systems on a hand-made two-dataset STS suite (written here, not from the catalog)."""
    from simeval.kinds.sts import sts_folder

    rng = np.random.default_rng(3)
    folder = tmp_path / "sts"
    folder.mkdir()
    outputs = {"A": {}, "B": {}}
    for name, n in (("one", 40), ("two", 30)):
        gold = rng.uniform(0, 5, n)
        (folder / f"STS.input.{name}.txt").write_text("".join(f"s{i}\tt{i}\n" for i in range(n)))
        (folder / f"STS.gs.{name}.txt").write_text("".join(f"{float(g)!r}\n" for g in gold))
        outputs["A"][name] = gold + rng.normal(0, 1.0, n)
        outputs["B"][name] = gold + rng.normal(0, 2.5, n)
    suite = sts_folder(folder)
    results = tmp_path / "res"
    for system, by_set in outputs.items():
        out = tmp_path / system
        out.mkdir()
        for name, scores in by_set.items():
            (out / f"STS.output.{name}.txt").write_text("".join(f"{float(s)!r}\n" for s in scores))
        save_results(results, score(suite, out, system={"name": system}))
    return results


def test_williams_on_the_sts_suite_all_by_hand(sts_suite_results: Path) -> None:
    """ALL pools the datasets, so its test is Williams' on the concatenated items: computed
    here from scipy's correlations and Steiger's (1980) formula, eq. 7."""
    from scipy.stats import pearsonr
    from scipy.stats import t as student_t

    grid = load_grid(sts_suite_results)
    suite = next(b for b in grid.benchmarks if grid.get("A", b).task == "suite-sts")
    a, b = grid.get("A", suite), grid.get("B", suite)
    gold, sa, sb = a.items()["gold"], a.items()["score"], b.items()["score"]
    n = len(gold)
    r12, r13, r23 = pearsonr(gold, sa)[0], pearsonr(gold, sb)[0], pearsonr(sa, sb)[0]
    det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
    rbar = (r12 + r13) / 2
    t = (r12 - r13) * np.sqrt(
        (n - 1) * (1 + r23) / (2 * (n - 1) / (n - 3) * det + rbar**2 * (1 - r23) ** 3)
    )
    p = 2 * student_t.sf(abs(t), n - 3)
    v = compare(a, b, Resampling(200))
    assert v.main.metric == "all" and v.main.test == "Williams"
    assert v.main.a == pytest.approx(r12, abs=1e-12)
    assert v.main.p_value == pytest.approx(p, rel=1e-9)
    # ALLnrm and Mean are aggregates without a closed-form test: the paired bootstrap
    assert v.metrics["allnrm"].test == v.metrics["mean"].test == "paired bootstrap"


def test_suite_bootstrap_draws_within_members(sts_suite_results: Path) -> None:
    """The interval and p of Mean (pair-weighted Pearson per dataset) against a resampler
    written here: each replicate draws every dataset's items with replacement from that dataset
    alone (members in name order, numpy's generator, the same seed); p shifts the replicates to
    the null, p = (1 + #{|δ_b − δ| ≥ |δ|}) / (B + 1)."""
    from scipy.stats import pearsonr

    grid = load_grid(sts_suite_results)
    suite = next(b for b in grid.benchmarks if grid.get("A", b).task == "suite-sts")
    a, b = grid.get("A", suite), grid.get("B", suite)
    items = a.items()
    members = sorted(set(items["benchmark"].tolist()))
    rows_of = [np.flatnonzero(items["benchmark"] == m) for m in members]
    gold, sa, sb = items["gold"], items["score"], b.items()["score"]

    def mean_r(score: np.ndarray, parts: list[np.ndarray]) -> float:
        rs = [pearsonr(score[p], gold[p])[0] for p in parts]
        return float(np.average(rs, weights=[len(p) for p in parts]))

    rng = np.random.default_rng(11)
    diffs = []
    for _ in range(400):
        parts = [g[rng.integers(0, len(g), len(g))] for g in rows_of]
        diffs.append(mean_r(sa, parts) - mean_r(sb, parts))
    diffs = np.array(diffs)
    delta = mean_r(sa, rows_of) - mean_r(sb, rows_of)
    p = (1 + np.sum(np.abs(diffs - delta) >= abs(delta) - 1e-12)) / (len(diffs) + 1)
    v = compare(a, b, Resampling(400, 11))
    c = v.metrics["mean"]
    assert c.difference == pytest.approx(delta, abs=1e-12)
    assert (c.interval.low, c.interval.high) == pytest.approx(
        tuple(np.percentile(diffs, [2.5, 97.5])), abs=1e-9
    )
    assert c.p_value == pytest.approx(p, abs=1e-12)
