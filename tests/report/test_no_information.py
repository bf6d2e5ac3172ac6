"""The report never crowns a system whose scores carry no information (issue 33, stumble 7).

Two hand-made RUSSE submissions over the real test pairs: ``flat`` scores every pair 0 but
one (the ``overlap`` baseline's shape: single words share no token), which the 2015 trapezoid
AP credits 0.75 on a half-related set, above ``signal``'s honest but noisy scores; ``signal``
leaves every tenth distinct pair out (``--missing skip``), so the two systems' shared items
are fewer than either's coverage. Expected values come from the gold files read here and from
scikit-learn, never from simeval.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import auc, precision_recall_curve

from simeval.api import score
from simeval.metrics.stats import Resampling
from simeval.report.collect import load_grid
from simeval.report.html import ReportBuilder, ReportOptions
from simeval.report.leaderboard import overall_table, top_table
from simeval.results.store import save_results

MEMBERS = {"russe-hj": "hj-test.csv", "russe-rt": "rt-test.csv", "russe-ae": "ae-test.csv",
           "russe-ae2": "ae2-test.csv"}  # fmt: skip


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _trapezoid_ap(gold: np.ndarray, scores: np.ndarray) -> float:
    """RUSSE 2015's AP: the area under scikit-learn's PR curve by trapezoids."""
    precision, recall, _ = precision_recall_curve(gold, scores)
    return float(auc(recall, precision))


@pytest.fixture(scope="module")
def russe(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The results folder, the systems' scores and the hand counts."""
    folder = tmp_path_factory.mktemp("ties")
    pairs = [(r["word1"], r["word2"]) for r in _rows(data_dir / "russe" / "test.csv")]
    gold = {b: _rows(data_dir / "russe" / f) for b, f in MEMBERS.items()}
    truth = {(r["word1"], r["word2"]): float(r["sim"]) for rows in gold.values() for r in rows}
    rng = np.random.default_rng(7)
    distinct = list(dict.fromkeys(pairs))
    left_out = set(distinct[::10])
    rt = {(r["word1"], r["word2"]) for r in gold["russe-rt"] if r["sim"] == "1"}
    flat = {p: 0.0 for p in distinct}
    # one related RT pair of 14,781 apart: not constant, but no information (and on top)
    flat[next(p for p in distinct if p in rt and p not in left_out)] = 1.0
    signal = {p: 0.1 * truth[p] + float(rng.random()) for p in distinct}
    for name, scores, keep in (("flat", flat, distinct), ("signal", signal, distinct)):
        path = folder / f"{name}.csv"
        with path.open("w", encoding="utf-8", newline="") as f:
            w = csv.writer(f)
            w.writerow(["word1", "word2", "sim"])
            w.writerows([*p, scores[p]] for p in keep if name == "flat" or p not in left_out)
        found = score("russe", path, system={"name": name}, missing="skip")
        save_results(folder / "res", found)
    # hand counts: item rows of each member (a pair in two members is a row of each) that
    # both systems scored, i.e. those whose pair signal did not leave out
    shared = {b: sum((r["word1"], r["word2"]) not in left_out for r in rows)
              for b, rows in gold.items()}  # fmt: skip
    return {"folder": folder / "res", "gold": gold, "flat": flat, "signal": signal,
            "shared": shared, "left_out": left_out, "distinct": len(distinct)}  # fmt: skip


def test_the_flat_system_would_win_on_tie_order(russe: dict) -> None:
    """The premise, by scikit-learn on each system's own rows: flat's trapezoid AP is above
    signal's on RT, AE and AE2 (flat scored every pair, signal all but the left-out ones)."""
    for bench in ("russe-rt", "russe-ae", "russe-ae2"):
        rows = russe["gold"][bench]
        kept = [r for r in rows if (r["word1"], r["word2"]) not in russe["left_out"]]
        flat = _trapezoid_ap(
            np.array([float(r["sim"]) for r in rows]),
            np.array([russe["flat"][r["word1"], r["word2"]] for r in rows]),
        )
        signal = _trapezoid_ap(
            np.array([float(r["sim"]) for r in kept]),
            np.array([russe["signal"][r["word1"], r["word2"]] for r in kept]),
        )
        assert flat > 0.7 > signal > 0.55, bench


