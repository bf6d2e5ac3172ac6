"""RUSSE 2015 scoring against scipy, scikit-learn and a hand-written reading of the official
procedure (russe-evaluation's evaluate.py / evaluate_test.py)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    precision_recall_curve,
    roc_auc_score,
)
from typer.testing import CliRunner

from simeval.api import load_target
from simeval.cli import app
from simeval.data.pairs import read_scored_pairs, write_pairs
from simeval.kinds.graded import GRADED
from simeval.kinds.pairs import PairBenchmark
from simeval.kinds.related import RELATED

runner = CliRunner()


def official_predictions(df: pd.DataFrame) -> np.ndarray:
    """evaluate.py's predict_by_sim: sort by word1, usim desc, word2; first half related."""
    d = df.sort_values(["word1", "usim", "word2"], ascending=[True, False, True], kind="stable")
    position = d.groupby("word1", sort=False).cumcount() + 1
    size = d.groupby("word1", sort=False)["word2"].transform("count")
    return (position <= size / 2).astype(int).reindex(df.index).to_numpy()


def trapezoid_ap(y: np.ndarray, s: np.ndarray) -> float:
    """2015 scikit-learn: auc(recall, precision) over precision_recall_curve."""
    p, r, _ = precision_recall_curve(y, s)
    return float(-np.trapezoid(p, r))


def legacy_ap(y: np.ndarray, s: np.ndarray) -> float:
    """A reading of scikit-learn 0.16's average_precision_score, step by step: sort scores
    descending (mergesort, reversed), a threshold wherever the next score is not np.isclose,
    precision/recall there, stop at full recall, append (recall 0, precision 1), trapezoids."""
    order = np.argsort(s, kind="mergesort")[::-1]
    ys, ss = y[order], s[order]
    ends = [i for i in range(len(ss) - 1) if not np.isclose(ss[i + 1] - ss[i], 0)]
    ends.append(len(ss) - 1)
    tps = np.cumsum(ys)[ends]
    fps = np.asarray(ends) + 1 - tps
    precision, recall = tps / (tps + fps), tps / tps[-1]
    last = int(np.searchsorted(tps, tps[-1]))
    p, r = np.r_[precision[last::-1], 1.0], np.r_[recall[last::-1], 0.0]
    return float(-np.trapezoid(p, r))


def score_json(*args: str) -> list[dict]:
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def test_hj_submission(data_dir: Path) -> None:
    f = data_dir / "russe" / "hj-submission.csv"
    (r,) = score_json("score", "pairs", "--gold", str(f), "--pred", str(f), "--pred-column", "usim")
    df = pd.read_csv(f)
    assert r["metrics"]["spearman"] == pytest.approx(spearmanr(df.usim, df.sim)[0], abs=1e-12)
    assert r["metrics"]["pearson"] == pytest.approx(pearsonr(df.usim, df.sim)[0], abs=1e-12)
    assert r["coverage"] == {"gold": 65, "scored": 65, "missing": 0, "extra": 0}


def test_src_submission(data_dir: Path) -> None:
    f = data_dir / "russe" / "src-submission.csv"
    (r,) = score_json(
        "score",
        "pairs",
        "--kind",
        "related",
        "--gold",
        str(f),
        "--pred",
        str(f),
        "--pred-column",
        "usim",
    )
    df = pd.read_csv(f)
    y, s = df.sim.to_numpy(), df.usim.to_numpy()
    m = r["metrics"]
    assert m["ap"] == pytest.approx(average_precision_score(y, s), abs=1e-12)
    # usim has four score gaps below 1e-8, which scikit-learn 0.16 merged and today's does not
    assert m["ap_trapezoid"] == pytest.approx(legacy_ap(y, s), abs=1e-12)
    assert abs(m["ap_trapezoid"] - trapezoid_ap(y, s)) > 1e-8
    assert m["roc_auc"] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert m["accuracy"] == pytest.approx(accuracy_score(y, official_predictions(df)), abs=1e-12)
    assert m["ap_trapezoid"] > m["ap"]  # the 2015 definition is the more generous one here
    # the figures the README quotes for this command, to their printed precision
    shown = [f"{m[k]:.4f}" for k in ("ap_trapezoid", "ap", "accuracy", "roc_auc")]
    assert shown == ["0.7094", "0.4923", "0.5886", "0.6227"]


def _fake_system(w1: str, w2: str) -> float:
    """A deterministic pseudo-system with ties: shared letters plus a hash bucket."""
    return round(len(set(w1) & set(w2)) / 10 + (zlib.crc32(f"{w1},{w2}".encode()) % 7) / 70, 3)


