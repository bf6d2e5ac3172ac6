"""An unknown name is refused with the names meant (issue 47, item 4), through the one helper
``-b animal`` already used (:func:`simeval.errors.did_you_mean`): a registry table's key
(``colum`` for ``column``), a suite's member (``mc-30`` for ``mc30``), a suite member given
predictions in memory, as ``-b`` and ``simeval data info`` already were."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import simeval
from simeval.cli import app
from simeval.errors import InputError
from simeval.registry import Registry

GOLD = "cat\tdog\t7.5\ncat\tcar\t1.0\ndog\tyak\t4.0\n"


def _registry(tmp_path: Path, text: str) -> Path:
    (tmp_path / "pairs.tsv").write_text(GOLD)
    path = tmp_path / "lab.toml"
    path.write_text(text)
    return path


def test_a_misspelt_benchmark_key_names_the_key_meant(tmp_path: Path) -> None:
    path = _registry(tmp_path, '[benchmark.lab]\ngold = "pairs.tsv"\ncolum = "mean"\n')
    with pytest.raises(InputError, match=r"unknown key\(s\) \['colum'\]; did you mean column\?"):
        Registry.default([path])


def test_a_misspelt_suite_key_names_the_key_meant(tmp_path: Path) -> None:
    text = '[benchmark.lab]\ngold = "pairs.tsv"\n[suite.both]\nmembers = ["lab"]\n'
    text += 'agregate = "mean"\n'
    with pytest.raises(InputError, match=r"\['agregate'\]; did you mean aggregate\?"):
        Registry.default([_registry(tmp_path, text)])


def test_a_misspelt_suite_member_names_the_benchmark_meant(tmp_path: Path) -> None:
    text = '[benchmark.lab]\ngold = "pairs.tsv"\n[suite.both]\nmembers = ["lab", "mc-30"]\n'
    with pytest.raises(InputError, match=r"member 'mc-30' is unknown; did you mean mc30\?"):
        Registry.default([_registry(tmp_path, text)])


def test_the_command_line_says_it_too(tmp_path: Path) -> None:
    path = _registry(tmp_path, '[benchmark.lab]\ngold = "pairs.tsv"\ncolum = "mean"\n')
    done = CliRunner().invoke(app, ["benchmarks", "--registry", str(path)])
    assert done.exit_code == 2 and "did you mean column?" in done.stderr


def test_predictions_for_a_misspelt_member_name_the_member_meant(tmp_path: Path) -> None:
    text = (
        '[benchmark.hj]\ngold = "pairs.tsv"\n[benchmark.rt]\ngold = "pairs.tsv"\n'
        '[suite.both]\nmembers = ["hj", "rt"]\naggregate = "mean"\n'
    )
    path = _registry(tmp_path, text)
    predictions = {"h-j": [0.1, 0.2, 0.3], "rt": [0.1, 0.2, 0.3]}
    with pytest.raises(InputError, match=r"no member named 'h-j'; did you mean hj\? \(members"):
        simeval.score("both", predictions, registry=path)
