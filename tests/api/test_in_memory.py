"""Predictions and benchmarks in memory (issue 31, items 1, 2, 5 and 9): no file is written,
and each number is checked against scipy or pytrec_eval computed here."""

from __future__ import annotations

import doctest
import hashlib
import importlib

import numpy as np
import pytest
from scipy.stats import ConstantInputWarning, pearsonr, spearmanr

import simeval
from simeval.errors import InputError


def _score_of(pair: tuple[str, str]) -> float:
    """A deterministic made-up measure: a number from the pair's text (the same pair, the
    same number, wherever it occurs)."""
    digest = hashlib.sha256("\t".join(pair).encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32


def test_a_kind_that_reads_no_predictions_in_memory_says_so() -> None:
    """A kind without ``as_submission`` refuses predictions in memory, naming the benchmark and
    its kind; analogy reads answers (words), so numbers of the wrong count are refused with
    what it expects."""
    from types import SimpleNamespace

    from simeval.kinds.base import TaskKind

    kind = TaskKind()
    kind.name = "toy"
    with pytest.raises(InputError, match=r"^mine: in-memory predictions for 'toy' are not read$"):
        kind.as_submission(SimpleNamespace(name="mine"), [1.0, 2.0])
    with pytest.raises(InputError, match=r"one answer \(a word, or None\) for each of the "
                       r"19544 questions of google-analogy, got 2 answers"):  # fmt: skip
        simeval.score("google-analogy", [1.0, 2.0])


def test_wordsim353_duplicate_row_cannot_shift_the_answers() -> None:
    """WordSim-353 holds (money, cash) twice: request() asks 352 pairs, the gold has 353
    rows. Answers lined up with the 353 rows were matched by position and gave a wrong
    Spearman at exit 0; now they are refused, and predictions per gold row score as scipy."""
    target = simeval.load_target("wordsim353")
    rows = list(target.gold.pairs)
    assert len(rows) == 353 and len(target.request().pairs) == 352
    preds = [_score_of(p) for p in rows]
    with pytest.raises(InputError, match="353 answers for the 352 pairs"):
        target.from_answers(target.request(), np.array(preds))
    result = simeval.score(target, preds)[0]
    assert result.metrics["spearman"] == pytest.approx(spearmanr(target.gold.scores, preds)[0],
                                                       abs=1e-12)  # fmt: skip
    twice = [i for i, p in enumerate(rows) if rows.count(p) == 2]
    changed = list(preds)
    changed[twice[1]] += 0.5
    with pytest.raises(InputError, match="given twice with two scores"):
        simeval.score(target, changed)


@pytest.mark.parametrize("shape", ["list", "array", "dict", "frame"])
def test_score_by_name_with_predictions_in_memory(shape: str) -> None:
    pd = pytest.importorskip("pandas")
    target = simeval.load_target("mc30")
    rows = list(target.gold.pairs)
    preds = [_score_of(p) for p in rows]
    given = {
        "list": preds,
        "array": np.array(preds),
        "dict": {p: s for p, s in zip(rows, preds, strict=True)},
        "frame": pd.DataFrame(
            {"word1": [a for a, _ in rows], "word2": [b for _, b in rows], "sim": preds}
        ),
    }[shape]
    result = simeval.score("mc30", given)[0]
    assert result.metrics["spearman"] == pytest.approx(spearmanr(target.gold.scores, preds)[0],
                                                       abs=1e-12)  # fmt: skip
    assert result.metrics["pearson"] == pytest.approx(pearsonr(target.gold.scores, preds)[0],
                                                      abs=1e-12)  # fmt: skip
    assert result.system == {"kind": "predictions"}


def test_misaligned_predictions_are_refused() -> None:
    with pytest.raises(InputError, match="29 predictions for 30 gold rows"):
        simeval.score("mc30", [0.5] * 29)
    with pytest.raises(InputError, match="prediction 0: expected a number"):
        simeval.score("mc30", [{"x": 1}] * 30)
    as_text = [str(_score_of(p)) for p in simeval.load_target("mc30").gold.pairs]
    assert simeval.score("mc30", as_text)[0].system == {"kind": "predictions"}


def test_sts_predictions_in_memory_score_the_gold_lines() -> None:
    target = simeval.load_target("sts12-msrvid")
    preds = [_score_of(p) for p in target.pairs]
    scored = ~np.isnan(target.gold)
    expected = pearsonr(target.gold[scored], np.array(preds)[scored])[0]
    assert simeval.score(target, preds)[0].metrics["pearson"] == pytest.approx(expected, abs=1e-9)
    # the length check's own words (the reader's later refusal also names "sentence pairs")
    for given in (preds[:-1], [*preds, 0.5]):
        with pytest.raises(InputError) as refused:
            simeval.score(target, given)
        said = f"sts12-msrvid: {len(given)} predictions for {len(preds)} sentence pairs; "
        assert refused.value.message.startswith(said), refused.value.message


def test_an_in_memory_benchmark_of_pairs_and_of_qrels() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    gold = [("car", "automobile", 3.92), ("gem", "jewel", 3.84), ("noon", "string", 0.08),
            ("coast", "shore", 3.70)]  # fmt: skip
    target = simeval.benchmark_from_pairs(gold, name="mine")
    preds = [0.9, 0.7, 0.1, 0.8]
    result = simeval.score(target, preds)[0]
    assert result.benchmark == "mine"
    assert result.metrics["spearman"] == pytest.approx(spearmanr([g for *_, g in gold], preds)[0])
    with pytest.raises(InputError, match="score: expected a decimal number, got 'high'"):
        simeval.benchmark_from_pairs([("a", "b", "high")])
    with pytest.raises(InputError, match="must be 1 or 0"):
        simeval.benchmark_from_pairs(gold, kind="related")

    qrels = {"q1": {"d1": 1}, "q2": {"d7": 2, "d8": 1}, "q3": {"d9": 1}}
    run = {"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d3": 0.8, "d7": 0.4, "d8": 0.3},
           "q3": {"d4": 0.7, "d5": 0.6}}  # fmt: skip
    got = simeval.score(simeval.benchmark_from_qrels(qrels), run)[0].metrics
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "success"})
    per_query = evaluator.evaluate(run)
    assert got["recip_rank"] == pytest.approx(np.mean([q["recip_rank"] for q in
                                                       per_query.values()]))  # fmt: skip
    assert got["success_1"] == pytest.approx(np.mean([q["success_1"] for q in
                                                      per_query.values()]))  # fmt: skip


