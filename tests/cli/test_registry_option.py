"""`--registry` on every command that takes benchmark names (issue 33, stumble 5): a user's
registry file declares a benchmark of their own (RG-65's pairs with a `band` column and a
view over it) and a group `lab` of it and MC-30. `results`, `leaderboard`, `compare` and
`report` find them with `--registry`; without it a name only the registry knows is refused,
naming it and asking for the file."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.cli import app

runner = CliRunner()

REGISTRY = """
[benchmark.lab-rg]
kind = "graded"
gold = "lab.tsv"
views = [{ name = "band", how = "column", columns = ["band"] }]

[benchmark.lab-unused]
kind = "graded"
gold = "lab.tsv"

[suite.lab]
members = ["lab-rg", "mc30"]
aggregate = "none"
"""


def _pairs(path: Path) -> list[tuple[str, str, float]]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    return [(a, b, float(s)) for a, b, s, *_ in rows]


@pytest.fixture(scope="module")
def lab(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The registry file and a results folder: `up` submits each gold as it is (Spearman 1),
    `down` negated (Spearman −1), on lab-rg and mc30."""
    tmp = tmp_path_factory.mktemp("lab")
    rg65 = _pairs(data_dir / "rg65" / "EN-RG-65.txt")
    lines = [f"{a}\t{b}\t{s}\t{'close' if s >= 2 else 'far'}" for a, b, s in rg65]
    (tmp / "lab.tsv").write_text("word1\tword2\tsim\tband\n" + "\n".join(lines) + "\n")
    registry = tmp / "lab.toml"
    registry.write_text(REGISTRY, encoding="utf-8")
    gold = {"lab-rg": rg65, "mc30": _pairs(data_dir / "mc30" / "EN-MC-30.txt")}
    results = tmp / "results"
    for name, sign in (("up", 1), ("down", -1)):
        for bench, pairs in gold.items():
            pred = tmp / f"{name}-{bench}.tsv"
            pred.write_text("".join(f"{a}\t{b}\t{sign * s}\n" for a, b, s in pairs))
            args = ["score", "pairs", "--pred", str(pred), "--benchmark", bench]
            args += ["--registry", str(registry), "--results", str(results), "--name", name]
            done = runner.invoke(app, args)
            assert done.exit_code == 0, done.output
    return registry, results


def _refused(args: list[str]) -> str:
    done = runner.invoke(app, args)
    assert done.exit_code == 2, done.output
    return " ".join(done.output.split())


UNKNOWN = "no results for lab in"


def test_results_finds_a_registry_group(lab) -> None:
    registry, results = lab
    args = ["results", str(results), "-b", "lab"]
    done = runner.invoke(app, [*args, "--registry", str(registry)])
    assert done.exit_code == 0, done.output
    rows = {
        cells[0]: cells[1:]
        for line in done.stdout.splitlines()
        if len(cells := [c.strip() for c in line.strip("│ ").split("│")]) == 4
    }
    # Spearman of the gold with itself is 1, with its negation −1 (ties included)
    assert rows["lab-rg"] == ["spearman", "1.0000", "-1.0000"]
    assert rows["mc30"] == ["spearman", "1.0000", "-1.0000"]
    refused = _refused(args)
    assert UNKNOWN in refused and "neither the catalog nor a --registry file" in refused


def test_leaderboard_columns_of_a_registry_group(lab) -> None:
    registry, results = lab
    args = ["leaderboard", str(results), "-b", "lab", "-f", "csv", "--keep-dominated"]
    done = runner.invoke(app, [*args, "--registry", str(registry)])
    assert done.exit_code == 0, done.output
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert rows == [
        ["rank", "system", "lab-rg", "mc30", "sum"],
        ["1", "up", "1", "1", "2"],
        ["2", "down", "-1", "-1", "-2"],
    ]
    assert UNKNOWN in _refused(args)


def test_compare_on_each_member_of_a_registry_group(lab) -> None:
    registry, results = lab
    args = ["compare", "up", "down", "-b", "lab", "--results", str(results), "-B", "50"]
    done = runner.invoke(app, [*args, "--registry", str(registry)])
    assert done.exit_code == 0, done.output
    assert "lab-rg: A = up, B = down, 65 items" in done.stdout
    assert "mc30: A = up, B = down, 30 items" in done.stdout
    assert done.stdout.count("verdict: ") == 2  # one a member
    assert UNKNOWN in _refused(args)


def test_report_shows_the_views_of_a_registry_benchmark(lab, tmp_path: Path) -> None:
    registry, results = lab
    page = tmp_path / "report.html"
    args = ["report", str(results), "--html", str(page), "-B", "50", "-j", "1"]
    done = runner.invoke(app, [*args, "--registry", str(registry)])
    assert done.exit_code == 0, done.output
    text = page.read_text(encoding="utf-8")
    assert "band" in text and ">close<" in text and ">far<" in text
    done = runner.invoke(app, args)  # the records alone do not declare the view
    assert done.exit_code == 0, done.output
    assert ">close<" not in page.read_text(encoding="utf-8")


def test_a_registry_name_without_results_and_an_unknown_name(lab) -> None:
    registry, results = lab
    for command in (["results", str(results)], ["leaderboard", str(results)]):
        given = [*command, "--registry", str(registry), "-b"]
        assert f"no results for lab-unused in {results}" in _refused([*given, "lab-unused"])
        typo = _refused([*given, "lab-typo"])
        assert "no results for lab-typo in" in typo and "--registry FILE" in typo


def test_train_takes_registry_names_for_on_and_evaluate(lab, tmp_path: Path) -> None:
    registry, _ = lab
    args = ["train", "combine", "--on", "lab-rg", "--measure", "orthographic:kind=prefix"]
    args += ["--features", "length", "--evaluate", "lab", "--results", str(tmp_path / "res")]
    done = runner.invoke(app, [*args, "--out", str(tmp_path / "m1"), "--registry", str(registry)])
    assert done.exit_code == 0, done.output
    shown = [line.split()[0] for line in done.stdout.splitlines() if "/65" in line or "/30" in line]
    assert shown == ["lab-rg", "mc30"]  # the group's two members, evaluated
    refused = _refused([*args, "--out", str(tmp_path / "m2")])
    assert "unknown benchmark or suite 'lab-rg'" in refused


def test_data_info_names_a_registry_benchmark_s_file(lab) -> None:
    registry, _ = lab
    done = runner.invoke(app, ["data", "info", "lab-rg", "--registry", str(registry)])
    assert done.exit_code == 0, done.output
    shown = " ".join(done.stdout.split())
    assert f"lab-rg (declared in {registry}): reads {registry.parent / 'lab.tsv'}" in shown
    assert "unknown data set or benchmark 'lab-rg'" in _refused(["data", "info", "lab-rg"])
