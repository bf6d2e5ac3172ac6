"""The relation-graph measure and `simeval train graph`: no RUSSE test pair in any training
signal (checked against the raw CSV files with the csv module, not with the code under test),
and the graph scores against dense numpy matrices computed here."""

from __future__ import annotations

import csv
import hashlib
import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from simeval.cli import app
from simeval.errors import InputError
from simeval.measures import create_measure
from simeval.measures.graph import RelationGraph
from simeval.train.graph import cross_fitted

RELATIONS = ("rt.csv", "ae-train.csv", "ae2-train.csv", "hj-train.csv")
TESTS = ("test.csv", "hj-test.csv", "rt-test.csv", "ae-test.csv", "ae2-test.csv")


def _norm(word: str) -> str:
    return word.strip().lower().replace("ё", "е")


def _csv_pairs(path: Path) -> list[tuple[str, str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return [(r["word1"], r["word2"], r["sim"]) for r in csv.DictReader(f)]


def _test_keys(russe: Path) -> set[tuple[str, str]]:
    """Every RUSSE test pair, raw and normalized, in both directions."""
    keys: set[tuple[str, str]] = set()
    for name in TESTS:
        for a, b, _ in _csv_pairs(russe / name):
            keys |= {(a, b), (b, a), (_norm(a), _norm(b)), (_norm(b), _norm(a))}
    return keys


def _tsv(path: Path) -> list[tuple[str, str, str]]:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    assert rows[0] == ["word1", "word2", "source"]
    return [tuple(r) for r in rows[1:]]  # type: ignore[misc]


@pytest.fixture(scope="module")
def graph_dir(tmp_path_factory: pytest.TempPathFactory, data_dir: Path) -> Path:
    out = tmp_path_factory.mktemp("graph") / "ru-graph"
    args = ["train", "graph", "--exclude", "russe", "--out", str(out)]
    for name in RELATIONS:
        args += ["--relations", str(data_dir / "russe" / name)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def test_no_test_pair_in_edges_or_negatives(graph_dir: Path, data_dir: Path) -> None:
    keys = _test_keys(data_dir / "russe")
    assert len(keys) > 28000  # 14,835 rows, some repeated, both directions
    edges, negatives = _tsv(graph_dir / "edges.tsv"), _tsv(graph_dir / "negatives.tsv")
    assert len(edges) > 60000 and len(negatives) > 100000
    leaked = [(a, b) for a, b, _ in edges + negatives if (a, b) in keys or (b, a) in keys]
    assert leaked == []


def test_every_allowed_relation_is_kept(graph_dir: Path, data_dir: Path) -> None:
    """The exclusion drops exactly the test pairs: counted here from the raw files."""
    keys = _test_keys(data_dir / "russe")
    record = json.loads((graph_dir / "graph.json").read_text(encoding="utf-8"))
    by_source = {f["source"]: f for f in record["files"]}
    related = set()
    for name in RELATIONS:
        rows = _csv_pairs(data_dir / "russe" / name)
        dropped = sum((_norm(a), _norm(b)) in keys for a, b, _ in rows)
        entry = by_source[name.removesuffix(".csv").removesuffix("-train")]
        assert entry["excluded"] == dropped
        assert entry["rows"] == len(rows)
        sha = hashlib.sha256((data_dir / "russe" / name).read_bytes()).hexdigest()
        assert entry["sha256"] == sha
        related |= {
            (_norm(a), _norm(b))
            for a, b, s in rows
            if float(s) >= 0.5 and (_norm(a), _norm(b)) not in keys
        }
    # rt-test lies inside rt.csv: its 9,548 pairs are all among the dropped rows
    rt_test = {(_norm(a), _norm(b)) for a, b, _ in _csv_pairs(data_dir / "russe/rt-test.csv")}
    assert by_source["rt"]["excluded"] >= len(rt_test)
    assert {(a, b) for a, b, _ in _tsv(graph_dir / "edges.tsv")} == related
    assert {Path(f["path"]).name for f in record["excluded_files"]} == set(TESTS)


def test_learned_training_rows_hold_no_test_pair(graph_dir: Path, data_dir: Path) -> None:
    """The learned scorer's rows are the folder's edges and negatives (cross_fitted), so the
    check above covers them; here: cross_fitted's rows, read back, contain no test pair."""
    keys = _test_keys(data_dir / "russe")
    edges, negatives = _tsv(graph_dir / "edges.tsv"), _tsv(graph_dir / "negatives.tsv")
    pairs, labels, _, _ = cross_fitted(edges[:3000], negatives[:3000], ["rt", "ae", "ae2"], 3, 0)
    assert not any(p in keys for p in pairs)
    assert labels.sum() == 3000


def test_no_russe_pair_is_an_edge_for_the_measure(graph_dir: Path, data_dir: Path) -> None:
    m = create_measure(f"graph:path={graph_dir},score=walk")
    pairs = [(a, b) for a, b, _ in _csv_pairs(data_dir / "russe/test.csv")]
    feats = m.graph.pair_features(pairs)  # type: ignore[attr-defined]
    assert feats["edge"].sum() == 0
    assert np.all(m.score_words(pairs) < 1.0)


# -- the scores against dense matrices --------------------------------------------------------

EDGES = [
    ("a", "b", "x"),
    ("a", "c", "x"),
    ("b", "c", "y"),
    ("c", "d", "y"),
    ("d", "e", "x"),
    ("b", "e", "y"),
    ("Ёж", "a", "y"),
]


def test_scores_match_dense_computation() -> None:
    g = RelationGraph([(a.lower().replace("ё", "е"), b, s) for a, b, s in EDGES], ["x", "y"])
    words = sorted(g.index, key=g.index.get)
    n = len(words)
    a = np.zeros((n, n))
    for u, v, _ in EDGES:
        i, j = g.index[_norm(u)], g.index[_norm(v)]
        a[i, j] = a[j, i] = 1
    d = a.sum(1)
    p = a / d[:, None]
    p2, p3 = p @ p, p @ p @ p
    pairs = [("a", "d"), ("b", "d"), ("ЁЖ", "c"), ("a", "e"), ("a", "zz")]
    f = g.pair_features(pairs)
    for k, (u, v) in enumerate(pairs):
        if v == "zz":
            assert f["cn"][k] == 0 and f["walk3"][k] == 0
            continue
        i, j = g.index[_norm(u)], g.index[_norm(v)]
        common = [z for z in range(n) if a[i, z] and a[j, z]]
        assert f["cn"][k] == len(common)
        assert f["aa"][k] == pytest.approx(sum(1 / math.log(1 + d[z]) for z in common))
        assert f["ra"][k] == pytest.approx(sum(1 / d[z] for z in common))
        assert f["walk2"][k] == pytest.approx((p2[i, j] + p2[j, i]) / 2)
        assert f["walk3"][k] == pytest.approx((p3[i, j] + p3[j, i]) / 2)
        assert f["edge"][k] == a[i, j]
    assert f["cn"][0] == 1  # a–d: c is their one common neighbour


def test_cross_fitting_removes_a_word1s_relations() -> None:
    """A row's features come from a graph without its word1's pairs: a positive a–b whose
    only link is the edge itself has no path left (cn 0), whatever fold it falls in."""
    edges = [("a", "b", "x"), ("a", "c", "x"), ("c", "b", "x"), ("p", "q", "x")]
    pairs, labels, _, raw = cross_fitted(edges, [("p", "b", "x")], ["x"], 2, 0)
    row = pairs.index(("p", "q"))
    assert raw["edge"][row] == 0 and raw["cn"][row] == 0 and labels[row] == 1
    assert raw["edge"].sum() == 0  # no row ever sees its own pair as an edge


def test_spec_is_checked(graph_dir: Path) -> None:
    from simeval.errors import InputError

    with pytest.raises(InputError, match="unknown parameter"):
        create_measure(f"graph:path={graph_dir},nope=1")
    with pytest.raises(InputError, match="needs vectors"):
        create_measure(f"graph:path={graph_dir},fallback=vectors")
    with pytest.raises(InputError, match=r"no model\.json"):
        create_measure(f"graph:path={graph_dir},score=learned")


def test_learned_score_is_sklearns_probability() -> None:
    """``predict`` applied to a model.json written the way ``learn`` writes it gives
    scikit-learn's predict_proba of the scaled features."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    from simeval.measures.graph import feature_matrix, predict

    rng = np.random.default_rng(3)
    raw = {"cn": rng.integers(0, 5, 200).astype(float), "cosine": rng.normal(size=200)}
    y = (raw["cn"] + raw["cosine"] + rng.normal(size=200) > 2).astype(int)
    x = np.column_stack([np.log1p(raw["cn"]), raw["cosine"]])  # log1p of counts, cosine as is
    scaler = StandardScaler().fit(x)
    clf = LogisticRegression().fit(scaler.transform(x), y)
    model = {
        "features": ["cn", "cosine"],
        "mean": scaler.mean_.tolist(),
        "scale": scaler.scale_.tolist(),
        "coef": clf.coef_[0].tolist(),
        "intercept": float(clf.intercept_[0]),
    }
    assert np.allclose(feature_matrix(raw, ["cn", "cosine"]), x)
    expected = clf.predict_proba(scaler.transform(x))[:, 1]
    assert np.allclose(predict(model, raw), expected)


@pytest.mark.parametrize(
    ("edges", "record", "message"),
    [
        (b"word1\tword2\tsource\n\xff\xfe\tdog\tx\n", '{"sources": ["x"]}', "not valid UTF-8"),
        (b"word1\tword2\tsource\ncat\tdog\tx\n", '{"sources": 3}', "'sources' to be a list"),
        (b"word1\tword2\tsource\ncat\tdog\tx\n", '{"sources": ["y"]}', "source 'x' is not in"),
    ],
    ids=["not-utf8", "sources-not-a-list", "unknown-source"],
)
def test_a_damaged_graph_folder_is_refused(
    tmp_path: Path, edges: bytes, record: str, message: str
) -> None:
    """A graph folder whose edges are not UTF-8, whose record's sources are not a list, or
    whose edge names a source the record lacks gave a UnicodeDecodeError, TypeError or
    KeyError traceback (fuzz: measure-spec)."""
    (tmp_path / "edges.tsv").write_bytes(edges)
    (tmp_path / "graph.json").write_text(record)
    with pytest.raises(InputError, match=message):
        create_measure(f"graph:path={tmp_path}")
