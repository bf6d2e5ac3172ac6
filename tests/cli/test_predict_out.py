"""``predict --out`` naming a file the benchmark reads (fuzz: cli-options): the gold file was
overwritten with the predictions, and lost. It is refused, the gold left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.cli import app

GOLD = "word1\tword2\tsim\ncat\tdog\t1\ncar\tcart\t3\nsun\tsum\t2\n"


@pytest.mark.parametrize(
    ("target", "out"),
    [("gold.tsv", "gold.tsv"), ("gold.tsv", "x/../gold.tsv"), ("s", "sub")],
    ids=["the-gold-itself", "the-gold-by-another-path", "a-suite-member-gold"],
)
def test_predict_never_writes_over_its_gold(tmp_path: Path, target: str, out: str) -> None:
    """The suite ``s`` writes ``sub/lab.csv``, which is its member ``lab``'s gold file."""
    (tmp_path / "sub").mkdir()
    for f in ("gold.tsv", "sub/lab.csv"):
        (tmp_path / f).write_text(GOLD)
    registry = tmp_path / "lab.toml"
    registry.write_text(
        "[benchmark.lab]\ngold = 'sub/lab.csv'\n[benchmark.other]\ngold = 'gold.tsv'\n"
        "[suite.s]\nmembers = ['lab', 'other']\n"
    )
    name = str(tmp_path / target) if target.endswith(".tsv") else target
    args = ["predict", "jaccard", "-s", name, "--registry", str(registry)]
    done = CliRunner().invoke(app, [*args, "--out", str(tmp_path / out)])
    assert done.exit_code == 2, done.output
    assert "--out would overwrite a file" in done.output, done.output
    assert (tmp_path / "gold.tsv").read_text() == GOLD
    assert (tmp_path / "sub" / "lab.csv").read_text() == GOLD
