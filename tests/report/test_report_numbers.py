"""The HTML report's numbers, recomputed here from the item rows with scipy and a seeded
resampler written in the test, and compared with what the page shows (parsed from the HTML):
metric values and bootstrap intervals, Fisher-z intervals, Holm-adjusted p against the best,
subset scores with their intervals, and a `--by` split."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest
from scipy.stats import norm, pearsonr, spearmanr
from scipy.stats import t as student_t
from typer.testing import CliRunner

from simeval.api import load_target, score
from simeval.cli import app
from simeval.metrics import catalog
from simeval.results.store import save_results

B, SEED = 200, 0
NOISE = {"close": 3.0, "middle": 3.25, "far": 3.6}


class Tables(HTMLParser):
    """Every table of a page: caption -> rows of cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.caption: str | None = None
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None
        self.in_caption = False

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.rows, self.caption = [], ""
        elif tag == "caption":
            self.in_caption = True
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "caption":
            self.in_caption = False
        elif tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "table" and self.caption is not None:
            self.tables[self.caption] = self.rows

    def handle_data(self, data: str) -> None:
        if self.in_caption:
            self.caption = (self.caption or "") + data
        elif self.cell is not None:
            self.cell.append(data)


@pytest.fixture(scope="module")
def page(store, tmp_path_factory) -> tuple[dict, dict]:
    """Three systems on SimLex-999 (gold plus noise of three sizes), and the report on them."""
    folder = tmp_path_factory.mktemp("report")
    bench = load_target("simlex999", store)
    gold = np.asarray(bench.gold.scores)
    rng = np.random.default_rng(1)
    scores = {}
    for name, noise in NOISE.items():
        scores[name] = gold + rng.normal(0, noise, len(gold))
        f = folder / f"{name}.csv"
        f.write_text(
            "".join(
                f"{a},{b},{float(s)!r}\n"
                for (a, b), s in zip(bench.gold.pairs, scores[name], strict=True)
            )
        )
        save_results(folder / "res", score(bench, f, system={"name": name}))
    html = folder / "report.html"
    result = CliRunner().invoke(
        app,
        [
            "report",
            str(folder / "res"),
            "--html",
            str(html),
            "-B",
            str(B),
            "--seed",
            str(SEED),
            "--by",
            "SD(SimLex)",
        ],
    )
    assert result.exit_code == 0, result.output
    parser = Tables()
    parser.feed(html.read_text())
    items = {
        "gold": gold,
        "POS": np.asarray(bench.gold.columns["POS"]),
        "SD": np.asarray(bench.gold.columns["SD(SimLex)"], dtype=float),
    }
    return parser.tables, {"scores": scores, **items}


def _boot(gold: np.ndarray, score: np.ndarray, stat) -> tuple[float, float]:
    """Percentile interval (2.5, 97.5) of ``stat`` over B resamples of the items drawn with
    numpy's generator seeded SEED, as the report promises."""
    rng = np.random.default_rng(SEED)
    values = []
    for _ in range(B):
        rows = rng.integers(0, len(gold), len(gold))
        values.append(stat(score[rows], gold[rows]))
    low, high = np.nanpercentile(values, [2.5, 97.5])
    return float(low), float(high)


def _rho(x: np.ndarray, y: np.ndarray) -> float:
    return float(spearmanr(x, y)[0])


def _table(tables: dict, start: str) -> dict[str, list[str]]:
    (rows,) = [r for caption, r in tables.items() if caption.startswith(start)]
    return {row[0].split(" ")[0]: row for row in rows[1:]}


def _named(tables: dict, start: str) -> dict[str, dict[str, str]]:
    """:func:`_table`'s rows, each cell under its column's header: the metric table has a
    column per declared metric, so the columns after them move when a metric is declared."""
    (rows,) = [r for caption, r in tables.items() if caption.startswith(start)]
    return {row[0].split(" ")[0]: dict(zip(rows[0], row, strict=True)) for row in rows[1:]}


def _cell(value: float, low: float, high: float) -> str:
    return f"{value:.4f} [{low:.4f}, {high:.4f}]"


