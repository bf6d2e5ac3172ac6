"""Every table at 80 columns (issue 33, stumble 6): no line wider than the terminal, rows of
two long names that differ only at their end still told apart (numbered, with the full names
in a legend under the table), and ``--wide`` printing everything whole.

The results are hand-made: three systems (two with long names that differ only at the end)
submit RG-65's gold as it is, negated, or reversed in order, on two copies of RG-65 at long
paths that differ only at the end (benchmarks named by their paths), and on MC-30."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from simeval.cli import app

runner = CliRunner()
WIDTH = 80
LONG = "a-folder-name-long-enough-to-fill-half-a-terminal/round-2025-11"
SYSTEMS = {  # name -> what it does to the gold scores
    "lab-group/experiments/an-encoder-fine-tuned-on-everything-variant-alpha": 1.0,
    "lab-group/experiments/an-encoder-fine-tuned-on-everything-variant-beta": -1.0,
    "overlap": 0.5,
}


def _pairs(path: Path) -> list[tuple[str, str, float]]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    return [(a, b, float(s)) for a, b, s in rows]


@pytest.fixture(scope="module")
def folder(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    tmp = tmp_path_factory.mktemp("wide")
    rg65 = _pairs(data_dir / "rg65" / "EN-RG-65.txt")
    golds = []
    for variant in ("variant-alpha", "variant-beta"):
        gold = tmp / LONG / variant / "gold.tsv"
        gold.parent.mkdir(parents=True)
        gold.write_text("".join(f"{a}\t{b}\t{s}\n" for a, b, s in rg65))
        golds.append(gold)
    mc30 = _pairs(data_dir / "mc30" / "EN-MC-30.txt")
    results = tmp / "results"
    for k, (name, sign) in enumerate(SYSTEMS.items()):
        for where, pairs in ((golds[0], rg65), (golds[1], rg65), ("mc30", mc30)):
            pred = tmp / f"pred-{k}.tsv"
            pred.write_text(
                "".join(
                    f"{a}\t{b}\t{sign * s if sign != 0.5 else float(i)}\n"
                    for i, (a, b, s) in enumerate(pairs)
                )
            )
            given = ["--gold", str(where)] if isinstance(where, Path) else ["--benchmark", where]
            args = ["score", "pairs", "--pred", str(pred), *given]
            done = runner.invoke(app, [*args, "--results", str(results), "--name", name])
            assert done.exit_code == 0, done.output
    return results, golds


def _shown(*args: str) -> str:
    done = runner.invoke(app, list(args), env={"COLUMNS": str(WIDTH)})
    assert done.exit_code == 0, done.output
    return done.stdout


def _fits(text: str) -> None:
    wide = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not wide, "\n".join(wide)


def _legend(text: str) -> dict[str, str]:
    """``[n] name`` lines under the tables, a long name continued on indented lines."""
    found: dict[str, str] = {}
    label = None
    for line in text.splitlines():
        start = re.match(r"^(\[b?\d+\]) (.*)$", line)
        if start:
            label = start.group(1)
            found[label] = start.group(2)
        elif label and line.startswith("    "):
            found[label] += line[4:]
        else:
            label = None
    return found


def _rows_of(text: str, labels: list[str]) -> list[str]:
    """The table rows (│ … │) whose first cells hold one of ``labels``."""
    return [line for line in text.splitlines() if any(f" {x} " in line for x in labels)]


def test_results_at_80_columns_numbers_long_paths_and_systems(folder) -> None:
    results, golds = folder
    text = _shown("results", str(results))
    _fits(text)
    legend = _legend(text)
    by_name = {name: label for label, name in legend.items()}
    paths = [by_name[str(g)] for g in golds]  # both paths in full in the legend
    assert paths[0] != paths[1]
    rows = [line for line in text.splitlines() if line.startswith("│ [b")]
    assert len({line.split("│")[1].strip() for line in rows}) == 2  # two distinct rows
    for name in SYSTEMS:
        assert name in legend.values() or name in text
    wide = runner.invoke(app, ["results", str(results), "--wide"], env={"COLUMNS": "80"})
    assert all(str(g) in wide.stdout for g in golds) and not _legend(wide.stdout)
    assert all(name in wide.stdout for name in SYSTEMS)


def test_leaderboard_at_80_columns(folder) -> None:
    results, golds = folder
    text = _shown("leaderboard", str(results), "--keep-dominated", "--top", "3")
    _fits(text)
    legend = _legend(text)
    by_name = {name: label for label, name in legend.items()}
    alpha, beta = (by_name[name] for name in list(SYSTEMS)[:2])
    assert _rows_of(text, [alpha]) and _rows_of(text, [beta])  # told apart by number
    assert all(str(g) in legend.values() for g in golds)
    parts = text.split("Overall")[1:]  # the overall table's parts, each from its title
    heads = [next(x for x in p.splitlines() if x.startswith("┃")) for p in parts]
    assert re.search(r"┃\s+sum ┃$", heads[-1])  # the sum last, after its members (issue 47)
    assert all("sum" not in h for h in heads[:-1])
    wide = runner.invoke(app, ["leaderboard", str(results), "--wide"], env={"COLUMNS": "80"})
    first = next(iter(SYSTEMS))
    row = next(line for line in wide.stdout.splitlines() if first in line)
    assert row.startswith("│    1 │") and str(golds[0]) in wide.stdout


def test_compare_at_80_columns_keeps_each_interval_on_one_line(folder) -> None:
    results, golds = folder
    alpha, beta = list(SYSTEMS)[:2]
    text = _shown("compare", alpha, beta, "-b", str(golds[1]), "--results", str(results))
    _fits(text)
    main = next(line for line in text.splitlines() if " * " in line)
    assert re.search(r"-?\d\.\d{4} \[-?\d\.\d{4}, -?\d\.\d{4}\]", main)  # A − B [low, high]
    assert f"A = {alpha}, B = {beta}" in " ".join(text.split())


def test_score_and_catalog_tables_at_80_columns(folder, data_dir: Path, tmp_path: Path) -> None:
    _, golds = folder
    pred = tmp_path / "pred.tsv"
    pred.write_text("".join(f"{a}\t{b}\t{s}\n" for a, b, s in _pairs(golds[1])))
    text = _shown("score", "pairs", "--pred", str(pred), "--gold", str(golds[1]))
    _fits(text)
    assert str(golds[1]) in _legend(text).values()
    for args in (["benchmarks"], ["data", "list"], ["agreement"]):
        _fits(_shown(*args))
    # data info's upstream URL and BibTeX citation are printed whole (cut, they would not
    # paste); its table of files fits
    info = _shown("data", "info", "wordsim353")
    _fits("\n".join(line for line in info.splitlines() if line[:1] in "┏┃┡│└"))
