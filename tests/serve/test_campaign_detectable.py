"""Before a phase opens, the campaign page says how small a difference its test set can
detect (issue 32, item 4), with the method stated; the figure is computed here by hand."""

from __future__ import annotations

import math
from datetime import timedelta
from pathlib import Path

import pytest
from scipy.stats import norm

from serve_kit import OPENS, TEST_OPENS, Clock, make_server

pytest.importorskip("fastapi")


def fisher_spearman(n: int, r: float = 0.6, between: float = 0.7) -> float:
    """Meng, Rosenthal & Rubin's test of two correlations sharing the gold, Spearman's
    variance scaled by 1 + r²/2, solved for the difference found with power 0.8 at α 0.05."""
    z = norm.ppf(0.975) + norm.ppf(0.8)
    f = min(1.0, (1 - between) / (2 * (1 - r * r)))
    h = (1 - f * r * r) / (1 - r * r)
    dz = z * math.sqrt(2 * (1 - between) * h * (1 + r * r / 2) / (n - 3))
    return r - math.tanh(math.atanh(r) - dz)


def test_the_page_shows_the_detectable_difference_before_the_phase_opens(tmp_path: Path):
    clock = Clock(OPENS + timedelta(days=1))  # the trial is open, the test not yet
    server = make_server(f"sqlite:///{tmp_path / 'serve.db'}", tmp_path / "srv", clock)
    page = server.client.get("/campaigns/lex25").text
    expected = fisher_spearman(130)  # the test phase's yp130: 130 pairs
    assert f"yp130 spearman {expected:.3f} (n = 130)" in page
    assert "Smallest difference the test set can detect" in page and "Meng" in page
    assert "mc30 spearman" not in page  # the trial is open: no longer shown
    clock.now = TEST_OPENS + timedelta(hours=1)
    assert "Smallest difference" not in server.client.get("/campaigns/lex25").text
    server.db.dispose()
