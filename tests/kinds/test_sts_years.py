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


WORD_SETS = {  # name: (file, pairs counted here from the file)
    "simverb3500": "simverb3500/SimVerb-3500.txt",
    "rw": "wordsets_en/EN-RW-STANFORD.txt",
    "mturk287": "wordsets_en/EN-MTurk-287.txt",
    "mturk771": "wordsets_en/EN-MTurk-771.txt",
    "yp130": "wordsets_en/EN-YP-130.txt",
    "verb143": "wordsets_en/EN-VERB-143.txt",
}


def test_english_word_sets_read_every_pair_and_score_as_scipy(store, data_dir: Path, tmp_path):
    """Every pair of each new word set is an item (counted here from the file, SimVerb's header
    aside), and Spearman of a predicted file against the gold column equals scipy's."""
    from scipy.stats import spearmanr

    for name, path in WORD_SETS.items():
        lines = [x for x in (data_dir / path).read_text().splitlines() if x.strip()]
        rows = (
            [x.split() for x in lines[1:]] if name == "simverb3500" else [x.split() for x in lines]
        )
        bench = load_target(name, store)
        assert len(bench) == len(rows), name
        gold = [float(r[3] if name == "simverb3500" else r[2]) for r in rows]
        out = tmp_path / f"{name}.csv"
        predict("orthographic:kind=dice", name, out, store=store)
        predicted = [float(x.split(",")[2]) for x in out.read_text().splitlines()[1:]]
        (result,) = evaluate("orthographic:kind=dice", name, store=store)
        assert result.score == pytest.approx(spearmanr(predicted, gold)[0], abs=1e-12), name
    relations = set(load_target("simverb3500", store).gold.columns["wn"])
    assert relations == {"SYNONYMS", "ANTONYMS", "HYPER/HYPONYMS", "COHYPONYMS", "NONE"}