def test_ranx_qrels_and_run_objects_are_taken_as_they_are() -> None:
    # ranx's Qrels and Run (numba dicts inside) where ranx-style dicts are accepted: the
    # figures are pytrec_eval's on what the objects hold, ties and graded relevance included.
    ranx = pytest.importorskip("ranx")
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(3)
    qrels_d = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(30, 4, False)}
               for q in range(40)}  # fmt: skip
    run_d = {f"q{q}": {f"d{d}": float(rng.integers(0, 3)) for d in rng.choice(30, 12, False)}
             for q in range(40)}  # fmt: skip
    qrels, run = ranx.Qrels(qrels_d), ranx.Run(run_d, name="mine")
    measures = ("recip_rank", "success_1", "map", "Rprec", "P_5", "recall_10", "ndcg_cut_10")
    per_query = pytrec_eval.RelevanceEvaluator(
        qrels.to_dict(), {"recip_rank", "success", "map", "Rprec", "P", "recall", "ndcg_cut"}
    ).evaluate(run.to_dict())
    for build in (simeval.benchmark_from_qrels, simeval.Benchmark.from_qrels):
        got = simeval.score(build(qrels), run)[0].metrics
        assert got["num_q"] == len(per_query) == 40
        for m in measures:
            expected = np.mean([q[m] for q in per_query.values()])
            assert got[m] == pytest.approx(expected, abs=1e-12), m
        assert got == simeval.score(build(qrels_d), run_d)[0].metrics  # the same as dicts


def test_the_package_lists_its_api() -> None:
    names = dir(simeval)
    for name in ("evaluate", "score", "benchmark_from_pairs", "results_frame", "compare_systems"):
        assert name in names and name in simeval.__all__
        assert callable(getattr(simeval, name))
        assert name in simeval.__doc__


