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


def test_an_out_ending_with_a_slash_is_a_folder(tmp_path: Path) -> None:
    """``--out dir/`` for a one-file benchmark wrote a file named ``dir``: the command line
    dropped the slash that says a folder before the check for it."""
    (tmp_path / "gold.tsv").write_text(GOLD)
    args = ["predict", "jaccard", "-s", str(tmp_path / "gold.tsv"), "--out", f"{tmp_path}/dir/"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2, done.output
    assert "is one file: --out names that file, not a folder" in done.output, done.output
    assert not (tmp_path / "dir").exists()
