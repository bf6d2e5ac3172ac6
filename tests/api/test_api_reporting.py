"""`simeval.api.reporting` without the command line, on a results folder made here from two
hand-written submissions: the leaderboard's numbers are scipy's, the comparison names both
systems, the report page is written; rater agreement is recomputed with scipy."""

from __future__ import annotations

import csv
import io
import itertools
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from simeval.api import (
    compare_systems,
    keep_results,
    leaderboard,
    pair_target,
    rater_agreement,
    score,
    write_report,
)
from simeval.errors import InputError

GOLD = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
SYSTEMS = {"good": [1, 2, 3, 5, 4, 6, 8, 7], "poor": [3, 1, 2, 8, 5, 4, 6, 7]}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    gold = tmp_path / "gold.csv"
    gold.write_text(
        "word1,word2,sim\n" + "".join(f"a{i},b{i},{g}\n" for i, g in enumerate(GOLD)),
        encoding="utf-8",
    )
    for name, scores in SYSTEMS.items():
        pred = tmp_path / f"{name}.csv"
        pred.write_text(
            "word1,word2,sim\n" + "".join(f"a{i},b{i},{s}\n" for i, s in enumerate(scores)),
            encoding="utf-8",
        )
        keep_results(score(pair_target(gold), pred), tmp_path / "results", name)
    return tmp_path / "results"


def _board(folder: Path, **how: object) -> list[list[str]]:
    return list(csv.reader(io.StringIO(leaderboard(folder, "csv", **how))))


def test_leaderboard_ranks_by_scipys_spearman(folder):
    expected = {n: spearmanr(GOLD, s)[0] for n, s in SYSTEMS.items()}
    header, *rows = _board(folder)
    assert header[:2] == ["rank", "system"]
    assert [r[1] for r in rows] == ["good"]  # poor is beaten on every benchmark: dropped
    assert float(rows[0][2]) == pytest.approx(expected["good"], abs=1e-6)
    header, *rows = _board(folder, keep_dominated=True)
    assert [r[1] for r in rows] == ["good", "poor"]
    assert float(rows[1][2]) == pytest.approx(expected["poor"], abs=1e-6)
    with pytest.raises(InputError, match="no results for nowhere"):
        leaderboard(folder, benchmarks=["nowhere"])


def test_compare_systems_resolves_names_and_counts_items(folder):
    benchmark = _board(folder)[0][2]
    sa, sb, v = compare_systems(folder, "goo", "poo", benchmark, replicates=200)
    assert (sa, sb, v.n) == ("good", "poor", len(GOLD))
    assert v.main.difference == pytest.approx(
        spearmanr(GOLD, SYSTEMS["good"])[0] - spearmanr(GOLD, SYSTEMS["poor"])[0]
    )


def test_write_report_writes_the_page(folder, tmp_path):
    report = write_report(folder, tmp_path / "out" / "r.html", replicates=50, jobs=1)
    page = report.path.read_text(encoding="utf-8")
    assert (report.systems, report.benchmarks) == (2, 1)
    assert report.size == len(page) and "good" in page and "poor" in page
    with pytest.raises(InputError, match="--by POS: no item column"):
        write_report(folder, tmp_path / "r2.html", by=["POS"], jobs=1)
    with pytest.raises(InputError, match="is a folder"):
        write_report(folder, tmp_path, jobs=1)


def test_rater_agreement_is_the_mean_pairwise_spearman(data_dir):
    rows = rater_agreement()
    lines = (data_dir / "wordsim353" / "set1.tab").read_text(encoding="utf-8").splitlines()[1:]
    table = np.array([[float(x) for x in line.rstrip("\t").split("\t")[3:]] for line in lines])
    pairs = itertools.combinations(range(table.shape[1]), 2)
    expected = np.mean([spearmanr(table[:, i], table[:, j])[0] for i, j in pairs])
    first = rows[0]
    assert (first.items, first.raters) == table.shape
    assert first.pairwise == pytest.approx(expected, abs=1e-9)