def test_metric_values_and_bootstrap_intervals(page) -> None:
    tables, data = page
    rows = _named(tables, "simlex999: metrics")
    gold = data["gold"]
    for name, s in data["scores"].items():
        rho, r = _rho(s, gold), float(pearsonr(s, gold)[0])
        assert rows[name]["spearman (main)"] == _cell(rho, *_boot(gold, s, _rho))
        assert rows[name]["pearson"] == _cell(r, *_boot(gold, s, lambda a, b: pearsonr(a, b)[0]))
    # a column per metric declared for graded pairs, in record order, after the system's
    shown = [h.removesuffix(" (main)") for h in rows[name]][1:]
    declared = [m.name for m in catalog.of_kind("graded-pairs") if not m.count]
    assert shown[: len(declared)] == declared and shown[len(declared)] == "Fisher-z CI"


def test_fisher_z_interval_of_spearman(page) -> None:
    """Bonett and Wright's se for Spearman: sqrt((1 + r²/2) / (n − 3))."""
    tables, data = page
    rows = _named(tables, "simlex999: metrics")
    n = len(data["gold"])
    for name, s in data["scores"].items():
        rho = _rho(s, data["gold"])
        se = np.sqrt((1 + rho * rho / 2) / (n - 3))
        z, q = np.arctanh(rho), norm.ppf(0.975)
        fisher_z = f"[{np.tanh(z - q * se):.4f}, {np.tanh(z + q * se):.4f}]"
        assert rows[name]["Fisher-z CI"] == fisher_z


def test_holm_adjusted_williams_p_against_the_best(page) -> None:
    tables, data = page
    rows = _table(tables, "simlex999: metrics")
    gold, scores = data["gold"], data["scores"]
    n = len(gold)
    best = max(scores, key=lambda k: _rho(scores[k], gold))
    assert rows[best][-1] == "best"
    raw = {}
    for name, s in scores.items():
        if name == best:
            continue
        r12, r13 = _rho(scores[best], gold), _rho(s, gold)
        r23 = _rho(scores[best], s)
        det = 1 - r12**2 - r13**2 - r23**2 + 2 * r12 * r13 * r23
        rbar = (r12 + r13) / 2
        t = (r12 - r13) * np.sqrt(
            (n - 1) * (1 + r23) / (2 * (n - 1) / (n - 3) * det + rbar**2 * (1 - r23) ** 3)
        )
        raw[name] = 2 * student_t.sf(abs(t), n - 3)
    # Holm: sorted ascending, the i-th (from 0) times (m − i), then a running maximum
    order = sorted(raw, key=raw.get)
    adjusted, running = {}, 0.0
    for i, name in enumerate(order):
        running = max(running, min(1.0, (len(order) - i) * raw[name]))
        adjusted[name] = running
    # systems close enough that Holm's order matters (a swapped order fails this test)
    assert all(1e-4 < p < 1 for p in raw.values()) and len(set(adjusted.values())) == 2
    for name, p in adjusted.items():
        text = "< 1e-4" if p < 1e-4 else f"{p:.4f}"
        assert rows[name][-1] == text + (" *" if p < 0.05 else "")


def test_subset_scores_by_pos_with_intervals(page) -> None:
    tables, data = page
    rows = _table(tables, "simlex999 by POS")
    gold = data["gold"]
    columns = list(data["scores"])
    for label in ("A", "N", "V"):
        mask = data["POS"] == label
        assert rows[label][1] == str(int(mask.sum()))
        for j, name in enumerate(columns):
            s = data["scores"][name][mask]
            expected = _cell(_rho(s, gold[mask]), *_boot(gold[mask], s, _rho))
            assert rows[label][2 + j] == expected


def test_by_column_splits_into_pandas_quartiles(page) -> None:
    import pandas as pd

    tables, data = page
    rows = _table(tables, "simlex999 by SD(SimLex)")
    quartile = pd.qcut(data["SD"], 4, labels=False) + 1
    for k in range(1, 5):
        mask = quartile == k
        assert rows[f"Q{k}"][1] == str(int(mask.sum()))
        s = data["scores"]["close"][mask]
        assert rows[f"Q{k}"][2].startswith(f"{_rho(s, data['gold'][mask]):.4f} [")


