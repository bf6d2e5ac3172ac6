"""Rankers for cross-language document linking (BUCC 2015): the top k English documents for
each query document, with scores.

A ranker knows nothing of benchmarks: it receives a :class:`LinkingInput` (the query texts,
the English texts, the query language and, for learned rankers, training queries with their
gold English document) and returns a :class:`TopK`.

Vector rankers map both sides to row vectors whose dot product is the score (L2-normalized
TF-IDF rows, averaged word vectors); :func:`top_k` then searches without comparing every pair
in Python:

- sparse rows: the product ``Q · Dᵀ`` in blocks of queries sized so a block's dense score
  matrix stays under ``memory`` bytes (256 MiB by default); the most frequent terms are
  multiplied as dense matrices by BLAS, the rest as sparse matrices, and each block is
  reduced to its top k (:func:`top_k_sparse`; exact).
- dense rows: below ``ann_from`` English documents the same blocked search with a dense BLAS
  product (exact); from there on faiss ``IndexHNSWFlat`` (approximate, M=32, efSearch=128).

Ties follow the one ranking rule (:mod:`simeval.metrics.ranking.order`, trec_eval's order):
among equal scores the document with the greater id comes first, so a ranker's top k is the
first k of the order trec_eval gives the full ranking. The rankers know documents by corpus
position; the ids enter as a tie key, :func:`simeval.metrics.ranking.order.tie_ranks` of
``LinkingInput.corpus_ids`` (``LinkingInput.ties``). Without ids (``corpus_ids=None``, or
``ties=None`` to the search functions) ties go by corpus position, lower first. The exact
searches apply the key exactly: the documents are put in tie-key order once, searched with ties
by position, and their positions mapped back. The approximate HNSW search orders the candidates
it returns by the same rule, but which of several documents tied at the k-th score it returns is
not guaranteed.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import sparse

from simeval.data.documents import LinkingInput, TopK
from simeval.engine import active
from simeval.measures.base import Measure
from simeval.metrics.ranking.order import ranking_rows

Matrix = sparse.csr_matrix | np.ndarray
Progress = Callable[[int, int], None]


def _order_rows(
    part: np.ndarray, values: np.ndarray, ties: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Sort each row of candidates (corpus positions, -1 for none, with their scores) by score
    descending, ties by ``ties`` of the position (by the position when None)."""
    key = part if ties is None else ties[part]
    order = ranking_rows(values, key)
    return np.take_along_axis(part, order, 1), np.take_along_axis(values, order, 1)


def tie_order(ties: np.ndarray | None) -> np.ndarray | None:
    """The corpus positions in tie-key order (a stable sort of ``ties``), or None for None.
    Searching the documents in this order, with ties by position, and mapping the positions
    found back through it breaks ties by the key."""
    return None if ties is None else np.argsort(ties, kind="stable")


