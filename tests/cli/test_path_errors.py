"""A path the system cannot use (fuzz: cli-options): a file given where a folder goes, a file in
the middle of a path, a folder where a file goes. The message said only the system's words
(``gold.tsv: File exists`` for ``--results gold.tsv``); it now says what is wrong with the path."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.cli import app

GOLD = "word1\tword2\tsim\ncat\tdog\t1\ncar\tcart\t3\nsun\tsum\t2\n"


@pytest.mark.parametrize(
    ("results", "said"),
    [
        ("gold.tsv", "gold.tsv: File exists (a file, where a folder is expected)"),
        ("gold.tsv/x", "Not a directory (a part of the path is a file, not a folder)"),
    ],
)
def test_results_that_is_a_file_says_so(tmp_path: Path, results: str, said: str) -> None:
    (tmp_path / "gold.tsv").write_text(GOLD)
    args = ["score", "pairs", "--gold", str(tmp_path / "gold.tsv"), "--pred"]
    args += [str(tmp_path / "gold.tsv"), "--results", str(tmp_path / results)]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 2, done.output
    assert said in done.output and "Traceback" not in done.output, done.output


def test_a_folder_where_a_vector_file_goes_says_so(tmp_path: Path) -> None:
    (tmp_path / "gold.tsv").write_text(GOLD)
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "vocab.txt").write_text("cat\n")
    spec = f"vectors:path={tmp_path / 'model'},format=word2vec-bin"
    done = CliRunner().invoke(
        app, ["evaluate", spec, "-b", str(tmp_path / "gold.tsv"), "--no-save"]
    )
    assert done.exit_code == 2, done.output
    assert "Is a directory (a folder, where a file is expected)" in done.output, done.output