def test_overall_rule_russe_as_parts_sts_as_all(tmp_path) -> None:
    """RUSSE 2015 Table 5 ranks by its four parts; STS-2012 counts once, as ALL; the sum adds
    the shown columns (checked against the records themselves)."""
    import csv
    import io

    from simeval.api import evaluate

    results = tmp_path / "res"
    for spec in ("random:seed=1", "orthographic:kind=prefix"):
        evaluate(spec, "russe", "sts12", "mc30", results_dir=results)
    board = CliRunner().invoke(app, ["leaderboard", str(results), "-f", "csv", "--keep-dominated"])
    rows = list(csv.reader(io.StringIO(board.stdout)))
    columns = ["russe-hj", "russe-rt", "russe-ae", "russe-ae2", "sts12", "mc30"]
    assert rows[0] == ["rank", "system", *columns, "sum"]
    from simeval.results.store import load_results

    main = {
        (r["system"]["spec"], r["benchmark"]): r["metrics"][r["main_metric"]]
        for r in load_results(results)
    }
    for row in rows[1:]:
        expected = sum(main[(row[1], c)] for c in columns)
        assert float(row[-1]) == pytest.approx(expected, rel=1e-5)  # printed to 6 digits


def test_wordsim_ceilings_are_the_raters_agreement(store, tmp_path) -> None:
    """The WordSim-353 bars carry the raters' agreement as reference lines, stated under the
    plot: average pairwise Spearman and leave-one-out, pooled by pairs over set1 and set2,
    recomputed here with scipy from the raters' columns."""
    from itertools import combinations

    from simeval.api import evaluate

    def ratings(path):
        rows = [line.split("\t") for line in path.read_text().splitlines()[1:] if line.strip()]
        return np.array([[float(x) for x in r[3:] if x.strip()] for r in rows])

    pairwise, loo, weights = [], [], []
    for name in ("set1", "set2"):
        r = ratings(store.path(f"wordsim353/{name}.tab"))
        k = r.shape[1]
        pairwise.append(
            np.mean([spearmanr(r[:, i], r[:, j])[0] for i, j in combinations(range(k), 2)])
        )
        loo.append(np.mean([spearmanr(r[:, i], np.delete(r, i, 1).mean(1))[0] for i in range(k)]))
        weights.append(len(r))
    expected = (np.average(pairwise, weights=weights), np.average(loo, weights=weights))
    evaluate("random:seed=1", "wordsim353", results_dir=tmp_path / "res")
    html = tmp_path / "r.html"
    result = CliRunner().invoke(
        app, ["report", str(tmp_path / "res"), "--html", str(html), "-B", "50"]
    )
    assert result.exit_code == 0, result.output
    text = html.read_text()
    assert f"raters, pairwise ρ {expected[0]:.4f}" in text
    assert f"raters, leave-one-out ρ {expected[1]:.4f}" in text


# -- suites by member ----------------------------------------------------------------------------

SUITE_SYSTEMS = ["random:seed=1", "orthographic:kind=prefix"]