def top_rows(
    scores: np.ndarray, k: int, ties: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The k best columns of every row of a dense score matrix: score descending, ties by
    ``ties`` ascending (one key per column, e.g.
    :func:`~simeval.metrics.ranking.order.tie_ranks`; by column, lower first, when None), NaN
    last.

    Rows are cut into chunks of about √m columns and each chunk's maximum taken
    (``numpy.fmax.reduceat``). The top k of a row lie in its best ``2k - 1`` chunks ordered by
    (maximum descending, chunk position): at most ``k - 1`` chunks hold a score above the k-th
    score, and among the chunks whose maximum equals it the first k hold k tied columns at
    lower positions than any later chunk. Only those chunks are sorted. That argument needs
    ties to go by position, so a tie key is applied by permuting the columns into key order
    (a copy of ``scores``) and mapping the columns found back; a caller searching many blocks
    over the same columns permutes them once instead (as :func:`top_k_sparse` does).
    """
    perm = tie_order(ties)
    if perm is not None:
        index, values = top_rows(scores[:, perm], k)
        return perm[index], values
    n, m = scores.shape
    k = min(k, m)
    if k == 0:
        return np.zeros((n, 0), np.int64), np.zeros((n, 0), scores.dtype)
    width = max(k, int(np.sqrt(m)))
    starts = np.arange(0, m, width)
    best = np.fmax.reduceat(scores, starts, axis=1)
    chunks = np.arange(len(starts))
    take = min(len(starts), 2 * k - 1)
    chosen = np.lexsort((np.broadcast_to(chunks, best.shape), -best), axis=1)[:, :take]
    pos = (starts[chosen][:, :, None] + np.arange(width)).reshape(n, -1)
    outside = pos >= m
    pos[outside] = m - 1
    values = np.take_along_axis(scores, pos, 1)
    values[outside] = np.nan  # after every column, NaN ones included (by position m)
    order = ranking_rows(values, np.where(outside, m, pos))[:, :k]
    return np.take_along_axis(pos, order, 1), np.take_along_axis(values, order, 1)


# How many multiply-adds of a dense BLAS product cost as much as one (query, document) match
# of scipy's sparse product, on a 2-core machine: sgemm did ~80 G multiply-adds/s and the
# sparse product ~19 ns a match (ratio ~1,500); 2,400 put the split at 366 terms on the
# 100,000-document benchmark, within 5% of the fastest split a sweep found (300). It only
# moves the split, never a result.
BLAS_SPEEDUP = 2400


def dense_terms(q: sparse.csr_matrix, d: sparse.csr_matrix, memory: int) -> np.ndarray:
    """The columns to multiply densely: the most frequent terms, as many as minimize the
    modelled time (``BLAS_SPEEDUP``), at most as many as fit ``memory`` as a dense
    documents × terms matrix.

    A sparse product costs one step per (query, document) pair sharing a term — for a term
    in ``a`` queries and ``b`` documents, ``a·b`` — while a dense product costs one
    multiply-add per query, document and term; Zipfian words put most of the sparse cost in
    a few hundred frequent terms.
    """
    nq, nd = q.shape[0], d.shape[0]
    df_q = np.bincount(q.indices, minlength=q.shape[1]).astype(np.float64)
    df_d = np.bincount(d.indices, minlength=d.shape[1]).astype(np.float64)
    order = np.argsort(-df_d, kind="stable")
    most = min(len(order), memory // (4 * max(nd, 1)))
    matches = df_q[order] * df_d[order]
    sparse_left = matches.sum() - np.concatenate([[0.0], np.cumsum(matches[:most])])
    cost = sparse_left + np.arange(most + 1) * (nq * nd / BLAS_SPEEDUP)
    return np.sort(order[: int(np.argmin(cost))])


def _blocked_top(
    queries: Callable[[int, int], Any],
    block_top: Callable[..., tuple[np.ndarray, np.ndarray]],
    documents: tuple,
    nq: int,
    nd: int,
    k: int,
    memory: int,
    progress: Progress | None,
) -> TopK:
    """Top k of every query row: ``block_top(queries(start, stop), *documents, k=k)`` for
    blocks of queries whose dense scores take at most ``memory`` bytes of float32.

    With a Dask scheduler (:mod:`simeval.engine`) each block is a task and the document side
    is sent once to every worker; the blocks are the same either way, so is every score and
    the top k, ties included."""
    block = max(1, memory // (4 * max(nd, 1)))
    index = np.empty((nq, k), np.int64)
    score = np.empty((nq, k), np.float32)
    ranges = [(start, min(nq, start + block)) for start in range(0, nq, block)]
    engine = active()
    if engine is None:
        for start, stop in ranges:
            index[start:stop], score[start:stop] = block_top(queries(start, stop), *documents, k=k)
            if progress:
                progress(stop, nq)
        return TopK(index, score)
    shared = [engine.share(x) for x in documents]
    blocks = engine.share_parts(None, [queries(a, b) for a, b in ranges])
    found = engine.map(functools.partial(block_top, k=k), blocks, *shared)
    for (start, stop), (i, s) in zip(ranges, found, strict=True):
        index[start:stop], score[start:stop] = i, s
    if progress:
        progress(nq, nq)
    return TopK(index, score)


def _sparse_block(
    q: tuple[sparse.csr_matrix, sparse.csr_matrix],
    dt_rest: sparse.csr_matrix,
    dt_common: np.ndarray,
    k: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Top k of a block of queries (its rare-term and frequent-term parts) against the
    documents: ``Q_sparse · D_sparseᵀ + Q_dense · D_denseᵀ`` (:func:`top_k_sparse`)."""
    from scipy.linalg.blas import sgemm

    q_rest, q_common = q
    scores = (q_rest @ dt_rest).toarray()
    if dt_common.shape[0]:
        # scores += Q_dense · D_denseᵀ in place: BLAS reads C arrays as their transposes,
        # so it is asked for scoresᵀ += D_dense · Q_denseᵀ
        sgemm(1.0, dt_common.T, q_common.toarray().T, beta=1.0, c=scores.T, overwrite_c=True)
    return top_rows(scores, k)


def _dense_block(q: np.ndarray, dt: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    return top_rows(q @ dt, k)


def top_k_sparse(
    q: sparse.csr_matrix,
    d: sparse.csr_matrix,
    k: int,
    memory: int = 256 << 20,
    progress: Progress | None = None,
    ties: np.ndarray | None = None,
) -> TopK:
    """Exact top k of ``q · dᵀ``, in blocks of queries, ties by ``ties`` of the documents (by
    position when None).

    The terms are split (:func:`dense_terms`): the product over the most frequent terms is a
    dense BLAS product (``sgemm``), the rest a sparse product, and a block's scores are their
    sum, ``Q_sparse · D_sparseᵀ + Q_dense · D_denseᵀ``, held dense (at most ``memory`` bytes)
    and reduced to its top k by :func:`top_rows`. Every score is computed, so the result is
    the same as sorting the full product. With a tie key the documents are put in key order
    once (:func:`tie_order`) and the positions found mapped back.
    """
    nq, nd = q.shape[0], d.shape[0]
    q = q.tocsr().astype(np.float32)
    d = d.tocsr().astype(np.float32)
    perm = tie_order(ties)
    if perm is not None:
        d = d[perm]
    k = min(k, nd)
    common = dense_terms(q, d, memory)
    rest = np.setdiff1d(np.arange(q.shape[1]), common)
    q_rest, dt_rest = q[:, rest].tocsr(), d[:, rest].T.tocsr()
    q_common = q[:, common].tocsr()
    dt_common = np.ascontiguousarray(d[:, common].toarray().T)  # terms × documents
    top = _blocked_top(
        lambda a, b: (q_rest[a:b], q_common[a:b]),
        _sparse_block,
        (dt_rest, dt_common),
        nq,
        nd,
        k,
        memory,
        progress,
    )
    return top if perm is None else TopK(perm[top.index], top.score)


def top_k_dense(
    q: np.ndarray,
    d: np.ndarray,
    k: int,
    ann_from: int = 50_000,
    progress: Progress | None = None,
    ties: np.ndarray | None = None,
    memory: int = 256 << 20,
) -> TopK:
    """Top k by inner product, ties by ``ties`` of the documents (by position when None).

    Below ``ann_from`` documents exact: blocks of queries (at most ``memory`` bytes of scores)
    multiplied by the documents in tie-key order with BLAS (``numpy.matmul``, float32) and
    reduced by :func:`top_rows`, as :func:`top_k_sparse` does. From ``ann_from`` on, faiss
    HNSW (approximate): the candidates it returns are ordered by score descending, then the
    tie key, but which of several documents tied at the k-th score it returns (like which
    near neighbours it finds at all) is not guaranteed.
    """
    q = np.ascontiguousarray(q, dtype=np.float32)
    d = np.ascontiguousarray(d, dtype=np.float32)
    k = min(k, len(d))
    if len(d) < ann_from:
        perm = tie_order(ties)
        dt = np.ascontiguousarray((d if perm is None else d[perm]).T)
        top = _blocked_top(
            lambda a, b: q[a:b], _dense_block, (dt,), len(q), len(d), k, memory, progress
        )
        return top if perm is None else TopK(perm[top.index], top.score)
    try:
        import faiss
    except ImportError as exc:  # pragma: no cover - depends on the extras installed
        raise ImportError("dense search needs faiss: pip install 'simeval[xling]'") from exc
    index = faiss.IndexHNSWFlat(d.shape[1], 32, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = 200
    index.hnsw.efSearch = max(128, 2 * k)
    index.add(d)
    scores, found = index.search(q, k)
    found = found.astype(np.int64)
    scores = np.where(found < 0, -np.inf, scores)
    found, scores = _order_rows(found, scores.astype(np.float32), ties)
    if progress:
        progress(len(q), len(q))
    return TopK(found, scores)


def top_k(
    q: Matrix,
    d: Matrix,
    k: int,
    progress: Progress | None = None,
    ties: np.ndarray | None = None,
    **kw: Any,
) -> TopK:
    """Sparse or dense search, by the type of the rows; ties by ``ties`` (position if None)."""
    if sparse.issparse(q):
        return top_k_sparse(q, d, k, progress=progress, ties=ties, **kw)  # type: ignore[arg-type]
    return top_k_dense(q, d, k, progress=progress, ties=ties, **kw)  # type: ignore[arg-type]


def pair_scores(q: Matrix, d: Matrix, qi: np.ndarray, di: np.ndarray) -> np.ndarray:
    """Dot products of the given (query row, document row) pairs."""
    if sparse.issparse(q):
        return np.asarray(q[qi].multiply(d[di]).sum(axis=1), dtype=np.float64).ravel()
    return np.einsum("ij,ij->i", q[qi], d[di]).astype(np.float64)


def _mean_best(top: TopK) -> np.ndarray:
    """Each row's mean over its found candidates' scores (0 for a row with none)."""
    score = np.where(np.isfinite(top.score) & (top.index >= 0), top.score, np.nan)
    found = np.isfinite(score).any(axis=1)
    mean = np.zeros(len(score), dtype=np.float64)
    mean[found] = np.nanmean(score[found], axis=1)
    return mean


def csls(
    q: Matrix, d: Matrix, k: int, search: Callable[[Matrix, Matrix, int], TopK]
) -> tuple[Matrix, Matrix]:
    """Cross-domain similarity local scaling (Conneau et al. 2018, "Word translation without
    parallel data") of the dot-product scores ``s(x, y) = q_x · d_y``:

        CSLS(x, y) = 2·s(x, y) − r_D(x) − r_Q(y)

    where ``r_D(x)`` is the mean of query x's ``k`` best scores over the documents and
    ``r_Q(y)`` the mean of document y's ``k`` best scores over the queries given (all of them,
    train queries included; no gold link is used). A document close to many queries (a hub)
    has a high ``r_Q`` and is pushed down every query's list. ``k`` is cut to the number of
    rows on the other side; a row without candidates gets r = 0. The result is returned as
    rows whose dot product is CSLS exactly, ``q' = [2q, 1, −r_D]`` and ``d' = [d, −r_Q, 1]``,
    so every search and pair score of the ranker applies unchanged. ``search(a, b, k)`` gives
    the top k of ``a · bᵀ`` (the ranker's own search)."""
    r_d = _mean_best(search(q, d, min(k, d.shape[0])))
    r_q = _mean_best(search(d, q, min(k, q.shape[0])))
    one_q, one_d = np.ones((q.shape[0], 1)), np.ones((d.shape[0], 1))
    if sparse.issparse(q):
        q2 = sparse.hstack([2 * q, one_q, -r_d[:, None]], format="csr", dtype=q.dtype)
        d2 = sparse.hstack([d, -r_q[:, None], one_d], format="csr", dtype=d.dtype)
        return q2, d2
    q2 = np.hstack([2 * q, one_q, -r_d[:, None]]).astype(q.dtype)
    return q2, np.hstack([d, -r_q[:, None], one_d]).astype(d.dtype)


class Ranker(Measure):
    """A measure built to rank English documents for query documents (it overrides
    :meth:`Measure.rank` with a search instead of scoring every pair)."""


class VectorRanker(Ranker):
    """A ranker defined by row vectors of both sides; the score is their dot product."""

    def vectors(
        self, queries: Sequence[str], corpus: Sequence[str], lang: str
    ) -> tuple[Matrix, Matrix]:
        raise NotImplementedError

    def space(
        self, queries: Sequence[str], corpus: Sequence[str], lang: str
    ) -> tuple[Matrix, Matrix]:
        """The rows whose dot product is the score: :meth:`vectors`, rescaled by :func:`csls`
        over all ``queries`` when the ranker's ``csls`` parameter is a k > 0."""
        q, d = self.vectors(queries, corpus, lang)
        k = int(self.params.get("csls", 0))
        return csls(q, d, k, lambda a, b, n: self.search(a, b, n)) if k > 0 else (q, d)

    def rank(self, data: LinkingInput, k: int, progress: Progress | None = None) -> TopK:
        q, d = self.space([*data.queries, *data.train_queries], data.corpus, data.lang)
        return self.search(q[: len(data.queries)], d, k, progress, ties=data.ties)

    def search(
        self,
        q: Matrix,
        d: Matrix,
        k: int,
        progress: Progress | None = None,
        ties: np.ndarray | None = None,
    ) -> TopK:
        """Top k of ``q · dᵀ`` (:func:`top_k`), ties by ``ties`` (``LinkingInput.ties``);
        vectors are built from every query text, train queries included, so IDF and trained
        vectors see the whole X side."""
        return top_k(q, d, k, progress=progress, ties=ties)
