"""Issue 44, "one funnel for every input": predictions given from Python align by key when
they are keyed, by position only when they are a flat sequence of the gold's exact length,
and anything else is refused; a wrong argument type is simeval's own error naming it.

Expected figures come from scipy on the pairs lined up here, by the test."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

import simeval
from simeval.errors import InputError


def _mc30() -> tuple[object, list[tuple[str, str]], np.ndarray, np.ndarray]:
    """mc30, its gold rows, and made-up predictions (fixed seed) lined up with the rows."""
    target = simeval.load_target("mc30")
    rows = list(target.gold.pairs)
    preds = np.random.default_rng(0).random(len(rows))
    return target, rows, np.asarray(target.gold.scores, dtype=float), preds


def _shuffled(n: int) -> np.ndarray:
    order = np.random.default_rng(1).permutation(n)
    assert (order != np.arange(n)).any()
    return order


@pytest.mark.parametrize("index", ["multiindex", "tuples"])
def test_a_series_indexed_by_pair_aligns_by_key_not_by_position(index: str) -> None:
    """A Series in another order than the gold was read by position: Spearman .2786 on mc30
    where the pairs lined up give scipy's −.1658."""
    pd = pytest.importorskip("pandas")
    target, rows, gold, preds = _mc30()
    order = _shuffled(len(rows))
    keys = [rows[i] for i in order]
    labels = pd.MultiIndex.from_tuples(keys) if index == "multiindex" else pd.Index(keys)
    series = pd.Series(preds[order], index=labels)
    result = simeval.score(target, series)[0]
    assert result.metrics["spearman"] == pytest.approx(spearmanr(gold, preds)[0], abs=1e-12)
    assert result.metrics["pearson"] == pytest.approx(pearsonr(gold, preds)[0], abs=1e-12)


def test_a_series_with_its_default_index_is_a_flat_sequence() -> None:
    pd = pytest.importorskip("pandas")
    target, _, gold, preds = _mc30()
    result = simeval.score(target, pd.Series(preds))[0]
    assert result.metrics["spearman"] == pytest.approx(spearmanr(gold, preds)[0], abs=1e-12)
    with pytest.raises(InputError, match="index"):
        simeval.score(target, pd.Series(preds, index=_shuffled(len(preds))))


def test_a_dict_of_lists_is_refused() -> None:
    """``{pair: [s, s]}`` was flattened into twice as many numbers and paired wrongly."""
    target, rows, _, preds = _mc30()
    with pytest.raises(InputError, match=r"expected a number, got \[") as caught:
        simeval.score(target, {p: [s, s] for p, s in zip(rows, preds, strict=True)})
    assert repr(rows[0]) in str(caught.value)


@pytest.mark.parametrize(
    "given",
    [
        np.zeros((15, 2)),
        np.zeros((2, 3, 5)),
        np.zeros((30, 1)),
        [[0.1, 0.2]] * 15,
        [[0.1], [0.2, 0.3]] * 10,
        {},
        [],
        {("a", "b", "c"): 0.5},
        {"ab": 0.5},
    ],
    ids=[
        "15x2",
        "2x3x5",
        "30x1",
        "list-of-lists",
        "ragged",
        "empty-dict",
        "empty-list",
        "triple-key",
        "string-key",
    ],
)
def test_wrong_shapes_are_refused_naming_what_was_expected(given: object) -> None:
    with pytest.raises(InputError, match=r"expected|give"):
        simeval.score("mc30", given)


def test_a_frame_takes_the_named_score_column_not_the_second_word() -> None:
    """Columns (id, word1, word2, pred): the score is ``pred``; several numeric columns and
    none named as a score are refused."""
    pd = pytest.importorskip("pandas")
    target, rows, gold, preds = _mc30()
    order = _shuffled(len(rows))
    frame = pd.DataFrame({
        "id": np.arange(len(rows)),
        "word1": [rows[i][0] for i in order],
        "word2": [rows[i][1] for i in order],
        "pred": preds[order],
    })  # fmt: skip
    result = simeval.score(target, frame)[0]
    assert result.metrics["spearman"] == pytest.approx(spearmanr(gold, preds)[0], abs=1e-12)
    ambiguous = frame.rename(columns={"pred": "a"}).assign(b=preds[order])
    with pytest.raises(InputError, match="score column"):
        simeval.score(target, ambiguous)
    unnamed = frame.drop(columns=["word1"])
    with pytest.raises(InputError, match="word1"):
        simeval.score(target, unnamed)


@pytest.mark.parametrize("bad", ["1_0", "１", "١", "inf", "-inf", "0x1p3", "1,5", " "])
def test_number_strings_in_predictions_follow_the_file_readers_rule(bad: str) -> None:
    target, rows, _, preds = _mc30()
    as_text = [repr(float(s)) for s in preds]
    as_text[3] = bad
    with pytest.raises(InputError, match="number"):
        simeval.score(target, as_text)
    with pytest.raises(InputError, match="number"):
        simeval.score(target, {p: s for p, s in zip(rows, as_text, strict=True)})


