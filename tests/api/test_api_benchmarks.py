"""Benchmarks as objects of one shape (issue 31, item 6 and 9): ``pairs[i]`` with ``gold[i]``
for every kind, metadata without loading, the user's registry included. Checked against the
files read here and the catalog's TOML."""

from __future__ import annotations

import csv
import tomllib
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

import simeval
from simeval.errors import InputError

CATALOG = Path(simeval.__file__).parent / "registry" / "catalog"


def test_word_pairs_and_gold_are_the_files_rows(data_dir: Path) -> None:
    with open(data_dir / "russe/hj-test.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    hj = simeval.benchmark("russe-hj")
    assert hj.pairs == [(r["word1"], r["word2"]) for r in rows]
    assert hj.gold == [float(r["sim"]) for r in rows]
    assert len(hj) == 333 and hj.kind == "graded-pairs"


def test_sts_pairs_and_gold_are_the_input_and_gold_lines(data_dir: Path) -> None:
    folder = data_dir / "sts2012/test"
    lines = (folder / "STS.input.MSRvid.txt").read_text(encoding="utf-8").splitlines()
    gold = (folder / "STS.gs.MSRvid.txt").read_text(encoding="utf-8").splitlines()
    vid = simeval.benchmark("sts12-msrvid")
    assert vid.pairs == [tuple(line.split("\t")) for line in lines]
    assert vid.gold == [float(g) for g in gold]


def test_linking_pairs_are_the_judged_links() -> None:
    qrels = {"q1": {"d1": 1}, "q2": {"d7": 2, "d8": 1}}
    links = simeval.Benchmark.from_qrels(qrels, name="mine")
    assert links.pairs == [("q1", "d1"), ("q2", "d7"), ("q2", "d8")]
    assert links.gold == [1, 2, 1]


def test_metadata_without_loading_comes_from_the_catalog() -> None:
    declared = {}
    for toml in CATALOG.glob("*.toml"):
        declared.update(tomllib.loads(toml.read_text(encoding="utf-8")).get("dataset", {}))
    listed = {b.name: b for b in simeval.benchmarks()}
    simlex = listed["simlex999"]
    assert simlex._target is None  # nothing loaded
    source = declared["simlex999"]
    assert simlex.metadata.licence == source["licence"]
    assert simlex.metadata.citation == source["citation"].strip()
    files = {f["path"]: f for f in source["files"]}
    gold = files["simlex999/SimLex-999.txt"]
    assert simlex.metadata.files == {gold["path"]: gold["sha256"]}
    assert simlex.metadata.size == gold["size"]
    assert simlex._target is None
    assert listed["sts12"].metadata.members[:2] == ("sts12-msrpar", "sts12-msrvid")


def test_a_registry_benchmark_has_the_same_shape(tmp_path: Path) -> None:
    (tmp_path / "g.tsv").write_text("w1\tw2\tsim\ncat\tdog\t8\ncat\tcar\t1\nsun\tmoon\t5\n")
    (tmp_path / "reg.toml").write_text(
        '[benchmark.mine]\nkind = "graded"\ngold = "g.tsv"\ndescription = "my pairs"\n'
    )
    mine = simeval.benchmark("mine", registry=tmp_path / "reg.toml")
    assert mine.metadata.description == "my pairs"
    assert mine.pairs == [("cat", "dog"), ("cat", "car"), ("sun", "moon")]
    assert mine.gold == [8.0, 1.0, 5.0]
    preds = [0.9, 0.2, 0.4]
    got = mine.score(preds)[0].metrics["spearman"]
    assert got == pytest.approx(spearmanr(mine.gold, preds)[0])
    assert all(mine.data.values())  # loaded: every file with its sha256


def test_a_benchmark_runs_a_measure_and_a_suite_lists_members() -> None:
    rg = simeval.benchmark("rg65")
    result = rg.evaluate(lambda a, b: float(len(a) == len(b)), missing="error")[0]
    same = [float(len(a) == len(b)) for a, b in rg.pairs]
    assert result.metrics["spearman"] == pytest.approx(spearmanr(rg.gold, same)[0])
    sts12 = simeval.benchmark("sts12")
    assert [m.name for m in sts12.members][:2] == ["sts12-msrpar", "sts12-msrvid"]
    with pytest.raises(InputError, match="is a suite"):
        _ = sts12.pairs
    with pytest.raises(InputError, match="unknown benchmark or suite 'simlex99'"):
        simeval.benchmark("simlex99")
    assert np.isnan(simeval.benchmark("sts16-postediting").gold).any()
