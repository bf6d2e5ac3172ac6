"""`simeval score` marks a result whose scores carry no information with † by the rule every
report uses (constant, or at least 99% of the items tied at one score), not only when every
score is equal; the note under the table says what † means (issue 33's leftover: the mark
meant "constant" here and "99% tied" in the reports)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from simeval.cli import app


def simlex_pairs(data_dir: Path) -> list[tuple[str, str]]:
    lines = (data_dir / "simlex999" / "SimLex-999.txt").read_text().splitlines()[1:]
    return [tuple(line.split("\t")[:2]) for line in lines]  # type: ignore[misc]


def score(tmp_path: Path, data_dir: Path, distinct: int) -> str:
    """Score simlex999 with every pair 0 except the first ``distinct`` (1, 2, 3, ...)."""
    pairs = simlex_pairs(data_dir)
    assert len(pairs) == 999
    rows = [f"{a}\t{b}\t{i + 1 if i < distinct else 0}" for i, (a, b) in enumerate(pairs)]
    path = tmp_path / f"sub{distinct}.tsv"
    path.write_text("\n".join(rows) + "\n")
    done = CliRunner().invoke(app, ["score", "file", "simlex999", str(path), "--wide"])
    assert done.exit_code == 0, done.output
    return done.stdout


def test_ninety_nine_percent_tied_is_marked(tmp_path, data_dir) -> None:
    shown = score(tmp_path, data_dir, distinct=5)  # 994 of 999 tied at 0: 99.5%
    row = next(x for x in shown.splitlines() if x.lstrip().startswith("simlex999"))
    assert "†" in row
    assert "at least 99% of the items tied" in shown


def test_informative_scores_are_not_marked(tmp_path, data_dir) -> None:
    shown = score(tmp_path, data_dir, distinct=20)  # 979 of 999 tied: 98.0%, informative
    assert "†" not in shown
