"""No RUSSE test pair, in either direction, reaches any training input of the RUSSE
combination (docs/guide/russian.md): the relation graph's edges and negatives (`train graph`)
and the rows each per-track `train combine` fits on. The test pairs are read from the raw CSV
files with the csv module, folded the way every simeval look-up folds a word (lowercase,
ё→е), independently of the code under test."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from simeval.cli import app

TESTS = ("test.csv", "hj-test.csv", "rt-test.csv", "ae-test.csv", "ae2-test.csv")
RELATIONS = ("rt.csv", "ae-train.csv", "ae2-train.csv", "hj-train.csv")
# each per-track combination's training benchmark and the raw file it reads
TRACKS = {
    "russe-rt-train": "rt.csv",
    "russe-ae-train": "ae-train.csv",
    "russe-ae2-train": "ae2-train.csv",
    "russe-hj-train": "hj-train.csv",
}


def _fold(word: str) -> str:
    return word.strip().lower().replace("ё", "е")


def _rows(path: Path) -> list[tuple[str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return [(r["word1"], r["word2"]) for r in csv.DictReader(f)]


def _key(a: str, b: str) -> frozenset[str]:
    return frozenset((_fold(a), _fold(b)))


@pytest.fixture(scope="module")
def test_keys(data_dir: Path) -> set[frozenset[str]]:
    """Every pair of the suite's test files, unordered."""
    keys = {_key(a, b) for name in TESTS for a, b in _rows(data_dir / "russe" / name)}
    assert len(keys) > 14000  # 14,835 rows in test.csv alone, the others inside it
    return keys


class Captured(Exception):
    """Raised by the stand-in trainer once it has the training rows."""


def _combine_rows(monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    """The TrainingPairs `simeval train combine ARGS` would fit on, caught on their way to the
    trainer (so nothing is fitted: the rows are what this test is about)."""
    import simeval.train.combine as combine

    seen: list[Any] = []

    def stand_in(config: Any, data: Any, measures: Any, out: Any, *more: Any) -> Path:
        seen.append(data)
        raise Captured

    monkeypatch.setattr(combine, "train_combination", stand_in)
    result = CliRunner().invoke(app, ["train", "combine", *args, "--features", "length"])
    assert isinstance(result.exception, Captured), result.output
    return seen[0]


@pytest.mark.parametrize("bench", sorted(TRACKS))
def test_combine_rows_hold_no_test_pair(
    bench: str,
    tmp_path: Path,
    data_dir: Path,
    test_keys: set[frozenset[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = str(tmp_path / "m")
    data = _combine_rows(monkeypatch, "--on", bench, "--exclude", "russe", "--out", out)
    leaked = [(a, b) for a, b in zip(data.a, data.b, strict=True) if _key(a, b) in test_keys]
    assert leaked == []
    # nothing else was dropped: the kept rows are the raw file's rows that are not test pairs
    raw = _rows(data_dir / "russe" / TRACKS[bench])
    allowed = sum(_key(a, b) not in test_keys for a, b in raw)
    assert len(data.a) == allowed == data.sources[bench]["pairs"]


def test_without_the_exclusion_the_rows_would_leak(
    tmp_path: Path, test_keys: set[frozenset[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above can fail: the training files do hold test pairs (ae-train 153 of them,
    3 differing from the test's spelling only by ё/е), which only --exclude takes out."""
    out = str(tmp_path / "m")
    data = _combine_rows(monkeypatch, "--on", "russe-ae-train", "--out", out)
    leaked = [(a, b) for a, b in zip(data.a, data.b, strict=True) if _key(a, b) in test_keys]
    assert len(leaked) == 153


def test_graph_edges_and_negatives_hold_no_test_pair(
    tmp_path: Path, data_dir: Path, test_keys: set[frozenset[str]]
) -> None:
    """The graph of the docs' command (`train graph --relations ... --exclude russe`)."""
    out = tmp_path / "ru-graph"
    args = ["train", "graph", "--exclude", "russe", "--out", str(out)]
    for name in RELATIONS:
        args += ["--relations", str(data_dir / "russe" / name)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    for name in ("edges.tsv", "negatives.tsv"):
        with open(out / name, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f, delimiter="\t"))[1:]
        assert len(rows) > 50000
        assert [r for r in rows if _key(r[0], r[1]) in test_keys] == []
