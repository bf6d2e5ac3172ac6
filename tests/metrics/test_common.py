"""One property suite over every declared metric, read from the catalog (the model:
scikit-learn's ``metrics/tests/test_common.py``): a metric is tested the moment it is declared.

Each (metric, kind) of :data:`simeval.metrics.catalog.METRICS` gets rows of its kind drawn by
hypothesis (:data:`CASES`: scores on a coarse grid, so nothing is a near-tie) and must:

- stay within its declared bounds (or be NaN), bounds its family allows;
- equal its independent implementation (:attr:`Metric.reference`, evaluated here with numpy,
  scipy, scikit-learn and pytrec_eval), or say why it has none (:attr:`Metric.no_reference`);
- keep its family's invariances: a correlation or an aggregate of correlations does not move
  when the scores are scaled and shifted, a correlation changes sign with the scores; a
  ``ranks`` metric does not move under a strictly increasing transform of the scores; a
  ``symmetric`` one is the same with scores and gold swapped;
- score a perfect prediction (the scores are the gold; a linking run puts every query's
  relevant documents first) at the top of its bounds in its direction;
- give, vectorised over resamples, what its point function gives on each drawn resample.

A new task kind needs a row generator in :data:`CASES` unless its rows have a shape
:data:`SHAPES` knows (the test says so); a new metric of a known kind needs nothing here. The
metrics a kind declares in its own module (``TaskKind.declares``) are in the catalog once
:mod:`simeval.kinds` is imported, as it is here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pytest
import scipy.stats
import sklearn.metrics
from hypothesis import given, settings
from hypothesis import strategies as st

from simeval import kinds
from simeval.metrics import catalog, evaluate_trec
from simeval.metrics.declared import (
    AGGREGATE,
    AREA,
    CORRELATION,
    COUNT,
    SHARE,
    Metric,
    Replicates,
    Sorted,
)

EXAMPLES = settings(max_examples=15, deadline=None)
FAMILY_BOUNDS = {
    CORRELATION: (-1.0, 1.0),
    AGGREGATE: (-1.0, 1.0),
    SHARE: (0.0, 1.0),
    AREA: (0.0, 1.0),
    COUNT: (0.0, math.inf),
}
Transform = Callable[[np.ndarray], np.ndarray]


# -- the rows of each kind, and what the properties do to them --------------------------------


@dataclass(frozen=True)
class Pairs:
    """One result's item rows: gold and score (and the kind's other columns)."""

    columns: dict[str, np.ndarray]

    @property
    def rows(self) -> dict[str, np.ndarray]:
        return self.columns

    def names(self) -> dict[str, Any]:
        return dict(self.columns)

    def rescored(self, f: Transform) -> Pairs:
        return Pairs({**self.columns, "score": f(self.columns["score"])})

    def swapped(self) -> Pairs:
        c = self.columns
        return Pairs({**c, "score": c["gold"], "gold": c["score"]})

    def perfect(self) -> Pairs:
        return Pairs({**self.columns, "score": self.columns["gold"].copy()})


@dataclass(frozen=True)
class Suite:
    """A suite's rows: its members' item rows (pooled for the reference, and as ``parts``)."""

    parts: tuple[Pairs, ...]

    @property
    def rows(self) -> list[dict[str, np.ndarray]]:
        return [p.columns for p in self.parts]

    def names(self) -> dict[str, Any]:
        pooled = {k: np.concatenate([p.columns[k] for p in self.parts]) for k in ("gold", "score")}
        return {**pooled, "parts": self.rows}

    def rescored(self, f: Transform) -> Suite:
        return Suite(tuple(p.rescored(f) for p in self.parts))

    def swapped(self) -> Suite:
        return Suite(tuple(p.swapped() for p in self.parts))

    def perfect(self) -> Suite:
        return Suite(tuple(p.perfect() for p in self.parts))


@dataclass(frozen=True)
class Linking:
    """A linking result: a run and qrels, its rows the per-query values trec_eval gives."""

    run: tuple[tuple[str, str, float], ...]
    qrels: tuple[tuple[str, str, int], ...]
    rows_: dict[str, np.ndarray] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ev = evaluate_trec(*zip(*self.run, strict=True), *zip(*self.qrels, strict=True))
        object.__setattr__(self, "rows_", {"qid": ev.qids, **ev.per_query})

    @property
    def rows(self) -> dict[str, np.ndarray]:
        return self.rows_

    def names(self) -> dict[str, Any]:
        run: dict = {}
        qrels: dict = {}
        for q, d, s in self.run:
            run.setdefault(q, {})[d] = s
        for q, d, rel in self.qrels:
            qrels.setdefault(q, {})[d] = rel
        return {**self.rows_, "run": run, "qrels": qrels}

    def rescored(self, f: Transform) -> Linking:
        scores = f(np.array([s for *_, s in self.run])).tolist()
        run = tuple((q, d, s) for (q, d, _), s in zip(self.run, scores, strict=True))
        return replace(self, run=run)

    def swapped(self) -> None:
        return None  # a run and its qrels are not two of a kind

    def perfect(self) -> Linking:
        """Every relevant document retrieved, above every other of its query, the more
        relevant first (scores in the grid's -3..3, so 100 a level apart keeps the order)."""
        relevant = {(q, d): rel for q, d, rel in self.qrels if rel > 0}
        run = {(q, d): s for q, d, s in self.run}
        run.update({k: 100.0 * rel + run.get(k, 0.0) for k, rel in relevant.items()})
        return replace(self, run=tuple((q, d, s) for (q, d), s in run.items()))


GRID = st.integers(-12, 12).map(lambda i: i / 4)  # coarse: no two scores within 1e-8
WORDS = 6


@st.composite
def graded(draw: st.DrawFn, n_min: int = 5, n_max: int = 25) -> Pairs:
    n = draw(st.integers(n_min, n_max))
    gold = np.array(draw(st.lists(st.integers(0, 10), min_size=n, max_size=n)), float)
    score = np.array(draw(st.lists(GRID, min_size=n, max_size=n)), float)
    gold[:2] = (0.0, 10.0)  # never constant: the gold always ranks something
    words = np.arange(n)
    return Pairs({"word1": words % WORDS, "word2": words, "gold": gold, "score": score})


@st.composite
def sts(draw: st.DrawFn, n_min: int = 5, n_max: int = 25) -> Pairs:
    p = draw(graded(n_min, n_max))
    n = len(p.columns["gold"])
    confidence = np.array(draw(st.lists(st.integers(1, 100), min_size=n, max_size=n)), float)
    gold = p.columns["gold"] / 2  # STS's 0-5
    return Pairs({"gold": gold, "score": p.columns["score"], "confidence": confidence})


@st.composite
def related(draw: st.DrawFn) -> Pairs:
    """RUSSE's shape: every word1 has as many related (1) as unrelated (0) partners."""
    half = draw(st.lists(st.integers(1, 3), min_size=2, max_size=5))  # per word1
    word1 = np.repeat(np.arange(len(half)), [2 * h for h in half])
    gold = np.concatenate([[1.0] * h + [0.0] * h for h in half])
    score = np.array(draw(st.lists(GRID, min_size=len(gold), max_size=len(gold))), float)
    return Pairs({"word1": word1, "word2": np.arange(len(gold)), "gold": gold, "score": score})


@st.composite
def suite(draw: st.DrawFn) -> Suite:
    return Suite(tuple(draw(st.lists(sts(4, 12), min_size=2, max_size=4))))


@st.composite
def linking(draw: st.DrawFn) -> Linking:
    """Queries with 1-3 relevant documents of 10, 1-8 retrieved each (scores tie)."""
    run, qrels = [], []
    for q in range(draw(st.integers(1, 8))):
        docs = draw(st.lists(st.integers(0, 9), min_size=1, max_size=8, unique=True))
        run += [(f"q{q}", f"d{d}", draw(GRID)) for d in docs]
        rel = draw(st.lists(st.integers(0, 9), min_size=1, max_size=3, unique=True))
        qrels += [(f"q{q}", f"d{d}", draw(st.integers(1, 2))) for d in rel]
    return Linking(tuple(run), tuple(qrels))


@dataclass(frozen=True)
class Answers(Pairs):
    """An analogy result's rows: each question answered or not (``covered``), and right or
    not (``right``, only when answered). Answers are words: no score to transform."""

    def rescored(self, f: Transform) -> Answers:
        return self

    def swapped(self) -> None:  # type: ignore[override]
        return None  # an answer and the expected word are not two of a kind

    def perfect(self) -> Answers:
        n = len(self.columns["right"])
        return Answers({**self.columns, "right": np.ones(n), "covered": np.ones(n, np.int64)})


@st.composite
def answers(draw: st.DrawFn) -> Answers:
    n = draw(st.integers(1, 25))
    covered = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), np.int64)
    right = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), float) * covered
    return Answers({"qid": np.arange(n), "right": right, "covered": covered,
                    "counted": np.ones(n)})  # fmt: skip


