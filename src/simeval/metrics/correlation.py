"""Correlations and the SemEval-2012 STS aggregates.

Constant input has no correlation: every function here returns NaN for it (scipy returns NaN
with a warning; the STS Perl script divided by zero). "Constant" is scipy's test — every value
equals the first, exactly (:func:`is_constant`) — not a small spread: x − x̄ of a constant x is
rounding noise that would otherwise give r = ±1e-16, and a nearly constant x still has its r.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _as_arrays(*arrays: Sequence[float] | np.ndarray) -> list[np.ndarray]:
    out = [np.asarray(a, dtype=float) for a in arrays]
    n = len(out[0])
    if any(len(a) != n for a in out):
        raise ValueError(f"arrays differ in length: {[len(a) for a in out]}")
    return out


def scale_exponent(a: np.ndarray) -> int:
    """e such that ``a · 2^-e`` has its largest magnitude in [0.5, 1) (0 for zero or empty)."""
    top = float(np.max(np.abs(a))) if len(a) else 0.0
    return int(np.frexp(top)[1]) if top != 0.0 and np.isfinite(top) else 0


def unit_scale(a: np.ndarray) -> np.ndarray:
    """``a · 2^-e`` (:func:`scale_exponent`). Correlations and least-squares fits do not change
    under scaling, and a power of two scales every float exactly, so results are bit-identical
    for ordinary input while a score of 1e308 no longer overflows the sums of squares."""
    return np.ldexp(a, -scale_exponent(a))


def is_constant(a: np.ndarray, present: np.ndarray | None = None) -> bool:
    """Whether every value of ``a`` (where ``present``, if given) equals the first: the test by
    which ``scipy.stats.pearsonr`` and ``spearmanr`` return NaN (ConstantInputWarning)."""
    if present is not None:
        a = a[present]
    return bool(np.all(a == a[0])) if len(a) else True


def weighted_pearson(
    x: Sequence[float] | np.ndarray,
    y: Sequence[float] | np.ndarray,
    w: Sequence[float] | np.ndarray,
) -> float:
    """Weighted Pearson correlation (SemEval-2012 STS, confidences as weights).

    With m_x = Σ w x / Σ w and cov(x, y) = Σ w (x − m_x)(y − m_y) / Σ w:
    r = cov(x, y) / sqrt(cov(x, x) · cov(y, y)). Equal weights give Pearson's r.
    NaN when either side is constant over the points of positive weight (:func:`is_constant`)
    or fewer than two points have positive weight. Each side is first scaled by a power of
    two (:func:`unit_scale`), so extreme scores give the true r.
    """
    x, y, w = _as_arrays(x, y, w)
    present = w > 0
    if len(x) < 2 or is_constant(x, present) or is_constant(y, present):
        return float("nan")
    x, y, w = unit_scale(x), unit_scale(y), unit_scale(w)
    if w.sum() <= 0:
        return float("nan")
    wsum = w.sum()
    dx = x - (w @ x) / wsum
    dy = y - (w @ y) / wsum
    sxx, syy, sxy = w @ (dx * dx), w @ (dy * dy), w @ (dx * dy)
    if sxx <= 0 or syy <= 0:
        return float("nan")
    return float(np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0))


def pearson(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Pearson's r = Σ (x − x̄)(y − ȳ) / sqrt(Σ (x − x̄)² Σ (y − ȳ)²).

    Matches ``scipy.stats.pearsonr`` and the STS ``correlation.pl`` scripts. NaN on constant input.
    """
    x, y = _as_arrays(x, y)
    return weighted_pearson(x, y, np.ones_like(x))


def spearman(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float:
    """Spearman's ρ: Pearson's r of the ranks, tied values sharing their average rank.

    Matches ``scipy.stats.spearmanr`` (the RUSSE 2015 scorer's HJ metric). NaN on constant input.
    """
    x, y = _as_arrays(x, y)
    return pearson(average_ranks(x), average_ranks(y))


def average_ranks(x: np.ndarray) -> np.ndarray:
    """1-based ranks, tied values sharing their average rank (``scipy.stats.rankdata``'s
    default, without its input checks: bootstrap replicates call this thousands of times)."""
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    first = np.empty(len(x), dtype=bool)  # np.r_ costs more than the ranking on small input
    first[:1] = True
    np.not_equal(xs[1:], xs[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], len(x))
    ranks = np.empty(len(x))
    ranks[order] = ((starts + ends + 1) / 2)[np.cumsum(first) - 1]
    return ranks


def least_squares_fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(β1, β2) minimising Σ (y − β1·x − β2)². A constant x (:func:`is_constant`) gives β1 = 0,
    β2 = mean(y), not a slope fitted to the rounding of x − x̄.
    Computed on x·2^-e (:func:`unit_scale`, exact), β1 scaled back."""
    x, y = _as_arrays(x, y)
    e = scale_exponent(x)
    x = np.ldexp(x, -e)
    dx = x - x.mean()
    sxx = dx @ dx
    flat = sxx == 0 or is_constant(x)
    beta1 = 0.0 if flat else float(dx @ (y - y.mean()) / sxx)
    return float(np.ldexp(beta1, -e)), float(y.mean() - beta1 * x.mean())


def sts_all(golds: Sequence[np.ndarray], systems: Sequence[np.ndarray]) -> float:
    """STS-2012 **ALL**: Pearson's r over all datasets concatenated."""
    return pearson(np.concatenate(systems), np.concatenate(golds))


def sts_allnrm(golds: Sequence[np.ndarray], systems: Sequence[np.ndarray]) -> float:
    """STS-2012 **ALLnrm**: per dataset fit x' = β1·x + β2 to gold by least squares, then
    Pearson's r over the concatenated fitted scores and gold."""
    fitted = []
    for g, s in zip(golds, systems, strict=True):
        b1, b2 = least_squares_fit(s, g)
        fitted.append(b1 * np.asarray(s, dtype=float) + b2)
    return pearson(np.concatenate(fitted), np.concatenate(golds))


def sts_mean(correlations: Sequence[float], sizes: Sequence[int]) -> float:
    """STS-2012 **Mean**: Σ r_i·n_i / Σ n_i, the per-dataset correlations weighted by pairs."""
    r, n = _as_arrays(correlations, sizes)
    return float(r @ n / n.sum())
