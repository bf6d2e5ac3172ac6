"""Two systems under one name are refused where they would become one row (issue 47, item 5):
before, two unnamed ``simeval.score`` results made a one-row leaderboard without a word.
``score(name=)`` names a result; a folder's re-run of one system still replaces its earlier
record."""

from __future__ import annotations

from pathlib import Path

import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

import simeval
from simeval.cli import app
from simeval.errors import InputError

GOLD = [("car", "automobile", 3.92), ("gem", "jewel", 3.84), ("coast", "shore", 3.70),
        ("noon", "string", 0.08), ("rooster", "voyage", 0.04)]  # fmt: skip
FIRST, SECOND = [0.9, 0.8, 0.7, 0.2, 0.1], [0.1, 0.8, 0.3, 0.9, 0.2]


@pytest.fixture
def gold() -> simeval.Benchmark:
    return simeval.Benchmark.from_pairs(GOLD, name="five")


def test_two_unnamed_results_are_refused_by_the_leaderboard(gold) -> None:
    both = [*simeval.score(gold, FIRST), *simeval.score(gold, SECOND)]
    with pytest.raises(InputError, match=r"both named 'unnamed'.*name=\"A\"") as refused:
        simeval.leaderboard(both, "csv")
    assert "five" in str(refused.value) and "--name" not in str(refused.value)


def test_named_results_are_two_rows_with_their_own_scores(gold) -> None:
    both = [*simeval.score(gold, FIRST, name="first"), *simeval.score(gold, SECOND, name="second")]
    board = simeval.leaderboard(both, "csv", keep_dominated=True)
    rows = [line.split(",") for line in board.splitlines()[1:]]
    truth = [g for *_, g in GOLD]
    expected = {"first": spearmanr(truth, FIRST)[0], "second": spearmanr(truth, SECOND)[0]}
    assert {row[1]: float(row[2]) for row in rows} == pytest.approx(expected, abs=1e-6)


def test_compare_refuses_two_sides_of_one_name(gold) -> None:
    with pytest.raises(InputError, match="A and B are both named 'unnamed'"):
        simeval.compare(simeval.score(gold, FIRST), simeval.score(gold, SECOND), replicates=50)
    twice = [*simeval.score(gold, FIRST, name="x"), *simeval.score(gold, SECOND, name="x")]
    with pytest.raises(InputError, match="compare: a: two results on five are both named 'x'"):
        simeval.compare(twice, simeval.score(gold, SECOND, name="y"), replicates=50)


def test_a_name_must_be_text(gold) -> None:
    with pytest.raises(InputError, match="name: expected the system's name"):
        simeval.score(gold, FIRST, name="")


def test_the_command_line_refuses_a_folder_of_two_unnamed_systems(gold, tmp_path: Path) -> None:
    for predictions in (FIRST, SECOND):
        simeval.api.keep_results(simeval.score(gold, predictions), tmp_path)
    done = CliRunner().invoke(app, ["leaderboard", str(tmp_path)])
    assert done.exit_code == 2, done.output
    assert "both named 'unnamed'" in done.stderr and "--name A" in done.stderr


def test_the_command_line_compare_refuses_one_system_as_a_and_b(tmp_path: Path) -> None:
    simeval.evaluate("orthographic:kind=prefix", "mc30", results_dir=tmp_path)
    simeval.evaluate("random:seed=1", "mc30", results_dir=tmp_path)
    done = CliRunner().invoke(app, ["compare", "prefix", "prefix", "-b", "mc30", "--results",
                                    str(tmp_path), "-B", "50"])  # fmt: skip
    assert done.exit_code == 2 and "are the same system" in done.stderr


def test_a_rerun_in_a_folder_still_replaces_its_record(tmp_path: Path) -> None:
    for _ in range(2):
        simeval.evaluate("orthographic:kind=prefix", "mc30", results_dir=tmp_path)
    simeval.evaluate("random:seed=1", "mc30", results_dir=tmp_path)
    rows = simeval.leaderboard(tmp_path, "csv", keep_dominated=True).splitlines()[1:]
    assert sorted(r.split(",")[1] for r in rows) == ["orthographic:kind=prefix", "random:seed=1"]