@pytest.fixture(scope="module")
def page(russe: dict) -> tuple[str, dict[str, bytes]]:
    builder = ReportBuilder(
        load_grid(russe["folder"]), ReportOptions(Resampling(50), figure_format="svg")
    )
    return builder.build(), builder.figures


def _table(page: str, caption: str) -> tuple[str, list[list[str]]]:
    """The caption and the rows (cell texts, bold as **x**) of the table captioned so."""
    start = page.index(f"<caption>{caption}")
    table = page[start : page.index("</table>", start)]
    cap = re.sub(r"<[^>]+>", "", table[: table.index("</caption>")])
    rows = []
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", table, flags=re.S):
        cells = re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", tr, flags=re.S)
        cells = [re.sub(r"</?strong>", "**", c) for c in cells]
        rows.append([" ".join(re.sub(r"<[^>]+>", "", c).split()) for c in cells])
    return cap, rows


def test_no_information_is_never_crowned(page: tuple[str, dict]) -> None:
    """flat is shown with † and ranked after signal in every top list, is not the best in any
    metric table, and no p-value is claimed against it; signal is the best everywhere."""
    html, _ = page
    for bench in ("russe-rt", "russe-ae", "russe-ae2", "russe"):
        _, top = _table(html, f"{bench}: top")
        if bench != "russe":  # flat's sum adds HJ's undefined Spearman: it has none
            assert [r[:2] for r in top[1:]] == [["1", "signal"], ["–", "flat"]], bench
            assert top[1][2].startswith("**") and top[2][2].endswith("†"), bench
        _, metrics = _table(html, f"{bench}: metrics")
        shown = {r[0]: r for r in metrics[1:]}
        assert shown["signal"][-1] == "best" and shown["flat †"][-1] == "– (no information)"
    _, overall = _table(html, "Overall")
    assert [r[:2] for r in overall[1:]] == [["1", "signal"], ["–", "flat"]]
    assert overall[2][-1].endswith("†") and not overall[2][-1].startswith("**")


def test_one_n_per_benchmark_the_pairs_both_scored(russe: dict, page: tuple[str, dict]) -> None:
    """Each metric table states one n, the hand count of item rows both systems scored; the
    subset table's n are the same counts; the distinct pairs are coverage, apart."""
    html, _ = page
    for bench, n in russe["shared"].items():
        caption, _ = _table(html, f"{bench}: metrics")
        assert caption.endswith(f"n = {n:,} items scored by every system"), caption
    total = sum(russe["shared"].values())
    caption, _ = _table(html, "russe: metrics")
    assert caption.endswith(f"n = {total:,} items scored by every system")
    _, members = _table(html, "russe by member")
    assert {r[0]: int(r[1]) for r in members[1:]} == {"all": total, **russe["shared"]}
    assert f"n = {total:,} counts the items" in html and f"(gold: {russe['distinct']:,})" in html


def test_each_chart_axis_holds_one_metric(page: tuple[str, dict]) -> None:
    """The suite's chart: one axes per metric (sum; HJ's Spearman; the three APs), each
    labelled with its metric, and the members' bars under their own metric."""
    _, figures = page
    svg = figures["russe-by-member"].decode("utf-8")
    assert len(re.findall(r'<g id="axes_\d+"', svg)) == 3
    labels = re.findall(r"<!-- (sum|spearman|ap_trapezoid) -->", svg)
    assert sorted(set(labels)) == ["ap_trapezoid", "spearman", "sum"]


def test_a_flagged_score_beats_no_one_and_is_not_ranked() -> None:
    """By hand: F's 0.75 on b1 is flagged; it does not let F dominate A (who is ahead on b2)
    nor B, F's sum is not ranked, and b1's best is A's 0.60."""
    scores = {"A": {"b1": 0.60, "b2": 0.50}, "B": {"b1": 0.55, "b2": 0.40},
              "F": {"b1": 0.75, "b2": 0.45}}  # fmt: skip
    flags = {("F", "b1")}
    table = overall_table(scores, ["b1", "b2"], flags=flags)
    assert [r[:2] for r in table.rows] == [[1, "A"], [None, "F"]]  # B: beaten by A on both
    assert (0, 2) in table.best and (1, 2) not in table.best and (1, 4) in table.constant
    top = top_table(scores, "b1", 3, flags=flags)
    assert [r[:2] for r in top.rows] == [[1, "A"], [2, "B"], [None, "F"]]


