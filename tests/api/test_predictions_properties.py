"""Properties of predictions given from Python (issue 44, "one funnel for every input"): over
generated predictions for a small hand-made graded benchmark, simeval gives scipy's figure on
the pairs lined up by key, or its own error, nothing else; and a number string is read exactly
when a strict ASCII decimal grammar (written here, independently of simeval's) accepts it.

Drawn by the suite's Hypothesis profile (tests/conftest.py: derandomized, no database), at
:data:`EXAMPLES` examples a property, so the fast tier stays fast."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import pearsonr, spearmanr

import simeval
from number_kit import strict_decimal
from simeval.data.textio import as_number
from simeval.errors import SimevalError

EXAMPLES = 50
GOLD = [("car", "automobile", 3.92), ("gem", "jewel", 3.84), ("journey", "voyage", 3.84),
        ("boy", "lad", 3.76), ("coast", "shore", 3.70), ("magician", "wizard", 3.50),
        ("noon", "string", 0.08), ("rooster", "voyage", 0.04)]  # fmt: skip
PAIRS = [(a, b) for a, b, _ in GOLD]
SCORES = np.array([g for *_, g in GOLD])
BENCH = simeval.Benchmark.from_pairs(GOLD, name="eight")

# scores on a grid of hundredths: ties happen, and no value is so close to another that
# float rounding could decide a rank (that is the correlation's business, not alignment's)
SCORE = st.integers(-500, 500).map(lambda i: i / 100)


def _figures(result: object) -> tuple[object, object]:
    metrics = result.metrics  # type: ignore[attr-defined]
    return metrics["spearman"], metrics["pearson"]


def _same(got: object, expected: float) -> bool:
    """simeval's figure against scipy's: NaN (undefined, constant input) is None or NaN."""
    if math.isnan(expected):
        return got is None or (isinstance(got, float) and math.isnan(got))
    return isinstance(got, float) and math.isclose(got, expected, rel_tol=0, abs_tol=1e-9)


@settings(max_examples=EXAMPLES, deadline=None)  # the first example imports pandas
@given(
    scores=st.lists(SCORE, min_size=len(PAIRS), max_size=len(PAIRS)),
    order=st.permutations(range(len(PAIRS))),
    shape=st.sampled_from(["dict", "series", "multiindex", "frame", "list", "array"]),
)
def test_keyed_in_any_order_or_flat_in_order_gives_scipys_figure(
    scores: list[float], order: list[int], shape: str
) -> None:
    pd = pytest.importorskip("pandas")
    keys = [PAIRS[i] for i in order]
    values = [scores[i] for i in order]
    predictions = {
        "dict": lambda: dict(zip(keys, values, strict=True)),
        "series": lambda: pd.Series(values, index=pd.Index(keys, tupleize_cols=False)),
        "multiindex": lambda: pd.Series(values, index=pd.MultiIndex.from_tuples(keys)),
        "frame": lambda: pd.DataFrame(
            {"word1": [a for a, _ in keys], "word2": [b for _, b in keys], "score": values}
        ),
        "list": lambda: list(scores),  # flat: in the gold's order
        "array": lambda: np.array(scores),
    }[shape]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on constant input and returns NaN
        expected = (spearmanr(SCORES, scores)[0], pearsonr(SCORES, scores)[0])
    rho, r = _figures(simeval.score(BENCH, predictions)[0])
    assert _same(rho, float(expected[0])), (rho, expected)
    assert _same(r, float(expected[1])), (r, expected)


def _not_a_number() -> st.SearchStrategy[object]:
    """Values that are no prediction: text outside the decimal grammar, bytes, containers,
    booleans, complex numbers, infinities."""
    return st.one_of(
        st.text(max_size=8).filter(lambda t: not strict_decimal(t)),
        st.binary(max_size=4),
        st.lists(SCORE, max_size=3),
        st.dictionaries(st.text(max_size=2), SCORE, max_size=2),
        st.booleans(),
        st.complex_numbers(allow_nan=False, allow_infinity=False),
        st.sampled_from([math.inf, -math.inf, object(), {1.0}]),
    )


def _put(drawn: tuple[list[float], int, object]) -> list[object]:
    """The list with its ``i``-th value replaced by ``value``."""
    scores, i, value = drawn
    return [*scores[:i], value, *scores[i + 1 :]]


def _misshapen() -> st.SearchStrategy[object]:
    """Predictions of the wrong shape: a flat list of another length, a 2-d or 3-d array, a
    list of rows, a dict whose values are lists, a dict with keys that are not pairs, an
    empty dict, a flat list holding one non-number, a Series with another index."""
    n = len(PAIRS)
    wrong_length = st.lists(SCORE, max_size=2 * n).filter(lambda v: len(v) != n)
    arrays = st.sampled_from([(n, 1), (n // 2, 2), (2, 2, 2), (1, n), (n, 2)]).map(np.ones)
    rows = st.lists(st.lists(SCORE, min_size=1, max_size=3), min_size=n, max_size=n)
    lists_by_pair = st.lists(SCORE, min_size=2, max_size=3).map(
        lambda s: {p: list(s) for p in PAIRS}
    )
    bad_keys = st.sampled_from(["ab", ("a", "b", "c"), ("a",), 7, ("a", 2)]).map(lambda k: {k: 0.5})
    one_bad = st.tuples(
        st.lists(SCORE, min_size=n, max_size=n), st.integers(0, n - 1), _not_a_number()
    ).map(_put)
    return st.one_of(wrong_length, arrays, rows, lists_by_pair, bad_keys, st.just({}), one_bad)


@settings(max_examples=EXAMPLES, deadline=None)  # the first example imports pandas
@given(predictions=_misshapen())
def test_anything_else_is_simevals_own_error(predictions: object) -> None:
    """Never a raw TypeError, IndexError, KeyError or AttributeError: a SimevalError that
    says what was expected (pytest.raises lets any other exception through, failing)."""
    with pytest.raises(SimevalError):
        simeval.score(BENCH, predictions)


STS = simeval.Benchmark.from_sts(PAIRS[:2], [4.0, 1.0])


@settings(max_examples=EXAMPLES, deadline=None)  # the first example imports pandas
@given(predictions=st.one_of(_misshapen(), st.just({PAIRS[0]: 0.5, PAIRS[1]: 0.2})))
def test_sts_predictions_misshapen_are_simevals_own_error(predictions: object) -> None:
    """STS predictions are one per line: a keyed dict is refused too (and the right shape,
    ``[0.5, 0.2]``, scores: the control)."""
    assert STS.score([0.5, 0.2])[0].metrics["pearson"] == pytest.approx(1.0)
    with pytest.raises(SimevalError):
        STS.score(predictions)


NUMBERISH = st.text(alphabet="0123456789+-.eE_ \t,xXinfaINF\u0661\uff11\u00b2", max_size=12)


@settings(max_examples=EXAMPLES, deadline=None)  # the first example imports pandas
@given(text=st.one_of(NUMBERISH, st.text(max_size=12)))
def test_a_number_string_is_read_exactly_when_the_grammar_accepts_it(text: str) -> None:
    value = _read(text)
    if strict_decimal(text) and math.isfinite(float(text)):
        assert value == float(text)
    else:
        assert value is None, f"{text!r} read as {value!r}"


@settings(max_examples=EXAMPLES, deadline=None)  # the first example imports pandas
@given(text=NUMBERISH)
def test_a_prediction_string_scores_exactly_when_the_grammar_accepts_it(text: str) -> None:
    """The same through ``simeval.score``: the string as the first pair's prediction."""
    rest = [0.5, 0.4, 0.3, 0.9, 0.1, 0.7, 0.2]
    try:
        rho = simeval.score(BENCH, [text, *rest])[0].metrics["spearman"]
    except SimevalError:
        rho = None
    if strict_decimal(text) and math.isfinite(float(text)):
        assert rho == pytest.approx(spearmanr(SCORES, [float(text), *rest])[0], abs=1e-12)
    else:
        assert rho is None, f"{text!r} scored"


def _read(text: str) -> float | None:
    try:
        return as_number(text, "x")
    except SimevalError:
        return None