@pytest.mark.parametrize(
    "module",
    [
        "simeval.api.scoring",
        "simeval.api.targets",
        "simeval.api.running",
        "simeval.api.results",
        "simeval.api.reporting",
        "simeval.api.catalog",
        "simeval.results.store",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    found = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert found.attempted > 0 and found.failed == 0


# Training runs for minutes on a real corpus: its examples are the README's commands and
# tests/train, not a doctest.
NO_DOCTEST = {"train", "TrainSettings"}


@pytest.mark.parametrize("name", sorted(set(simeval.__all__) - NO_DOCTEST))
def test_every_public_name_has_an_example(name: str) -> None:
    assert ">>>" in (getattr(simeval, name).__doc__ or ""), name


def test_a_pair_twice_as_nan_is_unscored_alike_in_a_list_and_a_frame() -> None:
    """WordSim-353's (money, cash) twice with NaN both times: one unscored pair, whether the
    predictions come as a list per gold row or as a DataFrame (the frame refused it before);
    Spearman over the other pairs equals scipy's."""
    pd = pytest.importorskip("pandas")
    target = simeval.load_target("wordsim353")
    rows = list(target.gold.pairs)
    preds = [_score_of(p) for p in rows]
    twice = {p for p in rows if rows.count(p) == 2}
    preds = [float("nan") if p in twice else s for p, s in zip(rows, preds, strict=True)]
    frame = pd.DataFrame(
        {"word1": [a for a, _ in rows], "word2": [b for _, b in rows], "score": preds}
    )
    kept = [(g, s) for p, g, s in zip(rows, target.gold.scores, preds, strict=True)
            if p not in twice]  # fmt: skip
    expected = spearmanr([g for g, _ in kept], [s for _, s in kept])[0]
    for given in (preds, frame):
        result = simeval.score(target, given, missing="skip")[0]
        assert result.metrics["spearman"] == pytest.approx(expected, abs=1e-12)


def test_constant_predictions_have_no_correlation() -> None:
    """[0.1] * 30 on MC-30 gave Pearson 0.0 (the rounding of x − x̄); scipy gives NaN for a
    constant input, and so does the record (null, shown as †)."""
    gold = simeval.load_target("mc30").gold.scores
    with pytest.warns(ConstantInputWarning):
        assert np.isnan(pearsonr([0.1] * 30, gold)[0])
    metrics = simeval.score("mc30", [0.1] * 30)[0].metrics
    assert np.isnan(metrics["pearson"]) and np.isnan(metrics["spearman"])


def test_a_pair_given_twice_with_two_gold_scores_is_refused() -> None:
    """A gold file holding (car, automobile) with 3.92 and 0.01 is refused; the same rows in
    memory were kept, two items of one pair pulling Spearman two ways. An identical repeat
    stays two items, as in a gold file, with a warning counting it."""
    rows = [("car", "automobile", 3.92), ("gem", "jewel", 3.84), ("car", "automobile", 0.01),
            ("noon", "string", 0.08)]  # fmt: skip
    for build in (simeval.benchmark_from_pairs, simeval.Benchmark.from_pairs):
        with pytest.raises(InputError, match="given twice with different scores") as info:
            build(rows, name="mine")
        assert info.value.line == 3 and "3.92" in str(info.value) and "0.01" in str(info.value)
    same = simeval.benchmark_from_pairs([*rows[:2], ("car", "automobile", 3.92), rows[3]])
    assert len(same.gold.pairs) == 4
    assert any("repeat" in w.message for w in same.gold.warnings)


def test_an_int_and_a_str_query_id_are_one_query() -> None:
    """``{1: {...}, "1": {...}}``: trec_eval reads both as query 1, and a run file or qrels
    file listing one document twice for a query is refused; in memory the run counted
    num_rel_ret 2 against num_rel 1 and the qrels kept two conflicting judgements."""
    target = simeval.benchmark_from_qrels({"1": {"d1": 1}, "2": {"d2": 1}})
    with pytest.raises(InputError, match="document 'd1' retrieved twice for query '1'"):
        simeval.score(target, {1: {"d1": 0.9}, "1": {"d1": 0.8, "d3": 0.1}, "2": {"d2": 1.0}})
    with pytest.raises(InputError, match="document 'd7' retrieved twice for query '2'"):
        simeval.score(target, {"2": {"d7": 0.5, 7: 0.1, "d2": 0.4}, "1": {"d1": 1.0},
                               2: {"d7": 0.3}})  # fmt: skip
    for build in (simeval.benchmark_from_qrels, simeval.Benchmark.from_qrels):
        with pytest.raises(InputError, match="document 'd1' judged twice for query '1'"):
            build({1: {"d1": 1}, "1": {"d1": 0}})
    with pytest.raises(InputError, match="document '5' judged twice for query 'q'"):
        simeval.benchmark_from_qrels({"q": {5: 1, "5": 1}})
