"""``simeval results`` and the leaderboard on a terminal (issue 47, stumble 1): a score on
fewer items than the gold is marked † with its coverage under the table; a system's name is
shown whole when the table fits (one system is not ``[1]``); each table's legend comes under
that table; a split leaderboard keeps its sum after its members, in the last part."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.api import evaluate, keep_results

runner = CliRunner()
# 12 of MC-30's words; the pairs with both of them are counted from the gold file in the test
WORDS = ["car", "automobile", "gem", "jewel", "journey", "voyage"]
WORDS += ["boy", "lad", "coast", "shore", "asylum", "madhouse"]


def _shown(*args: str, width: int = 80) -> str:
    from simeval.cli import app

    done = runner.invoke(app, list(args), env={"COLUMNS": str(width)})
    assert done.exit_code == 0, done.output
    return done.stdout


@pytest.fixture
def partial(tmp_path: Path) -> tuple[Path, str]:
    """A folder: an oov=skip vectors system that scores 9 of MC-30's 30 pairs, and overlap,
    which scores them all."""
    vectors = tmp_path / "v.txt"
    vectors.write_text("".join(f"{w} {i % 3 + 1}.0 {i % 5 + 1}.0\n" for i, w in enumerate(WORDS)))
    spec = f"vectors:path={vectors},oov=skip"
    folder = tmp_path / "results"
    evaluate(spec, "mc30", results_dir=folder)
    evaluate("overlap", "mc30", results_dir=folder)
    return folder, spec


def test_a_score_on_fewer_items_than_the_gold_is_marked_with_its_coverage(
    partial, data_dir: Path
) -> None:
    folder, spec = partial
    gold = [
        line.split("\t")
        for line in (data_dir / "mc30" / "EN-MC-30.txt").read_text().split("\n")
        if line
    ]
    both = sum(a in WORDS and b in WORDS for a, b, _ in gold)
    assert 0 < both < len(gold) == 30
    text = _shown("results", str(folder), "--wide")
    (row,) = [line for line in text.splitlines() if "mc30" in line and "│" in line]
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells[2].endswith(" †") and not cells[3].endswith("†"), cells
    notes = " ".join(text.split("└")[-1].split())
    assert f"† mc30, {spec}: {both}/30 scored" in notes
    assert "overlap: 30/30" not in notes  # only marked cells have a line


def test_one_system_is_named_not_numbered_when_it_fits() -> None:
    folder = Path(pytest.importorskip("tempfile").mkdtemp())
    evaluate("orthographic:kind=prefix", "mc30", results_dir=folder)
    for width in (80, 200):
        text = _shown("results", str(folder), width=width)
        assert "orthographic:kind=prefix" in text.splitlines()[2], text  # the header row
        assert "[1]" not in text


def test_each_tables_legend_comes_under_that_table(tmp_path: Path) -> None:
    """Eight systems with long names at 80 columns: two tables; every [n] printed in a table
    is explained before the next table begins."""
    folder = tmp_path / "results"
    for k in range(8):
        found = evaluate(f"random:seed={k + 1}", "mc30", "rg65")
        keep_results(found, folder, f"a-system-with-a-rather-long-name-number-{k + 1}")
    text = _shown("results", str(folder))
    parts = re.split(r"^.*\(\d/\d\)$", text, flags=re.M)[1:]
    assert len(parts) >= 2, text
    for part in parts:
        table, _, after = part.rpartition("┘")
        used = set(re.findall(r"\[\d+\]", table))
        explained = set(re.findall(r"^(\[\d+\]) a-system", after, re.M))
        assert used and used == explained, part


def test_a_split_leaderboards_sum_comes_last_after_its_members(tmp_path: Path) -> None:
    folder = tmp_path / "results"
    for spec in ("random:seed=1", "orthographic:kind=prefix"):
        evaluate(spec, "russe", "words", results_dir=folder)
    text = _shown("leaderboard", str(folder))
    heads = [line for line in text.splitlines() if line.startswith("┃")]
    assert len(heads) >= 2  # split
    assert all("sum" not in h for h in heads[:-1])
    assert re.search(r"┃\s+sum ┃$", heads[-1]), heads[-1]
