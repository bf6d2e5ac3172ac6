"""The overall leaderboard when a system has no result on one of its benchmarks: the cell
shows "—", the system is ranked after every system that has them all, and the rule is
printed under the table (issue 33, small misses)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

from simeval.cli import app

runner = CliRunner()


def _gold(path: Path) -> list[tuple[str, str, float]]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    return [(w1, w2, float(sim)) for w1, w2, sim in rows]


def _submit(folder: Path, tmp: Path, name: str, bench: str, sign: float, data_dir: Path) -> float:
    """Score ``sign`` × the gold of ``bench`` as system ``name``; its Spearman by scipy."""
    gold = _gold(data_dir / bench / {"mc30": "EN-MC-30.txt", "rg65": "EN-RG-65.txt"}[bench])
    pred = tmp / f"{name}-{bench}.tsv"
    lines = ["word1\tword2\tsim", *(f"{a}\t{b}\t{sign * s}" for a, b, s in gold)]
    pred.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["score", "pairs", "--pred", str(pred), "--benchmark", bench]
    done = runner.invoke(app, [*args, "--results", str(folder), "--name", name])
    assert done.exit_code == 0, done.output
    values = [s for *_, s in gold]
    return float(spearmanr(values, [sign * v for v in values]).statistic)


@pytest.fixture(scope="module")
def folder(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """complete: +gold on mc30, −gold on rg65 (sum 0); negated: −gold on both (sum −2);
    partial: +gold on mc30 only (1.0, more than either complete sum)."""
    tmp = tmp_path_factory.mktemp("missing")
    folder = tmp / "results"
    sums = {
        "complete": _submit(folder, tmp, "complete", "mc30", 1, data_dir)
        + _submit(folder, tmp, "complete", "rg65", -1, data_dir),
        "negated": _submit(folder, tmp, "negated", "mc30", -1, data_dir)
        + _submit(folder, tmp, "negated", "rg65", -1, data_dir),
        "partial": _submit(folder, tmp, "partial", "mc30", 1, data_dir),
    }
    return folder, sums


def test_a_system_missing_a_target_ranks_after_every_complete_one(folder) -> None:
    path, sums = folder
    assert sums["partial"] > sums["complete"] > sums["negated"]  # by the old rule, partial won
    done = runner.invoke(app, ["leaderboard", str(path), "-f", "csv"])
    assert done.exit_code == 0, done.output
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert rows[0] == ["rank", "system", "mc30", "rg65", "sum"]
    assert [r[:2] for r in rows[1:]] == [["1", "complete"], ["2", "negated"], ["3", "partial"]]
    assert rows[3][3] == ""  # no rg65 result: an empty cell
    assert float(rows[1][-1]) == pytest.approx(sums["complete"], abs=1e-6)
    assert float(rows[3][-1]) == pytest.approx(sums["partial"], abs=1e-6)


def test_the_missing_cell_and_the_rule_are_shown(folder) -> None:
    path, _ = folder
    done = runner.invoke(app, ["leaderboard", str(path), "-f", "markdown"])
    assert done.exit_code == 0, done.output
    partial = next(line for line in done.stdout.splitlines() if "| partial |" in line)
    cells = [c.strip() for c in partial.strip("|").split("|")]
    assert cells[:2] == ["3", "partial"] and cells[3] == "—"
    assert cells[4] == "1.0000"  # its larger sum is not marked best (no **)
    note = "a system missing any benchmark of the sum is ranked after every system that has"
    assert note in " ".join(done.stdout.split())
