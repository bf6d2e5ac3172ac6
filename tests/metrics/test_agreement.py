"""Inter-annotator agreement (:mod:`simeval.metrics.agreement`): Spearman's ρ between raters
is scipy's to the last bit, without importing ``scipy.stats`` (a second of the report's start,
issue 48)."""

from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
from scipy.stats import spearmanr

from simeval.metrics.agreement import leave_one_out, pairwise_spearman, rho


def _ratings(seed: int, items: int = 60, raters: int = 8) -> np.ndarray:
    """Integer ratings 0-10 (many ties), about a fifth missing."""
    rng = np.random.default_rng(seed)
    out = rng.integers(0, 11, size=(items, raters)).astype(float)
    out[rng.random(out.shape) < 0.2] = np.nan
    return out


def test_rho_is_scipys_spearmanr_bit_for_bit() -> None:
    for seed in range(40):
        r = _ratings(seed)
        for i, j in ((0, 1), (2, 5), (3, 7)):
            a, b = r[:, i], r[:, j]
            both = ~(np.isnan(a) | np.isnan(b))
            assert rho(a, b) == float(spearmanr(a[both], b[both])[0]), (seed, i, j)
        # the mean of the other raters: fractional values, still scipy's
        others = np.nanmean(r[:, 1:], axis=1)
        both = ~(np.isnan(r[:, 0]) | np.isnan(others))
        expected = float(spearmanr(r[both, 0], others[both])[0])
        assert rho(r[:, 0], others) == expected, seed


def test_pairwise_and_leave_one_out_are_means_of_scipys_rho() -> None:
    r = _ratings(7, raters=5)

    def scipy_rho(a: np.ndarray, b: np.ndarray) -> float:
        both = ~(np.isnan(a) | np.isnan(b))
        return float(spearmanr(a[both], b[both])[0])

    pairs = [scipy_rho(r[:, i], r[:, j]) for i in range(5) for j in range(i + 1, 5)]
    assert pairwise_spearman(r) == float(np.mean(pairs))
    with warnings.catch_warnings():  # an item only one rater rated: no others' mean
        warnings.simplefilter("ignore", RuntimeWarning)
        others = [np.nanmean(np.delete(r, i, axis=1), axis=1) for i in range(5)]
    loo = [scipy_rho(r[:, i], others[i]) for i in range(5)]
    assert leave_one_out(r) == float(np.mean(loo))


def test_rho_is_nan_for_a_constant_rater_or_under_three_shared_items() -> None:
    assert math.isnan(rho(np.array([1.0, 1.0, 1.0, 1.0]), np.array([1.0, 2.0, 3.0, 4.0])))
    assert math.isnan(rho(np.array([1.0, 2.0, np.nan]), np.array([1.0, 2.0, 3.0])))


def test_importing_the_agreement_ceilings_leaves_scipy_stats_unloaded() -> None:
    """The report reads the agreement ceilings through :mod:`simeval.datasets.agreement`;
    ``scipy.stats`` took about a second to import there, for one function."""
    probe = (
        "import sys, simeval.datasets.agreement, simeval.metrics.agreement as m\n"
        "import numpy as np\n"
        "m.pairwise_spearman(np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0], [4.0, 5.0]]))\n"
        "print('scipy.stats' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
