"""``results_frame(ci=True)``: each metric's bootstrap interval beside its value (issue 47,
item 2), checked against a percentile bootstrap written here with numpy and scipy's Spearman
(other draws: the ends agree within Monte Carlo error, not to the digit)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

import simeval


def _letters(a: str, b: str) -> float:
    return len(set(a) & set(b)) / len(set(a) | set(b))


def _own_interval(gold: list[float], scores: list[float], replicates: int) -> tuple[float, float]:
    rng = np.random.default_rng(7)
    g, s = np.asarray(gold), np.asarray(scores)
    drawn = [spearmanr(g[i], s[i])[0] for i in rng.integers(0, len(g), (replicates, len(g)))]
    low, high = np.nanpercentile(drawn, [2.5, 97.5])
    return float(low), float(high)


def test_the_main_scores_interval_matches_a_bootstrap_of_scipys_spearman() -> None:
    rg65 = simeval.benchmark("rg65")
    scores = [_letters(a, b) for a, b in rg65.pairs]
    results = rg65.score(scores, name="letters")
    frame = simeval.results_frame(results, ci=True, replicates=2000)
    (row,) = frame.to_dict("records")
    low, high = _own_interval(rg65.gold, scores, 2000)
    assert row["score"] == pytest.approx(spearmanr(rg65.gold, scores)[0], abs=1e-12)
    assert row["lower"] == pytest.approx(low, abs=0.05)
    assert row["upper"] == pytest.approx(high, abs=0.05)
    assert row["metric.spearman.lower"] == row["lower"]
    assert row["metric.spearman.upper"] == row["upper"]
    assert row["metric.pearson.lower"] < row["metric.pearson"] < row["metric.pearson.upper"]


def test_a_folder_gives_the_same_intervals_and_a_dict_none(tmp_path: Path) -> None:
    results = simeval.evaluate("orthographic:kind=prefix", "mc30", results_dir=tmp_path)
    memory = simeval.results_frame(results, ci=True, replicates=200)
    folder = simeval.results_frame(tmp_path, ci=True, replicates=200)
    assert folder[["lower", "upper"]].values.tolist() == memory[["lower", "upper"]].values.tolist()
    as_dicts = simeval.results_frame([r.to_dict() for r in results], ci=True)
    assert as_dicts[["lower", "upper"]].isna().all().all()
    assert "lower" not in simeval.results_frame(results).columns  # only when asked