@pytest.mark.parametrize("drop", [0, 500])
def test_russe_suite_matches_official_procedure(data_dir: Path, tmp_path: Path, drop: int) -> None:
    test = pd.read_csv(data_dir / "russe" / "test.csv")
    test["sim"] = [_fake_system(a, b) for a, b in zip(test.word1, test.word2, strict=True)]
    sub = test.iloc[drop:]  # the first `drop` rows are left out: official rule scores them 0
    path = tmp_path / "test.csv"
    sub.to_csv(path, index=False)
    results = {r["benchmark"]: r for r in score_json("score", "russe", str(path))}
    lookup = {(a, b): s for a, b, s in zip(sub.word1, sub.word2, sub.sim, strict=True)}
    for name in ("hj", "rt", "ae", "ae2"):
        gold = pd.read_csv(data_dir / "russe" / f"{name}-test.csv")
        gold["usim"] = [
            lookup.get((a, b), 0.0) for a, b in zip(gold.word1, gold.word2, strict=True)
        ]
        missing = sum((a, b) not in lookup for a, b in zip(gold.word1, gold.word2, strict=True))
        m = results[f"russe-{name}"]["metrics"]
        assert results[f"russe-{name}"]["coverage"]["missing"] == missing
        if name == "hj":
            assert m["spearman"] == pytest.approx(spearmanr(gold.usim, gold.sim)[0], abs=1e-12)
            continue
        y, s = gold.sim.to_numpy(), gold.usim.to_numpy()
        assert m["ap_trapezoid"] == pytest.approx(trapezoid_ap(y, s), abs=1e-12)
        assert m["ap_trapezoid"] == pytest.approx(legacy_ap(y, s), abs=1e-12)
        assert m["ap"] == pytest.approx(average_precision_score(y, s), abs=1e-12)
        assert m["roc_auc"] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
        assert m["accuracy"] == pytest.approx(accuracy_score(y, official_predictions(gold)))
    suite = results["russe"]
    assert suite["metrics"]["sum"] == pytest.approx(
        sum(
            results[f"russe-{n}"]["metrics"][k]
            for n, k in (
                ("hj", "spearman"),
                ("rt", "ap_trapezoid"),
                ("ae", "ap_trapezoid"),
                ("ae2", "ap_trapezoid"),
            )
        )
    )
    assert suite["coverage"]["gold"] == 14781  # unique pairs of test.csv's 14,835 lines
    if drop:
        assert suite["coverage"]["missing"] > 0
        assert any("no score" in w for w in results["russe-rt"]["warnings"])


def test_benchmark_sizes(store) -> None:
    suite = load_target("russe", store)
    sizes = {b.name: len(b) for b in suite.members}
    assert sizes == {"russe-hj": 333, "russe-rt": 9548, "russe-ae": 1952, "russe-ae2": 3002}
    assert sum(sizes.values()) == 14835  # the lines of test.csv


def test_missing_policies(tmp_path: Path) -> None:
    gold_pairs = [("a", "b"), ("a", "c"), ("d", "e"), ("d", "f")]
    gold_file, pred_file = tmp_path / "gold.csv", tmp_path / "pred.csv"
    write_pairs(gold_file, gold_pairs, [1, 0, 1, 0])
    write_pairs(pred_file, [("a", "b"), ("a", "c"), ("d", "e"), ("x", "y")], [0.9, 0.1, 0.2, 0.5])
    gold = read_scored_pairs(gold_file, require_scores=True)
    pred = read_scored_pairs(pred_file)
    bench = PairBenchmark("toy", RELATED.name, gold)
    (zero,) = bench.evaluate(pred, missing="zero")
    # d,f scored 0: ranking 0.9(1) 0.2(1) 0.1(0) 0(0) -> perfect
    assert zero.metrics["ap"] == 1.0
    assert zero.coverage == {"gold": 4, "scored": 3, "missing": 1, "extra": 1}
    (skip,) = bench.evaluate(pred, missing="skip")
    # a,b .9 (1); d,e .2 (1); a,c .1 (0): AP 1
    assert skip.metrics["ap"] == 1.0 and skip.coverage["scored"] == 3
    graded = PairBenchmark("toy", GRADED.name, gold)
    assert np.isfinite(graded.evaluate(pred, missing="skip")[0].metrics["spearman"])
    from simeval.errors import InputError

    with pytest.raises(InputError, match="1 of 4 gold pairs have no score"):
        bench.evaluate(pred, missing="error")


def test_out_of_range_scores_warn(data_dir: Path, tmp_path: Path) -> None:
    test = pd.read_csv(data_dir / "russe" / "test.csv")
    test["sim"] = [_fake_system(a, b) * 3 - 1 for a, b in zip(test.word1, test.word2, strict=True)]
    path = tmp_path / "test.csv"
    test.to_csv(path, index=False)
    result = runner.invoke(app, ["score", "russe", str(path)])
    assert result.exit_code == 0
    assert "outside [0, 1]" in result.stderr


def test_conflicting_duplicate_is_an_error(data_dir: Path, tmp_path: Path) -> None:
    test = pd.read_csv(data_dir / "russe" / "test.csv")
    test["sim"] = np.linspace(0, 1, len(test))  # test.csv repeats 55 pairs: now with new scores
    path = tmp_path / "test.csv"
    test.to_csv(path, index=False)
    result = runner.invoke(app, ["score", "russe", str(path)])
    assert result.exit_code == 2
    # every conflicting line is reported (20 shown), not only the first
    assert (
        f"{path}:950: 54 problems:\n  line 950: pair 'бунт','вопрос' given twice" in result.stderr
    )
    assert "(and 34 more)" in result.stderr
    assert "Traceback" not in result.output
