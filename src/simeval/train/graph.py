"""Build a relation graph from training relation files, every test pair removed, and
optionally learn how to score pairs from it (``simeval train graph``).

Relation files are CSV with a header holding ``word1``, ``word2`` and ``sim`` (RUSSE's rt.csv,
ae-train.csv, ae2-train.csv, hj-train.csv). A row is **related** when sim ≥ ``threshold``
(0.5; RUSSE's relation files hold 0 or 1) and **unrelated** when sim = 0. Words are graph
nodes (:func:`simeval.measures.graph.node`: lowercase, ё→е).

**Exclusion.** Every pair of the ``exclude`` files (the benchmarks' test files, and RUSSE's
test.csv of 14,835 pairs) is removed from the training relations in both directions, compared
as nodes: (a, b) is dropped when (a, b) or (b, a), normalized, is an excluded pair. Only
related rows become edges; unrelated rows are kept apart (``negatives.tsv``) as negatives for
the learned scorer.

**Learning** (:func:`learn`). Test words lose all their relations: RUSSE split its relations
by word1 (no rt/ae/ae2 test word1 is a word1 of the training files). The training rows mimic
this by cross-fitting: the word1s of the training rows are split into ``folds`` groups
(seeded); for group k a graph is built without any relation (related or unrelated, either
direction) whose pair belongs to a row of group k, and the rows of group k get their features
from that graph. A logistic regression (scikit-learn, L2, C = 1, classes weighted to balance,
features standardized) is fitted on all rows, related = 1, unrelated = 0, and saved as
coefficients in ``model.json`` with the cross-fitted average precision of each source.
"""

from __future__ import annotations

import csv
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from simeval.data.atomic import write_atomic
from simeval.data.textio import sha256_file
from simeval.errors import InputError
from simeval.measures.graph import EDGES, MODEL, RECORD, RelationGraph, feature_matrix, node
from simeval.train.folder import staged

NEGATIVES = "negatives.tsv"
GRAPH_FEATURES = [
    "cn",
    "aa",
    "ra",
    "jaccard",
    "walk2",
    "walk3",
    "deg_a",
    "deg_b",
]


@dataclass
class Relation:
    a: str
    b: str
    source: str
    related: bool


@dataclass
class GraphData:
    """Related edges and unrelated pairs after exclusion, with what was read and dropped."""

    sources: list[str]
    related: list[Relation] = field(default_factory=list)
    unrelated: list[Relation] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    excluded_files: list[dict[str, Any]] = field(default_factory=list)


def source_name(path: Path) -> str:
    """A source's name: the file name without ``.csv`` and ``-train`` (rt, ae, ae2, hj)."""
    name = path.name.removesuffix(".csv").removesuffix("-train")
    return name.replace("\t", " ")


def read_pairs(path: Path) -> list[tuple[str, str, str | None, int]]:
    """(word1, word2, sim text or None, line) of a CSV pair file with a word1,word2 header."""
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.reader(f)
        header = next(reader, None)
        if header is None or header[:2] != ["word1", "word2"]:
            raise InputError(path, 1, "expected a header starting word1,word2")
        sim = header.index("sim") if "sim" in header else None
        out = []
        for number, row in enumerate(reader, start=2):
            if not row:
                continue
            if len(row) != len(header) or not row[0].strip() or not row[1].strip():
                raise InputError(path, number, f"expected {len(header)} fields with two words")
            out.append((row[0], row[1], row[sim] if sim is not None else None, number))
    return out


def excluded_keys(paths: Sequence[Path]) -> tuple[set[tuple[str, str]], list[dict[str, Any]]]:
    """Every pair of the files, as nodes, in both directions; and a record of the files."""
    keys: set[tuple[str, str]] = set()
    record = []
    for path in paths:
        rows = read_pairs(path)
        for a, b, _, _ in rows:
            keys.add((node(a), node(b)))
            keys.add((node(b), node(a)))
        record.append({"path": str(path), "sha256": sha256_file(path), "pairs": len(rows)})
    return keys, record


def read_relations(
    paths: Sequence[Path], exclude: Sequence[Path], threshold: float = 0.5
) -> GraphData:
    """The related and unrelated pairs of the relation files, excluded pairs removed."""
    keys, excluded_record = excluded_keys(exclude)
    sources = [source_name(p) for p in paths]
    if len(set(sources)) != len(sources):
        raise InputError(None, None, f"two relation files share a source name: {sources}")
    data = GraphData(sources, excluded_files=excluded_record)
    for path, source in zip(paths, sources, strict=True):
        counts = {"rows": 0, "related": 0, "unrelated": 0, "excluded": 0, "between": 0}
        for a, b, sim, number in read_pairs(path):
            if sim is None:
                raise InputError(path, 1, "a relation file needs a sim column")
            try:
                value = float(sim)
            except ValueError:
                raise InputError(path, number, f"sim {sim!r} is not a number") from None
            counts["rows"] += 1
            na, nb = node(a), node(b)
            if (na, nb) in keys:
                counts["excluded"] += 1
                continue
            if value >= threshold:
                counts["related"] += 1
                data.related.append(Relation(na, nb, source, True))
            elif value == 0:
                counts["unrelated"] += 1
                data.unrelated.append(Relation(na, nb, source, False))
            else:
                counts["between"] += 1  # graded, neither related nor unrelated
        data.files.append({"path": str(path), "source": source, "sha256": sha256_file(path)})
        data.files[-1].update(counts)
    related = {(r.a, r.b) for r in data.related} | {(r.b, r.a) for r in data.related}
    before = len(data.unrelated)
    data.unrelated = [r for r in data.unrelated if (r.a, r.b) not in related]
    data.conflicts = before - len(data.unrelated)  # type: ignore[attr-defined]
    return data


