"""Rankers and their search against independent computations (numpy, scipy, pytrec_eval), and
their results on the xling benchmarks against a random ranker."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from scipy import sparse
from scipy.linalg import orthogonal_procrustes
from typer.testing import CliRunner

from simeval import api
from simeval.api import load_target
from simeval.cli import app
from simeval.data.trec import read_run
from simeval.datasets.synthetic import synthetic_collection
from simeval.errors import InputError
from simeval.measures.base import Measure, rank_by_pairs
from simeval.measures.combination import _group_top
from simeval.measures.procrustes import dense_model_folder, procrustes, train_word2vec
from simeval.measures.search import (
    LinkingInput,
    VectorRanker,
    dense_terms,
    top_k_dense,
    top_k_sparse,
    top_rows,
)
from simeval.metrics.ranking.order import tie_ranks
from simeval.text.multilingual import doc_tokens, fold

runner = CliRunner()


def test_blocked_sparse_top_k_equals_full_sort() -> None:
    rng = np.random.default_rng(0)
    q = sparse.random(300, 500, density=0.02, random_state=1, format="csr", dtype=np.float32)
    d = sparse.random(700, 500, density=0.02, random_state=2, format="csr", dtype=np.float32)
    full = (q @ d.T).toarray()
    # tiny memory budget: blocks of 2 queries; the result must not depend on blocking
    top = top_k_sparse(q, d, 5, memory=2 * 4 * 700)
    for i in rng.choice(300, 60, replace=False):
        expect = sorted(range(700), key=lambda j: (-full[i, j], j))[:5]
        assert top.index[i].tolist() == expect
        assert np.allclose(top.score[i], full[i, expect])


def _zipf_rows(rng: np.random.Generator, n: int, n_terms: int = 400) -> sparse.csr_matrix:
    """L2-normalized rows whose terms follow a Zipf law: a few common terms, many rare."""
    p = 1 / np.arange(1, n_terms + 1)
    p /= p.sum()
    cols = [np.unique(rng.choice(n_terms, 15, p=p)) for _ in range(n)]
    indptr = np.cumsum([0] + [len(c) for c in cols])
    data = rng.random(indptr[-1]).astype(np.float32)
    m = sparse.csr_matrix((data, np.concatenate(cols), indptr), shape=(n, n_terms))
    norms = np.sqrt(m.multiply(m).sum(axis=1)).A.ravel()
    return sparse.csr_matrix(sparse.diags(1 / norms) @ m)


def test_sparse_search_splits_frequent_terms_into_a_dense_product() -> None:
    rng = np.random.default_rng(7)
    q, d = _zipf_rows(rng, 400), _zipf_rows(rng, 1500)
    full = (q @ d.T).toarray()
    expect = np.lexsort((np.broadcast_to(np.arange(1500), full.shape), -full), axis=1)[:, :5]
    # the split is chosen by modelled cost: frequent terms go dense, never all of them
    common = dense_terms(q, d, 256 << 20)
    df = np.bincount(d.indices, minlength=400)
    assert 0 < len(common) < 400
    assert df[common].min() >= np.delete(df, common).max()
    # whatever the split (memory caps the dense part at 0, 3, or 60 terms), the result
    # is the full sort, ties by corpus position
    for memory in (4 * 1500 - 1, 3 * 4 * 1500, 60 * 4 * 1500):
        top = top_k_sparse(q, d, 5, memory=memory)
        assert (top.index == expect).all()
        assert np.allclose(top.score, np.take_along_axis(full, expect, 1), atol=1e-6)


def test_top_rows_orders_ties_by_position_and_puts_nan_last() -> None:
    rng = np.random.default_rng(11)
    for m in (1, 4, 9, 50, 1601):
        scores = rng.integers(0, 4, (120, m)).astype(np.float32)  # many ties
        scores[rng.random(scores.shape) < 0.05] = np.nan
        key = np.where(np.isnan(scores), np.inf, -scores)
        for k in (1, 5):
            expect = np.lexsort((np.broadcast_to(np.arange(m), key.shape), key), axis=1)
            index, _ = top_rows(scores, k)
            assert (index == expect[:, : min(k, m)]).all()
    # a row with fewer numbers than k: its NaN columns follow by position (the padding of a
    # short last chunk once came first, as column m - 1 with score -inf)
    index, values = top_rows(np.array([[1, 2] + [np.nan] * 5], np.float32), 3)
    assert index.tolist() == [[1, 0, 2]] and np.isnan(values[0, 2])


def test_dense_search_exact_and_hnsw() -> None:
    rng = np.random.default_rng(3)
    d = rng.normal(size=(3000, 32)).astype(np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    q = d[:200] + 0.3 * rng.normal(size=(200, 32)).astype(np.float32)
    exact = np.argsort(-(q @ d.T), axis=1, kind="stable")[:, :5]
    flat = top_k_dense(q, d, 5)
    assert (flat.index == exact).mean() > 0.999  # float32 ties aside, identical
    hnsw = top_k_dense(q, d, 5, ann_from=0)
    recall = np.mean([len(set(a) & set(b)) / 5 for a, b in zip(hnsw.index, exact, strict=True)])
    assert recall > 0.95


def test_procrustes_matches_scipy_and_recovers_a_rotation() -> None:
    rng = np.random.default_rng(5)
    y = rng.normal(size=(400, 20))
    rotation, _ = np.linalg.qr(rng.normal(size=(20, 20)))
    x = y @ rotation.T + 0.01 * rng.normal(size=(400, 20))
    w = procrustes(x, y)
    expect, _ = orthogonal_procrustes(x, y)
    assert np.allclose(w, expect, atol=1e-8)
    assert np.allclose(w, rotation, atol=0.01)  # x @ w ≈ y undoes the rotation


def test_word2vec_for_procrustes_repeats_exactly() -> None:
    rng = np.random.default_rng(2)
    # 80,000 words: several of gensim's 10,000-word jobs, so two threads would interleave
    # (with workers=2 the rows differ between two runs on this input)
    docs = [[f"w{i}" for i in rng.zipf(1.5, 40) if i < 300] for _ in range(2000)]
    words1, rows1 = train_word2vec(docs, 16)
    words2, rows2 = train_word2vec(docs, 16)
    assert words1 == words2
    assert np.array_equal(rows1, rows2)


def test_procrustes_reads_dense_model_folders_only(tmp_path: Path) -> None:
    dense, ppmi = tmp_path / "dense", tmp_path / "ppmi"
    for folder in (dense, ppmi):
        folder.mkdir()
        (folder / "vocab.txt").write_text("дом\nкот\n", encoding="utf-8")
    np.save(dense / "vectors.npy", np.array([[1, 2], [3, 4]], dtype=np.float32))
    sparse.save_npz(ppmi / "vectors.npz", sparse.csr_matrix(np.eye(2, dtype=np.float32)))
    words, rows = dense_model_folder(dense)
    assert words == ["дом", "кот"]
    assert rows.tolist() == [[1, 2], [3, 4]]
    with pytest.raises(InputError, match="dense vectors"):
        dense_model_folder(ppmi)


def test_group_top_by_hand() -> None:
    q = np.array([0, 0, 0, 1, 1, 2])
    d = np.array([5, 6, 7, 5, 8, 9])
    s = np.array([0.1, 0.9, 0.9, -1.0, 2.0, 0.0], dtype=np.float32)
    top = _group_top(q, d, s, 4, 2)
    # query 0: 6 and 7 tie at 0.9 -> lower position first; query 3 has no candidate
    assert top.index.tolist() == [[6, 7], [8, 5], [9, -1], [-1, -1]]
    # with a tie key (documents 5..9 named so that 7 is the greatest id) 7 comes first
    ties = tie_ranks(["a", "a", "a", "a", "a", "d05", "d06", "d07", "d04", "d09"])
    top = _group_top(q, d, s, 4, 2, ties)
    assert top.index.tolist() == [[7, 6], [8, 5], [9, -1], [-1, -1]]


# -- ties in trec_eval's order -----------------------------------------------------------------


def shuffled_docnos(rng: np.random.Generator, m: int) -> list[str]:
    """Distinct ids whose byte order has nothing to do with their position (mixed lengths,
    some non-ASCII)."""
    pool = [f"d{x}" for x in rng.choice(10**6, m, replace=False)]
    return [f"é{x}" if i % 7 == 0 else x for i, x in enumerate(pool)]


def trec_expected(scores: np.ndarray, docnos: list[str]) -> np.ndarray:
    """Every row's columns in trec_eval's order, computed here without simeval: score
    descending (NaN last), then docno in descending byte order (Python's sort of the UTF-8
    bytes, reversed)."""
    by_bytes = sorted(range(len(docnos)), key=lambda j: docnos[j].encode(), reverse=True)
    place = np.empty(len(docnos), np.int64)
    place[by_bytes] = np.arange(len(docnos))  # 0 = greatest docno
    key = np.where(np.isnan(scores), np.inf, -scores.astype(np.float64))
    return np.lexsort((np.broadcast_to(place, scores.shape), key), axis=1)


def test_top_rows_breaks_ties_by_docno_as_trec_eval() -> None:
    rng = np.random.default_rng(21)
    for m in (1, 4, 9, 50, 1601):
        docnos = shuffled_docnos(rng, m)
        scores = rng.integers(0, 4, (120, m)).astype(np.float32)  # many ties
        scores[rng.random(scores.shape) < 0.05] = np.nan
        expect = trec_expected(scores, docnos)
        for k in (1, 5, 12):
            index, values = top_rows(scores, k, tie_ranks(docnos))
            assert (index == expect[:, : min(k, m)]).all(), (m, k)
            assert np.array_equal(values, np.take_along_axis(scores, index, 1), equal_nan=True)


def test_sparse_and_dense_search_break_ties_by_docno() -> None:
    rng = np.random.default_rng(22)
    n_docs = 900
    docnos = shuffled_docnos(rng, n_docs)
    ties = tie_ranks(docnos)
    # integer weights: every dot product is exact in float32, so equal scores are equal
    q = sparse.random(200, 60, density=0.08, random_state=3, format="csr", dtype=np.float32)
    d = sparse.random(n_docs, 60, density=0.08, random_state=4, format="csr", dtype=np.float32)
    q.data[:], d.data[:] = np.ceil(q.data * 2), np.ceil(d.data * 2)
    full = (q @ d.T).toarray()
    ranked = -np.sort(-full, axis=1)
    assert (ranked[:, 4] == ranked[:, 5]).mean() > 0.5  # most rows tie across the cut at 5
    expect = trec_expected(full, docnos)
    for memory in (2 * 4 * n_docs, 5 * 4 * n_docs, 256 << 20):  # blocks of 2 queries, splits
        top = top_k_sparse(q, d, 5, memory=memory, ties=ties)
        assert (top.index == expect[:, :5]).all()
        assert np.array_equal(top.score, np.take_along_axis(full, top.index, 1))
    qd, dd = q.toarray(), d.toarray()
    top = top_k_dense(qd, dd, 5, ties=ties, memory=3 * 4 * n_docs)
    assert (top.index == expect[:, :5]).all()
    # approximate HNSW: candidates come back in the same order, ties by docno
    hnsw = top_k_dense(qd, dd, 5, ties=ties, ann_from=0)
    for row, s in zip(hnsw.index, hnsw.score, strict=True):
        assert sorted(zip(-s, ties[row], strict=True)) == list(zip(-s, ties[row], strict=True))


def test_group_top_and_rankers_break_ties_by_docno() -> None:
    rng = np.random.default_rng(23)
    n, m = 40, 300
    docnos = shuffled_docnos(rng, m)
    # flat candidate rows, as the combination makes them: each query a random subset
    rows = [(i, j) for i in range(n) for j in rng.choice(m, rng.integers(1, 60), replace=False)]
    q, d = np.array(rows).T
    s = rng.integers(0, 3, len(q)).astype(np.float32)
    full = np.full((n, m), np.nan, np.float32)
    full[q, d] = s
    expect = trec_expected(full, docnos)
    top = _group_top(q, d, s, n, 7, tie_ranks(docnos))
    for i in range(n):
        got = top.index[i][top.index[i] >= 0]
        assert got.tolist() == expect[i, : min(7, int((q == i).sum()))].tolist()

    class Constant(Measure):  # every pair ties
        def score_texts(self, pairs):
            return np.full(len(pairs), 0.5)

    corpus = [f"text {i}" for i in range(m)]
    data = LinkingInput("fr", ["a", "b"], corpus, corpus_ids=docnos)
    by_docno = sorted(range(m), key=lambda j: docnos[j].encode(), reverse=True)[:5]
    assert rank_by_pairs(Constant("c", {}), data, 5).index.tolist() == [by_docno] * 2
    assert rank_by_pairs(
        Constant("c", {}), LinkingInput("fr", ["a"], corpus), 3
    ).index.tolist() == [[0, 1, 2]]  # without ids: by position

    class Flat(VectorRanker):  # every document the same vector
        def vectors(self, queries, corpus, lang):
            return np.ones((len(queries), 4), np.float32), np.ones((len(corpus), 4), np.float32)

    assert Flat("f", {}).rank(data, 5).index.tolist() == [by_docno] * 2


def test_transliteration_and_tokens() -> None:
    assert fold("Дегтярёв") == "degtyarev"
    assert fold("Щукин") == "shchukin" and fold("объём") == "obem"
    assert fold("Gaëlle") == "gaelle" and fold("İstanbul") == "istanbul"
    assert doc_tokens("Hallo, Welt!\nZweite Zeile 2019.", "de") == [
        "hallo", "welt", "zweite", "zeile", "2019"
    ]  # fmt: skip
    assert "威尔士" in doc_tokens("威尔士国民议会议员担心", "zh")


def test_synthetic_collection_is_seeded_and_linked() -> None:
    a = synthetic_collection(200, vocab=2000, seed=1)
    b = synthetic_collection(200, vocab=2000, seed=1)
    assert a.queries == b.queries and a.corpus == b.corpus and a.dictionary == b.dictionary
    assert len(a.queries) == len(a.corpus) == 200
    # comparable, not parallel: the X document shares some but not all translated words
    en = set(a.corpus[0].split())
    x_as_en = {"e" + w[1:] for w in a.queries[0].split()}
    assert 0 < len(en & x_as_en) < len(x_as_en)


# -- on the real benchmarks ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small(data_dir: Path) -> dict:
    return {lang: load_target(f"xling-{lang}-en") for lang in ("fr", "tr")}


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["dictionary", "hapax", "procrustes", "combine"])
def test_rankers_beat_random_by_a_wide_margin(small: dict, spec: str) -> None:
    for lang, bench in small.items():
        n_docs = len(bench.collection.corpus)
        # a random ranking puts the gold document at rank r <= 5 with probability 1/N each:
        # expected reciprocal rank (1 + 1/2 + 1/3 + 1/4 + 1/5) / N
        random_mrr = sum(1 / r for r in range(1, 6)) / n_docs
        (res,) = api.evaluate(spec, bench)
        assert res.metrics["num_ret"] <= 5 * res.metrics["num_q"]
        assert res.metrics["recip_rank"] > 10 * random_mrr, lang
        # the aggregates are the means of the per-query values, recomputed here
        for k in ("success_1", "success_5", "recip_rank"):
            assert res.metrics[k] == pytest.approx(float(np.mean(res.items[k])), abs=1e-12)
        assert res.metrics["success_5"] == pytest.approx(
            float(np.mean(res.items["recip_rank"] >= 1 / 5)), abs=1e-12
        )
        assert set(res.breakdown) == set(bench.collection.meta["counts"]["by_source"])


@pytest.mark.slow
def test_suite_aggregate_is_the_mean_of_languages(data_dir: Path) -> None:
    suite = load_target("xling")
    results = api.evaluate("hapax", suite)
    members, total = results[:-1], results[-1]
    assert [r.benchmark for r in members] == [
        f"xling-{x}-en" for x in ("de", "fr", "ru", "tr", "zh")
    ]
    for k in ("success_1", "success_5", "recip_rank"):
        assert total.metrics[k] == pytest.approx(np.mean([r.metrics[k] for r in members]))
    # per-source breakdown: query-weighted means give back each language's score
    for r in members:
        n = sum(v["num_q"] for v in r.breakdown.values())
        mrr = sum(v["recip_rank"] * v["num_q"] for v in r.breakdown.values()) / n
        assert mrr == pytest.approx(r.metrics["recip_rank"]) and n == r.metrics["num_q"]


def test_predicted_runs_score_identically_with_pytrec_eval(tmp_path: Path, small: dict) -> None:
    run_file = tmp_path / "tr.run"
    result = runner.invoke(
        app, ["predict", "hapax", "--suite", "xling-tr-en", "--out", str(run_file)]
    )
    assert result.exit_code == 0, result.output
    lines = [line.split() for line in run_file.read_text().splitlines()]
    assert all(len(f) == 6 and f[1] == "X" and f[3] == "Y" for f in lines)  # BUCC's form
    per_query: dict[str, dict[str, float]] = {}
    for qid, _, docno, _, score, _ in lines:
        per_query.setdefault(qid, {})[docno] = float(score)
    assert max(len(v) for v in per_query.values()) == 5
    bench = small["tr"]
    qrels: dict[str, dict[str, int]] = {}
    for q, d in zip(bench.qrels.qids, bench.qrels.docnos, strict=True):
        qrels.setdefault(q.decode(), {})[d.decode()] = 1
    measures = {"success.1", "success.5", "recip_rank"}
    evaluated = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(per_query)
    expect = {m: np.mean([v[m.replace(".", "_")] for v in evaluated.values()]) for m in measures}
    (ours,) = bench.evaluate(read_run(run_file))
    for m, v in expect.items():
        assert ours.metrics[m.replace(".", "_")] == pytest.approx(v, abs=1e-12)
    qrels_file = tmp_path / "qrels"
    qrels_file.write_text("".join(f"{q} 0 {d} 1\n" for q, v in qrels.items() for d in v))
    cli = runner.invoke(
        app, ["score", "trec", "--qrels", str(qrels_file), "--run", str(run_file), "--json"]
    )
    assert cli.exit_code == 0, cli.output
    record = json.loads(cli.output)
    record = record[0] if isinstance(record, list) else record
    assert record["metrics"]["recip_rank"] == pytest.approx(expect["recip_rank"], abs=1e-12)


def test_a_pair_scoring_ranker_prepares_every_text_at_once() -> None:
    """rank_by_pairs scores every (query, document) pair, so it hands the measure all texts
    in one prepare call first: an encoder embeds them in batches, not a query at a time (the
    Tatoeba suite took minutes of one-text batches before)."""
    calls: list[list[str]] = []

    class Recording(Measure):
        def prepare(self, words, texts):  # type: ignore[no-untyped-def]
            calls.append(list(texts))

        def score_texts(self, pairs):  # type: ignore[no-untyped-def]
            assert calls, "scored before the texts were prepared"
            return np.array([float(len(set(a) & set(b))) for a, b in pairs])

    data = LinkingInput("de", ["ab", "cd", "ef"], ["abc", "def", "xyz", "cde"])
    top = rank_by_pairs(Recording("r", {}), data, 2)
    assert calls == [["ab", "cd", "ef", "abc", "def", "xyz", "cde"]]
    assert top.index[:, 0].tolist() == [0, 3, 1]
