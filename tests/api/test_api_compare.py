"""Comparing and ranking results held in memory (issue 31, item 3): the numbers are scipy's
Spearman differences, the verdict agrees with the folder-based ``compare_systems`` on the same
records, and the report renders as a DataFrame, Markdown, LaTeX and CSV."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

import simeval
from simeval.errors import InputError
from simeval.metrics import catalog


def _letters(a: str, b: str) -> float:
    return len(set(a) & set(b)) / len(set(a) | set(b))


def _length(a: str, b: str) -> float:
    return -abs(len(a) - len(b))


@pytest.fixture(scope="module")
def two(tmp_path_factory):  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("res")
    a = simeval.evaluate(_letters, "rg65", "mc30", name="letters", results_dir=folder)
    b = simeval.evaluate(_length, "rg65", "mc30", name="length", results_dir=folder)
    return a, b, folder


def test_differences_are_scipy_spearman_differences(two) -> None:  # type: ignore[no-untyped-def]
    a, b, _ = two
    report = simeval.compare(a, b, replicates=300)
    assert [v.benchmark for v in report.verdicts] == ["rg65", "mc30"]
    for v in report.verdicts:
        target = simeval.load_target(v.benchmark)
        pairs, gold = target.gold.pairs, target.gold.scores
        ra = spearmanr(gold, [_letters(*p) for p in pairs])[0]
        rb = spearmanr(gold, [_length(*p) for p in pairs])[0]
        assert v.main.metric == "spearman" and v.main.test == "Williams"
        assert v.main.difference == pytest.approx(ra - rb, abs=1e-12)
        assert v.main.interval.low <= v.main.difference <= v.main.interval.high
        assert v.n == len(pairs)


def test_same_verdict_as_the_results_folder(two) -> None:  # type: ignore[no-untyped-def]
    a, b, folder = two
    memory = simeval.compare(a, b, replicates=300, seed=4)
    for v in memory.verdicts:
        _, _, on_disk = simeval.compare_systems(folder, "letters", "length", v.benchmark, 300, 4)
        assert v.main.p_value == pytest.approx(on_disk.main.p_value, abs=1e-12)
        for name, c in v.metrics.items():
            other = on_disk.metrics[name]
            assert (c.interval.low, c.interval.high) == pytest.approx(
                (other.interval.low, other.interval.high), abs=1e-12
            )


def test_report_renders_every_row(two) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("pandas")
    a, b, _ = two
    report = simeval.compare(a, b, replicates=200)
    frame = report.to_frame()
    per_benchmark = len(catalog.of_kind("graded-pairs"))  # mc30 and rg65: every declared metric
    assert len(frame) == sum(len(v.metrics) for v in report.verdicts) == 2 * per_benchmark
    assert frame[frame["main"]]["metric"].tolist() == ["spearman", "spearman"]
    assert np.allclose(frame["A - B"], frame["A"] - frame["B"])
    markdown, latex, csv = report.to_markdown(), report.to_latex(), report.to_csv()
    assert markdown.count("\n| rg65 |") == per_benchmark and "verdict:" in markdown
    assert r"\begin{tabular}" in latex and latex.count(r"\\") >= 5
    assert csv.splitlines()[0].startswith("benchmark,metric,A,B")


def test_leaderboard_of_results_in_memory_equals_the_folders(two) -> None:  # type: ignore[no-untyped-def]
    a, b, folder = two
    for fmt in ("markdown", "csv"):
        assert simeval.leaderboard([*a, *b], fmt) == simeval.leaderboard(folder, fmt)


def test_nothing_in_common_is_refused(two) -> None:  # type: ignore[no-untyped-def]
    a, b, _ = two
    with pytest.raises(InputError, match="no benchmark in common"):
        simeval.compare(a[:1], b[1:])