@pytest.mark.parametrize("bad", [float("inf"), -float("inf"), "nan", True, 1 + 2j, b"0.5"])
def test_infinite_or_non_number_predictions_are_refused(bad: object) -> None:
    target, _, _, preds = _mc30()
    given: list[object] = list(preds)
    given[5] = bad
    with pytest.raises(InputError, match="prediction 5"):
        simeval.score(target, given)


def test_none_and_nan_stay_unscored_pairs() -> None:
    """The existing rule: None or NaN in pair predictions leaves the pair unscored."""
    target, _, gold, preds = _mc30()
    given: list[object] = list(preds)
    given[0], given[1] = None, float("nan")
    result = simeval.score(target, given, missing="skip")[0]
    assert result.metrics["spearman"] == pytest.approx(spearmanr(gold[2:], preds[2:])[0])


def test_sts_and_run_predictions_use_the_same_number_rule() -> None:
    sts = simeval.api.benchmark_from_sts([("a b", "a c"), ("d", "e"), ("f", "g")], [4.0, 1.0, 2.5])
    with pytest.raises(InputError, match="number"):
        simeval.score(sts, ["0.5", "1_0", "0.2"])
    with pytest.raises(InputError, match="expected"):
        simeval.score(sts, np.zeros((3, 2)))
    qrels = simeval.benchmark_from_qrels({"q1": {"d1": 1}})
    with pytest.raises(InputError, match="number"):
        simeval.score(qrels, {"q1": {"d1": "1_0"}})
    with pytest.raises(InputError, match="number"):
        simeval.score(qrels, {"q1": {"d1": float("inf")}})
    with pytest.raises(InputError, match="expected"):
        simeval.score(qrels, {})


def test_a_query_of_a_run_with_no_document_is_refused() -> None:
    """``{"q1": {}}`` lists a query that retrieved nothing: pytrec_eval averages it in as 0
    (MRR 0.5 below), a TREC run file cannot hold it and simeval left it out (MRR 1.0, silently
    another figure than pytrec_eval's). Refused, naming the query and the way to count it."""
    qrels = simeval.benchmark_from_qrels({"q1": {"d1": 1}, "q2": {"d2": 1}})
    with pytest.raises(InputError, match=r"'q1'.*no document.*complete"):
        simeval.score(qrels, {"q1": {}, "q2": {"d2": 0.5}})


def test_an_id_with_a_nul_character_is_refused() -> None:
    """Ids travel as NumPy bytes, which drop trailing NULs: document ``"d1\\x00"`` was read as
    ``"d1"``, a relevant document (MRR 1.0) though the ids differ. A TREC file cannot hold a
    NUL (its readers refuse one); in memory it is refused too, naming the id."""
    qrels = simeval.benchmark_from_qrels({"q1": {"d1": 1}})
    with pytest.raises(InputError, match="NUL"):
        simeval.score(qrels, {"q1": {"d1\x00": 1.0}})
    with pytest.raises(InputError, match="NUL"):
        simeval.benchmark_from_qrels({"q1\x00": {"d1": 1}})


@pytest.mark.parametrize(
    ("call", "named"),
    [
        (lambda: simeval.score(None, [0.5]), "target"),
        (lambda: simeval.score(42, [0.5]), "target"),
        (lambda: simeval.Benchmark.from_pairs(5), "rows"),
        (lambda: simeval.benchmark_from_pairs(None), "rows"),
        (lambda: simeval.Benchmark.from_qrels([("q1", "d1", 1)]), "qrels"),
        (lambda: simeval.Benchmark.from_sts(5, [1.0]), "pairs"),
        (lambda: simeval.Benchmark.from_sts([("a", "b")], 5), "gold"),
        (lambda: simeval.compare("path", "other"), "compare"),
        (lambda: simeval.leaderboard(None), "leaderboard"),
    ],
    ids=[
        "score-None",
        "score-42",
        "from_pairs-5",
        "from_pairs-None",
        "from_qrels-list",
        "from_sts-pairs",
        "from_sts-gold",
        "compare-str",
        "leaderboard-None",
    ],
)
def test_wrong_argument_types_are_simeval_errors_naming_the_argument(call, named: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match=named):
        call()


@pytest.mark.parametrize("bad", ["1_0", "１", "inf", "nan"])
def test_in_memory_gold_follows_the_number_rule(bad: str) -> None:
    with pytest.raises(InputError, match="number"):
        simeval.benchmark_from_pairs([("a", "b", "0.5"), ("c", "d", bad)])
    with pytest.raises(InputError, match="number"):
        simeval.api.benchmark_from_sts([("a", "b"), ("c", "d")], [0.5, bad])
