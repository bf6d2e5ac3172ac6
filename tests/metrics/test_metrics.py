"""Metrics against scipy, scikit-learn and hand computations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import (
    ConstantInputWarning,
    NearConstantInputWarning,
    pearsonr,
    spearmanr,
)
from sklearn.metrics import average_precision_score, precision_recall_curve, roc_auc_score

from simeval.metrics import (
    average_precision,
    average_precision_trapezoid,
    pearson,
    roc_auc,
    russe_accuracy,
    spearman,
    sts_all,
    sts_allnrm,
    sts_mean,
    weighted_pearson,
)
from simeval.metrics.classification import russe_labels

rng = np.random.default_rng(7)


@pytest.mark.parametrize("seed", range(5))
def test_correlations_match_scipy(seed: int) -> None:
    r = np.random.default_rng(seed)
    x = r.integers(0, 6, 200).astype(float)  # many ties
    y = x + r.normal(0, 2, 200)
    assert pearson(x, y) == pytest.approx(pearsonr(x, y)[0], abs=1e-12)
    assert spearman(x, y) == pytest.approx(spearmanr(x, y)[0], abs=1e-12)


def test_constant_input_is_nan() -> None:
    assert np.isnan(pearson([1, 1, 1], [1, 2, 3]))
    assert np.isnan(spearman([1, 2, 3], [5, 5, 5]))


CONSTANTS = [0.1, 0.3, 1 / 3, 0.7, 2.2, 3.14159, 1e-300]


@pytest.mark.parametrize("value", CONSTANTS)
@pytest.mark.parametrize("n", [3, 5, 30, 750])
def test_a_constant_side_is_nan_as_scipy_decides(value: float, n: int) -> None:
    """0.1 on every line used to give r = ±1e-16 or 0.0 (the rounding of x − x̄), shown as a
    figure; scipy returns NaN for an input whose values all equal the first, and so must we,
    plain, weighted, ranked and in the STS aggregates."""
    x, y = np.full(n, value), np.arange(n, dtype=float)
    with pytest.warns(ConstantInputWarning):
        assert np.isnan(pearsonr(x, y)[0]) and np.isnan(spearmanr(x, y)[0])
    assert np.isnan(pearson(x, y)) and np.isnan(pearson(y, x))
    assert np.isnan(spearman(x, y))
    assert np.isnan(weighted_pearson(x, y, np.linspace(1, 2, n)))
    assert np.isnan(weighted_pearson(y, x, np.full(n, 0.3)))
    assert np.isnan(sts_all([y, y], [x, x]))


def test_a_constant_side_among_weighted_rows_ignores_zero_weights() -> None:
    """Rows of weight 0 are left out (unscored STS lines): the others constant give NaN,
    as scipy on the rows kept; a value on a zero-weight row does not make them vary."""
    x, y, w = np.array([0.1, 0.1, 0.1, 5.0]), np.array([1.0, 2, 3, 4]), np.array([1.0, 2, 3, 0])
    with pytest.warns(ConstantInputWarning):
        assert np.isnan(pearsonr(x[:3], y[:3])[0])
    assert np.isnan(weighted_pearson(x, y, w))


def test_a_nearly_constant_side_still_has_scipys_figure() -> None:
    """One value one ulp off: scipy computes an r (with a warning that rounding makes it
    inaccurate, so only its being a figure is compared), and so do we: NaN only where scipy
    gives NaN."""
    x = np.full(30, 0.1)
    x[7] = np.nextafter(0.1, 1.0)
    y = np.arange(30.0)
    with pytest.warns(NearConstantInputWarning):
        assert np.isfinite(pearsonr(x, y)[0])
    assert -1 <= pearson(x, y) <= 1
    assert -1 <= weighted_pearson(x, y, np.linspace(1, 2, 30)) <= 1


def test_allnrm_of_a_constant_system_is_scipys_r_of_the_gold_means() -> None:
    """A constant system per dataset: its least-squares fit is the dataset's gold mean
    (exactly; not a slope fitted to the rounding of x − x̄), so ALLnrm is Pearson's r of
    those means with the gold, and ALL and Mean are undefined."""
    g1, g2 = np.array([0.0, 1, 2, 3]), np.array([5.0, 4, 1])
    s1, s2 = np.full(4, 0.1), np.full(3, 0.1)
    fitted = np.r_[np.full(4, g1.mean()), np.full(3, g2.mean())]
    assert sts_allnrm([g1, g2], [s1, s2]) == pytest.approx(
        pearsonr(fitted, np.r_[g1, g2])[0], abs=1e-15
    )
    assert np.isnan(sts_all([g1, g2], [s1, s2]))
    assert np.isnan(sts_mean([pearson(s1, g1), pearson(s2, g2)], [4, 3]))


def test_weighted_pearson_by_hand() -> None:
    x, y, w = np.array([1.0, 2, 3, 4]), np.array([2.0, 1, 4, 3]), np.array([1.0, 1, 2, 2])
    # weighted means: x (1+2+6+8)/6 = 17/6, y (2+1+8+6)/6 = 17/6
    dx, dy = x - 17 / 6, y - 17 / 6
    expected = (w * dx * dy).sum() / np.sqrt((w * dx * dx).sum() * (w * dy * dy).sum())
    assert weighted_pearson(x, y, w) == pytest.approx(expected, abs=1e-15)
    # equal weights give Pearson's r
    assert weighted_pearson(x, y, np.full(4, 7.0)) == pytest.approx(pearsonr(x, y)[0], abs=1e-12)
    # integer weights equal repeating the points
    rep = np.repeat(np.arange(4), w.astype(int))
    assert weighted_pearson(x, y, w) == pytest.approx(pearsonr(x[rep], y[rep])[0], abs=1e-12)


def test_sts_aggregates_by_hand() -> None:
    g1, s1 = np.array([0.0, 1, 2, 3]), np.array([0.1, 0.2, 0.2, 0.9])
    g2, s2 = np.array([5.0, 4, 1]), np.array([10.0, 3, 2])
    assert sts_all([g1, g2], [s1, s2]) == pytest.approx(
        pearsonr(np.r_[s1, s2], np.r_[g1, g2])[0], abs=1e-12
    )
    fitted = [np.polyval(np.polyfit(s, g, 1), s) for s, g in ((s1, g1), (s2, g2))]
    assert sts_allnrm([g1, g2], [s1, s2]) == pytest.approx(
        pearsonr(np.concatenate(fitted), np.r_[g1, g2])[0], abs=1e-12
    )
    assert sts_mean([0.5, 0.8], [4, 3]) == pytest.approx((0.5 * 4 + 0.8 * 3) / 7)


@pytest.mark.parametrize("seed", range(8))
def test_ap_and_auc_match_sklearn(seed: int) -> None:
    r = np.random.default_rng(seed)
    y = r.integers(0, 2, 300)
    s = np.round(r.random(300) + 0.3 * y, 1)  # rounded: many ties
    assert average_precision(y, s) == pytest.approx(average_precision_score(y, s), abs=1e-12)
    assert roc_auc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    # The 2015 variant: trapezoid area under scikit-learn's own PR curve (no near-ties here).
    p, rc, _ = precision_recall_curve(y, s)
    assert average_precision_trapezoid(y, s) == pytest.approx(-np.trapezoid(p, rc), abs=1e-12)


def test_ap_variants_differ_as_computed_by_hand() -> None:
    # ranked: 1 0 1 0 (scores distinct). Step-wise AP = (1/1 + 2/3) / 2 = 5/6.
    # PR points (recall, precision): (0,1) (.5,1) (.5,.5) (1,2/3); the curve stops at full recall.
    # Trapezoids: 0→.5 at 1: .5; .5→.5: 0; .5→1 from .5 to 2/3: .5 * (.5 + 2/3) / 2 = 7/24.
    y, s = [1, 0, 1, 0], [0.9, 0.8, 0.7, 0.6]
    assert average_precision(y, s) == pytest.approx(5 / 6)
    assert average_precision_trapezoid(y, s) == pytest.approx(0.5 + 7 / 24)
    # constant scores: step-wise AP is the positive rate, the old trapezoid gives (1 + .5) / 2
    assert average_precision([1, 0, 1, 0], [0.0] * 4) == pytest.approx(0.5)
    assert average_precision_trapezoid([1, 0, 1, 0], [0.0] * 4) == pytest.approx(0.75)


def test_trapezoid_treats_near_ties_as_ties() -> None:
    # scikit-learn 0.16-0.18 merged scores closer than 1e-8: 0.5 and 0.5+1e-9 are one threshold.
    y, s = [0, 1, 1, 0], [0.5 + 1e-9, 0.5, 0.2, 0.1]
    tied = average_precision_trapezoid(y, [0.5, 0.5, 0.2, 0.1])
    assert average_precision_trapezoid(y, s) == pytest.approx(tied, abs=1e-15)
    # 1e-6 apart they are two thresholds: points (0,1) (0,0) (.5,.5) (1,2/3) -> 1/8 + 7/24
    apart = average_precision_trapezoid(y, [0.5 + 1e-6, 0.5, 0.2, 0.1])
    assert apart == pytest.approx(1 / 8 + 7 / 24)
    assert tied == pytest.approx(3 / 8 + 7 / 24)


def test_one_class_is_nan() -> None:
    assert np.isnan(average_precision([1, 1], [0.1, 0.2]))
    assert np.isnan(roc_auc([0, 0], [0.1, 0.2]))


def test_russe_accuracy_tie_rule_by_hand() -> None:
    # word1 "a": 4 pairs -> 2 related; scores tie at 0.5 for c, b, d: sorted by word2 ascending
    # gives order x(0.9), b(0.5), c(0.5), d(0.5) -> related: x, b.
    # word1 "z": 3 pairs -> floor(3/2) = 1 related: the highest, q (0.7).
    w1 = ["a", "a", "a", "a", "z", "z", "z"]
    w2 = ["c", "x", "b", "d", "p", "q", "r"]
    s = [0.5, 0.9, 0.5, 0.5, 0.2, 0.7, 0.2]
    assert russe_labels(w1, w2, s).tolist() == [0, 1, 1, 0, 0, 1, 0]
    gold = [1, 1, 0, 0, 1, 0, 0]
    # agreement: c no, x yes, b no, d yes, p no, q no, r yes -> 3/7
    assert russe_accuracy(w1, w2, s, gold) == pytest.approx(3 / 7)
