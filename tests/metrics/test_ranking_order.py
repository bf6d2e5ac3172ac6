"""trec_eval's order (simeval.metrics.ranking.order.ranking) against numpy's lexsort of the same
three keys, on ties, NaN, signed zeros and group codes of any sign."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from simeval.metrics.ranking.order import ranking

SCORES = st.sampled_from([0.0, -0.0, 0.5, -1.5, 1e300, -1e300, 3e-300, float("nan"), 2.0])


@st.composite
def rows(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(0, 40))
    scores = np.array(draw(st.lists(SCORES, min_size=n, max_size=n)), dtype=float)
    ties = np.array(draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), dtype=np.int64)
    groups = np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.int64)
    return scores, ties, groups


@given(rows())
def test_ranking_is_lexsorts_order(case: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    scores, ties, groups = case
    assert ranking(scores, ties, groups).tolist() == np.lexsort((ties, -scores, groups)).tolist()
    assert ranking(scores, ties).tolist() == np.lexsort((ties, -scores)).tolist()


def test_codes_too_wide_for_one_integer_fall_back_to_lexsort() -> None:
    # tie and group codes spanning 2^40 each: their product does not fit in 64 bits
    scores = np.array([0.5, 0.5, 1.0, 0.5])
    ties = np.array([2**40, 0, 5, 2**40 - 1], dtype=np.int64)
    groups = np.array([2**40, 2**40, 0, 2**40], dtype=np.int64)
    assert ranking(scores, ties, groups).tolist() == [2, 1, 3, 0]
