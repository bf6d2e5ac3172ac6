"""Reports: leaderboards by hand, subsets against pandas, agreement against the published value,
comparisons, the CLI, and the HTML report opened in headless Chromium."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import spearmanr
from typer.testing import CliRunner

from browser import chromium
from simeval.api import evaluate
from simeval.cli import app
from simeval.datasets.agreement import (
    agreement,
    leave_one_out,
    pairwise_spearman,
    pooled,
    read_ratings,
)
from simeval.metrics.stats import Resampling, williams_test
from simeval.report.collect import load_grid
from simeval.report.compare import compare
from simeval.report.leaderboard import (
    Table,
    dominators,
    overall_table,
    to_csv,
    to_html,
    to_latex,
    to_markdown,
    top_table,
)
from simeval.report.subsets import named_views, quartiles
from simeval.results.store import save_results

runner = CliRunner()

# -- leaderboards on a hand-made set of results ---------------------------------------------

NAN = float("nan")
HAND = {
    "A": {"b1": 0.9, "b2": 0.8, "b3": 0.7},  # sum 2.4
    "B": {"b1": 0.8, "b2": 0.7, "b3": 0.6},  # below A everywhere: dropped
    "C": {"b1": 0.9, "b2": 0.5, "b3": 0.9},  # ties A on b1: A does not beat it everywhere
    "D": {"b1": 0.5, "b2": 0.9},  # no b3: sum 1.4; can dominate no one
    "E": {"b1": 0.4, "b2": 0.4, "b3": NAN},  # below A, B, C, G; nothing on b3: dropped
    "F": {"b1": 1.0, "b2": 0.1, "b3": 0.4},  # sum 1.5
    "G": {"b1": 0.5, "b2": 0.9, "b3": 0.0},  # sum 1.4, tied with D
}
COLUMNS = ["b1", "b2", "b3"]


def test_dominance_pruning_by_hand() -> None:
    # D is above E on b1 and b2 but has no b3, so it does not beat E everywhere
    assert dominators(HAND, COLUMNS) == {"B": ["A"], "E": ["A", "B", "C", "G"]}


def test_overall_ranking_by_sum_with_ties_and_a_missing_benchmark() -> None:
    table = overall_table(HAND, COLUMNS)
    assert [row[:2] for row in table.rows] == [
        [1, "A"],
        [2, "C"],
        [3, "F"],
        [4, "G"],
        [5, "D"],  # no b3: after every system that has all three, though its sum ties G's
    ]
    sums = {row[1]: row[-1] for row in table.rows}
    assert sums == pytest.approx({"A": 2.4, "C": 2.3, "F": 1.5, "D": 1.4, "G": 1.4})
    d = next(row for row in table.rows if row[1] == "D")
    assert d[4] is None  # D's missing b3 stays empty
    marked = {(table.rows[i][1], table.columns[j]) for i, j in table.best}
    assert marked == {("F", "b1"), ("D", "b2"), ("G", "b2"), ("C", "b3"), ("A", "sum")}
    assert "B (by A)" in table.note and "E (by A, B, C, G)" in table.note
    assert len(overall_table(HAND, COLUMNS, prune=False).rows) == 7
    tied = overall_table({"X": {"b": 0.5}, "W": {"b": 0.5}, "V": {"b": 0.1}}, ["b"], False)
    assert [row[:2] for row in tied.rows] == [[1, "W"], [1, "X"], [3, "V"]]  # listed by name


def test_top_n_keeps_ties_at_the_cut() -> None:
    have = {s: v for s, v in HAND.items() if "b2" in v}
    assert [r[1] for r in top_table(have, "b2", 2).rows] == ["D", "G"]  # both rank 1
    assert [r[:2] for r in top_table(have, "b2", 3).rows] == [[1, "D"], [1, "G"], [3, "A"]]


def test_renderers() -> None:
    table = overall_table(HAND, COLUMNS)
    md = to_markdown(table)
    assert "| 3 | F | **1.0000** | 0.1000 | 0.4000 | 1.5000 |" in md
    rows = list(csv.reader(io.StringIO(to_csv(table))))
    assert rows[0] == ["rank", "system", "b1", "b2", "b3", "sum"]
    assert rows[5] == ["5", "D", "0.5", "0.9", "", "1.4"]
    table.title = "RUSSE_2015 & co"
    latex = to_latex(table)
    assert r"\textbf{0.9000}" in latex and r"RUSSE\_2015 \& co" in latex
    assert latex.count(r"\\") == len(table.rows) + 1
    html = to_html(table)
    assert html.count("<tr>") == 1 + len(table.rows) and "<strong>1.0000</strong>" in html


def test_csv_writes_a_negative_whole_number_as_a_number() -> None:
    """A rank change of -1 is a number (the formula guard is for text: "-1" was "'-1")."""
    table = Table("changes", ["rank", "system", "change"], [[1, "-x", -1], [2, "y", 3]])
    rows = list(csv.reader(io.StringIO(to_csv(table))))
    assert rows[1:] == [["1", "'-x", "-1"], ["2", "y", "3"]]


# -- results from real measures --------------------------------------------------------------


@pytest.fixture(scope="module")
def lexical_dir(store, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("results")
    for spec in ("orthographic:kind=dice", "orthographic:kind=prefix"):
        evaluate(spec, "simlex999", "wordsim353", "russe", store=store, results_dir=folder)
    return folder


def test_subsets_of_simlex_and_wordsim(lexical_dir: Path) -> None:
    grid = load_grid(lexical_dir)
    simlex = grid.get("orthographic:kind=dice", "simlex999").items()
    views = {(s.view, s.label): s.mask for s in named_views("simlex999", simlex)}
    assert {label: int(m.sum()) for (v, label), m in views.items() if v == "POS"} == {
        "A": 111,
        "N": 666,
        "V": 222,
    }
    assert views[("SimAssoc333", "SimAssoc333")].sum() == 333
    total = simlex["conc(w1)"].astype(float) + simlex["conc(w2)"].astype(float)
    expected = pd.qcut(total, 4, labels=[1, 2, 3, 4]).astype(int)
    assert np.array_equal(quartiles(total), expected)
    for k in range(1, 5):
        assert np.array_equal(views[("concreteness", f"Q{k}")], expected == k)
    ws = grid.get("orthographic:kind=dice", "wordsim353").items()
    split = {s.label: int(s.mask.sum()) for s in named_views("wordsim353", ws)}
    # 203 and 252 pairs in the split files; money,cash is in WordSim-353 twice
    assert split == {"similarity": 204, "relatedness": 252}
    suite = grid.get("orthographic:kind=dice", "russe").items()
    members = {s.label: int(s.mask.sum()) for s in named_views("russe", suite)}
    assert members == {"russe-hj": 333, "russe-rt": 9548, "russe-ae": 1952, "russe-ae2": 3002}


def test_compare_uses_williams_for_correlations(lexical_dir: Path) -> None:
    grid = load_grid(lexical_dir)
    a = grid.get("orthographic:kind=dice", "simlex999")
    b = grid.get("orthographic:kind=prefix", "simlex999")
    v = compare(a, b, Resampling(200, 3))
    ia, ib = a.items(), b.items()
    r12 = spearmanr(ia["gold"], ia["score"])[0]
    r13 = spearmanr(ib["gold"], ib["score"])[0]
    r23 = spearmanr(ia["score"], ib["score"])[0]
    t, p = williams_test(r12, r13, r23, 999)
    assert v.main.test == "Williams" and v.main.p_value == pytest.approx(p, rel=1e-9)
    assert v.main.statistic == pytest.approx(t, rel=1e-9)
    assert v.main.difference == pytest.approx(r12 - r13, abs=1e-12)
    assert v.main.interval.contains(v.main.difference)
    again = compare(a, b, Resampling(200, 3))
    assert again.metrics["pearson"].interval == v.metrics["pearson"].interval  # seeded


def test_compare_related_pairs_by_randomization(lexical_dir: Path) -> None:
    grid = load_grid(lexical_dir)
    a = grid.get("orthographic:kind=dice", "russe-ae")
    b = grid.get("orthographic:kind=prefix", "russe-ae")
    v = compare(a, b, Resampling(200, 1))
    assert v.main.metric == "ap_trapezoid" and v.main.test == "approximate randomization"
    assert v.main.a == pytest.approx(a.score) and v.main.b == pytest.approx(b.score)
    assert 1 / 201 <= v.main.p_value <= 1
    same = compare(a, a, Resampling(100, 1))
    assert same.main.p_value == 1.0 and same.main.difference == 0.0


# -- agreement ceilings ----------------------------------------------------------------------


def test_agreement_by_hand() -> None:
    ratings = np.array([[1, 1, 2], [2, 2, 1], [3, 4, 4], [4, 3, 3]], dtype=float)
    # ρ = 1 − 6·Σd²/(n(n²−1)): ρ(r1, r2) = 1 − 12/60 = 0.8; ρ(r1, r3) = 1 − 24/60 = 0.6;
    # ρ(r2, r3) = 1 − 12/60 = 0.8
    assert pairwise_spearman(ratings) == pytest.approx((0.8 + 0.6 + 0.8) / 3)
    loo = [
        spearmanr(ratings[:, i], np.delete(ratings, i, axis=1).mean(axis=1))[0] for i in range(3)
    ]
    assert leave_one_out(ratings) == pytest.approx(np.mean(loo))


def test_wordsim_agreement_matches_the_published_value(data_dir: Path) -> None:
    parts = [
        agreement(name, read_ratings(data_dir / "wordsim353" / f"{name}.tab"))
        for name in ("set1", "set2")
    ]
    assert [(p.items, p.raters) for p in parts] == [(153, 13), (200, 16)]
    both = pooled("wordsim353", parts)
    # Hill et al. (SimLex-999): WS-353 inter-annotator agreement 0.61 by the same method
    assert both.pairwise == pytest.approx(0.61, abs=0.005)
    # the README's figures, to their printed precision
    assert [f"{p.pairwise:.4f}" for p in parts] == ["0.6774", "0.5594"]
    assert (f"{both.pairwise:.4f}", f"{both.leave_one_out:.4f}") == ("0.6106", "0.7564")


# -- the command line ------------------------------------------------------------------------


def test_score_records_then_leaderboard_and_compare(store, data_dir: Path, tmp_path: Path):
    from simeval.api import load_target

    gold = load_target("simlex999", store).gold
    rng = np.random.default_rng(0)
    for name, noise in (("close", 0.5), ("far", 6.0)):
        f = tmp_path / f"{name}.csv"
        scores = gold.scores + rng.normal(0, noise, len(gold))
        f.write_text(
            "word1,word2,sim\n"
            + "".join(f"{a},{b},{s}\n" for (a, b), s in zip(gold.pairs, scores, strict=True))
        )
        got = runner.invoke(
            app,
            [
                "score",
                "pairs",
                "--benchmark",
                "simlex999",
                "--pred",
                str(f),
                "--results",
                str(tmp_path / "res"),
                "--name",
                name,
            ],
        )
        assert got.exit_code == 0, got.output
    records = [
        json.loads(x) for x in (tmp_path / "res" / "results.jsonl").read_text().split("\n") if x
    ]
    assert [r["system"]["name"] for r in records] == ["close", "far"]
    got = runner.invoke(app, ["leaderboard", str(tmp_path / "res"), "--format", "csv"])
    assert got.exit_code == 0, got.output
    rows = list(csv.reader(io.StringIO(got.stdout)))
    assert [r[1] for r in rows[1:]] == ["close"]  # far is beaten on the only benchmark
    got = runner.invoke(
        app,
        [
            "compare",
            "far",
            "clo",
            "-b",
            "simlex999",
            "--results",
            str(tmp_path / "res"),
            "-B",
            "200",
        ],
    )
    assert got.exit_code == 0, got.output
    assert "verdict: close is better on spearman (Williams" in got.stdout
    got = runner.invoke(
        app, ["compare", "far", "nobody", "-b", "simlex999", "--results", str(tmp_path / "res")]
    )
    assert got.exit_code == 2 and "'nobody' is not a system here" in got.output


# -- the HTML report in headless Chromium ----------------------------------------------------


@pytest.fixture(scope="module")
def report_file(store, encoder_cache, tmp_path_factory) -> Path:
    """The issue's acceptance set: random, overlap, orthographic and the offline encoder on
    sts12, simlex999 and russe (the encoder's embeddings from the session's shared cache: the
    README's main job embeds the same texts)."""
    folder = tmp_path_factory.mktemp("report")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SIMEVAL_CACHE_DIR", str(encoder_cache))
        for spec in ("random:seed=1", "overlap", "orthographic:kind=prefix", "encoder"):
            results = evaluate(spec, "sts12", "simlex999", "russe", store=store)
            save_results(folder, results)
    out = folder / "report.html"
    got = runner.invoke(app, ["report", str(folder), "--html", str(out), "-B", "200"])
    assert got.exit_code == 0, got.output
    return out


@pytest.mark.slow
def test_report_is_self_contained(report_file: Path) -> None:
    page = report_file.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", page)  # nothing from the network
    images = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,', page)
    assert "russe-rt: precision-recall curves" in images
    assert "simlex999: human vs system scatter" in images
    assert "sts12 by member: bars" in images and "simlex999 by POS: bars" in images
    assert "simlex999 by concreteness: bars" in images and "russe by member: bars" in images
    for system in ("random:seed=1", "overlap", "orthographic:kind=prefix", "encoder"):
        assert f"<td>{system}</td>" in page


@pytest.mark.slow
def test_report_opens_in_headless_chromium(report_file: Path, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    driver = chromium()
    try:
        driver.get(report_file.as_uri())
        assert driver.title == "simeval report"
        captions = [c.text for c in driver.find_elements(By.TAG_NAME, "caption")]
        assert "Overall: sum of main scores" in captions
        assert any(
            c.startswith("simlex999: metrics with 95% bootstrap intervals") for c in captions
        )
        assert any(c.startswith("russe-rt: metrics") for c in captions)
        images = driver.find_elements(By.TAG_NAME, "img")
        assert len(images) >= 8
        widths = [driver.execute_script("return arguments[0].naturalWidth", i) for i in images]
        assert all(w > 100 for w in widths), widths  # every plot decoded and drawn
        # sorting: a click on the 'sum' header orders the overall table by it
        overall = driver.find_elements(By.CSS_SELECTOR, "table.sortable")[0]
        header = overall.find_elements(By.TAG_NAME, "th")[-1]
        header.click()
        sums = [
            float(r.find_elements(By.TAG_NAME, "td")[-1].get_attribute("data-sort"))
            for r in overall.find_elements(By.CSS_SELECTOR, "tbody tr")
        ]
        assert sums == sorted(sums, reverse=True)
        header.click()
        sums = [
            float(r.find_elements(By.TAG_NAME, "td")[-1].get_attribute("data-sort"))
            for r in overall.find_elements(By.CSS_SELECTOR, "tbody tr")
        ]
        assert sums == sorted(sums)
        shot = tmp_path / "report.png"
        assert driver.save_screenshot(str(shot))
    finally:
        driver.quit()
    import matplotlib.image as mpimg

    pixels = mpimg.imread(shot)
    assert pixels.shape[0] > 500 and pixels.std() > 0.05  # drawn, not a blank page
    assert not math.isnan(float(pixels.mean()))


def test_compare_linking_runs_by_randomization(tmp_path: Path) -> None:
    """40 queries; run A ranks the relevant document first everywhere (MRR 1), run B on
    every other query only second (MRR 0.75). Each differing query favours A, so under
    the swaps |δ| is reached only when all 20 fall the same way: p = 1/(R+1) in practice."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(40)))
    for name, second in (("a", ()), ("b", range(0, 40, 2))):
        lines = []
        for i in range(40):
            rel, other = (1.0, 2.0) if i in second else (2.0, 1.0)
            lines += [f"q{i} Q0 d{i} 1 {rel} {name}\n", f"q{i} Q0 x{i} 2 {other} {name}\n"]
        run = tmp_path / f"{name}.run"
        run.write_text("".join(lines))
        got = runner.invoke(
            app,
            [
                "score",
                "trec",
                "--qrels",
                str(qrels),
                "--run",
                str(run),
                "--results",
                str(tmp_path / "res"),
                "--name",
                name,
            ],
        )
        assert got.exit_code == 0, got.output
    grid = load_grid(tmp_path / "res")
    v = compare(grid.get("a", "qrels"), grid.get("b", "qrels"), Resampling(300, 2))
    assert v.main.metric == "recip_rank" and v.main.test == "approximate randomization"
    assert v.main.difference == pytest.approx(0.25)
    assert v.main.p_value == pytest.approx(1 / 301)
    assert v.metrics["success_5"].difference == 0.0 and v.metrics["success_5"].p_value == 1.0
    low, high = v.main.interval.low, v.main.interval.high
    # the bootstrap difference is 0.5 × (share of halved queries drawn): sd 0.5·√(.25/40) ≈ .04
    assert 0.1 < low < 0.25 < high < 0.4


def test_records_without_rows_are_reported_without_intervals(lexical_dir: Path, tmp_path):
    folder = tmp_path / "old"
    shutil.copytree(lexical_dir, folder)
    records = [json.loads(x) for x in (folder / "results.jsonl").read_text().splitlines()]
    for r in records:
        if r["system"]["spec"] == "orthographic:kind=dice":
            del r["items_file"]  # as recorded before per-item rows existed
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = tmp_path / "old.html"
    got = runner.invoke(app, ["report", str(folder), "--html", str(out), "-B", "50"])
    assert got.exit_code == 0, got.output
    page = out.read_text(encoding="utf-8")
    assert "Recorded without per-item rows" in page and "<td>orthographic:kind=dice</td>" in page
    got = runner.invoke(
        app, ["compare", "dice", "prefix", "-b", "simlex999", "--results", str(folder)]
    )
    assert got.exit_code == 2 and "has no per-item rows" in got.output


@pytest.mark.slow
def test_report_is_the_same_page_for_any_number_of_jobs(lexical_dir: Path) -> None:
    """Sections built by two forked processes are the page built in one, byte for byte."""
    from simeval.report.html import ReportOptions, build_report

    grid = load_grid(lexical_dir)
    pages = []
    for jobs in (1, 2):
        done: list[str] = []
        page = build_report(grid, ReportOptions(Resampling(100), jobs=jobs), "x", done.append)
        assert sorted(done) == sorted(grid.benchmarks)  # progress heard of every benchmark
        pages.append(re.sub(r"\d{4}-\d\d-\d\dT[\d:+]+", "", page))
    assert pages[0] == pages[1]
    assert pages[0].count("<h2 id=") == len(grid.benchmarks)


REPORT_PROBE = """
import sys
sys.argv = ["simeval", *sys.argv[1:]]
from simeval.cli import main
try:
    main()
except SystemExit:
    pass
print("LOADED", "scipy.stats" in sys.modules)
"""


def test_the_report_does_not_import_scipy_stats(lexical_dir: Path, tmp_path: Path) -> None:
    """Importing ``scipy.stats`` took most of a second of the report's start (issue 48) for
    Spearman's ρ of the raters, one t and one normal quantile and average ranks: the report
    computes them as scipy does (tests/metrics: to the bit) without it. The folder has
    correlations (Williams' test, Fisher intervals), RUSSE's related pairs (randomization over
    ranks) and WordSim-353 (the agreement ceilings)."""
    page = tmp_path / "r.html"
    report = ["report", str(lexical_dir), "--html", str(page), "-B", "50", "-j", "1"]
    done = subprocess.run(
        [sys.executable, "-c", REPORT_PROBE, *report],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "ceiling" in page.read_text(encoding="utf-8")
    assert done.stdout.splitlines()[-1] == "LOADED False"
