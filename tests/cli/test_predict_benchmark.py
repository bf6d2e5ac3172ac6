"""``predict -b``: the benchmark option `evaluate` and `score` take, a catalog name or the
user's own pair file, was refused (`No such option: -b`; issue 33, stumble 9)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from simeval.cli import app

VECTORS = {  # a hand-made word2vec text file
    "cat": [1.0, 2.0, 0.0],
    "dog": [2.0, 1.0, 1.0],
    "car": [0.0, 1.0, 3.0],
    "sun": [1.0, -1.0, 2.0],
}
PAIRS = [("cat", "dog", 8.5), ("cat", "car", 1.0), ("dog", "sun", 3.0), ("car", "sun", 4.5)]


def _cosine(a: str, b: str) -> float:
    x, y = np.array(VECTORS[a]), np.array(VECTORS[b])
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


def test_predict_b_on_a_pair_file_writes_the_measures_scores(tmp_path: Path) -> None:
    vec = tmp_path / "v.vec"
    rows = [f"{w} {' '.join(map(str, v))}" for w, v in VECTORS.items()]
    vec.write_text(f"{len(VECTORS)} 3\n" + "\n".join(rows) + "\n", encoding="utf-8")
    gold = tmp_path / "mine.tsv"
    gold.write_text("word1\tword2\tsim\n" + "".join(f"{a}\t{b}\t{s}\n" for a, b, s in PAIRS))
    out = tmp_path / "run.csv"
    args = ["predict", f"vectors:path={vec}", "-b", str(gold), "--out", str(out)]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    with out.open(newline="", encoding="utf-8") as f:
        written = [(r["word1"], r["word2"], float(r["sim"])) for r in csv.DictReader(f)]
    assert [(a, b) for a, b, _ in written] == [(a, b) for a, b, _ in PAIRS]
    for a, b, sim in written:
        assert abs(sim - _cosine(a, b)) < 1e-6, (a, b)  # float32 vectors


def test_predict_b_takes_a_catalog_benchmark_as_s_does(tmp_path: Path) -> None:
    by_b, by_s = tmp_path / "b.csv", tmp_path / "s.csv"
    for flag, out in (("-b", by_b), ("-s", by_s)):
        args = ["predict", "orthographic:kind=prefix", flag, "mc30", "--out", str(out)]
        done = CliRunner().invoke(app, args)
        assert done.exit_code == 0, done.output
    assert by_b.read_text() == by_s.read_text()
    assert len(by_b.read_text().splitlines()) == 1 + 30  # header and MC-30's 30 pairs
