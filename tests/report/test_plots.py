"""The report's figures (:mod:`simeval.report.plots`): each laid out and drawn once (issue 48:
laying a figure out twice was a quarter of the figures' time), saved at its own size with every
label inside it."""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from simeval.report import plots

LONG = "a-system-with-a-long-name-00"  # 28 characters: the longest label a name gets
SYSTEMS = ("random:seed=1", "overlap", LONG)
BARS_GROUPS = ["all", "similarity", "relatedness", "russe-hj", "russe-ae2"]


def _scatter() -> bytes:
    rng = np.random.default_rng(0)
    gold = rng.uniform(0, 10, 300)
    panels = [(s, gold, rng.normal(size=300) * 1000, "spearman = 0.1234") for s in SYSTEMS]
    return plots.scatter("simlex999: human vs system", panels)


def _bars() -> bytes:
    series = {s: [(0.5, 0.4, 0.6)] * len(BARS_GROUPS) for s in SYSTEMS}
    metrics = ["sum", "spearman", "spearman", "ap", "ap"]
    hollow = {s: [s == "overlap"] * len(BARS_GROUPS) for s in SYSTEMS}
    refs = {"raters, pairwise ρ": 0.611, "raters, leave-one-out ρ": 0.756}
    return plots.bars("russe by member", BARS_GROUPS, series, metrics, refs, hollow)


def _pr_curves() -> bytes:
    recall = np.linspace(1, 0, 50)
    precision = np.linspace(0.5, 1, 50)
    curves = {f"{s} †": (precision, recall, 0.733) for s in SYSTEMS}
    return plots.pr_curves("russe-ae2: precision-recall", curves)


def _curves() -> bytes:
    x = list(range(0, 3000, 100))
    series = {
        f"{m}, width < {t:g}": (x, [i / 3000 for i in x])
        for t in (1.0, 0.5)
        for m in ("fixed", "adaptive")
    }
    return plots.curves("Share of pairs done", series, "answers", "share of pairs done")


FIGURES: dict[str, Callable[[], bytes]] = {
    "scatter": _scatter,
    "bars": _bars,
    "pr_curves": _pr_curves,
    "curves": _curves,
}


@dataclass
class Drawn:
    """A Figure.draw call: its figure, the renderer's size in pixels, and each text drawn with
    its extent (x0, y0, x1, y1) in pixels as drawn (savefig draws at the PNG's dpi)."""

    figure: Figure
    size: tuple[int, int]
    texts: list[tuple[str, tuple[float, float, float, float]]] = field(default_factory=list)


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Drawn]]:
    """Every Figure.draw call, in order, with the texts it drew (a tick label outside the
    axis' limits is not drawn, so not listed)."""
    seen: list[Drawn] = []
    draw_figure, draw_text = Figure.draw, Text.draw

    def figure(self: Figure, renderer: Any) -> None:
        seen.append(Drawn(self, (round(renderer.width), round(renderer.height))))
        draw_figure(self, renderer)

    def text(self: Text, renderer: Any) -> None:
        draw_text(self, renderer)
        if self.get_visible() and self.get_text().strip():
            extent = tuple(float(v) for v in self.get_window_extent(renderer).extents)
            seen[-1].texts.append((self.get_text(), extent))

    monkeypatch.setattr(Figure, "draw", figure)
    monkeypatch.setattr(Text, "draw", text)
    yield seen


@pytest.mark.parametrize("name", FIGURES)
def test_a_figure_is_drawn_once(name: str, drawn: list[Drawn]) -> None:
    FIGURES[name]()
    assert len(drawn) == 1


@pytest.mark.parametrize("name", FIGURES)
def test_every_label_is_inside_the_saved_figure(name: str, drawn: list[Drawn]) -> None:
    png = FIGURES[name]()
    last = drawn[-1]
    width, height = struct.unpack(">II", png[16:24])  # the PNG's IHDR: its size in pixels
    assert (width, height) == last.size
    inches = last.figure.get_size_inches()
    assert (width, height) == (round(inches[0] * 90), round(inches[1] * 90))  # not cropped
    assert any(LONG[:20] in text for text, _ in last.texts) or name == "curves"
    for text, (x0, y0, x1, y1) in last.texts:
        inside = min(x0, y0) >= -0.5 and x1 <= width + 0.5 and y1 <= height + 0.5
        assert inside, (text, (x0, y0, x1, y1), (width, height))