@pytest.fixture(scope="module")
def suite_page(tmp_path_factory) -> tuple[dict, dict]:
    """Two measures on RUSSE and STS-2012, the report on them, and each suite record's item
    rows as written beside it (items/<id>.tsv.gz, read here with pandas)."""
    import json

    import pandas as pd

    from simeval.api import evaluate

    folder = tmp_path_factory.mktemp("suites")
    for spec in SUITE_SYSTEMS:
        evaluate(spec, "russe", "sts12", results_dir=folder / "res")
    html = folder / "report.html"
    result = CliRunner().invoke(
        app, ["report", str(folder / "res"), "--html", str(html), "-B", str(B), "--seed", str(SEED)]
    )
    assert result.exit_code == 0, result.output
    parser = Tables()
    parser.feed(html.read_text())
    rows = {}
    for line in (folder / "res" / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        if record["benchmark"] in ("russe", "sts12"):
            items = pd.read_csv(
                folder / "res" / record["items_file"], sep="\t", quoting=3, keep_default_na=False
            )
            rows[(record["system"]["spec"], record["benchmark"])] = items[items["counted"] == 1]
    return parser.tables, rows


def _trapezoid_ap(gold: np.ndarray, score: np.ndarray) -> float:
    """The 2015 scorer's AP: scikit-learn's precision-recall curve, area by trapezoids."""
    from sklearn.metrics import precision_recall_curve

    precision, recall, _ = precision_recall_curve(gold, score)
    return float(-np.trapezoid(precision, recall))


def _cluster_boot(gold, score, word1, stat) -> tuple[float, float]:
    """Percentile interval over B resamples that draw whole word1 groups (as many as there are,
    with replacement; groups in word1 order), numpy's generator seeded SEED."""
    groups = [np.flatnonzero(word1 == w) for w in sorted(set(word1))]
    rng = np.random.default_rng(SEED)
    values = []
    for _ in range(B):
        rows = np.concatenate([groups[i] for i in rng.integers(0, len(groups), len(groups))])
        values.append(stat(gold[rows], score[rows]))
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


@pytest.mark.slow
def test_sts_suite_by_member_and_all(suite_page) -> None:
    """`sts12 by member`: each member's Pearson with its item bootstrap, n its pairs; the `all`
    row the pooled Pearson (ALL) with a bootstrap drawing within each member (members in name
    order), so every member keeps its size."""
    tables, rows = suite_page
    shown = _table(tables, "sts12 by member")
    members = sorted(set(rows[(SUITE_SYSTEMS[0], "sts12")]["benchmark"]))
    assert len(members) == 5 and set(shown) == {"all", *members}

    def pearson(a: np.ndarray, b: np.ndarray) -> float:
        return float(pearsonr(a, b)[0])

    for j, spec in enumerate(SUITE_SYSTEMS):
        items = rows[(spec, "sts12")]
        for member in members:
            part = items[items["benchmark"] == member]
            gold, score = part["gold"].to_numpy(float), part["score"].to_numpy(float)
            assert shown[member][1] == str(len(part))
            expected = _cell(pearson(score, gold), *_boot(gold, score, pearson))
            assert shown[member][2 + j] == expected, (spec, member)
        gold, score = items["gold"].to_numpy(float), items["score"].to_numpy(float)
        groups = [np.flatnonzero(items["benchmark"].to_numpy() == m) for m in members]
        rng = np.random.default_rng(SEED)
        values = []
        for _ in range(B):
            pick = np.concatenate([g[rng.integers(0, len(g), len(g))] for g in groups])
            values.append(pearson(score[pick], gold[pick]))
        low, high = np.percentile(values, [2.5, 97.5])
        assert shown["all"][1] == str(len(items))
        assert shown["all"][2 + j] == _cell(pearson(score, gold), low, high), spec


def test_russe_suite_by_member(suite_page) -> None:
    """`russe by member`: HJ's Spearman with an item bootstrap; RT, AE and AE2's 2015 AP
    (scikit-learn's PR curve, trapezoids) with a bootstrap drawing whole word1 groups."""
    tables, rows = suite_page
    shown = _table(tables, "russe by member")
    assert set(shown) == {"all", "russe-hj", "russe-rt", "russe-ae", "russe-ae2"}
    for j, spec in enumerate(SUITE_SYSTEMS):
        items = rows[(spec, "russe")]
        for member in ("russe-hj", "russe-rt", "russe-ae", "russe-ae2"):
            part = items[items["benchmark"] == member]
            gold, score = part["gold"].to_numpy(float), part["score"].to_numpy(float)
            assert shown[member][1] == str(len(part))
            if member == "russe-hj":
                expected = _cell(_rho(score, gold), *_boot(gold, score, _rho))
            else:
                word1 = part["word1"].to_numpy(str)
                interval = _cluster_boot(gold, score, word1, _trapezoid_ap)
                expected = _cell(_trapezoid_ap(gold, score), *interval)
            assert shown[member][2 + j] == expected, (spec, member)