def write_graph(data: GraphData, out: Path, threshold: float) -> Path:
    """``edges.tsv``, ``negatives.tsv`` and ``graph.json`` (inputs, sha256, counts)."""
    with staged(out) as tmp:  # written whole or not at all; an existing folder is refused
        for name, rows in ((EDGES, data.related), (NEGATIVES, data.unrelated)):
            with open(tmp / name, "w", encoding="utf-8") as f:
                f.write("word1\tword2\tsource\n")
                f.writelines(f"{r.a}\t{r.b}\t{r.source}\n" for r in rows)
        graph = RelationGraph(((r.a, r.b, r.source) for r in data.related), data.sources)
        record = {
            "sources": data.sources,
            "threshold": threshold,
            "files": data.files,
            "excluded_files": data.excluded_files,
            "excluded_pairs": sum(f["excluded"] for f in data.files),
            "unrelated_dropped_as_related_elsewhere": getattr(data, "conflicts", 0),
            "nodes": len(graph.index),
            "edges": graph.edges,
            "related_rows": len(data.related),
            "unrelated_rows": len(data.unrelated),
        }
        (tmp / RECORD).write_text(
            json.dumps(record, indent=2, ensure_ascii=False), encoding="utf-8"
        )
    return out


def read_negatives(folder: Path) -> list[tuple[str, str, str]]:
    with open(folder / NEGATIVES, encoding="utf-8") as f:
        next(f)
        return [tuple(line.rstrip("\n").split("\t")) for line in f]  # type: ignore[misc]


def cross_fitted(
    edges: list[tuple[str, str, str]],
    negatives: list[tuple[str, str, str]],
    sources: list[str],
    folds: int,
    seed: int,
    per_source: bool = True,
) -> tuple[list[tuple[str, str]], np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Rows (pairs), labels, source of each row and raw graph features, each row's features
    from the graph without its word1-group's relations (module docstring)."""
    rows = [(a, b, s, 1) for a, b, s in edges] + [(a, b, s, 0) for a, b, s in negatives]
    word1s = sorted({r[0] for r in rows})
    rng = np.random.default_rng(seed)
    group = dict(zip(word1s, rng.integers(0, folds, len(word1s)), strict=True))
    row_group = np.array([group[r[0]] for r in rows])
    pairs = [(r[0], r[1]) for r in rows]
    raw: dict[str, np.ndarray] = {}
    for k in range(folds):
        held = {(a, b) for (a, b, _, _), g in zip(rows, row_group, strict=True) if g == k}
        held |= {(b, a) for a, b in held}
        graph = RelationGraph(((a, b, s) for a, b, s in edges if (a, b) not in held), sources)
        idx = np.flatnonzero(row_group == k)
        feats = graph.pair_features([pairs[i] for i in idx])
        for name, values in feats.items():
            raw.setdefault(name, np.zeros(len(rows)))[idx] = values
    labels = np.array([r[3] for r in rows])
    source = np.array([r[2] for r in rows])
    return pairs, labels, source, raw


def _config_sha(vectors: str | None) -> str | None:
    """sha256 of a ``simeval train`` model's config.json (it records the corpus sha256)."""
    config = Path(vectors) / "config.json" if vectors else None
    return sha256_file(config) if config is not None and config.is_file() else None


def learn(
    folder: Path,
    vectors: str | None = None,
    folds: int = 10,
    seed: int = 0,
    per_source: bool = True,
    progress: Any = None,
) -> dict[str, Any]:
    """Fit the ``learned`` scorer of a graph folder and write ``model.json`` (see module)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import average_precision_score
    from sklearn.preprocessing import StandardScaler

    from simeval.measures.graph import read_edges

    start = time.perf_counter()
    edges, sources = read_edges(folder)
    negatives = read_negatives(folder)
    pairs, labels, source, raw = cross_fitted(edges, negatives, sources, folds, seed)
    names = list(GRAPH_FEATURES)
    if per_source:
        names += [f"ra_{s}" for s in sources] + [f"cn_{s}" for s in sources]
    if vectors:
        from simeval.measures import create_measure

        m = create_measure(f"vectors:path={vectors},oov=backoff,fallback=zero")
        m.prepare({w for p in pairs for w in p}, [])
        cos = np.asarray(m.score_words(pairs), dtype=float)
        raw["no_vector"] = np.isnan(cos).astype(float)
        raw["cosine"] = np.nan_to_num(cos, nan=0.0)
        names += ["cosine", "no_vector"]
    x = feature_matrix(raw, names)
    scaler = StandardScaler().fit(x)
    z = scaler.transform(x)
    clf = LogisticRegression(C=1.0, class_weight="balanced", max_iter=5000).fit(z, labels)
    fitted = clf.decision_function(z)
    ap = {
        s: round(float(average_precision_score(labels[source == s], fitted[source == s])), 4)
        for s in sources
        if len(set(labels[source == s])) == 2
    }
    scale = np.where(scaler.scale_ == 0, 1.0, scaler.scale_)
    model = {
        "features": names,
        "mean": scaler.mean_.tolist(),
        "scale": scale.tolist(),
        "coef": clf.coef_[0].tolist(),
        "intercept": float(clf.intercept_[0]),
        "vectors": str(vectors) if vectors else None,
        "vectors_config_sha256": _config_sha(vectors),
        "folds": folds,
        "seed": seed,
        "rows": {"related": int(labels.sum()), "unrelated": int((labels == 0).sum())},
        "cross_fitted_ap_step": ap,
        "seconds": round(time.perf_counter() - start, 1),
    }
    write_atomic(folder / MODEL, json.dumps(model, indent=2).encode("utf-8"))
    return model
