"""Ranking metrics for document linking, with trec_eval's semantics.

Matches ``trec_eval`` 9 (and ``pytrec_eval``) for ``success_1``, ``success_5``, ``success_10``,
``recip_rank``, ``num_q``, ``num_ret``, ``num_rel`` and ``num_rel_ret``:

- order: trec_eval's, from :mod:`.order` — per query by score descending, ties
  by docno in descending byte order (``form_res_rels.c``); the rank column of the run file is
  ignored;
- depth: every retrieved document counts by default (``max_retrieved=None``), as in trec_eval
  9, whose ``-M`` is unlimited unless given (and pytrec_eval, which never cuts); with
  ``max_retrieved=N`` only the first N documents of each query count (``trec_eval -M N``);
- relevant: relevance ≥ ``relevance_level`` (default 1, trec_eval's ``-l``);
- averaging: over the queries present in both qrels and run; ``complete=True`` (trec_eval ``-c``)
  averages over every query of the qrels, a query without results scoring 0;
- ``num_*`` measures are sums over the evaluated queries, the others means.

The kernel is vectorised and does not sort the run: the rank of a query's first relevant
document is one plus the number of its documents that trec_eval's order puts before it
(:func:`.order.ranks_before`), counted with ``bincount``. Only the relevant rows
of queries with several relevant documents, and the queries with more than ``max_retrieved``
documents, are sorted (:func:`.order.ranking`). Identifiers are joined through
64-bit keys (:mod:`.id_keys`), verified on the bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from simeval.metrics.ranking.id_keys import KeyCollision, as_bytes, as_text, joint_keys, pair_keys
from simeval.metrics.ranking.order import ranking, ranks_before, tie_ranks

SUCCESS_CUTOFFS = (1, 5, 10)
MEAN_MEASURES = ("recip_rank", *(f"success_{k}" for k in SUCCESS_CUTOFFS))
SUM_MEASURES = ("num_ret", "num_rel", "num_rel_ret")


@dataclass
class TrecEvaluation:
    """Per-query values (arrays aligned with ``qids``) and their aggregates.

    ``unjudged`` holds the run's queries that the qrels do not know (ignored, as in trec_eval);
    ``absent`` the judged queries with no document in the run (left out, or 0 with -c).
    """

    qids: np.ndarray
    per_query: dict[str, np.ndarray]
    aggregates: dict[str, float]
    unjudged: np.ndarray
    absent: np.ndarray


def evaluate_trec(
    run_qids: Sequence[str] | np.ndarray,
    run_docnos: Sequence[str] | np.ndarray,
    run_scores: Sequence[float] | np.ndarray,
    qrels_qids: Sequence[str] | np.ndarray,
    qrels_docnos: Sequence[str] | np.ndarray,
    qrels_relevance: Sequence[int] | np.ndarray,
    *,
    complete: bool = False,
    max_retrieved: int | None = None,
    relevance_level: int = 1,
) -> TrecEvaluation:
    """Evaluate a run against qrels (see the module docstring for the exact rules).

    Ids may be ``str`` or UTF-8 ``bytes`` arrays (the TREC readers give bytes). Each (query,
    document) must appear at most once in the run and in the qrels (the readers check this).
    Returns per-query values and aggregates named as trec_eval names them (``success_1`` is
    trec_eval's ``success.1``), with ``qids`` as ``str``. ``max_retrieved`` is trec_eval's
    ``-M``: None (the default, as trec_eval's) keeps every document, N the first N of each
    query.
    """
    if max_retrieved is not None and max_retrieved < 0:
        raise ValueError(f"max_retrieved must be None or >= 0, got {max_retrieved}")
    args = (
        as_bytes(run_qids),
        as_bytes(run_docnos),
        np.asarray(run_scores, dtype=float),
        as_bytes(qrels_qids),
        as_bytes(qrels_docnos),
        np.asarray(qrels_relevance, dtype=np.int64),
    )
    options = {"complete": complete, "max_retrieved": max_retrieved, "level": relevance_level}
    try:
        return _evaluate(*args, exact=False, **options)
    except KeyCollision:
        return _evaluate(*args, exact=True, **options)


def _evaluate(
    rq: np.ndarray,
    rd: np.ndarray,
    scores: np.ndarray,
    qq: np.ndarray,
    qd: np.ndarray,
    rel: np.ndarray,
    *,
    exact: bool,
    complete: bool,
    max_retrieved: int | None,
    level: int,
) -> TrecEvaluation:
    run_qkey, qrel_qkey = joint_keys(rq, qq, exact=exact)
    run_dkey, qrel_dkey = joint_keys(rd, qd, exact=exact)

    # Queries are those of the qrels; run rows of other queries are ignored.
    qkeys, qfirst, qrel_q = np.unique(qrel_qkey, return_index=True, return_inverse=True)
    qnames = qq[qfirst]
    n_q = len(qkeys)
    if not exact and (qq != qnames[qrel_q]).any():
        raise KeyCollision
    pos, judged = _find(qkeys, run_qkey)
    if judged.all():  # the usual case: no copies
        q, s, d, dkey, rq_judged = pos, scores, rd, run_dkey, rq
    else:
        q, s, d, dkey = pos[judged], scores[judged], rd[judged], run_dkey[judged]
        rq_judged = rq[judged]
    if not exact and (rq_judged != qnames[q]).any():
        raise KeyCollision
    unjudged = np.unique(rq[~judged])

    # Relevance of every judged run row: its docno among the judgements of its query. Qrels
    # sorted by query give each query a block; a row of a query with a single judgement
    # (BUCC's case) is compared with it directly, other rows are looked up by pair key.
    by_query = np.argsort(qrel_q, kind="stable")
    n_judged = np.bincount(qrel_q, minlength=n_q)
    block = np.cumsum(n_judged) - n_judged
    qrel_row = by_query[np.minimum(block[q], max(len(by_query) - 1, 0))]
    hit = (n_judged[q] == 1) & (qrel_dkey[qrel_row] == dkey) if len(by_query) else q < 0
    multi = np.flatnonzero(n_judged[q] > 1)
    if len(multi):
        pairs = pair_keys(qrel_q.astype(np.uint64), qrel_dkey, exact=exact)
        order = np.argsort(pairs, kind="stable")
        at, found = _find(
            pairs[order], pair_keys(q[multi].astype(np.uint64), dkey[multi], exact=exact)
        )
        hit[multi[found]] = True
        qrel_row[multi[found]] = order[at[found]]
    qrel_row = qrel_row[hit]
    if not exact and (d[hit] != qd[qrel_row]).any():
        raise KeyCollision
    row_rel = np.zeros(len(q), dtype=np.int64)
    row_rel[hit] = rel[qrel_row]
    relevant = np.flatnonzero(row_rel >= level)

    # Each query's first relevant document in trec_eval order, and how many rank before it.
    size = np.bincount(q, minlength=n_q)
    n_rel = np.bincount(q[relevant], minlength=n_q)
    best = np.full(n_q, -1)
    best[q[relevant]] = relevant  # right where a query has one relevant row; others sorted:
    several = relevant[n_rel[q[relevant]] > 1]
    if len(several):
        by_order = several[ranking(s[several], tie_ranks(d[several]), q[several])]
        heads = np.r_[True, q[by_order][1:] != q[by_order][:-1]]
        best[q[by_order[heads]]] = by_order[heads]
    has_rel = best >= 0
    rows = np.flatnonzero(has_rel[q])
    ahead = rows[ranks_before(s, d, rows, best[q[rows]])]
    before = np.bincount(q[ahead], minlength=n_q)
    # trec_eval's -M: None keeps every document; no query holds more than all the rows
    depth = len(q) if max_retrieved is None else max_retrieved
    first = np.where(has_rel & (before < depth), before + 1.0, np.inf)

    num_rel_ret = n_rel
    deep = np.flatnonzero(size > depth)
    if len(deep):
        num_rel_ret[deep] = _relevant_within_depth(
            q, s, d, row_rel >= level, np.isin(q, deep), depth, n_q
        )[deep]

    in_run = size > 0
    evaluated = np.ones(n_q, dtype=bool) if complete else in_run
    per_query = {
        "recip_rank": np.where(np.isfinite(first), 1.0 / first, 0.0),
        **{f"success_{k}": (first <= k).astype(float) for k in SUCCESS_CUTOFFS},
        "num_ret": np.minimum(size, depth).astype(float),
        "num_rel": np.bincount(qrel_q[rel >= level], minlength=n_q).astype(float),
        "num_rel_ret": num_rel_ret.astype(float),
    }
    per_query = {name: values[evaluated] for name, values in per_query.items()}
    count = int(evaluated.sum())
    aggregates: dict[str, float] = {"num_q": float(count)}
    for name in MEAN_MEASURES:
        aggregates[name] = float(per_query[name].mean()) if count else float("nan")
    for name in SUM_MEASURES:
        aggregates[name] = float(per_query[name].sum())
    return TrecEvaluation(
        as_text(qnames[evaluated]),
        per_query,
        aggregates,
        unjudged=as_text(unjudged),
        absent=as_text(qnames[~in_run]),
    )


def _find(sorted_keys: np.ndarray, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Position of each needle in ``sorted_keys`` and whether it is there. Runs of equal
    consecutive needles (a run's rows come grouped by query) are searched once."""
    if not len(sorted_keys) or not len(needles):
        return np.zeros(len(needles), dtype=np.int64), np.zeros(len(needles), dtype=bool)
    heads = np.r_[0, np.flatnonzero(needles[1:] != needles[:-1]) + 1]
    at = np.searchsorted(sorted_keys, needles[heads])
    at = np.minimum(np.repeat(at, np.diff(np.r_[heads, len(needles)])), len(sorted_keys) - 1)
    return at, sorted_keys[at] == needles


def _relevant_within_depth(
    q: np.ndarray,
    s: np.ndarray,
    d: np.ndarray,
    is_rel: np.ndarray,
    rows: np.ndarray,
    max_retrieved: int,
    n_q: int,
) -> np.ndarray:
    """Relevant documents among the first ``max_retrieved`` of each query, for the given rows
    (those of queries deeper than the cut-off), by sorting them in trec_eval order."""
    idx = np.flatnonzero(rows)
    idx = idx[ranking(s[idx], tie_ranks(d[idx]), q[idx])]
    sq = q[idx]
    starts = np.r_[0, np.flatnonzero(sq[1:] != sq[:-1]) + 1]
    rank = np.arange(len(idx)) - np.repeat(starts, np.diff(np.r_[starts, len(idx)])) + 1
    keep = is_rel[idx] & (rank <= max_retrieved)
    return np.bincount(sq[keep], minlength=n_q)
