"""The user's own benchmarks — a pair file, an STS folder, a linking folder and a TOML registry —
evaluated, predicted and scored like catalog ones; expected values from scipy, scikit-learn,
pytrec_eval and hashlib on the files the test writes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from scipy.stats import pearsonr, spearmanr
from sklearn.metrics import average_precision_score
from typer.testing import CliRunner

from simeval.api import load_target
from simeval.cli import app
from simeval.errors import InputError
from simeval.metrics.stats import Resampling

runner = CliRunner()

GOLD = [  # word1 word2 gold: made up for the test
    ("cat", "car", 2.0),
    ("cat", "cart", 3.5),
    ("dog", "dot", 1.0),
    ("house", "horse", 4.0),
    ("tree", "tea", 0.5),
    ("sun", "sum", 2.5),
    ("moon", "mood", 3.0),
    ("river", "rivet", 5.0),
]
SENTENCES = [  # (sentence 1, sentence 2, gold 0-5), two datasets
    [
        ("a cat sat on the mat", "the cat sat on a mat", 4.8),
        ("dogs bark at night", "a dog barked loudly", 2.5),
        ("rain falls in spring", "snow falls in winter", 1.5),
        ("he reads a book", "she writes a letter", 0.5),
        ("the sun is bright", "the bright sun shines", 4.0),
    ],
    [
        ("stocks fell sharply", "shares dropped a lot", 3.5),
        ("the team won the cup", "the team lost the final", 1.0),
        ("prices rose again", "prices rose once more", 4.6),
        ("a man plays guitar", "a man is playing a guitar", 4.9),
    ],
]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def _records(text: str) -> dict[str, dict]:
    return {r["benchmark"]: r for r in map(json.loads, text.splitlines())}


@pytest.fixture
def pair_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_pairs.tsv"
    path.write_text("w1\tw2\tmean\n" + "".join(f"{a}\t{b}\t{g}\n" for a, b, g in GOLD))
    return path


@pytest.fixture
def sts_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "lab-sts"
    folder.mkdir()
    for name, rows in zip(("news", "pics"), SENTENCES, strict=True):
        (folder / f"STS.input.{name}.txt").write_text("".join(f"{a}\t{b}\n" for a, b, _ in rows))
        (folder / f"STS.gs.{name}.txt").write_text("".join(f"{g}\n" for _, _, g in rows))
    return folder


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


@pytest.fixture
def links_dir(tmp_path: Path) -> Path:
    """Four queries, six English documents; each query shares words with its linked one."""
    folder = tmp_path / "links"
    folder.mkdir()
    english = [
        "the river bank flooded in spring",
        "a new bridge crosses the river",
        "the football team won the league",
        "prices of bread rose sharply",
        "the orchestra played a long symphony",
        "a storm closed the mountain pass",
    ]
    queries = ["river bank spring flood", "team league football", "bread prices", "storm pass"]
    gold = [0, 2, 3, 5]
    _write_jsonl(
        folder / "corpus.jsonl",
        [
            {"id": f"en{i}", "source": "hand", "doc_id": str(i), "text": t}
            for i, t in enumerate(english)
        ],
    )
    _write_jsonl(
        folder / "queries.jsonl",
        [
            {"id": f"q{i}", "source": "hand", "doc_id": str(i), "text": t, "split": "test"}
            for i, t in enumerate(queries)
        ],
    )
    (folder / "qrels.test").write_text("".join(f"q{i} 0 en{d} 1\n" for i, d in enumerate(gold)))
    return folder


def test_pair_file_evaluate_predict_score(pair_file: Path, tmp_path: Path) -> None:
    spec = "orthographic:kind=dice"
    out = tmp_path / "pred.csv"
    _run("predict", spec, "-s", str(pair_file), "--out", str(out))
    lines = out.read_text().splitlines()
    assert lines[0] == "word1,word2,sim" and len(lines) == len(GOLD) + 1
    predicted = {tuple(x.split(",")[:2]): float(x.split(",")[2]) for x in lines[1:]}
    expected = spearmanr([predicted[(a, b)] for a, b, _ in GOLD], [g for *_, g in GOLD])[0]

    evaluated = _records(
        _run("evaluate", spec, "-b", str(pair_file), "--results", str(tmp_path / "r"), "--json")
    )
    scored = _records(_run("score", "file", str(pair_file), str(out), "--json"))
    for records in (evaluated, scored):
        (r,) = records.values()
        assert r["benchmark"] == str(pair_file)  # named by the path as given
        assert r["metrics"]["spearman"] == pytest.approx(expected, abs=1e-12)
        assert r["data"] == {str(pair_file): _sha(pair_file)}
    # the same file through `score pairs --gold`
    again = _records(_run("score", "pairs", "--gold", str(pair_file), "--pred", str(out), "--json"))
    assert again[str(pair_file)]["metrics"]["spearman"] == pytest.approx(expected, abs=1e-12)


def test_pair_file_related_kind_and_gold_column(tmp_path: Path) -> None:
    gold = tmp_path / "rel.csv"
    labels = [1, 0, 1, 0, 1, 1, 0, 0]
    gold.write_text(
        "a,b,note,label\n"
        + "".join(f"{a},{b},x,{y}\n" for (a, b, _), y in zip(GOLD, labels, strict=True))
    )
    pred = tmp_path / "p.csv"
    scores = [0.9, 0.1, 0.8, 0.3, 0.2, 0.7, 0.4, 0.6]
    pred.write_text("".join(f"{a},{b},{s}\n" for (a, b, _), s in zip(GOLD, scores, strict=True)))
    records = _records(
        _run(
            "score",
            "file",
            str(gold),
            str(pred),
            "--kind",
            "related",
            "--gold-column",
            "label",
            "--json",
        )
    )
    r = records[str(gold)]
    assert r["task"] == "related-pairs"
    # step-wise AP has no ties here: scikit-learn's definition
    assert r["metrics"]["ap"] == pytest.approx(average_precision_score(labels, scores), abs=1e-12)
    with pytest.raises(InputError, match="--kind"):
        load_target(str(gold), kind="ranked", gold_column="label")


def test_sts_folder_is_a_suite_with_all(sts_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "outputs"
    _run("predict", "overlap", "-s", str(sts_dir), "--out", str(out))
    assert sorted(p.name for p in out.iterdir()) == ["STS.output.news.txt", "STS.output.pics.txt"]
    systems = [np.loadtxt(out / f"STS.output.{n}.txt", ndmin=1) for n in ("news", "pics")]
    golds = [np.array([g for *_, g in rows]) for rows in SENTENCES]
    expected_all = pearsonr(np.concatenate(systems), np.concatenate(golds))[0]
    evaluated = _records(
        _run("evaluate", "overlap", "-b", str(sts_dir), "--results", str(tmp_path / "r"), "--json")
    )
    scored = _records(_run("score", "file", str(sts_dir), str(out), "--json"))
    for records in (evaluated, scored):
        suite = str(sts_dir)
        assert set(records) == {f"{suite}-news", f"{suite}-pics", suite}
        assert records[suite]["metrics"]["all"] == pytest.approx(expected_all, abs=1e-12)
        assert records[f"{suite}-news"]["metrics"]["pearson"] == pytest.approx(
            pearsonr(systems[0], golds[0])[0], abs=1e-12
        )
    f = sts_dir / "STS.gs.news.txt"
    assert evaluated[f"{sts_dir}-news"]["data"][str(f)] == _sha(f)


def test_linking_folder_evaluate_predict_score(links_dir: Path, tmp_path: Path) -> None:
    run = tmp_path / "links.run"
    _run("predict", "overlap", "-s", str(links_dir), "--out", str(run))
    rows = [line.split() for line in run.read_text().splitlines()]
    assert all(r[1] == "X" and r[3] == "Y" for r in rows)  # BUCC's six fields
    per_query: dict = {}
    for q, _, d, _, s, _ in rows:
        per_query.setdefault(q, {})[d] = float(s)
    qrels = {f"q{i}": {f"en{d}": 1} for i, d in enumerate([0, 2, 3, 5])}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "success"}).evaluate(per_query)
    mrr = np.mean([v["recip_rank"] for v in theirs.values()])
    s1 = np.mean([v["success_1"] for v in theirs.values()])
    evaluated = _records(
        _run(
            "evaluate", "overlap", "-b", str(links_dir), "--results", str(tmp_path / "r"), "--json"
        )
    )
    scored = _records(_run("score", "file", str(links_dir), str(run), "--json"))
    for records in (evaluated, scored):
        r = records[str(links_dir)]
        assert r["metrics"]["recip_rank"] == pytest.approx(mrr, abs=1e-12)
        assert r["metrics"]["success_1"] == pytest.approx(s1, abs=1e-12)
        assert r["data"][str(links_dir / "qrels.test")] == _sha(links_dir / "qrels.test")
    # qrels alone: runs can be scored, a measure cannot rank
    (links_dir / "queries.jsonl").unlink()
    scored = _records(_run("score", "file", str(links_dir), str(run), "--json"))
    assert scored[str(links_dir)]["metrics"]["recip_rank"] == pytest.approx(mrr, abs=1e-12)
    failed = runner.invoke(app, ["evaluate", "overlap", "-b", str(links_dir), "--no-save"])
    assert failed.exit_code == 2 and "no documents to rank" in failed.output


def test_registry_suite_everywhere(
    pair_file: Path, sts_dir: Path, links_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    registry = tmp_path / "lab.toml"
    registry.write_text(
        f"""
