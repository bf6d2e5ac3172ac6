"""Annotation campaigns: every rule on hand-made tables whose outcomes are worked out here."""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr
from scipy.stats import t as student_t
from typer.testing import CliRunner

from simeval.cli import app
from simeval.datasets.annotation import (
    aggregate,
    check_raters,
    draw,
    make_assignments,
    read_answers,
    shift_raters,
    weights,
)
from simeval.datasets.simulate import interval_width, replay
from simeval.errors import InputError
from simeval.metrics.agreement import krippendorff_alpha

NAN = math.nan


def test_count_and_sd_weights() -> None:
    counts = np.array([0.0, 1.0, 3.0])
    assert weights("count", counts, np.full(3, NAN)).tolist() == [1.0, 0.5, 0.25]
    # sd mode: a pair without an SD yet gets the largest SD seen, so it comes first
    sds = np.array([NAN, 0.5, 2.0])
    assert weights("sd", counts, sds).tolist() == [2.0, 0.5, 2.0]
    assert weights("sd", counts, np.full(3, NAN)).tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(InputError, match="mode must be count or sd"):
        weights("random", counts, sds)


@pytest.mark.slow
def test_draw_follows_the_weights() -> None:
    """One pair at a time, 70,000 draws: shares 4/7, 2/7, 1/7 for weights 1, 1/2, 1/4."""
    rng = np.random.default_rng(0)
    w = np.array([1.0, 0.5, 0.25])
    got = np.bincount([draw(w, 1, rng)[0] for _ in range(70_000)], minlength=3) / 70_000
    assert got == pytest.approx([4 / 7, 2 / 7, 1 / 7], abs=0.01)
    assert sorted(draw(w, 3, rng).tolist()) == [0, 1, 2]  # an assignment holds distinct pairs


def test_count_mode_counts_the_assignments_handed_out() -> None:
    """Two unrated pairs, two one-pair assignments: the first pair handed out counts as an
    annotation, so the second assignment takes the other pair with probability
    1 / (1 + 1/2) = 2/3 (1/2 if handed-out pairs did not count)."""
    other = [
        len(set(np.concatenate(make_assignments(np.full((2, 0), NAN), "count", 2, 1, seed)))) == 2
        for seed in range(6000)
    ]
    assert np.mean(other) == pytest.approx(2 / 3, abs=0.02)