def test_results_in_memory_carry_their_rows(mc30: list) -> None:
    """A result just computed is an entry with per-item rows (the docs' charts are drawn from
    such results): its rows are read from memory, one per gold pair."""
    from simeval.api import evaluate
    from simeval.report.collect import entry_of

    (result,) = evaluate("random:seed=1", "mc30")
    entry = entry_of(result)
    assert entry.has_items and len(entry.items()["score"]) == len(mc30) == 30


def test_the_reports_guide_counts_what_it_says(data_dir: Path) -> None:
    """docs/guide/reports.md's counts: the RUSSE members' rows, distinct pairs and pairs in two
    members, counted from the gold files here; overlap's pairs scored above 0, counted from
    its scores (the rule's 99% is then checked by hand)."""
    from simeval.api import evaluate

    page = (Path(__file__).resolve().parents[2] / "docs/guide/reports.md").read_text("utf-8")
    page = " ".join(page.split())
    said = re.search(
        r"(\d+) pairs belong to two members, so the suite has ([\d,]+) items for ([\d,]+) "
        r"distinct pairs",
        page,
    )
    assert said, "the sentence moved"
    rows = [
        (r["word1"], r["word2"]) for f in MEMBERS.values() for r in _rows(data_dir / "russe" / f)
    ]
    counted = [len(rows) - len(set(rows)), len(rows), len(set(rows))]
    assert [int(g.replace(",", "")) for g in said.groups()] == counted
    above = re.search(
        r"scored above 0: HJ (\d+) of ([\d,]+), RT (\d+) of ([\d,]+), AE (\d+) of ([\d,]+), "
        r"WordSim-353 (\d+) of ([\d,]+)\)",
        page,
    )
    assert above, "the sentence moved"
    numbers = [int(g.replace(",", "")) for g in above.groups()]
    benches = ["russe-hj", "russe-rt", "russe-ae", "wordsim353"]
    results = {r.benchmark: r for r in evaluate("overlap", "russe", "wordsim353")}
    for k, n, bench in zip(numbers[::2], numbers[1::2], benches, strict=True):
        scores = np.asarray(results[bench].items["score"], dtype=float)
        assert (len(scores), int((scores > 0).sum())) == (n, k), bench
        assert (n - k) / n >= 0.99  # tied at 0: no information by the stated rule


def test_compare_gives_no_verdict_for_a_tied_system(russe: dict) -> None:
    """`simeval compare flat signal -b russe-rt`: flat's AP is higher (the premise above), but
    its scores are 99.99% tied, so the verdict crowns no one and still shows the test's p."""
    from simeval.report.compare import compare, verdict_text

    grid = load_grid(russe["folder"])
    v = compare(grid.get("flat", "russe-rt"), grid.get("signal", "russe-rt"), Resampling(100))
    assert v.main.difference > 0 and v.tied == ["flat"] and v.constant == []
    text = verdict_text(v)
    assert text.startswith("none: the scores of flat are at least 99% tied at one value, so ")
    assert "approximate randomization, p" in text and "better" not in text


def test_an_entry_counts_its_ties_once(russe: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    """A report asks each entry whether it carries information hundreds of times (every
    compare, tier and table; 912 times for 45 entries in benchmarks/report_speed.py's
    report): the rows are counted once, the answer kept."""
    from simeval.report import ties

    counted: list[int] = []
    real = ties.no_information

    def counting(items: dict, mask: np.ndarray | None = None) -> bool:
        counted.append(1)
        return real(items, mask)

    monkeypatch.setattr(ties, "no_information", counting)
    grid = load_grid(russe["folder"])
    unflagged = [e for e in grid.entries.values() if "constant" not in e.record.get("flags", [])]
    flat = next(e for e in unflagged if e.system == "flat")  # one pair apart: tied, not constant
    assert [flat.no_information for _ in range(5)] == [True] * 5
    for _ in range(3):
        assert grid.no_information() == grid.no_information()
    assert len(counted) == len(unflagged)  # a constant flag answers without the rows
