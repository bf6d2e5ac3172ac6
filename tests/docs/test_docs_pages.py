"""The docs' tutorials run as written: every ```python block of a page, in order, in one
namespace, in an empty folder (so nothing is written: the folder stays empty); then the values
the page computes are checked against scipy and pytrec_eval, computed here."""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from simeval.metrics import catalog

ROOT = Path(__file__).resolve().parents[2]


def run_page(page: str, folder: Path) -> dict:
    """Execute the page's python blocks in ``folder``; the namespace they leave."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    assert blocks, page
    namespace: dict = {"__name__": "__docs__"}
    before = os.getcwd()
    os.chdir(folder)
    try:
        for block in blocks:
            exec(compile(block, f"docs/{page}", "exec"), namespace)
    finally:
        os.chdir(before)
    return namespace


def test_the_notebook_page(tmp_path: Path, data_dir: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ns = run_page("tutorials/python.md", tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing written

    lines = (data_dir / "mc30/EN-MC-30.txt").read_text(encoding="utf-8").splitlines()
    gold = [(w1, w2, float(s)) for w1, w2, s in (line.split("\t") for line in lines if line)]
    assert ns["first_pair"] == gold[0][:2] and ns["first_gold"] == gold[0][2]
    parts = ["russe-hj", "russe-rt", "russe-ae", "russe-ae2"]  # RUSSE 2015's four tracks
    assert ns["members"] == 4 and ns["overview"]["name"].tolist() == parts
    letters = ns["letters"]
    own = [letters(a, b) for a, b, _ in gold]
    expected = spearmanr([g for *_, g in gold], own)[0]
    assert ns["spearman"] == pytest.approx(expected, abs=1e-12)
    assert ns["by_pair"][0].metrics["spearman"] == pytest.approx(expected, abs=1e-12)
    assert ns["names"] == ["letters", "lengths"]
    assert ns["a"][0].metrics["spearman"] == pytest.approx(expected, abs=1e-12)
    lengths = [-abs(len(a) - len(b)) for a, b, _ in gold]
    assert ns["b"][0].metrics["spearman"] == pytest.approx(
        spearmanr([g for *_, g in gold], lengths)[0], abs=1e-12
    )
    diff = ns["report"].verdicts[0].main.difference
    assert diff == pytest.approx(ns["a"][0].metrics["spearman"] - ns["b"][0].metrics["spearman"])
    assert [v[:2] for v in ns["verdicts"]] == [("mc30", "Williams"), ("rg65", "Williams")]
    per_benchmark = len(catalog.of_kind("graded-pairs"))  # a row per declared metric
    assert len(ns["frame"]) == 2 * per_benchmark and "| mc30 |" in ns["table"]
    board = ns["board_frame"].set_index(["benchmark", "system"])
    assert board.loc[("mc30", "letters"), "score"] == pytest.approx(expected, abs=1e-12)
    assert set(board["tier"]) <= {1, 2} and len(board) == 4
    assert ns["mine_spearman"] == pytest.approx(
        spearmanr([3.92, 3.84, 3.70, 0.08, 0.04], [0.9, 0.8, 0.7, 0.2, 0.1])[0]
    )
    assert ns["sts_pearson"] == pytest.approx(pearsonr([4.8, 0.4, 3.9], [0.95, 0.10, 0.70])[0])
    per_query = pytrec_eval.RelevanceEvaluator(ns["qrels"], {"recip_rank", "ndcg_cut"}).evaluate(
        ns["run"]
    )
    assert ns["mrr"] == pytest.approx(np.mean([q["recip_rank"] for q in per_query.values()]))
    assert ns["ndcg"] == pytest.approx(np.mean([q["ndcg_cut_10"] for q in per_query.values()]))
    assert list(ns["results"]["score"]) == [r.metrics["spearman"] for r in [*ns["a"], *ns["b"]]]
    framed = ns["with_intervals"]
    assert ((framed["lower"] <= framed["score"]) & (framed["score"] <= framed["upper"])).all()


def test_the_vectors_page_figures_are_cosines_ranked_by_scipy(data_dir: Path) -> None:
    """docs/tutorials/vectors.md: its hand-made file's MC-30 figures, from numpy cosines and
    scipy's Spearman: over the 7 covered pairs (oov=skip) and with the 23 others scored 0."""
    from test_executable_docs import page_blocks

    blocks = page_blocks("docs/tutorials/vectors.md")
    (made,) = [b for b in blocks if b.kind == "file"]
    rows = [line.split() for line in made.text.splitlines()[1:]]
    vectors = {w: np.array([float(x) for x in v]) for w, *v in rows}
    lines = (data_dir / "mc30/EN-MC-30.txt").read_text(encoding="utf-8").splitlines()
    gold = [(a, b, float(g)) for a, b, g in (line.split("\t") for line in lines if line)]

    def cosine(a: str, b: str) -> float:
        u, v = vectors[a], vectors[b]
        return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))

    covered = [(a, b, g) for a, b, g in gold if a in vectors and b in vectors]
    skip = spearmanr([g for *_, g in covered], [cosine(a, b) for a, b, _ in covered])[0]
    zero = [cosine(a, b) if a in vectors and b in vectors else 0.0 for a, b, _ in gold]
    shown = next(b for b in blocks if b.kind == "output").text
    assert len(covered) == 7 and "7/30" in shown
    assert f"mc30            {spearmanr([g for *_, g in gold], zero)[0]:.4f}" in shown
    assert f"mc30            {skip:.4f}" in shown
