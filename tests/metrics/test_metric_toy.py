"""A new metric is one declaration: a toy metric, declared here and nowhere else, reaches a
result, its bootstrap interval, ``compare``, ``leaderboard`` (in its own direction: lower is
better) and the HTML report, and the generated metric docs (issue 29, item 2).

The toy: the mean absolute error between a system's scores and the gold of graded pairs,
declared without a vectorised function, so its intervals come from one call per replicate.
Expected values are computed here with numpy: the metric by hand, the intervals from the
bootstrap's draws made here (numpy's generator, the same seed; graded pairs are drawn one by
one) and their percentiles.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simeval.api import score
from simeval.cli import app
from simeval.metrics import catalog
from simeval.metrics.declared import OTHER, Metric
from simeval.metrics.stats import Resampling
from simeval.report.collect import load_grid
from simeval.report.compare import compare
from simeval.results.store import save_results

GOLD = [9.1, 2.0, 7.5, 4.4, 6.0, 1.2, 8.3, 3.3, 5.0, 0.4, 7.0, 2.5]  # made up
SYSTEMS = {
    "A": [8.0, 2.5, 7.0, 5.0, 6.5, 1.0, 7.9, 3.0, 5.2, 1.1, 6.1, 2.2],  # close to the gold
    "B": [9.9, 0.0, 5.0, 6.0, 3.9, 3.0, 9.5, 1.0, 7.0, 0.0, 9.0, 4.1],  # further off
}
B, SEED = 400, 7


def mae(score: np.ndarray, gold: np.ndarray) -> float:
    return float(np.mean(np.abs(score - gold)))


TOY = Metric(
    "toy_mae",
    ("graded-pairs",),
    lambda c: mae(c["score"], c["gold"]),
    higher_is_better=False,
    description="mean absolute difference of score and gold",
    scorer="none (a test's toy)",
    family=OTHER,
)


@pytest.fixture
def toy() -> Iterator[Metric]:
    """The toy declared for graded pairs while a test runs."""
    catalog.register(TOY)
    try:
        yield TOY
    finally:
        catalog.METRICS.remove(TOY)


@pytest.fixture
def results(toy: Metric, tmp_path: Path) -> Path:
    from simeval.kinds.pairs import pair_file

    gold = tmp_path / "toy.csv"
    gold.write_text("".join(f"w{i},v{i},{g}\n" for i, g in enumerate(GOLD)))
    folder = tmp_path / "res"
    target = pair_file(gold, "graded")
    for name, scores in SYSTEMS.items():
        f = tmp_path / f"{name}.csv"
        f.write_text("".join(f"w{i},v{i},{s}\n" for i, s in enumerate(scores)))
        save_results(folder, score(target, f, system={"name": name}))
    return folder


def drawn_rows() -> list[np.ndarray]:
    rng = np.random.default_rng(SEED)
    return [rng.integers(0, len(GOLD), len(GOLD)) for _ in range(B)]


def interval(values: list[float]) -> tuple[float, float]:
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def expected_interval(name: str) -> tuple[float, float]:
    s, g = np.array(SYSTEMS[name]), np.array(GOLD)
    return interval([mae(s[rows], g[rows]) for rows in drawn_rows()])


def test_a_result_records_it_after_the_kind_s_own(results: Path) -> None:
    grid = load_grid(results)
    for name, scores in SYSTEMS.items():
        (bench,) = grid.benchmarks
        record = grid.get(name, bench).record
        declared = [m.name for m in catalog.of_kind("graded-pairs")]
        assert list(record["metrics"]) == declared and declared[-1] == "toy_mae"
        expected = mae(np.array(scores), np.array(GOLD))
        assert record["metrics"]["toy_mae"] == pytest.approx(expected, abs=1e-12)


def test_compare_gives_its_difference_and_paired_interval(results: Path) -> None:
    grid = load_grid(results)
    (bench,) = grid.benchmarks
    v = compare(grid.get("A", bench), grid.get("B", bench), Resampling(B, SEED))
    c = v.metrics["toy_mae"]
    a, b, g = np.array(SYSTEMS["A"]), np.array(SYSTEMS["B"]), np.array(GOLD)
    assert c.a == pytest.approx(mae(a, g), abs=1e-12)
    assert c.difference == pytest.approx(mae(a, g) - mae(b, g), abs=1e-12)
    diffs = [mae(a[r], g[r]) - mae(b[r], g[r]) for r in drawn_rows()]
    assert (c.interval.low, c.interval.high) == pytest.approx(interval(diffs), abs=1e-12)
    shown = CliRunner().invoke(
        app, ["compare", "A", "B", "-b", bench, "--results", str(results), "-B", str(B)]
    )
    assert shown.exit_code == 0, shown.output
    assert "toy_mae" in shown.output


def test_leaderboard_ranks_it_lower_first(results: Path) -> None:
    got = CliRunner().invoke(
        app, ["leaderboard", str(results), "--metric", "toy_mae", "--top", "2", "-f", "markdown"]
    )
    assert got.exit_code == 0, got.output
    g = np.array(GOLD)
    low, high = (mae(np.array(SYSTEMS[s]), g) for s in ("A", "B"))
    assert low < high
    # the top table: A (the lower error) first and marked best; B second
    assert re.search(rf"\| 1 \| A \| \*\*{low:.4f}\*\* \|", got.output), got.output
    assert re.search(rf"\| 2 \| B \| {high:.4f} \|", got.output), got.output
    assert "Lower is better on" in got.output


def test_the_html_report_shows_it_with_its_interval(results: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    got = CliRunner().invoke(
        app, ["report", str(results), "--html", str(out), "-B", str(B), "--seed", str(SEED)]
    )
    assert got.exit_code == 0, got.output
    page = out.read_text(encoding="utf-8")
    table = page[page.index("metrics with 95% bootstrap intervals") :]
    header = re.findall(r"<th>(.*?)</th>", table[: table.index("</thead>")])
    column = header.index("toy_mae")
    for name in SYSTEMS:
        row = re.search(rf'<tr><td data-sort="{name}">.*?</tr>', table)
        assert row is not None
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(0))
        found = re.search(r"\[(\d+\.\d{4}), (\d+\.\d{4})\]", cells[column])
        assert found is not None, cells[column]
        low, high = expected_interval(name)
        assert float(found.group(1)) == pytest.approx(low, abs=5.1e-5)
        assert float(found.group(2)) == pytest.approx(high, abs=5.1e-5)


def test_the_generated_docs_list_it(toy: Metric) -> None:
    row = next(line for line in catalog.markdown_table().splitlines() if "`toy_mae`" in line)
    assert "`graded-pairs`" in row and "lower" in row and "per replicate" in row
