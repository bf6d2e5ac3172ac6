"""`simeval.api.score` with STS gold files (what `simeval score sts` calls) and the targets
built from files: the record carries the submission's sha256 (hashlib's), the numbers are
scipy's on the raw files, and the CLI prints the same record."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr
from typer.testing import CliRunner

from simeval.api import keep_results, load_results, pair_target, score, sts_target, trec_target
from simeval.cli import app
from simeval.errors import InputError

TEST = ("MSRpar", "MSRvid")


def _outputs(tmp_path: Path, data_dir: Path) -> tuple[list[Path], list[Path]]:
    """Gold files and a made-up output per dataset: each line's word count of sentence 1."""
    gold, pred = [], []
    for name in TEST:
        folder = data_dir / "sts2012" / "test"
        lines = (folder / f"STS.input.{name}.txt").read_text(encoding="utf-8").splitlines()
        out = tmp_path / f"out.{name}.txt"
        out.write_text("".join(f"{len(x.split(chr(9))[0].split())}\n" for x in lines))
        gold.append(folder / f"STS.gs.{name}.txt")
        pred.append(out)
    return gold, pred


def _pearson(gold: Path, pred: Path) -> float:
    return pearsonr(np.loadtxt(gold), np.loadtxt(pred))[0]


def test_one_sts_file_record_has_the_files_sha256(tmp_path, data_dir):
    gold, pred = _outputs(tmp_path, data_dir)
    (result,) = score(sts_target(gold[:1]), pred[:1])
    assert result.system["sha256"] == hashlib.sha256(pred[0].read_bytes()).hexdigest()
    assert result.system["path"] == str(pred[0])
    assert result.metrics["pearson"] == pytest.approx(_pearson(gold[0], pred[0]), abs=1e-12)


def test_several_sts_files_are_a_suite_with_each_files_sha256(tmp_path, data_dir):
    gold, pred = _outputs(tmp_path, data_dir)
    results = score(sts_target(gold), pred)
    assert [r.benchmark for r in results] == [*TEST, "sts"]
    for r, g, p in zip(results, gold, pred, strict=False):
        assert r.metrics["pearson"] == pytest.approx(_pearson(g, p), abs=1e-12)
    expected = {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in pred}
    assert all(r.system["files"] == expected for r in results)
    # ALL: Pearson over the concatenated files (STS 2012's ALL)
    both = [np.concatenate([np.loadtxt(f) for f in files]) for files in (gold, pred)]
    assert results[-1].metrics["all"] == pytest.approx(pearsonr(*both)[0], abs=1e-12)


def test_a_file_per_member_is_counted(tmp_path, data_dir):
    gold, pred = _outputs(tmp_path, data_dir)
    with pytest.raises(InputError, match="takes 2 submission file"):
        score(sts_target(gold), pred[:1])
    with pytest.raises(InputError, match="russe takes one submission file"):
        score("russe", pred)


def test_score_sts_command_prints_the_api_record(tmp_path, data_dir):
    gold, pred = _outputs(tmp_path, data_dir)
    args = ["score", "sts", "--gold", str(gold[0]), "--pred", str(pred[0]), "--json"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    record = json.loads(done.stdout)
    assert record["system"]["sha256"] == hashlib.sha256(pred[0].read_bytes()).hexdigest()
    assert record["metrics"]["pearson"] == pytest.approx(_pearson(gold[0], pred[0]), abs=1e-12)


def test_trec_target_success_at_1_by_hand(tmp_path):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\n")
    run.write_text("q1 Q0 d1 1 0.9 r\nq1 Q0 d2 2 0.1 r\nq2 Q0 d1 1 0.8 r\nq2 Q0 d2 2 0.7 r\n")
    (result,) = score(trec_target(qrels), run)
    assert result.metrics["success_1"] == pytest.approx(1 / 2)  # q1 right at 1, q2 at 2
    assert result.metrics["recip_rank"] == pytest.approx((1 + 1 / 2) / 2)


def test_pair_target_needs_exactly_one_source(tmp_path):
    with pytest.raises(InputError, match="exactly one"):
        pair_target()
    gold = tmp_path / "gold.csv"
    gold.write_text("word1,word2,sim\na,b,1\nc,d,2\ne,f,3\n")
    pred = tmp_path / "pred.csv"
    pred.write_text("word1,word2,sim\na,b,3\nc,d,2\ne,f,1\n")
    (result,) = score(pair_target(gold), pred)
    assert result.metrics["spearman"] == pytest.approx(-1.0)


def test_keep_results_names_and_appends(tmp_path):
    gold, pred = tmp_path / "gold.csv", tmp_path / "pred.csv"
    gold.write_text("word1,word2,sim\na,b,1\nc,d,2\ne,f,3\n")
    pred.write_text("word1,word2,sim\na,b,1\nc,d,2\ne,f,3\n")
    results = score(pair_target(gold), pred)
    written = keep_results(results, tmp_path / "kept", "mine")
    assert written == tmp_path / "kept" / "results.jsonl"
    (record,) = load_results(tmp_path / "kept")
    assert record["system"]["name"] == "mine" and record["metrics"]["spearman"] == 1.0
    assert keep_results(results, None) is None


def test_strings_that_are_no_numbers_are_counted_as_strings():
    """999 strings that are not numbers are read as paths; the refusal counts strings, not
    files (issue 47, stumble 3)."""
    with pytest.raises(InputError) as caught:
        score("mc30", ["a"] * 999)
    assert "got 999 strings" in str(caught.value)
    assert "files" not in str(caught.value).split("got")[-1]