[benchmark.lab-verbs]
kind = "graded"
gold = "{pair_file.name}"
column = "mean"
description = "hand-made pairs"

[benchmark.lab-news]
kind = "sts"
input = "lab-sts/STS.input.news.txt"
gold = "lab-sts/STS.gs.news.txt"

[benchmark.lab-links]
kind = "linking"
folder = "links"

[suite.lab]
members = ["lab-verbs", "mc30"]
aggregate = "mean"
"""
    )
    results = tmp_path / "results"
    listing = _run("benchmarks", "--registry", str(registry))
    assert "lab-verbs" in listing and "lab-links" in listing and "lab" in listing
    for spec in ("orthographic:kind=dice", "orthographic:kind=levenshtein"):
        text = _run(
            "evaluate",
            spec,
            "-s",
            "lab",
            "-b",
            "lab-news",
            "-b",
            "lab-links",
            "--registry",
            str(registry),
            "--results",
            str(results),
            "--json",
        )
        records = _records(text)
        assert set(records) == {"lab-verbs", "mc30", "lab", "lab-news", "lab-links"}
        # the suite's mean: the members' metrics averaged, each member weighing the same
        members = [records["lab-verbs"]["metrics"], records["mc30"]["metrics"]]
        for k in ("spearman", "pearson"):
            expected = np.mean([m[k] for m in members])
            assert records["lab"]["metrics"][k] == pytest.approx(expected, abs=1e-12)
        assert records["lab"]["main_metric"] == "spearman"
        assert records["lab-verbs"]["data"] == {str(pair_file.resolve()): _sha(pair_file)}
    # through SIMEVAL_REGISTRY: predict and score by name
    monkeypatch.setenv("SIMEVAL_REGISTRY", str(registry))
    out = tmp_path / "verbs.csv"
    _run("predict", "orthographic:kind=levenshtein", "-s", "lab-verbs", "--out", str(out))
    scored = _records(_run("score", "file", "lab-verbs", str(out), "--json"))
    evaluated = _records((results / "results.jsonl").read_text())  # the latest record wins
    assert scored["lab-verbs"]["metrics"] == pytest.approx(evaluated["lab-verbs"]["metrics"])
    compared = runner.invoke(
        app,
        [
            "compare",
            "orthographic:kind=dice",
            "orthographic:kind=levenshtein",
            "-b",
            "lab-verbs",
            "--results",
            str(results),
            "-B",
            "200",
        ],
    )
    assert compared.exit_code == 0 and "verdict:" in compared.stdout
    # a mean over members is not one correlation: the bootstrap decides, not Williams
    from simeval.report.collect import load_grid
    from simeval.report.compare import compare

    grid = load_grid(results)
    a, b = (grid.get(s, "lab") for s in grid.systems)
    v = compare(a, b, Resampling(100))
    assert v.main.metric == "spearman" and v.main.test == "paired bootstrap"
    # the report's "all" subset of a mean suite is the suite's own number, not a pooled one
    from simeval.report.subsets import Subset, score_subsets

    everything = Subset("", "all", np.ones(len(a.items()["gold"]), dtype=bool))
    (s,) = score_subsets(a.task, a.items(), [everything], Resampling(50))
    assert s.value == pytest.approx(a.record["metrics"]["spearman"], abs=1e-12)
    # results, leaderboard and report show the user's suite
    table = _run("results", str(results))
    assert "lab-verbs" in table and "lab-news" in table
    board = _run("leaderboard", str(results), "--format", "csv")
    header = board.splitlines()[0].split(",")
    assert "lab" in header and "lab-links" in header
    page = tmp_path / "report.html"
    _run("report", str(results), "--html", str(page), "-B", "50")
    html = page.read_text()
    assert all(b in html for b in ("lab-verbs", "lab-news", "lab-links", ">lab<"))


def test_registry_errors_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[benchmark.x]\nkind = "graded"\n')
    with pytest.raises(InputError, match="'gold' is required"):
        load_target("x", registry=bad)
    bad.write_text('[suite.s]\nmembers = ["nope"]\n')
    with pytest.raises(InputError, match="member 'nope' is unknown"):
        load_target("s", registry=bad)
    result = runner.invoke(app, ["evaluate", "jaccard", "-b", "simlex99", "--no-save"])
    assert result.exit_code == 2 and "did you mean simlex999" in result.output


def test_xling_collection_is_built_once(store, monkeypatch) -> None:
    """The first load builds the BUCC preparation into the cache with a manifest; the next
    reads it back without touching the raw files, and both are the same collection."""
    from simeval.cache import cache_root
    from simeval.data import docpairs
    from simeval.datasets import bucc

    first = load_target("xling-tr-en", store)
    manifests = list(cache_root().glob("collections/xling-tr-en-*/manifest.json"))
    assert len(manifests) == 1
    manifest = json.loads(manifests[0].read_text())
    assert manifest["settings"]["lang"] == "tr" and manifest["inputs"]
    assert all(store.sha256(f) == sha for f, sha in manifest["inputs"].items())

    def refuse(*_a, **_k):
        raise AssertionError("the raw files were read again")

    monkeypatch.setattr(docpairs, "xling_pairs", refuse)
    again = load_target("xling-tr-en", store)
    direct = bucc.prepare(*_raw("tr", store))
    for c in (first.collection, again.collection):
        assert [(q.id, q.text, q.split) for q in c.queries] == [
            (q.id, q.text, q.split) for q in direct.queries
        ]
        assert [(d.id, d.text) for d in c.corpus] == [(d.id, d.text) for d in direct.corpus]
        assert c.links == direct.links


def _raw(lang: str, store) -> tuple:
    from simeval.data.docpairs import _sources

    pairs = [p for _, reader, _ in _sources(lang) for p in reader(store.path)]
    return pairs, lang
