"""A relation graph as a word-similarity measure (knowledge-based, like the thesaurus systems
of RUSSE 2015): ``graph:path=DIR``, DIR written by ``simeval train graph``.

The graph G is undirected and unweighted: one node per word (lowercase, ё→е), an edge a–b when
a training relation says a and b are related; each relation file is a *source* s with its own
adjacency A_s, and A = [Σ_s A_s > 0] is their union. d(x) is x's degree in A and
P = D⁻¹A the random-walk matrix. For a pair (a, b) with N(x) the neighbours of x:

- ``common``  cn(a, b) = |N(a) ∩ N(b)|
- ``adamic_adar``  aa(a, b) = Σ_{z ∈ N(a) ∩ N(b)} 1 / log(1 + d(z))
- ``walk``  w(a, b) = ½[(P²)_ab + (P²)_ba] + ½[(P³)_ab + (P³)_ba]: the probability that a
  random walk of two or of three steps from one word ends at the other, averaged over both
  directions. (P²)_ab = ra(a, b) / d(a) with the resource allocation ra = Σ_z 1/d(z) over
  common neighbours z; (P³)_ab = Σ_{x ∈ N(a), y ∈ N(b)} A_xy / (d(a) d(x) d(y)).
- ``learned``: a logistic regression over the features of :data:`FEATURES` (log1p of the
  counts above, per source too, degrees, and optionally the cosine of a word-vector model),
  fitted by ``simeval train graph --learn`` with word1-grouped cross-fitting (each training
  pair's features come from a graph without its word1's relations, as a test word's relations
  are missing from the graph): score = σ(β₀ + Σ_i β_i (x_i − μ_i) / σ_i).

A pair that is itself an edge of G scores 1 (the knowledge base says it is related); the
graph was built without any test pair, so on a benchmark this never fires for a test pair.

``fallback`` says what a pair without graph evidence (a ``common``/``adamic_adar``/``walk``
score of 0, or an unknown word) gets: ``zero`` (0, RUSSE's rule for a missing pair), ``skip``
(NaN: left out, coverage drops), ``vectors``: ¼(1 + cos(a, b)) ∈ [0, ½] from the word
vectors named by ``vectors=DIR`` (default: the ones recorded at training), or ``learned``:
½·p ∈ [0, ½] with p the score of the combination ``learned=FOLDER`` (``simeval train combine``;
clipped to [0, 1], a pair it cannot score 0) — while pairs with graph evidence score
½ + ½·g/(1 + g) ∈ (½, 1): every graph-connected pair above every unconnected one. The graph is
the knowledge base where it reaches; the combination, trained on the same relation files with
the test pairs removed, orders the rest. ``score=learned`` needs no fallback: its features are
defined for every pair.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from simeval.errors import InputError
from simeval.measures.base import Measure, Pairs
from simeval.measures.records import read_record
from simeval.measures.spec import Params
from simeval.text.normalize import normalize

SCORES = ("walk", "adamic_adar", "common", "learned")
FALLBACKS = ("zero", "skip", "vectors", "learned")
EDGES = "edges.tsv"
RECORD = "graph.json"
BASE_FEATURES = ("edge", "cn", "aa", "ra", "jaccard", "walk2", "walk3", "deg_a", "deg_b")
MODEL = "model.json"
BATCH = 2000


def node(word: str) -> str:
    """A word as a graph node: stripped, lowercase, ё→е (as every look-up in simeval)."""
    return normalize(word.strip())


class RelationGraph:
    """Words, per-source adjacency matrices and their union, built from (a, b, source) edges."""

    def __init__(self, edges: Iterable[tuple[str, str, str]], sources: Sequence[str]) -> None:
        self.sources = list(sources)
        self.index: dict[str, int] = {}
        rows: list[list[int]] = [[] for _ in self.sources]
        cols: list[list[int]] = [[] for _ in self.sources]
        where = {s: i for i, s in enumerate(self.sources)}
        for a, b, source in edges:
            if a == b:
                continue
            ia = self.index.setdefault(a, len(self.index))
            ib = self.index.setdefault(b, len(self.index))
            k = where[source]
            rows[k] += [ia, ib]
            cols[k] += [ib, ia]
        n = len(self.index)
        self.by_source = []
        for r, c in zip(rows, cols, strict=True):
            m = sparse.csr_matrix((np.ones(len(r)), (r, c)), shape=(n, n))
            m.data[:] = 1.0  # duplicates summed: back to 0/1
            self.by_source.append(m)
        union = sum(self.by_source, sparse.csr_matrix((n, n)))
        union = sparse.csr_matrix(union)
        union.data[:] = 1.0
        self.adj = union
        self.degree = np.asarray(union.sum(axis=1)).ravel()
        self.source_degree = [np.asarray(m.sum(axis=1)).ravel() for m in self.by_source]

    @property
    def edges(self) -> int:
        """Undirected edges of the union."""
        return int(self.adj.nnz // 2)

    def ids(self, words: Iterable[str]) -> np.ndarray:
        """Node index of each word, −1 for a word not in the graph."""
        return np.array([self.index.get(node(w), -1) for w in words], dtype=np.int64)

    def pair_features(self, pairs: Pairs) -> dict[str, np.ndarray]:
        """The raw graph quantities of the module docstring for every pair, in batches."""
        ia = self.ids(a for a, _ in pairs)
        ib = self.ids(b for _, b in pairs)
        names = list(BASE_FEATURES)
        names += [f"ra_{s}" for s in self.sources] + [f"cn_{s}" for s in self.sources]
        out = {k: np.zeros(len(pairs)) for k in names}
        ok = np.flatnonzero((ia >= 0) & (ib >= 0))
        for start in range(0, len(ok), BATCH):
            rows = ok[start : start + BATCH]
            self._batch(ia[rows], ib[rows], rows, out)
        padded = np.append(self.degree, 0.0)  # index −1 (not in the graph): degree 0
        out["deg_a"], out["deg_b"] = padded[ia], padded[ib]
        return out

    def _batch(self, a: np.ndarray, b: np.ndarray, rows: np.ndarray, out: dict) -> None:
        adj, deg = self.adj, self.degree
        inv = 1.0 / np.maximum(deg, 1.0)
        inv_log = 1.0 / np.log1p(np.maximum(deg, 1.0))
        ra_rows, rb_rows = adj[a], adj[b]
        common = ra_rows.multiply(rb_rows).tocsr()
        cn = np.asarray(common.sum(axis=1)).ravel()
        ra = common @ inv
        out["edge"][rows] = np.asarray(adj[a, b]).ravel()
        out["cn"][rows] = cn
        out["aa"][rows] = common @ inv_log
        out["ra"][rows] = ra
        union = deg[a] + deg[b] - cn
        out["jaccard"][rows] = np.divide(cn, union, out=np.zeros_like(cn), where=union > 0)
        out["walk2"][rows] = 0.5 * (ra * inv[a] + ra * inv[b])
        scale = sparse.diags(inv)
        left = (ra_rows @ scale) @ adj  # Σ_x A_ax A_xy / d(x), one row per pair
        p3 = np.asarray(left.multiply(rb_rows @ scale).sum(axis=1)).ravel()
        out["walk3"][rows] = 0.5 * (p3 * inv[a] + p3 * inv[b])
        for s, m, d in zip(self.sources, self.by_source, self.source_degree, strict=True):
            c = m[a].multiply(m[b]).tocsr()
            out[f"cn_{s}"][rows] = np.asarray(c.sum(axis=1)).ravel()
            out[f"ra_{s}"][rows] = c @ (1.0 / np.maximum(d, 1.0))


def feature_matrix(raw: dict[str, np.ndarray], names: Sequence[str]) -> np.ndarray:
    """The learned model's inputs: log1p of every raw quantity except the cosine, the
    vector-missing flag and jaccard, which are taken as they are."""
    cols = []
    for name in names:
        x = np.asarray(raw[name], dtype=float)
        cols.append(x if name in ("cosine", "no_vector", "jaccard") else np.log1p(x))
    return np.column_stack(cols)


def read_edges(folder: Path) -> tuple[list[tuple[str, str, str]], list[str]]:
    """The edges of a graph folder (``edges.tsv``: word1, word2, source) and its sources."""
    path = folder / EDGES
    if not path.is_file():
        raise InputError(folder, None, f"not a graph folder of `simeval train graph` (no {EDGES})")
    try:
        lines = path.read_bytes().decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise InputError(path, None, f"not valid UTF-8 (byte {exc.start})") from None
    if lines[0].rstrip("\r").split("\t") != ["word1", "word2", "source"]:
        raise InputError(path, 1, "expected the header word1<TAB>word2<TAB>source")
    record = read_record(folder / RECORD, ("sources",), "simeval train graph")
    sources = record["sources"]
    if not (isinstance(sources, list) and all(isinstance(x, str) for x in sources)):
        raise InputError(folder / RECORD, None, "expected 'sources' to be a list of names")
    edges = []
    for number, line in enumerate(lines[1:], start=2):
        if not line:
            continue  # the end of the file
        cells = line.rstrip("\r").split("\t")
        if len(cells) != 3 or not all(cells):
            raise InputError(path, number, "expected word1, word2 and source")
        if cells[2] not in sources:
            raise InputError(path, number, f"source {cells[2]!r} is not in {RECORD}'s sources")
        edges.append((cells[0], cells[1], cells[2]))
    return edges, list(sources)


class GraphMeasure(Measure):
    """``graph:path=DIR,score=walk|adamic_adar|common|learned,fallback=zero|skip|vectors|learned``."""

    name = "graph"

    def __init__(self, spec: str, params: dict[str, Any]) -> None:
        super().__init__(spec, params)
        self.folder = Path(params["path"])
        edges, sources = read_edges(self.folder)
        self.graph = RelationGraph(edges, sources)
        self.missing = "skip" if params["fallback"] == "skip" else "zero"
        self.model: dict[str, Any] | None = None
        self.vectors: Measure | None = None
        vectors = params.get("vectors")
        if params["score"] == "learned":
            if not (self.folder / MODEL).is_file():
                raise InputError(self.folder, None, "score=learned: no model.json (use --learn)")
            self.model = read_record(
                self.folder / MODEL,
                ("features", "mean", "scale", "coef", "intercept"),
                "simeval train graph --learn",
            )
            self._check_model(self.folder / MODEL, self.model, sources)
            vectors = vectors or self.model.get("vectors")
        if vectors and (params["fallback"] == "vectors" or "cosine" in self._names()):
            from simeval.measures import create_measure

            self.vectors = create_measure(f"vectors:path={vectors},oov=backoff,fallback=zero")
        elif params["fallback"] == "vectors":
            raise InputError(None, None, f"measure {spec}: fallback=vectors needs vectors=DIR")
        self.combination: Measure | None = None
        if params["fallback"] == "learned":
            if not params.get("learned"):
                raise InputError(None, None, f"measure {spec}: fallback=learned needs learned=DIR")
            from simeval.measures import create_measure

            self.combination = create_measure(f"learned:model={params['learned']}")
        self.params["vectors_resolved"] = vectors
        self.facts: dict[str, Any] = {"nodes": len(self.graph.index), "edges": self.graph.edges}

    def _check_model(self, path: Path, model: dict[str, Any], sources: list[str]) -> None:
        """Features the graph computes, and finite coefficients, one per feature."""
        known = {*BASE_FEATURES, "cosine", "no_vector"}
        known |= {f"{kind}_{s}" for s in sources for kind in ("ra", "cn")}
        names = model["features"]
        if not isinstance(names, list) or not set(map(str, names)) <= known:
            raise InputError(path, None, f"features: expected a list of {', '.join(sorted(known))}")
        try:
            arrays = [np.asarray(model[k], dtype=float) for k in ("mean", "scale", "coef")]
            arrays.append(np.asarray([model["intercept"]], dtype=float))
        except (TypeError, ValueError) as exc:
            raise InputError(path, None, f"expected numbers ({exc})") from None
        shapes_ok = all(a.shape == (len(names),) for a in arrays[:3])
        if not shapes_ok or not all(np.isfinite(a).all() for a in arrays):
            raise InputError(path, None, f"expected {len(names)} finite numbers per array")

    def _names(self) -> list[str]:
        return list(self.model["features"]) if self.model else []

    def prepare(self, words: Iterable[str], texts: Iterable[str]) -> None:
        words, texts = set(words), set(texts)
        for m in (self.vectors, self.combination):
            if m is not None:
                m.prepare(words, texts)

    def cosine(self, pairs: Pairs) -> np.ndarray:
        """Cosine of the word vectors, NaN where a word has none."""
        assert self.vectors is not None
        return np.asarray(self.vectors.score_words(pairs), dtype=float)

    def score_words(self, pairs: Pairs) -> np.ndarray:
        raw = self.graph.pair_features(pairs)
        edge = raw["edge"]
        if self.model is not None:
            if self.vectors is not None:
                cos = self.cosine(pairs)
                raw["no_vector"] = np.isnan(cos).astype(float)
                raw["cosine"] = np.nan_to_num(cos, nan=0.0)
            out = predict(self.model, raw)
            g = raw["walk2"] + raw["walk3"]
        else:
            key = {"common": "cn", "adamic_adar": "aa"}.get(self.params["score"])
            g = raw[key] if key else raw["walk2"] + raw["walk3"]
            out = 0.5 + 0.5 * g / (1.0 + g)
            if self.params["fallback"] == "vectors":
                cos = np.nan_to_num(self.cosine(pairs), nan=-1.0)
                out = np.where(g > 0, out, 0.25 * (1.0 + cos))
            elif self.combination is not None:
                p = np.asarray(self.combination.score_words(pairs), dtype=float)
                out = np.where(g > 0, out, 0.5 * np.clip(np.nan_to_num(p, nan=0.0), 0.0, 1.0))
            else:
                out = np.where(g > 0, out, 0.0 if self.params["fallback"] == "zero" else np.nan)
        self.facts["pairs_scored"] = self.facts.get("pairs_scored", 0) + len(pairs)
        self.facts["pairs_graph_connected"] = self.facts.get("pairs_graph_connected", 0) + int(
            np.sum(g > 0)
        )
        return np.where(edge > 0, 1.0, out)

    def extra(self) -> dict[str, Any]:
        return dict(self.facts)


def predict(model: dict[str, Any], raw: dict[str, np.ndarray]) -> np.ndarray:
    """σ(β₀ + Σ β_i (x_i − μ_i)/σ_i) over the model's features (:func:`feature_matrix`)."""
    x = feature_matrix(raw, model["features"])
    z = (x - np.asarray(model["mean"])) / np.asarray(model["scale"])
    logit = z @ np.asarray(model["coef"]) + float(model["intercept"])
    return 1.0 / (1.0 + np.exp(-logit))


def make_graph(p: Params) -> GraphMeasure:
    """``graph``: needs ``path=DIR``; see the module docstring for the rest."""
    path = p.get("path", None)
    if not path:
        raise InputError(None, None, f"measure {p.spec}: needs path=DIR (simeval train graph)")
    p.get("score", "walk", str, SCORES)
    p.get("fallback", "zero", str, FALLBACKS)
    p.get("vectors", "", str)
    p.get("learned", "", str)
    return GraphMeasure(str(p.spec), p.done())
