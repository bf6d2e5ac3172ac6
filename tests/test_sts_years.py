"""STS 2013-2016 as catalog benchmarks: the task papers' baseline rows, the scored-pair counts of
the data README, and per-set Pearson against scipy on the predicted files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr

from simeval.api import evaluate, load_target, predict

# *SEM 2013 shared task (Agirre et al. 2013), Table: the token-overlap baseline
BASELINE_2013 = {"headlines": 0.5399, "onwn": 0.2828, "fnwn": 0.2146, "smt": 0.2861}
SCORED_2016 = {
    "answer-answer": 254,
    "headlines": 249,
    "plagiarism": 230,
    "postediting": 244,
    "question-question": 209,
}


def test_overlap_reproduces_the_2013_baseline_row(store) -> None:
    found = {r.benchmark: r for r in evaluate("overlap", "sts13", store=store)}
    for name, value in BASELINE_2013.items():
        assert f"{found[f'sts13-{name}'].score:.4f}" == f"{value:.4f}", name
    assert found["sts13"].main_metric == "mean"
    assert f"{found['sts13'].score:.4f}" == "0.3639"  # the paper's mean


def test_scored_pair_counts_follow_the_empty_gold_lines(store) -> None:
    suite = load_target("sts16", store)
    counts = {b.dataset: int(b.scored.sum()) for b in suite.members}
    assert counts == SCORED_2016
    lines = {b.dataset: len(b.gold) for b in suite.members}
    assert lines == {
        "answer-answer": 1572,
        "headlines": 1498,
        "plagiarism": 1271,
        "postediting": 3287,
        "question-question": 1555,
    }
    s15 = load_target("sts15", store)
    assert sum(int(b.scored.sum()) for b in s15.members) == 3000


def test_per_set_pearson_and_the_weighted_mean_against_scipy(store, tmp_path: Path) -> None:
    """The year's official figure is the mean of the per-set Pearson weighted by scored pairs;
    predicted outputs cover every input line and only gold-scored lines count."""
    written = predict("jaccard", "sts15", tmp_path, store=store)
    suite = load_target("sts15", store)
    found = {r.benchmark: r for r in evaluate("jaccard", "sts15", store=store)}
    rs, ns = [], []
    for b in suite.members:
        out = np.loadtxt(tmp_path / f"STS.output.{b.dataset}.txt")
        assert len(out) == len(b.gold)  # every input line
        keep = ~np.isnan(b.gold)
        r = pearsonr(out[keep], b.gold[keep])[0]
        assert found[b.name].score == pytest.approx(r, abs=1e-12)
        rs.append(r)
        ns.append(int(keep.sum()))
    assert found["sts15"].metrics["mean"] == pytest.approx(np.average(rs, weights=ns), abs=1e-12)
    assert len(written) == 5