def test_answers_are_checked_at_the_edge(tmp_path: Path) -> None:
    pairs = [("cat", "dog"), ("car", "road")]
    path = tmp_path / "answers.csv"
    path.write_text(
        "rater,word1,word2,rating,time\n"
        "r1,cat,dog,4,12.5\n"
        "r1,cat,cow,3,1\n"  # line 3: not a campaign pair
        "r2,car,road,7,\n"  # line 4: outside 0-6
        "r1,cat,dog,5,3\n"  # line 5: twice
        "r2,cat,dog,x,3\n",  # line 6: not a number
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        read_answers(path, pairs, (0, 6))
    text = str(err.value)
    for line, what in (
        (3, "not in the campaign"),
        (4, "outside the scale"),
        (5, "already on line 2"),
        (6, "rating"),
    ):
        assert f"line {line}: " in text and what in text, (line, text)
    path.write_text("rater,word1,rating\nr1,cat,3\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"missing column.*word2"):
        read_answers(path, pairs)


def test_aggregate_rescales_0_6_to_0_10() -> None:
    m = np.array([[0.0, 6.0, NAN], [3.0, NAN, NAN]])
    agg = aggregate(m, (0, 6), (0, 10))
    assert agg.mean.tolist() == pytest.approx([5.0, 5.0])
    assert agg.sd[0] == pytest.approx(math.sqrt(50))  # sample SD of 0 and 10
    assert math.isnan(agg.sd[1]) and agg.count.tolist() == [2, 1]


def test_shift_moves_raters_off_the_consistency_mean_by_one_not_past_the_scale() -> None:
    # consistency rows 0-1: r0 mean 2, r1 mean 2, r2 mean 5; all raters' mean 3
    m = np.array(
        [
            [2.0, 2.0, 5.0],
            [2.0, 2.0, 5.0],
            [0.0, 6.0, 0.0],
        ]
    )
    shifted, decisions = shift_raters(m, ["r0", "r1", "r2"], np.array([1, 1, 0], bool), (0, 6))
    assert [d.rater for d in decisions] == ["r2"]  # r0 and r1 are 1.0 off: not more than 1
    assert shifted[:, 2].tolist() == [4.0, 4.0, 0.0]  # down by 1, the 0 stays 0
    assert shifted[:, :2].tolist() == m[:, :2].tolist()
    m2 = m.copy()
    m2[:2, 0] = 0.5  # r0: mean 0.5, all raters 2.5: up by 1
    shifted, decisions = shift_raters(m2, ["r0", "r1", "r2"], np.array([1, 1, 0], bool), (0, 6))
    assert {d.rater for d in decisions} == {"r0", "r2"}
    assert shifted[:, 0].tolist() == [1.5, 1.5, 1.0]


RANKS = [1.0, 2.0, 3.0, 4.0, 5.0]


def test_a_failed_checkpoint_and_one_sd_below_the_mean_exclude() -> None:
    """A checkpoint on item 0 allowing 1-2 excludes the raters who gave it 5 and 3. Without
    it: four raters agree (ρ = 1), one reverses them (ρ = −1 with each): mean agreements 0.5
    for the four and −1 for it; their mean 0.2, SD 0.6, cut −0.4, so it goes."""
    m = np.array([RANKS, RANKS, RANKS, RANKS, RANKS[::-1], [3, 1, 2, 4, 5]], dtype=float).T
    names = ["a", "b", "c", "d", "rev", "cp"]
    keep, decisions = check_raters(m, names, {0: (1.0, 2.0)})
    # rev gave item 0 a 5 and cp a 3: both outside 1-2; the four left agree, none goes
    assert [(d.rater, d.why.split(":")[0]) for d in decisions] == [
        ("rev", "checkpoint on pair 1"),
        ("cp", "checkpoint on pair 1"),
    ]
    assert keep == [0, 1, 2, 3]
    keep, decisions = check_raters(m[:, :5], names[:5])
    assert keep == [0, 1, 2, 3]
    assert [d.rater for d in decisions] == ["rev"] and "one SD below" in decisions[0].why
    assert "cut -0.400" in decisions[0].why.replace("−", "-")


def _expected_exclusions(m: np.ndarray, min_gain: float) -> list[int]:
    """The rules re-derived here from scipy's Spearman: one SD below, then greedy gain."""
    k = m.shape[1]
    rho = np.full((k, k), NAN)
    for i, j in combinations(range(k), 2):
        rho[i, j] = rho[j, i] = spearmanr(m[:, i], m[:, j])[0]
    keep = list(range(k))
    mean_agree = [np.mean([rho[j, x] for x in keep if x != j]) for j in keep]
    cut = np.mean(mean_agree) - np.std(mean_agree)
    gone = [j for j, a in zip(keep, mean_agree, strict=True) if a < cut]
    keep = [j for j in keep if j not in gone]
    while len(keep) > 2:

        def avg(sub):
            return np.mean([rho[i, j] for i, j in combinations(sub, 2)])

        now = avg(keep)
        gains = [avg([x for x in keep if x != j]) - now for j in keep]
        best = int(np.argmax(gains))
        if gains[best] < min_gain:
            break
        gone.append(keep.pop(best))
    return gone


def test_exclusions_follow_the_rules_in_order_on_a_noisy_table() -> None:
    rng = np.random.default_rng(3)
    truth = rng.uniform(0, 6, 40)
    noise = [0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.5, 2.5, 6.0]
    m = np.column_stack([np.clip(truth + rng.normal(0, s, 40), 0, 6) for s in noise])
    names = [f"r{j}" for j in range(m.shape[1])]
    for min_gain in (0.0, 0.01):
        keep, decisions = check_raters(m, names, None, min_gain)
        expected = _expected_exclusions(m, min_gain)
        assert [names.index(d.rater) for d in decisions] == expected
        assert keep == [j for j in range(m.shape[1]) if j not in expected]
    # the literal rule (no minimum gain) removes more raters than the default
    literal = _expected_exclusions(m, 0.0)
    assert any("raises the average" in d.why for d in check_raters(m, names, None, 0.0)[1])
    assert len(literal) > len(_expected_exclusions(m, 0.01))


def _alpha_by_hand(table: list[list[float]], ordinal: bool) -> float:
    """Krippendorff's α from the coincidence matrix (Krippendorff 2011): units with ≥ 2
    values; δ² interval (c − k)²; ordinal (Σ_{g=c..k} n_g − (n_c + n_k)/2)²."""
    units = [[v for v in u if not math.isnan(v)] for u in table]
    units = [u for u in units if len(u) >= 2]
    values = sorted({v for u in units for v in u})
    o = {(c, k): 0.0 for c in values for k in values}
    for u in units:
        m = len(u)
        for i, j in ((i, j) for i in range(m) for j in range(m) if i != j):
            o[(u[i], u[j])] += 1 / (m - 1)
    n_c = {c: sum(o[(c, k)] for k in values) for c in values}
    n = sum(n_c.values())

    def delta(c: float, k: float) -> float:
        if not ordinal:
            return (c - k) ** 2
        lo, hi = min(c, k), max(c, k)
        between = sum(n_c[g] for g in values if lo <= g <= hi)
        return (between - (n_c[c] + n_c[k]) / 2) ** 2

    observed = sum(o[(c, k)] * delta(c, k) for c in values for k in values)
    expected = sum(n_c[c] * n_c[k] * delta(c, k) for c in values for k in values) / (n - 1)
    return 1 - observed / expected


def test_krippendorff_alpha_against_a_hand_computation() -> None:
    # 5 pairs × 3 raters on 0-3, one rating missing, one pair rated once (not pairable)
    table = [[0, 0, 1], [1, 2, 1], [3, 3, NAN], [2, 3, 3], [NAN, NAN, 2]]
    m = np.array(table, dtype=float)
    assert krippendorff_alpha(m, "interval") == pytest.approx(_alpha_by_hand(table, False))
    assert krippendorff_alpha(m, "ordinal") == pytest.approx(_alpha_by_hand(table, True))
    assert 0.5 < _alpha_by_hand(table, False) < 1  # the table agrees fairly well


def test_interval_width_and_a_replay_worked_out_by_hand() -> None:
    width = interval_width(np.array([[1.0, 3.0], [2.0, NAN]]))
    assert width[0] == pytest.approx(2 * student_t.ppf(0.975, 1) * math.sqrt(2) / math.sqrt(2))
    assert math.isinf(width[1])
    # three pairs, every rater agreeing: a pair is done at its second rating (SD 0); with
    # assignments of all three pairs that is two assignments, 6 answers, whatever the mode
    pool = np.array([[5.0, 5, 5], [2, 2, 2], [7, 7, 7]])
    for mode in ("count", "sd"):
        trace = replay(pool, mode, target=1.0, size=3, seed=0)
        assert trace.needed == 6 and trace.done == [0.0, 1.0] and trace.capped == 0
    # a pair with one rating can never reach the target: done when used up, counted as capped
    pool = np.array([[5.0, 5, 5], [2, NAN, NAN]])
    trace = replay(pool, "count", target=1.0, size=2, seed=0)
    assert trace.capped == 1 and trace.needed == 3


def test_campaign_cli_aggregates_to_a_benchmark_folder_that_evaluates(tmp_path: Path) -> None:
    pairs = tmp_path / "pairs.tsv"
    answers = tmp_path / "answers.csv"
    rows = ["rater,word1,word2,rating,time"]
    given = {  # rater: ratings of the four pairs on 0-6, all in the same order (ρ = 1)
        "a": [5, 1, 4, 2],
        "b": [6, 0, 5, 3],
        "c": [5, 2, 4, 3],
        "d": [4, 1, 3, 2],
    }
    items = [("cat", "cats"), ("car", "cart"), ("sun", "sunny"), ("red", "bed")]
    pairs.write_text("word1\tword2\n" + "".join(f"{a}\t{b}\n" for a, b in items), encoding="utf-8")
    for rater, ratings in given.items():
        rows += [f"{rater},{w1},{w2},{r},10" for (w1, w2), r in zip(items, ratings, strict=True)]
    answers.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "built"
    runner = CliRunner()
    args = ["build", "annotation", "aggregate", str(out), "--pairs", str(pairs)]
    args += ["--answers", str(answers), "--scale", "0:6", "--rescale", "0:10"]
    done = runner.invoke(app, args, env={"COLUMNS": "120"})
    assert done.exit_code == 0, done.output
    lines = (out / "benchmark.csv").read_text().splitlines()
    assert lines[0] == "word1,word2,sim,sd,n"
    ratings = np.array(list(given.values()), dtype=float).T  # pairs × raters
    for line, (w1, w2), row in zip(lines[1:], items, ratings, strict=True):
        cells = line.split(",")
        assert cells[:2] == [w1, w2]
        assert float(cells[2]) == pytest.approx(row.mean() * 10 / 6)
        assert float(cells[3]) == pytest.approx(row.std(ddof=1) * 10 / 6)
        assert cells[4] == "4"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["inputs"][str(answers)] == hashlib.sha256(answers.read_bytes()).hexdigest()
    assert manifest["benchmark"] == {"file": "benchmark.csv", "kind": "graded"}
    assert manifest["counts"]["raters_kept"] == 4
    assert manifest["counts"]["agreement"]["pairwise"] == pytest.approx(1.0)
    # the folder is a benchmark: evaluate a measure on it by its path
    shown = runner.invoke(app, ["evaluate", "orthographic:kind=levenshtein", "-b", str(out)])
    assert shown.exit_code == 0, shown.output
    from simeval.api import evaluate

    (result,) = evaluate("orthographic:kind=levenshtein", str(out))
    levenshtein = [1 - 1 / 4, 1 - 1 / 4, 1 - 2 / 5, 1 - 1 / 3]  # 1 - edits / longer length
    assert result.score == pytest.approx(spearmanr(levenshtein, ratings.mean(axis=1))[0])
    assert result.benchmark == str(out)
    again = runner.invoke(app, args)
    assert again.exit_code == 2 and "not empty" in again.output  # never overwritten


def test_assign_cli_in_sd_mode_avoids_pairs_everyone_rated_alike(tmp_path: Path) -> None:
    """cat/dog rated 1 and 5 (SD 2.83), car/road 3 and 3 (SD 0); sun/moon and red/blue are
    unrated and get the largest SD seen: assignments of 3 take car/road almost never."""
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("cat\tdog\ncar\troad\nsun\tmoon\nred\tblue\n", encoding="utf-8")
    answers = tmp_path / "answers.csv"
    answers.write_text(
        "rater,word1,word2,rating\na,cat,dog,1\nb,cat,dog,5\na,car,road,3\nb,car,road,3\n",
        encoding="utf-8",
    )
    out = tmp_path / "next"
    args = ["build", "annotation", "assign", str(out), "--pairs", str(pairs), "--answers"]
    args += [str(answers), "--mode", "sd", "--assignments", "200", "--size", "3"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    rows = [x.split(",") for x in (out / "assignments.csv").read_text().splitlines()[1:]]
    assert len(rows) == 600
    by_assignment = defaultdict(list)
    for k, w1, w2 in rows:
        by_assignment[k].append((w1, w2))
    assert all(len(set(v)) == 3 for v in by_assignment.values())
    assert sum(("car", "road") in v for v in by_assignment.values()) <= 2
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"] == {"pairs": 4, "answers_so_far": 4, "handed_out": 600}
