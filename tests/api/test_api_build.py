"""The dataset builders and campaign steps of `simeval.api`, called without the command line:
each writes a folder whose contents the tests count or compute by hand from the inputs."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from simeval.api import (
    build_linking,
    build_negatives,
    build_sts_sample,
    campaign_aggregate,
    campaign_assign,
    campaign_simulate,
    evaluate,
    load_target,
)
from simeval.errors import InputError


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_build_linking_writes_a_collection_the_registry_loads(tmp_path):
    (tmp_path / "de").write_text("".join(f"<d>\nDe {i} a.\nDe {i} b.\n" for i in range(6)))
    (tmp_path / "en").write_text("".join(f"<d>\nEn {i} a.\nEn {i} b.\n" for i in range(6)))
    spec = f"marked-lines:{tmp_path / 'de'},{tmp_path / 'en'}"
    built = build_linking(tmp_path / "b", "de", [spec], drop_first=False, iqr=False, seed=1)
    assert (built.counts["read"], built.counts["train"], built.counts["test"]) == (6, 3, 3)
    target = load_target(str(tmp_path / "b"))
    test = (tmp_path / "b" / "qrels.test").read_text().splitlines()
    assert len(target.qrels.qids) == len(test) == 3  # a query per test pair, judged once
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["inputs"][str(tmp_path / "de")] == _sha(tmp_path / "de")


def test_build_sts_sample_draws_pairs_from_the_pool(tmp_path, data_dir):
    pool = data_dir / "sts2012" / "test" / "STS.input.MSRpar.txt"
    built = build_sts_sample(tmp_path / "s", [pool], size=40, bands=4, seed=2)
    drawn = (tmp_path / "s" / "STS.input.sample.txt").read_text(encoding="utf-8").splitlines()
    given = {tuple(x.split("\t")[:2]) for x in pool.read_text(encoding="utf-8").splitlines()}
    assert len(drawn) == 40 == built.counts["sampled"]
    assert all(tuple(x.split("\t")) in given for x in drawn)
    with (tmp_path / "s" / "annotation.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["sentence1"] for r in rows] == [x.split("\t")[0] for x in drawn]
    with pytest.raises(InputError, match="--by must be"):
        build_sts_sample(tmp_path / "t", [pool], by="cosine")


def test_build_negatives_pairs_co_occur_in_the_corpus(tmp_path):
    corpus = tmp_path / "corpus.txt"
    text = "the cat saw a mouse . the cat ate a fish . a dog ran far . the dog saw a bone .\n"
    corpus.write_text(text * 3, encoding="utf-8")
    positives = tmp_path / "pos.csv"
    positives.write_text("word1,word2,sim\ncat,dog,1\n", encoding="utf-8")
    built = build_negatives(
        tmp_path / "n", positives, corpus, "en", nouns=False, min_count=1, window=2
    )
    rows = (tmp_path / "n" / "pairs.csv").read_text(encoding="utf-8").splitlines()[1:]
    negatives = [r.split(",")[:2] for r in rows if r.endswith(",0")]
    assert len(rows) == 2 and len(negatives) == 1 == built.counts["negatives"]
    (source, target), words = negatives[0], text.split()
    near = {words[j] for i, w in enumerate(words) if w == source for j in range(i - 2, i + 3)}
    assert source == "cat" and target in near - {"cat", "dog"}  # within the window of "cat"
    manifest = json.loads((tmp_path / "n" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["inputs"]["positives"]["sha256"] == _sha(positives)


def _campaign(tmp_path: Path) -> tuple[Path, Path, dict[str, list[int]], list[tuple[str, str]]]:
    items = [("cat", "cats"), ("car", "cart"), ("sun", "sunny"), ("red", "bed")]
    given = {"a": [5, 1, 4, 2], "b": [6, 0, 5, 3], "c": [5, 2, 4, 3]}  # ρ = 1 between raters
    pairs, answers = tmp_path / "pairs.tsv", tmp_path / "answers.csv"
    pairs.write_text("word1\tword2\n" + "".join(f"{a}\t{b}\n" for a, b in items))
    rows = [
        f"{r},{w1},{w2},{x}"
        for r, xs in given.items()
        for (w1, w2), x in zip(items, xs, strict=True)
    ]
    answers.write_text("rater,word1,word2,rating\n" + "\n".join(rows) + "\n")
    return pairs, answers, given, items


def test_campaign_aggregate_means_by_hand_and_the_folder_evaluates(tmp_path):
    pairs, answers, given, items = _campaign(tmp_path)
    built = campaign_aggregate(tmp_path / "agg", pairs, answers, scale="0:6")
    assert built.extra["raters_kept"] == 3
    with (tmp_path / "agg" / "benchmark.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    table = np.array(list(given.values()), dtype=float).T  # pairs × raters
    assert [(r["word1"], r["word2"]) for r in rows] == items
    assert [float(r["sim"]) for r in rows] == pytest.approx(table.mean(axis=1).tolist())
    assert [float(r["sd"]) for r in rows] == pytest.approx(table.std(axis=1, ddof=1).tolist())
    assert built.extra["agreement"].pairwise == pytest.approx(1.0)
    (result,) = evaluate("random:seed=1", str(tmp_path / "agg"))
    assert result.coverage["gold"] == len(rows) == 4


def test_campaign_assign_hands_out_distinct_pairs(tmp_path):
    pairs, answers, _, items = _campaign(tmp_path)
    built = campaign_assign(tmp_path / "as", pairs, number=5, size=3, answers=answers, seed=4)
    with (tmp_path / "as" / "assignments.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 15 == built.counts["handed_out"]
    for k in range(1, 6):
        chosen = [(r["word1"], r["word2"]) for r in rows if r["assignment"] == str(k)]
        assert len(set(chosen)) == 3 and set(chosen) <= set(items)
    assert built.counts["answers_so_far"] == 12


def test_campaign_simulate_replays_wordsims_raw_ratings(tmp_path, data_dir):
    raw: dict[tuple[str, tuple[str, str]], set[float]] = {}  # a few pairs are listed twice
    for k, name in enumerate(("set1.tab", "set2.tab"), 1):
        lines = (data_dir / "wordsim353" / name).read_text(encoding="utf-8").splitlines()[1:]
        for line in lines:
            cells = line.rstrip("\t").split("\t")
            for j, x in enumerate(cells[3:], 1):
                raw.setdefault((f"set{k}-{j}", (cells[0], cells[1])), set()).add(float(x))
    built = campaign_simulate(tmp_path / "sim", targets=[4.0], replays=1, answers_of="count")
    assert built.counts["ratings"] == sum(
        len(line.rstrip("\t").split("\t")[3:])
        for name in ("set1.tab", "set2.tab")
        for line in (data_dir / "wordsim353" / name).read_text(encoding="utf-8").splitlines()[1:]
    )
    assert (built.counts["pairs"], built.counts["raters"]) == (353, 29)
    table = (tmp_path / "sim" / "simulation.tsv").read_text().splitlines()[1:]
    assert [x.split("\t")[:2] for x in table] == [["4", "count"], ["4", "sd"]]
    with (tmp_path / "sim" / "answers.csv").open(encoding="utf-8") as f:
        answers = list(csv.DictReader(f))
    assert answers and all(
        float(a["rating"]) in raw[(a["rater"], (a["word1"], a["word2"]))] for a in answers
    )
