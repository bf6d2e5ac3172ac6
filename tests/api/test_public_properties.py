"""Properties of the public functions that build a benchmark from values and score
predictions against it (issue 44, "one funnel for every input"): over generated rows,
``simeval.benchmark_from_pairs`` and ``simeval.score`` give scipy's Spearman and Pearson on
the pairs lined up by hand here, and ``simeval.benchmark_from_qrels`` with a generated run
gives pytrec_eval's success@1, success@5 and MRR, or simeval's own error, nothing else (a
raw TypeError, KeyError, ValueError... fails the test: ``pytest.raises`` lets it through).

Drawn by the suite's Hypothesis profile (tests/conftest.py: 40 derandomized examples a
property, 300 fresh ones under CI)."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr, spearmanr

import simeval
from number_kit import number_text, read_strictly
from simeval.errors import DefaultPolicyWarning, SimevalError

# a small pool, so that pairs repeat; empty and blank words, other scripts, combining marks
WORDS = st.sampled_from(["cat", "dog", "", " ", "\t", "ёж", "字", "a b", "Straße", "e\u0301",
                         "car", "gem", "noon", "lad"])  # fmt: skip
SCALES = (1.0, 1e-300, 1e300, 5e-324, 1e-3)


def finite() -> st.SearchStrategy[float]:
    """Finite numbers on a grid (ties happen) at one of :data:`SCALES`, subnormal and near
    the float range included."""
    return st.tuples(st.integers(-50, 50), st.sampled_from(SCALES)).map(lambda t: t[0] * t[1])


REFUSED: tuple[Any, ...] = (math.nan, math.inf, -math.inf, True, None, [1.0], 10**400, b"1",
                            complex(1, 0), "x", {})  # fmt: skip


def gold_value() -> st.SearchStrategy[tuple[Any, float | None]]:
    """A gold score as given (a float, an int, a numpy float, a string) and the number it
    stands for (None: to be refused); a value no score is comes in by :func:`spoiled`."""
    return st.one_of(
        finite().map(lambda x: (x, x)),
        st.integers(-9, 9).map(lambda i: (i, float(i))),
        finite().map(lambda x: (np.float64(x), x)),
        finite().map(lambda x: (repr(x), x)),
        finite().map(lambda x: (x, x)),
        number_text().map(lambda t: (t, read_strictly(t))),
    )


Row = tuple[str, str, tuple[Any, float | None]]


def spoiled(drawn: tuple[list[Row], int | None, Any]) -> list[Row]:
    """The rows with row ``i``'s score replaced by a value no score is (when ``i`` is given)."""
    rows, i, bad = drawn
    if i is None or not rows:
        return rows
    i %= len(rows)
    return [*rows[:i], (rows[i][0], rows[i][1], (bad, None)), *rows[i + 1 :]]


GOLD_ROWS = st.tuples(
    st.lists(st.tuples(WORDS, WORDS, gold_value()), max_size=9),
    st.one_of(st.none(), st.integers(0, 30)).map(lambda i: i if i is None or i < 9 else None),
    st.sampled_from(REFUSED),
).map(spoiled)


def _unit(values: list[float]) -> np.ndarray:
    """``values`` scaled by a power of two (exact) so that the largest is near 1: Pearson's r
    does not change, and scipy's sums cannot overflow near the float range."""
    array = np.asarray(values, dtype=np.float64)
    top = float(np.max(np.abs(array)))
    return array if top == 0 else np.ldexp(array, -math.frexp(top)[1])


def _reference(gold: list[float], system: list[float]) -> tuple[float, float]:
    """scipy's Spearman and Pearson (NaN: undefined, fewer than two rows or no variance)."""
    if len(gold) < 2:
        return math.nan, math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant input and returns NaN
        rho = float(spearmanr(gold, system)[0])
        r = float(pearsonr(_unit(gold), _unit(system))[0])
    return rho, r


def _same(got: object, expected: float) -> bool:
    """simeval's figure against the reference: NaN (undefined) is None or NaN."""
    if math.isnan(expected):
        return got is None or (isinstance(got, float) and math.isnan(got))
    return isinstance(got, float) and math.isclose(got, expected, rel_tol=0, abs_tol=1e-9)


def _gold_of(rows: list[Row]) -> dict[tuple[str, str], float] | None:
    """Each pair's gold score, or None when the rows are to be refused: none at all, a score
    that is no number, a pair given twice with two different scores."""
    found: dict[tuple[str, str], float] = {}
    for a, b, (_, value) in rows:
        if value is None or found.setdefault((a, b), value) != value:
            return None
    return found or None


PREDICTION_SHAPES = ("dict", "list", "dict-missing", "dict-extra", "list-none", "list-refused")


