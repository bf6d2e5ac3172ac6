"""Issue 31's nine steps, as a notebook user takes them: in memory, in an empty folder that
stays empty, no command line. Each number is checked against scipy or pytrec_eval here."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

import simeval
from simeval.errors import DefaultPolicyWarning, InputError
from simeval.metrics import catalog


def _letters(a: str, b: str) -> float:
    return len(set(a) & set(b)) / len(set(a) | set(b))


def test_the_nine_steps_in_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)

    # 1. WordSim-353 holds (money, cash) twice: answers lined up with its 353 rows are
    # refused by from_answers (352 request pairs), and scored right by score()
    ws = simeval.benchmark("wordsim353")
    preds = [_letters(a, b) for a, b in ws.pairs]
    with pytest.raises(InputError, match="353 answers for the 352 pairs"):
        ws.target.from_answers(ws.target.request(), np.array(preds))
    rho = simeval.score(ws, preds)[0].metrics["spearman"]
    assert rho == pytest.approx(spearmanr(ws.gold, preds)[0], abs=1e-12)

    # 2. scoring in memory, by name and on the object
    mc30 = simeval.benchmark("mc30")
    mine = [_letters(a, b) for a, b in mc30.pairs]
    expected = spearmanr(mc30.gold, mine)[0]
    assert simeval.score("mc30", mine)[0].metrics["spearman"] == pytest.approx(expected)
    assert mc30.score(dict(zip(mc30.pairs, mine, strict=True)))[0].metrics[
        "spearman"
    ] == pytest.approx(expected)

    # 3. comparing two measures, with intervals and the kind's test, as a table
    a = simeval.evaluate(_letters, "mc30")
    b = simeval.evaluate(lambda pairs: [-abs(len(x) - len(y)) for x, y in pairs], "mc30")
    report = simeval.compare(a, b, replicates=300)
    lengths = [-abs(len(x) - len(y)) for x, y in mc30.pairs]
    assert report.verdicts[0].main.difference == pytest.approx(
        expected - spearmanr(mc30.gold, lengths)[0]
    )
    rows = len(catalog.of_kind("graded-pairs"))  # a row per metric declared for MC-30's kind
    assert len(report.to_frame()) == rows and r"\begin{tabular}" in report.to_latex()

    # 4. missing scores: the default zero warns; skip is explicit and silent
    half = lambda pairs: [np.nan if i % 2 else _letters(*p) for i, p in enumerate(pairs)]  # noqa: E731
    with pytest.warns(DefaultPolicyWarning):
        simeval.evaluate(half, "mc30")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        skipped = simeval.evaluate(half, "mc30", missing="skip")[0]
    kept = [i for i in range(30) if i % 2 == 0]
    assert skipped.metrics["spearman"] == pytest.approx(
        spearmanr([mc30.gold[i] for i in kept], [mine[i] for i in kept])[0]
    )

    # 5. benchmarks of every kind from values
    pairs = simeval.Benchmark.from_pairs([("a", "b", 1.0), ("c", "d", 3.0), ("e", "f", 2.0)])
    assert pairs.score([0.1, 0.9, 0.5])[0].metrics["spearman"] == pytest.approx(1.0)
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    run = {"q1": {"d1": 0.9, "d3": 0.5}, "q2": {"d4": 0.8, "d2": 0.7}}
    mrr = simeval.Benchmark.from_qrels(qrels).score(run)[0].metrics["recip_rank"]
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert mrr == pytest.approx(np.mean([q["recip_rank"] for q in per_query.values()]))

    # 6. listing, with licence and citation, without loading
    listed = {x.name: x for x in simeval.benchmarks()}
    assert listed["sts12-msrvid"].metadata.sources and listed["sts12-msrvid"]._target is None
    assert "Agirre" in simeval.benchmark("sts12-msrvid").metadata.citation

    # 7. word vectors as they are
    rng = np.random.default_rng(0)
    vectors = {w: rng.normal(size=8) for p in mc30.pairs for w in p}
    cos = [float(vectors[x] @ vectors[y] / np.linalg.norm(vectors[x]) / np.linalg.norm(vectors[y]))
           for x, y in mc30.pairs]  # fmt: skip
    got = simeval.evaluate(vectors, "mc30")[0].metrics["spearman"]
    assert got == pytest.approx(spearmanr(mc30.gold, cos)[0], abs=1e-6)

    # 8. a sweep keeps its runs apart; records as a DataFrame
    def make(alpha: float):  # type: ignore[no-untyped-def]
        return lambda x, y: alpha * _letters(x, y) + (1 - alpha) * (x[0] == y[0])

    sweep = [r for alpha in (0.2, 0.8) for r in simeval.evaluate(make(alpha), "mc30")]
    frame = simeval.results_frame(sweep)
    assert frame["measure"].nunique() == 2

    # 9. the API is listed where a user looks
    assert {"evaluate", "score", "compare", "benchmark"} <= set(dir(simeval))
    with pytest.raises(InputError, match="unknown benchmark or suite 'mc3'"):
        simeval.benchmark("mc3")

    assert list(tmp_path.iterdir()) == []  # nothing was written