CASES: dict[str, st.SearchStrategy] = {
    "graded-pairs": graded(),
    "sts": sts(),
    "related-pairs": related(),
    "suite-sts": suite(),
    "suite-sts-year": suite(),
    "linking": linking(),
}
# a kind not named above is drawn by the shape of its rows (``TaskKind.numeric``): a new kind
# whose rows are answers right or not needs no line here
SHAPES: dict[tuple[str, ...], st.SearchStrategy] = {("right", "covered"): answers()}


def declared() -> list:
    """Every (metric, kind) declared, as test parameters."""
    return [pytest.param(m, k, id=f"{m.name}@{k}") for m in catalog.METRICS for k in m.kinds]


def case(data: st.DataObject, kind: str) -> Any:
    found = CASES.get(kind) or SHAPES.get(tuple(kinds.kind(kind).numeric))
    if found is None:
        pytest.fail(f"no rows generator for task kind {kind!r}: add one to CASES or SHAPES")
    return data.draw(found, label=kind)


def value(m: Metric, rows: Any) -> float:
    return float(m.point(rows))


def same(a: float, b: float, tol: float = 1e-9) -> bool:
    """Equal within ``tol`` (relative for large values), or both NaN."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


# -- the properties ----------------------------------------------------------------------------


@pytest.mark.parametrize(("m", "kind"), declared())
def test_its_declaration_is_complete(m: Metric, kind: str) -> None:
    """Bounds its family allows, and an independent reference or the reason it has none."""
    assert m.bounds is not None, f"{m.name}: declare its bounds"
    if m.family in FAMILY_BOUNDS:
        low, high = FAMILY_BOUNDS[m.family]
        assert low <= m.bounds[0] < m.bounds[1] <= high, (m.name, m.family, m.bounds)
    assert bool(m.reference) != bool(m.no_reference), (
        f"{m.name}: name an independent reference, or say in no_reference why there is none"
    )


@pytest.mark.parametrize(("m", "kind"), declared())
@EXAMPLES
@given(data=st.data())
def test_within_its_bounds(m: Metric, kind: str, data: st.DataObject) -> None:
    got = value(m, case(data, kind).rows)
    low, high = m.bounds or (-math.inf, math.inf)
    assert math.isnan(got) or low - 1e-12 <= got <= high + 1e-12, got


@pytest.mark.parametrize(("m", "kind"), declared())
@EXAMPLES
@given(data=st.data())
def test_equals_its_independent_reference(m: Metric, kind: str, data: st.DataObject) -> None:
    if not m.reference:
        pytest.skip(f"no independent implementation: {m.no_reference}")
    c = case(data, kind)
    names = {"numpy": np, "scipy": scipy, "sklearn": sklearn, **c.names()}
    if "pytrec_eval" in m.reference:
        names["pytrec_eval"] = pytest.importorskip("pytrec_eval")
    with np.errstate(all="ignore"):
        expected = float(eval(m.reference, names))  # the catalog's own text
    assert same(value(m, c.rows), expected), (m.reference, expected)


@pytest.mark.parametrize(("m", "kind"), declared())
@EXAMPLES
@given(data=st.data(), scale=st.sampled_from([0.5, 2.0, 7.0]), shift=st.sampled_from([-3.0, 5.0]))
def test_a_correlation_ignores_the_scores_scale(
    m: Metric, kind: str, data: st.DataObject, scale: float, shift: float
) -> None:
    if m.family not in (CORRELATION, AGGREGATE):
        pytest.skip(f"a {m.family}")
    c = case(data, kind)
    assert same(value(m, c.rescored(lambda s: scale * s + shift).rows), value(m, c.rows))


@pytest.mark.parametrize(("m", "kind"), declared())
@EXAMPLES
@given(data=st.data())
def test_a_correlation_changes_sign_with_the_scores(
    m: Metric, kind: str, data: st.DataObject
) -> None:
    if m.family != CORRELATION:
        pytest.skip(f"a {m.family}")
    c = case(data, kind)
    assert same(value(m, c.rescored(np.negative).rows), -value(m, c.rows))


@pytest.mark.parametrize(("m", "kind"), declared())
@EXAMPLES
@given(data=st.data())
def test_a_rank_metric_ignores_increasing_transforms(
    m: Metric, kind: str, data: st.DataObject
) -> None:
    if not m.ranks:
        pytest.skip("not declared rank-based")
    c = case(data, kind)
    for f in (np.exp, lambda s: s**3 + 10 * s):  # strictly increasing; grid gaps stay wide
        assert same(value(m, c.rescored(f).rows), value(m, c.rows), 1e-12)


@pytest.mark.parametrize(("m", "kind"), declared())
@EXAMPLES
@given(data=st.data())
def test_a_symmetric_metric_is_the_same_with_scores_and_gold_swapped(
    m: Metric, kind: str, data: st.DataObject
) -> None:
    if not m.symmetric:
        pytest.skip("not declared symmetric")
    c = case(data, kind)
    swapped = c.swapped()
    assert swapped is not None, f"{kind}: declared symmetric, but its rows cannot swap"
    assert same(value(m, swapped.rows), value(m, c.rows))


@pytest.mark.parametrize(("m", "kind"), declared())
@EXAMPLES
@given(data=st.data())
def test_a_perfect_prediction_scores_at_the_top(m: Metric, kind: str, data: st.DataObject) -> None:
    if m.count:
        pytest.skip("a tally has no top")
    assert m.bounds is not None
    c = case(data, kind)
    got = value(m, c.perfect().rows)
    if not m.reaches_top:  # its best depends on the gold: still no prediction does better
        current = value(m, c.rows)
        assert got >= current - 1e-12 if m.higher_is_better else got <= current + 1e-12
        return
    best = m.bounds[1] if m.higher_is_better else m.bounds[0]
    assert same(got, best, 1e-12)


@pytest.mark.parametrize(("m", "kind"), declared())
@EXAMPLES
@given(data=st.data(), seed=st.integers(0, 2**16))
def test_its_resamples_are_its_value_on_the_drawn_rows(
    m: Metric, kind: str, data: st.DataObject, seed: int
) -> None:
    c = case(data, kind)
    rows = c.rows
    parts = rows if isinstance(rows, list) else [rows]
    whole = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    sizes = [len(next(iter(p.values()))) for p in parts]
    rng = np.random.default_rng(seed)  # within each suite member, as the suites resample
    w = np.hstack([rng.multinomial(k, np.full(k, 1 / k), size=4) for k in sizes]).astype(float)
    members = []
    if isinstance(rows, list):
        edges = np.cumsum([0, *sizes])
        members = [
            (np.arange(a, b), Sorted(p)) for a, b, p in zip(edges, edges[1:], parts, strict=False)
        ]
    r = Replicates(Sorted(whole), w, members)
    with np.errstate(all="ignore"):
        at_once = m.resampled(r) if m.resampled is not None else None
    if at_once is None:
        pytest.skip("computed replicate by replicate: its point function on each resample")
    for b in range(len(w)):
        assert same(float(at_once[b]), value(m, r.drawn(b))), b