@given(
    rows=GOLD_ROWS,
    system=st.lists(finite(), min_size=100, max_size=100),
    shape=st.sampled_from((*PREDICTION_SHAPES, "dict", "list", "dict-extra")),
)
@settings(deadline=None)  # the first example imports scipy's and simeval's modules
def test_pairs_score_scipys_figures_or_simevals_error(
    rows: list[Row], system: list[float], shape: str
) -> None:
    """Gold rows with any words and any spelling of a score, and predictions keyed by pair or
    lined up with the rows: the figures are scipy's on the rows lined up here by hand; any
    refused value, a missing pair, a pair given two scores is simeval's own error."""
    given_rows = [(a, b, value) for a, b, (value, _) in rows]
    gold = _gold_of(rows)
    if gold is None:
        event("gold refused")
        with pytest.raises(SimevalError):
            simeval.benchmark_from_pairs(given_rows)
        return
    bench = simeval.benchmark_from_pairs(given_rows)
    pairs = list(gold)
    by_pair = dict(zip(pairs, system, strict=False))
    ordered = [(a, b) for a, b, _ in rows]
    predictions: Any = {
        "dict": lambda: dict(by_pair),
        "dict-missing": lambda: {p: v for p, v in by_pair.items() if p != pairs[0]},
        "dict-extra": lambda: {**by_pair, ("not", "gold"): 0.5},
        "list": lambda: [by_pair[p] for p in ordered],
        "list-none": lambda: [None, *(by_pair[p] for p in ordered[1:])],
        "list-refused": lambda: ["1_0", *(by_pair[p] for p in ordered[1:])],
    }[shape]()
    if shape == "list-refused":
        with pytest.raises(SimevalError):
            simeval.score(bench, predictions)
        return
    if shape in ("dict-missing", "list-none"):  # the first pair without a score
        with pytest.raises(SimevalError):
            simeval.score(bench, predictions, missing="error")
        if ordered.count(ordered[0]) > 1:
            return  # the pair's other row has its score: not a missing pair
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            try:  # scored 0 by default, as evaluate does, or nothing left to score
                result = simeval.score(bench, predictions)[0]
            except SimevalError:
                return
        assert any(issubclass(w.category, DefaultPolicyWarning) for w in said)
        zeroed = [0.0 if p == ordered[0] else by_pair[p] for p in ordered]
        expected = _reference([gold[p] for p in ordered], zeroed)
        assert _same(result.metrics["spearman"], expected[0]), (result.metrics, expected)
        return
    result = simeval.score(bench, predictions)[0]
    event(f"scored {len(rows)} rows")
    expected = _reference([gold[p] for p in ordered], [by_pair[p] for p in ordered])
    assert _same(result.metrics["spearman"], expected[0]), (result.metrics, expected)
    assert _same(result.metrics["pearson"], expected[1]), (result.metrics, expected)


# -- linking: qrels and a run against pytrec_eval ----------------------------------------------

QIDS = st.sampled_from(["q1", "q2", "1", "01", "é", "字", "q 3"])
DOCS = st.sampled_from(["d1", "d2", "d3", "D1", "10", "9", "ё", "d 1", "d10", "d2x"])
RUN_SCORE = st.one_of(
    st.integers(-4, 4).map(lambda i: i / 4),  # quarters: ties, broken by docno
    st.integers(-3, 3),
    st.integers(-4, 4).map(lambda i: str(i / 4)),
)
REFUSED_RUN: tuple[Any, ...] = (math.nan, math.inf, True, None, "1_0", "inf", [0.5], "")
INTACT, NO_DOCUMENT = "intact", "no document"  # the run as drawn; its first query emptied


def _pytrec(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]]) -> dict[str, float]:
    """pytrec_eval's means of success@1, success@5 and reciprocal rank over the queries it
    evaluates (those of the run that the qrels judge); empty when it evaluates none."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"success", "recip_rank"})
    per_query = evaluator.evaluate(run)
    if not per_query:
        return {}
    names = {"success_1": "success_1", "success_5": "success_5", "recip_rank": "recip_rank"}
    return {ours: float(np.mean([q[theirs] for q in per_query.values()]))
            for ours, theirs in names.items()}  # fmt: skip


@given(
    qrels=st.dictionaries(
        QIDS, st.dictionaries(DOCS, st.integers(-1, 3), min_size=1, max_size=4), max_size=3
    ),
    run=st.dictionaries(QIDS, st.dictionaries(DOCS, RUN_SCORE, min_size=1, max_size=6), max_size=3),
    spoil=st.one_of(st.just(INTACT), st.just(INTACT), st.sampled_from((*REFUSED_RUN, NO_DOCUMENT))),
)
@settings(deadline=None)
def test_qrels_and_run_score_pytrec_evals_figures_or_simevals_error(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, Any]], spoil: Any
) -> None:
    """Judgements and a run over a small pool of ids (ties in the scores, unicode and blanks
    in the ids): success@1, success@5 and MRR are pytrec_eval's; no judgement, a run with no
    document, a score that is no number, are simeval's own error."""
    if not any(qrels.values()):
        with pytest.raises(SimevalError):
            simeval.benchmark_from_qrels(qrels)
        return
    target = simeval.benchmark_from_qrels(qrels)
    if spoil is NO_DOCUMENT and run:
        run[next(iter(run))] = {}
    elif spoil is not INTACT and run:
        qid = next(iter(run))
        run[qid][next(iter(run[qid]))] = spoil
    if spoil is not INTACT or not run:
        event(f"refused {spoil!r}")
        # a score that is no number, no query, a query with no document (which pytrec_eval
        # would count as 0 and a run file cannot hold)
        with pytest.raises(SimevalError):
            simeval.score(target, run)
        return
    as_floats = {q: {d: float(v) for d, v in docs.items()} for q, docs in run.items()}
    expected = _pytrec({q: d for q, d in qrels.items() if d}, as_floats)
    if not expected:
        # no query of the run is judged: simeval's error, or figures that say "undefined"
        event("no query judged")
        try:
            metrics = simeval.score(target, run)[0].metrics
        except SimevalError:
            return
        assert all(_same(metrics[name], math.nan) for name in ("success_1", "recip_rank")), metrics
        return
    metrics = simeval.score(target, run)[0].metrics
    event("compared with pytrec_eval")
    for name, value in expected.items():
        assert _same(metrics[name], value), (name, metrics, expected)
