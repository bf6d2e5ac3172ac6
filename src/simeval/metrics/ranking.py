"""Ranking metrics for document linking, with trec_eval's semantics.

Matches ``trec_eval`` 9 (and ``pytrec_eval``) for ``success_1``, ``success_5``, ``success_10``,
``recip_rank``, ``num_q``, ``num_ret``, ``num_rel`` and ``num_rel_ret``:

- order: per query by score descending, ties by document id in *descending* byte order
  (``form_res_rels.c``); the rank column of the run file is ignored;
- depth: only the first ``max_retrieved`` (default 1000, trec_eval's ``-M``) documents count;
- relevant: relevance ≥ ``relevance_level`` (default 1, trec_eval's ``-l``);
- averaging: over the queries present in both qrels and run; ``complete=True`` (trec_eval ``-c``)
  averages over every query of the qrels, a query without results scoring 0;
- ``num_*`` measures are sums over the evaluated queries, the others means.

The kernel is vectorised with numpy: ids are encoded as integers once, the run is ordered by one
``lexsort`` and relevance is found by binary search, so 750,000-line runs score in well under a
second.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

SUCCESS_CUTOFFS = (1, 5, 10)
MEAN_MEASURES = ("recip_rank", *(f"success_{k}" for k in SUCCESS_CUTOFFS))
SUM_MEASURES = ("num_ret", "num_rel", "num_rel_ret")


@dataclass
class TrecEvaluation:
    """Per-query values (arrays aligned with ``qids``) and their aggregates."""

    qids: np.ndarray
    per_query: dict[str, np.ndarray]
    aggregates: dict[str, float]


def trec_order(qids: np.ndarray, docnos: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Indices that put a run in trec_eval's order: query, score descending, docno descending."""
    _, q = np.unique(np.asarray(qids), return_inverse=True)
    _, d = np.unique(np.asarray(docnos), return_inverse=True)
    return np.lexsort((-d, -np.asarray(scores, dtype=float), q))


def evaluate_trec(
    run_qids: Sequence[str] | np.ndarray,
    run_docnos: Sequence[str] | np.ndarray,
    run_scores: Sequence[float] | np.ndarray,
    qrels_qids: Sequence[str] | np.ndarray,
    qrels_docnos: Sequence[str] | np.ndarray,
    qrels_relevance: Sequence[int] | np.ndarray,
    *,
    complete: bool = False,
    max_retrieved: int = 1000,
    relevance_level: int = 1,
) -> TrecEvaluation:
    """Evaluate a run against qrels (see the module docstring for the exact rules).

    Each (query, document) must appear at most once in the run and in the qrels (the file
    readers check this). Returns per-query values and aggregates named as trec_eval names them
    (``success_1`` is trec_eval's ``success.1``).
    """
    rq, rd = np.asarray(run_qids), np.asarray(run_docnos)
    qq, qd = np.asarray(qrels_qids), np.asarray(qrels_docnos)
    scores = np.asarray(run_scores, dtype=float)
    rel = np.asarray(qrels_relevance, dtype=np.int64)
    n_run = len(rq)

    all_q, q_code = np.unique(np.concatenate([rq, qq]), return_inverse=True)
    all_d, d_code = np.unique(np.concatenate([rd, qd]), return_inverse=True)
    run_q, qrel_q = q_code[:n_run], q_code[n_run:]
    run_d, qrel_d = d_code[:n_run], d_code[n_run:]
    n_docs = np.int64(len(all_d))

    # Relevance of every run row, by binary search among the qrels keys.
    qrel_key = qrel_q.astype(np.int64) * n_docs + qrel_d
    key_order = np.argsort(qrel_key, kind="stable")
    sorted_keys = qrel_key[key_order]
    run_key = run_q.astype(np.int64) * n_docs + run_d
    pos = np.minimum(np.searchsorted(sorted_keys, run_key), max(len(sorted_keys) - 1, 0))
    found = sorted_keys[pos] == run_key if len(sorted_keys) else np.zeros(n_run, dtype=bool)
    run_rel = np.where(found, rel[key_order][pos] if len(rel) else 0, 0)

    # trec_eval order and ranks within each query.
    order = np.lexsort((-run_d, -scores, run_q))
    sq = run_q[order]
    starts = np.r_[0, np.flatnonzero(sq[1:] != sq[:-1]) + 1] if n_run else np.array([], int)
    sizes = np.diff(np.r_[starts, n_run])
    rank = np.arange(n_run) - np.repeat(starts, sizes) + 1
    retrieved = rank <= max_retrieved
    is_rel = (run_rel[order] >= relevance_level) & retrieved

    n_q = len(all_q)
    in_run = np.zeros(n_q, dtype=bool)
    in_run[run_q] = True
    in_qrels = np.zeros(n_q, dtype=bool)
    in_qrels[qrel_q] = True
    evaluated = in_qrels if complete else in_qrels & in_run

    num_ret = np.bincount(sq[retrieved], minlength=n_q)
    num_rel = np.bincount(qrel_q[rel >= relevance_level], minlength=n_q)
    num_rel_ret = np.bincount(sq[is_rel], minlength=n_q)
    first = np.full(n_q, np.inf)
    np.minimum.at(first, sq[is_rel], rank[is_rel].astype(float))

    per_query = {
        "recip_rank": np.where(np.isfinite(first), 1.0 / first, 0.0),
        **{f"success_{k}": (first <= k).astype(float) for k in SUCCESS_CUTOFFS},
        "num_ret": num_ret.astype(float),
        "num_rel": num_rel.astype(float),
        "num_rel_ret": num_rel_ret.astype(float),
    }
    per_query = {name: values[evaluated] for name, values in per_query.items()}
    count = int(evaluated.sum())
    aggregates: dict[str, float] = {"num_q": float(count)}
    for name in MEAN_MEASURES:
        aggregates[name] = float(per_query[name].mean()) if count else float("nan")
    for name in SUM_MEASURES:
        aggregates[name] = float(per_query[name].sum())
    return TrecEvaluation(all_q[evaluated], per_query, aggregates)
