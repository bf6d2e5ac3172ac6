"""A refusal or warning that says how to change a policy names the option of the door the user
came in by: ``--missing skip|error`` on the command line (``score pairs`` and ``evaluate``
alike), ``missing="skip"|"error"`` from Python; before, ``evaluate`` named a policy it had no
option for, and a Python user was told to ``use --missing``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import simeval
from simeval.cli import app
from simeval.errors import InputError

GOLD = [("cat", "dog", 7.5), ("cat", "car", 1.0), ("dog", "yak", 4.0), ("zebra", "cat", 2.0)]
VECTORS = ["3 3", "cat 1 0 0", "dog 0.6 0.8 0", "car 0 0 1"]  # yak and zebra are unknown


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "gold.tsv").write_text("".join(f"{a}\t{b}\t{s}\n" for a, b, s in GOLD))
    (tmp_path / "part.tsv").write_text("cat\tdog\t0.9\ncat\tcar\t0.1\n")  # two of four
    (tmp_path / "vectors.txt").write_text("\n".join(VECTORS) + "\n")
    return tmp_path


def test_python_refusal_of_missing_pairs_names_the_argument(files: Path) -> None:
    target = simeval.benchmark_from_pairs(GOLD)
    with pytest.raises(InputError) as refused:
        simeval.score(target, {("cat", "dog"): 0.9, ("cat", "car"): None}, missing="error")
    assert 'use missing="zero"|"skip" to score anyway' in str(refused.value)
    assert "--missing" not in str(refused.value)


def test_command_line_refusal_of_missing_pairs_names_the_flag(files: Path) -> None:
    args = ["score", "pairs", "--gold", str(files / "gold.tsv"), "--pred", str(files / "part.tsv")]
    done = CliRunner().invoke(app, [*args, "--missing", "error"])  # zero is the default
    assert done.exit_code == 2 and "use --missing zero|skip to score anyway" in done.stderr


def test_python_warning_of_zeroed_pairs_names_the_argument(files: Path) -> None:
    (result,) = simeval.evaluate(f"vectors:path={files / 'vectors.txt'}", str(files / "gold.tsv"))
    said = [w for w in result.warnings if "gold pairs have no score" in w]
    assert said and 'missing="skip"|"error" to change it' in said[0], result.warnings
    assert not any("--missing" in w for w in result.warnings)


def test_evaluate_names_its_own_missing_flag_and_takes_it(files: Path) -> None:
    base = ["evaluate", f"vectors:path={files / 'vectors.txt'}", "-b", str(files / "gold.tsv")]
    done = CliRunner().invoke(app, [*base, "--no-save"])
    assert done.exit_code == 0, done.output
    assert "scored 0 (missing: zero; --missing skip|error to change it)" in " ".join(
        done.stderr.split()
    )  # warnings wrap to the terminal
    skipped = CliRunner().invoke(app, [*base, "--no-save", "--missing", "skip", "--json"])
    assert skipped.exit_code == 0, skipped.output
    assert '"missing": "skip"' in skipped.stdout and "skipped" in skipped.stderr
